/** C0 control characters other than tab, line feed, vertical tab, form feed and carriage return, and DEL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL_CHARS = /[\u0000-\u0008\u000e-\u001f\u007f]/g;

/** Extracted document text, tidied and bounded. */
export interface ExtractedText {
  text: string;
  /** True when the text was cut at `maxChars`. */
  truncated: boolean;
  wordCount: number;
}

/**
 * Tidies text pulled out of a document (joined parts separated by blank lines): unifies line
 * breaks (Word's vertical tab and form feed are line and page breaks), blanks control characters,
 * collapses runs of spaces and of blank lines, trims; then cuts at `maxChars`, on the last word
 * boundary when one is within 64 characters (text without spaces, such as Chinese, is cut exactly).
 */
export function tidyText(parts: readonly string[], maxChars: number): ExtractedText {
  const joined = parts
    .map((p) =>
      p
        .replace(/\r\n?/g, '\n')
        .replace(/[\v\f]/g, '\n')
        .replace(CONTROL_CHARS, ' ')
        .replace(/[ \t\u00a0]+/g, ' ')
        .replace(/ *\n */g, '\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim(),
    )
    .filter(Boolean)
    .join('\n\n');
  let text = joined;
  const truncated = text.length > maxChars;
  if (truncated) {
    const cut = text.slice(0, maxChars);
    const lastSpace = cut.search(/\s\S*$/);
    text = (lastSpace > 0 && lastSpace >= maxChars - 64 ? cut.slice(0, lastSpace) : cut).trimEnd();
  }
  return { text, truncated, wordCount: text.match(/\S+/g)?.length ?? 0 };
}

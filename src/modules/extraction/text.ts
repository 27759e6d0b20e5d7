/** Small, language-agnostic text helpers shared by discovery, purposes and ranking. */

/** Words that say nothing about an image (English plus a few shop words). */
const STOPWORDS = new Set(
  (
    'a an and are as at be by for from has have in into is it its of on or that the this to was were with ' +
    'image images img photo photos picture pictures pic pics jpg jpeg png webp gif svg www com html http https ' +
    'buy online shop store sale new free best our your you more view see click here page size sizes'
  ).split(' '),
);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Lower-cased word tokens (Unicode letters and digits) of at least two characters, without
 * stopwords, with a trailing plural `s` removed from words longer than three letters so that
 * `shoes` matches `shoe`. Runs of CJK characters become overlapping character pairs.
 */
export function tokenize(text: string | undefined): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (CJK.test(raw)) {
      // Chinese, Japanese and Korean are written without spaces: overlapping character pairs.
      for (let i = 0; i + 1 < raw.length; i++) out.push(raw.slice(i, i + 2));
      continue;
    }
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.push(raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw);
  }
  return out;
}

/**
 * Fraction (0..1) of the distinct `wanted` tokens that occur in `have`. Empty `wanted` gives 0.
 */
export function tokenOverlap(wanted: readonly string[], have: ReadonlySet<string>): number {
  const distinct = new Set(wanted);
  if (distinct.size === 0) return 0;
  let hit = 0;
  for (const t of distinct) if (have.has(t)) hit++;
  return hit / distinct.size;
}

/** Collapses whitespace and trims; cuts to `max` characters. */
export function cleanText(text: string | undefined, max = 300): string {
  if (!text) return '';
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? t.slice(0, max) : t;
}

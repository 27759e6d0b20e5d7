import fs from 'node:fs/promises';
import { ParserFailure, runParser } from './isolate.ts';
import { checkFileSize, type MediaLimits, resolveLimits } from './limits.ts';
import { MediaError } from './media-error.ts';
import { type FormatName, requireFormat } from './sniff.ts';
import { type ExtractedText, tidyText } from './text.ts';
import { checkZipBudget, readZipEntries, verifyZipEntries } from './zip.ts';

/**
 * Word documents: DOCX through mammoth, DOC (Word 97-2003) through word-extractor, both in an
 * isolated parser process. A DOCX's ZIP is bounded before mammoth inflates it (see zip.ts).
 */
export interface WordOptions extends Partial<MediaLimits> {
  /** Longest text returned. Default 100 000 characters. */
  maxChars?: number;
  /** DOCX: largest total uncompressed size of the parts text is read from (not media). Default 256 MiB. */
  maxUncompressedBytes?: number;
  /** Heap bound of the parser process, MB. Default 512. */
  maxHeapMb?: number;
}

export interface WordText extends ExtractedText {
  format: 'DOC' | 'DOCX';
}

const DOCX_BUDGET = { maxEntries: 10_000, maxUncompressedBytes: 256 * 1024 * 1024 };
/**
 * Images and embedded objects: JSZip inflates entries only when they are read, and extracting text
 * never reads these, so they are neither counted against the budget nor inflated to verify them.
 */
const BINARY_PARTS = /^word\/(media|embeddings)\//;

/** A mammoth/word-extractor failure as a MediaError. */
export function mediaErrorFromWord(err: unknown, format: FormatName): unknown {
  if (!(err instanceof ParserFailure)) return err;
  return err.corrupt(`The ${format} document is damaged and its text cannot be read.`);
}

/** Text of a DOC or DOCX file (the format is sniffed, not taken from the name). */
export async function extractWordText(filePath: string, opts: WordOptions = {}): Promise<WordText> {
  const limits = resolveLimits(opts);
  await checkFileSize(filePath, limits.maxBytes);
  const format = await requireFormat(filePath, 'document');
  if (format !== 'DOC' && format !== 'DOCX') {
    throw new MediaError('UNSUPPORTED', `The file is ${format}, not a Word document.`);
  }
  if (format === 'DOCX') {
    const entries = await readZipEntries(filePath);
    if (!entries.some((e) => e.name === 'word/document.xml')) {
      throw new MediaError('UNSUPPORTED', 'The package has no word/document.xml; it is not a Word document.');
    }
    const parts = entries.filter((e) => !BINARY_PARTS.test(e.name));
    checkZipBudget(parts, {
      ...DOCX_BUDGET,
      maxUncompressedBytes: opts.maxUncompressedBytes ?? DOCX_BUDGET.maxUncompressedBytes,
    });
    verifyZipEntries(await fs.readFile(filePath), parts);
  }
  try {
    const { text } = await runParser(
      format === 'DOCX' ? 'docx' : 'doc',
      { filePath },
      {
        timeoutMs: limits.timeoutMs,
        maxHeapMb: opts.maxHeapMb ?? 512,
        label: 'document',
      },
    );
    return { format, ...tidyText([text], opts.maxChars ?? 100_000) };
  } catch (err) {
    throw mediaErrorFromWord(err, format);
  }
}

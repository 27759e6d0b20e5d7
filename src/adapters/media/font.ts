import { ParserFailure, runParser } from './isolate.ts';
import { checkFileSize, type MediaLimits, resolveLimits } from './limits.ts';
import { MediaError } from './media-error.ts';
import { type FormatName, formatInfo, readHead, requireFormat } from './sniff.ts';

/**
 * Fonts (TTF, OTF, WOFF, WOFF2) through fontkit in an isolated parser process: family and style names,
 * weight, italic. WOFF/WOFF2 declare how large their tables expand; that is checked before fontkit
 * allocates for it. Collections (TTC) are not accepted.
 */
export interface FontOptions extends Partial<MediaLimits> {
  /** Largest decompressed font (sfnt) accepted. Default 64 MiB. */
  maxSfntBytes?: number;
  /** Heap bound of the parser process, MB. Default 256. */
  maxHeapMb?: number;
}

export interface FontAnalysis {
  format: 'TTF' | 'OTF' | 'WOFF' | 'WOFF2';
  mimeType: string;
  /** Typographic family (name ID 16, else 1), e.g. "DejaVu Sans". */
  familyName: string;
  /** Typographic style (name ID 17, else 2), e.g. "Bold Oblique". */
  styleName?: string;
  fullName?: string;
  postscriptName?: string;
  version?: string;
  /** OS/2 usWeightClass, 100..900. */
  weight?: number;
  italic?: boolean;
  glyphCount?: number;
}

const DEFAULT_MAX_SFNT = 64 * 1024 * 1024;
/** The WOFF2 known-table indices that matter here (the spec's table of 63 known tags). */
const WOFF2_GLYF_LOCA: Record<number, string> = { 10: 'glyf', 11: 'loca' };

function readBase128(buf: Buffer, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const byte = buf[at + i];
    if (byte === undefined) throw new MediaError('CORRUPT', 'The font directory is truncated.');
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  throw new MediaError('CORRUPT', 'The font directory is damaged.');
}

/**
 * Pure: how many bytes a WOFF/WOFF2 font says it expands to (the larger of the header's
 * totalSfntSize and the sum of its tables' original lengths); for TTF/OTF, undefined (the file is
 * its own size). CORRUPT when the directory does not fit the bytes given.
 */
export function fontDeclaredSize(head: Buffer, format: FormatName): number | undefined {
  if (format !== 'WOFF' && format !== 'WOFF2') return undefined;
  if (head.length < 48) throw new MediaError('CORRUPT', 'The font header is truncated.');
  const numTables = head.readUInt16BE(12);
  let sum = 0;
  if (format === 'WOFF') {
    if (head.length < 44 + 20 * numTables) throw new MediaError('CORRUPT', 'The font directory is truncated.');
    for (let i = 0; i < numTables; i++) sum += head.readUInt32BE(44 + 20 * i + 12);
  } else {
    let p = 48;
    for (let i = 0; i < numTables; i++) {
      const flags = head[p];
      if (flags === undefined) throw new MediaError('CORRUPT', 'The font directory is truncated.');
      const custom = (flags & 0x3f) === 0x3f;
      const tag = custom ? head.toString('latin1', p + 1, p + 5) : WOFF2_GLYF_LOCA[flags & 0x3f];
      p += custom ? 5 : 1;
      const [length, next] = readBase128(head, p);
      sum += length;
      p = next;
      const version = flags >> 6;
      // glyf and loca are transformed at version 0; other tables at any non-zero version.
      const transformed = tag === 'glyf' || tag === 'loca' ? version === 0 : version !== 0;
      if (transformed) {
        const [transformLength, after] = readBase128(head, p);
        sum += transformLength;
        p = after;
      }
    }
  }
  return Math.max(head.readUInt32BE(16), sum);
}

/** Names and style of a font file. Throws MediaError (UNSUPPORTED, CORRUPT, TOO_LARGE, TIMEOUT). */
export async function analyzeFont(filePath: string, opts: FontOptions = {}): Promise<FontAnalysis> {
  const limits = resolveLimits(opts);
  await checkFileSize(filePath, limits.maxBytes);
  const format = await requireFormat(filePath, 'font');
  const maxSfnt = opts.maxSfntBytes ?? DEFAULT_MAX_SFNT;
  const declared = fontDeclaredSize(await readHead(filePath, 64 * 1024), format);
  if (declared !== undefined && declared > maxSfnt) {
    throw new MediaError('TOO_LARGE', `The font expands to ${declared} bytes, over the limit of ${maxSfnt} bytes.`);
  }
  let r: Awaited<ReturnType<typeof runParser<'font'>>>;
  try {
    r = await runParser(
      'font',
      { filePath },
      { timeoutMs: limits.timeoutMs, maxHeapMb: opts.maxHeapMb ?? 256, label: 'font' },
    );
  } catch (err) {
    if (!(err instanceof ParserFailure)) throw err;
    throw err.corrupt('The font is damaged and cannot be read.');
  }
  if (r.collection)
    throw new MediaError('UNSUPPORTED', 'Font collections are not supported; upload each font on its own.');
  if (!r.familyName) throw new MediaError('CORRUPT', 'The font has no family name.');
  const f = format as FontAnalysis['format'];
  return {
    format: f,
    mimeType: formatInfo(f).mime,
    familyName: r.familyName,
    ...(r.subfamilyName ? { styleName: r.subfamilyName } : {}),
    ...(r.fullName ? { fullName: r.fullName } : {}),
    ...(r.postscriptName ? { postscriptName: r.postscriptName } : {}),
    ...(r.version ? { version: r.version } : {}),
    ...(r.weightClass ? { weight: r.weightClass } : {}),
    ...(r.italic !== undefined ? { italic: r.italic } : {}),
    ...(r.numGlyphs !== undefined ? { glyphCount: r.numGlyphs } : {}),
  };
}

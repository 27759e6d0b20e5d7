import fs from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import { MediaError } from './media-error.ts';
import { CONTROL_CHARS } from './text.ts';
import { readZipEntries } from './zip.ts';

/**
 * What Atelier accepts as an upload, and how it tells what a file really is. Declared types
 * (initiate-upload) are checked against the table; stored bytes are sniffed, never trusted by name.
 */
export type FormatName =
  | 'JPEG'
  | 'PNG'
  | 'GIF'
  | 'TIFF'
  | 'MP4'
  | 'QuickTime'
  | 'PDF'
  | 'DOC'
  | 'DOCX'
  | 'TTF'
  | 'OTF'
  | 'WOFF'
  | 'WOFF2';

/** The asset type a format gives an upload (`logo` is the caller's choice for an image with `isLogo`). */
export type MediaAssetType = 'image' | 'video' | 'document' | 'font';

export interface FormatInfo {
  format: FormatName;
  /** Canonical MIME type, stored as the asset's `metadata.fileType`. */
  mime: string;
  /** Other MIME types clients send for the same format. */
  mimeAliases: readonly string[];
  assetType: MediaAssetType;
  /** Lower-case file name extensions, without the dot. */
  extensions: readonly string[];
}

export const FORMATS: readonly FormatInfo[] = [
  {
    format: 'JPEG',
    mime: 'image/jpeg',
    mimeAliases: ['image/jpg', 'image/pjpeg'],
    assetType: 'image',
    extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
  },
  {
    format: 'PNG',
    mime: 'image/png',
    mimeAliases: ['image/x-png', 'image/apng'],
    assetType: 'image',
    extensions: ['png', 'apng'],
  },
  { format: 'GIF', mime: 'image/gif', mimeAliases: [], assetType: 'image', extensions: ['gif'] },
  {
    format: 'TIFF',
    mime: 'image/tiff',
    mimeAliases: ['image/tif', 'image/x-tiff'],
    assetType: 'image',
    extensions: ['tif', 'tiff'],
  },
  {
    format: 'MP4',
    mime: 'video/mp4',
    mimeAliases: ['video/x-m4v', 'application/mp4'],
    assetType: 'video',
    extensions: ['mp4', 'm4v'],
  },
  { format: 'QuickTime', mime: 'video/quicktime', mimeAliases: [], assetType: 'video', extensions: ['mov', 'qt'] },
  {
    format: 'PDF',
    mime: 'application/pdf',
    mimeAliases: ['application/x-pdf'],
    assetType: 'document',
    extensions: ['pdf'],
  },
  { format: 'DOC', mime: 'application/msword', mimeAliases: [], assetType: 'document', extensions: ['doc'] },
  {
    format: 'DOCX',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    mimeAliases: [],
    assetType: 'document',
    extensions: ['docx'],
  },
  {
    format: 'TTF',
    mime: 'font/ttf',
    mimeAliases: ['application/x-font-ttf', 'application/x-font-truetype', 'application/font-sfnt', 'font/sfnt'],
    assetType: 'font',
    extensions: ['ttf'],
  },
  {
    format: 'OTF',
    mime: 'font/otf',
    mimeAliases: ['application/x-font-otf', 'application/x-font-opentype', 'application/vnd.ms-opentype'],
    assetType: 'font',
    extensions: ['otf'],
  },
  {
    format: 'WOFF',
    mime: 'font/woff',
    mimeAliases: ['application/font-woff', 'application/x-font-woff'],
    assetType: 'font',
    extensions: ['woff'],
  },
  {
    format: 'WOFF2',
    mime: 'font/woff2',
    mimeAliases: ['application/font-woff2'],
    assetType: 'font',
    extensions: ['woff2'],
  },
];

/** `details.supportedFormats` of the unsupported-contents error, exactly as the spec lists it. */
export const SUPPORTED_FORMATS: readonly string[] = [
  'DOC',
  'DOCX',
  'GIF',
  'JPEG',
  'MP4',
  'PDF',
  'PNG',
  'QuickTime',
  'TIFF',
];

/** Formats stored in the same container family: a file declared as one and sniffed as the other is accepted. */
const SAME_FAMILY: readonly (readonly FormatName[])[] = [
  ['MP4', 'QuickTime'], // ISO base media files; the `ftyp` brand is all that differs
  ['TTF', 'OTF'], // sfnt; `.otf` files with TrueType outlines are common
];

const byFormat = new Map(FORMATS.map((f) => [f.format, f]));
const byMime = new Map(FORMATS.flatMap((f) => [f.mime, ...f.mimeAliases].map((m) => [m, f] as const)));
const byExtension = new Map(FORMATS.flatMap((f) => f.extensions.map((e) => [e, f] as const)));

export const formatInfo = (format: FormatName): FormatInfo => byFormat.get(format)!;

/** `Image/JPEG; charset=binary` → `image/jpeg`. */
const normalizeMime = (mime: string): string => mime.split(';')[0]!.trim().toLowerCase();

export const formatForMime = (mime: string): FormatInfo | undefined => byMime.get(normalizeMime(mime));

/** Lower-case extension of a file name without the dot, or '' when it has none. */
function extensionOf(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

const SVG_MIMES = new Set(['image/svg+xml', 'image/svg', 'image/svg-xml']);
const SVG_EXTENSIONS = new Set(['svg', 'svgz']);
/** MIME types that say nothing; the extension decides then. */
const GENERIC_MIMES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);

export type DeclaredRejection = 'svg_not_supported' | 'unsupported_file_type' | 'file_type_extension_mismatch';

export type DeclaredClassification =
  | { ok: true; format: FormatName; assetType: MediaAssetType; mimeType: string }
  | { ok: false; reason: DeclaredRejection; message: string };

/**
 * Initiate-upload check of a declared file. SVG (by type or extension) and anything outside the
 * table is rejected. A generic type (`application/octet-stream`, empty) is resolved from the
 * extension. A known extension of another format than the declared type is a mismatch; an
 * unknown or missing extension is fine (the bytes are sniffed at confirm time anyway).
 */
export function classifyDeclared(fileName: string, mimeType: string): DeclaredClassification {
  const mime = normalizeMime(mimeType);
  const ext = extensionOf(fileName);
  if (SVG_MIMES.has(mime) || SVG_EXTENSIONS.has(ext)) {
    return { ok: false, reason: 'svg_not_supported', message: 'SVG files are not supported; upload a PNG instead.' };
  }
  const fromExt = byExtension.get(ext);
  const declared = GENERIC_MIMES.has(mime) ? fromExt : byMime.get(mime);
  if (!declared) {
    return {
      ok: false,
      reason: 'unsupported_file_type',
      message: `Files of type ${mime || 'unknown'} are not supported; allowed: ${FORMATS.map((f) => f.format).join(', ')}.`,
    };
  }
  if (fromExt && fromExt !== declared && !sameFamily(fromExt.format, declared.format)) {
    return {
      ok: false,
      reason: 'file_type_extension_mismatch',
      message: `The file name ends in .${ext} but the declared type is ${mime}.`,
    };
  }
  return { ok: true, format: declared.format, assetType: declared.assetType, mimeType: declared.mime };
}

const sameFamily = (a: FormatName, b: FormatName) => a === b || SAME_FAMILY.some((f) => f.includes(a) && f.includes(b));

// ---------------------------------------------------------------------------------------------
// Sniffing

/** How many leading bytes `sniffFile` reads; enough for every signature file-type knows and DOCX's first entries. */
const SNIFF_BYTES = 64 * 1024;

export interface SniffResult {
  /** The supported format the bytes are, when they are one. */
  format?: FormatName;
  /**
   * What the bytes are: a FormatName, or another label (`SVG`, `HTML`, `XML`, `TEXT`, `ZIP`, `XLS`,
   * `WEBP`, ... — file-type's extension upper-cased), `EMPTY` for no bytes, `UNKNOWN` otherwise.
   */
  detectedFormat: string;
}

/** file-type's extension → our format, for the extensions that are one. */
const FILE_TYPE_EXT: Record<string, FormatName> = {
  jpg: 'JPEG',
  png: 'PNG',
  apng: 'PNG', // an animated PNG is a PNG; its first frame is what decoders show
  gif: 'GIF',
  tif: 'TIFF',
  mp4: 'MP4',
  m4v: 'MP4',
  mov: 'QuickTime',
  pdf: 'PDF',
  docx: 'DOCX',
  ttf: 'TTF',
  otf: 'OTF',
  woff: 'WOFF',
  woff2: 'WOFF2',
};

const utf16 = (s: string) => Buffer.from(s, 'utf16le');
const CFB_STREAMS: readonly [string, Buffer][] = [
  ['DOC', utf16('WordDocument')],
  ['XLS', utf16('Workbook')],
  ['PPT', utf16('PowerPoint Document')],
  ['MSG', utf16('__substg1.0_')],
];

/**
 * An OLE compound file is DOC when its directory names a `WordDocument` stream, another Office
 * type when it names theirs. When the directory lies past the sniffed bytes we cannot tell, and
 * call it DOC: word-extractor then fails on anything that is not a Word document (CORRUPT).
 */
function cfbKind(bytes: Buffer): string {
  for (const [label, name] of CFB_STREAMS) if (bytes.includes(name)) return label;
  return 'DOC';
}

/** A ZIP is DOCX when it holds `word/document.xml` (local header names are plain text). */
const zipKind = (bytes: Buffer): string => (bytes.includes('word/document.xml') ? 'DOCX' : 'ZIP');

/**
 * Text formats file-type does not report: SVG, HTML (active content a browser would run if it were
 * ever served inline), other XML, plain text. Handles UTF-8/16 byte-order marks. `undefined` for
 * binary data.
 */
export function detectTextKind(bytes: Buffer): 'SVG' | 'HTML' | 'XML' | 'TEXT' | undefined {
  const head = bytes.subarray(0, 8192);
  let text: string;
  if (head[0] === 0xff && head[1] === 0xfe) text = head.subarray(2).toString('utf16le');
  else if (head[0] === 0xfe && head[1] === 0xff) text = Buffer.from(head.subarray(2)).swap16().toString('utf16le');
  else {
    const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    if (head.includes(0)) return undefined;
    text = head.subarray(start).toString('utf8');
  }
  const lower = text.slice(0, 4096).toLowerCase();
  if (/<svg[\s>/]|<!doctype\s+svg/.test(lower)) return 'SVG';
  if (/<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<script[\s>]|<iframe[\s>]/.test(lower)) return 'HTML';
  if (lower.trimStart().startsWith('<')) return 'XML';
  const controls = text.match(CONTROL_CHARS)?.length ?? 0;
  const replacements = text.split('\ufffd').length - 1;
  return controls + replacements <= text.length * 0.01 ? 'TEXT' : undefined;
}

/**
 * What the leading bytes of a file are. Detection follows the leading signature only, so a file is
 * the format its first bytes say (a JPEG with an appended ZIP is a JPEG; a PNG whose later bytes
 * also parse as a PDF is a PNG).
 */
export async function sniffFormat(firstBytes: Buffer): Promise<SniffResult> {
  if (firstBytes.length === 0) return { detectedFormat: 'EMPTY' };
  const ft = await fileTypeFromBuffer(firstBytes);
  let label: string;
  if (!ft || ft.ext === 'xml') label = detectTextKind(firstBytes) ?? 'UNKNOWN';
  else if (ft.ext === 'cfb') label = cfbKind(firstBytes);
  else if (ft.ext === 'zip') label = zipKind(firstBytes);
  else label = FILE_TYPE_EXT[ft.ext] ?? ft.ext.toUpperCase();
  return byFormat.has(label as FormatName)
    ? { format: label as FormatName, detectedFormat: label }
    : { detectedFormat: label };
}

/** The first `bytes` bytes of a file (fewer when it is shorter). */
export async function readHead(filePath: string, bytes: number): Promise<Buffer> {
  const fh = await fs.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** sniffFormat over the first SNIFF_BYTES of a file; a ZIP is told apart by its central directory. */
export async function sniffFile(filePath: string): Promise<SniffResult> {
  const head = await readHead(filePath, SNIFF_BYTES);
  const result = await sniffFormat(head);
  if (result.detectedFormat !== 'ZIP') return result;
  const names = await readZipEntries(filePath).then(
    (entries) => new Set(entries.map((e) => e.name)),
    () => new Set<string>(),
  );
  return names.has('word/document.xml') ? { format: 'DOCX', detectedFormat: 'DOCX' } : result;
}

/**
 * The sniffed format of a file an analyzer was handed, which must be of `assetType`; UNSUPPORTED
 * otherwise. Analyzers check again even though the job has sniffed at confirm time, so that no
 * decoder ever sees bytes it was not chosen for (sharp would read SVG, ffmpeg would follow a playlist).
 */
export async function requireFormat(filePath: string, assetType: MediaAssetType): Promise<FormatName> {
  const sniffed = await sniffFile(filePath);
  if (sniffed.format && formatInfo(sniffed.format).assetType === assetType) return sniffed.format;
  const label = ['UNKNOWN', 'EMPTY'].includes(sniffed.detectedFormat) ? '' : `${sniffed.detectedFormat}, `;
  throw new MediaError('UNSUPPORTED', `The file is ${label}not a supported ${assetType} format.`, {
    detectedFormat: sniffed.detectedFormat,
  });
}

export interface UnsupportedContentsDetails {
  reason: 'unsupported_file_contents';
  declaredType: string;
  detectedFormat: string;
  retryable: boolean;
  supportedFormats: string[];
}

export type ContentCheck =
  | { ok: true; format: FormatName; assetType: MediaAssetType; mimeType: string }
  | { ok: false; message: string; details: UnsupportedContentsDetails };

/**
 * Confirm-time check of the stored bytes against the declared type. OK when the sniffed format is
 * supported and is the declared one (or of its family: MP4/QuickTime, TTF/OTF); the result carries
 * the sniffed format, which is what gets stored. Otherwise the spec's `INVALID_REQUEST` details:
 * `retryable` is true only when nothing was uploaded (EMPTY), since uploading again can fix that;
 * a real mismatch is final.
 */
export function checkDeclaredAgainstDetected(declaredMime: string, detected: SniffResult): ContentCheck {
  const declared = formatForMime(declaredMime);
  if (declared && detected.format && sameFamily(declared.format, detected.format)) {
    const info = formatInfo(detected.format);
    return { ok: true, format: info.format, assetType: info.assetType, mimeType: info.mime };
  }
  const declaredType = declaredMime.trim();
  const message =
    detected.detectedFormat === 'EMPTY'
      ? 'The uploaded file is empty; upload it again.'
      : detected.detectedFormat === 'UNKNOWN'
        ? `The file's contents are not a supported format (declared ${declaredType}).`
        : `The file's contents are ${detected.detectedFormat}, which does not match the declared type ${declaredType}.`;
  return {
    ok: false,
    message,
    details: {
      reason: 'unsupported_file_contents',
      declaredType,
      detectedFormat: detected.detectedFormat,
      retryable: detected.detectedFormat === 'EMPTY',
      supportedFormats: [...SUPPORTED_FORMATS],
    },
  };
}

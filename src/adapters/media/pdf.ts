import sharp from 'sharp';
import { type ParserTasks, ParserFailure, runParser } from './isolate.ts';
import { checkFileSize, type MediaLimits, resolveLimits } from './limits.ts';
import { MediaError } from './media-error.ts';
import { requireFormat } from './sniff.ts';
import { type ExtractedText, tidyText } from './text.ts';
import { DEFAULT_THUMBNAIL_SIZE, encodeThumbnail, type Thumbnail, type ThumbnailOptions } from './thumbnail.ts';

/**
 * PDFs through pdf.js (pdfjs-dist legacy build: the modern one needs Uint8Array.prototype.toHex, which
 * Node 22 and 24 lack) in an isolated parser process:
 * page count, document info, text of the first pages, and a first-page thumbnail rendered with
 * @napi-rs/canvas (pdf.js's optional dependency, a prebuilt binary from npm). When that canvas
 * cannot load on a platform, the analysis still succeeds without a thumbnail (`thumbnailSkipped`).
 */
export interface PdfOptions extends Partial<MediaLimits> {
  /** Pages whose text is read. Default 3 for analyzePdf, 20 for extractPdfText. */
  maxPages?: number;
  /** Longest text returned. Default 100 000 characters. */
  maxChars?: number;
  /** Heap bound of the parser process, MB. Default 512. */
  maxHeapMb?: number;
}

export interface PdfAnalysisOptions extends PdfOptions {
  /** Thumbnail settings, or false for none. Default: 512 px WebP returned as a Buffer. */
  thumbnail?: ThumbnailOptions | false;
}

export interface PdfAnalysis extends ExtractedText {
  pageCount: number;
  /** Pages whose text was read. */
  pagesRead: number;
  title?: string;
  author?: string;
  /** First page size in PDF points (1/72 inch). */
  firstPage?: { width: number; height: number };
  thumbnail?: Thumbnail;
  /** Why there is no thumbnail although one was asked for. */
  thumbnailSkipped?: string;
}

export interface PdfText extends ExtractedText {
  pageCount: number;
  pagesRead: number;
}

const DEFAULT_MAX_CHARS = 100_000;

/** A pdf.js failure as a MediaError. */
export function mediaErrorFromPdf(err: unknown): unknown {
  if (!(err instanceof ParserFailure)) return err;
  if (err.parserError === 'PasswordException') {
    return new MediaError('UNSUPPORTED', 'Password-protected PDFs are not supported; upload an unprotected copy.');
  }
  return err.corrupt('The PDF is damaged or not a PDF and cannot be read.');
}

async function readPdf(
  filePath: string,
  opts: PdfOptions,
  defaultPages: number,
  thumbnailSize: number,
): Promise<ParserTasks['pdf']['result']> {
  const limits = resolveLimits(opts);
  await checkFileSize(filePath, limits.maxBytes);
  const format = await requireFormat(filePath, 'document');
  if (format !== 'PDF') throw new MediaError('UNSUPPORTED', `The file is ${format}, not a PDF.`);
  try {
    return await runParser(
      'pdf',
      {
        filePath,
        maxPages: opts.maxPages ?? defaultPages,
        maxChars: opts.maxChars ?? DEFAULT_MAX_CHARS,
        thumbnailSize,
      },
      { timeoutMs: limits.timeoutMs, maxHeapMb: opts.maxHeapMb ?? 512, label: 'PDF' },
    );
  } catch (err) {
    throw mediaErrorFromPdf(err);
  }
}

/** Page count, info, text of the first `maxPages` pages (default 3) and a first-page thumbnail. */
export async function analyzePdf(filePath: string, opts: PdfAnalysisOptions = {}): Promise<PdfAnalysis> {
  const thumbOpts = opts.thumbnail === false ? undefined : (opts.thumbnail ?? {});
  // Rendered at twice the thumbnail size, then downscaled by sharp for clean anti-aliasing.
  const renderSize = thumbOpts ? 2 * (thumbOpts.size ?? DEFAULT_THUMBNAIL_SIZE) : 0;
  const r = await readPdf(filePath, opts, 3, renderSize);
  const text = tidyText(r.pageTexts, opts.maxChars ?? DEFAULT_MAX_CHARS);
  let thumbnail: Thumbnail | undefined;
  let thumbnailSkipped: string | undefined;
  if (thumbOpts && r.thumbnail) thumbnail = await encodeThumbnail(sharp(Buffer.from(r.thumbnail)), thumbOpts);
  else if (thumbOpts) thumbnailSkipped = r.thumbnailError ?? 'The PDF has no page to render.';
  return {
    ...text,
    pageCount: r.pageCount,
    pagesRead: r.pageTexts.length,
    ...(r.title ? { title: r.title } : {}),
    ...(r.author ? { author: r.author } : {}),
    ...(r.firstPage ? { firstPage: r.firstPage } : {}),
    ...(thumbnail ? { thumbnail } : {}),
    ...(thumbnailSkipped ? { thumbnailSkipped } : {}),
  };
}

/** Text of the first `maxPages` pages (default 20), for Brand DNA. */
export async function extractPdfText(filePath: string, opts: PdfOptions = {}): Promise<PdfText> {
  const r = await readPdf(filePath, opts, 20, 0);
  return {
    ...tidyText(r.pageTexts, opts.maxChars ?? DEFAULT_MAX_CHARS),
    pageCount: r.pageCount,
    pagesRead: r.pageTexts.length,
  };
}

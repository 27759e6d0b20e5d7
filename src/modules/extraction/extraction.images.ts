import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';
import { type FormatName, sniffFormat } from '../../adapters/media/index.ts';
import type { Measurement } from './measurement.ts';

/**
 * What the pipeline learns from a downloaded candidate's bytes, and the copy it stages: the real
 * format (sniffed, never the declared type), size, transparency, palette size and a perceptual
 * hash, measured with sharp under a pixel bound. Uploads accept JPEG, PNG, GIF and TIFF only, so
 * WebP and AVIF are re-encoded (PNG when transparent, else JPEG) and SVG is rasterised to PNG.
 */

export interface InspectLimits {
  /** Largest decoded image, in pixels (checked on the header before decoding). */
  maxPixels: number;
  /** Largest SVG document accepted for rasterising. */
  maxSvgBytes: number;
  /** Long side an SVG is rendered at when its own size is smaller (and the bound when larger). */
  svgRenderSide: number;
  svgMaxSide: number;
}

export const DEFAULT_INSPECT_LIMITS: InspectLimits = {
  maxPixels: 100_000_000,
  maxSvgBytes: 1024 * 1024,
  svgRenderSide: 1024,
  svgMaxSide: 2048,
};

/** A copy an asset can be made from. */
export interface StagedImage {
  bytes: Buffer;
  format: Extract<FormatName, 'JPEG' | 'PNG' | 'GIF' | 'TIFF'>;
  width: number;
  height: number;
}

export interface Inspection {
  measurement: Measurement;
  /** sha256 of the downloaded bytes (exact duplicates). */
  sha256: string;
  /** Present when the bytes decode as an image. */
  staged?: StagedImage;
}

/** Sniffed labels sharp decodes, with sharp's format name. */
const DECODABLE: Record<string, string> = {
  JPEG: 'jpeg',
  PNG: 'png',
  GIF: 'gif',
  TIFF: 'tiff',
  WEBP: 'webp',
  AVIF: 'avif',
  SVG: 'svg',
};
/** Image formats we recognise but cannot take (no decoder, or not an upload format). */
const OTHER_IMAGES = new Set([
  'BMP',
  'ICO',
  'CUR',
  'ICNS',
  'JXL',
  'JP2',
  'JPX',
  'JPM',
  'MJ2',
  'HEIC',
  'PSD',
  'DDS',
  'XCF',
  'TGA',
  'JXR',
  'BPG',
  'FLIF',
  'KTX',
]);
const KEPT_AS_IS = new Set<string>(['JPEG', 'PNG', 'GIF', 'TIFF']);

const NOT_AN_IMAGE: Record<string, string> = {
  EMPTY: 'the file is empty',
  HTML: 'the server sent a web page instead of an image',
  TEXT: 'the server sent text instead of an image',
  XML: 'the server sent XML that is not SVG',
  UNKNOWN: 'the bytes are not a known image format',
};

/** Measures `bytes` and prepares the copy to stage. Never throws for bad bytes: they become a measurement. */
export async function inspectImage(bytes: Buffer, limits: InspectLimits = DEFAULT_INSPECT_LIMITS): Promise<Inspection> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const fileSize = bytes.length;
  const { detectedFormat: label } = await sniffFormat(bytes.subarray(0, 64 * 1024));
  const sharpFormat = DECODABLE[label];
  if (!sharpFormat) {
    if (OTHER_IMAGES.has(label)) return { sha256, measurement: { format: label.toLowerCase(), fileSize } };
    return {
      sha256,
      measurement: { fileSize, decodeError: NOT_AN_IMAGE[label] ?? `the file is ${label}, not an image` },
    };
  }
  try {
    if (label === 'SVG') return { sha256, ...(await inspectSvg(bytes, limits)) };
    return { sha256, ...(await inspectRaster(bytes, label, sharpFormat, limits)) };
  } catch (err) {
    return { sha256, measurement: { format: sharpFormat, fileSize, decodeError: decoderMessage(err) } };
  }
}

async function inspectRaster(
  bytes: Buffer,
  label: string,
  format: string,
  limits: InspectLimits,
): Promise<Pick<Inspection, 'measurement' | 'staged'>> {
  const fileSize = bytes.length;
  // Header only: no pixel is decoded before the size is known to be within bounds.
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  if (meta.format !== format && !(format === 'avif' && meta.format === 'heif')) {
    return {
      measurement: { format, fileSize, decodeError: `its header says ${meta.format}, its signature ${format}` },
    };
  }
  const pageHeight = meta.pageHeight ?? meta.height;
  if (!meta.width || !pageHeight) return { measurement: { format, fileSize, decodeError: 'it has no size' } };
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = rotated ? pageHeight : meta.width;
  const height = rotated ? meta.width : pageHeight;
  if (width * height > limits.maxPixels) return { measurement: { format, fileSize, width, height } };

  const input = { limitInputPixels: limits.maxPixels, failOn: 'truncated' as const };
  const { hasAlpha, colorCount, phash } = await pixelFacts(() => sharp(bytes, input).autoOrient());
  let staged: StagedImage;
  if (KEPT_AS_IS.has(label)) {
    staged = { bytes, format: label as StagedImage['format'], width, height };
  } else {
    const img = sharp(bytes, input).autoOrient();
    const out = hasAlpha
      ? await img.png().toBuffer()
      : await img.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
    staged = { bytes: out, format: hasAlpha ? 'PNG' : 'JPEG', width, height };
  }
  return { measurement: { format, fileSize, width, height, hasAlpha, colorCount, phash }, staged };
}

async function inspectSvg(bytes: Buffer, limits: InspectLimits): Promise<Pick<Inspection, 'measurement' | 'staged'>> {
  const fileSize = bytes.length;
  if (fileSize > limits.maxSvgBytes) {
    return {
      measurement: { format: 'svg', fileSize, decodeError: `the SVG is larger than ${limits.maxSvgBytes} bytes` },
    };
  }
  const svg = withSvgNamespace(bytes);
  const meta = await sharp(svg, { limitInputPixels: limits.maxPixels }).metadata();
  if (!meta.width || !meta.height)
    return { measurement: { format: 'svg', fileSize, decodeError: 'the SVG has no size' } };
  const density = 72 * svgScale(meta.width, meta.height, limits);
  const png = await sharp(svg, { density, limitInputPixels: limits.maxPixels })
    .png()
    .toBuffer({ resolveWithObject: true });
  const facts = await pixelFacts(() => sharp(png.data));
  const { width, height } = png.info;
  return {
    measurement: { format: 'svg', fileSize, width, height, ...facts },
    staged: { bytes: png.data, format: 'PNG', width, height },
  };
}

/** Scale that brings an SVG's long side to `svgRenderSide` (never down) within `svgMaxSide`. */
export function svgScale(width: number, height: number, limits: Pick<InspectLimits, 'svgRenderSide' | 'svgMaxSide'>) {
  const side = Math.max(width, height);
  return Math.min(limits.svgMaxSide / side, Math.max(1, limits.svgRenderSide / side));
}

/** librsvg needs the SVG namespace; inline `<svg>` markup from HTML often omits it. */
export function withSvgNamespace(bytes: Buffer): Buffer {
  const text = bytes.toString('utf8');
  if (/<svg[^>]*\sxmlns\s*=/i.test(text)) return bytes;
  return Buffer.from(text.replace(/<svg(?=[\s>/])/i, '<svg xmlns="http://www.w3.org/2000/svg"'), 'utf8');
}

/** Transparency, palette size (on a 64 px nearest-neighbour copy) and the dHash. */
async function pixelFacts(open: () => Sharp) {
  const [small, grey] = await Promise.all([
    open()
      .resize(64, 64, { fit: 'inside', kernel: 'nearest', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true }),
    open().flatten({ background: '#ffffff' }).greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer(),
  ]);
  return { ...paletteFacts(small.data, small.info.channels), phash: differenceHash(grey) };
}

/**
 * dHash: on a 9x8 greyscale copy, one bit per horizontally adjacent pair (left brighter than
 * right), 64 bits as 16 hex digits. Copies of one picture at other sizes or qualities stay
 * within a few bits; different pictures differ in about half.
 */
export function differenceHash(grey9x8: Uint8Array): string {
  if (grey9x8.length < 72) throw new Error('differenceHash needs 9x8 greyscale pixels');
  let hex = '';
  for (let y = 0; y < 8; y++) {
    let byte = 0;
    for (let x = 0; x < 8; x++) {
      const i = y * 9 + x;
      byte = (byte << 1) | (grey9x8[i]! > grey9x8[i + 1]! ? 1 : 0);
    }
    hex += byte.toString(16).padStart(2, '0');
  }
  return hex;
}

/** Whether any pixel is see-through, and how many distinct opaque colours there are. */
export function paletteFacts(pixels: Uint8Array, channels: number): { hasAlpha: boolean; colorCount: number } {
  const colours = new Set<number>();
  let hasAlpha = false;
  for (let i = 0; i + channels - 1 < pixels.length; i += channels) {
    const a = channels === 4 ? pixels[i + 3]! : 255;
    if (a < 250) hasAlpha = true;
    if (a < 128) continue;
    colours.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!);
  }
  return { hasAlpha, colorCount: colours.size };
}

function decoderMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) return 'it has more pixels than allowed';
  if (/premature end|truncated|corrupt|invalid|bad|not a known|unsupported/i.test(message)) {
    return 'the image data is damaged or incomplete';
  }
  return 'the image could not be read';
}

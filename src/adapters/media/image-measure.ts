import { createLabLookup, labDistance, rgbToLab } from './colors.ts';

/**
 * Pure pixel measurements over decoded rasters (RGBA or greyscale, 8 bits per channel). The
 * numbers feed the tag decisions in tags.ts; nothing here decides anything.
 */
export interface LumaStats {
  /** Pixels measured. */
  count: number;
  /** Mean Rec. 709 luma, 0..255. */
  mean: number;
  /** Standard deviation of luma (global contrast). */
  stdDev: number;
  /** Share of pixels at luma <= 5 (crushed shadows). */
  shadowClip: number;
  /** Share of pixels at luma >= 250 (blown highlights). */
  highlightClip: number;
}

export interface BorderStats {
  /** Share of border pixels that are transparent (alpha < 16). */
  transparentFraction: number;
  /** Mean colour of the opaque border pixels. */
  meanRgb: [number, number, number];
  /** Luma standard deviation over the opaque border pixels. */
  lumaStdDev: number;
  /** Mean CIELAB distance of opaque border pixels from their mean colour (colour uniformity). */
  meanDeltaE: number;
}

export interface PixelStats {
  width: number;
  height: number;
  /** Luma over every opaque pixel. */
  luma: LumaStats;
  /** Luma over subject pixels (see `subjectFraction`); undefined when there are none. */
  subjectLuma: LumaStats | undefined;
  /** Share of all pixels that are transparent (alpha < 128). */
  transparentFraction: number;
  border: BorderStats;
  /**
   * Share of all pixels that are subject: opaque and farther than SUBJECT_DELTA_E from the border
   * colour (or, with a transparent border, simply opaque).
   */
  subjectFraction: number;
  /** Mean CIELAB chroma of opaque pixels (0 for pure greys). */
  meanChroma: number;
}

/** CIELAB distance from the border colour past which a pixel counts as subject, not background. */
const SUBJECT_DELTA_E = 20;
/** Width of the border band, as a share of the shorter side. */
const BORDER_BAND = 0.04;

export const luma = (r: number, g: number, b: number): number => 0.2126 * r + 0.7152 * g + 0.0722 * b;

class LumaAccumulator {
  n = 0;
  sum = 0;
  sumSq = 0;
  low = 0;
  high = 0;
  add(y: number) {
    this.n++;
    this.sum += y;
    this.sumSq += y * y;
    if (y <= 5) this.low++;
    if (y >= 250) this.high++;
  }
  stats(): LumaStats {
    const n = this.n || 1;
    const mean = this.sum / n;
    return {
      count: this.n,
      mean,
      stdDev: Math.sqrt(Math.max(0, this.sumSq / n - mean * mean)),
      shadowClip: this.low / n,
      highlightClip: this.high / n,
    };
  }
}

/** Measures an RGBA raster: luma, border uniformity, subject share, chroma. */
export function measurePixels(rgba: Uint8Array, width: number, height: number): PixelStats {
  const band = Math.max(1, Math.round(BORDER_BAND * Math.min(width, height)));
  const isBorder = (x: number, y: number) => x < band || y < band || x >= width - band || y >= height - band;

  // Pass 1: whole-image luma and transparency; border mean colour and luma.
  const all = new LumaAccumulator();
  const borderLuma = new LumaAccumulator();
  let transparent = 0;
  let borderPixels = 0;
  let borderTransparent = 0;
  let br = 0;
  let bg = 0;
  let bb = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const a = rgba[i + 3]!;
      const border = isBorder(x, y);
      if (border) borderPixels++;
      if (a < 128) transparent++;
      if (border && a < 16) borderTransparent++;
      if (a < 128) continue;
      const r = rgba[i]!;
      const g = rgba[i + 1]!;
      const b = rgba[i + 2]!;
      const yv = luma(r, g, b);
      all.add(yv);
      if (border) {
        borderLuma.add(yv);
        br += r;
        bg += g;
        bb += b;
      }
    }
  }
  const opaqueBorder = borderLuma.n;
  const meanRgb: [number, number, number] =
    opaqueBorder > 0 ? [br / opaqueBorder, bg / opaqueBorder, bb / opaqueBorder] : [0, 0, 0];
  const borderLab = rgbToLab(...meanRgb);
  const borderTransparentFraction = borderPixels ? borderTransparent / borderPixels : 0;
  const transparentBorder = borderTransparentFraction >= 0.5;

  // Pass 2: distances from the border colour, chroma, subject luma.
  const labOf = createLabLookup();
  const subject = new LumaAccumulator();
  let borderDeltaSum = 0;
  let chromaSum = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (rgba[i + 3]! < 128) continue;
      const r = rgba[i]!;
      const g = rgba[i + 1]!;
      const b = rgba[i + 2]!;
      const lab = labOf(r, g, b);
      chromaSum += Math.hypot(lab[1], lab[2]);
      const delta = labDistance(lab, borderLab);
      if (isBorder(x, y)) borderDeltaSum += delta;
      if (transparentBorder || delta > SUBJECT_DELTA_E) subject.add(luma(r, g, b));
    }
  }
  const total = width * height;
  return {
    width,
    height,
    luma: all.stats(),
    subjectLuma: subject.n > 0 ? subject.stats() : undefined,
    transparentFraction: total ? transparent / total : 0,
    border: {
      transparentFraction: borderTransparentFraction,
      meanRgb,
      lumaStdDev: borderLuma.stats().stdDev,
      meanDeltaE: opaqueBorder ? borderDeltaSum / opaqueBorder : 0,
    },
    subjectFraction: total ? subject.n / total : 0,
    meanChroma: all.n ? chromaSum / all.n : 0,
  };
}

/**
 * Variance of the 4-neighbour Laplacian over a greyscale raster: high for crisp edges and texture,
 * low for blur. Comparable between images only at the same scale, so callers downscale to a fixed
 * long edge first.
 */
export function laplacianVariance(grey: Uint8Array, width: number, height: number): number {
  if (width < 3 || height < 3) return 0;
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const l = grey[i - 1]! + grey[i + 1]! + grey[i - width]! + grey[i + width]! - 4 * grey[i]!;
      sum += l;
      sumSq += l * l;
      n++;
    }
  }
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

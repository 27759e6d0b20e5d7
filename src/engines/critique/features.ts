/**
 * Pixel features of a generated scene, the input of the scores (scores.ts) and of the critique's
 * diagnostics. Pure and deterministic: raw interleaved pixels in, plain JSON-safe numbers out
 * (rounded to 4 decimals); the same pixels always give byte-identical features.
 *
 * Resolution. The input is read once, at full size, and shrunk by exact area averaging (pure code,
 * no sharp) to a *detail* copy (long side ≤ `DETAIL_SIDE` = 512: sharpness and the text proxy) and
 * from that to an *analysis* copy (long side ≤ `ANALYSIS_SIDE` = 256: colour, contrast, clutter,
 * palette, composition, exposure); the saliency map is computed on a 64 × 64 resample of the
 * analysis copy (the paper's 64 px scale; squeezed for non-square frames, as the FFT here wants a
 * power-of-two square, and read back in frame shares). Inputs are never enlarged, so callers may pass
 * already-downscaled pixels (≥ 256 px on the long side keeps every feature meaningful; sharpness is
 * judged at ≤ 512 px, i.e. roughly at display size). Alpha (2 or 4 channels) is composited over
 * white. Positions and boxes in the output are shares of the frame (0..1).
 *
 * Subject. With a `productMask` (1 channel, 0..255, input size) the product is the mask (≥ 50%
 * coverage for boxes and edges, soft elsewhere). Without one it is estimated (`estimateSubject`):
 * the most salient foreground group against a plain backdrop, else the saliency object map; every
 * "product" feature then describes that estimate (`subject.source` says which).
 */
import { parseHex } from '../../adapters/media/colors.ts';
import { type Component, chamferDistance, components } from '../shared/raster.ts';
import { areaResize, fillHoles, floatRows, type RowReader } from './raster.ts';
import { logoTemplate, type MarkFeature, measureMark } from './mark.ts';
import {
  FOCAL_MEAN_RATIO,
  FOCAL_THRESHOLD,
  type FocalPoint,
  focalPoints,
  SALIENCY_SIZE,
  spectralResidual,
} from './saliency.ts';

export type { FocalPoint };

/** A rectangle: input pixels in `logoBoxes`; shares of the frame (0..1) in the features. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Raw pixels: `data` holds `width × height × channels` bytes, interleaved (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA). */
export interface PixelInput {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

export interface FeatureOptions {
  /** The product's coverage, 1 channel 0..255, `width × height` (e.g. the scene engine's `productMask`). */
  productMask?: Uint8Array;
  /** Brand colours, `#rrggbb` (or `#rgb`); unparseable entries are ignored. */
  palette?: string[];
  /** Where logos were placed, in input pixels. */
  logoBoxes?: Box[];
  /** The brand's logo image (any size; alpha, else darkness, is the logo), matched against the product. */
  logoAsset?: PixelInput;
}

export type FeatureInput = PixelInput & FeatureOptions;

export type SubjectSource = 'mask' | 'background' | 'saliency';
export type Edge = 'left' | 'top' | 'right' | 'bottom';
export type PowerPoint = 'centre' | 'upper-left third' | 'upper-right third' | 'lower-left third' | 'lower-right third';

export interface ImageFeatures {
  frame: {
    width: number;
    height: number;
    analysisWidth: number;
    analysisHeight: number;
    detailWidth: number;
    detailHeight: number;
  };
  subject: {
    /** Where the subject came from (see `estimateSubject`). */
    source: SubjectSource;
    /** False when the mask is empty or nothing stands out. */
    present: boolean;
    /** Share of the frame the product covers (soft mask mean). */
    areaShare: number;
    /** Share of the total saliency on the product or within 2/64 of the frame around it. */
    saliencyShare: number;
    /** `saliencyShare` over the share of the frame that region covers (> 1: the product draws more than its size). */
    saliencyLift: number;
    box: Box | null;
    centroid: { x: number; y: number } | null;
  };
  saliency: {
    /** Strongest first; `onSubject`: within 3% of the long side of the product. */
    focalPoints: (FocalPoint & { onSubject: boolean })[];
    focalPointCount: number;
    /** Focal points off the product: competing attention targets. */
    offSubjectFocalPoints: number;
    /**
     * Attention targets: the product counted once if any focal point is on it, plus the salient
     * regions holding the off-product points (points along one connected region count once).
     */
    focalTargets: number;
    /** Connected regions of the map above its focal threshold. */
    salientRegions: number;
    /** Mean of the map (max = 1): low means a few sharp peaks, high means saliency spread everywhere. */
    mean: number;
    /** Share of the total saliency in the top 10% of the map's pixels. */
    concentration: number;
  };
  contrast: {
    /** RMS contrast: standard deviation of luma (0..1) over the frame. */
    rms: number;
    /** |L*(product) − L*(surround)| / 100, the surround being a band up to 8% of the long side around it. */
    subjectLuminance: number;
    /** CIE76 ΔE between the product's and the surround's mean Lab colours. */
    subjectDeltaE: number;
  };
  /** Hasler & Süsstrunk (2003) M on 0..255 RGB: ~15 slightly, ~33 moderately, ~45 averagely, ~59 quite, ~82 highly colourful. */
  colorfulness: number;
  clutter: {
    /** Share of pixels outside the product (and a 2 px band around it) on a luma edge (Sobel step ≥ 0.1). */
    edgeDensity: number;
    /** Same over the whole frame. */
    frameEdgeDensity: number;
    salientRegions: number;
  };
  /** Text / logo-mark proxy: 16 × 16 cells (detail copy) of dense, high-contrast strokes (see `textProxy`). */
  text: {
    cellShare: number;
    /** Compact groups of such cells. */
    regionCount: number;
    /** Summed boxes of those groups, share of the frame. */
    areaShare: number;
    regions: Box[];
  };
  /**
   * The brand mark on the product itself (mark.ts): the brand logo matched on the product region
   * (`source: 'asset'`), else contrasting compact marks inside the product mask (`'detector'`).
   * Always set by `analyzeImage`; optional for features stored before it existed.
   */
  mark?: MarkFeature;
  logo: {
    count: number;
    /** Summed logo box area inside the frame, share of the frame. */
    areaShare: number;
    largestShare: number;
    /** Luma standard deviation inside the boxes (legibility against what is behind), max over boxes. */
    contrast: number;
    /** A box leaves the frame or touches its edge. */
    cutOff: boolean;
    /** Smallest distance from a box to a frame edge, share of the frame side. */
    edgeDistance: number;
  };
  /** Null without a (parseable) palette. */
  palette: {
    colors: { hex: string; share: number; neutral: boolean }[];
    /** Share of pixels within ΔE76 ≤ `PALETTE_DELTA_E` of a palette colour. */
    coverage: number;
    /** Same with neutral palette colours (chroma < 10) counting `NEUTRAL_PALETTE_WEIGHT`. */
    weightedCoverage: number;
    /** `weightedCoverage` within the product. */
    subjectCoverage: number;
  } | null;
  composition: {
    /** Distance from the product centroid to the nearest power point (thirds or centre), share of the half diagonal (1 without a product). */
    powerPointDistance: number;
    nearestPowerPoint: PowerPoint | null;
    /** Gaps between the product box and the frame edges, shares of the frame side. */
    margins: { left: number; top: number; right: number; bottom: number };
    minMargin: number;
    cutOff: boolean;
    cutOffEdges: Edge[];
  };
  sharpness: {
    /** Variance of the 4-neighbour Laplacian of luma (0..255) over the detail copy. */
    laplacianVariance: number;
    /** Σ|Laplacian| / Σ gradient over edge pixels (step ≥ 0.05) on and around the product: ~1 for a crisp edge, ~0.3 at σ = 2 px blur. */
    acutance: number;
    frameAcutance: number;
  };
  exposure: {
    /** Mean luma, 0..1. */
    meanLuminance: number;
    /** Shares of pixels with luma ≤ 2% and ≥ 98%. */
    clippedShadows: number;
    clippedHighlights: number;
    subjectMeanLuminance: number;
    subjectClippedShadows: number;
    subjectClippedHighlights: number;
  };
}

/** Intermediate maps, for heat-map style diagnostics. */
export interface FeatureMaps {
  /** Spectral-residual saliency, `saliencySize`², max 1. */
  saliency: Float32Array;
  saliencySize: number;
  /** Product / estimated subject, 0..1, analysis size. */
  subject: Float32Array;
  /** Sobel step magnitude of luma, analysis size. */
  edges: Float32Array;
  analysisWidth: number;
  analysisHeight: number;
}

export const ANALYSIS_SIDE = 256;
export const DETAIL_SIDE = 512;
/** Luma step (0..1, Sobel / 4) that counts as an edge for clutter. */
export const EDGE_THRESHOLD = 0.1;
/** Luma step counted in the sharpness ratio. */
export const ACUTANCE_EDGE = 0.05;
/** CIE76 ΔE within which a pixel counts as a palette colour. */
export const PALETTE_DELTA_E = 15;
/** Weight of neutral palette colours (white, black, greys) in `weightedCoverage`. */
export const NEUTRAL_PALETTE_WEIGHT = 0.15;
/** The band around the product its contrast is measured against, share of the analysis long side. */
export const SURROUND_BAND = 0.08;
/**
 * Text proxy: cell size (detail px), luma step, minimum luma range, scan lines (of 2 × cell) that
 * must cross two or more stroke edges, and text cells a region needs.
 */
export const TEXT_CELL = 16;
export const TEXT_STEP = 0.12;
export const TEXT_MIN_RANGE = 0.3;
export const TEXT_MIN_STROKE_LINES = 12;
export const TEXT_MIN_CELLS = 2;

/** 1 where `src[i] >= t`, else 0. */
function above(src: ArrayLike<number>, t: number): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < out.length; i++) if (src[i]! >= t) out[i] = 1;
  return out;
}

const r4 = (n: number) => (Number.isFinite(n) ? Math.round(n * 10000) / 10000 : 0);
const fitSide = (w: number, h: number, side: number) => {
  const k = Math.min(1, side / Math.max(w, h));
  return { w: Math.max(1, Math.round(w * k)), h: Math.max(1, Math.round(h * k)) };
};

function validate(input: FeatureInput): void {
  const { data, width, height, channels } = input;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`bad image size ${width}x${height}`);
  }
  if (!Number.isInteger(channels) || channels < 1 || channels > 4)
    throw new RangeError(`bad channel count ${channels}`);
  if (data.length < width * height * channels) {
    throw new RangeError(`pixel data holds ${data.length} bytes, ${width}x${height}x${channels} needs more`);
  }
  if (input.productMask && input.productMask.length < width * height) {
    throw new RangeError(`product mask holds ${input.productMask.length} bytes, ${width * height} needed`);
  }
}

/** Row reader over the raw input: RGB floats 0..255, alpha composited over white. */
function pixelRows({ data, width, channels }: PixelInput): RowReader {
  switch (channels) {
    case 3:
      return (y, row) => {
        const s = y * width * 3;
        for (let i = 0; i < width * 3; i++) row[i] = data[s + i]!;
      };
    case 4:
      return (y, row) => {
        for (let x = 0, s = y * width * 4, d = 0; x < width; x++, s += 4, d += 3) {
          const a = data[s + 3]!;
          if (a === 255) {
            row[d] = data[s]!;
            row[d + 1] = data[s + 1]!;
            row[d + 2] = data[s + 2]!;
          } else {
            const k = a / 255;
            const white = 255 - a;
            row[d] = data[s]! * k + white;
            row[d + 1] = data[s + 1]! * k + white;
            row[d + 2] = data[s + 2]! * k + white;
          }
        }
      };
    default:
      return (y, row) => {
        for (let x = 0, s = y * width * channels, d = 0; x < width; x++, s += channels, d += 3) {
          const v = channels === 2 ? (data[s]! * data[s + 1]!) / 255 + 255 - data[s + 1]! : data[s]!;
          row[d] = v;
          row[d + 1] = v;
          row[d + 2] = v;
        }
      };
  }
}

const byteRows =
  (data: Uint8Array, width: number): RowReader =>
  (y, row) => {
    const b = y * width;
    for (let x = 0; x < width; x++) row[x] = data[b + x]! / 255;
  };

// sRGB → CIELAB (D65), with a table for the gamma expansion of 0..255.
const LINEAR = Float64Array.from({ length: 256 }, (_, i) => {
  const v = i / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
});
const labF = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);
const byte = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v));

function rgbToLab(r: number, g: number, b: number, out: Float32Array | Float64Array, o: number): void {
  const R = LINEAR[byte(r)]!;
  const G = LINEAR[byte(g)]!;
  const B = LINEAR[byte(b)]!;
  const fx = labF((0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047);
  const fy = labF(0.2126729 * R + 0.7151522 * G + 0.072175 * B);
  const fz = labF((0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883);
  out[o] = 116 * fy - 16;
  out[o + 1] = 500 * (fx - fy);
  out[o + 2] = 200 * (fy - fz);
}

/** Luma (Rec. 709 weights on the encoded values), 0..1. */
function luma(rgb: Float32Array, n: number): Float32Array {
  const y = new Float32Array(n);
  for (let i = 0, j = 0; i < n; i++, j += 3)
    y[i] = (0.2126 * rgb[j]! + 0.7152 * rgb[j + 1]! + 0.0722 * rgb[j + 2]!) / 255;
  return y;
}

/** Sobel step magnitude (|∇| / 4: a clean step of height h reads h), borders clamped. */
function sobel(y: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let r = 0; r < h; r++) {
    const up = (r > 0 ? r - 1 : 0) * w;
    const mid = r * w;
    const dn = (r < h - 1 ? r + 1 : r) * w;
    for (let c = 0; c < w; c++) {
      const l = c > 0 ? c - 1 : 0;
      const rr = c < w - 1 ? c + 1 : c;
      const gx = y[up + rr]! + 2 * y[mid + rr]! + y[dn + rr]! - y[up + l]! - 2 * y[mid + l]! - y[dn + l]!;
      const gy = y[dn + l]! + 2 * y[dn + c]! + y[dn + rr]! - y[up + l]! - 2 * y[up + c]! - y[up + rr]!;
      out[mid + c] = Math.sqrt(gx * gx + gy * gy) / 4;
    }
  }
  return out;
}

const POWER_POINTS: [PowerPoint, number, number][] = [
  ['centre', 0.5, 0.5],
  ['upper-left third', 1 / 3, 1 / 3],
  ['upper-right third', 2 / 3, 1 / 3],
  ['lower-left third', 1 / 3, 2 / 3],
  ['lower-right third', 2 / 3, 2 / 3],
];

/** Features and the maps they were read from. */
export function analyzeImage(input: FeatureInput): { features: ImageFeatures; maps: FeatureMaps } {
  validate(input);
  const { width, height } = input;
  const det = fitSide(width, height, DETAIL_SIDE);
  const ana = fitSide(det.w, det.h, ANALYSIS_SIDE);
  const detailRgb = areaResize(pixelRows(input), width, height, 3, det.w, det.h);
  const rgb = areaResize(floatRows(detailRgb, det.w, 3), det.w, det.h, 3, ana.w, ana.h);
  const aw = ana.w;
  const ah = ana.h;
  const n = aw * ah;
  const Y = luma(rgb, n);
  const lab = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) rgbToLab(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!, lab, i * 3);

  // Saliency on a 64 × 64 resample of L*, a*, b*.
  const S = SALIENCY_SIZE;
  const small = areaResize(floatRows(lab, aw, 3), aw, ah, 3, S, S);
  const planes = [0, 1, 2].map((c) => Float64Array.from({ length: S * S }, (_, i) => small[i * 3 + c]!));
  const sal = spectralResidual(planes, S);
  let salTotal = 0;
  for (let i = 0; i < S * S; i++) salTotal += sal[i]!;
  const salMean = salTotal / (S * S);
  const points = focalPoints(sal, S, S);
  const regionFloor = Math.max(FOCAL_THRESHOLD, FOCAL_MEAN_RATIO * salMean);
  const salient = components(above(sal, regionFloor), S, S);
  const salientRegions = salient.list.filter((c) => c.area >= 3).length;
  const sorted = Float32Array.from(sal).sort();
  let top = 0;
  for (let i = Math.floor(sorted.length * 0.9); i < sorted.length; i++) top += sorted[i]!;
  const concentration = salTotal > 0 ? top / salTotal : 0;

  // Subject: the mask, or an estimate.
  let soft: Float32Array;
  let source: SubjectSource = 'mask';
  if (input.productMask) {
    const detMask = areaResize(byteRows(input.productMask, width), width, height, 1, det.w, det.h);
    soft = areaResize(floatRows(detMask, det.w, 1), det.w, det.h, 1, aw, ah);
  } else {
    ({ soft, source } = estimateSubject(lab, aw, ah, sal, S));
  }
  const inside = above(soft, 0.5);
  let area = 0;
  let insideCount = 0;
  let cx = 0;
  let cy = 0;
  let left = aw;
  let topY = ah;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < ah; y++) {
    for (let x = 0; x < aw; x++) {
      const i = y * aw + x;
      const m = soft[i]!;
      area += m;
      cx += m * (x + 0.5);
      cy += m * (y + 0.5);
      if (inside[i]) {
        insideCount++;
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < topY) topY = y;
        if (y > bottom) bottom = y;
      }
    }
  }
  const present = insideCount > 0;
  const areaShare = area / n;
  const mark = measureMark(lab, Y, inside, aw, ah, input.logoAsset ? logoTemplate(input.logoAsset) : undefined);
  const dist = chamferDistance(inside, aw, ah);

  const pointOnSubject = points.map((p) => {
    const x = Math.min(aw - 1, Math.floor(p.x * aw));
    const y = Math.min(ah - 1, Math.floor(p.y * ah));
    return dist[y * aw + x]! <= 0.03 * Math.max(aw, ah);
  });
  const offSubject = pointOnSubject.filter((o) => !o).length;
  // Off-product points on one connected salient region (a long edge, a band) are one target.
  const offRegions = new Set<number>();
  points.forEach((p, k) => {
    if (pointOnSubject[k]) return;
    const i = Math.min(S - 1, Math.floor(p.y * S)) * S + Math.min(S - 1, Math.floor(p.x * S));
    offRegions.add(salient.labels[i]! || -1 - k);
  });

  // Saliency on the product (and a 2/64 halo: the smoothed map spills over its outline).
  const smallMask = areaResize(floatRows(soft, aw, 1), aw, ah, 1, S, S);
  const smallDist = chamferDistance(above(smallMask, 0.5), S, S);
  let onSubject = 0;
  let haloArea = 0;
  for (let i = 0; i < S * S; i++) {
    const w = smallDist[i]! <= 2 ? 1 : smallMask[i]!;
    onSubject += w * sal[i]!;
    haloArea += w;
  }
  const saliencyShare = salTotal > 0 ? onSubject / salTotal : 0;
  const saliencyLift = haloArea > 0 ? saliencyShare / (haloArea / (S * S)) : 0;

  // Contrast: RMS luma; product against the band around it.
  let yMean = 0;
  for (let i = 0; i < n; i++) yMean += Y[i]!;
  yMean /= n;
  let yVar = 0;
  for (let i = 0; i < n; i++) yVar += (Y[i]! - yMean) ** 2;
  const rms = Math.sqrt(yVar / n);
  const band = Math.max(3, SURROUND_BAND * Math.max(aw, ah));
  const inLab = [0, 0, 0];
  const outLab = [0, 0, 0];
  let inW = 0;
  let outW = 0;
  let ringCount = 0;
  for (let i = 0; i < n; i++) if (dist[i]! > 2 && dist[i]! <= band) ringCount++;
  for (let i = 0; i < n; i++) {
    const m = soft[i]!;
    if (m > 0) {
      for (let c = 0; c < 3; c++) inLab[c] = inLab[c]! + m * lab[i * 3 + c]!;
      inW += m;
    }
    const d = dist[i]!;
    if (d > 2 && (ringCount === 0 || d <= band)) {
      for (let c = 0; c < 3; c++) outLab[c] = outLab[c]! + lab[i * 3 + c]!;
      outW++;
    }
  }
  let subjectDeltaE = 0;
  let subjectLuminance = 0;
  if (present && inW > 0 && outW > 0) {
    const a = inLab.map((v) => v / inW);
    const b = outLab.map((v) => v / outW);
    subjectDeltaE = Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
    subjectLuminance = Math.abs(a[0]! - b[0]!) / 100;
  }

  // Colourfulness (Hasler & Süsstrunk 2003).
  let mRg = 0;
  let mYb = 0;
  let sRg = 0;
  let sYb = 0;
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    const rg = rgb[j]! - rgb[j + 1]!;
    const yb = 0.5 * (rgb[j]! + rgb[j + 1]!) - rgb[j + 2]!;
    mRg += rg;
    mYb += yb;
    sRg += rg * rg;
    sYb += yb * yb;
  }
  mRg /= n;
  mYb /= n;
  const colorfulness =
    Math.sqrt(Math.max(0, sRg / n - mRg * mRg) + Math.max(0, sYb / n - mYb * mYb)) + 0.3 * Math.hypot(mRg, mYb);

  // Clutter: edges outside the product.
  const edges = sobel(Y, aw, ah);
  let edgeAll = 0;
  let edgeOut = 0;
  let outside = 0;
  for (let i = 0; i < n; i++) {
    const e = edges[i]! >= EDGE_THRESHOLD;
    if (e) edgeAll++;
    if (dist[i]! > 2) {
      outside++;
      if (e) edgeOut++;
    }
  }

  // Detail copy: sharpness and the text proxy.
  const dw = det.w;
  const dh = det.h;
  const dY = luma(detailRgb, dw * dh);
  const dEdges = sobel(dY, dw, dh);
  let lapSum = 0;
  let lapSq = 0;
  let lapN = 0;
  let accLap = 0;
  let accGrad = 0;
  let frameLap = 0;
  let frameGrad = 0;
  for (let y = 1; y < dh - 1; y++) {
    const ay = Math.min(ah - 1, Math.floor(((y + 0.5) * ah) / dh));
    for (let x = 1; x < dw - 1; x++) {
      const i = y * dw + x;
      const lap = 255 * (dY[i - 1]! + dY[i + 1]! + dY[i - dw]! + dY[i + dw]! - 4 * dY[i]!);
      lapSum += lap;
      lapSq += lap * lap;
      lapN++;
      const g = dEdges[i]!;
      if (g >= ACUTANCE_EDGE) {
        const al = Math.abs(lap) / 255;
        frameLap += al;
        frameGrad += g;
        const ax = Math.min(aw - 1, Math.floor(((x + 0.5) * aw) / dw));
        if (dist[ay * aw + ax]! <= 3) {
          accLap += al;
          accGrad += g;
        }
      }
    }
  }
  const laplacianVariance = lapN > 0 ? lapSq / lapN - (lapSum / lapN) ** 2 : 0;
  const frameAcutance = frameGrad > 0 ? frameLap / frameGrad : 0;
  const acutance = accGrad > 0 ? accLap / accGrad : frameAcutance;
  const text = textProxy(dY, dw, dh);

  // Logos.
  const logos = (input.logoBoxes ?? []).filter((b) => b.width > 0 && b.height > 0);
  let logoArea = 0;
  let logoLargest = 0;
  let logoContrast = 0;
  let logoCut = false;
  let logoEdge = logos.length > 0 ? 1 : 0;
  for (const b of logos) {
    const l = Math.max(0, b.left);
    const t = Math.max(0, b.top);
    const r = Math.min(width, b.left + b.width);
    const btm = Math.min(height, b.top + b.height);
    if (b.left <= 0 || b.top <= 0 || b.left + b.width >= width || b.top + b.height >= height) logoCut = true;
    const share = (Math.max(0, r - l) * Math.max(0, btm - t)) / (width * height);
    logoArea += share;
    logoLargest = Math.max(logoLargest, share);
    logoEdge = Math.min(
      logoEdge,
      Math.max(
        0,
        Math.min(b.left / width, b.top / height, 1 - (b.left + b.width) / width, 1 - (b.top + b.height) / height),
      ),
    );
    const x0 = Math.max(0, Math.min(aw - 1, Math.floor((l / width) * aw)));
    const x1 = Math.max(x0 + 1, Math.min(aw, Math.ceil((r / width) * aw)));
    const y0 = Math.max(0, Math.min(ah - 1, Math.floor((t / height) * ah)));
    const y1 = Math.max(y0 + 1, Math.min(ah, Math.ceil((btm / height) * ah)));
    let s = 0;
    let s2 = 0;
    let k = 0;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const v = Y[y * aw + x]!;
        s += v;
        s2 += v * v;
        k++;
      }
    }
    if (k > 0 && share > 0) logoContrast = Math.max(logoContrast, Math.sqrt(Math.max(0, s2 / k - (s / k) ** 2)));
  }

  // Palette coverage.
  const paletteColors = (input.palette ?? [])
    .map((hex) => ({ hex, rgb: parseHex(hex) }))
    .filter((c): c is { hex: string; rgb: [number, number, number] } => c.rgb !== undefined);
  let palette: ImageFeatures['palette'] = null;
  if (paletteColors.length > 0) {
    const pl = new Float64Array(paletteColors.length * 3);
    paletteColors.forEach((c, k) => {
      rgbToLab(c.rgb[0], c.rgb[1], c.rgb[2], pl, k * 3);
    });
    const neutral = paletteColors.map((_, k) => Math.hypot(pl[k * 3 + 1]!, pl[k * 3 + 2]!) < 10);
    const counts = new Float64Array(paletteColors.length);
    let covered = 0;
    let weighted = 0;
    let subjW = 0;
    const limit = PALETTE_DELTA_E * PALETTE_DELTA_E;
    for (let i = 0; i < n; i++) {
      let best = -1;
      let bestD = limit;
      for (let k = 0; k < paletteColors.length; k++) {
        const d =
          (lab[i * 3]! - pl[k * 3]!) ** 2 +
          (lab[i * 3 + 1]! - pl[k * 3 + 1]!) ** 2 +
          (lab[i * 3 + 2]! - pl[k * 3 + 2]!) ** 2;
        if (d <= bestD) {
          bestD = d;
          best = k;
        }
      }
      if (best < 0) continue;
      counts[best] = counts[best]! + 1;
      covered++;
      const w = neutral[best] ? NEUTRAL_PALETTE_WEIGHT : 1;
      weighted += w;
      subjW += w * soft[i]!;
    }
    palette = {
      colors: paletteColors.map((c, k) => ({ hex: c.hex, share: r4(counts[k]! / n), neutral: neutral[k]! })),
      coverage: r4(covered / n),
      weightedCoverage: r4(weighted / n),
      subjectCoverage: r4(area > 0 ? subjW / area : 0),
    };
  }

  // Composition.
  let powerPointDistance = 1;
  let nearestPowerPoint: PowerPoint | null = null;
  const margins = { left: 0, top: 0, right: 0, bottom: 0 };
  const cutOffEdges: Edge[] = [];
  let centroid: { x: number; y: number } | null = null;
  let box: Box | null = null;
  if (present) {
    centroid = { x: cx / area / aw, y: cy / area / ah };
    const halfDiagonal = Math.SQRT1_2;
    for (const [name, px, py] of POWER_POINTS) {
      const d = Math.hypot(centroid.x - px, centroid.y - py) / halfDiagonal;
      if (d < powerPointDistance) {
        powerPointDistance = d;
        nearestPowerPoint = name;
      }
    }
    box = { left: left / aw, top: topY / ah, width: (right + 1 - left) / aw, height: (bottom + 1 - topY) / ah };
    margins.left = left / aw;
    margins.top = topY / ah;
    margins.right = (aw - 1 - right) / aw;
    margins.bottom = (ah - 1 - bottom) / ah;
    const touching = (count: number, side: number) => count >= Math.max(2, 0.01 * side);
    let l = 0;
    let r = 0;
    let t = 0;
    let b = 0;
    for (let y = 0; y < ah; y++) {
      l += inside[y * aw]!;
      r += inside[y * aw + aw - 1]!;
    }
    for (let x = 0; x < aw; x++) {
      t += inside[x]!;
      b += inside[(ah - 1) * aw + x]!;
    }
    if (touching(l, ah)) cutOffEdges.push('left');
    if (touching(t, aw)) cutOffEdges.push('top');
    if (touching(r, ah)) cutOffEdges.push('right');
    if (touching(b, aw)) cutOffEdges.push('bottom');
  }

  // Exposure.
  let dark = 0;
  let bright = 0;
  let sY = 0;
  let sDark = 0;
  let sBright = 0;
  for (let i = 0; i < n; i++) {
    const v = Y[i]!;
    const m = soft[i]!;
    sY += m * v;
    if (v <= 0.02) {
      dark++;
      sDark += m;
    }
    if (v >= 0.98) {
      bright++;
      sBright += m;
    }
  }

  const features: ImageFeatures = {
    frame: { width, height, analysisWidth: aw, analysisHeight: ah, detailWidth: dw, detailHeight: dh },
    subject: {
      source,
      present,
      areaShare: r4(areaShare),
      saliencyShare: r4(saliencyShare),
      saliencyLift: r4(saliencyLift),
      box: box && roundBox(box),
      centroid: centroid && { x: r4(centroid.x), y: r4(centroid.y) },
    },
    saliency: {
      focalPoints: points.map((p, k) => ({
        x: r4(p.x),
        y: r4(p.y),
        strength: r4(p.strength),
        onSubject: pointOnSubject[k]!,
      })),
      focalPointCount: points.length,
      offSubjectFocalPoints: offSubject,
      focalTargets: offRegions.size + (offSubject < points.length ? 1 : 0),
      salientRegions,
      mean: r4(salMean),
      concentration: r4(concentration),
    },
    contrast: { rms: r4(rms), subjectLuminance: r4(subjectLuminance), subjectDeltaE: r4(subjectDeltaE) },
    colorfulness: r4(colorfulness),
    clutter: {
      edgeDensity: r4(outside > 0 ? edgeOut / outside : 0),
      frameEdgeDensity: r4(edgeAll / n),
      salientRegions,
    },
    text: {
      cellShare: r4(text.cellShare),
      regionCount: text.regionCount,
      areaShare: r4(text.areaShare),
      regions: text.regions.map(roundBox),
    },
    mark: {
      source: mark.source,
      count: mark.count,
      largestShare: r4(mark.largestShare),
      areaShare: r4(mark.areaShare),
      deltaE: r4(mark.deltaE),
      match: r4(mark.match),
      regions: mark.regions.map(roundBox),
    },
    logo: {
      count: logos.length,
      areaShare: r4(logoArea),
      largestShare: r4(logoLargest),
      contrast: r4(logoContrast),
      cutOff: logoCut,
      edgeDistance: r4(logoEdge),
    },
    palette,
    composition: {
      powerPointDistance: r4(powerPointDistance),
      nearestPowerPoint,
      margins: { left: r4(margins.left), top: r4(margins.top), right: r4(margins.right), bottom: r4(margins.bottom) },
      minMargin: r4(present ? Math.min(margins.left, margins.top, margins.right, margins.bottom) : 0),
      cutOff: cutOffEdges.length > 0,
      cutOffEdges,
    },
    sharpness: {
      laplacianVariance: r4(laplacianVariance),
      acutance: r4(acutance),
      frameAcutance: r4(frameAcutance),
    },
    exposure: {
      meanLuminance: r4(yMean),
      clippedShadows: r4(dark / n),
      clippedHighlights: r4(bright / n),
      subjectMeanLuminance: r4(area > 0 ? sY / area : 0),
      subjectClippedShadows: r4(area > 0 ? sDark / area : 0),
      subjectClippedHighlights: r4(area > 0 ? sBright / area : 0),
    },
  };
  return {
    features,
    maps: { saliency: sal, saliencySize: S, subject: soft, edges, analysisWidth: aw, analysisHeight: ah },
  };
}

/** The features alone (see `analyzeImage` for the maps). */
export const computeFeatures = (input: FeatureInput): ImageFeatures => analyzeImage(input).features;

/** ΔE76 from the frame border's median colour beyond which a pixel is foreground. */
export const BACKGROUND_DELTA_E = 12;

/**
 * The subject without a product mask, as a 0/1 plane at analysis size.
 *
 * `background`: when at least 60% of the frame's 2 px border lies within ΔE76 10 of its median
 * colour (a plain or softly graded backdrop), the foreground is every pixel farther than
 * `BACKGROUND_DELTA_E` from that colour; parts closer than 2% of the long side are grouped, and the
 * group holding the most saliency is the subject (holes filled). `saliency`: otherwise (busy
 * backdrop, or a foreground covering over 85% of the frame), Hou & Zhang's object map — the map
 * above 3 × its mean — keeping the components with at least half the saliency mass of the
 * strongest, holes filled. Spectral residual favours edges and details over large uniform areas,
 * so this estimate undershoots large products.
 */
export function estimateSubject(
  lab: Float32Array,
  aw: number,
  ah: number,
  sal: Float32Array,
  S: number,
): { soft: Float32Array; source: SubjectSource } {
  const n = aw * ah;
  const soft = new Float32Array(n);
  const salAt = new Float32Array(n);
  for (let y = 0; y < ah; y++) {
    const sy = Math.min(S - 1, Math.floor(((y + 0.5) * S) / ah));
    for (let x = 0; x < aw; x++) salAt[y * aw + x] = sal[sy * S + Math.min(S - 1, Math.floor(((x + 0.5) * S) / aw))]!;
  }
  // Border colour model.
  const ring: number[] = [];
  for (let y = 0; y < ah; y++) {
    for (let x = 0; x < aw; x++) if (x < 2 || y < 2 || x >= aw - 2 || y >= ah - 2) ring.push(y * aw + x);
  }
  const median = (c: number) => {
    const v = ring.map((i) => lab[i * 3 + c]!).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)]!;
  };
  const bg = [median(0), median(1), median(2)];
  const deltaBg = (i: number) => {
    const dl = lab[i * 3]! - bg[0]!;
    const da = lab[i * 3 + 1]! - bg[1]!;
    const db = lab[i * 3 + 2]! - bg[2]!;
    return Math.sqrt(dl * dl + da * da + db * db);
  };
  const uniform = ring.filter((i) => deltaBg(i) <= 10).length >= 0.6 * ring.length;
  if (uniform) {
    const fg = new Uint8Array(n);
    let fgCount = 0;
    for (let i = 0; i < n; i++) {
      if (deltaBg(i) > BACKGROUND_DELTA_E) {
        fg[i] = 1;
        fgCount++;
      }
    }
    if (fgCount > 0 && fgCount <= 0.85 * n) {
      const near = chamferDistance(fg, aw, ah);
      const reach = 0.02 * Math.max(aw, ah);
      const grouped = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (near[i]! <= reach) grouped[i] = 1;
      const massOf = new Float32Array(n);
      for (let i = 0; i < n; i++) if (fg[i]) massOf[i] = salAt[i]!;
      const { labels, list } = components(grouped, aw, ah, massOf);
      let best: Component | undefined;
      for (const c of list) if (!best || c.mass > best.mass) best = c;
      if (best && best.mass > 0) {
        const chosen = new Uint8Array(n);
        let count = 0;
        for (let i = 0; i < n; i++) {
          if (fg[i] && labels[i] === best.label) {
            chosen[i] = 1;
            count++;
          }
        }
        if (count >= 0.001 * n && count <= 0.85 * n) {
          const filled = fillHoles(chosen, aw, ah);
          for (let i = 0; i < n; i++) soft[i] = filled[i]!;
          return { soft, source: 'background' };
        }
      }
    }
  }
  // Saliency object map.
  let mean = 0;
  for (let i = 0; i < S * S; i++) mean += sal[i]!;
  mean /= S * S;
  if (mean > 0) {
    const { labels, list } = components(above(sal, Math.min(0.5, Math.max(0.1, 3 * mean))), S, S, sal);
    const strongest = list.reduce((m, c) => Math.max(m, c.mass), 0);
    const keep = new Set(list.filter((c) => c.mass >= 0.5 * strongest).map((c) => c.label));
    const kept = new Uint8Array(S * S);
    for (let i = 0; i < S * S; i++) if (keep.has(labels[i]!)) kept[i] = 1;
    const filled = fillHoles(kept, S, S);
    for (let y = 0; y < ah; y++) {
      const sy = Math.min(S - 1, Math.floor(((y + 0.5) * S) / ah));
      for (let x = 0; x < aw; x++)
        soft[y * aw + x] = filled[sy * S + Math.min(S - 1, Math.floor(((x + 0.5) * S) / aw))]!;
    }
  }
  return { soft, source: 'saliency' };
}

const roundBox = (b: Box): Box => ({ left: r4(b.left), top: r4(b.top), width: r4(b.width), height: r4(b.height) });

/**
 * Text / logo-mark proxy on the detail luma: a 16 × 16 cell is text-like when its luma range is at
 * least `TEXT_MIN_RANGE` and at least `TEXT_MIN_STROKE_LINES` of its 32 scan lines (rows and
 * columns) cross two or more stroke edges (runs of same-sign steps ≥ `TEXT_STEP`): a plain edge
 * (a shape's outline, a fold) crosses a line once, strokes twice or more. Cells at most one cell
 * apart are grouped (letters of a word); groups of ≥ `TEXT_MIN_CELLS` cells whose box is at most
 * 20% of the frame are the regions. Printed logos and text on the product count too.
 */
function textProxy(
  y: Float32Array,
  w: number,
  h: number,
): { cellShare: number; areaShare: number; regionCount: number; regions: Box[] } {
  const C = TEXT_CELL;
  const gw = Math.floor(w / C);
  const gh = Math.floor(h / C);
  if (gw === 0 || gh === 0) return { cellShare: 0, areaShare: 0, regionCount: 0, regions: [] };
  const cells = new Uint8Array(gw * gh);
  let count = 0;
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const x0 = gx * C;
      const y0 = gy * C;
      let min = 1;
      let max = 0;
      for (let yy = y0; yy < y0 + C; yy++) {
        for (let xx = x0; xx < x0 + C; xx++) {
          const v = y[yy * w + xx]!;
          if (v < min) min = v;
          if (v > max) max = v;
        }
      }
      if (max - min < TEXT_MIN_RANGE) continue;
      // Scan lines (8 rows + 8 columns) crossing at least two stroke edges.
      let strokeLines = 0;
      for (let k = 0; k < C; k++) {
        let prevH = 0;
        let prevV = 0;
        let th = 0;
        let tv = 0;
        for (let j = 0; j < C - 1; j++) {
          const dh = y[(y0 + k) * w + x0 + j + 1]! - y[(y0 + k) * w + x0 + j]!;
          const sh = dh >= TEXT_STEP ? 1 : dh <= -TEXT_STEP ? -1 : 0;
          if (sh !== 0 && sh !== prevH) th++;
          prevH = sh;
          const dv = y[(y0 + j + 1) * w + x0 + k]! - y[(y0 + j) * w + x0 + k]!;
          const sv = dv >= TEXT_STEP ? 1 : dv <= -TEXT_STEP ? -1 : 0;
          if (sv !== 0 && sv !== prevV) tv++;
          prevV = sv;
        }
        if (th >= 2) strokeLines++;
        if (tv >= 2) strokeLines++;
      }
      if (strokeLines >= TEXT_MIN_STROKE_LINES) {
        cells[gy * gw + gx] = 1;
        count++;
      }
    }
  }
  // Group cells at most one cell apart (letters of a word, words of a line).
  const grown = new Uint8Array(gw * gh);
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      if (!cells[gy * gw + gx]) continue;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = gx + dx;
          const yy = gy + dy;
          if (xx >= 0 && yy >= 0 && xx < gw && yy < gh) grown[yy * gw + xx] = 1;
        }
      }
    }
  }
  const { labels, list } = components(grown, gw, gh, cells);
  const bounds = list.map(() => ({ left: gw, top: gh, right: -1, bottom: -1 }));
  for (let i = 0; i < cells.length; i++) {
    if (!cells[i]) continue;
    const b = bounds[labels[i]! - 1]!;
    const gx = i % gw;
    const gy = (i - gx) / gw;
    b.left = Math.min(b.left, gx);
    b.right = Math.max(b.right, gx);
    b.top = Math.min(b.top, gy);
    b.bottom = Math.max(b.bottom, gy);
  }
  const regions: Box[] = [];
  let areaShare = 0;
  list.forEach((c, k) => {
    const b = bounds[k]!;
    const boxCells = (b.right + 1 - b.left) * (b.bottom + 1 - b.top);
    const share = boxCells / (gw * gh);
    if (c.mass < TEXT_MIN_CELLS || share > 0.2) return;
    areaShare += share;
    regions.push({
      left: (b.left * C) / w,
      top: (b.top * C) / h,
      width: ((b.right + 1 - b.left) * C) / w,
      height: ((b.bottom + 1 - b.top) * C) / h,
    });
  });
  regions.sort((a, b) => b.width * b.height - a.width * a.height || a.top - b.top || a.left - b.left);
  return { cellShare: count / (gw * gh), areaShare, regionCount: regions.length, regions: regions.slice(0, 8) };
}

/**
 * Spectral-residual saliency (Hou & Zhang, "Saliency Detection: A Spectral Residual Approach",
 * CVPR 2007) and the focal points read off the map. Pure and deterministic.
 *
 * Per channel: FFT of the (square, power-of-two) image; the log amplitude spectrum minus its 3×3
 * local average is the residual; the inverse FFT of exp(residual + i·phase), squared, is the raw
 * map. Three documented departures from the paper: the FFT is taken of the image's periodic
 * component (Moisan 2011), so the wrap-around jump between opposite frame edges does not light up
 * the border; amplitudes are floored at 5% of their mean, so exact spectral zeros (flat synthetic
 * images) do not dominate the residual; and the reconstructed spectrum's DC term is dropped
 * (otherwise a constant offset turns the squared map into a signed one that favours bright over
 * dark objects). Several channels (e.g. L*, a*, b*) are combined
 * weighted by each channel's standard deviation: the residual itself is contrast-invariant, so a
 * nearly flat channel would otherwise contribute amplified noise at full strength.
 */
import { fft2d, isPowerOfTwo } from './fft.ts';
import { gaussianBlur } from './raster.ts';

/** The saliency map's side (the paper's 64 px: objects of "proto-object" scale relative to it). */
export const SALIENCY_SIZE = 64;
/** Gaussian σ (px of the 64 map) smoothing the squared reconstruction. */
export const SALIENCY_SIGMA = 2.5;

const EPS = 1e-12;
/** Amplitude floor, as a share of the mean non-DC amplitude. */
const AMP_FLOOR = 0.05;

/** Unsmoothed spectral-residual energy of one `size` × `size` channel; all zeros for a flat channel. */
export function spectralResidualEnergy(channel: ArrayLike<number>, size: number): Float64Array {
  if (!isPowerOfTwo(size)) throw new RangeError(`saliency size must be a power of two, got ${size}`);
  const n = size * size;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += channel[i]!;
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (channel[i]! - mean) ** 2;
  const out = new Float64Array(n);
  if (variance / n < 1e-10) return out;

  // Periodic component (Moisan, "Periodic plus smooth image decomposition", 2011): the spectrum of
  // u minus that of the smooth image s whose Laplacian is the wrap-around jump along the border,
  // so the FFT sees no discontinuity at the frame edges and no edge is invented inside.
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const vr = new Float64Array(n);
  const vi = new Float64Array(n);
  const last = size - 1;
  for (let i = 0; i < n; i++) re[i] = channel[i]!;
  for (let k = 0; k < size; k++) {
    const top = channel[k]!;
    const bottom = channel[last * size + k]!;
    vr[k] = vr[k]! + bottom - top;
    vr[last * size + k] = vr[last * size + k]! + top - bottom;
    const left = channel[k * size]!;
    const right = channel[k * size + last]!;
    vr[k * size] = vr[k * size]! + right - left;
    vr[k * size + last] = vr[k * size + last]! + left - right;
  }
  fft2d(re, im, size, size);
  fft2d(vr, vi, size, size);
  for (let q = 0; q < size; q++) {
    const cq = 2 * Math.cos((2 * Math.PI * q) / size);
    for (let r = 0; r < size; r++) {
      const i = q * size + r;
      if (i === 0) continue;
      const d = cq + 2 * Math.cos((2 * Math.PI * r) / size) - 4;
      re[i] = re[i]! - vr[i]! / d;
      im[i] = im[i]! - vi[i]! / d;
    }
  }

  // Amplitudes are floored at a small share of the mean (excluding DC): exact spectral zeros (flat
  // synthetic images, symmetric shapes) would otherwise dominate the residual.
  let meanAmp = 0;
  for (let i = 1; i < n; i++) meanAmp += Math.sqrt(re[i]! * re[i]! + im[i]! * im[i]!);
  const floorAmp = (meanAmp / (n - 1)) * AMP_FLOOR + EPS;
  const logAmp = new Float64Array(n);
  const abs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    abs[i] = Math.sqrt(re[i]! * re[i]! + im[i]! * im[i]!);
    logAmp[i] = Math.log(abs[i]! + floorAmp);
  }
  // Residual: log amplitude minus its 3×3 average (the spectrum is periodic: indices wrap).
  const mask = size - 1;
  for (let v = 0; v < size; v++) {
    for (let u = 0; u < size; u++) {
      const i = v * size + u;
      let avg = 0;
      for (let dv = -1; dv <= 1; dv++) {
        const row = ((v + dv) & mask) * size;
        for (let du = -1; du <= 1; du++) avg += logAmp[row + ((u + du) & mask)]!;
      }
      const amp = Math.exp(logAmp[i]! - avg / 9);
      const a = abs[i]!;
      if (a > EPS) {
        re[i] = (amp * re[i]!) / a;
        im[i] = (amp * im[i]!) / a;
      } else {
        re[i] = amp;
        im[i] = 0;
      }
    }
  }
  re[0] = 0;
  im[0] = 0;
  fft2d(re, im, size, size, true);
  for (let i = 0; i < n; i++) out[i] = re[i]! * re[i]! + im[i]! * im[i]!;
  return out;
}

/**
 * The saliency map of `channels` (each `size` × `size`), combined with `weights` (default: each
 * channel's standard deviation), Gaussian-smoothed and scaled to a maximum of 1 (all zeros for a
 * flat image).
 */
export function spectralResidual(
  channels: ArrayLike<number>[],
  size: number,
  options: { weights?: number[]; sigma?: number } = {},
): Float32Array {
  const n = size * size;
  const sum = new Float64Array(n);
  channels.forEach((channel, c) => {
    let weight = options.weights?.[c];
    if (weight === undefined) {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += channel[i]!;
      mean /= n;
      let v = 0;
      for (let i = 0; i < n; i++) v += (channel[i]! - mean) ** 2;
      weight = Math.sqrt(v / n);
    }
    if (!(weight > 0)) return;
    const energy = spectralResidualEnergy(channel, size);
    let total = 0;
    for (let i = 0; i < n; i++) total += energy[i]!;
    if (!(total > 0)) return;
    // Each channel's map scaled to unit mean before weighting (the reconstruction's scale is arbitrary).
    const k = (weight * n) / total;
    for (let i = 0; i < n; i++) sum[i] = sum[i]! + energy[i]! * k;
  });
  const map = gaussianBlur(sum, size, size, options.sigma ?? SALIENCY_SIGMA);
  let max = 0;
  for (let i = 0; i < n; i++) if (map[i]! > max) max = map[i]!;
  if (max > 0) for (let i = 0; i < n; i++) map[i] = map[i]! / max;
  else map.fill(0);
  return map;
}

export interface FocalPoint {
  /** Position as a share of the frame width/height (0..1, pixel centres). */
  x: number;
  y: number;
  /** Saliency at the peak, 0..1 (the map's maximum is 1). */
  strength: number;
}

/** Local maxima above this share of the map maximum (and above `FOCAL_MEAN_RATIO` × the mean) count. */
export const FOCAL_THRESHOLD = 0.3;
export const FOCAL_MEAN_RATIO = 3;
/** Non-maximum suppression radius, as a share of the frame (a weaker peak this close to a stronger one is dropped). */
export const FOCAL_NMS_RADIUS = 0.12;
export const FOCAL_MAX_POINTS = 12;

/**
 * Focal points of a `width` × `height` saliency map: strict local maxima (3×3) at or above
 * `max(threshold, meanRatio × mean)`, strongest first, with non-maximum suppression within
 * `radius` (share of the frame, Euclidean in normalised coordinates), at most `maxPoints`.
 */
export function focalPoints(
  map: ArrayLike<number>,
  width: number,
  height: number,
  options: { threshold?: number; meanRatio?: number; radius?: number; maxPoints?: number } = {},
): FocalPoint[] {
  const n = width * height;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += map[i]!;
  mean /= n;
  const floor = Math.max(options.threshold ?? FOCAL_THRESHOLD, (options.meanRatio ?? FOCAL_MEAN_RATIO) * mean);
  const candidates: { i: number; v: number }[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const v = map[i]!;
      if (!(v >= floor) || v <= 0) continue;
      let peak = true;
      for (let dy = -1; dy <= 1 && peak; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const j = yy * width + xx;
          // Plateaus: the first pixel in scan order wins.
          if (map[j]! > v || (map[j]! === v && j < i)) {
            peak = false;
            break;
          }
        }
      }
      if (peak) candidates.push({ i, v });
    }
  }
  candidates.sort((a, b) => b.v - a.v || a.i - b.i);
  const radius = options.radius ?? FOCAL_NMS_RADIUS;
  const maxPoints = options.maxPoints ?? FOCAL_MAX_POINTS;
  const points: FocalPoint[] = [];
  for (const c of candidates) {
    const x = ((c.i % width) + 0.5) / width;
    const y = (Math.floor(c.i / width) + 0.5) / height;
    if (points.some((p) => Math.hypot(p.x - x, p.y - y) < radius)) continue;
    points.push({ x, y, strength: c.v });
    if (points.length >= maxPoints) break;
  }
  return points;
}

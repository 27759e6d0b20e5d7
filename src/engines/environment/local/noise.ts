/**
 * Seeded noise for the procedural environment: integer hashes and 2-D gradient noise with
 * a filtered fBm (octaves finer than a pixel's footprint fade to their mean instead of aliasing,
 * which is what keeps a floor seen in perspective free of moiré near the horizon).
 */

import { prng } from '../../shared/prng.ts';

/** A 32-bit hash of two integers and a seed, as an unsigned integer. */
export function hashBits(x: number, y: number, seed: number): number {
  let h = Math.imul(x | 0, 0x27d4eb2d) ^ Math.imul(y | 0, 0x165667b1) ^ Math.imul(seed | 0, 0x2545f491);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A hash of two integers and a seed, in [0, 1). */
export function hash2(x: number, y: number, seed: number): number {
  return hashBits(x, y, seed) / 4294967296;
}

export interface Noise {
  /** Gradient noise, about −1..1 (standard deviation ≈ 0.3), period 256. */
  noise(x: number, y: number): number;
  /**
   * Fractal sum of `octaves` octaves (lacunarity 2, gain 0.5, each octave rotated so no grid
   * shows), about −1..1. `fp` is the pixel footprint in the same units as x and y: an octave whose
   * features are under ~2 px fades out (its mean is 0), so the result is already filtered.
   */
  fbm(x: number, y: number, octaves: number, fp: number): number;
}

export function createNoise(seed: number): Noise {
  const rand = prng(seed);
  const perm = new Int32Array(512);
  const p = new Int32Array(256);
  for (let i = 0; i < 256; i++) p[i] = i;
  for (let i = 255; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  for (let i = 0; i < 512; i++) perm[i] = p[i & 255]!;
  // Gradients interleaved (x, y), scaled so the noise spans about −1..1.
  const g = new Float64Array(512);
  for (let i = 0; i < 256; i++) {
    const a = rand() * Math.PI * 2;
    g[2 * i] = Math.cos(a) * 1.55;
    g[2 * i + 1] = Math.sin(a) * 1.55;
  }

  const noise = (x: number, y: number): number => {
    const xf = Math.floor(x);
    const yf = Math.floor(y);
    const X = xf & 255;
    const Y = yf & 255;
    const fx = x - xf;
    const fy = y - yf;
    const a = perm[X]! + Y;
    const b = perm[X + 1]! + Y;
    const h00 = perm[a]! << 1;
    const h01 = perm[a + 1]! << 1;
    const h10 = perm[b]! << 1;
    const h11 = perm[b + 1]! << 1;
    const n00 = g[h00]! * fx + g[h00 + 1]! * fy;
    const n10 = g[h10]! * (fx - 1) + g[h10 + 1]! * fy;
    const n01 = g[h01]! * fx + g[h01 + 1]! * (fy - 1);
    const n11 = g[h11]! * (fx - 1) + g[h11 + 1]! * (fy - 1);
    const u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
    const v = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    const nx0 = n00 + (n10 - n00) * u;
    return nx0 + (n01 + (n11 - n01) * u - nx0) * v;
  };

  const fbm = (x: number, y: number, octaves: number, fp: number): number => {
    let sum = 0;
    let amp = 0.5;
    let f = 1;
    let px = x;
    let py = y;
    for (let o = 0; o < octaves; o++) {
      const k = fp * f;
      if (k >= 0.5) break;
      const w = k <= 0.25 ? 1 : (0.5 - k) * 4;
      sum += amp * w * noise(px + o * 17.3, py - o * 9.1);
      // Next octave: ×2 and rotated by ~37° (the matrix [[1.6, 1.2], [−1.2, 1.6]]).
      const nx = 1.6 * px + 1.2 * py;
      py = -1.2 * px + 1.6 * py;
      px = nx;
      f *= 2;
      amp *= 0.5;
    }
    return sum * 1.35;
  };

  return { noise, fbm };
}

/** 1 when a feature of frequency `freq` (per unit) is well above the footprint `fp`, fading to 0. */
export function lod(freq: number, fp: number): number {
  const k = fp * freq;
  return k <= 0.25 ? 1 : k >= 0.5 ? 0 : (0.5 - k) * 4;
}

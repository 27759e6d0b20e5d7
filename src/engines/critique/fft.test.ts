import { describe, expect, it } from 'vitest';
import { fft1d, fft2d, isPowerOfTwo } from './fft.ts';
import { focalPoints, SALIENCY_SIZE, spectralResidual } from './saliency.ts';

/** xorshift32 in 0..1, deterministic for a seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

describe('fft', () => {
  it('round-trips 1D and 2D signals', () => {
    const rand = rng(7);
    for (const n of [1, 2, 8, 64, 256]) {
      const re = Float64Array.from({ length: n }, () => rand() * 2 - 1);
      const im = Float64Array.from({ length: n }, () => rand() * 2 - 1);
      const r = re.slice();
      const i = im.slice();
      fft1d(r, i);
      fft1d(r, i, true);
      for (let k = 0; k < n; k++) {
        expect(r[k]).toBeCloseTo(re[k]!, 10);
        expect(i[k]).toBeCloseTo(im[k]!, 10);
      }
    }
    const w = 32;
    const h = 16;
    const re = Float64Array.from({ length: w * h }, () => rand());
    const r = re.slice();
    const i = new Float64Array(w * h);
    fft2d(r, i, w, h);
    fft2d(r, i, w, h, true);
    for (let k = 0; k < w * h; k++) {
      expect(r[k]).toBeCloseTo(re[k]!, 10);
      expect(i[k]).toBeCloseTo(0, 10);
    }
  });

  it('matches a direct DFT and puts a pure tone in its bin', () => {
    const n = 16;
    const rand = rng(3);
    const x = Float64Array.from({ length: n }, () => rand());
    const re = x.slice();
    const im = new Float64Array(n);
    fft1d(re, im);
    for (let k = 0; k < n; k++) {
      let sr = 0;
      let si = 0;
      for (let t = 0; t < n; t++) {
        sr += x[t]! * Math.cos((-2 * Math.PI * k * t) / n);
        si += x[t]! * Math.sin((-2 * Math.PI * k * t) / n);
      }
      expect(re[k]).toBeCloseTo(sr, 9);
      expect(im[k]).toBeCloseTo(si, 9);
    }
    const size = 8;
    const tone = Float64Array.from({ length: size * size }, (_, i) => Math.cos((2 * Math.PI * 3 * (i % size)) / size));
    const ti = new Float64Array(size * size);
    fft2d(tone, ti, size, size);
    expect(tone[3]).toBeCloseTo(32, 9);
    expect(tone[size - 3]).toBeCloseTo(32, 9);
    expect(Math.abs(tone[5 * size + 3]!)).toBeLessThan(1e-9);
  });

  it('refuses sizes that are not powers of two', () => {
    expect(isPowerOfTwo(64)).toBe(true);
    expect(isPowerOfTwo(48)).toBe(false);
    expect(() => fft1d(new Float64Array(6), new Float64Array(6))).toThrow(RangeError);
    expect(() => fft2d(new Float64Array(16), new Float64Array(16), 4, 8)).toThrow(RangeError);
  });
});

describe('spectral residual saliency', () => {
  it('finds a small bright square on a noisy background', () => {
    const size = SALIENCY_SIZE;
    for (const [seed, sx, sy] of [
      [1, 40, 18],
      [2, 12, 44],
      [3, 28, 30],
    ] as const) {
      const rand = rng(seed);
      const img = Float64Array.from({ length: size * size }, () => 0.4 + rand() * 0.2);
      for (let y = sy; y < sy + 5; y++) for (let x = sx; x < sx + 5; x++) img[y * size + x] = 1;
      const map = spectralResidual([img], size);
      let best = 0;
      for (let i = 1; i < map.length; i++) if (map[i]! > map[best]!) best = i;
      const bx = best % size;
      const by = Math.floor(best / size);
      expect(Math.abs(bx - (sx + 2))).toBeLessThanOrEqual(3);
      expect(Math.abs(by - (sy + 2))).toBeLessThanOrEqual(3);
      const points = focalPoints(map, size, size);
      expect(points.length).toBeGreaterThanOrEqual(1);
      expect(points[0]!.x).toBeCloseTo((sx + 2.5) / size, 1);
      expect(points[0]!.y).toBeCloseTo((sy + 2.5) / size, 1);
      // The square stands out: the map around it is far above the background average.
      const mean = map.reduce((a, b) => a + b, 0) / map.length;
      expect(mean).toBeLessThan(0.25);
    }
  });

  it('is all zeros for a flat image and finds no focal point', () => {
    const map = spectralResidual([new Float64Array(64 * 64).fill(0.5)], 64);
    expect(map.every((v) => v === 0)).toBe(true);
    expect(focalPoints(map, 64, 64)).toEqual([]);
  });

  it('separates two distant objects into two focal points', () => {
    const size = 64;
    const img = new Float64Array(size * size).fill(0.2);
    for (let y = 10; y < 16; y++) for (let x = 10; x < 16; x++) img[y * size + x] = 0.9;
    for (let y = 44; y < 50; y++) for (let x = 46; x < 52; x++) img[y * size + x] = 0.9;
    const points = focalPoints(spectralResidual([img], size), size, size);
    expect(points.length).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { laplacianVariance, luma, measurePixels } from './image-measure.ts';

/** RGBA raster of w×h filled by `at(x, y)`. */
function raster(w: number, h: number, at: (x: number, y: number) => [number, number, number, number]): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out.set(at(x, y), (y * w + x) * 4);
  return out;
}

describe('measurePixels', () => {
  it('a product on a white background: plain border, subject share, subject luma', () => {
    const w = 100;
    const h = 100;
    const img = raster(w, h, (x, y) =>
      x >= 30 && x < 70 && y >= 30 && y < 70 ? [200, 20, 20, 255] : [255, 255, 255, 255],
    );
    const m = measurePixels(img, w, h);
    expect(m.border.lumaStdDev).toBeCloseTo(0, 3);
    expect(m.border.meanDeltaE).toBeCloseTo(0, 3);
    expect(m.border.meanRgb).toEqual([255, 255, 255]);
    expect(m.subjectFraction).toBeCloseTo(0.16, 5);
    expect(m.subjectLuma!.mean).toBeCloseTo(luma(200, 20, 20), 5);
    expect(m.subjectLuma!.stdDev).toBeCloseTo(0, 3);
    expect(m.luma.highlightClip).toBeCloseTo(0.84, 5);
    expect(m.transparentFraction).toBe(0);
  });

  it('a transparent logo: border transparency, subject = opaque pixels', () => {
    const img = raster(50, 50, (x, y) => (x >= 20 && x < 30 && y >= 20 && y < 30 ? [0, 0, 0, 255] : [0, 0, 0, 0]));
    const m = measurePixels(img, 50, 50);
    expect(m.border.transparentFraction).toBe(1);
    expect(m.transparentFraction).toBeCloseTo(0.96, 5);
    expect(m.subjectFraction).toBeCloseTo(0.04, 5);
    expect(m.luma.count).toBe(100);
  });

  it('a horizontal gradient: busy border, wide luma spread, no clipping in the middle', () => {
    const m = measurePixels(
      raster(256, 64, (x) => [x, x, x, 255]),
      256,
      64,
    );
    expect(m.luma.mean).toBeCloseTo(127.5, 1);
    expect(m.luma.stdDev).toBeGreaterThan(70);
    expect(m.border.lumaStdDev).toBeGreaterThan(50);
    expect(m.meanChroma).toBeLessThan(1);
    expect(m.luma.shadowClip).toBeCloseTo(6 / 256, 5);
    expect(m.luma.highlightClip).toBeCloseTo(6 / 256, 5);
  });

  it('colour shows in mean chroma', () => {
    expect(
      measurePixels(
        raster(10, 10, () => [255, 0, 0, 255]),
        10,
        10,
      ).meanChroma,
    ).toBeGreaterThan(90);
  });
});

describe('laplacianVariance', () => {
  it('is zero on a flat image and high on a checkerboard', () => {
    expect(laplacianVariance(new Uint8Array(100).fill(128), 10, 10)).toBe(0);
    const checker = Uint8Array.from({ length: 100 }, (_, i) => (((i % 10) + Math.floor(i / 10)) % 2 ? 255 : 0));
    expect(laplacianVariance(checker, 10, 10)).toBeGreaterThan(100_000);
  });

  it('falls as an edge gets softer', () => {
    const edge = (softness: number) =>
      Uint8Array.from({ length: 64 * 64 }, (_, i) => {
        const x = i % 64;
        return Math.round(255 / (1 + Math.exp(-(x - 32) / softness)));
      });
    const sharp = laplacianVariance(edge(0.3), 64, 64);
    const soft = laplacianVariance(edge(4), 64, 64);
    expect(sharp).toBeGreaterThan(soft * 10);
  });

  it('is zero for rasters too small to have an interior', () => {
    expect(laplacianVariance(new Uint8Array(4), 2, 2)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeImage, computeFeatures, type FeatureInput } from './features.ts';
import { chamferDistance } from '../shared/raster.ts';
import { areaResize, fillHoles, floatRows } from './raster.ts';

type Rgb = [number, number, number];

/** A raw RGB canvas with a few drawing helpers (all deterministic). */
function canvas(width: number, height: number, bg: Rgb) {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(bg, i * 3);
  const mask = new Uint8Array(width * height);
  const self = {
    data,
    mask,
    width,
    height,
    rect(x0: number, y0: number, w: number, h: number, c: Rgb, product = false) {
      for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) {
        for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) {
          data.set(c, (y * width + x) * 3);
          if (product) mask[y * width + x] = 255;
        }
      }
      return self;
    },
    input(extra: Partial<FeatureInput> = {}): FeatureInput {
      return { data, width, height, channels: 3, ...extra };
    },
  };
  return self;
}

/** Six block letters of `t` px strokes: a wordmark stand-in. */
function wordmark(c: ReturnType<typeof canvas>, left: number, top: number, color: Rgb, scale = 1) {
  const h = 56 * scale;
  const w = 30 * scale;
  const t = 8 * scale;
  for (let k = 0; k < 6; k++) {
    const x = left + k * (w + 12 * scale);
    c.rect(x, top, t, h, color);
    if (k % 2 === 0) c.rect(x + w - t, top, t, h, color);
    if (k % 3 !== 1) c.rect(x, top, w, t, color);
    c.rect(x, top + (h - t) / 2, w, t, color);
    if (k % 3 !== 2) c.rect(x, top + h - t, w, t, color);
  }
  return { left, top, width: 6 * w + 5 * 12 * scale, height: h };
}

describe('raster helpers', () => {
  it('area-resizes exactly and keeps the mean at any ratio', () => {
    const src = Float32Array.from([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]);
    const half = areaResize(floatRows(src, 4, 1), 4, 4, 1, 2, 2);
    expect(Array.from(half)).toEqual([5, 9, 21, 25]);
    const odd = areaResize(floatRows(src, 4, 1), 4, 4, 1, 3, 3);
    const mean = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v, 0) / a.length;
    expect(mean(odd)).toBeCloseTo(mean(src), 4);
    const up = areaResize(floatRows(Float32Array.from([1, 3]), 2, 1), 2, 1, 1, 4, 2);
    expect(Array.from(up)).toEqual([1, 1, 3, 3, 1, 1, 3, 3]);
  });

  it('measures chamfer distances and fills holes', () => {
    const inside = new Uint8Array(5 * 5);
    inside[12] = 1;
    const d = chamferDistance(inside, 5, 5);
    expect(d[12]).toBe(0);
    expect(d[13]).toBe(1);
    expect(d[14]).toBe(2);
    expect(d[18]).toBeCloseTo(4 / 3, 5);
    expect(chamferDistance(new Uint8Array(4), 2, 2)[0]).toBe(Number.POSITIVE_INFINITY);
    const ring = new Uint8Array(25);
    for (const i of [6, 7, 8, 11, 13, 16, 17, 18]) ring[i] = 1;
    expect(fillHoles(ring, 5, 5)[12]).toBe(1);
    expect(fillHoles(ring, 5, 5)[0]).toBe(0);
  });
});

describe('computeFeatures', () => {
  it('reads the product from its mask: size, box, centroid, margins, contrast', () => {
    const c = canvas(400, 300, [230, 230, 230]).rect(100, 60, 120, 150, [200, 30, 40], true);
    const f = computeFeatures(c.input({ productMask: c.mask }));
    expect(f.frame).toMatchObject({ width: 400, height: 300, analysisWidth: 256, analysisHeight: 192 });
    expect(f.subject.source).toBe('mask');
    expect(f.subject.present).toBe(true);
    expect(f.subject.areaShare).toBeCloseTo((120 * 150) / (400 * 300), 2);
    expect(f.subject.box!.left).toBeCloseTo(0.25, 1);
    expect(f.subject.box!.width).toBeCloseTo(0.3, 1);
    expect(f.subject.centroid!.x).toBeCloseTo(160 / 400, 2);
    expect(f.subject.centroid!.y).toBeCloseTo(135 / 300, 2);
    expect(f.composition.cutOff).toBe(false);
    expect(f.composition.margins.top).toBeCloseTo(0.2, 1);
    expect(f.composition.minMargin).toBeCloseTo(0.2, 1);
    expect(f.contrast.subjectDeltaE).toBeGreaterThan(50);
    expect(f.subject.saliencyShare).toBeGreaterThan(0.5);
    expect(f.saliency.focalTargets).toBe(1);
    expect(f.clutter.edgeDensity).toBe(0);
  });

  it('flags a product cut off by the frame', () => {
    const c = canvas(256, 256, [240, 240, 240]).rect(0, 80, 90, 100, [20, 60, 160], true);
    const f = computeFeatures(c.input({ productMask: c.mask }));
    expect(f.composition.cutOff).toBe(true);
    expect(f.composition.cutOffEdges).toEqual(['left']);
    expect(f.composition.margins.left).toBe(0);
  });

  it('estimates the subject without a mask (plain backdrop, then busy backdrop)', () => {
    const c = canvas(320, 320, [235, 235, 230]).rect(180, 150, 90, 110, [30, 120, 60]);
    c.rect(200, 170, 50, 12, [250, 250, 250]);
    const f = computeFeatures(c.input());
    expect(f.subject.source).toBe('background');
    const b = f.subject.box!;
    expect(b.left).toBeCloseTo(180 / 320, 1);
    expect(b.top).toBeCloseTo(150 / 320, 1);
    expect(b.width).toBeCloseTo(90 / 320, 1);
    expect(b.height).toBeCloseTo(110 / 320, 1);
    // Stripes everywhere: no plain border, the saliency object map is used.
    const busy = canvas(256, 256, [0, 0, 0]);
    for (let y = 0; y < 256; y += 8) busy.rect(0, y, 256, 4, [255, 255, 255]);
    busy.rect(100, 100, 40, 40, [255, 0, 0]);
    expect(computeFeatures(busy.input()).subject.source).toBe('saliency');
  });

  it('measures colourfulness, RMS contrast and exposure', () => {
    const grey = computeFeatures(canvas(64, 64, [128, 128, 128]).input());
    expect(grey.colorfulness).toBe(0);
    expect(grey.contrast.rms).toBe(0);
    expect(grey.exposure.meanLuminance).toBeCloseTo(128 / 255, 3);
    expect(grey.subject.present).toBe(false);
    expect(grey.saliency.focalPointCount).toBe(0);
    const vivid = canvas(64, 64, [255, 0, 0]).rect(0, 0, 32, 64, [0, 200, 255]);
    const v = computeFeatures(vivid.input());
    expect(v.colorfulness).toBeGreaterThan(80);
    expect(v.contrast.rms).toBeGreaterThan(0.2);
    const black = computeFeatures(canvas(32, 32, [0, 0, 0]).input());
    expect(black.exposure.clippedShadows).toBe(1);
    const white = computeFeatures(canvas(32, 32, [255, 255, 255]).input());
    expect(white.exposure.clippedHighlights).toBe(1);
  });

  it('composites alpha over white and reads grey images', () => {
    const w = 48;
    const rgba = new Uint8Array(w * w * 4);
    for (let i = 0; i < w * w; i++) rgba.set([10, 200, 30, 0], i * 4);
    const clear = computeFeatures({ data: rgba, width: w, height: w, channels: 4 });
    const white = computeFeatures(canvas(w, w, [255, 255, 255]).input());
    expect(clear).toEqual(white);
    const grey = new Uint8Array(w * w).fill(128);
    expect(computeFeatures({ data: grey, width: w, height: w, channels: 1 }).exposure.meanLuminance).toBeCloseTo(
      128 / 255,
      3,
    );
  });

  it('rates a blurred image less sharp than the same image crisp', () => {
    const crisp = canvas(256, 256, [240, 240, 240]);
    for (let k = 0; k < 6; k++) crisp.rect(30 + k * 35, 40 + ((k * 37) % 120), 20, 60, [30, 30, 30]);
    const blurred = new Uint8Array(crisp.data.length);
    const r = 3;
    for (let y = 0; y < 256; y++) {
      for (let x = 0; x < 256; x++) {
        for (let ch = 0; ch < 3; ch++) {
          let s = 0;
          let n = 0;
          for (let dy = -r; dy <= r; dy++) {
            for (let dx = -r; dx <= r; dx++) {
              const yy = Math.min(255, Math.max(0, y + dy));
              const xx = Math.min(255, Math.max(0, x + dx));
              s += crisp.data[(yy * 256 + xx) * 3 + ch]!;
              n++;
            }
          }
          blurred[(y * 256 + x) * 3 + ch] = Math.round(s / n);
        }
      }
    }
    const a = computeFeatures(crisp.input()).sharpness;
    const b = computeFeatures({ data: blurred, width: 256, height: 256, channels: 3 }).sharpness;
    expect(a.acutance).toBeGreaterThan(0.7);
    expect(b.acutance).toBeLessThan(a.acutance * 0.6);
    expect(b.laplacianVariance).toBeLessThan(a.laplacianVariance / 4);
  });

  it('measures brand palette coverage of the frame and of the product', () => {
    const c = canvas(200, 200, [255, 255, 255]).rect(0, 0, 100, 200, [200, 16, 46]);
    c.rect(120, 60, 40, 80, [205, 20, 50], true);
    const f = computeFeatures(c.input({ productMask: c.mask, palette: ['#c8102e', '#ffffff', 'nonsense'] }));
    expect(f.palette).not.toBeNull();
    const p = f.palette!;
    expect(p.colors.map((x) => x.hex)).toEqual(['#c8102e', '#ffffff']);
    expect(p.colors[0]!.neutral).toBe(false);
    expect(p.colors[1]!.neutral).toBe(true);
    expect(p.colors[0]!.share).toBeCloseTo(0.58, 1);
    expect(p.coverage).toBeCloseTo(1, 2);
    expect(p.weightedCoverage).toBeCloseTo(0.58 + 0.42 * 0.15, 1);
    expect(p.subjectCoverage).toBeGreaterThan(0.95);
    expect(computeFeatures(c.input({ palette: ['#00ff00'] })).palette!.coverage).toBe(0);
    expect(computeFeatures(c.input()).palette).toBeNull();
  });

  it('finds a wordmark with the text proxy but not a plain shape', () => {
    const c = canvas(1024, 768, [240, 240, 238]);
    const box = wordmark(c, 600, 620, [25, 25, 25]);
    c.rect(100, 100, 300, 250, [30, 90, 200]);
    const f = computeFeatures(c.input());
    expect(f.text.regionCount).toBe(1);
    const r = f.text.regions[0]!;
    expect(r.left * 1024).toBeGreaterThan(box.left - 40);
    expect((r.left + r.width) * 1024).toBeLessThan(box.left + box.width + 40);
    expect(r.top * 768).toBeGreaterThan(box.top - 40);
    expect(f.text.areaShare).toBeGreaterThan(0.01);
    const plain = computeFeatures(canvas(1024, 768, [240, 240, 238]).rect(100, 100, 300, 250, [30, 90, 200]).input());
    expect(plain.text.regionCount).toBe(0);
  });

  it('reads logo boxes: size, legibility, placement, cut-off', () => {
    const c = canvas(400, 400, [240, 240, 240]);
    const box = wordmark(c, 20, 20, [20, 20, 20], 0.5);
    const f = computeFeatures(c.input({ logoBoxes: [box] }));
    expect(f.logo.count).toBe(1);
    expect(f.logo.areaShare).toBeCloseTo((box.width * box.height) / 160000, 3);
    expect(f.logo.contrast).toBeGreaterThan(0.2);
    expect(f.logo.cutOff).toBe(false);
    expect(f.logo.edgeDistance).toBeCloseTo(0.05, 2);
    const cut = computeFeatures(c.input({ logoBoxes: [{ left: 350, top: 10, width: 100, height: 30 }] }));
    expect(cut.logo.cutOff).toBe(true);
    expect(cut.logo.areaShare).toBeCloseTo((50 * 30) / 160000, 4);
  });

  it('counts competing attention targets and edges outside the product', () => {
    const c = canvas(512, 512, [235, 235, 235]).rect(200, 200, 110, 110, [200, 40, 40], true);
    const calm = computeFeatures(c.input({ productMask: c.mask }));
    let s = 7;
    const rand = () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
    for (let k = 0; k < 30; k++) {
      const x = Math.floor(rand() * 460);
      const y = Math.floor(rand() * 460);
      if (x > 150 && x < 330 && y > 150 && y < 330) continue;
      c.rect(x, y, 20 + Math.floor(rand() * 30), 20 + Math.floor(rand() * 30), [
        Math.floor(rand() * 255),
        Math.floor(rand() * 255),
        Math.floor(rand() * 255),
      ]);
    }
    const busy = computeFeatures(c.input({ productMask: c.mask }));
    expect(busy.clutter.edgeDensity).toBeGreaterThan(calm.clutter.edgeDensity + 0.03);
    expect(busy.saliency.offSubjectFocalPoints).toBeGreaterThan(calm.saliency.offSubjectFocalPoints);
    expect(busy.subject.saliencyShare).toBeLessThan(calm.subject.saliencyShare);
    expect(busy.saliency.focalPoints.some((p) => p.onSubject)).toBe(true);
  });

  it('exposes the maps and refuses malformed input', () => {
    const c = canvas(300, 100, [100, 150, 200]);
    const { maps } = analyzeImage(c.input());
    expect(maps.saliency.length).toBe(maps.saliencySize ** 2);
    expect(maps.subject.length).toBe(maps.analysisWidth * maps.analysisHeight);
    expect([maps.analysisWidth, maps.analysisHeight]).toEqual([256, 85]);
    expect(() => computeFeatures({ data: new Uint8Array(10), width: 10, height: 10, channels: 3 })).toThrow(RangeError);
    expect(() => computeFeatures({ data: new Uint8Array(300), width: 10, height: 10, channels: 5 })).toThrow(
      RangeError,
    );
    expect(() => computeFeatures({ data: new Uint8Array(0), width: 0, height: 10, channels: 3 })).toThrow(RangeError);
    expect(() => computeFeatures(c.input({ productMask: new Uint8Array(5) }))).toThrow(RangeError);
  });
});

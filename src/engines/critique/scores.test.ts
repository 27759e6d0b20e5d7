import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Box, PixelInput } from './features.ts';
import { SCORE_MODEL, SCORE_NAMES, scoreFeatures, scoreImage, scoreTerms } from './scores.ts';

type Rgb = [number, number, number];

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

/**
 * A synthetic scene: a plain backdrop with a "product" (an ellipse with a lit band and a seam,
 * recorded in the mask) and optional clutter, brand band and wordmark.
 */
function scene(opts: {
  size?: number;
  backdrop?: Rgb;
  product?: { cx: number; cy: number; rx: number; ry: number; color: Rgb };
  clutter?: number;
  brandBand?: Rgb;
  wordmark?: Rgb;
}): PixelInput & { mask: Uint8Array; logo?: Box } {
  const size = opts.size ?? 512;
  const data = new Uint8Array(size * size * 3);
  const mask = new Uint8Array(size * size);
  const bg = opts.backdrop ?? [236, 236, 232];
  for (let i = 0; i < size * size; i++) data.set(bg, i * 3);
  const rect = (x0: number, y0: number, w: number, h: number, c: Rgb) => {
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(size, Math.round(y0 + h)); y++) {
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(size, Math.round(x0 + w)); x++)
        data.set(c, (y * size + x) * 3);
    }
  };
  if (opts.brandBand) rect(0, size * 0.84, size, size * 0.16, opts.brandBand);
  let logo: Box | undefined;
  if (opts.wordmark) {
    const k = size / 1024;
    const [left, top, h, w, t, gap] = [48 * k, 40 * k, 56 * k, 30 * k, 8 * k, 12 * k];
    for (let i = 0; i < 6; i++) {
      const x = left + i * (w + gap);
      rect(x, top, t, h, opts.wordmark);
      if (i % 2 === 0) rect(x + w - t, top, t, h, opts.wordmark);
      if (i % 3 !== 1) rect(x, top, w, t, opts.wordmark);
      rect(x, top + (h - t) / 2, w, t, opts.wordmark);
      if (i % 3 !== 2) rect(x, top + h - t, w, t, opts.wordmark);
    }
    logo = { left, top, width: 6 * w + 5 * gap, height: h };
  }
  const p = opts.product;
  if (opts.clutter && p) {
    const rand = rng(opts.clutter);
    for (let k = 0, placed = 0; placed < opts.clutter && k < 5000; k++) {
      const w = size * (0.03 + rand() * 0.1);
      const h = size * (0.03 + rand() * 0.1);
      const x = rand() * (size - w);
      const y = rand() * (size - h);
      const c: Rgb = [Math.floor(rand() * 256), Math.floor(rand() * 256), Math.floor(rand() * 256)];
      const pad = 0.03 * size;
      if (x < p.cx + p.rx + pad && x + w > p.cx - p.rx - pad && y < p.cy + p.ry + pad && y + h > p.cy - p.ry - pad) {
        continue;
      }
      rect(x, y, w, h, c);
      placed++;
    }
  }
  if (p) {
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const u = (x + 0.5 - p.cx) / p.rx;
        const v = (y + 0.5 - p.cy) / p.ry;
        if (u * u + v * v > 1) continue;
        const lit = 1 + 0.25 * Math.exp(-(((u + 0.3) / 0.25) ** 2));
        const seam = Math.abs(v - 0.2) < 0.03 ? 0.6 : 1;
        const c = p.color.map((ch) => Math.min(255, Math.round(ch * lit * seam)));
        data.set(c, (y * size + x) * 3);
        mask[y * size + x] = 255;
      }
    }
  }
  return { data, width: size, height: size, channels: 3, mask, logo };
}

const BRAND = ['#c8102e', '#1d1d1b'];

describe('SCORE_MODEL', () => {
  it('declares weights summing to 1 and a formula for every term', () => {
    for (const name of SCORE_NAMES) {
      const terms = SCORE_MODEL[name];
      expect(terms.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 10);
      expect(new Set(terms.map((t) => t.key)).size).toBe(terms.length);
      for (const t of terms) expect(t.formula.length).toBeGreaterThan(10);
    }
  });

  it('adds the term points up to the score', () => {
    const s = scene({ product: { cx: 256, cy: 256, rx: 120, ry: 90, color: [40, 90, 200] } });
    const { scores, features } = scoreImage(s, { productMask: s.mask, palette: BRAND });
    const terms = scoreTerms(features);
    for (const name of SCORE_NAMES) {
      const total = terms[name].reduce((sum, t) => sum + t.points, 0);
      expect(scores[name]).toBeCloseTo(Math.min(100, Math.max(0, total)), 1);
      for (const t of terms[name]) expect(t.value).toBeGreaterThanOrEqual(0);
    }
    expect(scoreFeatures(features)).toEqual(scores);
  });
});

describe('scores', () => {
  it('a bigger, higher-contrast product raises attention_potential', () => {
    const small = scene({ product: { cx: 256, cy: 256, rx: 40, ry: 30, color: [190, 190, 180] } });
    const big = scene({ product: { cx: 256, cy: 256, rx: 170, ry: 130, color: [200, 30, 40] } });
    const a = scoreImage(small, { productMask: small.mask }).scores;
    const b = scoreImage(big, { productMask: big.mask }).scores;
    expect(b.attention_potential).toBeGreaterThan(a.attention_potential + 10);
    // Same product, only bigger: still higher.
    const bigSame = scene({ product: { cx: 256, cy: 256, rx: 170, ry: 130, color: [190, 190, 180] } });
    expect(scoreImage(bigSame, { productMask: bigSame.mask }).scores.attention_potential).toBeGreaterThan(
      a.attention_potential,
    );
    // And without masks (subject estimated).
    expect(scoreImage(big).scores.attention_potential).toBeGreaterThan(scoreImage(small).scores.attention_potential);
  });

  it("adding the brand's colours and a logo-like mark raises brand_awareness", () => {
    const product = { cx: 256, cy: 240, rx: 130, ry: 100, color: [40, 90, 200] as Rgb };
    const plain = scene({ product });
    const branded = scene({ product, brandBand: [200, 16, 46], wordmark: [29, 29, 27] });
    const before = scoreImage(plain, { productMask: plain.mask, palette: BRAND }).scores.brand_awareness;
    const withBox = scoreImage(branded, { productMask: branded.mask, palette: BRAND, logoBoxes: [branded.logo!] });
    expect(withBox.scores.brand_awareness).toBeGreaterThan(before + 10);
    // The text/mark proxy alone sees the wordmark too.
    const proxy = scoreImage(branded, { productMask: branded.mask, palette: BRAND });
    expect(proxy.features.text.regionCount).toBeGreaterThan(0);
    expect(proxy.scores.brand_awareness).toBeGreaterThan(before);
    // A product in the brand colour counts as well.
    const red = scene({ product: { ...product, color: [200, 16, 46] } });
    expect(scoreImage(red, { productMask: red.mask, palette: BRAND }).scores.brand_awareness).toBeGreaterThan(before);
  });

  it('adding clutter around the product lowers conversion', () => {
    for (const [seed, rx] of [
      [11, 60],
      [12, 120],
      [13, 160],
    ] as const) {
      const product = { cx: 256, cy: 256, rx, ry: rx * 0.8, color: [40, 90, 200] as Rgb };
      const calm = scene({ product });
      const busy = scene({ product, clutter: seed + 30 });
      const a = scoreImage(calm, { productMask: calm.mask }).scores.conversion;
      const b = scoreImage(busy, { productMask: busy.mask }).scores.conversion;
      expect(b).toBeLessThan(a - 5);
    }
  });

  it('penalises a product cut off by the frame', () => {
    const inside = scene({ product: { cx: 256, cy: 256, rx: 150, ry: 110, color: [40, 90, 200] } });
    const cut = scene({ product: { cx: 60, cy: 256, rx: 150, ry: 110, color: [40, 90, 200] } });
    expect(scoreImage(cut, { productMask: cut.mask }).scores.conversion).toBeLessThan(
      scoreImage(inside, { productMask: inside.mask }).scores.conversion,
    );
  });

  it('always scores the same image the same (byte-identical)', () => {
    const s = scene({ product: { cx: 230, cy: 270, rx: 110, ry: 90, color: [200, 120, 30] }, clutter: 5 });
    const opts = { productMask: s.mask, palette: BRAND, logoBoxes: [{ left: 10, top: 10, width: 80, height: 30 }] };
    const first = JSON.stringify(scoreImage(s, opts));
    const copy = { ...s, data: Uint8Array.from(s.data) };
    for (let i = 0; i < 3; i++) expect(JSON.stringify(scoreImage(copy, opts))).toBe(first);
    expect(JSON.stringify(scoreImage({ ...s, data: Buffer.from(s.data) }, opts))).toBe(first);
  });

  it('keeps every score within 0..100 with one decimal for any image', () => {
    const image = fc
      .record({
        width: fc.integer({ min: 1, max: 40 }),
        height: fc.integer({ min: 1, max: 40 }),
        channels: fc.integer({ min: 1, max: 4 }),
        seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        mode: fc.constantFrom('noise', 'flat', 'blocks'),
        mask: fc.constantFrom('none', 'empty', 'full', 'random'),
        palette: fc.array(fc.integer({ min: 0, max: 0xffffff }), { maxLength: 4 }),
        logo: fc.option(
          fc.record({
            left: fc.integer({ min: -20, max: 40 }),
            top: fc.integer({ min: -20, max: 40 }),
            width: fc.integer({ min: 0, max: 60 }),
            height: fc.integer({ min: 0, max: 60 }),
          }),
          { nil: undefined },
        ),
      })
      .map((r) => {
        const rand = rng(r.seed);
        const n = r.width * r.height;
        const data = new Uint8Array(n * r.channels);
        const flat = Math.floor(rand() * 256);
        for (let i = 0; i < data.length; i++) {
          const px = Math.floor(i / r.channels);
          data[i] =
            r.mode === 'noise'
              ? Math.floor(rand() * 256)
              : r.mode === 'flat'
                ? flat
                : ((px % r.width) >> 2) % 2 === (Math.floor(px / r.width) >> 2) % 2
                  ? 250
                  : 5;
        }
        const mask =
          r.mask === 'none'
            ? undefined
            : Uint8Array.from({ length: n }, () =>
                r.mask === 'full' ? 255 : r.mask === 'random' ? Math.floor(rand() * 256) : 0,
              );
        return { ...r, data, productMask: mask };
      });
    fc.assert(
      fc.property(image, (r) => {
        const { scores, features } = scoreImage(
          { data: r.data, width: r.width, height: r.height, channels: r.channels },
          {
            productMask: r.productMask,
            palette: r.palette.map((c) => `#${c.toString(16).padStart(6, '0')}`),
            logoBoxes: r.logo ? [r.logo] : undefined,
          },
        );
        for (const name of SCORE_NAMES) {
          const v = scores[name];
          expect(Number.isFinite(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(100);
          expect(Math.round(v * 10) / 10).toBe(v);
        }
        expect(JSON.parse(JSON.stringify(features))).toEqual(features);
      }),
      { numRuns: 150 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAMERA_MOVES, planCamera } from './camera.ts';
import {
  bandAlpha,
  chooseFit,
  type FitInput,
  floorBands,
  frameMove,
  layerGeometry,
  layerKeys,
  type Rect,
  safeRect,
  sampleLayer,
} from './framing.ts';

const W = 1280;
const H = 720;
const full = { left: 0, top: 0, width: W, height: H };
const right = (r: Rect) => r.left + r.width;
const bottom = (r: Rect) => r.top + r.height;

describe('layer keys', () => {
  it('depth 0 follows the camera; every depth lines up at the rest pose', () => {
    const plan = planCamera('push-in');
    const wall = layerKeys(plan, 0, W, H);
    expect(wall.map((k) => k.zoom)).toEqual(plan.keys.map((k) => k.zoom));
    for (const depth of [0.5, 1, 2]) {
      const first = layerKeys(plan, depth, W, H)[0]!;
      expect(first).toEqual({ at: 0, zoom: 1, cx: W / 2, cy: H / 2 });
    }
    // Nearer layers close in faster.
    expect(layerKeys(plan, 1, W, H)[1]!.zoom).toBeGreaterThan(wall[1]!.zoom);
  });

  it('a pan moves the layers apart sideways only, each at one size; an orbit holds the product still', () => {
    const pan = planCamera('pan-right');
    for (const depth of [0, 1, 2]) {
      const keys = layerKeys(pan, depth, W, H);
      expect(new Set(keys.map((k) => k.zoom)).size).toBe(1);
    }
    const travel = (depth: number) => {
      const k = layerKeys(pan, depth, W, H);
      return k[1]!.cx - k[0]!.cx;
    };
    expect(travel(1)).toBeCloseTo(travel(0) * 1.5, 6);
    const orbit = layerKeys(planCamera('orbit'), 1, W, H);
    expect(orbit[0]!.cx).toBe(orbit[1]!.cx);
    // The floor in front of the product slides against the wall.
    const front = layerKeys(planCamera('orbit'), 2, W, H);
    expect(Math.sign(front[1]!.cx - front[0]!.cx)).toBe(-Math.sign(travel(0)));
  });
});

describe('safeRect', () => {
  it('is the whole frame for a still camera, and the end view of a push-in for the product', () => {
    expect(safeRect(planCamera('static'), 1, W, H)).toEqual(full);
    const plan = planCamera('push-in');
    const end = sampleLayer(layerKeys(plan, 1, W, H), plan.easing, 1);
    const s = safeRect(plan, 1, W, H);
    expect(s.width).toBeCloseTo(W / end.zoom, 6);
    expect(s.height).toBeCloseTo(H / end.zoom, 6);
  });

  it('holds only what every moment shows', () => {
    for (const move of CAMERA_MOVES) {
      const plan = planCamera(move);
      const s = safeRect(plan, 1, W, H);
      const keys = layerKeys(plan, 1, W, H);
      for (let u = 0; u <= 1; u += 0.05) {
        const v = sampleLayer(keys, plan.easing, u);
        expect(s.left).toBeGreaterThanOrEqual(v.cx - W / (2 * v.zoom) - 1e-6);
        expect(right(s)).toBeLessThanOrEqual(v.cx + W / (2 * v.zoom) + 1e-6);
        expect(s.top).toBeGreaterThanOrEqual(v.cy - H / (2 * v.zoom) - 1e-6);
        expect(bottom(s)).toBeLessThanOrEqual(v.cy + H / (2 * v.zoom) + 1e-6);
      }
    }
  });
});

describe('layerGeometry', () => {
  it.each(CAMERA_MOVES)(
    '%s: the window covers what the place shows at every moment, at the place’s aspect ratio',
    (move) => {
      const plan = planCamera(move);
      for (const [depth, content] of [
        [0, { left: -W, top: -H, width: 3 * W, height: 3 * H }],
        [1, { left: 500, top: 250, width: 260, height: 380 }],
        [1.67, { left: -W, top: 600, width: 3 * W, height: 400 }],
      ] as const) {
        const g = layerGeometry(plan, depth, W, H, content)!;
        expect(g).toBeDefined();
        const { place, window } = g;
        expect(Math.abs(window.width / window.height - place.width / place.height)).toBeLessThan(
          (2 * place.width) / place.height / Math.min(window.width, window.height) + 1e-9,
        );
        for (const n of [place.left, place.top, place.width, place.height, window.left, window.top]) {
          expect(Number.isInteger(n)).toBe(true);
        }
        const keys = layerKeys(plan, depth, W, H);
        for (let u = 0; u <= 1; u += 0.05) {
          const v = sampleLayer(keys, plan.easing, u);
          const l = v.cx + (place.left - W / 2) / v.zoom;
          const t = v.cy + (place.top - H / 2) / v.zoom;
          expect(l).toBeGreaterThanOrEqual(window.left);
          expect(t).toBeGreaterThanOrEqual(window.top);
          expect(l + place.width / v.zoom).toBeLessThanOrEqual(right(window));
          expect(t + place.height / v.zoom).toBeLessThanOrEqual(bottom(window));
          // The content's image lies inside the place (or past the frame).
          const x = (content.left - v.cx) * v.zoom + W / 2;
          const y = (content.top - v.cy) * v.zoom + H / 2;
          expect(Math.max(0, x)).toBeGreaterThanOrEqual(place.left - 1e-6);
          expect(Math.max(0, y)).toBeGreaterThanOrEqual(place.top - 1e-6);
        }
        if (depth === 0) expect(place).toEqual(full);
      }
    },
  );

  it('is undefined for content that never shows, and widens a sliver past the frame', () => {
    const plan = planCamera('static');
    expect(layerGeometry(plan, 1, W, H, { left: 2000, top: 0, width: 100, height: 100 })).toBeUndefined();
    const g = layerGeometry(plan, 1, W, H, { left: -W, top: H - 4, width: 3 * W, height: 100 })!;
    expect(g.place.height).toBe(72);
    expect(g.place.top).toBe(H - 6);
    expect(g.window.width).toBeLessThan(1.2 * W);
  });
});

describe('chooseFit', () => {
  const input = (over: Partial<FitInput>): FitInput => ({
    source: { width: 1024, height: 1024 },
    out: { width: W, height: H },
    safe: full,
    margin: 20,
    ...over,
  });
  /** The box, framed, with its margin, is inside the safe rect. */
  const keeps = (i: FitInput, fit: ReturnType<typeof chooseFit>) => {
    const b = i.box!;
    const l = fit.left + b.left * fit.scale;
    const t = fit.top + b.top * fit.scale;
    const eps = 1.01; // whole-px offsets
    return (
      (i.touches?.left || l - i.margin >= i.safe.left - eps) &&
      (i.touches?.top || t - i.margin >= i.safe.top - eps) &&
      (i.touches?.right || l + b.width * fit.scale + i.margin <= right(i.safe) + eps) &&
      (i.touches?.bottom || t + b.height * fit.scale + i.margin <= bottom(i.safe) + eps)
    );
  };
  const covers = (i: FitInput, fit: ReturnType<typeof chooseFit>) =>
    fit.left <= 0 &&
    fit.top <= 0 &&
    fit.left + i.source.width * fit.scale >= i.out.width - 1 &&
    fit.top + i.source.height * fit.scale >= i.out.height - 1;

  it('the same aspect ratio and a product that fits: the frame as it is', () => {
    const fit = chooseFit(
      input({ source: { width: W, height: H }, box: { left: 500, top: 200, width: 280, height: 400 } }),
    );
    expect(fit).toEqual({ scale: 1, left: 0, top: 0, extended: false });
  });

  it('no product: a centred cover crop', () => {
    expect(chooseFit(input({}))).toEqual({ scale: 1.25, left: 0, top: -280, extended: false });
  });

  it('1:1 → 16:9: the cover window slides to keep a product near the top whole', () => {
    const i = input({ box: { left: 400, top: 60, width: 220, height: 300 } });
    const fit = chooseFit(i);
    expect(fit.extended).toBe(false);
    expect(fit.scale).toBe(1.25);
    expect(fit.top).toBeGreaterThan(-280);
    expect(keeps(i, fit)).toBe(true);
  });

  it('1:1 → 16:9 with a tall product (a cap seen close): fitted smaller, the backdrop extended, never cropped', () => {
    const safe = { left: 100, top: 60, width: 1080, height: 600 };
    const i = input({ box: { left: 150, top: 250, width: 724, height: 600 }, safe });
    const fit = chooseFit(i);
    expect(fit.extended).toBe(true);
    expect(fit.scale).toBeLessThan(1.25);
    expect(keeps(i, fit)).toBe(true);
    // As large as the safe rect allows.
    expect(fit.scale * 600 + 40).toBeGreaterThan(600 - 2);
  });

  it('9:16 → 16:9: a picture narrower than the frame is centred, the backdrop extended on both sides', () => {
    const i = input({ source: { width: 576, height: 1024 }, box: { left: 150, top: 500, width: 300, height: 400 } });
    const fit = chooseFit(i);
    expect(fit.extended).toBe(true);
    expect(keeps(i, fit)).toBe(true);
    const width = 576 * fit.scale;
    expect(Math.abs(fit.left - (W - width) / 2)).toBeLessThanOrEqual(1);
  });

  it('does not keep a side the product is already cut at', () => {
    const i = input({ box: { left: 300, top: 500, width: 400, height: 524 }, touches: { bottom: true } });
    const fit = chooseFit(i);
    expect(fit.extended).toBe(false);
    expect(keeps(i, fit)).toBe(true);
  });

  it('always keeps the product inside, covering the frame or saying it extended it (property)', () => {
    const aspects = [
      [1, 1],
      [4, 3],
      [16, 9],
      [9, 16],
      [21, 9],
      [3, 4],
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...aspects),
        fc.constantFrom(...aspects),
        fc.record({ x: fc.double({ min: 0, max: 0.9, noNaN: true }), y: fc.double({ min: 0, max: 0.9, noNaN: true }) }),
        fc.record({
          w: fc.double({ min: 0.05, max: 1, noNaN: true }),
          h: fc.double({ min: 0.05, max: 1, noNaN: true }),
        }),
        fc.double({ min: 0.6, max: 1, noNaN: true }),
        ([sw, sh], [ow, oh], at, size, safeShare) => {
          const source = { width: sw * 96, height: sh * 96 };
          const out = { width: ow * 64, height: oh * 64 };
          const box = {
            left: at.x * source.width,
            top: at.y * source.height,
            width: Math.min(size.w, 1 - at.x) * source.width,
            height: Math.min(size.h, 1 - at.y) * source.height,
          };
          const safe = {
            left: (out.width * (1 - safeShare)) / 2,
            top: (out.height * (1 - safeShare)) / 2,
            width: out.width * safeShare,
            height: out.height * safeShare,
          };
          const i: FitInput = { source, out, box, safe, margin: 4 };
          const fit = chooseFit(i);
          expect(fit.scale).toBeLessThanOrEqual(Math.max(out.width / source.width, out.height / source.height) + 1e-9);
          expect(keeps(i, fit)).toBe(true);
          expect(fit.extended || covers(i, fit)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('frameMove', () => {
  const base = { out: { width: W, height: H }, margin: 20, depth: 1 };

  it('aims the push-in at the product and keeps the frame as it is when the product fits', () => {
    const box = { left: 700, top: 250, width: 200, height: 300 };
    const { plan, fit } = frameMove('push-in', { ...base, source: { width: W, height: H }, box });
    expect(fit).toEqual({ scale: 1, left: 0, top: 0, extended: false });
    const end = plan.keys.at(-1)!;
    expect(end.x * (1 + end.parallax)).toBeCloseTo((800 - 640) / W, 6);
  });

  it('a product that fills the frame: a gentler move before an extended backdrop', () => {
    const box = { left: 440, top: 110, width: 400, height: 520 };
    const source = { width: W, height: H };
    const { plan, fit } = frameMove('tilt-up', { ...base, source, box });
    expect(fit.extended).toBe(false);
    expect(Math.abs(plan.keys[1]!.y - plan.keys[0]!.y)).toBeLessThan(Math.abs(planCamera('tilt-up').keys[1]!.y * 2));
    // Too tall for any cover crop at 16:9 from 1:1: the full move, the backdrop extended.
    const tall = frameMove('tilt-up', {
      ...base,
      source: { width: 1024, height: 1024 },
      box: { left: 200, top: 100, width: 600, height: 880 },
    });
    expect(tall.fit.extended).toBe(true);
    expect(tall.plan.keys[1]!.y).toBe(planCamera('tilt-up', { focus: { x: 0, y: 0 } }).keys[1]!.y);
  });
});

describe('floor bands', () => {
  it('none without a horizon, or when the product does not stand below it', () => {
    expect(floorBands(undefined, 600, H, H)).toEqual([]);
    expect(floorBands(450, 460, H, H)).toEqual([]);
    expect(floorBands(700, 600, H, H)).toEqual([]);
  });

  it('a ground plane: depths a third apart, the band under the product at its depth, the last to the bottom', () => {
    const bands = floorBands(430, 630, H, H);
    expect(bands.map((b) => Number(b.depth.toFixed(3)))).toEqual([0.333, 0.667, 1, 1.333, 1.667]);
    expect(bands.at(-1)!.end).toBeUndefined();
    for (const b of bands.slice(0, -1)) expect(b.end).toBeGreaterThan(b.fadeBottom);
    // The product's base row is fully in the depth-1 band, past the next band's fade.
    const underProduct = bands.find((b) => b.depth === 1)!;
    expect(bandAlpha(underProduct, 630)).toBe(1);
    expect(bandAlpha(bands[3]!, 630)).toBe(0);
    // The last one fades in over the frame's last rows.
    expect(bands.at(-1)!.fadeTop).toBeLessThan(H);
    // Each band fades in over the previous one, which it then covers.
    for (let k = 1; k < bands.length; k++) expect(bands[k]!.fadeTop).toBeLessThan(bands[k - 1]!.end!);
  });

  it('stops at twice the product’s depth', () => {
    const bands = floorBands(430, 470, H, H);
    expect(bands.at(-1)!.depth).toBe(2);
    expect(bands.length).toBe(6);
  });

  it('alpha: 0 above the fade, rising smoothly, 1 below it, 0 past the end', () => {
    const band = { depth: 1, fadeTop: 100, fadeBottom: 120, end: 200 };
    expect(bandAlpha(band, 90)).toBe(0);
    expect(bandAlpha(band, 110)).toBeCloseTo(0.5, 6);
    expect(bandAlpha(band, 105)).toBeLessThan(0.25);
    expect(bandAlpha(band, 150)).toBe(1);
    expect(bandAlpha(band, 200)).toBe(0);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  driftTarget,
  eraseHole,
  FIDELITY_THRESHOLD,
  fallbackBox,
  holeFromAlpha,
  locateProduct,
  type RawImage,
  replacementBox,
  resampleArea,
  salientObject,
  withProductFidelity,
} from './fidelity.ts';
import { type Cutout, cutOutProduct } from './local/cutout.ts';
import type { PlacedBox, SceneEngine, SceneRequest, SceneResult } from './scene-engine.ts';

const FIXTURES = '/work/shared/fixtures/product-images';
const S = 640;
const SLOW = 60_000;

const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, `${name}.png`));

/** A studio backdrop: a warm grey wall with a vertical gradient, a floor from 62 %, mild noise. */
function studio(width = S, height = S, seed = 1): Buffer {
  const buf = Buffer.alloc(width * height * 3);
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 4294967296;
  };
  for (let y = 0; y < height; y++) {
    const floor = y > height * 0.62;
    const base = floor
      ? [200 - (y / height) * 20, 194 - (y / height) * 20, 186]
      : [236 - (y / height) * 30, 230 - (y / height) * 28, 220];
    for (let x = 0; x < width; x++) {
      const n = (rnd() - 0.5) * 6;
      const o = (y * width + x) * 3;
      buf[o] = base[0]! + n;
      buf[o + 1] = base[1]! + n;
      buf[o + 2] = base[2]! + n;
    }
  }
  return buf;
}

const cutoutPng = (c: { rgba: Buffer; width: number; height: number }) =>
  sharp(c.rgba, { raw: { width: c.width, height: c.height, channels: 4 } })
    .png()
    .toBuffer();

/** The "provider output": `product` (PNG with alpha) drawn at `box` over the backdrop. */
async function drawn(products: { png: Buffer; box: PlacedBox }[], backdrop = studio()): Promise<Buffer> {
  const layers = await Promise.all(
    products.map(async ({ png, box }) => ({
      input: await sharp(png).resize(box.width, box.height, { fit: 'fill' }).png().toBuffer(),
      left: box.left,
      top: box.top,
    })),
  );
  return sharp(backdrop, { raw: { width: S, height: S, channels: 3 } })
    .composite(layers)
    .png()
    .toBuffer();
}

async function raw(png: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

const asRaw = (c: Cutout): RawImage => ({ data: c.rgba, width: c.width, height: c.height, channels: 4 });

/** The logo painted out: the product's bright, low-chroma pixels take its median colour. */
function paintOutLogo(c: Cutout): Buffer {
  const out = Buffer.from(c.rgba);
  const n = c.width * c.height;
  const solid: number[] = [];
  for (let i = 0; i < n; i += 5) if (out[i * 4 + 3]! > 200) solid.push(i);
  const luma = (i: number) => 0.2126 * out[i * 4]! + 0.7152 * out[i * 4 + 1]! + 0.0722 * out[i * 4 + 2]!;
  solid.sort((a, b) => luma(a) - luma(b));
  const m = solid[solid.length >> 1]!;
  for (let i = 0; i < n; i++) {
    const [r, g, b] = [out[i * 4]!, out[i * 4 + 1]!, out[i * 4 + 2]!];
    if (out[i * 4 + 3]! >= 128 && Math.min(r, g, b) > 150 && Math.max(r, g, b) - Math.min(r, g, b) < 60) {
      out[i * 4] = out[m * 4]!;
      out[i * 4 + 1] = out[m * 4 + 1]!;
      out[i * 4 + 2] = out[m * 4 + 2]!;
    }
  }
  return out;
}

/** A plain SceneEngine returning `png` as a provider would (whole-frame boxes, placement unknown). */
function fakeProvider(png: Buffer | (() => Promise<Buffer>)): SceneEngine & { calls: number } {
  const engine = {
    name: 'fake:model',
    calls: 0,
    async generate(req: SceneRequest): Promise<SceneResult> {
      engine.calls++;
      const bytes = typeof png === 'function' ? await png() : png;
      return {
        png: bytes,
        width: req.width,
        height: req.height,
        productBoxes: req.products.map(() => ({ left: 0, top: 0, width: req.width, height: req.height })),
        warnings: [
          ...(req.products.length > 0
            ? [
                {
                  code: 'PRODUCT_PLACEMENT_UNKNOWN',
                  severity: 'info' as const,
                  message: 'The provider does not report where the product is; its box is the whole image',
                },
              ]
            : []),
          { code: 'SEED_NOT_SUPPORTED', severity: 'info' as const, message: 'no seed' },
        ],
        engine: 'fake:model',
      };
    },
  };
  return engine;
}

const request = (products: Buffer[], signal?: AbortSignal): SceneRequest => ({
  prompt: 'a product on a studio sweep',
  aspectRatio: '1:1',
  width: S,
  height: S,
  variationIndex: 0,
  seed: 11,
  products: products.map((bytes) => ({ bytes })),
  palette: [],
  ...(signal ? { signal } : {}),
});

/** Within `tol` of the size (fraction) on every edge. */
function expectNear(found: PlacedBox, truth: PlacedBox, tol = 0.03) {
  const t = Math.max(truth.width, truth.height) * tol + 2;
  expect(Math.abs(found.left - truth.left)).toBeLessThanOrEqual(t);
  expect(Math.abs(found.top - truth.top)).toBeLessThanOrEqual(t);
  expect(Math.abs(found.left + found.width - (truth.left + truth.width))).toBeLessThanOrEqual(t);
  expect(Math.abs(found.top + found.height - (truth.top + truth.height))).toBeLessThanOrEqual(t);
}

const codes = (r: SceneResult) => r.warnings.map((w) => w.code);

let mug: Cutout;
let cap: Cutout;
let hat: Cutout;
let mugPng: Buffer;
let capPng: Buffer;
const mugBytes = fixture('solidus_mug_set');
const capBytes = fixture('solidus_cap_red_1');
/** Boxes with the cut-outs' own aspect. */
let mugBox: PlacedBox;
let capBox: PlacedBox;

beforeAll(async () => {
  [mug, cap, hat] = await Promise.all([
    cutOutProduct(mugBytes, { maxSide: 800 }),
    cutOutProduct(capBytes, { maxSide: 800 }),
    cutOutProduct(fixture('solidus_hat'), { maxSide: 800 }),
  ]);
  [mugPng, capPng] = await Promise.all([cutoutPng(mug), cutoutPng(cap)]);
  const mh = 300;
  mugBox = { left: 150, top: 570 - mh, width: Math.round((mh * mug.width) / mug.height), height: mh };
  const cw = 330;
  capBox = { left: 260, top: 0, width: cw, height: Math.round((cw * cap.height) / cap.width) };
  capBox.top = 560 - capBox.height;
}, SLOW);

describe('resampleArea', () => {
  it('averages areas, over a rectangle, any channel count', () => {
    const img: RawImage = { data: [0, 10, 20, 30, 40, 50, 60, 70], width: 4, height: 2, channels: 1 };
    expect([...resampleArea(img, 2, 1)]).toEqual([25, 45]);
    expect([...resampleArea(img, 1, 1, { left: 1, top: 0, width: 2, height: 2 })]).toEqual([35]);
    const rgb: RawImage = { data: [255, 0, 0, 0, 0, 255], width: 2, height: 1, channels: 3 };
    expect([...resampleArea(rgb, 1, 1)]).toEqual([127.5, 0, 127.5]);
  });
});

describe('locateProduct (pure search over raw pixels)', () => {
  it(
    'finds the product where it was drawn, within a few per cent, and calls it preserved',
    async () => {
      for (const [c, png, box] of [
        [mug, mugPng, mugBox],
        [cap, capPng, capBox],
      ] as const) {
        const image = await raw(await drawn([{ png, box }]));
        const m = locateProduct(image, asRaw(c));
        expectNear(m.box, box);
        expect(m.similarity).toBeGreaterThanOrEqual(FIDELITY_THRESHOLD);
        expect(m.shape).toBeGreaterThan(0.6);
      }
    },
    SLOW,
  );

  it(
    'forgives relighting and softness: darker, warmer, blurred, turned 2°',
    async () => {
      const variant = await sharp(mugPng)
        .linear([0.85 * 1.05, 0.85, 0.85 * 0.92], [0, 0, 0])
        .blur(1.2)
        .rotate(2, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .png()
        .toBuffer();
      const meta = await sharp(variant).metadata();
      const box = {
        ...mugBox,
        width: Math.round((mugBox.width * meta.width!) / mug.width),
        height: Math.round((mugBox.height * meta.height!) / mug.height),
      };
      const m = locateProduct(await raw(await drawn([{ png: variant, box }])), asRaw(mug));
      expect(m.similarity).toBeGreaterThanOrEqual(FIDELITY_THRESHOLD);
      expectNear(m.box, mugBox, 0.06);
    },
    SLOW,
  );

  it(
    'locates a drifted product (colours shifted, logo painted out) but scores it under the threshold',
    async () => {
      const hue = await sharp(capPng).modulate({ hue: 140 }).png().toBuffer();
      const noLogo = await sharp(paintOutLogo(cap), { raw: { width: cap.width, height: cap.height, channels: 4 } })
        .png()
        .toBuffer();
      for (const png of [hue, noLogo]) {
        const m = locateProduct(await raw(await drawn([{ png, box: capBox }])), asRaw(cap));
        expect(m.similarity).toBeLessThan(FIDELITY_THRESHOLD);
        expect(m.shape).toBeGreaterThanOrEqual(0.5);
        expectNear(m.box, capBox, 0.05);
      }
    },
    SLOW,
  );

  it(
    'another product drawn instead: low similarity and weak form evidence',
    async () => {
      const other = await cutoutPng(hat);
      const box = { ...capBox, width: Math.round((capBox.height * hat.width) / hat.height) };
      const m = locateProduct(await raw(await drawn([{ png: other, box }])), asRaw(cap));
      expect(m.similarity).toBeLessThan(0.5);
      expect(m.shape).toBeLessThan(0.5);
    },
    SLOW,
  );

  it(
    'skips boxes already taken by another product',
    async () => {
      const image = await raw(await drawn([{ png: mugPng, box: mugBox }]));
      const m = locateProduct(image, asRaw(mug), { exclude: [mugBox] });
      const ix =
        Math.max(
          0,
          Math.min(m.box.left + m.box.width, mugBox.left + mugBox.width) - Math.max(m.box.left, mugBox.left),
        ) *
        Math.max(0, Math.min(m.box.top + m.box.height, mugBox.top + mugBox.height) - Math.max(m.box.top, mugBox.top));
      expect(ix / (m.box.width * m.box.height + mugBox.width * mugBox.height - ix)).toBeLessThanOrEqual(0.5);
      expect(m.similarity).toBeLessThan(FIDELITY_THRESHOLD);
    },
    SLOW,
  );
});

describe('placement pieces', () => {
  it('replacementBox keeps the product aspect, enlarges about the base, stays in the frame', () => {
    const b = replacementBox({ left: 100, top: 200, width: 100, height: 200 }, 0.5, 1.1, 640, 640);
    expect(b.height).toBe(220);
    expect(b.width).toBe(110);
    expect(b.left + b.width / 2).toBeCloseTo(150, 0);
    expect(b.top + b.height).toBeGreaterThanOrEqual(400);
    expect(b.top + b.height).toBeLessThanOrEqual(404);
    const wide = replacementBox({ left: 0, top: 0, width: 600, height: 600 }, 3, 1.08, 640, 640);
    expect(wide.left).toBeGreaterThanOrEqual(0);
    expect(wide.left + wide.width).toBeLessThanOrEqual(640);
  });

  it('fallbackBox is centred on the lower part of the frame', () => {
    const b = fallbackBox(0.8, 640, 480);
    expect(b.left + b.width / 2).toBeCloseTo(320, 0);
    expect(b.top + b.height).toBe(432);
    expect(b.top).toBeGreaterThan(480 * 0.3);
  });

  it('driftTarget: a plausible match, else the salient object, else nothing known', () => {
    const box = { left: 100, top: 100, width: 200, height: 200 };
    expect(driftTarget(true, undefined)).toBe('match');
    expect(driftTarget(true, box)).toBe('match');
    expect(driftTarget(false, box)).toBe('salient');
    expect(driftTarget(false, undefined)).toBe('none');
  });

  it(
    'salientObject finds the object on a studio backdrop, and nothing on an empty one',
    async () => {
      const small = async (png: Buffer) => {
        const { data } = await sharp(png).resize(160, 160).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        return new Uint8Array(data);
      };
      const s = salientObject(await small(await drawn([{ png: capPng, box: capBox }])), 160, 160);
      expect(s).toBeDefined();
      expectNear(
        { left: s!.box.left * 4, top: s!.box.top * 4, width: s!.box.width * 4, height: s!.box.height * 4 },
        capBox,
        0.06,
      );
      expect(salientObject(await small(await drawn([])), 160, 160)).toBeUndefined();
    },
    SLOW,
  );

  it('eraseHole fills an object from its surroundings and leaves the rest alone', () => {
    const W = 200;
    const H = 200;
    const rgb = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const o = (y * W + x) * 3;
        rgb[o] = 120 + y * 0.4;
        rgb[o + 1] = 130;
        rgb[o + 2] = 140;
      }
    }
    const before = Uint8Array.from(rgb);
    const alpha = new Uint8Array(40 * 40).fill(255);
    for (let y = 80; y < 120; y++) for (let x = 80; x < 120; x++) rgb.set([230, 20, 20], (y * W + x) * 3);
    const box = { left: 80, top: 80, width: 40, height: 40 };
    const hole = holeFromAlpha(alpha, 40, 40, { left: 0, top: 0, width: 40, height: 40 }, box, 3, W, H);
    eraseHole(rgb, W, H, hole, 0, 1);
    let worst = 0;
    for (let i = 0; i < rgb.length; i++) worst = Math.max(worst, Math.abs(rgb[i]! - before[i]!));
    expect(worst).toBeLessThan(12);
    // Far from the hole: untouched.
    expect(rgb[(10 * W + 10) * 3]).toBe(before[(10 * W + 10) * 3]);
  });
});

describe('withProductFidelity', () => {
  it('returns the provider result unchanged when the request has no products', async () => {
    const png = await drawn([]);
    const provider = fakeProvider(png);
    const engine = withProductFidelity(provider);
    expect(engine.name).toBe('fake:model+fidelity');
    expect(withProductFidelity(provider, { name: 'kept' }).name).toBe('kept');
    const inner = await provider.generate(request([]));
    const r = await engine.generate(request([]));
    expect(r).toEqual(inner);
    expect(r.png).toBe(png);
  });

  it(
    'a preserved product: the image as generated, its real box and mask, a similarity note',
    async () => {
      const png = await drawn([{ png: mugPng, box: mugBox }]);
      const engine = withProductFidelity(fakeProvider(png));
      const r = await engine.generate(request([mugBytes]));
      expect(r.png).toBe(png);
      expect(r.engine).toBe('fake:model+fidelity');
      expect(codes(r)).not.toContain('PRODUCT_PLACEMENT_UNKNOWN');
      expect(codes(r)).not.toContain('PRODUCT_RECOMPOSITED');
      expect(codes(r)).toContain('SEED_NOT_SUPPORTED');
      const note = r.warnings.find((w) => w.code === 'PRODUCT_FIDELITY_CHECKED')!;
      expect(note.severity).toBe('info');
      expect(note.message).toMatch(/^Product 1 .*\(similarity 0\.\d\d\)\.$/);
      expectNear(r.productBoxes[0]!, mugBox);
      const mask = r.productMask!;
      expect(mask.length).toBe(S * S);
      const at = (x: number, y: number) => mask[y * S + x]!;
      // Inside the body of the red mug, and well outside the box.
      expect(at(mugBox.left + Math.round(mugBox.width * 0.6), mugBox.top + Math.round(mugBox.height * 0.25))).toBe(255);
      expect(at(20, 20)).toBe(0);
      expect(at(mugBox.left + mugBox.width + 30, mugBox.top + 10)).toBe(0);
    },
    SLOW,
  );

  it(
    'two preserved products are both found, each in its own place',
    async () => {
      const mugAt = { ...mugBox, left: 40, top: 560 - mugBox.height };
      const capAt = { ...capBox, left: 300 };
      const png = await drawn([
        { png: mugPng, box: mugAt },
        { png: capPng, box: capAt },
      ]);
      const r = await withProductFidelity(fakeProvider(png)).generate(request([mugBytes, capBytes]));
      expect(r.png).toBe(png);
      expect(codes(r).filter((c) => c === 'PRODUCT_FIDELITY_CHECKED')).toHaveLength(2);
      expectNear(r.productBoxes[0]!, mugAt);
      expectNear(r.productBoxes[1]!, capAt);
    },
    SLOW,
  );

  it(
    'a drifted product (colours, logo, another product) is replaced by the real one, which then matches',
    async () => {
      const cases: { name: string; png: Buffer; box: PlacedBox }[] = [
        { name: 'hue', png: await sharp(capPng).modulate({ hue: 140 }).png().toBuffer(), box: capBox },
        {
          name: 'logo',
          png: await sharp(paintOutLogo(cap), { raw: { width: cap.width, height: cap.height, channels: 4 } })
            .png()
            .toBuffer(),
          box: capBox,
        },
        {
          name: 'other',
          png: await cutoutPng(hat),
          box: {
            left: capBox.left + 40,
            top: capBox.top - 60,
            width: Math.round(((capBox.height + 60) * hat.width) / hat.height),
            height: capBox.height + 60,
          },
        },
      ];
      let current: Buffer = Buffer.alloc(0);
      const engine = withProductFidelity(fakeProvider(async () => current));
      for (const c of cases) {
        current = await drawn([{ png: c.png, box: c.box }]);
        const r = await engine.generate(request([capBytes]));
        expect(r.png, c.name).not.toBe(current);
        expect([r.width, r.height]).toEqual([S, S]);
        const w = r.warnings.find((x) => x.code === 'PRODUCT_RECOMPOSITED');
        expect(w, c.name).toBeDefined();
        expect(w!.severity).toBe('warning');
        expect(w!.message).toMatch(
          /^Product 1 changed in the generated image \(similarity 0\.\d\d\); the real product was composited in its place\.$/,
        );
        expect(codes(r)).not.toContain('PRODUCT_PLACEMENT_UNKNOWN');
        expect(codes(r)).not.toContain('PRODUCT_FIDELITY_CHECKED');
        // Placed where the drifted product was (enlarged a little), and now the real product.
        const box = r.productBoxes[0]!;
        const cx = c.box.left + c.box.width / 2;
        expect(Math.abs(box.left + box.width / 2 - cx), c.name).toBeLessThan(c.box.width * 0.12);
        expect(Math.abs(box.top + box.height - (c.box.top + c.box.height)), c.name).toBeLessThan(c.box.height * 0.08);
        if (c.name !== 'other') {
          expect(box.width).toBeGreaterThanOrEqual(c.box.width);
          expect(box.width).toBeLessThanOrEqual(c.box.width * 1.15);
        }
        const after = locateProduct(await raw(r.png), asRaw(cap));
        expect(after.similarity, c.name).toBeGreaterThanOrEqual(FIDELITY_THRESHOLD);
        expectNear(after.box, box, 0.05);
        // The mask is the composited product.
        const mask = r.productMask!;
        expect(mask[(box.top + Math.round(box.height * 0.6)) * S + box.left + Math.round(box.width / 2)]).toBe(255);
        expect(mask[10 * S + 10]).toBe(0);
      }
    },
    SLOW,
  );

  it(
    'no plausible place and nothing salient: the product goes centred on the lower part of the frame',
    async () => {
      // A busy frame: stripes everywhere, no product.
      const stripes = Buffer.alloc(S * S * 3);
      for (let y = 0; y < S; y++) {
        for (let x = 0; x < S; x++)
          stripes.set(((x >> 4) + (y >> 5)) % 2 ? [40, 90, 160] : [220, 200, 60], (y * S + x) * 3);
      }
      const png = await sharp(stripes, { raw: { width: S, height: S, channels: 3 } })
        .png()
        .toBuffer();
      const r = await withProductFidelity(fakeProvider(png)).generate(request([capBytes]));
      const w = r.warnings.find((x) => x.code === 'PRODUCT_RECOMPOSITED')!;
      expect(w.message).toMatch(/not found in the generated image .*composited at the centre/);
      const box = r.productBoxes[0]!;
      expect(box.left + box.width / 2).toBeCloseTo(S / 2, -1);
      expect(box.top + box.height).toBeCloseTo(S * 0.9, -1);
    },
    SLOW,
  );

  it(
    'a product image that cannot be cut out leaves the provider result as it is, with a warning',
    async () => {
      const png = await drawn([{ png: mugPng, box: mugBox }]);
      const r = await withProductFidelity(fakeProvider(png)).generate(request([Buffer.from('not an image')]));
      expect(r.png).toBe(png);
      expect(codes(r)).toEqual(['PRODUCT_PLACEMENT_UNKNOWN', 'SEED_NOT_SUPPORTED', 'PRODUCT_FIDELITY_SKIPPED']);
      expect(r.engine).toBe('fake:model');
    },
    SLOW,
  );

  it('provider failures and cancellation propagate', async () => {
    const failing: SceneEngine = { name: 'x', generate: () => Promise.reject(new Error('quota')) };
    await expect(withProductFidelity(failing).generate(request([mugBytes]))).rejects.toThrow('quota');
    const ctl = new AbortController();
    const provider = fakeProvider(async () => {
      ctl.abort();
      return drawn([{ png: mugPng, box: mugBox }]);
    });
    await expect(withProductFidelity(provider).generate(request([mugBytes], ctl.signal))).rejects.toThrow(/cancelled/);
  });
});

import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASPECT_RATIOS, GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { createLocalSceneEngine } from './local-scene-engine.ts';

const LONG = 320;

/** A product with a transparent background: a striped bottle (texture to correlate against). */
async function bottle(): Promise<Buffer> {
  const stripes = Array.from(
    { length: 8 },
    (_, i) => `<rect x="60" y="${70 + i * 30}" width="120" height="15" fill="${i % 2 ? '#f5c400' : '#0b5cad'}"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="360">
    <rect x="60" y="60" width="120" height="280" rx="20" fill="#c8102e"/>${stripes}
    <rect x="90" y="20" width="60" height="44" rx="6" fill="#222"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A wide product on an opaque white background (the matte path). */
async function box(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="260">
    <rect width="400" height="260" fill="#ffffff"/>
    <rect x="50" y="60" width="300" height="150" fill="#2a7d4f"/>
    <circle cx="200" cy="135" r="45" fill="#ffd23f"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer();
}

let products: { bottle: Buffer; box: Buffer };
beforeAll(async () => {
  products = { bottle: await bottle(), box: await box() };
});

function request(over: Partial<SceneRequest> = {}): SceneRequest {
  const aspectRatio = over.aspectRatio ?? '1:1';
  const { width, height } = outputSize(aspectRatio, LONG);
  return {
    prompt: 'studio shot',
    aspectRatio,
    width,
    height,
    variationIndex: 0,
    seed: 7,
    products: [{ bytes: products.bottle }],
    palette: ['#0b5cad'],
    ...over,
  };
}

async function raw(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Pearson correlation of luma between the output inside `box` and the product resized into it. */
async function correlation(
  png: Buffer,
  product: Buffer,
  b: { left: number; top: number; width: number; height: number },
) {
  const out = await raw(png);
  const trimmed = await sharp(product)
    .trim({ background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  const ref = await sharp(trimmed).resize(b.width, b.height, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < b.height; y++) {
    for (let x = 0; x < b.width; x++) {
      const i = y * b.width + x;
      if (ref[i * 4 + 3]! < 250) continue;
      const o = ((b.top + y) * out.width + b.left + x) * 3;
      xs.push(0.2126 * out.data[o]! + 0.7152 * out.data[o + 1]! + 0.0722 * out.data[o + 2]!);
      ys.push(0.2126 * ref[i * 4]! + 0.7152 * ref[i * 4 + 1]! + 0.0722 * ref[i * 4 + 2]!);
    }
  }
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe('local scene engine', () => {
  const engine = createLocalSceneEngine({ longSide: LONG });

  it('is named local', () => {
    expect(engine.name).toBe('local');
  });

  it.each(ASPECT_RATIOS)('outputs exactly the size asked for at %s', async (aspectRatio) => {
    const req = request({ aspectRatio, variationIndex: ASPECT_RATIOS.indexOf(aspectRatio) % 4 });
    const res = await engine.generate(req);
    expect(res.engine).toBe('local');
    expect([res.width, res.height]).toEqual([req.width, req.height]);
    const meta = await sharp(res.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', req.width, req.height]);
    expect(res.productMask).toHaveLength(req.width * req.height);
    expect(res.productBoxes).toHaveLength(1);
    const b = res.productBoxes[0]!;
    expect(b.left).toBeGreaterThanOrEqual(0);
    expect(b.top).toBeGreaterThanOrEqual(0);
    expect(b.left + b.width).toBeLessThanOrEqual(req.width);
    expect(b.top + b.height).toBeLessThanOrEqual(req.height);
  });

  it('is deterministic for the same request and seed', async () => {
    const a = await createLocalSceneEngine({ longSide: LONG }).generate(request({ variationIndex: 2 }));
    const b = await createLocalSceneEngine({ longSide: LONG }).generate(request({ variationIndex: 2 }));
    expect(a.png.equals(b.png)).toBe(true);
    expect(a.productMask!.equals(b.productMask!)).toBe(true);
    const c = await engine.generate(request({ variationIndex: 2, seed: 8 }));
    expect(c.png.equals(a.png)).toBe(false);
  });

  it('shows the product itself inside its box, and its mask there', async () => {
    for (let v = 0; v < 4; v++) {
      const res = await engine.generate(request({ variationIndex: v }));
      const b = res.productBoxes[0]!;
      expect(await correlation(res.png, products.bottle, b)).toBeGreaterThan(0.9);
      // The mask is opaque at the product's centre and empty in the corners.
      const mask = res.productMask!;
      const cx = Math.round(b.left + b.width / 2);
      const cy = Math.round(b.top + b.height / 2);
      expect(mask[cy * res.width + cx]).toBeGreaterThan(240);
      expect(mask[0]).toBe(0);
      expect(mask[res.width * res.height - 1]).toBe(0);
    }
  });

  it('places several products, boxes in request order, and the four variations differ', async () => {
    const req = request({ products: [{ bytes: products.bottle }, { bytes: products.box }], aspectRatio: '16:9' });
    const results = await Promise.all([0, 1, 2, 3].map((v) => engine.generate({ ...req, variationIndex: v })));
    for (const res of results) {
      const [first, second] = res.productBoxes;
      expect(first!.width / first!.height).toBeLessThan(1); // the bottle
      expect(second!.width / second!.height).toBeGreaterThan(1.5); // the box
      expect(await correlation(res.png, products.bottle, first!)).toBeGreaterThan(0.85);
    }
    const heroes = results.map((r) => r.productBoxes[0]!);
    expect(new Set(heroes.map((h) => `${h.left},${h.top},${h.width}`)).size).toBe(4);
  });

  it('cover-crops a backdrop of another size to the exact output, and follows its hints', async () => {
    const backdrop = await sharp({ create: { width: 900, height: 300, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const req = request({ aspectRatio: '3:4', backdrop, backdropHints: { horizon: 0.7, lightAngle: 20 } });
    const res = await engine.generate(req);
    const out = await raw(res.png);
    expect([out.width, out.height]).toEqual([req.width, req.height]);
    // The top-left corner is the backdrop's colour (grain aside).
    expect(Math.abs(out.data[0]! - 0x33)).toBeLessThan(12);
    expect(Math.abs(out.data[2]! - 0x99)).toBeLessThan(12);
    const b = res.productBoxes[0]!;
    expect(b.top + b.height).toBeGreaterThan(0.7 * req.height);
  });

  it("crops a set photo that came as it is as the variation's shot; a set built for the shot is kept whole", async () => {
    // Left to right and top to bottom gradients: where the frame was cut from shows in a corner.
    const { width, height } = outputSize('1:1', LONG);
    const photo = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) photo.set([(x * 255) / width, (y * 255) / height, 128], (y * width + x) * 3);
    }
    const backdrop = await sharp(photo, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
    const corner = async (variationIndex: number, hinted: boolean) => {
      const res = await engine.generate(
        request({
          variationIndex,
          backdrop,
          ...(hinted ? { backdropHints: { horizon: 0.6, lightAngle: 120 } } : {}),
        }),
      );
      const out = await raw(res.png);
      return [out.data[0]!, out.data[1]!];
    };
    const whole = await corner(0, false);
    expect(whole[0]).toBeLessThan(8);
    const high = await corner(1, false); // zoomed in toward the bottom left
    expect(high[1]! - whole[1]!).toBeGreaterThan(20);
    const hinted = await corner(1, true); // kept whole: the photo's own corner, black in red and green
    expect(Math.max(hinted[0]!, hinted[1]!)).toBeLessThan(8);
  });

  it('puts a set photo that came as it is out of focus behind the product; a set built for the shot stays sharp', async () => {
    // Fine stripes on the wall (the top quarter, far from the product): how much of them is left.
    const { width, height } = outputSize('1:1', LONG);
    const photo = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++)
        photo.fill(Math.floor(x / 3) % 2 ? 200 : 60, (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
    const backdrop = await sharp(photo, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
    const stripes = async (hinted: boolean) => {
      const res = await engine.generate(
        request({ backdrop, ...(hinted ? { backdropHints: { horizon: 0.6, lightAngle: 120 } } : {}) }),
      );
      const out = await raw(res.png);
      let contrast = 0;
      let n = 0;
      for (let y = 4; y < height / 4; y += 4) {
        for (let x = 1; x < width - 1; x++) {
          const i = (y * width + x) * 3;
          contrast += Math.abs(out.data[i]! - out.data[i + 3]!);
          n++;
        }
      }
      return contrast / n;
    };
    const sharpSet = await stripes(true);
    expect(sharpSet).toBeGreaterThan(35); // a 140-level step every third pixel: 47
    expect(await stripes(false)).toBeLessThan(sharpSet / 3);
  });

  it('stands the product in the near foreground of a photo that came as it is, on the set floor of one built for it', async () => {
    const { width, height } = outputSize('1:1', LONG);
    const backdrop = await sharp({ create: { width, height, channels: 3, background: '#7a9a5a' } })
      .png()
      .toBuffer();
    const bottom = async (variationIndex: number, hinted: boolean) => {
      const res = await engine.generate(
        request({ backdrop, variationIndex, ...(hinted ? { backdropHints: { horizon: 0.6, lightAngle: 120 } } : {}) }),
      );
      const b = res.productBoxes[0]!;
      return (b.top + b.height) / height;
    };
    for (const v of [0, 1, 2, 3]) expect(await bottom(v, false)).toBeGreaterThanOrEqual(0.88);
    expect(await bottom(1, true)).toBeLessThan(0.86);
  });

  it('falls back to its own backdrop with a warning when the backdrop cannot be read', async () => {
    const res = await engine.generate(request({ backdrop: Buffer.from('nope') }));
    expect(res.warnings.map((w) => w.code)).toContain('BACKDROP_UNREADABLE');
    expect((await sharp(res.png).metadata()).width).toBe(LONG);
  });

  it('rejects absurd sizes, product counts and unreadable products with GenerationError', async () => {
    for (const [width, height] of [
      [0, 100],
      [100.5, 100],
      [100000, 100],
      [8000, 8000],
    ] as const) {
      await expect(engine.generate({ ...request(), width, height })).rejects.toBeInstanceOf(GenerationError);
    }
    const six = Array.from({ length: 6 }, () => ({ bytes: products.bottle }));
    await expect(engine.generate(request({ products: six }))).rejects.toBeInstanceOf(GenerationError);
    await expect(engine.generate(request({ products: [{ bytes: Buffer.from('x') }] }))).rejects.toBeInstanceOf(
      GenerationError,
    );
  });

  it('renders the set alone, exactly sized, when no product is given', async () => {
    const res = await engine.generate({ ...request({ products: [] }), width: 320, height: 180 });
    expect([res.width, res.height, res.productBoxes, res.productMask]).toEqual([320, 180, [], undefined]);
    expect(res.warnings.map((w) => w.code)).toEqual(['NO_PRODUCT']);
    const meta = await sharp(res.png).metadata();
    expect([meta.width, meta.height]).toEqual([320, 180]);
    const { channels } = await sharp(res.png).stats();
    expect(channels[0]!.stdev).toBeGreaterThan(1); // a lit set, not a flat fill
  });

  it('stops when the request is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await engine.generate(request({ signal: controller.signal })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GenerationError);
    expect((err as GenerationError).retryable).toBe(true);
  });
});

import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createLocalSceneEngine } from './local-scene-engine.ts';
import { productLayer } from './layers.ts';

/** over(layer, plate) per pixel, rounded. */
function over(layer: Uint8Array, plate: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = (layer[i * 4 + 3] as number) / 255;
    for (let c = 0; c < 3; c++) {
      out[i * 3 + c] = Math.round((layer[i * 4 + c] as number) * a + (plate[i * 3 + c] as number) * (1 - a));
    }
  }
  return out;
}

const maxDiff = (a: Uint8Array, b: Uint8Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - (b[i] as number))), 0);

describe('productLayer', () => {
  it('gives the scene back over the plate (up to rounding), for any scene, plate and mask', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 3 * 64, maxLength: 3 * 64 }),
        fc.uint8Array({ minLength: 3 * 64, maxLength: 3 * 64 }),
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        (rgb, plate, mask) => {
          const layer = productLayer(rgb, plate, mask, 8, 8);
          expect(maxDiff(over(layer, plate, 64), rgb)).toBeLessThanOrEqual(1);
          // Inside the products the layer is at least as opaque as the mask.
          for (let i = 0; i < 64; i++) expect(layer[i * 4 + 3]).toBeGreaterThanOrEqual(mask[i] as number);
        },
      ),
    );
  });

  it('is clear where nothing was added; a shadow is a dark translucent pixel', () => {
    const plate = Uint8Array.from([200, 180, 160, 200, 180, 160, 200, 180, 160]);
    const rgb = Uint8Array.from([200, 180, 160, 100, 90, 80, 10, 200, 30]);
    const mask = Uint8Array.from([0, 0, 255]);
    const layer = productLayer(rgb, plate, mask, 3, 1);
    expect([...layer.subarray(0, 4)]).toEqual([0, 0, 0, 0]);
    // Half as bright: alpha ~0.5, colour black.
    expect(layer[7]).toBeGreaterThanOrEqual(127);
    expect(layer[7]).toBeLessThanOrEqual(129);
    expect(Math.max(layer[4]!, layer[5]!, layer[6]!)).toBeLessThanOrEqual(2);
    expect([...layer.subarray(8, 12)]).toEqual([10, 200, 30, 255]);
  });

  it('refuses buffers of the wrong size', () => {
    expect(() => productLayer(new Uint8Array(9), new Uint8Array(9), new Uint8Array(2), 3, 1)).toThrow(RangeError);
  });
});

describe('the local scene engine returns its layers', () => {
  it('a clean plate without the product, and a product layer with its shadow that gives the scene back', async () => {
    const product = await sharp({
      create: { width: 120, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        {
          input: Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="200"><rect x="20" y="10" width="80" height="180" rx="12" fill="#1f5fa8"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    const W = 320;
    const H = 240;
    const r = await createLocalSceneEngine().generate({
      prompt: 'a bottle on a table',
      aspectRatio: '4:3',
      width: W,
      height: H,
      variationIndex: 0,
      seed: 3,
      products: [{ bytes: product }],
      palette: [],
    });
    expect(r.layers).toBeDefined();
    const { plate, product: layer, horizon } = r.layers!;
    expect(horizon).toBeGreaterThan(0.2);
    expect(horizon).toBeLessThan(0.95);
    const scene = await sharp(r.png).raw().toBuffer();
    const p = await sharp(plate).raw().toBuffer({ resolveWithObject: true });
    const l = await sharp(layer).raw().toBuffer({ resolveWithObject: true });
    expect([p.info.width, p.info.height, p.info.channels]).toEqual([W, H, 3]);
    expect([l.info.width, l.info.height, l.info.channels]).toEqual([W, H, 4]);
    expect(maxDiff(over(l.data, p.data, W * H), scene)).toBeLessThanOrEqual(1);
    // The plate has no product: no blue where the product stands.
    const box = r.productBoxes[0]!;
    const cx = Math.round(box.left + box.width / 2);
    const cy = Math.round(box.top + box.height / 2);
    const at = (buf: Buffer, ch: number) => [...buf.subarray((cy * W + cx) * ch, (cy * W + cx) * ch + 3)];
    expect(at(scene, 3)[2]! - at(scene, 3)[0]!).toBeGreaterThan(80);
    expect(Math.abs(at(p.data, 3)[2]! - at(p.data, 3)[0]!)).toBeLessThan(60);
    // The shadow is in the product layer: translucent pixels just below the product's base.
    let shadow = 0;
    const base = box.top + box.height;
    for (let y = base; y < Math.min(H, base + 6); y++) {
      for (let x = box.left; x < box.left + box.width; x++) {
        const a = l.data[(y * W + x) * 4 + 3]!;
        if (a > 10 && a < 250) shadow++;
      }
    }
    expect(shadow).toBeGreaterThan(box.width);
  });
});

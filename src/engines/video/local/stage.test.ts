import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { bareProductReason, plainBorder, stageBareProduct, stagePlacement } from './stage.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../../shared/fixtures/product-images');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

describe('staging a bare product photo as a start frame', () => {
  it('knows a cut-out, a packshot on a plain background, and a scene apart', async () => {
    expect(await bareProductReason(fixture('solidus_bottles_1.png'))).toBe('transparent');
    const onWhite = await sharp(fixture('solidus_cap_red_1.png')).flatten({ background: '#ffffff' }).png().toBuffer();
    expect(await bareProductReason(onWhite)).toBe('plain-background');
    const scene = await sharp({
      create: { width: 200, height: 120, channels: 3, background: '#8a7a66' },
    })
      .composite([
        {
          input: Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120"><rect y="70" width="200" height="50" fill="#3b5a40"/><circle cx="20" cy="20" r="30" fill="#e8d9a0"/><rect x="150" y="0" width="50" height="120" fill="#20303f"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    expect(await bareProductReason(scene)).toBeUndefined();
  });

  it('a plain border is one flat colour (pure)', () => {
    const flat = new Uint8Array(10 * 10 * 4).fill(250);
    expect(plainBorder(flat, 10, 10, 2)).toBe(true);
    for (let i = 0; i < 100; i += 3) flat.set([(i * 37) % 255, (i * 91) % 255, (i * 13) % 255], i * 4);
    expect(plainBorder(flat, 10, 10, 2)).toBe(false);
  });

  it.each([
    [1280, 720],
    [720, 1280],
    [1080, 1080],
    [2520, 1080],
  ])('fits the product whole inside %i×%i, standing low, with margins', (w, h) => {
    for (const [pw, ph] of [
      [1360, 1190],
      [400, 1300],
      [1600, 300],
    ] as const) {
      const p = stagePlacement(pw, ph, w, h);
      expect(p.left).toBeGreaterThanOrEqual(0);
      expect(p.top).toBeGreaterThanOrEqual(0);
      expect(p.left + p.width).toBeLessThanOrEqual(w);
      expect(p.top + p.height).toBeLessThanOrEqual(h);
      expect(Math.abs(p.width / p.height - pw / ph)).toBeLessThan(0.02 * (pw / ph) + 0.01);
    }
  });

  it('puts the bottles whole on a light studio sweep at 16:9, as a set and a product layer', async () => {
    const staged = await stageBareProduct(fixture('solidus_bottles_1.png'), 640, 360);
    expect(staged?.reason).toBe('transparent');
    const { data, info } = await sharp(staged!.png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([640, 360, 3]);
    // No black where the photo was transparent: every corner of the set is light.
    for (const [x, y] of [
      [5, 5],
      [634, 5],
      [5, 354],
      [634, 354],
    ] as const) {
      const i = (y * 640 + x) * 3;
      expect((data[i]! + data[i + 1]! + data[i + 2]!) / 3).toBeGreaterThan(150);
    }
    // The product is whole: its layer never reaches the frame's edges; the set has no product.
    const layer = await sharp(staged!.layers.product).raw().toBuffer({ resolveWithObject: true });
    expect([layer.info.width, layer.info.height, layer.info.channels]).toEqual([640, 360, 4]);
    let top = 360;
    for (let i = 0; i < 640 * 360; i++) if (layer.data[i * 4 + 3]! > 128) top = Math.min(top, Math.floor(i / 640));
    expect(top).toBeGreaterThan(10);
    for (let y = 0; y < 360; y++) {
      expect(layer.data[y * 640 * 4 + 3]).toBe(0);
      expect(layer.data[(y * 640 + 639) * 4 + 3]).toBe(0);
    }
    const plate = await sharp(staged!.layers.plate).raw().toBuffer();
    let differ = 0;
    let solid = 0;
    for (let i = 0; i < 640 * 360; i++) {
      if (layer.data[i * 4 + 3]! < 255) continue;
      solid++;
      if (Math.abs(plate[i * 3]! - data[i * 3]!) + Math.abs(plate[i * 3 + 2]! - data[i * 3 + 2]!) > 20) differ++;
    }
    expect(differ).toBeGreaterThan(solid * 0.5);
    expect(staged!.layers.horizon).toBeCloseTo(0.62, 2);
  });

  it('leaves a scene alone', async () => {
    const scene = await sharp({ create: { width: 320, height: 180, channels: 3, background: '#556677' } })
      .composite([
        {
          input: Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect y="100" width="320" height="80" fill="#a08060"/><rect x="260" y="0" width="60" height="100" fill="#e0d0b0"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    expect(await stageBareProduct(scene, 320, 180)).toBeUndefined();
  });
});

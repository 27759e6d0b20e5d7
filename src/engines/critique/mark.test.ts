import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildCritique } from './critique.ts';
import { computeFeatures } from './features.ts';
import { scoreFeatures } from './scores.ts';

const DIR = path.resolve(
  process.env.ATELIER_FIXTURES ?? path.resolve(import.meta.dirname, '../../../../shared/fixtures'),
  'product-images',
);
const SIZE = 1024;
const PALETTE = ['#c8102e', '#1d1d1b', '#ffffff'];
/** Fixtures whose Solidus mark covers ≥ 2% of the frame when the product fits 75% of the side (by eye). */
const VISIBLE = [
  'solidus_canvas_tote.png',
  'solidus_cap_black_1.png',
  'solidus_cap_black_2.png',
  'solidus_cap_gray_1.png',
  'solidus_cap_gray_2.png',
  'solidus_cap_red_1.png',
  'solidus_cap_red_2.png',
  'solidus_hoodie_red_1.png',
  'solidus_hoodie_red_2.png',
  'solidus_long_sleeve_tee.png',
  'solidus_mug_set.png',
  'solidus_sticker.png',
  'solidus_tote.png',
];

function critiqueOf(rgb: Uint8Array, mask: Uint8Array) {
  const features = computeFeatures({
    data: rgb,
    width: SIZE,
    height: SIZE,
    channels: 3,
    productMask: mask,
    palette: PALETTE,
  });
  const scores = scoreFeatures(features);
  const critique = buildCritique({
    features,
    scores,
    campaignId: 'c',
    prompt: 'p',
    createdAt: '2025-03-01T00:00:00Z',
    palette: PALETTE,
  });
  const recs = critique.recommendations.flatMap((r) => r.recommendation_details.practical_recommendations);
  return { features, missing: recs.filter((p) => p.display_title === 'Make the logo visible') };
}

async function compose(file: string): Promise<{ rgb: Uint8Array; mask: Uint8Array }> {
  const px = Math.round(SIZE * 0.75);
  const { data, info } = await sharp(file)
    .ensureAlpha()
    .trim()
    .resize(px, px, { fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgb = new Uint8Array(SIZE * SIZE * 3).fill(240);
  const mask = new Uint8Array(SIZE * SIZE);
  const ox = Math.round((SIZE - info.width) / 2);
  const oy = Math.round((SIZE - info.height) / 2);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const s = (y * info.width + x) * 4;
      const a = data[s + 3]!;
      const i = (oy + y) * SIZE + ox + x;
      for (let c = 0; c < 3; c++) rgb[i * 3 + c] = Math.round((data[s + c]! * a + rgb[i * 3 + c]! * (255 - a)) / 255);
      mask[i] = a;
    }
  }
  return { rgb, mask };
}

describe('brand mark on the product', () => {
  it.skipIf(!fs.existsSync(DIR))(
    'never calls a visible mark (≥ 2% of the frame) missing on the fixtures',
    async () => {
      const wrong: string[] = [];
      for (const name of VISIBLE) {
        const { rgb, mask } = await compose(path.join(DIR, name));
        const { missing } = critiqueOf(rgb, mask);
        if (missing.length > 0) wrong.push(name);
      }
      expect(wrong).toEqual([]);
    },
    60_000,
  );

  it('still asks for the logo on a plain product without a mark', () => {
    const rgb = new Uint8Array(SIZE * SIZE * 3).fill(240);
    const mask = new Uint8Array(SIZE * SIZE);
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        if ((x - SIZE / 2) ** 2 / 200 ** 2 + (y - SIZE / 2) ** 2 / 260 ** 2 > 1) continue;
        const i = y * SIZE + x;
        rgb.set([40, 90, 160], i * 3);
        mask[i] = 255;
      }
    }
    const { features, missing } = critiqueOf(rgb, mask);
    expect(features.mark?.count).toBe(0);
    expect(missing.length).toBeGreaterThan(0);
  });

  it('finds a printed mark and matches the brand logo asset on the product', () => {
    const rgb = new Uint8Array(SIZE * SIZE * 3).fill(240);
    const mask = new Uint8Array(SIZE * SIZE);
    // A red box with a white "T" of 120 px on it.
    const logo = new Uint8Array(60 * 60 * 4);
    for (let y = 0; y < 60; y++) {
      for (let x = 0; x < 60; x++) if (y < 14 || (x >= 23 && x < 37)) logo[(y * 60 + x) * 4 + 3] = 255;
    }
    for (let y = 150; y < 620; y++) {
      for (let x = 200; x < 570; x++) {
        const i = y * SIZE + x;
        mask[i] = 255;
        const lx = Math.floor((x - 325) / 2);
        const ly = Math.floor((y - 300) / 2);
        const on = lx >= 0 && ly >= 0 && lx < 60 && ly < 60 && logo[(ly * 60 + lx) * 4 + 3]! > 0;
        rgb.set(on ? [250, 250, 250] : [200, 16, 46], i * 3);
      }
    }
    const plain = computeFeatures({ data: rgb, width: SIZE, height: SIZE, channels: 3, productMask: mask });
    expect(plain.mark?.source).toBe('detector');
    expect(plain.mark?.largestShare).toBeGreaterThan(0.012);
    const matched = computeFeatures({
      data: rgb,
      width: SIZE,
      height: SIZE,
      channels: 3,
      productMask: mask,
      logoAsset: { data: logo, width: 60, height: 60, channels: 4 },
    });
    expect(matched.mark?.source).toBe('asset');
    expect(matched.mark?.match).toBeGreaterThan(0.6);
  });
});

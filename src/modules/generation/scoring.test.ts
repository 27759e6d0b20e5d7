import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analyzePng } from './scoring.ts';

const svg = (body: string) =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">${body}</svg>`))
    .png()
    .toBuffer();

describe('analyzePng', () => {
  it('passes the placed logo boxes and the brand logo on to the critique', async () => {
    const scene = await svg(
      '<rect width="400" height="300" fill="#d8d2c8"/><rect x="150" y="80" width="100" height="160" fill="#b32020"/><rect x="330" y="20" width="50" height="30" fill="#111"/>',
    );
    const without = await analyzePng(scene, { palette: ['#b32020'] });
    expect(without.features.logo.count).toBe(0);
    const placed = await analyzePng(scene, {
      palette: ['#b32020'],
      logoBoxes: [{ left: 330, top: 20, width: 50, height: 30 }],
    });
    expect(placed.features.logo.count).toBe(1);
    expect(placed.scores.brand_awareness).toBeGreaterThan(without.scores.brand_awareness);
    // An unreadable logo file is ignored, never an error.
    await expect(analyzePng(scene, { palette: [], logoAsset: Buffer.from('not an image') })).resolves.toBeDefined();
  });
});

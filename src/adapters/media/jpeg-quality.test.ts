import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { estimateJpegQuality, parseJpegQuantTables, qualityFromTable } from './jpeg-quality.ts';

describe('JPEG quality estimate', () => {
  it.each([10, 30, 50, 75, 90, 100])('recovers libjpeg quality %i within 2 points', async (quality) => {
    const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#808080' } })
      .jpeg({ quality })
      .toBuffer();
    const tables = parseJpegQuantTables(jpeg);
    expect(tables.has(0)).toBe(true);
    expect(Math.abs(estimateJpegQuality(jpeg)! - quality)).toBeLessThanOrEqual(2);
  });

  it('stays within 1..100 for any table', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 65535 }), { minLength: 64, maxLength: 64 }), (table) => {
        const q = qualityFromTable(table);
        expect(q).toBeGreaterThanOrEqual(1);
        expect(q).toBeLessThanOrEqual(100);
      }),
    );
  });

  it('is undefined for bytes that are not a JPEG or end before the tables', async () => {
    expect(estimateJpegQuality(Buffer.from('not a jpeg'))).toBeUndefined();
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .jpeg()
      .toBuffer();
    expect(estimateJpegQuality(jpeg.subarray(0, 20))).toBeUndefined();
  });

  it('never throws on arbitrary bytes after a JPEG start marker', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (tail) => {
        parseJpegQuantTables(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.from(tail)]));
      }),
    );
  });
});

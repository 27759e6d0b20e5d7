import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFont, toWoff, toWoff2 } from '../../../test/fixtures/media/generate.ts';
import { analyzeFont, fontDeclaredSize } from './font.ts';
import { failure, tempFiles } from './media.test-harness.ts';

const { write } = tempFiles();

describe('analyzeFont', () => {
  const sfnt = buildFont({ family: 'Atelier Sans', style: 'Bold Italic', weight: 700, italic: true });

  it.each([
    ['TTF', 'font/ttf', sfnt],
    [
      'OTF',
      'font/otf',
      buildFont({ family: 'Atelier Sans', style: 'Bold Italic', weight: 700, italic: true, otf: true }),
    ],
    ['WOFF', 'font/woff', toWoff(sfnt)],
    ['WOFF2', 'font/woff2', toWoff2(sfnt)],
  ])('reads names and style of a %s font', async (format, mimeType, bytes) => {
    expect(await analyzeFont(write(`f.${format}`, bytes))).toEqual({
      format,
      mimeType,
      familyName: 'Atelier Sans',
      styleName: 'Bold Italic',
      fullName: 'Atelier Sans Bold Italic',
      postscriptName: 'AtelierSans-BoldItalic',
      weight: 700,
      italic: true,
      glyphCount: 1,
    });
  });

  const dejavu = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
  it.skipIf(!fs.existsSync(dejavu))('reads a real font from the system, also wrapped as WOFF and WOFF2', async () => {
    const ttf = fs.readFileSync(dejavu);
    for (const [name, bytes] of [
      ['dejavu.ttf', ttf],
      ['dejavu.woff', toWoff(ttf)],
      ['dejavu.woff2', toWoff2(ttf)],
    ] as const) {
      const f = await analyzeFont(write(name, bytes));
      expect(f).toMatchObject({ familyName: 'DejaVu Sans', styleName: 'Bold', weight: 700, italic: false });
      expect(f.glyphCount).toBeGreaterThan(1000);
    }
  });

  it('refuses a WOFF2 that declares an enormous expansion, before decoding', async () => {
    const file = write('huge.woff2', toWoff2(sfnt, { declaredLength: 2_000_000_000 }));
    const err = await failure(analyzeFont(file));
    expect(err.code).toBe('TOO_LARGE');
  });

  it('fails a damaged font as CORRUPT and other bytes as UNSUPPORTED', async () => {
    const damaged = Buffer.from(toWoff(sfnt));
    damaged.fill(0x77, 44 + 20 * 3); // every compressed table
    expect((await failure(analyzeFont(write('damaged.woff', damaged)))).code).toBe('CORRUPT');
    expect((await failure(analyzeFont(write('font.ttf', 'not a font')))).code).toBe('UNSUPPORTED');
  });

  it('limits size and time', async () => {
    const file = write('ok.ttf', sfnt);
    expect((await failure(analyzeFont(file, { maxBytes: 10 }))).code).toBe('TOO_LARGE');
    expect((await failure(analyzeFont(file, { timeoutMs: 1 }))).code).toBe('TIMEOUT');
  });
});

describe('fontDeclaredSize', () => {
  const sfnt = buildFont({ family: 'A', style: 'Regular' });

  it('sums the original table lengths of WOFF and WOFF2, nothing for TTF', () => {
    expect(fontDeclaredSize(toWoff(sfnt), 'WOFF')).toBe(sfnt.length);
    expect(fontDeclaredSize(toWoff2(sfnt), 'WOFF2')).toBe(sfnt.length);
    expect(fontDeclaredSize(toWoff2(sfnt, { declaredLength: 5_000_000 }), 'WOFF2')).toBeGreaterThan(5_000_000);
    expect(fontDeclaredSize(sfnt, 'TTF')).toBeUndefined();
  });

  it('reports a truncated directory as CORRUPT', () => {
    expect(() => fontDeclaredSize(toWoff2(sfnt).subarray(0, 50), 'WOFF2')).toThrow(
      expect.objectContaining({ code: 'CORRUPT' }),
    );
    expect(() => fontDeclaredSize(toWoff(sfnt).subarray(0, 50), 'WOFF')).toThrow(
      expect.objectContaining({ code: 'CORRUPT' }),
    );
  });
});

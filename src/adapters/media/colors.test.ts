import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COLOR_NAMES,
  dominantColors,
  hslToRgb,
  labDistance,
  nameColor,
  parseHex,
  rgbHex,
  rgbToHsl,
  rgbToLab,
} from './colors.ts';

/** One 8-bit colour channel. */
const channel = fc.integer({ min: 0, max: 255 });

describe('rgbToLab', () => {
  it('matches reference CIELAB values (D65)', () => {
    const close = (a: number[], b: number[]) => {
      for (const [i, v] of a.entries()) expect(v).toBeCloseTo(b[i]!, 0);
    };
    close(rgbToLab(255, 255, 255), [100, 0, 0]);
    close(rgbToLab(0, 0, 0), [0, 0, 0]);
    close(rgbToLab(255, 0, 0), [53.24, 80.09, 67.2]);
    close(rgbToLab(0, 0, 255), [32.3, 79.19, -107.86]);
  });

  it('keeps lightness within 0..100 for every colour', () => {
    fc.assert(
      fc.property(channel, channel, channel, (r, g, b) => {
        const [l] = rgbToLab(r, g, b);
        expect(l).toBeGreaterThanOrEqual(-0.001);
        expect(l).toBeLessThanOrEqual(100.001);
      }),
    );
  });

  it('labDistance is a distance', () => {
    expect(labDistance([50, 10, 10], [50, 10, 10])).toBe(0);
    expect(labDistance([0, 0, 0], [3, 4, 0])).toBe(5);
  });
});

describe('nameColor', () => {
  it.each([
    [[255, 255, 255], 'white'],
    [[250, 250, 248], 'white'],
    [[5, 5, 5], 'black'],
    [[128, 128, 128], 'gray'],
    [[220, 30, 30], 'red'],
    [[120, 10, 10], 'maroon'],
    [[255, 140, 0], 'orange'],
    [[139, 69, 19], 'brown'],
    [[245, 240, 215], 'beige'],
    [[250, 220, 20], 'yellow'],
    [[30, 160, 60], 'green'],
    [[0, 128, 128], 'teal'],
    [[0, 0, 128], 'navy'],
    [[30, 100, 230], 'blue'],
    [[135, 206, 235], 'light-blue'],
    [[128, 0, 128], 'purple'],
    [[255, 105, 180], 'pink'],
    [[255, 0, 255], 'magenta'],
  ] as [number[], string][])('%j is %s', (rgb, name) => {
    expect(nameColor(rgb[0]!, rgb[1]!, rgb[2]!)).toBe(name);
  });

  it('always answers with a palette name', () => {
    fc.assert(
      fc.property(channel, channel, channel, (r, g, b) => {
        expect(COLOR_NAMES).toContain(nameColor(r, g, b));
      }),
    );
  });
});

type Rgba = [number, number, number, number];

describe('dominantColors', () => {
  const raster = (pixels: Rgba[]) => Uint8Array.from(pixels.flat());

  it('ranks names by share, with their mean colour, skipping transparent pixels', () => {
    const px: Rgba[] = [
      ...Array.from({ length: 60 }, () => [0, 0, 128, 255] as Rgba),
      ...Array.from({ length: 30 }, () => [255, 255, 255, 255] as Rgba),
      ...Array.from({ length: 5 }, () => [220, 30, 30, 255] as Rgba),
      ...Array.from({ length: 500 }, () => [0, 255, 0, 0] as Rgba),
    ];
    const colors = dominantColors(raster(px));
    expect(colors.map((c) => c.name)).toEqual(['navy', 'white']);
    expect(colors[0]).toEqual({ name: 'navy', hex: '#000080', fraction: 0.632 });
  });

  it('returns nothing for a fully transparent raster', () => {
    expect(dominantColors(raster([[1, 2, 3, 0]]))).toEqual([]);
  });

  it('caps the list and respects minFraction', () => {
    const px = (['ff0000', '00ff00', '0000ff', 'ffff00'] as const).flatMap((hex) =>
      Array.from({ length: 25 }, () => [...Buffer.from(hex, 'hex'), 255] as Rgba),
    );
    expect(dominantColors(raster(px)).length).toBe(3);
    expect(dominantColors(raster(px), { minFraction: 0.3 })).toEqual([]);
  });

  it('rgbHex pads and rounds', () => {
    expect(rgbHex(0, 15.6, 255)).toBe('#0010ff');
  });
});

describe('parseHex', () => {
  it.each([
    ['#ff8000', [255, 128, 0]],
    ['00FF00', [0, 255, 0]],
    [' #fff ', [255, 255, 255]],
    ['#11223380', [17, 34, 51]],
    ['red', undefined],
    ['#12345g', undefined],
    ['#12345', undefined],
  ])('%s', (hex, want) => expect(parseHex(hex)).toEqual(want));
});

describe('HSL', () => {
  it('names the hue in degrees and comes back to the same colour', () => {
    expect(rgbToHsl([255, 0, 0])).toEqual([0, 1, 0.5]);
    expect(rgbToHsl([0, 0, 255])[0]).toBeCloseTo(240, 9);
    expect(rgbToHsl([128, 128, 128])).toEqual([0, 0, 128 / 255]);
    fc.assert(
      fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)), (rgb) => {
        const back = hslToRgb(...rgbToHsl(rgb));
        for (let k = 0; k < 3; k++) expect(back[k]).toBeCloseTo(rgb[k]!, 6);
      }),
    );
  });

  it('takes any turn of the hue', () => {
    const red = hslToRgb(0, 1, 0.5);
    for (const h of [360, -360, 720]) {
      const same = hslToRgb(h, 1, 0.5);
      for (let k = 0; k < 3; k++) expect(same[k]).toBeCloseTo(red[k]!, 9);
    }
  });
});

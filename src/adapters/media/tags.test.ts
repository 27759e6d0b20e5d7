import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COLOR_NAMES } from './colors.ts';
import type { PixelStats } from './image-measure.ts';
import {
  AUTO_TAGS,
  type ImageMeasurements,
  imageAutoTags,
  imageQualityTags,
  orientationOf,
  QUALITY_LEVELS,
  QUALITY_REASON_CODES,
  THRESHOLDS,
  videoAutoTags,
  videoQualityTags,
} from './tags.ts';

const luma = (o: Partial<PixelStats['luma']> = {}) => ({
  count: 10_000,
  mean: 120,
  stdDev: 50,
  shadowClip: 0.01,
  highlightClip: 0.01,
  ...o,
});

/** A sharp, well-exposed 2000×1500 photo with a busy background; override what a test is about. */
function measured(
  o: Partial<Omit<ImageMeasurements, 'pixels'>> & { pixels?: Partial<PixelStats> } = {},
): ImageMeasurements {
  const { pixels, ...rest } = o;
  return {
    width: 2000,
    height: 1500,
    format: 'PNG',
    pages: 1,
    laplacianVariance: 800,
    bitsPerPixel: 4,
    dominantColors: [],
    ...rest,
    pixels: {
      width: 256,
      height: 192,
      luma: luma(),
      subjectLuma: undefined,
      transparentFraction: 0,
      border: { transparentFraction: 0, meanRgb: [100, 100, 100], lumaStdDev: 40, meanDeltaE: 20 },
      subjectFraction: 0.9,
      meanChroma: 30,
      ...pixels,
    },
  };
}

const codes = (m: ImageMeasurements) => imageQualityTags(m).map((t) => `${t.reasonCode}:${t.level}`);

describe('imageQualityTags', () => {
  it('a good photo has none', () => {
    expect(imageQualityTags(measured())).toEqual([]);
  });

  it.each([
    [1024, 768, []],
    [600, 511, ['LOW_RESOLUTION:warning']],
    [512, 512, []],
    [300, 255, ['LOW_RESOLUTION:critical']],
  ])('resolution %i×%i → %j', (width, height, expected) => {
    expect(codes(measured({ width, height }))).toEqual(expected);
  });

  it.each([
    [150, []],
    [99, ['BLURRY:warning']],
    [29, ['BLURRY:critical']],
  ])('edge variance %i → %j', (laplacianVariance, expected) => {
    expect(codes(measured({ laplacianVariance }))).toEqual(expected);
  });

  it('a flat image is BLANK_IMAGE and nothing else about its pixels', () => {
    const m = measured({ laplacianVariance: 0, pixels: { luma: luma({ stdDev: 1, mean: 255, highlightClip: 1 }) } });
    expect(codes(m)).toEqual(['BLANK_IMAGE:critical']);
  });

  it('exposure is judged on the subject when there is one', () => {
    // White background, well exposed subject: not overexposed.
    const onWhite = measured({
      pixels: { luma: luma({ mean: 230, highlightClip: 0.7 }), subjectLuma: luma({ mean: 110, highlightClip: 0.02 }) },
    });
    expect(codes(onWhite)).toEqual([]);
    const blown = measured({ pixels: { luma: luma({ mean: 200, highlightClip: 0.3 }) } });
    expect(codes(blown)).toEqual(['OVEREXPOSED:warning']);
    expect(codes(measured({ pixels: { luma: luma({ mean: 220, highlightClip: 0.5 }) } }))).toEqual([
      'OVEREXPOSED:critical',
    ]);
    expect(codes(measured({ pixels: { luma: luma({ mean: 240, highlightClip: 0.1 }) } }))).toEqual([
      'OVEREXPOSED:critical',
    ]);
    // Much clipping but a dark mean (a night shot with a lamp) is not overexposed.
    expect(codes(measured({ pixels: { luma: luma({ mean: 90, highlightClip: 0.3 }) } }))).toEqual([]);
  });

  it('underexposure needs crushed shadows and a dark mean', () => {
    expect(codes(measured({ pixels: { luma: luma({ mean: 50, shadowClip: 0.3 }) } }))).toEqual([
      'UNDEREXPOSED:warning',
    ]);
    expect(codes(measured({ pixels: { luma: luma({ mean: 20, shadowClip: 0.6 }) } }))).toEqual([
      'UNDEREXPOSED:critical',
    ]);
    // Uniformly dark without pure black: critical by the mean alone.
    expect(codes(measured({ pixels: { luma: luma({ mean: 15, shadowClip: 0.02 }) } }))).toEqual([
      'UNDEREXPOSED:critical',
    ]);
    expect(codes(measured({ pixels: { luma: luma({ mean: 100, shadowClip: 0.3 }) } }))).toEqual([]);
  });

  it.each([
    [30, []],
    [20, ['LOW_CONTRAST:warning']],
    [8, ['LOW_CONTRAST:critical']],
  ])('luma spread %i → %j', (stdDev, expected) => {
    expect(codes(measured({ pixels: { luma: luma({ stdDev }) } }))).toEqual(expected);
  });

  it('heavy JPEG compression from the quality estimate, or bits per pixel without one', () => {
    expect(codes(measured({ format: 'JPEG', jpegQuality: 85 }))).toEqual([]);
    expect(codes(measured({ format: 'JPEG', jpegQuality: 40 }))).toEqual(['HEAVY_COMPRESSION:warning']);
    expect(codes(measured({ format: 'JPEG', jpegQuality: 10 }))).toEqual(['HEAVY_COMPRESSION:critical']);
    expect(codes(measured({ format: 'JPEG', bitsPerPixel: 0.2 }))).toEqual(['HEAVY_COMPRESSION:warning']);
    expect(codes(measured({ format: 'PNG', jpegQuality: 10 }))).toEqual([]);
  });

  it('multi-frame files get FIRST_FRAME_ONLY (info), listed after more severe tags', () => {
    expect(codes(measured({ pages: 12, width: 300, height: 200 }))).toEqual([
      'LOW_RESOLUTION:critical',
      'FIRST_FRAME_ONLY:info',
    ]);
  });

  it('every tag uses the closed vocabulary and full sentences', () => {
    const all = imageQualityTags(
      measured({
        width: 100,
        height: 100,
        laplacianVariance: 5,
        format: 'JPEG',
        jpegQuality: 5,
        pages: 2,
        pixels: { luma: luma({ stdDev: 5 }) },
      }),
    );
    expect(all.length).toBeGreaterThan(3);
    for (const t of all) {
      expect(QUALITY_LEVELS).toContain(t.level);
      expect(QUALITY_REASON_CODES).toContain(t.reasonCode);
      expect(t.reason).toMatch(/^[A-Z0-9].*\.$/);
      expect(t.recommendation).toMatch(/^[A-Z].*\.$/);
    }
  });
});

describe('imageAutoTags', () => {
  it('orientation, colours and resolution', () => {
    const tags = imageAutoTags(
      measured({
        dominantColors: [
          { name: 'navy', hex: '#000080', fraction: 0.6 },
          { name: 'white', hex: '#ffffff', fraction: 0.3 },
        ],
      }),
    );
    expect(tags).toEqual(['landscape', 'navy', 'white']);
    expect(imageAutoTags(measured({ width: 3000, height: 4000 }))).toEqual(['portrait', 'high-resolution']);
    expect(imageAutoTags(measured({ width: 400, height: 410 }))).toEqual(['square', 'low-resolution']);
  });

  it('a product on a plain background', () => {
    const plain = {
      transparentFraction: 0,
      meanRgb: [255, 255, 255] as [number, number, number],
      lumaStdDev: 1,
      meanDeltaE: 1,
    };
    expect(imageAutoTags(measured({ pixels: { border: plain, subjectFraction: 0.3 } }))).toEqual([
      'landscape',
      'plain-background',
      'product-on-plain-background',
    ]);
    // Plain but empty (a backdrop), or filled edge to edge: no product.
    expect(imageAutoTags(measured({ pixels: { border: plain, subjectFraction: 0.01 } }))).toEqual([
      'landscape',
      'plain-background',
    ]);
    expect(imageAutoTags(measured({ pixels: { border: plain, subjectFraction: 0.95 } }))).toEqual([
      'landscape',
      'plain-background',
    ]);
  });

  it('a cut-out on transparency', () => {
    const clear = {
      transparentFraction: 1,
      meanRgb: [0, 0, 0] as [number, number, number],
      lumaStdDev: 0,
      meanDeltaE: 0,
    };
    expect(
      imageAutoTags(measured({ width: 1000, height: 1000, pixels: { border: clear, subjectFraction: 0.4 } })),
    ).toEqual(['square', 'transparent-background', 'product-on-plain-background']);
  });

  it('black-and-white and animated', () => {
    expect(imageAutoTags(measured({ pixels: { meanChroma: 1 } }))).toContain('black-and-white');
    expect(imageAutoTags(measured({ pages: 5, format: 'GIF' }))).toContain('animated');
    expect(imageAutoTags(measured({ pages: 5, format: 'TIFF' }))).not.toContain('animated');
  });
});

describe('orientationOf', () => {
  it.each([
    [1920, 1080, 'landscape'],
    [1080, 1920, 'portrait'],
    [1000, 1000, 'square'],
    [1000, 1040, 'square'],
    [1000, 1060, 'portrait'],
  ])('%i×%i is %s', (w, h, o) => {
    expect(orientationOf(w, h)).toBe(o);
  });
});

describe('video tags', () => {
  it('a 1080p 30 fps clip with sound has no quality tags', () => {
    const m = { width: 1920, height: 1080, fps: 30, hasAudio: true };
    expect(videoQualityTags(m)).toEqual([]);
    expect(videoAutoTags(m)).toEqual(['landscape', 'with-audio', 'high-resolution']);
  });

  it('low resolution and frame rate', () => {
    const tags = videoQualityTags({ width: 320, height: 180, fps: 15, hasAudio: false });
    expect(tags.map((t) => `${t.reasonCode}:${t.level}`)).toEqual([
      'LOW_RESOLUTION:critical',
      'LOW_FRAME_RATE:warning',
    ]);
    expect(
      videoQualityTags({ width: 640, height: 360, fps: THRESHOLDS.videoMinFps, hasAudio: false }).map((t) => t.level),
    ).toEqual(['warning']);
    expect(videoAutoTags({ width: 360, height: 640, hasAudio: false })).toEqual([
      'portrait',
      'silent',
      'low-resolution',
    ]);
  });
});

describe('vocabulary', () => {
  it('random measurements only ever give tags from the closed sets', () => {
    const share = fc.double({ min: 0, max: 1, noNaN: true });
    const level = fc.double({ min: 0, max: 255, noNaN: true });
    const lumaArb = fc.record({
      count: fc.nat(),
      mean: level,
      stdDev: fc.double({ min: 0, max: 128, noNaN: true }),
      shadowClip: share,
      highlightClip: share,
    });
    const arb = fc.record({
      width: fc.integer({ min: 1, max: 20_000 }),
      height: fc.integer({ min: 1, max: 20_000 }),
      format: fc.constantFrom('JPEG', 'PNG', 'GIF', 'TIFF'),
      pages: fc.integer({ min: 1, max: 500 }),
      laplacianVariance: fc.double({ min: 0, max: 1e5, noNaN: true }),
      jpegQuality: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      bitsPerPixel: fc.double({ min: 0, max: 48, noNaN: true }),
      dominantColors: fc.array(
        fc.record({ name: fc.constantFrom(...COLOR_NAMES), hex: fc.constant('#000000'), fraction: share }),
        { maxLength: 3 },
      ),
      luma: lumaArb,
      subjectLuma: fc.option(lumaArb, { nil: undefined }),
      border: fc.record({
        transparentFraction: share,
        lumaStdDev: fc.double({ min: 0, max: 128, noNaN: true }),
        meanDeltaE: fc.double({ min: 0, max: 150, noNaN: true }),
      }),
      subjectFraction: share,
      meanChroma: fc.double({ min: 0, max: 150, noNaN: true }),
    });
    const vocabulary = new Set<string>([...AUTO_TAGS, ...COLOR_NAMES]);
    fc.assert(
      fc.property(arb, (r) => {
        const m = measured({
          ...r,
          pixels: {
            luma: r.luma,
            subjectLuma: r.subjectLuma,
            border: { ...r.border, meanRgb: [0, 0, 0] },
            subjectFraction: r.subjectFraction,
            meanChroma: r.meanChroma,
          },
        });
        for (const t of imageAutoTags(m)) expect(vocabulary).toContain(t);
        for (const t of imageQualityTags(m)) {
          expect(QUALITY_REASON_CODES).toContain(t.reasonCode);
          expect(QUALITY_LEVELS).toContain(t.level);
        }
        const v = { width: r.width, height: r.height, fps: r.luma.mean / 2, hasAudio: r.pages % 2 === 0 };
        for (const t of videoAutoTags(v)) expect(vocabulary).toContain(t);
        for (const t of videoQualityTags(v)) expect(QUALITY_REASON_CODES).toContain(t.reasonCode);
      }),
    );
  });
});

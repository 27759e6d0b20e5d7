import fc from 'fast-check';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImageFeatures } from '../critique/features.ts';
import { type Scores, scoreImage } from '../critique/scores.ts';
import { computeLayout, LAYOUT_NAMES } from './local/layout.ts';
import { createLocalSceneEngine } from './local/local-scene-engine.ts';
import { outputSize, type SceneRequest, type SceneSteering } from './scene-engine.ts';
import {
  accentCandidates,
  combineSteering,
  planSteering,
  STEERING_BOUNDS,
  type SteerObjective,
  type SteeringSource,
} from './steering.ts';

const SCORES: Scores = { attention_potential: 50, conversion: 60, brand_awareness: 30 };
const PALETTE = ['#d62828', '#ffffff'];

/** Features of a clean studio shot of a small product, with `over` merged group by group. */
type FeatureOverrides = {
  [K in keyof ImageFeatures]?: NonNullable<ImageFeatures[K]> extends object
    ? Partial<NonNullable<ImageFeatures[K]>> | null
    : ImageFeatures[K];
};

function features(over: FeatureOverrides = {}): ImageFeatures {
  const base: ImageFeatures = {
    frame: { width: 1024, height: 1024, analysisWidth: 256, analysisHeight: 256, detailWidth: 512, detailHeight: 512 },
    subject: {
      source: 'mask',
      present: true,
      areaShare: 0.08,
      saliencyShare: 0.78,
      saliencyLift: 4,
      box: { left: 0.2, top: 0.45, width: 0.3, height: 0.3 },
      centroid: { x: 0.35, y: 0.6 },
    },
    saliency: {
      focalPoints: [{ x: 0.35, y: 0.6, strength: 1, onSubject: true }],
      focalPointCount: 1,
      offSubjectFocalPoints: 0,
      focalTargets: 1,
      salientRegions: 1,
      mean: 0.1,
      concentration: 0.5,
    },
    contrast: { rms: 0.18, subjectLuminance: 0.6, subjectDeltaE: 65 },
    colorfulness: 40,
    clutter: { edgeDensity: 0.002, frameEdgeDensity: 0.01, salientRegions: 1 },
    text: { cellShare: 0, regionCount: 0, areaShare: 0, regions: [] },
    logo: { count: 0, areaShare: 0, largestShare: 0, contrast: 0, cutOff: false, edgeDistance: 0 },
    palette: {
      colors: [
        { hex: '#d62828', share: 0.01, neutral: false },
        { hex: '#ffffff', share: 0.05, neutral: true },
      ],
      coverage: 0.06,
      weightedCoverage: 0.02,
      subjectCoverage: 0.01,
    },
    composition: {
      powerPointDistance: 0.05,
      nearestPowerPoint: 'lower-left third',
      margins: { left: 0.2, top: 0.45, right: 0.5, bottom: 0.25 },
      minMargin: 0.2,
      cutOff: false,
      cutOffEdges: [],
    },
    sharpness: { laplacianVariance: 100, acutance: 0.8, frameAcutance: 0.8 },
    exposure: {
      meanLuminance: 0.7,
      clippedShadows: 0,
      clippedHighlights: 0,
      subjectMeanLuminance: 0.3,
      subjectClippedShadows: 0,
      subjectClippedHighlights: 0,
    },
  };
  const out = structuredClone(base) as unknown as Record<string, Record<string, unknown> | null>;
  for (const [k, v] of Object.entries(over)) {
    out[k] = v === null || typeof v !== 'object' ? (v as never) : { ...(out[k] ?? {}), ...v };
  }
  return out as unknown as ImageFeatures;
}

const source = (f: ImageFeatures, variationIndex = 1): SteeringSource => ({
  features: f,
  scores: SCORES,
  variationIndex,
});
const brand = { palette: PALETTE, hasLogo: true };

describe('planSteering', () => {
  it('attention: grows a small product, within its room, and keeps the source layout', () => {
    const plan = planSteering('attention_potential', source(features(), 2), brand);
    expect(plan.steering.baseLayout).toBe(2);
    expect(plan.steering.scale).toBeGreaterThan(1.3);
    expect(plan.steering.scale).toBeLessThanOrEqual(1.5);
    expect(plan.levers[0]).toMatch(/^larger product \(×1\.\d+\)$/);
    // A product that already fills the frame is not grown.
    const big = features({ subject: { areaShare: 0.3, box: { left: 0.1, top: 0.1, width: 0.75, height: 0.75 } } });
    expect(planSteering('attention_potential', source(big), brand).steering.scale).toBeUndefined();
  });

  it('attention: separates a product that blends in, calms competing focal points, adds colour to a grey frame', () => {
    const plan = planSteering(
      'attention_potential',
      source(
        features({
          contrast: { subjectDeltaE: 25, rms: 0.08 },
          saliency: { focalTargets: 5, offSubjectFocalPoints: 4 },
          clutter: { edgeDensity: 0.06 },
          colorfulness: 12,
        }),
      ),
      brand,
    );
    expect(plan.steering.contrast).toBeGreaterThanOrEqual(0.8);
    expect(plan.steering.simplifyBackdrop).toBeGreaterThan(0.5);
    expect(plan.steering.accentColors).toEqual(['#d62828']);
    expect(plan.levers.some((l) => l.startsWith('stronger separation'))).toBe(true);
    expect(plan.levers.some((l) => l.startsWith('calmer backdrop'))).toBe(true);
    // A clean, contrasted, colourful frame gets none of those.
    const clean = planSteering('attention_potential', source(features()), brand).steering;
    expect([clean.contrast, clean.simplifyBackdrop, clean.accentColors]).toEqual([undefined, undefined, undefined]);
  });

  it('writes each lever as the change, then why in a clause of its own ("calmer backdrop (the backdrop was cluttered)")', () => {
    const busy = features({
      contrast: { subjectDeltaE: 25, rms: 0.08 },
      saliency: { focalTargets: 5, offSubjectFocalPoints: 4 },
      clutter: { edgeDensity: 0.06 },
      colorfulness: 12,
      composition: { powerPointDistance: 0.3 },
    });
    const notes = (['attention_potential', 'conversion', 'brand_awareness'] as const).flatMap(
      (o) => planSteering(o, source(busy), { palette: ['#d62828', '#2a6fdb'], hasLogo: true }).levers,
    );
    expect(notes).toEqual(
      expect.arrayContaining([
        'stronger separation from the backdrop (the product blended in)',
        'calmer backdrop (other focal points competed with the product)',
        'calmer backdrop (the backdrop was cluttered)',
        'brand colour accents #d62828 and #2a6fdb (the frame was nearly colourless)',
        'centre layout (the product was off the power points)',
      ]),
    );
    // The reason is a clause (it has a verb), never a bare noun phrase that repeats the change.
    for (const note of notes.filter((n) => n.includes('('))) {
      const why = /\(([^()]+)\)$/.exec(note)?.[1] ?? '';
      if (why.startsWith('×')) continue;
      expect(why, note).toMatch(/\b(?:was|were|blended|competed|carried|has|had)\b/);
    }
  });

  it('conversion: grows the product, calms clutter, centres an off-centre product; a cut product is centred and shrunk', () => {
    const plan = planSteering(
      'conversion',
      source(features({ clutter: { edgeDensity: 0.05 }, composition: { powerPointDistance: 0.3 } })),
      brand,
    );
    expect(plan.steering).toMatchObject({ placement: 'centre', baseLayout: 1 });
    expect(plan.steering.scale).toBeGreaterThan(1.3);
    expect(plan.steering.simplifyBackdrop).toBeGreaterThan(0.5);
    const cut = planSteering('conversion', source(features({ composition: { cutOffEdges: ['left', 'top'] } })), brand);
    expect(cut.steering).toMatchObject({ placement: 'centre', scale: 0.85 });
    // Cut at the bottom alone: the product's own image cuts it; it is grown as usual.
    const torso = planSteering('conversion', source(features({ composition: { cutOffEdges: ['bottom'] } })), brand);
    expect(torso.steering.scale).toBeGreaterThan(1);
    expect(torso.steering.placement).toBeUndefined();
  });

  it('brand: asks for the logo (without bytes: JSON-safe), a colour block and a larger product', () => {
    const plan = planSteering('brand_awareness', source(features()), brand);
    expect(plan.steering.logo).toEqual({ placement: 'corner' });
    expect(plan.steering.accentColors).toEqual(['#d62828']);
    expect(plan.steering.scale).toBeGreaterThan(1);
    expect(plan.missing).toEqual([]);
    expect(JSON.parse(JSON.stringify(plan.steering))).toEqual(plan.steering);
    // A product already in the brand colour gets no colour block; a logo already there, no logo.
    const red = planSteering(
      'brand_awareness',
      source(
        features({ palette: { subjectCoverage: 0.8, weightedCoverage: 0.12 }, logo: { count: 1, areaShare: 0.01 } }),
      ),
      brand,
    );
    expect([red.steering.accentColors, red.steering.logo]).toEqual([undefined, undefined]);
  });

  it('says what it could not pull: no logo, no palette, a neutral palette', () => {
    const noLogo = planSteering('brand_awareness', source(features()), { palette: PALETTE, hasLogo: false });
    expect(noLogo.steering.logo).toBeUndefined();
    expect(noLogo.missing).toEqual(['brand logo (the brand has no logo)']);
    const neutral = planSteering('brand_awareness', source(features()), {
      palette: ['#000000', '#f5f5f5'],
      hasLogo: true,
    });
    expect(neutral.missing).toEqual(['brand colour accent (the palette has only neutral colours)']);
    const none = planSteering('brand_awareness', source(features({ palette: null })), {
      palette: [],
      hasLogo: true,
    });
    expect(none.missing).toEqual(['brand colour accent (the brand has no palette)']);
  });

  it('compounds on the source steering, within the bounds', () => {
    const previous: SceneSteering = {
      baseLayout: 3,
      scale: 1.5,
      contrast: 0.8,
      accentColors: ['#d62828'],
      logo: { placement: 'backdrop' },
    };
    const plan = planSteering(
      'attention_potential',
      source(features({ contrast: { subjectDeltaE: 20 } }), 1),
      brand,
      previous,
    );
    expect(plan.steering.baseLayout).toBe(3); // the original source's layout
    expect(plan.steering.scale).toBeLessThanOrEqual(STEERING_BOUNDS.scale.max);
    expect(plan.steering.scale).toBeGreaterThan(1.5);
    expect(plan.steering.contrast).toBe(1);
    expect(plan.steering.logo).toEqual({ placement: 'backdrop' });
    expect(plan.steering.accentColors).toEqual(['#d62828']);
    // Nothing left to add for the brand: the logo and the colour are already there.
    const again = planSteering('brand_awareness', source(features({ subject: { areaShare: 0.2 } })), brand, previous);
    expect(again.levers).toEqual([]);
    expect(again.steering).toEqual({ ...previous, scale: 1.5, contrast: 0.8 });
  });

  it('never mutates its inputs and always stays in bounds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<SteerObjective>('attention_potential', 'conversion', 'brand_awareness'),
        fc.double({ min: 0.001, max: 0.6, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        fc.record({
          scale: fc.double({ min: 0.6, max: 1.8, noNaN: true }),
          contrast: fc.double({ min: 0, max: 1, noNaN: true }),
          simplifyBackdrop: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        (objective, area, dE, edges, prev) => {
          const f = features({
            subject: { areaShare: area },
            contrast: { subjectDeltaE: dE },
            clutter: { edgeDensity: edges },
          });
          const frozen = JSON.stringify(f);
          const previous = { ...prev };
          const plan = planSteering(objective, source(f), brand, previous);
          expect(JSON.stringify(f)).toBe(frozen);
          expect(previous).toEqual(prev);
          const s = plan.steering;
          expect(s.scale ?? 1).toBeGreaterThanOrEqual(STEERING_BOUNDS.scale.min);
          expect(s.scale ?? 1).toBeLessThanOrEqual(STEERING_BOUNDS.scale.max);
          for (const k of ['contrast', 'simplifyBackdrop'] as const) {
            expect(s[k] ?? 0).toBeGreaterThanOrEqual(0);
            expect(s[k] ?? 0).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('combineSteering', () => {
  it('multiplies sizes, adds strengths, merges colours, keeps the logo; a new placement wins', () => {
    const out = combineSteering(
      { baseLayout: 1, scale: 1.5, contrast: 0.7, accentColors: ['#D62828'], logo: { placement: 'corner' } },
      { scale: 1.5, contrast: 0.6, simplifyBackdrop: 0.4, accentColors: ['#2a6fdb', '#d62828'], placement: 'low-hero' },
    );
    expect(out).toEqual({
      baseLayout: 1,
      placement: 'low-hero',
      scale: 1.8,
      contrast: 1,
      simplifyBackdrop: 0.4,
      accentColors: ['#2a6fdb', '#d62828'],
      logo: { placement: 'corner' },
    });
    expect(combineSteering(undefined, {})).toEqual({});
    expect(combineSteering({ scale: 0.7 }, { scale: 0.7 }).scale).toBe(0.6);
  });

  it('lists only non-neutral palette colours as accents', () => {
    expect(accentCandidates(['#FFFFFF', '#1d1d1b', '#D62828', 'nope', '#d62828', '#2a6fdb'])).toEqual([
      '#d62828',
      '#2a6fdb',
    ]);
  });
});

describe('computeLayout with steering', () => {
  it('forces a layout and scales the products, still inside the margins', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(['1:1', '16:9', '9:16', '4:3'] as const)),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(...LAYOUT_NAMES),
        fc.double({ min: 0.6, max: 1.8, noNaN: true }),
        fc.array(fc.double({ min: 0.2, max: 5, noNaN: true }), { minLength: 1, maxLength: 4 }),
        (ar, variationIndex, preset, scale, aspects) => {
          const { width, height } = outputSize(ar, 1024);
          const items = aspects.map((aspect) => ({ aspect }));
          const l = computeLayout({ width, height, variationIndex, items, preset, scale });
          expect(l.name).toBe(preset);
          for (const p of l.placements) {
            expect(p.left).toBeGreaterThanOrEqual(l.margin);
            expect(p.top).toBeGreaterThanOrEqual(l.margin);
            expect(p.left + p.width).toBeLessThanOrEqual(width - l.margin);
            expect(p.top + p.height).toBeLessThanOrEqual(height - l.margin);
          }
        },
      ),
      { numRuns: 200 },
    );
    const plain = computeLayout({ width: 1024, height: 1024, variationIndex: 1, items: [{ aspect: 1 }] });
    const larger = computeLayout({ width: 1024, height: 1024, variationIndex: 1, items: [{ aspect: 1 }], scale: 1.4 });
    expect(larger.placements[0]!.height / plain.placements[0]!.height).toBeCloseTo(1.4, 1);
    const same = computeLayout({ width: 1024, height: 1024, variationIndex: 1, items: [{ aspect: 1 }], scale: 1 });
    expect(same).toEqual(plain);
  });
});

describe('local scene engine steering', () => {
  const LONG = 384;
  const engine = createLocalSceneEngine({ longSide: LONG });
  let product: Buffer;
  let logo: Buffer;
  let textured: Buffer;
  beforeAll(async () => {
    // A dark product with a transparent background.
    product = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="260">
        <rect x="30" y="40" width="140" height="210" rx="18" fill="#26282c"/>
        <circle cx="100" cy="140" r="30" fill="#f2f2f2"/></svg>`),
    )
      .png()
      .toBuffer();
    logo = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="80">
        <rect x="2" y="10" width="60" height="60" rx="12" fill="#d62828"/>
        <rect x="80" y="25" width="210" height="30" fill="#1d1d1d"/></svg>`),
    )
      .png()
      .toBuffer();
    // A busy backdrop: fine stripes.
    const stripes = Array.from(
      { length: 60 },
      (_, i) => `<rect x="${i * 12}" y="0" width="6" height="720" fill="${i % 3 ? '#7a8a9a' : '#c9b08a'}"/>`,
    ).join('');
    textured = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="720" height="720">${stripes}</svg>`),
    )
      .png()
      .toBuffer();
  });

  function request(over: Partial<SceneRequest> = {}): SceneRequest {
    const { width, height } = outputSize('1:1', LONG);
    return {
      prompt: 'studio shot',
      aspectRatio: '1:1',
      width,
      height,
      variationIndex: 1,
      seed: 3,
      products: [{ bytes: product }],
      palette: PALETTE,
      ...over,
    };
  }
  const rgb = async (png: Buffer) => (await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })).data;
  const scores = async (res: Awaited<ReturnType<typeof engine.generate>>) =>
    scoreImage(
      { data: await rgb(res.png), width: res.width, height: res.height, channels: 3 },
      { productMask: res.productMask, palette: PALETTE, ...(res.logoBoxes ? { logoBoxes: res.logoBoxes } : {}) },
    );

  it('an empty steering changes nothing; the same steering gives the same image', async () => {
    const plain = await engine.generate(request());
    const empty = await engine.generate(request({ steering: {} }));
    expect(empty.png.equals(plain.png)).toBe(true);
    const steering: SceneSteering = { scale: 1.3, contrast: 0.6, simplifyBackdrop: 0.5, accentColors: ['#d62828'] };
    const a = await engine.generate(request({ steering }));
    const b = await createLocalSceneEngine({ longSide: LONG }).generate(request({ steering }));
    expect(a.png.equals(b.png)).toBe(true);
    expect(a.png.equals(plain.png)).toBe(false);
  });

  it('starts from the base layout, forces a placement and scales the product', async () => {
    const v1 = await engine.generate(request());
    const fromBase = await engine.generate(request({ variationIndex: 3, steering: { baseLayout: 1 } }));
    expect(fromBase.productBoxes).toEqual(v1.productBoxes);
    const centred = await engine.generate(request({ steering: { baseLayout: 1, placement: 'centre' } }));
    const box = centred.productBoxes[0]!;
    expect(Math.abs(box.left + box.width / 2 - LONG / 2)).toBeLessThan(4);
    const larger = await engine.generate(request({ steering: { baseLayout: 1, scale: 1.4 } }));
    expect(larger.productBoxes[0]!.height / v1.productBoxes[0]!.height).toBeCloseTo(1.4, 1);
  });

  it('places the logo clear of the product and inside the frame, and reports its box', async () => {
    for (const placement of ['corner', 'backdrop'] as const) {
      const res = await engine.generate(request({ steering: { logo: { bytes: logo, placement } } }));
      expect(res.logoBoxes).toHaveLength(1);
      const l = res.logoBoxes![0]!;
      const p = res.productBoxes[0]!;
      const apart =
        l.left + l.width <= p.left ||
        p.left + p.width <= l.left ||
        l.top + l.height <= p.top ||
        p.top + p.height <= l.top;
      expect(apart).toBe(true);
      expect(l.left).toBeGreaterThan(0.03 * LONG);
      expect(l.top).toBeGreaterThan(0.03 * LONG);
      expect(l.left + l.width).toBeLessThan(0.97 * LONG);
      expect((l.width * l.height) / LONG ** 2).toBeLessThan(0.03);
      const { features } = await scores(res);
      expect(features.logo.contrast).toBeGreaterThan(0.1); // legible against what is behind it
    }
  });

  it('warns instead of failing when the logo is missing or unreadable', async () => {
    const missing = await engine.generate(request({ steering: { logo: { placement: 'corner' } } }));
    expect(missing.logoBoxes).toBeUndefined();
    expect(missing.warnings.map((w) => w.code)).toContain('LOGO_MISSING');
    const bad = await engine.generate(request({ steering: { logo: { bytes: Buffer.from('nope') } } }));
    expect(bad.logoBoxes).toBeUndefined();
    expect(bad.warnings.map((w) => w.code)).toContain('LOGO_UNREADABLE');
  });

  it('brings the accent colour into the frame (not onto the product) and raises brand awareness', async () => {
    const plain = await engine.generate(request());
    const accented = await engine.generate(request({ steering: { accentColors: ['#d62828', '#ffffff'] } }));
    const before = await scores(plain);
    const after = await scores(accented);
    expect(after.features.palette!.weightedCoverage).toBeGreaterThan(before.features.palette!.weightedCoverage + 0.15);
    expect(after.scores.brand_awareness).toBeGreaterThan(before.scores.brand_awareness);
    expect(accented.productMask!.equals(plain.productMask!)).toBe(true);
  });

  it('calms a busy backdrop and separates the product from it', async () => {
    const req = request({ backdrop: textured, backdropHints: { horizon: 0.6, lightAngle: 120 } });
    const busy = await scores(await engine.generate(req));
    const calm = await scores(await engine.generate({ ...req, steering: { simplifyBackdrop: 1 } }));
    expect(calm.features.clutter.edgeDensity).toBeLessThan(busy.features.clutter.edgeDensity * 0.5);
    const separated = await scores(await engine.generate({ ...req, steering: { contrast: 1 } }));
    expect(separated.features.contrast.subjectDeltaE).toBeGreaterThan(busy.features.contrast.subjectDeltaE + 5);
  });
});

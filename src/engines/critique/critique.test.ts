import fc from 'fast-check';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { applyPatches, buildCritique, type CritiqueInput, PATCHED_PROMPT_MAX, PRODUCT_AREA } from './critique.ts';
import { Critique } from './critique.schema.ts';
import type { Box, PixelInput } from './features.ts';
import { SCORE_NAMES, scoreFeatures, scoreImage } from './scores.ts';

type Rgb = [number, number, number];

/** xorshift32 in 0..1, deterministic for a seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** A backdrop with an elliptical product (in the mask), optional clutter, brand band and wordmark. */
function scene(o: {
  width?: number;
  height?: number;
  backdrop: Rgb;
  product: { cx: number; cy: number; rx: number; ry: number; color: Rgb };
  clutter?: number;
  brandBand?: Rgb;
  wordmark?: Rgb;
}): PixelInput & { mask: Uint8Array; logo?: Box } {
  const w = o.width ?? 512;
  const h = o.height ?? 512;
  const data = new Uint8Array(w * h * 3);
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) data.set(o.backdrop, i * 3);
  const rect = (x0: number, y0: number, rw: number, rh: number, c: Rgb) => {
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(h, Math.round(y0 + rh)); y++) {
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(w, Math.round(x0 + rw)); x++) data.set(c, (y * w + x) * 3);
    }
  };
  const p = o.product;
  if (o.brandBand) rect(0, h * 0.84, w, h * 0.16, o.brandBand);
  let logo: Box | undefined;
  if (o.wordmark) {
    // Six blocky letters, 28 px tall, top left.
    const [left, top, lh, lw, t, gap] = [24, 20, 28, 15, 4, 6];
    for (let i = 0; i < 6; i++) {
      const x = left + i * (lw + gap);
      rect(x, top, t, lh, o.wordmark);
      if (i % 2 === 0) rect(x + lw - t, top, t, lh, o.wordmark);
      if (i % 3 !== 1) rect(x, top, lw, t, o.wordmark);
      rect(x, top + (lh - t) / 2, lw, t, o.wordmark);
      if (i % 3 !== 2) rect(x, top + lh - t, lw, t, o.wordmark);
    }
    logo = { left, top, width: 6 * lw + 5 * gap, height: lh };
  }
  if (o.clutter) {
    const rand = rng(o.clutter);
    const pad = 0.03 * w;
    for (let k = 0, placed = 0; placed < o.clutter && k < 5000; k++) {
      const rw = w * (0.03 + rand() * 0.1);
      const rh = h * (0.03 + rand() * 0.1);
      const x = rand() * (w - rw);
      const y = rand() * (h - rh);
      const c: Rgb = [Math.floor(rand() * 256), Math.floor(rand() * 256), Math.floor(rand() * 256)];
      if (x < p.cx + p.rx + pad && x + rw > p.cx - p.rx - pad && y < p.cy + p.ry + pad && y + rh > p.cy - p.ry - pad)
        continue;
      rect(x, y, rw, rh, c);
      placed++;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const u = (x + 0.5 - p.cx) / p.rx;
      const v = (y + 0.5 - p.cy) / p.ry;
      if (u * u + v * v > 1) continue;
      const lit = 1 + 0.25 * Math.exp(-(((u + 0.3) / 0.25) ** 2));
      const seam = Math.abs(v - 0.2) < 0.03 ? 0.6 : 1;
      data.set(
        p.color.map((ch) => Math.min(255, Math.round(ch * lit * seam))),
        (y * w + x) * 3,
      );
      mask[y * w + x] = 255;
    }
  }
  return { data, width: w, height: h, channels: 3, mask, logo };
}

const BRAND = ['#c8102e', '#1d1d1b'];
const CREATED = '2025-03-14T10:00:00.000Z';

/** A small, low-contrast product on a cluttered backdrop of nearly its own colour. */
const weak = () =>
  scene({
    backdrop: [160, 150, 140],
    product: { cx: 300, cy: 200, rx: 45, ry: 35, color: [150, 140, 130] },
    clutter: 40,
  });
/** A large red product on a plain light backdrop, with a brand band and a wordmark logo. */
const strong = () =>
  scene({
    backdrop: [240, 238, 230],
    product: { cx: 256, cy: 270, rx: 150, ry: 120, color: [200, 16, 46] },
    brandBand: [200, 16, 46],
    wordmark: [29, 29, 27],
  });

function input(s: ReturnType<typeof scene>, extra: Partial<CritiqueInput> = {}): CritiqueInput {
  const { scores, features } = scoreImage(s, {
    productMask: s.mask,
    palette: BRAND,
    ...(s.logo ? { logoBoxes: [s.logo] } : {}),
  });
  return {
    features,
    scores,
    campaignId: 'forge-1',
    prompt: 'a bottle on a table',
    createdAt: CREATED,
    palette: BRAND,
    ...extra,
  };
}

const check = Compile(Critique);

/** Every object key is declared by the schema and every required key is there. */
function declaredKeysOnly(schema: unknown, value: unknown, path = ''): string[] {
  const s = schema as { type?: string; properties?: Record<string, unknown>; items?: unknown; required?: string[] };
  if (s.properties && value && typeof value === 'object') {
    const keys = Object.keys(value);
    const extra = keys.filter((k) => !(k in s.properties!)).map((k) => `${path}/${k} undeclared`);
    const missing = (s.required ?? []).filter((k) => !keys.includes(k)).map((k) => `${path}/${k} missing`);
    return [
      ...extra,
      ...missing,
      ...keys.flatMap((k) =>
        k in s.properties!
          ? declaredKeysOnly(s.properties![k], (value as Record<string, unknown>)[k], `${path}/${k}`)
          : [],
      ),
    ];
  }
  if (s.items && Array.isArray(value)) return value.flatMap((v, i) => declaredKeysOnly(s.items, v, `${path}/${i}`));
  return [];
}

function numbers(value: unknown, out: number[] = []): number[] {
  if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) numbers(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) numbers(v, out);
  return out;
}

function expectValid(c: Critique) {
  expect([...check.Errors(c)]).toEqual([]);
  expect(check.Check(c)).toBe(true);
  expect(declaredKeysOnly(Critique, c)).toEqual([]);
  for (const n of numbers(c)) expect(Number.isFinite(n)).toBe(true);
  const tones = Object.values(c.image_intelligence.emotional_tone_presence);
  expect(tones.length).toBeGreaterThan(0);
  expect(tones.reduce((s, p) => s + Number.parseInt(p, 10), 0)).toBe(100);
  for (const r of c.recommendations) {
    for (const d of r.diagnostics) {
      expect(d.assessment).toBe(d.outcome === 'pass');
      expect(d.outcome === 'pass').toBe(d.score >= 70);
      expect(d.outcome === 'critical').toBe(d.score < 40);
      expect(d.max_potential).toBeGreaterThanOrEqual(d.score);
    }
    const gains = r.recommendation_details.practical_recommendations.map((p) => p.estimated_gain);
    for (const g of gains) expect(g).toBeGreaterThan(0);
    expect(gains).toEqual([...gains].sort((a, b) => b - a));
  }
}

describe('buildCritique', () => {
  it('flags a small, low-contrast product on a cluttered backdrop and ranks measured fixes', () => {
    const i = input(weak(), { objective: 'attention_potential' });
    const c = buildCritique(i);
    expectValid(c);
    expect(c.recommendations.map((r) => r.score_name)).toEqual([
      'attention_potential',
      'conversion',
      'brand_awareness',
    ]);
    const diag = new Map(c.recommendations.flatMap((r) => r.diagnostics).map((d) => [d.diagnostic, d]));
    for (const name of ['product_prominence', 'background_clutter', 'contrast_with_background'] as const) {
      expect(diag.get(name)?.assessment, name).toBe(false);
    }
    expect(diag.get('product_prominence')!.outcome).toBe('critical');
    expect(diag.get('product_prominence')!.description).toContain(
      `${Math.round(i.features.subject.areaShare * 1000) / 10}%`,
    );
    expect(diag.get('contrast_with_background')!.description).toContain(
      `ΔE ${Math.round(i.features.contrast.subjectDeltaE)}`,
    );
    expect(diag.get('sharpness')!.outcome).toBe('pass');

    const attention = c.recommendations[0]!;
    expect(attention.score).toBe(i.scores.attention_potential);
    expect(attention.general_assessment).toBe('poor');
    const recs = attention.recommendation_details.practical_recommendations;
    expect(recs.length).toBeGreaterThanOrEqual(3);
    const failing = new Set([...diag.values()].filter((d) => !d.assessment).map((d) => d.diagnostic));
    for (const r of recs) for (const d of r.addresses_diagnostics) expect(failing.has(d)).toBe(true);
    // The prominence gain is the score recomputed with the product at its target size.
    const bigger = structuredClone(i.features);
    bigger.subject.areaShare = PRODUCT_AREA.target;
    const prominence = recs.find((r) => r.addresses_diagnostics.includes('product_prominence'))!;
    expect(prominence.estimated_gain).toBeCloseTo(
      scoreFeatures(bigger).attention_potential - scoreFeatures(i.features).attention_potential,
      5,
    );
    expect(prominence.prompt_patch).toContain('larger');
    expect(prominence.text).toContain('1.9%');
    expect(recs.map((r) => r.prompt_patch).join(' ')).toMatch(/background|props/);
    // Conversion and brand recommendations, too, come only from diagnostics that move them.
    const conversion = c.recommendations[1]!.recommendation_details.practical_recommendations;
    expect(conversion.some((r) => r.addresses_diagnostics.includes('background_clutter'))).toBe(true);
    expect(conversion.some((r) => r.addresses_diagnostics.includes('colourfulness'))).toBe(false);
    const brand = c.recommendations[2]!.recommendation_details.practical_recommendations;
    expect(brand.some((r) => r.prompt_patch.includes('red'))).toBe(true);
    expect(c.recommendations[1]!.diagnostics.some((d) => d.diagnostic === 'colourfulness')).toBe(false);
  });

  it('has little or nothing to recommend for a strong image', () => {
    const i = input(strong(), { brandTone: ['premium', 'friendly'] });
    const c = buildCritique(i);
    expectValid(c);
    expect(c.recommendations.map((r) => r.score_name)).toEqual([...SCORE_NAMES]);
    for (const r of c.recommendations) {
      expect(['good', 'excellent']).toContain(r.general_assessment);
      expect(r.recommendation_details.practical_recommendations.length).toBeLessThanOrEqual(1);
    }
    expect(c.reactions).toEqual({
      attention_potential: i.scores.attention_potential,
      general_assessment: c.recommendations[0]!.general_assessment,
    });
    const ii = c.image_intelligence;
    expect(ii.features.brand.number_branding_elements).toBe(1);
    expect(ii.average_branding_area).toBeCloseTo(i.features.logo.areaShare * 100, 1);
    expect(ii.features.number_of_focal_points).toBe(i.features.saliency.focalPointCount);
    expect(ii.average_focal_points).toBe(i.features.saliency.focalPointCount);
    expect(ii.features.description.text).toMatch(/covering \d+% of the frame/);
    expect(Object.keys(ii.emotional_tone_presence)).toContain(ii.features.description.mood);
    expect(c.model_versions).toEqual({
      prediction: 'atelier-pixel-1',
      recommendation: 'atelier-rules-1',
      prediction_params: {
        age_range: '18-65',
        country: 'global',
        device_type: 'mobile',
        gender_distribution: 'balanced',
        view_time: 'any',
        platform_format: 'feed',
        view_month: 'march',
      },
    });
  });

  it('is deterministic', () => {
    const first = JSON.stringify(buildCritique(input(weak(), { objective: 'conversion' })));
    for (let k = 0; k < 2; k++)
      expect(JSON.stringify(buildCritique(input(weak(), { objective: 'conversion' })))).toBe(first);
    const i = input(strong());
    expect(JSON.stringify(buildCritique(i))).toBe(JSON.stringify(buildCritique(structuredClone(i))));
    // The input features are not modified.
    const before = JSON.stringify(i.features);
    buildCritique(i);
    expect(JSON.stringify(i.features)).toBe(before);
  });

  it('lists the objective first, skips what it cannot judge and reads the format from the frame', () => {
    const s = scene({
      width: 288,
      height: 512,
      backdrop: [30, 30, 34],
      product: { cx: 144, cy: 300, rx: 70, ry: 110, color: [230, 200, 60] },
    });
    const { scores, features } = scoreImage(s, { productMask: s.mask });
    const c = buildCritique({
      features,
      scores,
      campaignId: 'f',
      objective: 'brand_awareness',
      prompt: 'p',
      createdAt: '2024-11-02T00:00:00Z',
    });
    expectValid(c);
    expect(c.recommendations.map((r) => r.score_name)).toEqual([
      'brand_awareness',
      'attention_potential',
      'conversion',
    ]);
    expect(c.recommendations.map((r) => r.campaign_objective)).toEqual(['awareness', 'attention', 'conversion']);
    const names = c.recommendations.flatMap((r) => r.diagnostics.map((d) => d.diagnostic));
    expect(names).not.toContain('brand_colour_presence');
    expect(names).toContain('brand_mark_visibility');
    expect(c.model_versions.prediction_params.platform_format).toBe('story');
    expect(c.model_versions.prediction_params.view_month).toBe('november');
  });

  it('keeps every number finite and the object valid for any image', () => {
    const image = fc.record({
      width: fc.integer({ min: 1, max: 48 }),
      height: fc.integer({ min: 1, max: 48 }),
      seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      mode: fc.constantFrom('noise', 'flat', 'blocks'),
      mask: fc.constantFrom('none', 'empty', 'full', 'random'),
      palette: fc.array(fc.integer({ min: 0, max: 0xffffff }), { maxLength: 3 }),
      logo: fc.boolean(),
      objective: fc.option(fc.constantFrom(...SCORE_NAMES), { nil: undefined }),
    });
    fc.assert(
      fc.property(image, (r) => {
        const rand = rng(r.seed);
        const n = r.width * r.height;
        const flat = Math.floor(rand() * 256);
        const data = Uint8Array.from({ length: n * 3 }, (_, i) => {
          const px = Math.floor(i / 3);
          return r.mode === 'noise'
            ? Math.floor(rand() * 256)
            : r.mode === 'flat'
              ? flat
              : ((px % r.width) >> 2) % 2 === (Math.floor(px / r.width) >> 2) % 2
                ? 250
                : 5;
        });
        const productMask =
          r.mask === 'none'
            ? undefined
            : Uint8Array.from({ length: n }, () =>
                r.mask === 'full' ? 255 : r.mask === 'random' ? Math.floor(rand() * 256) : 0,
              );
        const palette = r.palette.map((c) => `#${c.toString(16).padStart(6, '0')}`);
        const { scores, features } = scoreImage(
          { data, width: r.width, height: r.height, channels: 3 },
          {
            palette,
            ...(productMask ? { productMask } : {}),
            ...(r.logo ? { logoBoxes: [{ left: 0, top: 0, width: 4, height: 3 }] } : {}),
          },
        );
        const c = buildCritique({
          features,
          scores,
          campaignId: 'x',
          prompt: 'p',
          createdAt: CREATED,
          palette,
          ...(r.objective ? { objective: r.objective } : {}),
        });
        expectValid(c);
      }),
      { numRuns: 60 },
    );
  });
});

describe('applyPatches', () => {
  const c = buildCritique(input(weak()));
  const patches = c.recommendations
    .find((r) => r.score_name === 'attention_potential')!
    .recommendation_details.practical_recommendations.map((p) => p.prompt_patch);

  it("appends the objective's top patches, once", () => {
    const out = applyPatches('A bottle on a wooden table', c, 'attention_potential');
    expect(out.applied).toEqual(patches.slice(0, 3));
    expect(out.prompt.startsWith('A bottle on a wooden table. With ')).toBe(true);
    for (const p of out.applied) expect(out.prompt).toContain(p);
    // Already there: nothing more is added.
    const again = applyPatches(out.prompt, c, 'attention_potential', 3);
    expect(again.applied).toEqual(patches.slice(3, 6));
    expect(applyPatches('x', c, 'attention_potential', 1).applied).toEqual(patches.slice(0, 1));
  });

  it('leaves a prompt as is when there is nothing to add', () => {
    const none = buildCritique(input(strong()));
    const out = applyPatches('a red bottle', none, 'attention_potential');
    expect(out).toEqual({ prompt: 'a red bottle', applied: [] });
  });

  it(`never grows a prompt beyond ${PATCHED_PROMPT_MAX} characters`, () => {
    for (const len of [2000, 2900, 2990, 3100]) {
      const prompt = 'a'.repeat(len);
      const out = applyPatches(prompt, c, 'attention_potential');
      expect(out.prompt.length).toBeLessThanOrEqual(Math.max(PATCHED_PROMPT_MAX, len));
      if (out.applied.length === 0) expect(out.prompt).toBe(prompt);
    }
    expect(applyPatches('a'.repeat(2000), c, 'attention_potential').applied.length).toBe(3);
  });
});

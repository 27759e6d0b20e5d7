import sharp from 'sharp';
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Critique } from '../src/engines/critique/critique.schema.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { productFixture, productOnWhite, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

const checkCritique = Compile(Critique);
const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

describe.each(dbKinds())('Critique and refinement over HTTP (%s)', (kind) => {
  let t: TestApp;
  let key: string; // business plan: critique
  let proKey: string; // pro plan: no critique
  let otherKey: string;
  let brandId: string;
  let product: string;
  let forge: Json;

  const post = (url: string, payload: unknown, k = key) =>
    t.request({ method: 'POST', url, key: k, payload: payload as object });
  const get = (url: string, k = key) => t.request({ method: 'GET', url, key: k });
  const refine = (payload: Json, forgeId = forge.sceneForgeId, k = key) =>
    post(`/v1/scene-forges/${forgeId}/refinements`, payload, k);
  const expectError = (res: { statusCode: number; json(): Json; body: string }, status: number, code: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code, res.body).toBe(code);
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    key = (await t.bootstrap({ plan: 'business' })).apiKey;
    proKey = (await t.bootstrap({ plan: 'pro', orgName: 'Pro' })).apiKey;
    otherKey = (await t.bootstrap({ orgName: 'Other' })).apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, 'Solidus');
    product = (
      await uploadCompleteAssets(t, key, brandId, [
        { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_black_2.png') },
      ])
    )[0]!;
    const res = await post(`/v1/brands/${brandId}/scene-forges`, {
      blendingPrompt: 'The cap on a concrete floor, moody',
      promptIsEnhanced: false,
      productAssetIds: [product],
    });
    expect(res.statusCode, res.body).toBe(202);
    forge = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`);
    expect(forge.status).toBe('completed');
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it('gives every completed variation a critique on a plan with the critique feature', () => {
    for (const v of forge.variations) {
      expect(v.critiqueStatus).toBe('completed');
      expect(checkCritique.Check(v.critique), JSON.stringify([...checkCritique.Errors(v.critique)].slice(0, 3))).toBe(
        true,
      );
      expect(v.critique.reactions.attention_potential).toBe(v.scores.attention_potential);
      const names = v.critique.recommendations.map((r: Json) => r.score_name).sort();
      expect(names).toEqual(['attention_potential', 'brand_awareness', 'conversion']);
    }
  });

  it('gives scores only, no critique, on a plan without it', async () => {
    const b = await createBrand(t, proKey, 'Pro brand');
    const [p] = await uploadCompleteAssets(t, proKey, b, [
      { name: 'p.jpg', type: 'image/jpeg', bytes: await productOnWhite() },
    ]);
    const res = await post(
      `/v1/brands/${b}/scene-forges`,
      { blendingPrompt: 'Studio', promptIsEnhanced: false, productAssetIds: [p] },
      proKey,
    );
    const done = await settledGeneration(t, proKey, `/v1/scene-forges/${res.json().sceneForgeId}`);
    for (const v of done.variations) {
      expect(v.scores).toBeDefined();
      expect(v).not.toHaveProperty('critique');
      expect(v).not.toHaveProperty('critiqueStatus');
    }
  });

  it('refines a variation toward a score: a new generation with deltas, and refinements of refinements', async () => {
    const source = forge.variations[0];
    const res = await refine({
      generatedImageId: source.generatedImageId,
      steerObjective: 'attention_potential',
      variationCount: 2,
    });
    expect(res.statusCode, res.body).toBe(202);
    const during = res.json();
    expect(during.status).toBe('processing');
    expect(during.variations).toHaveLength(4);
    const [r] = during.refinedVariations;
    expect(r).toMatchObject({
      generation: 2,
      steerObjective: 'attention_potential',
      status: 'pending',
      sourceVariation: {
        generatedImageId: source.generatedImageId,
        label: '#1',
        scores: source.scores,
        sourceDeleted: false,
      },
    });
    expect(['applied', 'partial', 'none']).toContain(r.steeringApplied);
    expect(
      r.variations.map((v: Json) => [v.label, v.generation, v.status, v.sourceVariationId, v.refinementId]),
    ).toEqual([
      ['#5', 2, 'pending', source.generatedImageId, r.refinementId],
      ['#6', 2, 'pending', source.generatedImageId, r.refinementId],
    ]);

    const done = await settledGeneration(t, key, `/v1/scene-forges/${forge.sceneForgeId}`);
    expect(done.status).toBe('completed');
    const refined = done.refinedVariations[0];
    expect(refined.status).toBe('completed');
    for (const v of refined.variations) {
      expect(v.status).toBe('completed');
      for (const k of ['attention_potential', 'conversion', 'brand_awareness']) {
        expect(v.scoreDeltas[k]).toBeCloseTo(v.scores[k] - source.scores[k], 1);
      }
      expect(v.critiqueStatus).toBe('completed');
    }

    // A refinement of a refinement: generation 3, from #5.
    const second = await refine({
      generatedImageId: refined.variations[0].generatedImageId,
      steerObjective: 'conversion',
      variationCount: 1,
    });
    expect(second.statusCode, second.body).toBe(202);
    const after = await settledGeneration(t, key, `/v1/scene-forges/${forge.sceneForgeId}`);
    const third = after.refinedVariations[1];
    expect(third).toMatchObject({
      generation: 3,
      steerObjective: 'conversion',
      sourceVariation: { label: '#5' },
      status: 'completed',
    });
    expect(third.variations.map((v: Json) => v.label)).toEqual(['#7']);
    // The list shows the same forge as the GET.
    const listed = (await get(`/v1/brands/${brandId}/scene-forges`))
      .json()
      .data.find((f: Json) => f.sceneForgeId === forge.sceneForgeId);
    expect(listed.refinedVariations.length).toBe(2);
  });

  it('places the brand logo when refining toward brand awareness for a brand that has one', async () => {
    const b = await createBrand(t, key, 'With logo');
    const logoPng = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><rect width="400" height="120" rx="16" fill="#c8102e"/><text x="200" y="80" font-size="64" font-family="sans-serif" font-weight="bold" fill="#fff" text-anchor="middle">ACME</text></svg>',
      ),
    )
      .png()
      .toBuffer();
    const [logo, p] = await uploadCompleteAssets(t, key, b, [
      { name: 'logo.png', type: 'image/png', bytes: logoPng, isLogo: true },
      { name: 'p.jpg', type: 'image/jpeg', bytes: await productOnWhite() },
    ]);
    const brand = await get(`/v1/brands/${b}`);
    const put = await t.request({
      method: 'PUT',
      url: `/v1/brands/${b}`,
      key,
      headers: { 'if-match': brand.headers.etag as string },
      payload: { logoAssetId: logo },
    });
    expect(put.statusCode, put.body).toBe(200);
    const res = await post(`/v1/brands/${b}/scene-forges`, {
      blendingPrompt: 'Studio shot',
      promptIsEnhanced: false,
      productAssetIds: [p],
    });
    const f = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`);
    const r = await refine(
      { generatedImageId: f.variations[0].generatedImageId, steerObjective: 'brand_awareness', variationCount: 1 },
      f.sceneForgeId,
    );
    expect(r.statusCode, r.body).toBe(202);
    const planned = r.json().refinedVariations[0];
    expect(planned.levers).toContain('brand logo in a corner');
    // No Brand DNA here, so the brand-colour lever cannot be pulled: partial.
    expect(planned.steeringApplied).toBe('partial');
    const done = await settledGeneration(t, key, `/v1/scene-forges/${f.sceneForgeId}`);
    const v = done.refinedVariations[0].variations[0];
    expect(v.status).toBe('completed');
    expect(v.warnings.map((w: Json) => w.code)).not.toContain('LOGO_MISSING');
    expect(v.scoreDeltas.brand_awareness).toBeGreaterThan(0);
  });

  it('refuses bad refinement requests with the right errors and takes no units', async () => {
    const before = (await t.deps.usage.periodUsage((await t.deps.access.authenticate(key))!.org.id)).used
      .image_generations;
    const v = forge.variations[1].generatedImageId;
    for (const body of [
      {},
      { generatedImageId: 'x' },
      { generatedImageId: v, steerObjective: 'likes' },
      { generatedImageId: v, variationCount: 5 },
      { generatedImageId: v, variationCount: 0 },
      { generatedImageId: v, extra: 1 },
    ]) {
      expectError(await refine(body), 400, 'INVALID_REQUEST');
    }
    expectError(await refine({ generatedImageId: MISSING }), 404, 'NOT_FOUND');
    expectError(await refine({ generatedImageId: v }, MISSING), 404, 'NOT_FOUND');
    expectError(await refine({ generatedImageId: v }, forge.sceneForgeId, otherKey), 404, 'NOT_FOUND');
    // A variation that is not completed yet.
    const pending = await post(`/v1/brands/${brandId}/scene-forges`, {
      blendingPrompt: 'x',
      promptIsEnhanced: false,
      productAssetIds: [product],
    });
    const p = pending.json();
    const notDone = await refine({ generatedImageId: p.variations[0].generatedImageId }, p.sceneForgeId);
    if (notDone.statusCode !== 202) expectError(notDone, 409, 'INVALID_STATUS_FOR_ACTION');
    await settledGeneration(t, key, `/v1/scene-forges/${p.sceneForgeId}`);
    const after = (await t.deps.usage.periodUsage((await t.deps.access.authenticate(key))!.org.id)).used
      .image_generations;
    expect(after - before).toBe(notDone.statusCode === 202 ? 6 : 4);
  });
});

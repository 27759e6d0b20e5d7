import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { productOnWhite } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * Hostile input to the generation endpoints (property-based): whatever the body or query, the
 * answer is never a 5xx, and every 202 is a resource the matching GET returns. Workers run only
 * for the asset upload; the generation jobs stay queued.
 */
describe.each(dbKinds())('generation endpoints under arbitrary input (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let brandId: string;
  let otherBrandId: string;
  let product: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    key = (await t.bootstrap()).apiKey;
    const other = (await t.bootstrap({ orgName: 'Other' })).apiKey;
    await t.deps.startWorkers({ queues: ['media'] });
    brandId = await createBrand(t, key, 'Audit');
    otherBrandId = await createBrand(t, other, 'Other');
    product = (
      await uploadCompleteAssets(t, key, brandId, [
        { name: 'p.jpg', type: 'image/jpeg', bytes: await productOnWhite() },
      ])
    )[0]!;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ unit: 'grapheme', minLength: 2400, maxLength: 2600 }),
    fc.constantFrom('', ' ', 'a\u0000b', '\uD800', 'vertical story, 16:9'),
  );
  const ids = () => fc.constantFrom(product, product.toUpperCase(), '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b', 'nope', '');
  const anything = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 5 }),
    fc.array(fc.integer(), { maxLength: 3 }),
  );

  it('scene forge bodies', async () => {
    const body = fc.record(
      {
        blendingPrompt: fc.oneof(text, anything),
        promptIsEnhanced: fc.oneof(fc.boolean(), anything),
        partner: fc.oneof(fc.constantFrom('default', 'partner-1', 'partner-3', 'partner-9'), anything),
        theme: fc.oneof(text, fc.constant(null)),
        aspectRatio: fc.oneof(fc.constantFrom('1:1', '9:16', '21:9', '5:4', null), anything),
        productAssetIds: fc.oneof(fc.array(ids(), { maxLength: 7 }), anything),
        environmentAssetId: fc.oneof(ids(), fc.constant(null), anything),
        useBrandDna: fc.oneof(fc.boolean(), fc.constant(null), anything),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom(brandId, otherBrandId), async (b, brand) => {
        const res = await t.request({ method: 'POST', url: `/v1/brands/${brand}/scene-forges`, key, payload: b });
        expect(res.statusCode, `${JSON.stringify(b)} ${res.body}`).toBeLessThan(500);
        if (res.statusCode === 202) {
          const got = await t.request({ method: 'GET', url: `/v1/scene-forges/${res.json().sceneForgeId}`, key });
          expect(got.statusCode).toBe(200);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('enhancement and environment bodies', async () => {
    const enhancement = fc.record(
      {
        originalPrompt: fc.oneof(text, anything),
        productAssetIds: fc.oneof(fc.array(ids(), { maxLength: 7 }), anything),
        environmentAssetId: fc.oneof(ids(), fc.constant(null)),
        useBrandDna: fc.oneof(fc.boolean(), fc.constant(null), anything),
        partner: fc.oneof(fc.constantFrom('default', 'partner-2'), anything),
        aspectRatio: fc.oneof(fc.constantFrom('4:3', 'x'), anything),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(enhancement, async (b) => {
        const res = await t.request({
          method: 'POST',
          url: `/v1/brands/${brandId}/scene-forge-prompt-enhancements`,
          key,
          payload: b,
        });
        expect(res.statusCode, `${JSON.stringify(b)} ${res.body}`).toBeLessThan(500);
      }),
      { numRuns: 80 },
    );
    await fc.assert(
      fc.asyncProperty(fc.record({ prompt: fc.oneof(text, anything) }, { requiredKeys: [] }), async (b) => {
        const res = await t.request({
          method: 'POST',
          url: `/v1/brands/${brandId}/environment-generations`,
          key,
          payload: b,
        });
        expect(res.statusCode, `${JSON.stringify(b)} ${res.body}`).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });

  it('list query strings', async () => {
    const names = fc.constantFrom('partner', 'page', 'limit', 'sortBy', 'sortOrder', 'status');
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.integer().map(String),
      fc.constantFrom('all', 'default', 'updatedAt', 'asc', 'completed', '1e300', '%00', '1000001'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(names, value), { maxLength: 5 }), async (q) => {
        const query = q.map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('&');
        const res = await t.request({ method: 'GET', url: `/v1/brands/${brandId}/scene-forges?${query}`, key });
        expect(res.statusCode, `${query} ${res.body}`).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
  });
});

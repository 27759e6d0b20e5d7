import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { download, productFixture, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

describe.each(dbKinds())('Environment generation and scene prompt enhancement over HTTP (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let otherKey: string;
  let brandId: string;
  let product: string;

  const post = (url: string, payload: unknown, k = key) =>
    t.request({ method: 'POST', url, key: k, payload: payload as object });
  const get = (url: string, k = key) => t.request({ method: 'GET', url, key: k });
  const used = async (pool: string, org = orgId) =>
    ((await t.deps.usage.periodUsage(org)).used as Record<string, number>)[pool] ?? 0;
  const expectError = (res: { statusCode: number; json(): Json; body: string }, status: number, code: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code, res.body).toBe(code);
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    const a = await t.bootstrap({ orgName: 'Org A' });
    key = a.apiKey;
    orgId = a.organizationId;
    otherKey = (await t.bootstrap({ orgName: 'Org B' })).apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, 'Solidus');
    product = (
      await uploadCompleteAssets(t, key, brandId, [
        { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
      ])
    )[0]!;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  describe('environment generation', () => {
    it('makes a complete environment asset that a scene forge can use', async () => {
      const before = await used('environment_generations');
      const res = await post(`/v1/brands/${brandId}/environment-generations`, {
        prompt: 'White marble counter against a warm plaster wall, soft morning light from the left',
      });
      expect(res.statusCode, res.body).toBe(202);
      const created = res.json();
      expect(created).toMatchObject({ brandId, status: 'pending' });
      expect(created).not.toHaveProperty('generatedAsset');
      expect(await used('environment_generations')).toBe(before + 1);

      const done = await settledGeneration(t, key, `/v1/environment-generations/${created.environmentGenerationId}`);
      expect(done).toMatchObject({ status: 'completed', generatedAsset: { assetType: 'environment' } });
      const png = await download(t, done.generatedAsset.url);
      const stats = await sharp(png).stats();
      expect(stats.channels[0]!.stdev).toBeGreaterThan(3); // not a flat fill
      const asset = (await get(`/v1/assets/${done.generatedAsset.assetId}`)).json();
      expect(asset).toMatchObject({
        status: 'complete',
        brandId,
        metadata: { type: 'environment', fileType: 'image' },
      });

      const forge = await post(`/v1/brands/${brandId}/scene-forges`, {
        blendingPrompt: 'The cap on the counter',
        promptIsEnhanced: false,
        productAssetIds: [product],
        environmentAssetId: done.generatedAsset.assetId,
      });
      expect(forge.statusCode, forge.body).toBe(202);
      expect((await settledGeneration(t, key, `/v1/scene-forges/${forge.json().sceneForgeId}`)).status).toBe(
        'completed',
      );
    });

    it('validates the prompt and scopes reads to the organization', async () => {
      const before = await used('environment_generations');
      for (const body of [
        {},
        { prompt: '' },
        { prompt: 'x'.repeat(2501) },
        { prompt: ' ' },
        { prompt: 3 },
        { prompt: 'ok', extra: 1 },
      ]) {
        expectError(await post(`/v1/brands/${brandId}/environment-generations`, body), 400, 'INVALID_REQUEST');
      }
      expectError(await post(`/v1/brands/${MISSING}/environment-generations`, { prompt: 'x' }), 404, 'BRAND_NOT_FOUND');
      expectError(
        await post(`/v1/brands/${brandId}/environment-generations`, { prompt: 'x' }, otherKey),
        404,
        'BRAND_NOT_FOUND',
      );
      expect(await used('environment_generations')).toBe(before);
      const mine = (
        await post(`/v1/brands/${brandId}/environment-generations`, { prompt: 'Sand dunes at dusk' })
      ).json();
      expectError(await get(`/v1/environment-generations/${mine.environmentGenerationId}`, otherKey), 404, 'NOT_FOUND');
      expectError(await get(`/v1/environment-generations/${MISSING}`), 404, 'NOT_FOUND');
      await settledGeneration(t, key, `/v1/environment-generations/${mine.environmentGenerationId}`);
    });
  });

  describe('scene prompt enhancement', () => {
    const base = () => `/v1/brands/${brandId}/scene-forge-prompt-enhancements`;

    it('enhances a prompt from the products, keeps the original for undo, and is accepted by a forge', async () => {
      const before = await used('prompt_enhancements');
      const res = await post(base(), {
        originalPrompt: 'the cap on a beach, vertical story',
        productAssetIds: [product],
        aspectRatio: '16:9',
        partner: 'partner-2',
      });
      expect(res.statusCode, res.body).toBe(202);
      const created = res.json();
      expect(created).toMatchObject({
        brandId,
        status: 'pending',
        originalPrompt: 'the cap on a beach, vertical story',
        partner: 'partner-2',
        warnings: [],
      });
      expect(await used('prompt_enhancements')).toBe(before + 1);
      const done = await settledGeneration(t, key, `${base()}/${created.promptEnhancementId}`);
      expect(done.status).toBe('completed');
      expect(done.optimizedPrompt.length).toBeGreaterThan(done.originalPrompt.length);
      expect(done.optimizedPrompt.toLowerCase()).toContain('beach');
      expect(done.optimizedPrompt).not.toMatch(/#[0-9a-f]{6}/i);
      expect(done.theme.length).toBeGreaterThan(0);
      expect(done.warnings.map((w: Json) => w.code)).toContain('HARDSPEC_ASPECT_MISMATCH');

      const forge = await post(`/v1/brands/${brandId}/scene-forges`, {
        blendingPrompt: done.optimizedPrompt,
        promptIsEnhanced: true,
        productAssetIds: [product],
      });
      expect(forge.statusCode, forge.body).toBe(202);
      expect(forge.json()).toMatchObject({
        promptIsEnhanced: true,
        originalPrompt: 'the cap on a beach, vertical story',
        prompt: done.optimizedPrompt,
        theme: done.theme,
      });
      await settledGeneration(t, key, `/v1/scene-forges/${forge.json().sceneForgeId}`);
    });

    it('validates the body and scopes reads to the brand and organization', async () => {
      const before = await used('prompt_enhancements');
      for (const body of [
        {},
        { originalPrompt: '' },
        { originalPrompt: 'x'.repeat(2501) },
        { originalPrompt: 'ok', productAssetIds: Array(6).fill(product) },
        { originalPrompt: 'ok', partner: 'nope' },
        { originalPrompt: 'ok', aspectRatio: '1:2' },
        { originalPrompt: 'ok', useBrandDna: 'yes' },
      ]) {
        expectError(await post(base(), body), 400, 'INVALID_REQUEST');
      }
      expectError(await post(base(), { originalPrompt: 'ok', productAssetIds: [MISSING] }), 404, 'ASSET_NOT_FOUND');
      expect(await used('prompt_enhancements')).toBe(before);
      const mine = (await post(base(), { originalPrompt: 'a cap on a desk' })).json();
      expectError(await get(`${base()}/${mine.promptEnhancementId}`, otherKey), 404, 'BRAND_NOT_FOUND');
      const otherBrand = await createBrand(t, key, 'Second brand');
      expectError(
        await get(`/v1/brands/${otherBrand}/scene-forge-prompt-enhancements/${mine.promptEnhancementId}`),
        404,
        'NOT_FOUND',
      );
      const done = await settledGeneration(t, key, `${base()}/${mine.promptEnhancementId}`);
      expect(done.warnings.map((w: Json) => w.code)).toContain('NO_PRODUCT_CONTEXT');
    });
  });
});

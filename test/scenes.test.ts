import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { download, productFixture, productOnWhite, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets, uploadingAsset } from './helpers/upload.ts';

const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

describe.each(dbKinds())('Scene forges over HTTP (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let otherKey: string;
  let freeKey: string;
  let freeBrand: string;
  let brandId: string;
  let product: string;
  let product2: string;
  let otherAsset: string;
  let forge: Json; // a completed forge of brandId (1:1, one product)

  const post = (url: string, payload: unknown, k = key) =>
    t.request({ method: 'POST', url, key: k, payload: payload as object });
  const get = (url: string, k = key) => t.request({ method: 'GET', url, key: k });
  const createForge = (payload: Json, b = brandId, k = key) =>
    post(`/v1/brands/${b}/scene-forges`, { promptIsEnhanced: false, ...payload }, k);
  const imageUnits = async (org = orgId) => (await t.deps.usage.periodUsage(org)).used.image_generations;
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
    const free = await t.bootstrap({ orgName: 'Free', plan: 'free' });
    freeKey = free.apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, 'Solidus');
    freeBrand = await createBrand(t, freeKey, 'Free brand');
    const ids = await uploadCompleteAssets(t, key, brandId, [
      { name: 'mugs.png', type: 'image/png', bytes: productFixture('solidus_mug_set.png') },
      { name: 'bottle.jpg', type: 'image/jpeg', bytes: await productOnWhite() },
    ]);
    product = ids[0]!;
    product2 = ids[1]!;
    const otherBrand = await createBrand(t, otherKey, 'Other');
    otherAsset = (
      await uploadCompleteAssets(t, otherKey, otherBrand, [
        { name: 'x.jpg', type: 'image/jpeg', bytes: await productOnWhite() },
      ])
    )[0]!;
    const res = await createForge({
      blendingPrompt: 'Mugs on a marble kitchen counter in soft morning light',
      productAssetIds: [product],
    });
    expect(res.statusCode, res.body).toBe(202);
    forge = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`);
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  it('answers 202 with four pending variations, then completes each with an image, scores and a unit used', async () => {
    const before = await imageUnits();
    const res = await createForge({
      blendingPrompt: 'Two products on linen by a window',
      productAssetIds: [product, product2],
      aspectRatio: '16:9',
      partner: 'partner-1',
      theme: 'Quiet linen morning',
    });
    expect(res.statusCode, res.body).toBe(202);
    const created = res.json();
    expect(created).toMatchObject({
      brandId,
      status: 'pending',
      blendingPrompt: 'Two products on linen by a window',
      originalPrompt: 'Two products on linen by a window',
      promptIsEnhanced: false,
      aspectRatio: '16:9',
      partner: 'partner-1',
      theme: 'Quiet linen morning',
      useBrandDna: true,
      refinedVariations: [],
      productAssets: [{ assetId: product }, { assetId: product2 }],
      assetSource: { productAssets: [{ assetId: product }, { assetId: product2 }] },
    });
    expect(created).not.toHaveProperty('environmentAsset');
    expect(created).not.toHaveProperty('completedAt');
    expect(created.variations.map((v: Json) => [v.label, v.generation, v.status])).toEqual([
      ['#1', 1, 'pending'],
      ['#2', 1, 'pending'],
      ['#3', 1, 'pending'],
      ['#4', 1, 'pending'],
    ]);
    expect(await imageUnits()).toBe(before + 4);

    const done = await settledGeneration(t, key, `/v1/scene-forges/${created.sceneForgeId}`);
    expect(done.status).toBe('completed');
    expect(done.completedAt).toEqual(expect.any(String));
    for (const v of done.variations) {
      expect(v).toMatchObject({ status: 'completed', width: 256, height: 144, liked: false, disliked: false });
      for (const s of ['attention_potential', 'conversion', 'brand_awareness']) {
        expect(v.scores[s]).toBeGreaterThanOrEqual(0);
        expect(v.scores[s]).toBeLessThanOrEqual(100);
      }
      const png = await download(t, v.asset.url);
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 144]);
      expect((await download(t, v.asset.thumbnailUrl)).length).toBeGreaterThan(100);
      // The result is a complete asset of the brand with the bare `image` file type.
      const asset = (await get(`/v1/assets/${v.asset.assetId}`)).json();
      expect(asset).toMatchObject({
        brandId,
        status: 'complete',
        metadata: { fileType: 'image', type: 'image', dimension: { width: 256, height: 144 } },
      });
    }
    // Four different pictures.
    const hashes = new Set(done.variations.map((v: Json) => v.asset.assetId));
    expect(hashes.size).toBe(4);
    expect(await imageUnits()).toBe(before + 4);
  });

  it('honours every aspect ratio exactly', async () => {
    for (const [ratio, w, h] of [
      ['9:16', 144, 256],
      ['21:9', 256, 110],
    ] as const) {
      const res = await createForge({ blendingPrompt: 'Studio shot', productAssetIds: [product2], aspectRatio: ratio });
      expect(res.statusCode, res.body).toBe(202);
      const done = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`);
      expect(done.variations.map((v: Json) => [v.width, v.height])).toEqual(Array(4).fill([w, h]));
    }
  });

  it('scores the same image the same way: one completed forge read twice is identical', async () => {
    const again = (await get(`/v1/scene-forges/${forge.sceneForgeId}`)).json();
    expect(again.variations.map((v: Json) => v.scores)).toEqual(forge.variations.map((v: Json) => v.scores));
  });

  it('uses a completed environment asset as the backdrop', async () => {
    const env = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#6b8e6b' } })
      .jpeg()
      .toBuffer();
    const [envId] = await uploadCompleteAssets(t, key, brandId, [{ name: 'env.jpg', type: 'image/jpeg', bytes: env }]);
    const res = await createForge({
      blendingPrompt: 'On green',
      productAssetIds: [product],
      environmentAssetId: envId,
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().environmentAsset).toEqual(expect.objectContaining({ assetId: envId }));
    const done = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`);
    expect(done.status).toBe('completed');
    // The corners come from the environment (its green), not from a generated backdrop.
    const { data } = await sharp(await download(t, done.variations[0].asset.url))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[1]!).toBeGreaterThan(data[0]!);
  });

  it('likes and dislikes a variation: exclusive, idempotent, scoped', async () => {
    const v = forge.variations[1];
    const url = `/v1/scene-forges/${forge.sceneForgeId}/variations/${v.generatedImageId}`;
    const patch = (payload: unknown, k = key) =>
      t.request({ method: 'PATCH', url, key: k, payload: payload as object });
    const liked = await patch({ liked: true });
    expect(liked.statusCode, liked.body).toBe(200);
    expect(liked.json()).toMatchObject({
      generatedImageId: v.generatedImageId,
      liked: true,
      disliked: false,
      asset: { assetId: v.asset.assetId },
    });
    expect((await patch({ liked: true })).json()).toMatchObject({ liked: true, disliked: false });
    expect((await patch({ disliked: true })).json()).toMatchObject({ liked: false, disliked: true });
    expect((await patch({ disliked: false })).json()).toMatchObject({ liked: false, disliked: false });
    const read = (await get(`/v1/scene-forges/${forge.sceneForgeId}`)).json();
    expect(read.variations[1]).toMatchObject({ liked: false, disliked: false });
    await patch({ liked: true });
    expect((await get(`/v1/scene-forges/${forge.sceneForgeId}`)).json().variations[1].liked).toBe(true);
    for (const body of [{}, { liked: true, disliked: true }, { liked: 'yes' }, { like: true }]) {
      expectError(await patch(body), 400, 'INVALID_REQUEST');
    }
    expectError(await patch({ liked: true }, otherKey), 404, 'NOT_FOUND');
    expectError(
      await t.request({
        method: 'PATCH',
        url: `/v1/scene-forges/${forge.sceneForgeId}/variations/${MISSING}`,
        key,
        payload: { liked: true },
      }),
      404,
      'NOT_FOUND',
    );
    expect((await t.request({ method: 'PATCH', url, payload: { liked: true } })).statusCode).toBe(401);
  });

  it('lists forges by partner bucket, status and page, newest first', async () => {
    const all = (await get(`/v1/brands/${brandId}/scene-forges?partner=all&limit=100`)).json();
    const defaults = (await get(`/v1/brands/${brandId}/scene-forges?limit=100`)).json();
    const p1 = (await get(`/v1/brands/${brandId}/scene-forges?partner=partner-1`)).json();
    expect(all.data.length).toBe(defaults.data.length + p1.data.length);
    expect(defaults.data.every((f: Json) => f.partner === 'default')).toBe(true);
    expect(p1.data.every((f: Json) => f.partner === 'partner-1')).toBe(true);
    const created = all.data.map((f: Json) => f.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect(all.pagination).toEqual({ currentPage: 1, totalPages: 1, totalItems: all.data.length, itemsPerPage: 100 });
    const page2 = (await get(`/v1/brands/${brandId}/scene-forges?partner=all&limit=1&page=2&sortOrder=asc`)).json();
    expect(page2.data[0].sceneForgeId).toBe(all.data.at(-2).sceneForgeId);
    expect(page2.pagination).toMatchObject({ currentPage: 2, totalItems: all.data.length, itemsPerPage: 1 });
    // The one sort vocabulary (as GET /brands) works here too.
    const oldest = (await get(`/v1/brands/${brandId}/scene-forges?partner=all&limit=100&sort=createdAt`)).json();
    expect(oldest.data.map((f: Json) => f.sceneForgeId)).toEqual(all.data.map((f: Json) => f.sceneForgeId).reverse());
    const newest = (await get(`/v1/brands/${brandId}/scene-forges?partner=all&limit=100&sort=-createdAt`)).json();
    expect(newest.data).toEqual(all.data);
    const failed = (await get(`/v1/brands/${brandId}/scene-forges?partner=all&status=failed`)).json();
    expect(failed.data).toEqual([]);
    const both = await get(`/v1/brands/${brandId}/scene-forges?sort=-createdAt&sortOrder=asc`);
    expectError(both, 400, 'INVALID_REQUEST');
    expect(both.json().error.details.fields[0].field).toBe('query.sort');
    for (const q of [
      'sort=name',
      'partner=partner-9',
      'status=done',
      'limit=0',
      'limit=101',
      'page=0',
      'sortBy=name',
      'sortOrder=up',
    ]) {
      expectError(await get(`/v1/brands/${brandId}/scene-forges?${q}`), 400, 'INVALID_REQUEST');
    }
  });

  it('refuses bad bodies with 400 naming the field, and loses nothing', async () => {
    const before = await imageUnits();
    const cases: [Json, string][] = [
      [{ blendingPrompt: '' }, 'blendingPrompt'],
      [{ blendingPrompt: 'x'.repeat(2501) }, 'blendingPrompt'],
      [{ blendingPrompt: '   ' }, 'blendingPrompt'],
      [{ blendingPrompt: 'a\u0000b' }, 'blendingPrompt'],
      [{ blendingPrompt: 7 }, 'blendingPrompt'],
      [{ blendingPrompt: 'ok', promptIsEnhanced: 'yes' }, 'promptIsEnhanced'],
      [{ blendingPrompt: 'ok', aspectRatio: '5:4' }, 'aspectRatio'],
      [{ blendingPrompt: 'ok', partner: 'partner-7' }, 'partner'],
      [{ blendingPrompt: 'ok', theme: 't'.repeat(501) }, 'theme'],
      [{ blendingPrompt: 'ok', productAssetIds: Array(6).fill(product) }, 'productAssetIds'],
      [{ blendingPrompt: 'ok', productAssetIds: ['not-a-uuid'] }, 'productAssetIds'],
      [{ blendingPrompt: 'ok', environmentAssetId: 12 }, 'environmentAssetId'],
      [{ blendingPrompt: 'ok', useBrandDNA: true }, 'useBrandDNA'],
    ];
    for (const [body, field] of cases) {
      const res = await createForge(body);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.json().error.message, JSON.stringify(body)).toContain(field);
    }
    const noFlag = await post(`/v1/brands/${brandId}/scene-forges`, { blendingPrompt: 'ok' });
    expectError(noFlag, 400, 'INVALID_REQUEST');
    expect(noFlag.json().error.message).toContain('promptIsEnhanced');
    expect(await imageUnits()).toBe(before);
  });

  it('answers 404 for another organization’s brand, forge or asset, and 422 for an asset not complete', async () => {
    const before = await imageUnits();
    expectError(await createForge({ blendingPrompt: 'x' }, MISSING), 404, 'BRAND_NOT_FOUND');
    expectError(await createForge({ blendingPrompt: 'x' }, brandId, otherKey), 404, 'BRAND_NOT_FOUND');
    expectError(await createForge({ blendingPrompt: 'x', productAssetIds: [otherAsset] }), 404, 'ASSET_NOT_FOUND');
    expectError(await createForge({ blendingPrompt: 'x', environmentAssetId: MISSING }), 404, 'ASSET_NOT_FOUND');
    const pending = await uploadingAsset(t, key, brandId, {
      name: 'p.png',
      type: 'image/png',
      bytes: productFixture(),
    });
    const notReady = await createForge({ blendingPrompt: 'x', productAssetIds: [pending] });
    expectError(notReady, 422, 'ASSET_NOT_READY');
    expect(notReady.json().error.details).toMatchObject({
      field: 'productAssetIds',
      assetId: pending,
      status: 'uploading',
    });
    expectError(await get(`/v1/scene-forges/${forge.sceneForgeId}`, otherKey), 404, 'NOT_FOUND');
    expectError(await get(`/v1/scene-forges/${MISSING}`), 404, 'NOT_FOUND');
    expectError(await get('/v1/scene-forges/nope'), 400, 'INVALID_REQUEST');
    expectError(await get(`/v1/brands/${brandId}/scene-forges`, otherKey), 404, 'BRAND_NOT_FOUND');
    expect((await t.request({ method: 'GET', url: `/v1/scene-forges/${forge.sceneForgeId}` })).statusCode).toBe(401);
    expect(await imageUnits()).toBe(before);
  });

  it('on a plan without Brand DNA: omitted useBrandDna acts as false, true is 403', async () => {
    const [freeProduct] = await uploadCompleteAssets(t, freeKey, freeBrand, [
      { name: 'p.jpg', type: 'image/jpeg', bytes: await productOnWhite() },
    ]);
    const omitted = await createForge(
      { blendingPrompt: 'Free plan scene', productAssetIds: [freeProduct] },
      freeBrand,
      freeKey,
    );
    expect(omitted.statusCode, omitted.body).toBe(202);
    expect(omitted.json().useBrandDna).toBe(false);
    const forbidden = await createForge({ blendingPrompt: 'x', useBrandDna: true }, freeBrand, freeKey);
    expectError(forbidden, 403, 'FORBIDDEN');
    expect(forbidden.json().error.details).toMatchObject({ feature: 'brand_dna' });
    const explicitFalse = await createForge(
      { blendingPrompt: 'x', useBrandDna: false, productAssetIds: [freeProduct] },
      freeBrand,
      freeKey,
    );
    expect(explicitFalse.statusCode).toBe(202);
    await settledGeneration(t, freeKey, `/v1/scene-forges/${omitted.json().sceneForgeId}`);
    await settledGeneration(t, freeKey, `/v1/scene-forges/${explicitFalse.json().sceneForgeId}`);
  });

  it('treats promptIsEnhanced true without a matching enhancement as false, with a warning', async () => {
    const res = await createForge({
      blendingPrompt: 'Hand-written, not enhanced',
      promptIsEnhanced: true,
      productAssetIds: [product2],
    });
    expect(res.statusCode, res.body).toBe(202);
    const f = res.json();
    expect(f.promptIsEnhanced).toBe(false);
    expect(f.variations[0].warnings).toEqual([
      expect.objectContaining({ code: 'PROMPT_NOT_ENHANCED', field: 'promptIsEnhanced', severity: 'info' }),
    ]);
    await settledGeneration(t, key, `/v1/scene-forges/${f.sceneForgeId}`);
  });

  it('warns when the prompt asks for a shape the aspect ratio contradicts, and keeps the ratio', async () => {
    const res = await createForge({
      blendingPrompt: 'A tall vertical story shot of the bottle',
      aspectRatio: '16:9',
      productAssetIds: [product2],
    });
    expect(res.statusCode, res.body).toBe(202);
    const f = res.json();
    expect(f.variations[0].warnings).toEqual([
      expect.objectContaining({ code: 'HARDSPEC_ASPECT_MISMATCH', field: 'aspectRatio', severity: 'warning' }),
    ]);
    const done = await settledGeneration(t, key, `/v1/scene-forges/${f.sceneForgeId}`);
    expect(done.variations[0]).toMatchObject({ width: 256, height: 144 });
    expect(done.variations[0].warnings.map((w: Json) => w.code)).toContain('HARDSPEC_ASPECT_MISMATCH');
  });

  it('refuses a forge past the image_generations quota with 403 QUOTA_EXCEEDED and takes nothing', async () => {
    const org = await t.bootstrap({ orgName: 'Capped', plan: 'free' });
    const b = await createBrand(t, org.apiKey, 'Capped brand');
    await t.deps.access.setOverrides(org.organizationId, { pools: { image_generations: 6 } });
    const first = await createForge({ blendingPrompt: 'first' }, b, org.apiKey);
    expect(first.statusCode, first.body).toBe(202);
    const second = await createForge({ blendingPrompt: 'second' }, b, org.apiKey);
    expectError(second, 403, 'QUOTA_EXCEEDED');
    expect(second.json().error.details).toMatchObject({ pool: 'image_generations', requested: 1 });
    expect(await imageUnits(org.organizationId)).toBe(4);
    await settledGeneration(t, org.apiKey, `/v1/scene-forges/${first.json().sceneForgeId}`);
  });
});

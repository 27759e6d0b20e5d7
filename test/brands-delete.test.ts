import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../src/http/errors.ts';
import { deleteBrand } from '../src/modules/brands/brands.delete.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { assetClient, flatPng } from './helpers/assets.ts';
import { createBrand } from './helpers/upload.ts';

/**
 * Deleting a brand while work under it is queued (workers never started, so it stays queued):
 * refused with 409 BRAND_BUSY naming the first busy table, in the order assets, extractions,
 * Brand DNA versions, generations (each module answers for its own tables). The deletion itself
 * (rows and stored objects) is covered over HTTP in console.test.ts.
 */
describe.each(dbKinds())('deleting a brand with work in progress (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const a = await t.bootstrap();
    key = a.apiKey;
    orgId = a.organizationId;
  });
  afterAll(async () => t?.close());

  const refusal = async (brandId: string) => {
    const err = await deleteBrand(t.deps.db, t.deps.storage, orgId, brandId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { status: e.statusCode, code: e.code, message: e.message, details: e.details };
  };

  it('is refused with BRAND_BUSY naming the busy table, assets first', async () => {
    const brandId = await createBrand(t, key, 'Busy');
    const version = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/brand-dna/versions`,
      key,
      payload: { urls: ['https://brand.example/'] },
    });
    expect(version.statusCode, version.body).toBe(200);
    expect(await refusal(brandId)).toEqual({
      status: 409,
      code: 'BRAND_BUSY',
      message: `Brand ${brandId} still has work in progress (brand dna versions); delete it once that work has finished`,
      details: { resource: 'brand_dna_versions' },
    });

    await assetClient(t).upload(key, brandId, [{ name: 'a.png', type: 'image/png', bytes: await flatPng(32, 32) }]);
    expect(await refusal(brandId)).toMatchObject({ code: 'BRAND_BUSY', details: { resource: 'assets' } });
    // Still there, with its work.
    expect((await t.request({ method: 'GET', url: `/v1/brands/${brandId}`, key })).statusCode).toBe(200);
  });

  it('answers BRAND_NOT_FOUND for a missing brand', async () => {
    expect(await refusal('00000000-0000-4000-8000-000000000000')).toMatchObject({
      status: 404,
      code: 'BRAND_NOT_FOUND',
    });
  });
});

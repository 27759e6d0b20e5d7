import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { productFixture } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * Idempotency-Key on POSTs, over HTTP on both databases: replay of the first response without new
 * work or quota, 422 on reuse with another request, 409 while the first runs, per-organization
 * keys, nothing stored for a request the schema refuses, and expiry after 24 hours.
 */
const MISSING_ID = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';

describe.each(dbKinds())('Idempotency-Key (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let otherKey: string;
  let now = new Date('2026-11-24T12:00:00Z');

  const brandBody = (name = 'Acme') => ({
    name,
    industry: 'Retail',
    description: 'A brand for the idempotency tests.',
    mission: '',
    values: [],
    tone: [],
    voice: [],
  });
  const post = (url: string, payload: unknown, idem?: string, k = key) =>
    t.request({
      method: 'POST',
      url,
      key: k,
      payload: payload as object,
      headers: idem === undefined ? {} : { 'idempotency-key': idem },
    });
  const brandCount = async (k = key) =>
    (await t.request({ method: 'GET', url: '/v1/brands?limit=100', key: k })).json().data.length as number;

  beforeAll(async () => {
    t = await createTestApp(kind, { clock: () => now });
    const a = await t.bootstrap({ orgName: 'A' });
    key = a.apiKey;
    orgId = a.organizationId;
    otherKey = (await t.bootstrap({ orgName: 'B' })).apiKey;
    await t.deps.startWorkers();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('replays the first response (status, body, Location) for the same key and body, without new work', async () => {
    const before = await brandCount();
    const first = await post('/v1/brands', brandBody(), 'create-acme-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/v1/brands', { ...brandBody(), tone: [], name: 'Acme' }, 'create-acme-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    expect(await brandCount()).toBe(before + 1);
  });

  it('a replayed error names the first request in both its body and its x-request-id header', async () => {
    const first = await post('/v1/brands', { ...brandBody(), logoAssetId: MISSING_ID }, 'bad-logo-1');
    expect(first.statusCode).toBeGreaterThanOrEqual(400);
    expect(first.statusCode).toBeLessThan(500);
    const again = await post('/v1/brands', { ...brandBody(), logoAssetId: MISSING_ID }, 'bad-logo-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().requestId).toBe(first.json().requestId);
    expect(again.headers['x-request-id']).toBe(first.json().requestId);
  });

  it('keeps quota: a replayed scene forge takes no new image_generations units', async () => {
    const brandId = await createBrand(t, key, 'Quota');
    const [product] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
    ]);
    const used = async () =>
      ((await t.deps.usage.periodUsage(orgId)).used as Record<string, number>).image_generations ?? 0;
    const body = { blendingPrompt: 'The cap on a table', promptIsEnhanced: false, productAssetIds: [product] };
    const first = await post(`/v1/brands/${brandId}/scene-forges`, body, 'forge-1');
    expect(first.statusCode, first.body).toBe(202);
    const units = await used();
    const again = await post(`/v1/brands/${brandId}/scene-forges`, body, 'forge-1');
    expect(again.statusCode).toBe(202);
    expect(again.json().sceneForgeId).toBe(first.json().sceneForgeId);
    expect(await used()).toBe(units);
  });

  it('refuses the same key with another request (422), per organization', async () => {
    await post('/v1/brands', brandBody('One'), 'reused-key');
    const other = await post('/v1/brands', brandBody('Two'), 'reused-key');
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // Another organization's key space is its own.
    const before = await brandCount(otherKey);
    const theirs = await post('/v1/brands', brandBody('Two'), 'reused-key', otherKey);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await brandCount(otherKey)).toBe(before + 1);
  });

  it('validates the key, and stores nothing for a request the schema refuses', async () => {
    for (const bad of ['', 'x'.repeat(256), 'has space', 'tab\tkey']) {
      const res = await post('/v1/brands', brandBody(), bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.message).toMatch(/idempotency-key/);
    }
    const refused = await post('/v1/brands', { name: '' }, 'after-a-400');
    expect(refused.statusCode).toBe(400);
    const fixed = await post('/v1/brands', brandBody('Fixed'), 'after-a-400');
    expect(fixed.statusCode).toBe(201);
  });

  it('runs concurrent duplicates once: the others replay it or get 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const before = await brandCount();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post('/v1/brands', brandBody('Concurrent'), 'concurrent-1')),
    );
    const fresh = answers.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    expect(fresh).toHaveLength(1);
    for (const r of answers) {
      if (r === fresh[0]) continue;
      if (r.statusCode === 409) {
        expect(r.json().error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
        expect(r.headers['retry-after']).toBe('1');
      } else {
        expect(r.statusCode).toBe(201);
        expect(r.json().id).toBe(fresh[0]!.json().id);
      }
    }
    expect(await brandCount()).toBe(before + 1);
  });

  it('forgets a key after 24 hours', async () => {
    const first = await post('/v1/brands', brandBody('Daily'), 'daily');
    now = new Date(now.getTime() + 24 * 3600 * 1000 + 1000);
    const next = await post('/v1/brands', brandBody('Daily'), 'daily');
    expect(next.statusCode).toBe(201);
    expect(next.headers['idempotent-replayed']).toBeUndefined();
    expect(next.json().id).not.toBe(first.json().id);
    expect(
      await t.deps.idempotency.purgeExpired(new Date(now.getTime() + 25 * 3600 * 1000).toISOString()),
    ).toBeGreaterThan(0);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { TEST_REDIS_URL } from './helpers/pg.ts';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.ts';
import { createBrand } from './helpers/upload.ts';

/**
 * A scaled node whose Redis goes away (a TCP proxy in front of the shared server is cut): a create
 * answers 503 in the error shape with `Retry-After` within the enqueue bound, and leaves nothing
 * behind (no row, no reserved unit); when Redis is back, creates work again.
 */
describe('creates while the job queue is unreachable', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;
  let brandId: string;

  beforeAll(async () => {
    proxy = await startTcpProxy(TEST_REDIS_URL);
    t = await createTestApp('sqlite', {
      env: { REDIS_URL: proxy.url, ATELIER_QUEUE_PREFIX: `q503-${randomBytes(4).toString('hex')}` },
      jobTuning: { enqueueTimeoutMs: 1000 },
    });
    ({ apiKey: key } = await t.bootstrap());
    brandId = await createBrand(t, key, 'Solidus');
  }, 60_000);
  afterAll(async () => {
    await proxy?.restore();
    await t?.close();
    await proxy?.close();
  });

  const create = (prompt: string) =>
    t.request({ method: 'POST', url: `/v1/brands/${brandId}/environment-generations`, key, payload: { prompt } });
  const rows = async () => (await t.deps.db.kysely.selectFrom('environment_generations').select('id').execute()).length;
  const used = async () =>
    (await t.request({ method: 'GET', url: '/v1/organizations/current/feature-usage', key })).json().data.pools
      .environment_generations.usage as number;

  it('answers 503 with Retry-After and writes nothing; works again once Redis is back', async () => {
    expect((await create('A concrete floor, soft light')).statusCode).toBe(202);
    const [rowsBefore, usedBefore] = [await rows(), await used()];

    await proxy.cut();
    const t0 = performance.now();
    const res = await create('A marble table top, morning light');
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({
      requestId: res.headers['x-request-id'],
      error: { code: 'SERVICE_UNAVAILABLE', details: { retryAfterSeconds: 5 } },
    });
    expect(res.json().error.message).toMatch(/job queue cannot be reached/);
    expect(await rows()).toBe(rowsBefore);
    expect(await used()).toBe(usedBefore);

    await proxy.restore();
    await eventually(
      async () => ((await create('A wooden bench in a park, golden light')).statusCode === 202 ? true : undefined),
      'a create to be accepted again',
      20_000,
      250,
    );
    expect(await rows()).toBe(rowsBefore + 1);
  }, 60_000);

  it('answers 503 within the bound when Redis was never there (a closed port from the start)', async () => {
    const closed = await startTcpProxy(TEST_REDIS_URL);
    await closed.cut();
    const down = await createTestApp('sqlite', {
      env: { REDIS_URL: closed.url, ATELIER_QUEUE_PREFIX: `q503-${randomBytes(4).toString('hex')}` },
      jobTuning: { enqueueTimeoutMs: 1000 },
    });
    try {
      const { apiKey } = await down.bootstrap();
      const brand = await createBrand(down, apiKey, 'Solidus');
      const t0 = performance.now();
      const res = await down.request({
        method: 'POST',
        url: `/v1/brands/${brand}/environment-generations`,
        key: apiKey,
        payload: { prompt: 'A concrete floor, soft light' },
      });
      expect(performance.now() - t0).toBeLessThan(5000);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(await down.deps.db.kysely.selectFrom('environment_generations').select('id').execute()).toEqual([]);
    } finally {
      await down.close();
      await closed.close();
    }
  }, 60_000);
});

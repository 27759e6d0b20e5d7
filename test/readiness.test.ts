import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { TEST_REDIS_URL } from './helpers/pg.ts';
import { startS3rver, type TestS3 } from './helpers/s3.ts';

/**
 * /readyz covers every dependency the node uses, each named: the database, Redis (scaled mode)
 * and the object store (bucket reachable and writable). A node whose Redis port is closed or
 * whose bucket does not exist is not ready, and says which.
 */
describe('readiness of a scaled node', () => {
  let s3: TestS3;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    s3 = await startS3rver('atelier-ready');
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await s3?.close();
  });
  const app = async (env: Record<string, string>) => {
    const t = await createTestApp('sqlite', { env: { ...s3.env, ...env } });
    apps.push(t);
    return t;
  };

  it('is ready with Redis and the bucket there, naming each check', async () => {
    const t = await app({ REDIS_URL: TEST_REDIS_URL });
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok', storage: 'ok' } });
  });

  it('is 503 naming redis when Redis cannot be reached', async () => {
    const t = await app({ REDIS_URL: 'redis://127.0.0.1:1' });
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error.message).toMatch(/^Not ready: redis \(/);
    expect(body.error.details.checks).toMatchObject({ database: 'ok', storage: 'ok' });
    expect(body.error.details.checks.redis).not.toBe('ok');
  });

  it('is 503 naming storage when the bucket does not exist', async () => {
    const t = await app({ S3_BUCKET: 'no-such-bucket' });
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toMatch(/storage \(/);
    expect(res.json().error.details.checks.database).toBe('ok');
  });
});

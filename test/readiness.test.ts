import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage } from '../src/adapters/storage/s3.storage.ts';
import { systemClock } from '../src/clock.ts';
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

describe('the bucket at start (S3_CREATE_BUCKET)', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3rver('atelier-present');
  });
  afterAll(async () => s3?.close());
  const store = (bucket: string) =>
    createS3Storage({
      endpoint: s3.endpoint,
      bucket,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
      clock: systemClock,
    });

  it('names a missing bucket and how to create it, or creates it when allowed', async () => {
    const missing = store('atelier-missing');
    await expect(missing.prepare({ createBucket: false })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/bucket "atelier-missing" does not exist[\s\S]*S3_CREATE_BUCKET=true/),
    });
    await missing.prepare({ createBucket: true });
    await missing.put('x/y', Buffer.from('ok'), { contentType: 'text/plain' });
    expect((await missing.head('x/y'))?.size).toBe(2);
    await store('atelier-present').prepare({ createBucket: false });
    await missing.close();
  });

  it('`serve` refuses to start on a missing bucket with that one line, exit 1', async () => {
    // Not spawnSync: the S3 server answering the child runs in this process.
    const root = path.resolve(import.meta.dirname, '..');
    const r = await promisify(execFile)(process.execPath, ['src/main.ts', 'serve'], {
      cwd: root,
      timeout: 60_000,
      env: {
        ...process.env,
        ...s3.env,
        S3_BUCKET: 'atelier-nowhere',
        PORT: '0',
        LOG_LEVEL: 'silent',
        ATELIER_DATA_DIR: path.join(os.tmpdir(), `atelier-bucket-${process.pid}`),
      },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^atelier: The S3 bucket "atelier-nowhere" does not exist/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);
});

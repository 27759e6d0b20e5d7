import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../src/adapters/redis/rate-limit.redis.ts';
import { createMemoryRateLimiter } from '../src/adapters/rate-limit/rate-limit.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { TEST_REDIS_URL } from './helpers/pg.ts';

// A console-only route answers 403 to every valid key, so each request reaches the limiter and
// the test needs no route of another module: 403 = let through, 429 = limited.
const PROBE = { method: 'GET', url: '/v1/trends' } as const;

describe('Redis rate limiter (real Redis)', () => {
  const settings = { perSecond: 1, burst: 3 };
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('shares one bucket between two limiter instances (two API processes)', async () => {
    const prefix = `atelier-test:${randomUUID()}:`;
    const a = createRedisRateLimiter(TEST_REDIS_URL, settings, prefix);
    const b = createRedisRateLimiter(TEST_REDIS_URL, settings, prefix);
    try {
      const taken = [await a.take('k'), await b.take('k'), await a.take('k')];
      expect(taken.map((d) => d.ok)).toEqual([true, true, true]);
      expect(taken.map((d) => d.remaining)).toEqual([2, 1, 0]);
      expect(await b.take('k')).toEqual({ ok: false, retryAfter: 1, remaining: 0 });
      expect((await a.take('k')).ok).toBe(false);
      // Another key has its own bucket.
      expect((await b.take('other')).ok).toBe(true);
      // The bucket expires once it would be full again, so idle keys cost Redis nothing.
      const ttl = await redis.pttl(`${prefix}k`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(7000);
    } finally {
      await a.close();
      await b.close();
      await redis.del(`${prefix}k`, `${prefix}other`);
    }
  });

  it('falls back to a per-process bucket when Redis cannot be reached', async () => {
    const limiter = createRedisRateLimiter('redis://127.0.0.1:1', settings, 'x:', 200);
    try {
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.take('k'));
      expect(decisions.map((d) => d.ok)).toEqual([true, true, true, false]);
      expect(decisions[3]?.retryAfter).toBe(1);
    } finally {
      await limiter.close();
    }
  });
});

describe.each(dbKinds())('rate limiting over HTTP (%s)', (kind) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  let t: TestApp;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimiter: createMemoryRateLimiter({ perSecond: 0.5, burst: 3 }, () => now) });
    key = (await t.bootstrap()).apiKey;
    otherKey = (await t.bootstrap()).apiKey;
  });
  afterAll(async () => t?.close());

  it('answers 429 with the error body and an integer Retry-After, per key', async () => {
    for (let i = 0; i < 3; i++) expect((await t.request({ ...PROBE, key })).statusCode).toBe(403);
    const limited = await t.request({ ...PROBE, key });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    const body = limited.json();
    expect(body).toEqual({
      requestId: limited.headers['x-request-id'],
      error: { code: 'RATE_LIMITED', message: expect.any(String), details: { retryAfterSeconds: 2 } },
    });
    // Another key (another organization's owner) is not affected.
    expect((await t.request({ ...PROBE, key: otherKey })).statusCode).toBe(403);
    // Requests without a valid key never reach the limiter: still 401, not 429.
    expect((await t.request({ ...PROBE })).statusCode).toBe(401);
    // After Retry-After seconds the key gets through again.
    now += 2000;
    expect((await t.request({ ...PROBE, key })).statusCode).toBe(403);
    expect((await t.request({ ...PROBE, key })).statusCode).toBe(429);
  });
});

describe('rate limit settings', () => {
  it('ATELIER_RATE_LIMIT_* and REDIS_URL reach the limiter the app uses', async () => {
    const t = await createTestApp('sqlite', {
      env: { ATELIER_RATE_LIMIT_PER_SECOND: '1', ATELIER_RATE_LIMIT_BURST: '2', REDIS_URL: TEST_REDIS_URL },
    });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const { apiKey } = await t.bootstrap();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await t.request({ ...PROBE, key: apiKey })).statusCode);
      expect(statuses).toEqual([403, 403, 429]);
      const row = await t.deps.db.kysely.selectFrom('api_keys').select('id').executeTakeFirstOrThrow();
      expect(await redis.exists(`atelier:rl:${row.id}`)).toBe(1);
    } finally {
      await redis.quit();
      await t.close();
    }
  });

  it('keeps its Redis keys under ATELIER_QUEUE_PREFIX, like the queues (two installs on one Redis)', async () => {
    const prefix = `rl-${Date.now().toString(36)}`;
    const t = await createTestApp('sqlite', {
      env: { ATELIER_QUEUE_PREFIX: prefix, REDIS_URL: TEST_REDIS_URL },
    });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const { apiKey } = await t.bootstrap();
      expect((await t.request({ ...PROBE, key: apiKey })).statusCode).toBe(403);
      const row = await t.deps.db.kysely.selectFrom('api_keys').select('id').executeTakeFirstOrThrow();
      expect(await redis.exists(`${prefix}:rl:${row.id}`)).toBe(1);
      expect(await redis.exists(`${prefix}:rlb:${row.id}`)).toBe(1);
      expect(await redis.exists(`atelier:rl:${row.id}`)).toBe(0);
      await redis.del(`${prefix}:rl:${row.id}`, `${prefix}:rlb:${row.id}`);
    } finally {
      await redis.quit();
      await t.close();
    }
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Atelier,
  AuthenticationError,
  ConnectionError,
  parseRetryAfter,
  QuotaError,
  RateLimitError,
  retryDecision,
  ServerError,
  UpgradeRequiredError,
  WaitTimeoutError,
} from '../src/index.ts';

/**
 * The transport against a small local fake: each test queues the answers the fake gives, in
 * order, and reads back what the client sent and when.
 */
interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Seen {
  method: string;
  url: string;
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
let queue: Answer[] = [];
let seen: Seen[] = [];

const err = (code: string, message = code, details?: unknown) => ({
  requestId: '11111111-2222-4333-8444-555555555555',
  error: { code, message, ...(details ? { details } : {}) },
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, at: Date.now(), headers: req.headers, body });
      const a = queue.shift() ?? { status: 200, body: { ok: true } };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = (o: Partial<ConstructorParameters<typeof Atelier>[0]> = {}) =>
  new Atelier({ baseUrl: base, apiKey: 'atl_dev_test.secret', retryBaseMs: 20, ...o });
const reset = (...answers: Answer[]) => {
  queue = answers;
  seen = [];
};

describe('SDK retries (local fake)', () => {
  it('waits out a 429 Retry-After, then succeeds with the same request id and key', async () => {
    reset(
      { status: 429, body: err('RATE_LIMITED'), headers: { 'retry-after': '1' } },
      { status: 200, body: { data: [1] } },
    );
    const res = await client().call('GET /v1/organizations/current/feature-usage');
    expect(res.data).toEqual({ data: [1] });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(seen[0]!.headers.authorization).toBe('Bearer atl_dev_test.secret');
    expect(seen[1]!.headers['x-request-id']).toBe(seen[0]!.headers['x-request-id']);
  });

  it('without idempotency keys, retries a POST on 429 (refused before acting), not on 503 (it may have acted)', async () => {
    reset(
      { status: 429, body: err('RATE_LIMITED'), headers: { 'retry-after': '0' } },
      { status: 201, body: { id: 'b1' } },
    );
    await client({ idempotencyKeys: false }).call('POST /v1/brands', { body: { name: 'x' } as never });
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);

    reset({ status: 503, body: err('SERVICE_UNAVAILABLE', 'partner check unreachable') }, { status: 201, body: {} });
    const e = await client({ idempotencyKeys: false })
      .call('POST /v1/brands', { body: { name: 'x' } as never })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServerError);
    expect(e).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: err('x').requestId });
    expect(seen).toHaveLength(1);
  });

  it('with idempotency keys (the default), a POST carries one Idempotency-Key for all its attempts and is retried on 5xx', async () => {
    reset(
      { status: 503, body: err('SERVICE_UNAVAILABLE') },
      { status: 409, body: err('IDEMPOTENCY_KEY_IN_USE'), headers: { 'retry-after': '0' } },
      { status: 201, body: { id: 'b1' } },
    );
    const res = await client({ idempotencyKeys: true }).call('POST /v1/brands', { body: { name: 'x' } as never });
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(3);
    const keys = seen.map((x) => x.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    // A new call, a new key; GETs carry none; with the option off POSTs carry none.
    reset({ status: 201, body: {} }, { status: 200, body: {} });
    const c = client({ idempotencyKeys: true });
    await c.call('POST /v1/brands', { body: {} as never });
    await c.usage.get();
    expect(seen[0]!.headers['idempotency-key']).not.toBe(keys[0]);
    expect(seen[1]!.headers['idempotency-key']).toBeUndefined();
    reset({ status: 201, body: {} });
    await client({ idempotencyKeys: false }).call('POST /v1/brands', { body: {} as never });
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
    // A caller's own key makes that one POST retryable, with the option off.
    reset({ status: 502, body: err('BAD_GATEWAY') }, { status: 201, body: {} });
    await client({ idempotencyKeys: false }).call('POST /v1/brands', {
      body: {} as never,
      headers: { 'Idempotency-Key': 'mine-1' },
    });
    expect(seen.map((x) => x.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1']);
  });

  it('retries GETs on 503s with exponential backoff, and gives up after `retries`', async () => {
    reset(
      { status: 503, body: err('SERVICE_UNAVAILABLE') },
      { status: 502, body: err('BAD_GATEWAY') },
      { status: 200, body: { ok: 1 } },
    );
    expect((await client().assets.get('a1')).valueOf()).toEqual({ ok: 1 });
    expect(seen).toHaveLength(3);
    // Backoff: attempt 0 waits 10..20 ms, attempt 1 20..40 ms.
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(15);

    reset(...Array.from({ length: 5 }, () => ({ status: 503, body: err('SERVICE_UNAVAILABLE') })));
    const e = await client({ retries: 2 })
      .assets.get('a1')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServerError);
    expect(seen).toHaveLength(3);
  });

  it('does not wait out a Retry-After longer than maxRetryDelayMs: RateLimitError with retryAfterMs', async () => {
    reset({ status: 429, body: err('RATE_LIMITED', 'slow down'), headers: { 'retry-after': '120' } });
    const e = await client({ maxRetryDelayMs: 5_000 })
      .usage.get()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterMs: 120_000 });
    expect(seen).toHaveLength(1);
  });

  it('does not retry 4xx; maps 401 and 403 codes to their classes', async () => {
    reset({ status: 401, body: err('UNAUTHORIZED', 'A valid API key is required') });
    await expect(client().usage.get()).rejects.toBeInstanceOf(AuthenticationError);
    reset({ status: 403, body: err('QUOTA_EXCEEDED', 'no images left', { pool: 'image_generations' }) });
    const q = await client()
      .usage.get()
      .catch((x: unknown) => x);
    expect(q).toBeInstanceOf(QuotaError);
    expect(q).toMatchObject({ details: { pool: 'image_generations' } });
    reset({ status: 403, body: err('upgrade_required', 'over the tier') });
    await expect(client().usage.get()).rejects.toBeInstanceOf(UpgradeRequiredError);
    expect(seen).toHaveLength(1);
  });

  it('retries a refused connection, then reports ConnectionError with the cause code', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const started = Date.now();
    const e = await new Atelier({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', retries: 2, retryBaseMs: 20 })
      .call('POST /v1/brands', { body: {} as never })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ status: 0, code: 'ECONNREFUSED' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(20); // it did wait between attempts
  });

  it('times an attempt out (per-attempt timeoutMs) and retries GETs only', async () => {
    const slow = http.createServer((_req, res) => {
      setTimeout(() => res.end('{}'), 500);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    let hits = 0;
    slow.on('request', () => hits++);
    try {
      const c = new Atelier({
        baseUrl: url,
        apiKey: 'k',
        timeoutMs: 100,
        retries: 1,
        retryBaseMs: 10,
        idempotencyKeys: false,
      });
      await expect(c.usage.get()).rejects.toMatchObject({ code: 'TIMEOUT', status: 0 });
      expect(hits).toBe(2);
      hits = 0;
      await expect(c.call('POST /v1/brands', { body: {} as never })).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(hits).toBe(1);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });

  it('waitFor polls until terminal, reports progress, and times out with WaitTimeoutError', async () => {
    const forge = (status: string, done: number) => ({
      sceneForgeId: 'f1',
      brandId: 'b1',
      status,
      variations: [0, 1, 2, 3].map((i) => ({ status: i < done ? 'completed' : 'pending' })),
    });
    reset(
      { status: 200, body: forge('pending', 0) },
      { status: 200, body: forge('processing', 2) },
      {
        status: 200,
        body: forge('completed', 4),
      },
    );
    const fractions: (number | undefined)[] = [];
    const done = await client().waitFor('scene', 'f1', {
      intervalMs: 10,
      onProgress: (p) => fractions.push(p.fraction),
    });
    expect(done.status).toBe('completed');
    expect(fractions).toEqual([0, 0.5, 1]);
    expect(seen.map((x) => x.url)).toEqual(Array(3).fill('/v1/scene-forges/f1'));

    reset(...Array.from({ length: 50 }, () => ({ status: 200, body: forge('processing', 1) })));
    const e = await client()
      .waitFor('scene', 'f1', { intervalMs: 20, timeoutMs: 100 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WaitTimeoutError);
    expect(e).toMatchObject({ code: 'WAIT_TIMEOUT' });

    // Enhancements live under their brand: the path carries it.
    reset({ status: 200, body: { promptEnhancementId: 'e1', brandId: 'b9', status: 'completed' } });
    await client().waitFor('enhancement', 'e1', { brandId: 'b9' });
    expect(seen[0]!.url).toBe('/v1/brands/b9/scene-forge-prompt-enhancements/e1');

    // An abort stops the wait.
    reset(...Array.from({ length: 50 }, () => ({ status: 200, body: forge('processing', 1) })));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stopped')), 60);
    await expect(client().waitFor('scene', 'f1', { intervalMs: 20, signal: ac.signal })).rejects.toThrow('stopped');
  });

  it('documents its rule in retryDecision and parses both Retry-After forms', () => {
    expect(retryDecision('POST', { status: 429 })).toBe(true);
    expect(retryDecision('POST', { status: 503 })).toBe(false);
    expect(retryDecision('PATCH', { status: 500 })).toBe(false);
    expect(retryDecision('PUT', { status: 503 })).toBe(true);
    expect(retryDecision('GET', { status: 500 })).toBe(true);
    expect(retryDecision('GET', { status: 501 })).toBe(false);
    expect(retryDecision('POST', { errorCode: 'ECONNREFUSED' })).toBe(true);
    expect(retryDecision('POST', { errorCode: 'ECONNRESET' })).toBe(false);
    expect(retryDecision('GET', { errorCode: 'ECONNRESET' })).toBe(true);
    expect(retryDecision('POST', { status: 503 }, true)).toBe(true);
    expect(retryDecision('POST', { errorCode: 'ECONNRESET' }, true)).toBe(true);
    expect(retryDecision('POST', { status: 409, apiCode: 'IDEMPOTENCY_KEY_IN_USE' }, true)).toBe(true);
    expect(retryDecision('POST', { status: 409, apiCode: 'CONFLICT' }, true)).toBe(false);
    expect(retryDecision('PATCH', { status: 503 }, true)).toBe(false);
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameworkErrors, installErrorHandling } from '../src/http/error-handler.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';

describe.each(dbKinds())('HTTP kernel (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    key = (await t.bootstrap()).apiKey;
  });
  afterAll(async () => t?.close());

  it('answers malformed paths and over-long path parameters with the error body, not a 500', async () => {
    for (const url of ['/v1/brands/%E0%A4%A', `/v1/brands/${'a'.repeat(300)}`]) {
      const res = await t.request({ method: 'GET', url, key });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
      expect(res.headers['x-request-id']).toBe(res.json().requestId);
    }
  });

  it('answers unknown routes with the error body and a request id header', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/nope', key });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-request-id']).toBe(body.requestId);
  });

  it('keeps a client request id that is a UUID, and replaces one that is not', async () => {
    const id = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
    const res = await t.request({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.json().requestId).toBe(id);
    const res2 = await t.request({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': 'not-a-uuid' } });
    expect(res2.headers['x-request-id']).not.toBe('not-a-uuid');
  });

  it('serves health and readiness without a key', async () => {
    expect((await t.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.request({ method: 'GET', url: '/readyz' })).json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', storage: 'ok' },
    });
  });

  it('does not serve /metrics on the API port by default (ATELIER_METRICS_PORT or ATELIER_METRICS_TOKEN)', async () => {
    for (const headers of [{}, { authorization: `Bearer ${key}` }]) {
      const metrics = await t.request({ method: 'GET', url: '/metrics', headers });
      expect(metrics.statusCode).toBe(404);
      expect(metrics.json().error.code).toBe('NOT_FOUND');
      expect(metrics.body).not.toContain('atelier_http_requests_total');
    }
    // The registry is there all the same, for the metrics listener.
    expect(await t.deps.metrics.registry.metrics()).toContain('atelier_http_requests_total');
  });

  it('answers console-only routes with 403 to a valid key and 401 without one', async () => {
    const routes: [string, string][] = [
      ['DELETE', '/v1/brands/0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b'],
      ['DELETE', '/v1/assets/0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b'],
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/api-keys'],
      ['GET', '/v1/trends'],
      ['POST', '/v1/partner-creatives'],
    ];
    for (const [method, url] of routes) {
      const withKey = await t.request({ method: method as 'GET', url, key });
      expect(withKey.statusCode, `${method} ${url}`).toBe(403);
      expect(withKey.json().error.code).toBe('FORBIDDEN');
      const without = await t.request({ method: method as 'GET', url });
      expect(without.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});

describe('errors raised by the router, before any hook', () => {
  it('answer the one error body with the request id (frameworkErrors), 400 for a malformed path', async () => {
    const app = Fastify({ frameworkErrors, routerOptions: { maxParamLength: 200 } });
    installErrorHandling(app);
    app.get('/v1/things/:id', async () => ({ ok: true }));
    await app.ready();
    try {
      for (const url of ['/v1/things/%E0%A4%A', '/v1/things/%', `/v1/things/${'a'.repeat(250)}`]) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(400);
        const body = res.json();
        expect(Object.keys(body).sort(), url).toEqual(['error', 'requestId']);
        expect(body.error.code).toBe('INVALID_REQUEST');
        expect(res.headers['x-request-id']).toBe(body.requestId);
        expect(body.error.message).not.toContain('aaaa');
      }
    } finally {
      await app.close();
    }
  });
});

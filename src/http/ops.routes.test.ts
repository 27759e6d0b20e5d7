import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../adapters/db/database.ts';
import { installErrorHandling } from './error-handler.ts';
import { createMetrics } from './metrics.ts';
import { startMetricsListener } from './metrics-listener.ts';
import { type MetricsAccess, opsRoutes } from './ops.routes.ts';

describe('readiness', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ops-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is ready while the database answers, and 503 in the one error body once it does not', async () => {
    const db = await openDatabase({ dataDir });
    const app = Fastify();
    installErrorHandling(app);
    await app.register(
      opsRoutes({ readiness: [{ name: 'database', check: () => db.ping() }], metrics: createMetrics() }, 'off'),
    );
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready', checks: { database: 'ok' } }]);

      await db.close();
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(down.json()).toEqual({
        requestId: expect.any(String),
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: expect.stringMatching(/^Not ready: database \(/),
          details: { checks: { database: expect.not.stringMatching(/^ok$/) } },
        },
      });
    } finally {
      await app.close();
    }
  });
});

describe('/metrics', () => {
  const deps = { readiness: [], metrics: createMetrics() };
  async function appWith(access: MetricsAccess) {
    const app = Fastify();
    installErrorHandling(app);
    await app.register(opsRoutes(deps, access));
    return app;
  }

  it('is not served where access is off (the API port by default), health and readiness still are', async () => {
    const app = await appWith('off');
    try {
      const res = await app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('answers only the metrics token where one is set', async () => {
    const token = 'metrics-token-0123456789';
    const app = await appWith({ token });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${token}`, `Bearer ${token}x`]) {
        const res = await app.inject({
          method: 'GET',
          url: '/metrics',
          headers: authorization ? { authorization } : {},
        });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.json().error.code).toBe('UNAUTHORIZED');
        expect(res.body).not.toContain('atelier_');
      }
      const ok = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toMatch(/^text\/plain/);
      expect(ok.body).toContain('atelier_job_duration_seconds');
    } finally {
      await app.close();
    }
  });

  it('is open on the metrics listener, with health and readiness, and nothing else', async () => {
    const listener = await startMetricsListener(deps, { host: '127.0.0.1', port: 0 });
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const metrics = await fetch(`${listener.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('# TYPE atelier_jobs_failed_total counter');
      expect(await (await fetch(`${listener.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${listener.url}/readyz`)).json()).toEqual({ status: 'ready', checks: {} });
      expect((await fetch(`${listener.url}/v1/brands`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../adapters/db/database.ts';
import { installErrorHandling } from './error-handler.ts';
import { createMetrics } from './metrics.ts';
import { opsRoutes } from './ops.routes.ts';

describe('readiness', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ops-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is ready while the database answers, and 503 in the one error body once it does not', async () => {
    const db = await openDatabase({ dataDir });
    const app = Fastify();
    installErrorHandling(app);
    await app.register(
      opsRoutes({ readiness: [{ name: 'database', check: () => db.ping() }], metrics: createMetrics() }),
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

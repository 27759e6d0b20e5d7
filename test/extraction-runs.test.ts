import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { orgWithBrand, sleep } from './helpers/extraction.ts';
import { type FixtureSite, startFixtureSite } from './extraction-site.ts';

/** Run limits: the timeout (job deadline and sweep) and the per-organization cap. */
describe.each(dbKinds())('URL extraction run limits (%s)', (kind) => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite((req, res) => {
      if (req.url !== '/slow') return false;
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>late</body></html>');
      }, 4000);
      res.on('close', () => clearTimeout(timer));
      return true;
    });
  });
  afterAll(async () => site?.close());

  describe('with workers and a 1 second timeout', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, {
        env: { ATELIER_ALLOW_PRIVATE_FETCH: '1', ATELIER_EXTRACTION_TIMEOUT_SECONDS: '1' },
      });
      await t.deps.startWorkers();
    });
    afterAll(async () => t?.close());

    it('fails a run still going after the timeout with EXTRACTION_TIMEOUT', async () => {
      const { key, brandId } = await orgWithBrand(t, { plan: 'enterprise' });
      const res = await t.request({
        method: 'POST',
        url: '/v1/assets/extract-from-url',
        key,
        payload: { url: `${site.origin}/slow`, brandId },
      });
      expect(res.statusCode).toBe(202);
      let x = res.json();
      for (let i = 0; i < 100 && (x.status === 'pending' || x.status === 'processing'); i++) {
        await sleep(50);
        x = (await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${x.extractionId}`, key })).json();
      }
      expect(x).toMatchObject({ status: 'failed', errorCode: 'EXTRACTION_TIMEOUT' });
      expect(x.errorMessage).toBe('The extraction did not finish within 1 second.');
      expect(x.failedAt).toBeDefined();
      expect(x).not.toHaveProperty('candidates');
    });
  });

  describe('without workers (runs stay pending)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { env: { ATELIER_EXTRACTION_TIMEOUT_SECONDS: '3' } });
    });
    afterAll(async () => t?.close());

    const submit = (key: string, brandId: string) =>
      t.request({
        method: 'POST',
        url: '/v1/assets/extract-from-url',
        key,
        payload: { url: 'https://shop.example/product', brandId },
      });

    it('caps concurrent runs per organization atomically: 429 with Retry-After', async () => {
      const a = await orgWithBrand(t, { plan: 'free' }); // maxConcurrentRuns 2
      const b = await orgWithBrand(t, { plan: 'free' });
      const answers = await Promise.all(Array.from({ length: 6 }, () => submit(a.key, a.brandId)));
      const statuses = answers.map((r) => r.statusCode).sort();
      expect(statuses).toEqual([202, 202, 429, 429, 429, 429]);
      const refused = answers.find((r) => r.statusCode === 429)!;
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.json()).toMatchObject({
        requestId: expect.any(String),
        error: { code: 'RATE_LIMITED', details: { maxConcurrentRuns: 2 } },
      });
      // Another organization has its own cap.
      expect((await submit(b.key, b.brandId)).statusCode).toBe(202);

      // Committing a run that has not completed is a conflict.
      const pending = answers.find((r) => r.statusCode === 202)!.json();
      const early = await t.request({
        method: 'POST',
        url: `/v1/assets/extract-from-url/${pending.extractionId}/commit`,
        key: a.key,
      });
      expect(early.statusCode).toBe(409);
      expect(early.json().error).toMatchObject({ code: 'INVALID_STATUS_FOR_ACTION', details: { status: 'pending' } });

      // A deleted run frees its place.
      expect(
        (await t.request({ method: 'DELETE', url: `/v1/assets/extract-from-url/${pending.extractionId}`, key: a.key }))
          .statusCode,
      ).toBe(204);
      expect((await submit(a.key, a.brandId)).statusCode).toBe(202);
      expect((await submit(a.key, a.brandId)).statusCode).toBe(429);
    });

    it('the sweep fails runs stuck past the timeout, and they stop counting against the cap', async () => {
      const a = await orgWithBrand(t, { plan: 'free' });
      const ids = [];
      for (let i = 0; i < 2; i++) ids.push((await submit(a.key, a.brandId)).json().extractionId);
      expect((await submit(a.key, a.brandId)).statusCode).toBe(429);
      await sleep(3100);
      expect(await t.deps.extraction.sweepStale()).toBeGreaterThanOrEqual(2);
      for (const id of ids) {
        const x = (await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${id}`, key: a.key })).json();
        expect(x).toMatchObject({ status: 'failed', errorCode: 'EXTRACTION_TIMEOUT' });
      }
      expect((await submit(a.key, a.brandId)).statusCode).toBe(202);
    });
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { orgWithBrand, sleep } from './helpers/extraction.ts';
import { type FixtureSite, startFixtureSite } from './extraction-site.ts';

async function runToEnd(t: TestApp, key: string, brandId: string, url: string) {
  const res = await t.request({ method: 'POST', url: '/v1/assets/extract-from-url', key, payload: { url, brandId } });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(202);
  let x = res.json();
  for (let i = 0; i < 200 && (x.status === 'pending' || x.status === 'processing'); i++) {
    await sleep(25);
    x = (await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${x.extractionId}`, key })).json();
  }
  return x as { status: string; errorCode?: string; errorMessage?: string };
}

/** The outbound fetch refusals, seen through the endpoint with the application's own fetcher. */
describe.each(dbKinds())('URL extraction SSRF refusals (%s)', (kind) => {
  let site: FixtureSite;
  let inner: http.Server;
  let innerPort: number;
  let innerHits = 0;
  beforeAll(async () => {
    // A second local server standing for an internal service a redirect points at.
    inner = http.createServer((_req, res) => {
      innerHits++;
      res.end('<html><body>internal</body></html>');
    });
    await new Promise<void>((resolve) => inner.listen(0, '127.0.0.1', resolve));
    innerPort = (inner.address() as AddressInfo).port;
    site = await startFixtureSite((req, res) => {
      const to: Record<string, string> = {
        '/to-loopback': `http://127.0.0.1:${innerPort}/admin`,
        '/to-localhost': `http://localhost:${innerPort}/admin`,
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
        '/to-file': 'file:///etc/passwd',
      };
      const target = to[req.url ?? ''];
      if (!target) return false;
      res.writeHead(302, { location: target });
      res.end();
      return true;
    });
  });
  afterAll(async () => {
    await site?.close();
    await new Promise<void>((resolve) => inner?.close(() => resolve()));
  });

  describe('with the default fetcher (no private addresses)', () => {
    let t: TestApp;
    let key: string;
    let brandId: string;
    beforeAll(async () => {
      t = await createTestApp(kind);
      await t.deps.startWorkers();
      ({ key, brandId } = await orgWithBrand(t));
    });
    afterAll(async () => t?.close());

    it('refuses non-http schemes at submit with 400', async () => {
      for (const url of [
        'ftp://example.com/',
        'file:///etc/passwd',
        'gopher://example.com/',
        'data:text/html,<p>x</p>',
      ]) {
        const res = await t.request({
          method: 'POST',
          url: '/v1/assets/extract-from-url',
          key,
          payload: { url, brandId },
        });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error.details.fields[0].field).toBe('body.url');
      }
    });

    it('fails runs on private, loopback, link-local and mapped addresses with BLOCKED_ADDRESS', async () => {
      const before = site.hits.length;
      const urls = [
        `${site.origin}/product`,
        `http://localhost:${site.port}/product`,
        `http://[::1]:${site.port}/product`,
        `http://[::ffff:127.0.0.1]:${site.port}/product`,
        `http://[::ffff:7f00:1]:${site.port}/product`,
        `http://2130706433:${site.port}/product`,
        'http://10.0.0.1/',
        'http://192.168.1.1/',
        'http://169.254.169.254/latest/meta-data/',
        'http://0.0.0.0/',
      ];
      for (const url of urls) {
        const x = await runToEnd(t, key, brandId, url);
        expect(x, url).toMatchObject({ status: 'failed', errorCode: 'BLOCKED_ADDRESS' });
        expect(x.errorMessage).not.toMatch(/127\.0\.0\.1|::1|10\.0\.0\.1|192\.168|169\.254|0\.0\.0\.0|7f00/);
      }
      expect(site.hits.length).toBe(before); // nothing was ever requested
    });
  });

  describe('with a fetcher that trusts the shop only (a policy seam)', () => {
    let t: TestApp;
    let key: string;
    let brandId: string;
    beforeAll(async () => {
      const fetcher = createFetcher({ policy: (address, port) => address === '127.0.0.1' && port === site.port });
      t = await createTestApp(kind, { fetcher });
      await t.deps.startWorkers();
      ({ key, brandId } = await orgWithBrand(t));
    });
    afterAll(async () => t?.close());

    it('reaches the trusted shop', async () => {
      expect((await runToEnd(t, key, brandId, `${site.origin}/product`)).status).toBe('completed');
    });

    it('refuses redirects to loopback, localhost and metadata addresses without leaking them', async () => {
      for (const path of ['/to-loopback', '/to-localhost', '/to-metadata']) {
        const x = await runToEnd(t, key, brandId, `${site.origin}${path}`);
        expect(x, path).toMatchObject({ status: 'failed', errorCode: 'BLOCKED_ADDRESS' });
        expect(x.errorMessage).not.toContain(String(innerPort));
        expect(x.errorMessage).not.toMatch(/127\.0\.0\.1|localhost|169\.254/);
      }
      const file = await runToEnd(t, key, brandId, `${site.origin}/to-file`);
      expect(file).toMatchObject({ status: 'failed', errorCode: 'PAGE_UNREACHABLE' });
      expect(innerHits).toBe(0);
    });
  });
});

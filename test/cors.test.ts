import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { originAllowed } from '../src/http/cors.ts';
import { createTestApp, type TestApp, tmpDir } from './helpers/app.ts';

/**
 * CORS: off by default; with ATELIER_CORS_ORIGINS the listed origins may call the API from a
 * browser (preflight answered before authentication), others may not. Checked over HTTP and from
 * a page on another origin in real Chromium.
 */
const SHOP = 'http://127.0.0.1:1';

describe('CORS settings', () => {
  it('parses origins and refuses what is not one', () => {
    const load = (v: string) => loadConfig({ ATELIER_DATA_DIR: tmpDir(), ATELIER_CORS_ORIGINS: v }).corsOrigins;
    expect(loadConfig({ ATELIER_DATA_DIR: tmpDir() }).corsOrigins).toEqual([]);
    expect(load('https://Shop.example, http://localhost:5173')).toEqual([
      'https://shop.example',
      'http://localhost:5173',
    ]);
    expect(load('*')).toEqual(['*']);
    for (const bad of ['shop.example', 'https://shop.example/path', 'ftp://x.example'])
      expect(() => load(bad)).toThrow();
    expect(originAllowed('https://shop.example', ['https://shop.example'])).toBe(true);
    expect(originAllowed('https://evil.example', ['https://shop.example'])).toBe(false);
    expect(originAllowed(undefined, ['*'])).toBe(false);
  });
});

describe('CORS over HTTP', () => {
  let on: TestApp;
  let off: TestApp;
  let key: string;
  beforeAll(async () => {
    on = await createTestApp('sqlite', { env: { ATELIER_CORS_ORIGINS: SHOP } });
    off = await createTestApp('sqlite');
    key = (await on.bootstrap()).apiKey;
  });
  afterAll(async () => {
    await on?.close();
    await off?.close();
  });
  const preflight = (t: TestApp, origin: string) =>
    t.app.inject({
      method: 'OPTIONS',
      url: '/v1/brands',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });

  it('answers an allowed origin’s preflight with 204 before authentication', async () => {
    const res = await preflight(on, SHOP);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/authorization/);
    expect(String(res.headers['access-control-allow-methods'])).toMatch(/POST/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('marks allowed answers (errors included) and exposes the headers clients read', async () => {
    const ok = await on.request({ method: 'GET', url: '/v1/brands', key, headers: { origin: SHOP } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(ok.headers['access-control-expose-headers'])).toMatch(/x-request-id/);
    const denied = await on.request({ method: 'GET', url: '/v1/brands', headers: { origin: SHOP } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe(SHOP);
  });

  it('gives nothing to other origins, and nothing at all when off (the default)', async () => {
    const other = await on.request({
      method: 'GET',
      url: '/v1/brands',
      key,
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(on, 'https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(off, SHOP)).headers['access-control-allow-origin']).toBeUndefined();
  });
});

const CHROMIUM = '/usr/bin/chromium';
describe.skipIf(!fs.existsSync(CHROMIUM) && !process.env.CI)('CORS from a page on another origin (Chromium)', () => {
  let t: TestApp;
  let page: http.Server;
  let browser: Browser;
  let api: string;
  let shop: string;
  let key: string;

  beforeAll(async () => {
    page = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>shop</p>'));
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    shop = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    t = await createTestApp('sqlite', { env: { ATELIER_CORS_ORIGINS: shop } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://localhost:${(t.app.server.address() as AddressInfo).port}`;
    key = (await t.bootstrap()).apiKey;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((r) => page?.close(r));
  });

  async function fromPage(origin: string, body: unknown) {
    const tab = await browser.newPage();
    try {
      await tab.goto(origin);
      return await tab.evaluate(
        async ({ api, key, body }) => {
          try {
            const res = await fetch(`${api}/v1/brands`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            return { status: res.status, requestId: res.headers.get('x-request-id'), json: await res.json() };
          } catch (err) {
            return { error: String(err) };
          }
        },
        { api, key, body },
      );
    } finally {
      await tab.close();
    }
  }

  it('lets the listed origin create a brand with its key, and reads the answer and its headers', async () => {
    const r = await fromPage(shop, {
      name: 'From the shop',
      industry: 'Retail',
      description: 'Made from a browser page.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    expect(r).toMatchObject({ status: 201, json: { name: 'From the shop' } });
    expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('blocks a page on an origin that is not listed', async () => {
    const other = `http://localhost:${(page.address() as AddressInfo).port}`;
    const r = await fromPage(other, {
      name: 'Not allowed',
      industry: 'Retail',
      description: 'Made from a browser page.',
    });
    expect(r.error).toMatch(/Failed to fetch/);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originalKey } from '../src/modules/assets/assets.keys.ts';
import { consoleCsp } from '../src/modules/console/console.routes.ts';
import { loadConfig } from '../src/config.ts';
import { createTestApp, dbKinds, type TestApp, tmpDir } from './helpers/app.ts';
import { flatPng } from './helpers/assets.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * The web console's server side over HTTP: cookie sessions (login, logout, me, throttling,
 * invites), CSRF, sessions on the REST API (keys, brand and asset deletion, stubs), the built UI.
 */
const PASSWORD = 'a long enough passphrase';
const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';

interface Session {
  cookie: string;
  csrf: string;
}

describe.each(dbKinds())('web console (%s)', (kind) => {
  let now = new Date('2030-01-01T00:00:00.000Z');
  let t: TestApp;
  let uiDir: string;
  let owner: { organizationId: string; userId: string; apiKey: string };
  let other: { organizationId: string; userId: string; apiKey: string };
  let ip = 0;
  /** A fresh client address per call, so throttling by address does not mix tests up. */
  const nextIp = () => `10.0.${Math.floor(++ip / 250)}.${ip % 250}`;

  async function addUser(role: string, email: string, orgId = owner.organizationId) {
    const user = await t.deps.access.addUser({ organizationId: orgId, name: email.split('@')[0]!, email, role });
    await t.deps.console.setPassword(user.id, PASSWORD);
    return user;
  }
  const login = (email: string, password = PASSWORD, remoteAddress = nextIp()) =>
    t.request({ method: 'POST', url: '/console/api/login', payload: { email, password }, remoteAddress });
  async function signIn(email: string): Promise<Session> {
    const res = await login(email);
    expect(res.statusCode, res.body).toBe(200);
    return { cookie: String(res.headers['set-cookie']).split(';')[0] as string, csrf: res.json().csrfToken };
  }
  /** A request with the session cookie, and its CSRF header unless `csrf: false`. */
  const as = (s: Session, o: InjectOptions & { csrf?: boolean }): Promise<LightMyRequestResponse> => {
    const { csrf = true, ...opts } = o;
    return t.request({
      ...opts,
      headers: { ...(opts.headers as object), cookie: s.cookie, ...(csrf ? { 'x-csrf-token': s.csrf } : {}) },
    });
  };

  let admin: Session;
  let member: Session;
  let memberId: string;

  beforeAll(async () => {
    uiDir = tmpDir('atelier-ui-');
    fs.mkdirSync(path.join(uiDir, 'assets'));
    fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>Atelier</title>');
    fs.writeFileSync(path.join(uiDir, 'assets', 'app-1234.js'), 'console.log(1)');
    fs.writeFileSync(path.join(uiDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await createTestApp(kind, { clock: () => now, env: { ATELIER_CONSOLE_DIR: uiDir } });
    await t.deps.startWorkers();
    owner = await t.bootstrap({ orgName: 'Console Org' });
    other = await t.bootstrap({ orgName: 'Other Org' });
    await addUser('admin', 'ada@example.com');
    memberId = (await addUser('member', 'max@example.com')).id;
    admin = await signIn('ada@example.com');
    member = await signIn('max@example.com');
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(uiDir, { recursive: true, force: true });
  });

  it('signs in with a secure cookie, answers /me, and signs out (CSRF required)', async () => {
    const res = await login('ADA@example.com');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      user: {
        id: expect.any(String),
        name: 'ada',
        email: 'ada@example.com',
        role: 'admin',
        organizationId: owner.organizationId,
        organizationName: 'Console Org',
      },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^atelier_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    const s = { cookie: setCookie.split(';')[0] as string, csrf: body.csrfToken };
    const me = await as(s, { method: 'GET', url: '/console/api/me' });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual(body);
    expect((await t.request({ method: 'GET', url: '/console/api/me' })).statusCode).toBe(401);

    const noCsrf = await as(s, { method: 'POST', url: '/console/api/logout', csrf: false });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().error.code).toBe('CSRF_FAILED');
    const out = await as(s, { method: 'POST', url: '/console/api/logout' });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^atelier_session=; .*Max-Age=0/);
    expect((await as(s, { method: 'GET', url: '/console/api/me' })).statusCode).toBe(401);
    expect((await as(s, { method: 'GET', url: '/v1/brands' })).statusCode).toBe(401);
  });

  it('adds Secure to the cookie when the public URL is https', () => {
    // The flag follows ATELIER_PUBLIC_URL; checked on the cookie builder the routes use.
    return import('../src/modules/console/cookies.ts').then(({ sessionCookie }) => {
      expect(sessionCookie('x', true)).toMatch(/; Secure$/);
      expect(sessionCookie('x', false)).not.toMatch(/Secure/);
    });
  });

  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const wrong = await login('ada@example.com', 'not the password at all');
    const unknown = await login('nobody@example.com', PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(wrong.json().error).toEqual(unknown.json().error);
    expect(wrong.json().error.code).toBe('INVALID_CREDENTIALS');
  });

  it('throttles 5 failures per account and address, 20 per address, for 15 minutes; never locks the account for everyone', async () => {
    await addUser('viewer', 'vic@example.com');
    const attacker = '203.0.113.66';
    for (let i = 0; i < 5; i++) {
      expect((await login('vic@example.com', 'wrong password!', attacker)).statusCode).toBe(401);
    }
    const blocked = await login('vic@example.com', PASSWORD, attacker);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
    // The owner, from their own address, still signs in.
    expect((await login('vic@example.com', PASSWORD, '198.51.100.20')).statusCode).toBe(200);

    const address = '192.0.2.7';
    for (let i = 0; i < 20; i++) {
      expect((await login(`nobody${i}@example.com`, 'wrong password!', address)).statusCode).toBe(401);
    }
    expect((await login('max@example.com', PASSWORD, address)).statusCode).toBe(429);
    expect((await login('max@example.com', PASSWORD)).statusCode).toBe(200);

    const before = now;
    now = new Date(now.getTime() + 15 * 60_000 + 1000);
    try {
      expect((await login('vic@example.com', PASSWORD, attacker)).statusCode).toBe(200);
      expect((await login('max@example.com', PASSWORD, address)).statusCode).toBe(200);
    } finally {
      now = before;
    }
  });

  it('slows guessing on one account from many addresses with a growing wait, not a lock', async () => {
    await addUser('viewer', 'wes@example.com');
    for (let i = 0; i < 10; i++) expect((await login('wes@example.com', 'wrong password!')).statusCode).toBe(401);
    const before = now;
    try {
      let waiting = await login('wes@example.com');
      expect(waiting.statusCode).toBe(429);
      expect(waiting.headers['retry-after']).toBe('1'); // 2^(10 − 10) s after the latest failure
      now = new Date(now.getTime() + 1500);
      expect((await login('wes@example.com', 'wrong password!')).statusCode).toBe(401);
      waiting = await login('wes@example.com');
      expect(waiting.headers['retry-after']).toBe('2');
      now = new Date(now.getTime() + 2500);
      expect((await login('wes@example.com')).statusCode).toBe(200);
    } finally {
      now = before;
    }
  });

  it('accepts an invite once, signs in, and refuses used and expired invites', async () => {
    const user = await t.deps.access.addUser({
      organizationId: owner.organizationId,
      name: 'Ivy',
      email: 'ivy@example.com',
      role: 'member',
    });
    const { token, url } = await t.deps.console.createInvite(user.id);
    expect(url).toBe(`${t.config.publicUrl}/console/#/invite/${token}`);
    const accept = (password: string, tok = token) =>
      t.request({ method: 'POST', url: '/console/api/invites/accept', payload: { token: tok, password } });
    expect((await accept('short')).statusCode).toBe(400);
    const ok = await accept(PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().user).toMatchObject({ id: user.id, role: 'member' });
    expect(String(ok.headers['set-cookie'])).toMatch(/^atelier_session=/);
    const again = await accept(PASSWORD);
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('INVALID_INVITE');
    expect((await login('ivy@example.com')).statusCode).toBe(200);

    const late = await t.deps.console.createInvite(user.id);
    const before = now;
    now = new Date(now.getTime() + 72 * 3_600_000 + 1);
    try {
      expect((await accept(PASSWORD, late.token)).json().error.code).toBe('INVALID_INVITE');
    } finally {
      now = before;
    }
    expect((await accept(PASSWORD, 'x'.repeat(43))).statusCode).toBe(400);
  });

  it('requires X-CSRF-Token on cookie writes, never on Bearer keys (a Bearer header wins)', async () => {
    const payload = {
      name: 'CSRF',
      industry: 'Retail',
      description: 'A brand made by the console tests.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    };
    const noCsrf = await as(member, { method: 'POST', url: '/v1/brands', payload, csrf: false });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().error.code).toBe('CSRF_FAILED');
    const wrong = await as(member, {
      method: 'POST',
      url: '/v1/brands',
      payload,
      headers: { 'x-csrf-token': 'nope' },
      csrf: false,
    });
    expect(wrong.json().error.code).toBe('CSRF_FAILED');
    const created = await as(member, { method: 'POST', url: '/v1/brands', payload });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().organizationId).toBe(owner.organizationId);
    // Reads need no CSRF header.
    expect((await as(member, { method: 'GET', url: '/v1/brands', csrf: false })).statusCode).toBe(200);
    // A key with a cookie alongside: the key decides (another organization, no CSRF needed).
    const keyed = await t.request({
      method: 'POST',
      url: '/v1/brands',
      payload,
      key: other.apiKey,
      headers: { cookie: member.cookie },
    });
    expect(keyed.statusCode).toBe(201);
    expect(keyed.json().organizationId).toBe(other.organizationId);
    // A session that does not exist is a 401.
    const bogus = { cookie: `atelier_session=${'A'.repeat(43)}`, csrf: 'x' };
    expect((await as(bogus, { method: 'GET', url: '/v1/brands' })).statusCode).toBe(401);
  });

  it('lets a session create, list, regenerate and revoke keys; the token works as Bearer', async () => {
    const created = await as(member, {
      method: 'POST',
      url: '/v1/api-keys',
      payload: { name: 'laptop', env: 'dev', expiresAt: '2031-01-01T00:00:00.000Z' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json();
    expect(key).toMatchObject({
      name: 'laptop',
      env: 'dev',
      userId: memberId,
      status: 'active',
      expiresAt: '2031-01-01T00:00:00.000Z',
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(key.token).toMatch(new RegExp(`^${key.prefix}\\.[0-9A-Za-z]{43}$`));
    expect((await t.request({ method: 'GET', url: '/v1/brands', key: key.token })).statusCode).toBe(200);
    // Keys still never reach console routes.
    expect((await t.request({ method: 'GET', url: '/v1/api-keys', key: key.token })).statusCode).toBe(403);

    const list = await as(member, { method: 'GET', url: '/v1/api-keys' });
    expect(list.statusCode).toBe(200);
    const mine = list.json().data.find((k: { keyId: string }) => k.keyId === key.keyId);
    expect(mine).toMatchObject({ name: 'laptop', prefix: key.prefix });
    expect(mine.token).toBeUndefined();

    const regen = await as(member, { method: 'POST', url: `/v1/api-keys/${key.keyId}/regenerate` });
    expect(regen.statusCode).toBe(200);
    expect(regen.json().keyId).toBe(key.keyId);
    expect((await t.request({ method: 'GET', url: '/v1/brands', key: key.token })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/v1/brands', key: regen.json().token })).statusCode).toBe(200);

    expect((await as(member, { method: 'DELETE', url: `/v1/api-keys/${key.keyId}`, csrf: false })).statusCode).toBe(
      403,
    );
    expect((await as(member, { method: 'DELETE', url: `/v1/api-keys/${key.keyId}` })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: '/v1/brands', key: regen.json().token })).statusCode).toBe(401);
    const again = await as(member, { method: 'POST', url: `/v1/api-keys/${key.keyId}/regenerate` });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('KEY_REVOKED');

    const badEnv = await as(member, { method: 'POST', url: '/v1/api-keys', payload: { name: 'x', env: 'prod' } });
    expect(badEnv.statusCode).toBe(400);
    const past = await as(member, {
      method: 'POST',
      url: '/v1/api-keys',
      payload: { name: 'x', expiresAt: '2020-01-01T00:00:00.000Z' },
    });
    expect(past.statusCode).toBe(400);
  });

  it('shows members only their keys; admins manage every key of their organization only', async () => {
    const adminKey = (await as(admin, { method: 'POST', url: '/v1/api-keys', payload: { name: 'admin key' } })).json();
    const memberKey = (
      await as(member, { method: 'POST', url: '/v1/api-keys', payload: { name: 'member key' } })
    ).json();
    const ids = async (s: Session) =>
      (await as(s, { method: 'GET', url: '/v1/api-keys' })).json().data.map((k: { keyId: string }) => k.keyId);
    const memberSees = await ids(member);
    expect(memberSees).toContain(memberKey.keyId);
    expect(memberSees).not.toContain(adminKey.keyId);
    const adminSees = await ids(admin);
    expect(adminSees).toEqual(expect.arrayContaining([adminKey.keyId, memberKey.keyId]));
    const otherKeyId = other.apiKey.split('_')[2]?.split('.')[0] as string;
    expect(adminSees).not.toContain(otherKeyId);

    expect((await as(member, { method: 'DELETE', url: `/v1/api-keys/${adminKey.keyId}` })).statusCode).toBe(404);
    expect((await as(admin, { method: 'DELETE', url: `/v1/api-keys/${otherKeyId}` })).statusCode).toBe(404);
    expect((await as(admin, { method: 'POST', url: `/v1/api-keys/${otherKeyId}/regenerate` })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/v1/brands', key: other.apiKey })).statusCode).toBe(200);
    expect((await as(admin, { method: 'DELETE', url: `/v1/api-keys/${memberKey.keyId}` })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: '/v1/brands', key: memberKey.token })).statusCode).toBe(401);
  });

  it('deletes assets (with their files) and brands (with everything under them) for admins only', async () => {
    const brandId = await createBrand(t, owner.apiKey, 'To delete');
    const bytes = await flatPng(64, 64);
    const [logoId, otherId] = await uploadCompleteAssets(t, owner.apiKey, brandId, [
      { name: 'logo.png', type: 'image/png', bytes },
      { name: 'b.png', type: 'image/png', bytes },
    ]);
    const put = await t.request({
      method: 'PUT',
      url: `/v1/brands/${brandId}`,
      key: owner.apiKey,
      headers: { 'if-match': '*' },
      payload: { logoAssetId: logoId },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await t.deps.storage.head(originalKey(owner.organizationId, logoId!))).toBeDefined();

    // Keys: 403; a member: 403 (no assets:delete); another organization's id: 404.
    expect((await t.request({ method: 'DELETE', url: `/v1/assets/${logoId}`, key: owner.apiKey })).statusCode).toBe(
      403,
    );
    const byMember = await as(member, { method: 'DELETE', url: `/v1/assets/${logoId}` });
    expect(byMember.statusCode).toBe(403);
    expect(byMember.json().error.details).toEqual({ requiredPermission: 'assets:delete' });
    const outsider = await addUser('owner', 'olga@example.com', other.organizationId);
    const olga = await signIn('olga@example.com');
    expect(outsider.role).toBe('owner');
    expect((await as(olga, { method: 'DELETE', url: `/v1/assets/${logoId}` })).statusCode).toBe(404);
    expect((await as(olga, { method: 'DELETE', url: `/v1/brands/${brandId}` })).statusCode).toBe(404);

    const del = await as(admin, { method: 'DELETE', url: `/v1/assets/${logoId}` });
    expect(del.statusCode, del.body).toBe(204);
    expect((await t.request({ method: 'GET', url: `/v1/assets/${logoId}`, key: owner.apiKey })).statusCode).toBe(404);
    expect(await t.deps.storage.head(originalKey(owner.organizationId, logoId!))).toBeUndefined();
    const brand = await t.request({ method: 'GET', url: `/v1/brands/${brandId}`, key: owner.apiKey });
    expect(brand.json().logoAsset).toBeUndefined();
    expect((await as(admin, { method: 'DELETE', url: `/v1/assets/${logoId}` })).statusCode).toBe(404);

    expect((await as(member, { method: 'DELETE', url: `/v1/brands/${brandId}` })).statusCode).toBe(403);
    expect((await t.request({ method: 'DELETE', url: `/v1/brands/${brandId}`, key: owner.apiKey })).statusCode).toBe(
      403,
    );
    const gone = await as(admin, { method: 'DELETE', url: `/v1/brands/${brandId}` });
    expect(gone.statusCode, gone.body).toBe(204);
    expect((await t.request({ method: 'GET', url: `/v1/brands/${brandId}`, key: owner.apiKey })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/v1/assets/${otherId}`, key: owner.apiKey })).statusCode).toBe(404);
    expect(await t.deps.storage.head(originalKey(owner.organizationId, otherId!))).toBeUndefined();
    expect((await as(admin, { method: 'DELETE', url: `/v1/brands/${MISSING}` })).statusCode).toBe(404);
  });

  it('answers 501 to sessions and 403 to keys on the console routes not built yet', async () => {
    const routes = [
      ['GET', '/v1/trends'],
      ['POST', `/v1/brands/${MISSING}/themes`],
      ['POST', `/v1/brands/${MISSING}/campaigns`],
      ['POST', '/v1/partner-creatives'],
    ] as const;
    for (const [method, url] of routes) {
      const bySession = await as(admin, { method, url, payload: {} });
      expect(bySession.statusCode, `${method} ${url}`).toBe(501);
      expect(bySession.json().error.code).toBe('NOT_IMPLEMENTED');
      const byKey = await t.request({ method, url, key: owner.apiKey, payload: {} });
      expect(byKey.statusCode, `${method} ${url}`).toBe(403);
      expect(byKey.json().error.code).toBe('FORBIDDEN');
    }
  });

  it('ends sessions after 12 hours and purges them', async () => {
    const s = await signIn('max@example.com');
    const before = now;
    now = new Date(now.getTime() + 12 * 3_600_000);
    try {
      expect((await as(s, { method: 'GET', url: '/console/api/me' })).statusCode).toBe(401);
      expect((await as(s, { method: 'GET', url: '/v1/brands' })).statusCode).toBe(401);
      const removed = await t.deps.console.purgeExpired();
      expect(removed.sessions).toBeGreaterThan(0);
    } finally {
      now = before;
    }
  });

  it('serves the built UI with security headers, and 503 when it is not built', async () => {
    const page = await t.request({ method: 'GET', url: '/console' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toContain('<title>Atelier</title>');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toMatch(
      /^default-src 'self'; img-src 'self' data: blob: http:\/\/localhost:8080/,
    );
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect((await t.request({ method: 'GET', url: '/console/' })).body).toBe(page.body);
    const js = await t.request({ method: 'GET', url: '/console/assets/app-1234.js' });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const again = await t.request({ method: 'GET', url: '/console/favicon.svg', headers: {} });
    expect(again.headers['content-type']).toBe('image/svg+xml');
    const cached = await t.request({
      method: 'GET',
      url: '/console/favicon.svg',
      headers: { 'if-none-match': String(again.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);
    for (const url of [
      '/console/nope.js',
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/.env',
    ]) {
      expect((await t.request({ method: 'GET', url })).statusCode, url).toBe(404);
    }
    fs.renameSync(uiDir, `${uiDir}.off`);
    try {
      const missing = await t.request({ method: 'GET', url: '/console' });
      expect(missing.statusCode).toBe(503);
      expect(missing.json().error.message).toMatch(/not built/);
    } finally {
      fs.renameSync(`${uiDir}.off`, uiDir);
    }
  });
});

describe('console CSP', () => {
  it('allows signed links of the S3 store', () => {
    const config = loadConfig({
      ATELIER_PUBLIC_URL: 'https://atelier.example.com',
      S3_BUCKET: 'media',
      S3_ENDPOINT: 'https://minio.example.com:9000',
      S3_ACCESS_KEY_ID: 'a',
      S3_SECRET_ACCESS_KEY: 'b',
    });
    const csp = consoleCsp(config);
    expect(csp).toContain("img-src 'self' data: blob: https://atelier.example.com https://minio.example.com:9000");
    expect(csp).toContain("connect-src 'self' https://atelier.example.com https://minio.example.com:9000");
  });
});

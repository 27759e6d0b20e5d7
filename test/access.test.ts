import { createHash } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalOf } from '../src/modules/access/access.auth.ts';
import { createAccessRepo } from '../src/modules/access/access.repo.ts';
import { createAccessService } from '../src/modules/access/access.service.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';

/**
 * Test-only routes, added to every Fastify instance created while `withProbeRoutes` runs (through
 * Fastify's `fastify.initialization` diagnostics channel), so access can be checked on a read, a
 * write and a plan-gated route without depending on other modules' routes.
 */
async function withProbeRoutes<T>(create: () => Promise<T>): Promise<T> {
  const add = (message: unknown) => {
    const app = (message as { fastify: FastifyInstance }).fastify;
    app.get('/v1/_probe/whoami', async (req) => principalOf(req));
    app.post('/v1/_probe/write', { config: { permission: 'brands:write' } }, async () => ({ written: true }));
    app.get('/v1/_probe/dna', { config: { feature: 'brand_dna' } }, async () => ({ ok: true }));
  };
  diagnostics.subscribe('fastify.initialization', add);
  try {
    return await create();
  } finally {
    diagnostics.unsubscribe('fastify.initialization', add);
  }
}

const WHOAMI = { method: 'GET', url: '/v1/_probe/whoami' } as const;
const WRITE = { method: 'POST', url: '/v1/_probe/write', payload: {} } as const;
const BASE62 = [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];
const base62 = (n: number) =>
  fc.array(fc.constantFrom(...BASE62), { minLength: n, maxLength: n }).map((a) => a.join(''));

describe.each(dbKinds())('access over HTTP (%s)', (kind) => {
  let now = new Date('2030-01-01T00:00:00.000Z');
  let t: TestApp;
  let owner: { organizationId: string; userId: string; apiKey: string };
  beforeAll(async () => {
    t = await withProbeRoutes(() => createTestApp(kind, { clock: () => now }));
    owner = await t.bootstrap();
  });
  afterAll(async () => t?.close());

  const status = async (key: string | undefined, req: typeof WHOAMI | typeof WRITE = WHOAMI) =>
    (await t.request({ ...req, ...(key ? { key } : {}) })).statusCode;
  const keyIdOf = (token: string) => token.split('_')[2]?.split('.')[0] as string;

  async function expect401(headers: Record<string, string>) {
    const res = await t.request({ ...WHOAMI, headers });
    expect(res.statusCode, JSON.stringify(headers)).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toEqual({
      requestId: res.headers['x-request-id'],
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
  }

  it('lets a valid key act as its owner within the owner organization', async () => {
    const res = await t.request({ ...WHOAMI, key: owner.apiKey });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      userId: owner.userId,
      role: 'owner',
      keyId: keyIdOf(owner.apiKey),
      org: { id: owner.organizationId, planSlug: 'enterprise' },
    });
    // The scheme is case-insensitive (RFC 9110).
    expect((await t.request({ ...WHOAMI, headers: { authorization: `bearer ${owner.apiKey}` } })).statusCode).toBe(200);
  });

  it('401s a missing header, another scheme and malformed tokens', async () => {
    const [keyId, secret] = owner.apiKey.slice('atl_dev_'.length).split('.') as [string, string];
    const bad: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: `Basic ${Buffer.from(`x:${owner.apiKey}`).toString('base64')}` },
      { authorization: `Token ${owner.apiKey}` },
      { authorization: owner.apiKey },
      { authorization: `Bearer ${owner.apiKey} extra` },
      { authorization: `Bearer ${owner.apiKey}x` },
      { authorization: `Bearer ${owner.apiKey.slice(0, -1)}` },
      { authorization: `Bearer atl_dev_${keyId}${secret}` },
      { authorization: `Bearer atl_dev_${keyId}.${secret.slice(0, 20)}!${secret.slice(21)}` },
      { authorization: `Bearer xyz_dev_${keyId}.${secret}` },
      { authorization: `Bearer atl_qa_${keyId}.${secret}` },
      { 'x-api-key': owner.apiKey },
    ];
    for (const headers of bad) await expect401(headers);
  });

  it('401s any Authorization header that is not a valid key, never a 500', async () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 120,
    });
    const header = fc.oneof(
      printable,
      printable.map((s) => `Bearer ${s.replaceAll(' ', '')}`),
      fc
        .tuple(fc.constantFrom('dev', 'staging', 'prod'), base62(16), base62(43))
        .map(([env, id, secret]) => `Bearer atl_${env}_${id}.${secret}`),
    );
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        expect((await t.request({ ...WHOAMI, headers: { authorization } })).statusCode).toBe(401);
      }),
      { numRuns: 60 },
    );
  });

  it('401s an unknown key id and a wrong secret for a known key id', async () => {
    const [keyId, secret] = owner.apiKey.slice('atl_dev_'.length).split('.') as [string, string];
    const otherId = keyId.endsWith('A') ? `${keyId.slice(0, -1)}B` : `${keyId.slice(0, -1)}A`;
    const otherSecret = secret.endsWith('A') ? `${secret.slice(0, -1)}B` : `${secret.slice(0, -1)}A`;
    await expect401({ authorization: `Bearer atl_dev_${otherId}.${secret}` });
    await expect401({ authorization: `Bearer atl_dev_${keyId}.${otherSecret}` });
    // The genuine key still works: the failures above did not lock it.
    expect(await status(owner.apiKey)).toBe(200);
  });

  it('401s a revoked key on its next request', async () => {
    const { token, key } = await t.deps.access.createKey({ userId: owner.userId, name: 'to revoke' });
    expect(await status(token)).toBe(200);
    await t.deps.access.revokeKey(key.keyId);
    await expect401({ authorization: `Bearer ${token}` });
    expect(await status(owner.apiKey)).toBe(200);
  });

  it('401s a key once its expiry has passed, and not before', async () => {
    const expiresAt = new Date(now.getTime() + 3_600_000);
    const { token } = await t.deps.access.createKey({ userId: owner.userId, name: 'expiring', expiresAt });
    const before = now;
    try {
      now = new Date(expiresAt.getTime() - 1);
      expect(await status(token)).toBe(200);
      now = expiresAt;
      await expect401({ authorization: `Bearer ${token}` });
      now = new Date(expiresAt.getTime() + 86_400_000);
      await expect401({ authorization: `Bearer ${token}` });
    } finally {
      now = before;
    }
  });

  it('after regenerate the old token is 401 and the new one works, same key id and name', async () => {
    const { token: oldToken, key } = await t.deps.access.createKey({ userId: owner.userId, name: 'ci deploy' });
    expect(await status(oldToken)).toBe(200);
    const { token: newToken, key: after } = await t.deps.access.regenerateKey(key.keyId);
    expect(keyIdOf(newToken)).toBe(key.keyId);
    expect(newToken).not.toBe(oldToken);
    expect(after).toMatchObject({ keyId: key.keyId, name: 'ci deploy', revokedAt: null });
    await expect401({ authorization: `Bearer ${oldToken}` });
    expect(await status(newToken)).toBe(200);
  });

  it('401s every key of a removed user on the next request', async () => {
    const user = await t.deps.access.addUser({ organizationId: owner.organizationId, name: 'Leaver', role: 'member' });
    const { token } = await t.deps.access.createKey({ userId: user.id, name: 'laptop' });
    expect(await status(token)).toBe(200);
    await t.deps.access.removeUser(user.id);
    await expect401({ authorization: `Bearer ${token}` });
  });

  it('403s every API key on console-only routes', async () => {
    const routes = [
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/api-keys'],
      ['DELETE', '/v1/api-keys/abc'],
      ['POST', '/v1/api-keys/abc/regenerate'],
      ['DELETE', '/v1/brands/0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b'],
      ['POST', '/v1/brands/0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b/themes'],
    ] as const;
    for (const [method, url] of routes) {
      const res = await t.request({ method, url, key: owner.apiKey, payload: {} });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
  });

  it('403s a viewer writing, and lets it read', async () => {
    const viewer = await t.deps.access.addUser({
      organizationId: owner.organizationId,
      name: 'Auditor',
      role: 'viewer',
    });
    const { token } = await t.deps.access.createKey({ userId: viewer.id, name: 'read only' });
    expect(await status(token)).toBe(200);
    const res = await t.request({ ...WRITE, key: token });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'brands:write' } });
  });

  it('applies a role change to the very next request of an existing key', async () => {
    const user = await t.deps.access.addUser({ organizationId: owner.organizationId, name: 'Demoted', role: 'owner' });
    const { token } = await t.deps.access.createKey({ userId: user.id, name: 'k' });
    expect(await status(token, WRITE)).toBe(200);
    await t.deps.access.setRole(user.id, 'viewer');
    expect(await status(token, WRITE)).toBe(403);
    expect((await t.request({ ...WHOAMI, key: token })).json().role).toBe('viewer');
    await t.deps.access.setRole(user.id, 'member');
    expect(await status(token, WRITE)).toBe(200);
  });

  it('403s a route whose plan feature the organization lacks, and follows plan changes', async () => {
    const free = await t.bootstrap({ plan: 'free' });
    const res = await t.request({ method: 'GET', url: '/v1/_probe/dna', key: free.apiKey });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'FORBIDDEN', details: { feature: 'brand_dna', plan: 'free' } });
    await t.deps.access.setPlan(free.organizationId, 'pro');
    expect((await t.request({ method: 'GET', url: '/v1/_probe/dna', key: free.apiKey })).statusCode).toBe(200);
  });

  it('records lastUsedAt in a batch, not on the request path', async () => {
    const { token, key } = await t.deps.access.createKey({ userId: owner.userId, name: 'usage' });
    expect(key.lastUsedAt).toBeNull();
    const usedAt = new Date(now.getTime() + 5000);
    const before = now;
    now = usedAt;
    try {
      expect(await status(token)).toBe(200);
    } finally {
      now = before;
    }
    const lastUsed = async () =>
      (await t.deps.access.listKeys({ userId: owner.userId })).find((k) => k.keyId === key.keyId)?.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await t.deps.keyUsage.flush();
    expect(await lastUsed()).toBe(usedAt.toISOString());
  });

  it('stores only a SHA-256 of the secret, never the secret or the token', async () => {
    const { token, key } = await t.deps.access.createKey({ userId: owner.userId, name: 'stored' });
    const secret = token.split('.')[1] as string;
    const row = await t.deps.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('key_id', '=', key.keyId)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    for (const [column, value] of Object.entries(row)) {
      expect(String(value), column).not.toContain(secret);
      expect(String(value), column).not.toContain(secret.slice(0, 12));
    }
  });
});

describe.each(dbKinds())('keys and environments (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await withProbeRoutes(() => createTestApp(kind, { env: { ATELIER_ENV: 'staging' } }));
  });
  afterAll(async () => t?.close());

  it('a staging server mints staging keys and 401s a key minted for dev', async () => {
    const { apiKey, userId } = await t.bootstrap();
    expect(apiKey).toMatch(/^atl_staging_[0-9A-Za-z]{16}\.[0-9A-Za-z]{43}$/);
    expect((await t.request({ ...WHOAMI, key: apiKey })).statusCode).toBe(200);
    // A dev server sharing this database mints a dev key for the same user.
    const dev = createAccessService({
      repo: createAccessRepo(t.deps.db),
      clock: t.deps.clock,
      plans: t.deps.plans,
      env: 'dev',
    });
    const { token } = await dev.createKey({ userId, name: 'dev laptop' });
    expect(token.startsWith('atl_dev_')).toBe(true);
    expect((await t.request({ ...WHOAMI, key: token })).statusCode).toBe(401);
    // Relabelling the token does not help: the key row itself says dev.
    const relabelled = token.replace(/^atl_dev_/, 'atl_staging_');
    expect((await t.request({ ...WHOAMI, key: relabelled })).statusCode).toBe(401);
  });
});

import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../sdk/src/index.ts';
import { apiKeys, consoleAuth, createClient, normalizeKey, normalizeKeyList, normalizeKeySecret } from '../src/api.ts';

type Seen = { url: string; method: string; headers: Record<string, string>; credentials: unknown; body: unknown };

function fakeFetch(answer: (s: Seen) => Response) {
  const seen: Seen[] = [];
  const fetch = async (input: string | URL, init?: RequestInit) => {
    const s: Seen = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>)),
      credentials: init?.credentials,
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    };
    seen.push(s);
    return answer(s);
  };
  return { fetch, seen };
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('the SDK in cookie mode', () => {
  it('sends cookies, no Authorization, and the CSRF token on non-GET calls only', async () => {
    let token: string | undefined = 'csrf-1';
    const { fetch, seen } = fakeFetch((s) =>
      s.method === 'GET'
        ? json(200, { data: [], pagination: { total: 0, pages: 0, currentPage: 1, limit: 20 }, links: { self: '' } })
        : json(201, { id: 'b1' }),
    );
    const client = createClient('http://console.test', () => token, fetch);
    await client.brands.list();
    await client.brands.create({
      name: 'A',
      industry: 'B',
      description: 'C',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    token = undefined;
    await client.brands.create({
      name: 'A',
      industry: 'B',
      description: 'C',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    expect(seen.map((s) => [s.method, s.credentials, s.headers['x-csrf-token'], s.headers.authorization])).toEqual([
      ['GET', 'same-origin', undefined, undefined],
      ['POST', 'same-origin', 'csrf-1', undefined],
      ['POST', 'same-origin', undefined, undefined],
    ]);
    expect(seen[0]!.url).toBe('http://console.test/v1/brands');
  });

  it('sends neither cookies nor the CSRF token to signed links', async () => {
    const { fetch, seen } = fakeFetch(() => new Response(null, { status: 200 }));
    const client = createClient('http://console.test', () => 'csrf-1', fetch);
    await client.assets.put(
      { uploadUrl: 'http://blobs.test/up?sig=1', uploadHeaders: { 'content-type': 'image/png' } },
      new Uint8Array([1]),
    );
    expect(seen[0]!.credentials).toBeUndefined();
    expect(seen[0]!.headers['x-csrf-token']).toBeUndefined();
  });

  it('an API-key client still needs its key and still sends it', async () => {
    const { Atelier } = await import('../../sdk/src/index.ts');
    expect(() => new Atelier({ baseUrl: 'http://x' } as never)).toThrow(/apiKey is required/);
    const { fetch, seen } = fakeFetch(() => json(200, { status: 'success', data: {} }));
    await new Atelier({ baseUrl: 'http://x', apiKey: 'atl_dev_k.s', fetch }).usage.get();
    expect(seen[0]!.headers.authorization).toBe('Bearer atl_dev_k.s');
    expect(seen[0]!.credentials).toBeUndefined();
  });
});

describe('console session calls', () => {
  it('signs in, reads the session, signs out', async () => {
    const session = {
      user: { id: 'u', name: 'Ann', email: 'a@x', role: 'owner', organizationId: 'o', organizationName: 'Org' },
      csrfToken: 't1',
    };
    const { fetch, seen } = fakeFetch((s) =>
      s.url.endsWith('/logout') ? new Response(null, { status: 204 }) : json(200, session),
    );
    const auth = consoleAuth(createClient('http://c.test', () => 't1', fetch));
    expect(await auth.login('a@x', 'pw')).toEqual(session);
    expect(await auth.me()).toEqual(session);
    await auth.logout();
    expect(seen.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual([
      'POST /console/api/login',
      'GET /console/api/me',
      'POST /console/api/logout',
    ]);
    expect(seen[0]!.body).toEqual({ email: 'a@x', password: 'pw' });
    expect(seen[2]!.headers['x-csrf-token']).toBe('t1');
  });

  it('a throttled sign-in fails at once with its Retry-After', async () => {
    const { fetch, seen } = fakeFetch(() =>
      json(
        429,
        { requestId: 'r', error: { code: 'TOO_MANY_ATTEMPTS', message: 'slow down' } },
        { 'retry-after': '120' },
      ),
    );
    const auth = consoleAuth(createClient('http://c.test', () => undefined, fetch));
    await expect(auth.login('a@x', 'pw')).rejects.toMatchObject({
      status: 429,
      code: 'TOO_MANY_ATTEMPTS',
      retryAfterMs: 120_000,
    });
    expect(seen).toHaveLength(1);
  });

  it('a wrong password is a 401 AuthenticationError', async () => {
    const { fetch } = fakeFetch(() =>
      json(401, { requestId: 'r', error: { code: 'INVALID_CREDENTIALS', message: 'Wrong email or password' } }),
    );
    const auth = consoleAuth(createClient('http://c.test', () => undefined, fetch));
    await expect(auth.login('a@x', 'pw')).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('API keys', () => {
  const info = {
    keyId: 'K1',
    name: 'CI',
    organizationId: 'o',
    userId: 'u',
    env: 'dev',
    createdAt: '2026-01-01T00:00:00Z',
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
  };
  it('normalizes lists and secrets in the spellings a server may use', () => {
    expect(normalizeKey(info)).toMatchObject({ keyId: 'K1', prefix: 'atl_dev_K1', env: 'dev' });
    expect(normalizeKey({ id: 'K2', environment: 'prod', prefix: 'atl_prod_K2' })).toMatchObject({
      keyId: 'K2',
      env: 'prod',
      prefix: 'atl_prod_K2',
    });
    expect(normalizeKeyList([info])).toHaveLength(1);
    expect(normalizeKeyList({ data: [info] })).toHaveLength(1);
    expect(normalizeKeyList({ keys: [info] })).toHaveLength(1);
    expect(normalizeKeyList(undefined)).toEqual([]);
    expect(normalizeKeySecret({ key: info, token: 'atl_dev_K1.s' })).toMatchObject({
      token: 'atl_dev_K1.s',
      key: { keyId: 'K1' },
    });
    expect(normalizeKeySecret({ ...info, apiKey: 'atl_dev_K1.s' })).toMatchObject({
      token: 'atl_dev_K1.s',
      key: { name: 'CI' },
    });
    expect(normalizeKeySecret({ data: { ...info, token: 't' } })).toMatchObject({ token: 't', key: { keyId: 'K1' } });
  });

  it('calls the console-only routes', async () => {
    const { fetch, seen } = fakeFetch((s) =>
      s.method === 'DELETE'
        ? new Response(null, { status: 204 })
        : s.method === 'GET'
          ? json(200, { data: [info] })
          : json(201, { key: info, token: 'tok' }),
    );
    const k = apiKeys(createClient('http://c.test', () => 'csrf', fetch));
    expect(await k.list()).toHaveLength(1);
    expect((await k.create({ name: 'CI', expiresAt: '2026-02-01T23:59:59.000Z' })).token).toBe('tok');
    expect((await k.regenerate('K1')).token).toBe('tok');
    await k.revoke('K1');
    expect(seen.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual([
      'GET /v1/api-keys',
      'POST /v1/api-keys',
      'POST /v1/api-keys/K1/regenerate',
      'DELETE /v1/api-keys/K1',
    ]);
    expect(seen[1]!.body).toEqual({ name: 'CI', expiresAt: '2026-02-01T23:59:59.000Z' });
    expect(seen.slice(1).every((s) => s.headers['x-csrf-token'] === 'csrf')).toBe(true);
  });
});

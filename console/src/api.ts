/** The console's API client: the SDK with cookie auth, plus the console session endpoints. */
import { Atelier, type FetchLike } from '../../sdk/src/index.ts';

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  role: string;
  organizationId: string;
  organizationName: string;
}
export interface Session {
  user: SessionUser;
  csrfToken: string;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The SDK in cookie mode: no API key, same-origin cookies, X-CSRF-Token on every non-GET call. */
export function createClient(baseUrl: string, csrf: () => string | undefined, fetch?: FetchLike): Atelier {
  return new Atelier({
    baseUrl,
    credentials: 'same-origin',
    headers: ({ method }) => {
      const token = csrf();
      return !SAFE.has(method) && token ? { 'x-csrf-token': token } : undefined;
    },
    retries: 2,
    ...(fetch ? { fetch } : {}),
  });
}

let csrfToken: string | undefined;
export const setCsrfToken = (t: string | undefined) => {
  csrfToken = t;
};
export const api: Atelier = createClient(globalThis.location?.origin ?? 'http://localhost', () => csrfToken);

/** Console session calls (`/console/api/...`): not retried, so a throttled sign-in shows at once. */
export function consoleAuth(client: Atelier) {
  const post = async <T>(url: string, body?: unknown) =>
    (await client.http.send<T>({ method: 'POST', url, body, retries: 0 })).data;
  return {
    login: (email: string, password: string) => post<Session>('/console/api/login', { email, password }),
    acceptInvite: (token: string, password: string) =>
      post<Session>('/console/api/invites/accept', { token, password }),
    logout: async () => {
      await post<void>('/console/api/logout');
    },
    me: async () => (await client.http.send<Session>({ method: 'GET', url: '/console/api/me', retries: 0 })).data,
  };
}
export const auth = consoleAuth(api);

// ---- API keys (console-only routes; not described in detail by the OpenAPI document) ---------------

export interface ApiKey {
  keyId: string;
  name: string;
  env: string;
  /** `atl_<env>_<keyId>` */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** One key as the server sends it (a few spellings accepted), in the console's shape. */
export function normalizeKey(raw: unknown): ApiKey {
  const r = (raw ?? {}) as Record<string, unknown>;
  const keyId = str(r.keyId) ?? str(r.id) ?? '';
  const env = str(r.env) ?? str(r.environment) ?? '';
  return {
    keyId,
    name: str(r.name) ?? '',
    env,
    prefix: str(r.prefix) ?? (env && keyId ? `atl_${env}_${keyId}` : keyId),
    createdAt: str(r.createdAt) ?? '',
    lastUsedAt: str(r.lastUsedAt) ?? null,
    expiresAt: str(r.expiresAt) ?? null,
    revokedAt: str(r.revokedAt) ?? null,
  };
}

/** A list answer: an array, or `{ data | keys | apiKeys: [...] }`. */
export function normalizeKeyList(raw: unknown): ApiKey[] {
  const r = raw as Record<string, unknown> | unknown[] | undefined;
  const list = Array.isArray(r) ? r : (r?.data ?? r?.keys ?? r?.apiKeys);
  return Array.isArray(list) ? list.map(normalizeKey) : [];
}

/** A create/regenerate answer: `{ key, token }`, `{ ...key, token | apiKey }` or `{ data: ... }`. */
export function normalizeKeySecret(raw: unknown): { key: ApiKey; token: string } {
  let r = (raw ?? {}) as Record<string, unknown>;
  if (r.data && typeof r.data === 'object' && !Array.isArray(r.data)) r = r.data as Record<string, unknown>;
  const token = str(r.token) ?? str(r.apiKey) ?? str(r.secret) ?? '';
  const key = normalizeKey(r.key && typeof r.key === 'object' ? r.key : r);
  return { key, token };
}

export function apiKeys(client: Atelier) {
  const send = (method: string, url: string, body?: unknown) => client.http.send({ method, url, body });
  return {
    list: async () => normalizeKeyList((await send('GET', '/v1/api-keys')).data),
    create: async (body: { name: string; env?: string; expiresAt?: string }) =>
      normalizeKeySecret((await send('POST', '/v1/api-keys', body)).data),
    regenerate: async (keyId: string) =>
      normalizeKeySecret((await send('POST', `/v1/api-keys/${encodeURIComponent(keyId)}/regenerate`)).data),
    revoke: async (keyId: string) => {
      await send('DELETE', `/v1/api-keys/${encodeURIComponent(keyId)}`);
    },
  };
}
export const keys = apiKeys(api);

/** Console-only deletes. */
export const deletes = {
  brand: async (brandId: string) => {
    await api.call('DELETE /v1/brands/{brandId}', { path: { brandId } });
  },
  asset: async (assetId: string) => {
    await api.call('DELETE /v1/assets/{assetId}', { path: { assetId } });
  },
};

// ---- Members (console-only routes for admins; hidden from the OpenAPI document) -------------------

export interface Member {
  userId: string;
  name: string;
  email: string | null;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  status: 'active' | 'invited';
  isYou: boolean;
  createdAt: string;
}
export interface MemberInvite {
  inviteUrl: string;
  inviteExpiresAt: string;
}

export function membersApi(client: Atelier) {
  const send = async <T>(method: string, url: string, body?: unknown) =>
    (await client.http.send<T>({ method, url, body })).data;
  const one = (userId: string) => `/v1/members/${encodeURIComponent(userId)}`;
  return {
    list: async () => (await send<{ data: Member[] }>('GET', '/v1/members')).data,
    invite: (body: { name: string; email: string; role: Member['role'] }) =>
      send<{ member: Member } & MemberInvite>('POST', '/v1/members', body),
    setRole: (userId: string, role: Member['role']) => send<Member>('PATCH', one(userId), { role }),
    newInvite: (userId: string) => send<MemberInvite>('POST', `${one(userId)}/invite`),
    remove: async (userId: string) => {
      await send<void>('DELETE', one(userId));
    },
  };
}
export const members = membersApi(api);

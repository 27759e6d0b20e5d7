import { noCache, type ReadCache } from '../../adapters/db/read-cache.ts';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { fromBool, fromJson, toBool, toJson } from '../../adapters/db/columns.ts';
import type { OrgOverrides, PlanCatalog } from '../usage/plans.ts';
import { parseOverrides } from '../usage/plans.ts';
import {
  type AtelierEnv,
  formatToken,
  hashSecret,
  mintKeyId,
  mintSecret,
  parseToken,
  secretCheck,
} from './access.keys.ts';
import type { AccessRepo, KeyLookup, KeyRow, OrgRow, UserRow } from './access.repo.ts';
import { isRole, type Role, ROLES } from './access.roles.ts';
import { AccessError } from './access.errors.ts';
import { andThen } from './now-or-later.ts';

/** Who is calling: the key, its owner with the owner's live role, and the owner's organization. */
export interface Principal {
  apiKeyId: string;
  keyId: string;
  userId: string;
  role: Role;
  platformAdmin: boolean;
  org: { id: string; name: string; planSlug: string; overrides: OrgOverrides };
  /**
   * 'session' when the caller signed in to the console (cookie); then `apiKeyId` is
   * `user:<userId>` (the rate-limit bucket) and `keyId` is empty. Absent for API keys.
   */
  via?: 'session';
}

export interface Organization {
  id: string;
  name: string;
  planSlug: string;
  overrides: OrgOverrides;
  /** Generated files get Content Credentials (C2PA): on unless the operator turned it off. */
  contentCredentials: boolean;
  createdAt: string;
}
export interface User {
  id: string;
  organizationId: string;
  name: string;
  email: string | null;
  role: Role;
  platformAdmin: boolean;
  createdAt: string;
}
export interface ApiKeyInfo {
  keyId: string;
  name: string;
  organizationId: string;
  userId: string;
  env: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

const toOrg = (r: OrgRow): Organization => ({
  id: r.id,
  name: r.name,
  planSlug: r.plan_slug,
  overrides: fromJson<OrgOverrides>(r.overrides, {}),
  contentCredentials: r.content_credentials !== 0,
  createdAt: r.created_at,
});
const toUser = (r: UserRow): User => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  email: r.email,
  role: r.role as Role,
  platformAdmin: fromBool(r.platform_admin),
  createdAt: r.created_at,
});
const toKeyInfo = (r: KeyRow): ApiKeyInfo => ({
  keyId: r.key_id,
  name: r.name,
  organizationId: r.organization_id,
  userId: r.user_id,
  env: r.env,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

export interface AccessServiceDeps {
  repo: AccessRepo;
  clock: Clock;
  plans: Pick<PlanCatalog, 'get' | 'slugs'>;
  /** Caches key lookups between writes (SQLite); every lookup reads the database when absent. */
  cache?: ReadCache;
  env: AtelierEnv;
}

/** Organizations, users and API keys: the operator's side (CLI) and authentication (HTTP). */
export function createAccessService({ repo, clock, plans, env, cache = noCache }: AccessServiceDeps) {
  const now = () => clock().toISOString();
  // What a key row resolves to, made once per row read: a row from the read cache is the same
  // object until a write, so a request with a known key builds nothing (bench/http). The
  // principal is shared between requests: read-only, like the cached row.
  const resolved = new WeakMap<KeyLookup, { matches: (secret: string) => boolean; principal: Principal | null }>();
  const resolve = (found: KeyLookup) => {
    let r = resolved.get(found);
    if (!r) {
      r = { matches: secretCheck(found.key.secret_hash), principal: principalOf(found) };
      resolved.set(found, r);
    }
    return r;
  };

  function checkPlan(slug: string) {
    if (!plans.get(slug)) throw new AccessError(`unknown plan "${slug}"; known plans: ${plans.slugs().join(', ')}`);
  }
  function checkRole(role: string): Role {
    if (!isRole(role)) throw new AccessError(`unknown role "${role}"; roles: ${ROLES.join(', ')}`);
    return role;
  }
  async function mustOrg(id: string) {
    const org = await repo.getOrg(id);
    if (!org) throw new AccessError(`no organization ${id}`);
    return org;
  }
  async function mustUser(id: string) {
    const user = await repo.getUser(id);
    if (!user) throw new AccessError(`no user ${id}`);
    return user;
  }
  async function mustKey(keyId: string) {
    const key = await repo.getKeyByKeyId(keyId);
    if (!key) throw new AccessError(`no API key ${keyId}`);
    return key;
  }

  const service = {
    async createOrganization(input: { name: string; planSlug: string }): Promise<Organization> {
      const name = input.name.trim();
      if (name.length < 1 || name.length > 200) throw new AccessError('organization name must be 1..200 characters');
      checkPlan(input.planSlug);
      const t = now();
      const row: OrgRow = {
        id: randomUUID(),
        name,
        plan_slug: input.planSlug,
        overrides: '{}',
        content_credentials: 1,
        created_at: t,
        updated_at: t,
      };
      await repo.insertOrg(row);
      return toOrg(row);
    },
    async listOrganizations(): Promise<Organization[]> {
      return (await repo.listOrgs()).map(toOrg);
    },
    async getOrganization(id: string): Promise<Organization | undefined> {
      const r = await repo.getOrg(id);
      return r ? toOrg(r) : undefined;
    },
    async setPlan(orgId: string, planSlug: string): Promise<Organization> {
      checkPlan(planSlug);
      await mustOrg(orgId);
      await repo.updateOrg(orgId, { plan_slug: planSlug, updated_at: now() });
      return toOrg(await mustOrg(orgId));
    },
    /** Content Credentials on or off for the organization's generated files (operators: admin CLI). */
    async setContentCredentials(orgId: string, on: boolean): Promise<Organization> {
      await mustOrg(orgId);
      await repo.updateOrg(orgId, { content_credentials: on ? 1 : 0, updated_at: now() });
      return toOrg(await mustOrg(orgId));
    },
    async setOverrides(orgId: string, overrides: unknown): Promise<Organization> {
      let parsed: OrgOverrides;
      try {
        parsed = parseOverrides(overrides);
      } catch (err) {
        throw new AccessError((err as Error).message);
      }
      await mustOrg(orgId);
      await repo.updateOrg(orgId, { overrides: toJson(parsed), updated_at: now() });
      return toOrg(await mustOrg(orgId));
    },
    async addUser(input: { organizationId: string; name: string; email?: string | null; role: string }): Promise<User> {
      const role = checkRole(input.role);
      await mustOrg(input.organizationId);
      const name = input.name.trim();
      if (name.length < 1 || name.length > 200) throw new AccessError('user name must be 1..200 characters');
      const t = now();
      const row: UserRow = {
        id: randomUUID(),
        organization_id: input.organizationId,
        name,
        email: input.email ?? null,
        role,
        platform_admin: 0,
        created_at: t,
        updated_at: t,
      };
      await repo.insertUser(row);
      return toUser(row);
    },
    async listUsers(orgId?: string): Promise<User[]> {
      return (await repo.listUsers(orgId)).map(toUser);
    },
    async setRole(userId: string, role: string): Promise<User> {
      const r = checkRole(role);
      await mustUser(userId);
      await repo.updateUser(userId, { role: r, updated_at: now() });
      return toUser(await mustUser(userId));
    },
    /** Removes a user; their keys stop working on their next use. */
    async removeUser(userId: string): Promise<void> {
      await mustUser(userId);
      await repo.deleteUser(userId);
    },
    async createKey(input: {
      userId: string;
      name: string;
      expiresAt?: Date | null;
    }): Promise<{ key: ApiKeyInfo; token: string }> {
      const user = await mustUser(input.userId);
      const name = input.name.trim();
      if (name.length < 1 || name.length > 100) throw new AccessError('key name must be 1..100 characters');
      if (input.expiresAt && input.expiresAt.getTime() <= clock().getTime()) {
        throw new AccessError('key expiry must be in the future');
      }
      const keyId = mintKeyId();
      const secret = mintSecret();
      const t = now();
      const row: KeyRow = {
        id: randomUUID(),
        key_id: keyId,
        organization_id: user.organization_id,
        user_id: user.id,
        name,
        env,
        secret_hash: hashSecret(secret),
        created_at: t,
        updated_at: t,
        expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
        revoked_at: null,
        last_used_at: null,
      };
      await repo.insertKey(row);
      return { key: toKeyInfo(row), token: formatToken(env, keyId, secret) };
    },
    async listKeys(filter: { orgId?: string; userId?: string } = {}): Promise<ApiKeyInfo[]> {
      return (await repo.listKeys(filter)).map(toKeyInfo);
    },
    async revokeKey(keyId: string): Promise<ApiKeyInfo> {
      const key = await mustKey(keyId);
      if (!key.revoked_at) await repo.updateKey(keyId, { revoked_at: now(), updated_at: now() });
      return toKeyInfo(await mustKey(keyId));
    },
    /** New secret for the same key id and name; the old token stops working at once. */
    async regenerateKey(keyId: string): Promise<{ key: ApiKeyInfo; token: string }> {
      const key = await mustKey(keyId);
      if (key.revoked_at) throw new AccessError(`API key ${keyId} is revoked`);
      const secret = mintSecret();
      await repo.updateKey(keyId, { secret_hash: hashSecret(secret), updated_at: now() });
      return { key: toKeyInfo(await mustKey(keyId)), token: formatToken(key.env, keyId, secret) };
    },
    /**
     * Creates an organization, its owner and a key. The owner has no operator powers (instance-wide
     * reads such as `all_organizations`): those are granted apart (`setOperator`), never on the key
     * a quickstart hands to an agent.
     */
    async bootstrap(input: { orgName?: string; planSlug?: string; userName?: string }) {
      const org = await service.createOrganization({
        name: input.orgName ?? 'Default organization',
        planSlug: input.planSlug ?? 'enterprise',
      });
      const user = await service.addUser({ organizationId: org.id, name: input.userName ?? 'Owner', role: 'owner' });
      const { token } = await service.createKey({ userId: user.id, name: 'bootstrap' });
      return { organizationId: org.id, userId: user.id, apiKey: token };
    },
    /** Grants or withdraws a user's operator powers (the platform admin flag). */
    async setOperator(userId: string, operator: boolean): Promise<User> {
      await mustUser(userId);
      await repo.updateUser(userId, { platform_admin: toBool(operator), updated_at: now() });
      return toUser(await mustUser(userId));
    },
    /**
     * Resolves a bearer token to a principal, or null for any reason a key is not valid now: at
     * once when the key's row is in the read cache, else once it is read.
     */
    authenticate(token: string): Principal | null | Promise<Principal | null> {
      const parsed = parseToken(token);
      if (!parsed || parsed.env !== env) return null;
      const admit = (found: KeyLookup | undefined): Principal | null => {
        if (!found) return null;
        const { key } = found;
        const { matches, principal } = resolve(found);
        // The secret is checked first and always, so the timing does not depend on the key's state.
        if (!matches(parsed.secret) || key.env !== env || key.revoked_at) return null;
        if (key.expires_at && key.expires_at <= clock().toISOString()) return null;
        return principal;
      };
      const found = cache.get(`api-key:${parsed.keyId}`, () => repo.lookupKey(parsed.keyId));
      return andThen(found, admit);
    },
  };
  return service;
}

export type AccessService = ReturnType<typeof createAccessService>;

/** The caller a key row stands for; null when the user's role is not one this version knows. */
function principalOf({ key, user, org }: KeyLookup): Principal | null {
  if (!isRole(user.role)) return null;
  return {
    apiKeyId: key.id,
    keyId: key.key_id,
    userId: user.id,
    role: user.role,
    platformAdmin: fromBool(user.platform_admin),
    org: {
      id: org.id,
      name: org.name,
      planSlug: org.plan_slug,
      overrides: fromJson<OrgOverrides>(org.overrides, {}),
    },
  };
}

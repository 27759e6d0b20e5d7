import { CompiledQuery, type InferResult, type Kysely, sql } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { affected } from '../../adapters/db/columns.ts';
import type { ApiKeysTable, OrganizationsTable, UsersTable } from './access.tables.ts';

export type OrgRow = OrganizationsTable;
export type UserRow = UsersTable;
export type KeyRow = ApiKeysTable;

/** The row set one authentication needs: key, owner and organization, in one query. */
export interface KeyLookup {
  key: KeyRow;
  user: Pick<UserRow, 'id' | 'role' | 'platform_admin' | 'name'>;
  org: Pick<OrgRow, 'id' | 'name' | 'plan_slug' | 'overrides'>;
}

/** The authentication lookup, built once: Kysely need not rebuild and recompile it per request. */
function lookupQuery(k: Kysely<DB>, keyId: string) {
  return k
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('organizations as o', 'o.id', 'k.organization_id')
    .where('k.key_id', '=', keyId)
    .whereRef('u.organization_id', '=', 'k.organization_id')
    .select([
      'k.id as k_id',
      'k.key_id as k_key_id',
      'k.organization_id as k_organization_id',
      'k.user_id as k_user_id',
      'k.name as k_name',
      'k.env as k_env',
      'k.secret_hash as k_secret_hash',
      'k.created_at as k_created_at',
      'k.updated_at as k_updated_at',
      'k.expires_at as k_expires_at',
      'k.revoked_at as k_revoked_at',
      'k.last_used_at as k_last_used_at',
      'u.id as u_id',
      'u.role as u_role',
      'u.platform_admin as u_platform_admin',
      'u.name as u_name',
      'o.id as o_id',
      'o.name as o_name',
      'o.plan_slug as o_plan_slug',
      'o.overrides as o_overrides',
    ]);
}
type LookupRow = InferResult<ReturnType<typeof lookupQuery>>[number];

/**
 * Organizations' names, as a query other modules join (`.innerJoin(organizationNames(k).as('o'),
 * 'o.id', …)`) to show an organization's live name in one round trip.
 */
export function organizationNames(k: Kysely<DB>) {
  return k.selectFrom('organizations').select(['id', 'name']);
}

/**
 * Users with their organization's plan, as a query other modules join on `u_id` (the console's
 * session lookup: session, live user and organization in one round trip).
 */
export function usersWithOrganization(k: Kysely<DB>) {
  return k
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select([
      'u.id as u_id',
      'u.name as u_name',
      'u.email as u_email',
      'u.role as u_role',
      'u.platform_admin as u_platform_admin',
      'u.organization_id as u_organization_id',
      'o.id as o_id',
      'o.name as o_name',
      'o.plan_slug as o_plan_slug',
      'o.overrides as o_overrides',
    ]);
}

/** The users whose email is `email` (case-insensitive), as a query other modules join on `id`. */
export function usersWithEmail(k: Kysely<DB>, email: string) {
  return k
    .selectFrom('users')
    .select(['id', 'created_at'])
    .where(sql<string>`lower(${sql.ref('email')})`, '=', email.toLowerCase());
}

/**
 * Locks the organization's row until `trx` ends (PostgreSQL `FOR UPDATE`), so two writers that
 * count something of the organization's cannot both see room for one more; SQLite runs one write
 * transaction at a time anyway.
 */
export async function lockOrganization(trx: Kysely<DB>, dialect: Database['dialect'], orgId: string): Promise<void> {
  if (dialect === 'postgres')
    await trx.selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate().execute();
}

export function createAccessRepo(db: Database) {
  const k = db.kysely;
  // Compiled with a placeholder value; the key id is its only parameter.
  const lookupSql = lookupQuery(k, '').compile().sql;
  return {
    async insertOrg(row: OrgRow) {
      await k.insertInto('organizations').values(row).execute();
    },
    async getOrg(id: string) {
      return k.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async listOrgs() {
      return k.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
    },
    async updateOrg(
      id: string,
      patch: Partial<Pick<OrgRow, 'plan_slug' | 'overrides' | 'name' | 'content_credentials' | 'updated_at'>>,
    ) {
      return affected(await k.updateTable('organizations').set(patch).where('id', '=', id).executeTakeFirst());
    },
    async insertUser(row: UserRow) {
      await k.insertInto('users').values(row).execute();
    },
    async getUser(id: string) {
      return k.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async listUsers(orgId?: string) {
      let q = k.selectFrom('users').selectAll();
      if (orgId) q = q.where('organization_id', '=', orgId);
      return q.orderBy('created_at').orderBy('id').execute();
    },
    async updateUser(id: string, patch: Partial<Pick<UserRow, 'role' | 'platform_admin' | 'updated_at'>>) {
      return affected(await k.updateTable('users').set(patch).where('id', '=', id).executeTakeFirst());
    },
    async deleteUser(id: string) {
      return db.kysely.transaction().execute(async (trx) => {
        await trx.deleteFrom('api_keys').where('user_id', '=', id).execute();
        return affected(await trx.deleteFrom('users').where('id', '=', id).executeTakeFirst());
      });
    },
    async insertKey(row: KeyRow) {
      await k.insertInto('api_keys').values(row).execute();
    },
    async getKeyByKeyId(keyId: string) {
      return k.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    },
    async listKeys(filter: { orgId?: string; userId?: string }) {
      let q = k.selectFrom('api_keys').selectAll();
      if (filter.orgId) q = q.where('organization_id', '=', filter.orgId);
      if (filter.userId) q = q.where('user_id', '=', filter.userId);
      return q.orderBy('created_at').orderBy('id').execute();
    },
    async updateKey(
      keyId: string,
      patch: Partial<Pick<KeyRow, 'secret_hash' | 'revoked_at' | 'updated_at' | 'last_used_at'>>,
    ) {
      return affected(await k.updateTable('api_keys').set(patch).where('key_id', '=', keyId).executeTakeFirst());
    },
    async touchKeys(entries: { id: string; at: string }[]) {
      for (const e of entries) {
        await k.updateTable('api_keys').set({ last_used_at: e.at }).where('id', '=', e.id).execute();
      }
    },
    /** Key, live owner and organization in one round trip (the authentication hot path). */
    async lookupKey(keyId: string): Promise<KeyLookup | undefined> {
      const [r] = (await k.executeQuery(CompiledQuery.raw(lookupSql, [keyId]))).rows as LookupRow[];
      if (!r) return undefined;
      return {
        key: {
          id: r.k_id,
          key_id: r.k_key_id,
          organization_id: r.k_organization_id,
          user_id: r.k_user_id,
          name: r.k_name,
          env: r.k_env,
          secret_hash: r.k_secret_hash,
          created_at: r.k_created_at,
          updated_at: r.k_updated_at,
          expires_at: r.k_expires_at,
          revoked_at: r.k_revoked_at,
          last_used_at: r.k_last_used_at,
        },
        user: { id: r.u_id, role: r.u_role, platform_admin: r.u_platform_admin, name: r.u_name },
        org: { id: r.o_id, name: r.o_name, plan_slug: r.o_plan_slug, overrides: r.o_overrides },
      };
    },
  };
}

export type AccessRepo = ReturnType<typeof createAccessRepo>;

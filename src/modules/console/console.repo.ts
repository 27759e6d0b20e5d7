import { randomUUID } from 'node:crypto';
import type { Database } from '../../adapters/db/database.ts';
import { affected } from '../../adapters/db/columns.ts';
import { usersWithEmail, usersWithOrganization } from '../access/access.repo.ts';
import type { ConsoleSessionsTable } from './console.tables.ts';

/** A session with its live user and organization (one query per cookie request). */
export interface SessionLookup {
  session: Pick<ConsoleSessionsTable, 'id_hash' | 'csrf_token' | 'expires_at'>;
  user: {
    id: string;
    name: string;
    email: string | null;
    role: string;
    platform_admin: number;
    organization_id: string;
  };
  org: { id: string; name: string; plan_slug: string; overrides: string };
}

export function createConsoleRepo(db: Database) {
  const k = db.kysely;
  return {
    /** The user with this email (case-insensitive) who has a password, with its hash. */
    async findLogin(email: string) {
      return k
        .selectFrom('user_credentials as c')
        .innerJoin(usersWithEmail(k, email).as('u'), 'u.id', 'c.user_id')
        .select(['u.id as user_id', 'c.password_hash'])
        .orderBy('u.created_at')
        .executeTakeFirst();
    },
    /** Another user than `userId` with this email who already has a password. */
    async emailTakenByOther(email: string, userId: string) {
      const r = await k
        .selectFrom('user_credentials as c')
        .innerJoin(usersWithEmail(k, email).as('u'), 'u.id', 'c.user_id')
        .where('u.id', '!=', userId)
        .select('u.id')
        .executeTakeFirst();
      return r !== undefined;
    },
    /** Which of these users have set a password (signed in at least once after their invite). */
    async withPassword(userIds: string[]): Promise<Set<string>> {
      if (userIds.length === 0) return new Set();
      const rows = await k.selectFrom('user_credentials').select('user_id').where('user_id', 'in', userIds).execute();
      return new Set(rows.map((r) => r.user_id));
    },
    async setPassword(userId: string, hash: string, now: string) {
      await k.transaction().execute(async (trx) => {
        await trx.deleteFrom('user_credentials').where('user_id', '=', userId).execute();
        await trx
          .insertInto('user_credentials')
          .values({ user_id: userId, password_hash: hash, created_at: now, updated_at: now })
          .execute();
        // A new password signs the user out everywhere.
        await trx.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
      });
    },
    /** A new invite replaces the user's older ones. */
    async replaceInvites(userId: string, tokenHash: string, now: string, expiresAt: string) {
      await k.transaction().execute(async (trx) => {
        await trx.deleteFrom('user_invites').where('user_id', '=', userId).execute();
        await trx
          .insertInto('user_invites')
          .values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt, used_at: null })
          .execute();
      });
    },
    /**
     * Uses an invite: marks it used if it is unused and unexpired (one winner under concurrency);
     * the user id, or undefined.
     */
    async consumeInvite(tokenHash: string, now: string): Promise<string | undefined> {
      const invite = await k
        .selectFrom('user_invites')
        .select(['user_id'])
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (!invite) return undefined;
      const won = affected(
        await k
          .updateTable('user_invites')
          .set({ used_at: now })
          .where('token_hash', '=', tokenHash)
          .where('used_at', 'is', null)
          .executeTakeFirst(),
      );
      return won ? invite.user_id : undefined;
    },
    async insertSession(row: ConsoleSessionsTable) {
      await k.insertInto('console_sessions').values(row).execute();
    },
    async deleteSession(idHash: string) {
      await k.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
    },
    async lookupSession(idHash: string): Promise<SessionLookup | undefined> {
      const r = await k
        .selectFrom('console_sessions as s')
        .innerJoin(usersWithOrganization(k).as('p'), 'p.u_id', 's.user_id')
        .where('s.id_hash', '=', idHash)
        .selectAll('p')
        .select(['s.id_hash', 's.csrf_token', 's.expires_at'])
        .executeTakeFirst();
      if (!r) return undefined;
      return {
        session: { id_hash: r.id_hash, csrf_token: r.csrf_token, expires_at: r.expires_at },
        user: {
          id: r.u_id,
          name: r.u_name,
          email: r.u_email,
          role: r.u_role,
          platform_admin: r.u_platform_admin,
          organization_id: r.u_organization_id,
        },
        org: { id: r.o_id, name: r.o_name, plan_slug: r.o_plan_slug, overrides: r.o_overrides },
      };
    },
    /** Failed sign-ins in a bucket since `since`: how many, the oldest and the newest. */
    async failures(bucket: string, since: string) {
      const r = await k
        .selectFrom('login_failures')
        .where('bucket', '=', bucket)
        .where('at', '>', since)
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.min<string>('at').as('oldest'),
          eb.fn.max<string>('at').as('newest'),
        ])
        .executeTakeFirstOrThrow();
      return { count: Number(r.n), oldest: r.oldest as string | null, newest: r.newest as string | null };
    },
    async recordFailure(buckets: string[], at: string) {
      await k
        .insertInto('login_failures')
        .values(buckets.map((bucket) => ({ id: randomUUID(), bucket, at })))
        .execute();
    },
    async clearFailures(bucket: string) {
      await k.deleteFrom('login_failures').where('bucket', '=', bucket).execute();
    },
    /** Removes expired sessions, and invites and failure records past their use. */
    async purge(now: string, failuresBefore: string) {
      const sessions = affected(
        await k.deleteFrom('console_sessions').where('expires_at', '<=', now).executeTakeFirst(),
      );
      const invites = affected(
        await k
          .deleteFrom('user_invites')
          .where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)]))
          .executeTakeFirst(),
      );
      const failures = affected(
        await k.deleteFrom('login_failures').where('at', '<=', failuresBefore).executeTakeFirst(),
      );
      return { sessions, invites, failures };
    },
  };
}

export type ConsoleRepo = ReturnType<typeof createConsoleRepo>;

import type { Database } from '../../adapters/db/database.ts';
import type { IdempotencyKeysTable } from './idempotency.tables.ts';

export type IdempotencyRow = IdempotencyKeysTable;

export type Claim = { claimed: true } | { claimed: false; existing: IdempotencyRow };

/**
 * SQL of idempotency keys. A claim is one INSERT … ON CONFLICT DO NOTHING (both dialects), so of
 * two concurrent requests with one key exactly one claims it; an expired row, or an in-progress
 * one whose lock ran out (its process died), is removed and the claim tried once more.
 */
export function createIdempotencyRepo(db: Database) {
  const k = db.kysely;

  async function insert(row: IdempotencyRow): Promise<boolean> {
    const r = await k
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['organization_id', 'key']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  const find = (orgId: string, key: string) =>
    k
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organization_id', '=', orgId)
      .where('key', '=', key)
      .executeTakeFirst();

  return {
    async claim(row: IdempotencyRow, now: string): Promise<Claim> {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await insert(row)) return { claimed: true };
        const existing = await find(row.organization_id, row.key);
        if (!existing) continue; // removed meanwhile: try again
        const stale = existing.expires_at <= now || (existing.state === 'in_progress' && existing.locked_until <= now);
        if (!stale) return { claimed: false, existing };
        await k
          .deleteFrom('idempotency_keys')
          .where('organization_id', '=', existing.organization_id)
          .where('key', '=', existing.key)
          .where('created_at', '=', existing.created_at)
          .where('state', '=', existing.state)
          .execute();
      }
      const existing = await find(row.organization_id, row.key);
      return existing ? { claimed: false, existing } : { claimed: true };
    },

    async complete(
      orgId: string,
      key: string,
      response: { status: number; headers: Record<string, string>; body: string },
    ): Promise<void> {
      await k
        .updateTable('idempotency_keys')
        .set({
          state: 'completed',
          response_status: response.status,
          response_headers: JSON.stringify(response.headers),
          response_body: response.body,
        })
        .where('organization_id', '=', orgId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    /** Forgets an in-progress claim (the request failed in a way worth retrying). */
    async release(orgId: string, key: string): Promise<void> {
      await k
        .deleteFrom('idempotency_keys')
        .where('organization_id', '=', orgId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    async purgeExpired(now: string): Promise<number> {
      const r = await k.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows ?? 0);
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;

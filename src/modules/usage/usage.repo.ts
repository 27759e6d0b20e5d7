import { sql } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import { affected } from '../../adapters/db/columns.ts';
import type { ReservationState, UsageReservationsTable } from './usage.tables.ts';

export type ReservationRow = UsageReservationsTable;

/**
 * SQL of the usage ledger. Every cap check is one conditional UPDATE (`used + n <= cap`), so two
 * callers (connections, processes) can never both take the last unit; the counter row it updates
 * is created first with insert-on-conflict-do-nothing. Each multi-statement change runs in one
 * transaction whose first statement writes, so SQLite takes its write lock up front and another
 * process waits (busy_timeout) instead of failing. On SQLite that assumes one handle per process:
 * better-sqlite3 waits synchronously, so a second handle in the same process would stall the
 * event loop that has to finish the first handle's transaction.
 */
export function createUsageRepo(db: Database) {
  const k = db.kysely;
  return {
    /**
     * Adds `row.amount` to the period's counter unless that would pass `cap` (null: no cap), and
     * records the reservation, atomically. Refused: nothing is written, and `used` is returned.
     */
    async reserve(row: ReservationRow, cap: number | null): Promise<{ ok: true } | { ok: false; used: number }> {
      const key = { organization_id: row.organization_id, pool: row.pool, period_start: row.period_start };
      return k.transaction().execute(async (trx) => {
        await trx
          .insertInto('usage_counters')
          .values({ ...key, used: 0, updated_at: row.created_at })
          .onConflict((oc) => oc.columns(['organization_id', 'pool', 'period_start']).doNothing())
          .execute();
        let update = trx
          .updateTable('usage_counters')
          .set({ used: sql`used + ${row.amount}`, updated_at: row.created_at })
          .where('organization_id', '=', key.organization_id)
          .where('pool', '=', key.pool)
          .where('period_start', '=', key.period_start);
        if (cap !== null) update = update.where(sql`used + ${row.amount}`, '<=', cap);
        if (affected(await update.executeTakeFirst()) === 0) {
          const counter = await trx
            .selectFrom('usage_counters')
            .select('used')
            .where('organization_id', '=', key.organization_id)
            .where('pool', '=', key.pool)
            .where('period_start', '=', key.period_start)
            .executeTakeFirstOrThrow();
          return { ok: false as const, used: Number(counter.used) };
        }
        await trx.insertInto('usage_reservations').values(row).execute();
        return { ok: true as const };
      });
    },

    /** reserved → committed; a no-op in any other state. Returns the state after the call. */
    async commit(id: string, at: string): Promise<ReservationState | undefined> {
      await k
        .updateTable('usage_reservations')
        .set({ state: 'committed', updated_at: at })
        .where('id', '=', id)
        .where('state', '=', 'reserved')
        .execute();
      return (await k.selectFrom('usage_reservations').select('state').where('id', '=', id).executeTakeFirst())?.state;
    },

    /**
     * reserved → released, giving the amount back to the counter of the reservation's own period.
     * Only the caller whose UPDATE moved the row out of `reserved` gives it back, so two releases
     * (even concurrent) return the amount once. Returns the state after the call.
     */
    async release(id: string, at: string): Promise<ReservationState | undefined> {
      const freed = await k.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('usage_reservations')
          .set({ state: 'released', updated_at: at })
          .where('id', '=', id)
          .where('state', '=', 'reserved')
          .returning(['organization_id', 'pool', 'period_start', 'amount'])
          .executeTakeFirst();
        if (!r) return false;
        const amount = Number(r.amount);
        await trx
          .updateTable('usage_counters')
          .set({
            used: sql`case when used >= ${amount} then used - ${amount} else 0 end`,
            updated_at: at,
          })
          .where('organization_id', '=', r.organization_id)
          .where('pool', '=', r.pool)
          .where('period_start', '=', r.period_start)
          .execute();
        return true;
      });
      if (freed) return 'released';
      return (await k.selectFrom('usage_reservations').select('state').where('id', '=', id).executeTakeFirst())?.state;
    },

    /** Units used per pool in one period (pools never touched are absent). */
    async usedInPeriod(orgId: string, periodStart: string): Promise<Map<string, number>> {
      const rows = await k
        .selectFrom('usage_counters')
        .select(['pool', 'used'])
        .where('organization_id', '=', orgId)
        .where('period_start', '=', periodStart)
        .execute();
      return new Map(rows.map((r) => [r.pool, Number(r.used)]));
    },
  };
}

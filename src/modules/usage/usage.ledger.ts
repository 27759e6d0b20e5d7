import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../adapters/db/database.ts';
import { forbidden } from '../../http/errors.ts';
import { type OrgOverrides, type PlanCatalog, POOLS, type Pool } from './plans.ts';
import { type BillingPeriod, billingPeriod } from './usage.report.ts';
import { createUsageRepo } from './usage.repo.ts';
import type { ReservationState } from './usage.tables.ts';

export interface ReserveOptions {
  /** What the units are for (job or resource id); stored with the reservation. */
  reference?: string;
}

/**
 * Metered capacity per organization, pool and billing period (calendar month, UTC).
 *
 * Create calls `reserve` before enqueuing work; the job `commit`s when it succeeds and `release`s
 * when it fails. Usage is reserved + committed units in the current period.
 */
export interface UsageLedger {
  /**
   * Takes `amount` units of `pool` for the organization, or throws 403 `QUOTA_EXCEEDED` with
   * details {pool, cap, usage, remaining, requested, resetsAt} when that would pass the cap.
   * Unlimited pools never refuse but still count. Returns the reservation id.
   */
  reserve(orgId: string, pool: Pool, amount: number, opts?: ReserveOptions): Promise<string>;
  /** Makes a reservation final. Idempotent; a released reservation stays released. */
  commit(reservationId: string): Promise<ReservationState>;
  /** Gives a reservation's units back, exactly once however often it is called. A committed one stays committed. */
  release(reservationId: string): Promise<ReservationState>;
  /** Units used per pool in the current billing period. */
  periodUsage(orgId: string): Promise<{ period: BillingPeriod; used: Record<Pool, number> }>;
}

/** How the ledger finds an organization's plan and overrides (the access service). */
export interface OrgLookup {
  getOrganization(id: string): Promise<{ planSlug: string; overrides: OrgOverrides } | undefined>;
}

export function createUsageLedger(deps: {
  db: Database;
  clock: Clock;
  plans: PlanCatalog;
  orgs: OrgLookup;
}): UsageLedger {
  const repo = createUsageRepo(deps.db);

  const mustState = (id: string, state: ReservationState | undefined): ReservationState => {
    if (!state) throw new Error(`unknown usage reservation ${id}`);
    return state;
  };

  return {
    async reserve(orgId, pool, amount, opts = {}) {
      if (!(POOLS as readonly string[]).includes(pool)) throw new RangeError(`unknown usage pool ${pool}`);
      if (!Number.isSafeInteger(amount) || amount < 1) {
        throw new RangeError(`reservation amount must be a positive whole number, got ${amount}`);
      }
      const org = await deps.orgs.getOrganization(orgId);
      if (!org) throw new Error(`unknown organization ${orgId}`);
      const { cap } = deps.plans.entitlementsFor(org).pools[pool];
      const at = deps.clock();
      const period = billingPeriod(at);
      const id = randomUUID();
      const result = await repo.reserve(
        {
          id,
          organization_id: orgId,
          pool,
          period_start: period.start,
          amount,
          state: 'reserved',
          reference: opts.reference ?? null,
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
        },
        cap,
      );
      if (!result.ok) {
        // Only a capped pool can refuse.
        const limit = cap as number;
        const remaining = Math.max(0, limit - result.used);
        throw forbidden(
          `Quota exceeded for ${pool}: ${result.used} of ${limit} used this billing period, ${remaining} left, ${amount} requested; it resets at ${period.end}`,
          'QUOTA_EXCEEDED',
          { pool, cap: limit, usage: result.used, remaining, requested: amount, resetsAt: period.end },
        );
      }
      return id;
    },

    async commit(id) {
      return mustState(id, await repo.commit(id, deps.clock().toISOString()));
    },

    async release(id) {
      return mustState(id, await repo.release(id, deps.clock().toISOString()));
    },

    async periodUsage(orgId) {
      const period = billingPeriod(deps.clock());
      const counters = await repo.usedInPeriod(orgId, period.start);
      const used = Object.fromEntries(POOLS.map((p) => [p, counters.get(p) ?? 0])) as Record<Pool, number>;
      return { period, used };
    },
  };
}

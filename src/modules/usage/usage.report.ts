import { type Entitlements, type Feature, POOLS, type Pool } from './plans.ts';

/**
 * Pure arithmetic behind feature usage: the billing period of an instant, each pool's numbers,
 * and which pool the threshold alert points at. No I/O; unit-tested in usage.report.test.ts.
 */

/** Half-open [start, end): the calendar month (UTC) that contains `at`. `end` is when usage resets. */
export interface BillingPeriod {
  start: string;
  end: string;
}

export function billingPeriod(at: Date): BillingPeriod {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  return { start: new Date(Date.UTC(y, m, 1)).toISOString(), end: new Date(Date.UTC(y, m + 1, 1)).toISOString() };
}

/** What the API shows for one pool. An unlimited pool has `cap` and `remaining` -1. */
export interface PoolUsage {
  usage: number;
  cap: number;
  remaining: number;
  unlimited: boolean;
  source: 'plan' | 'override';
}

const UNLIMITED = -1;

export function poolUsage(usage: number, cap: number | null, source: PoolUsage['source']): PoolUsage {
  if (cap === null) return { usage, cap: UNLIMITED, remaining: UNLIMITED, unlimited: true, source };
  // An override may lower a cap below what was already used: nothing is left, never a negative.
  return { usage, cap, remaining: Math.max(0, cap - usage), unlimited: false, source };
}

export const THRESHOLDS = ['none', '50%', '80%', '100%'] as const;
export type Threshold = (typeof THRESHOLDS)[number];

/** The highest of 50 %, 80 %, 100 % that `usage` has reached on a capped pool. */
export function thresholdOf(usage: number, cap: number): Threshold {
  // A pool capped at 0 is a pool the plan does not include: it alerts only once something was used.
  if (cap === 0) return usage > 0 ? '100%' : 'none';
  if (usage >= cap) return '100%';
  if (usage * 5 >= cap * 4) return '80%';
  if (usage * 2 >= cap) return '50%';
  return 'none';
}

function ratio(p: PoolUsage): number {
  if (p.cap === 0) return p.usage > 0 ? Number.POSITIVE_INFINITY : 0;
  return p.usage / p.cap;
}

/**
 * The capped pool with the highest usage ratio (ties: the first in pool order) and the highest
 * threshold it crossed. With no capped pool, the first pool and `none`.
 */
export function thresholdAlert(pools: Record<Pool, PoolUsage>): { pool: Pool; threshold: Threshold } {
  let best: Pool | undefined;
  for (const name of POOLS) {
    const p = pools[name];
    if (p.unlimited) continue;
    if (best === undefined || ratio(p) > ratio(pools[best])) best = name;
  }
  if (best === undefined) return { pool: POOLS[0], threshold: 'none' };
  return { pool: best, threshold: thresholdOf(pools[best].usage, pools[best].cap) };
}

export interface FeatureUsage {
  pools: Record<Pool, PoolUsage>;
  threshold_alert: { pool: Pool; threshold: Threshold };
  billing_period: BillingPeriod;
  plan_slug: string;
  gated_features: Record<Feature, boolean>;
}

export function buildFeatureUsage(
  entitlements: Entitlements,
  used: Record<Pool, number>,
  period: BillingPeriod,
): FeatureUsage {
  const pools = {} as Record<Pool, PoolUsage>;
  for (const name of POOLS) {
    const { cap, source } = entitlements.pools[name];
    pools[name] = poolUsage(used[name], cap, source);
  }
  return {
    pools,
    threshold_alert: thresholdAlert(pools),
    billing_period: period,
    plan_slug: entitlements.planSlug,
    gated_features: { ...entitlements.features },
  };
}

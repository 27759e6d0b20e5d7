/**
 * Per-key rate limiting: a token bucket of `burst` tokens refilled at `perSecond`. Requests take
 * one token each; the answer-bytes budget (modules/access/access.auth.ts) checks that its bucket
 * is not in debt (`take(key, 0)`) and charges what was written afterwards (`charge`, which may go
 * into debt). In memory in the embedded mode; the Redis implementation (adapters/redis) shares
 * buckets between API processes in the scaled mode.
 */
export interface RateDecision {
  ok: boolean;
  /** Whole seconds until one token is available again (>= 1 when refused). */
  retryAfter: number;
  remaining: number;
}

/**
 * The in-memory limiter answers at once and the Redis one with a promise: on every request, the
 * embedded mode's auth hook then makes no promise (modules/access/access.auth.ts).
 */
export interface RateLimiter {
  /** Takes `cost` tokens (default 1) when the bucket holds that many; else refuses and takes none. */
  take(key: string, cost?: number): RateDecision | Promise<RateDecision>;
  /** Takes `cost` tokens whatever the bucket holds (it may go into debt, down to −burst). */
  charge(key: string, cost: number): void | Promise<void>;
  close(): Promise<void>;
}

export interface BucketSettings {
  perSecond: number;
  burst: number;
}

/**
 * The pure bucket step, shared by every implementation: state after taking `cost` tokens at
 * `nowMs` (refused when fewer are left), or, with `force`, after charging them regardless.
 */
export function stepBucket(
  state: { tokens: number; at: number } | undefined,
  nowMs: number,
  s: BucketSettings,
  cost = 1,
  force = false,
): { state: { tokens: number; at: number }; decision: RateDecision } {
  const prev = state ?? { tokens: s.burst, at: nowMs };
  // `at` never moves backwards: a clock stepping back must not refill the same interval twice.
  const at = Math.max(prev.at, nowMs);
  const tokens = Math.min(s.burst, prev.tokens + ((at - prev.at) / 1000) * s.perSecond);
  if (tokens >= cost || force) {
    const left = Math.max(-s.burst, tokens - cost);
    return {
      state: { tokens: left, at },
      decision: { ok: tokens >= cost, retryAfter: 0, remaining: Math.max(0, Math.floor(left)) },
    };
  }
  const retryAfter = Math.max(1, Math.ceil((cost - tokens) / s.perSecond));
  return { state: { tokens, at }, decision: { ok: false, retryAfter, remaining: 0 } };
}

export function createMemoryRateLimiter(s: BucketSettings, now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  // A full bucket carries no information; forget idle ones so memory stays bounded.
  const idleMs = Math.ceil(((2 * s.burst) / s.perSecond) * 1000) + 1000;
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, v] of buckets) if (t - v.at > idleMs) buckets.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    take(key, cost = 1) {
      const { state, decision } = stepBucket(buckets.get(key), now(), s, cost);
      buckets.set(key, state);
      return decision;
    },
    charge(key, cost) {
      buckets.set(key, stepBucket(buckets.get(key), now(), s, cost, true).state);
    },
    async close() {
      clearInterval(sweep);
      buckets.clear();
    },
  };
}

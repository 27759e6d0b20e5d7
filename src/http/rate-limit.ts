/**
 * Per-key request rate limiting: a token bucket of `burst` tokens refilled at `perSecond`.
 * In memory in the embedded mode; the Redis implementation (adapters/redis) shares buckets
 * between API processes in the scaled mode.
 */
export interface RateDecision {
  ok: boolean;
  /** Whole seconds until one token is available again (>= 1 when refused). */
  retryAfter: number;
  remaining: number;
}

export interface RateLimiter {
  take(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

export interface BucketSettings {
  perSecond: number;
  burst: number;
}

/** The pure bucket step, shared by every implementation: state after a take at `nowMs`. */
export function stepBucket(
  state: { tokens: number; at: number } | undefined,
  nowMs: number,
  s: BucketSettings,
): { state: { tokens: number; at: number }; decision: RateDecision } {
  const prev = state ?? { tokens: s.burst, at: nowMs };
  // `at` never moves backwards: a clock stepping back must not refill the same interval twice.
  const at = Math.max(prev.at, nowMs);
  const tokens = Math.min(s.burst, prev.tokens + ((at - prev.at) / 1000) * s.perSecond);
  if (tokens >= 1) {
    return {
      state: { tokens: tokens - 1, at },
      decision: { ok: true, retryAfter: 0, remaining: Math.floor(tokens - 1) },
    };
  }
  const retryAfter = Math.max(1, Math.ceil((1 - tokens) / s.perSecond));
  return { state: { tokens, at }, decision: { ok: false, retryAfter, remaining: 0 } };
}

export function createMemoryRateLimiter(s: BucketSettings, now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  // A full bucket carries no information; forget idle ones so memory stays bounded.
  const idleMs = Math.ceil((s.burst / s.perSecond) * 1000) + 1000;
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, v] of buckets) if (t - v.at > idleMs) buckets.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    async take(key) {
      const { state, decision } = stepBucket(buckets.get(key), now(), s);
      buckets.set(key, state);
      return decision;
    },
    async close() {
      clearInterval(sweep);
      buckets.clear();
    },
  };
}

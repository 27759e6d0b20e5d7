import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BucketSettings, createMemoryRateLimiter, stepBucket } from './rate-limit.ts';

const settings = fc.record({ perSecond: fc.integer({ min: 1, max: 1000 }), burst: fc.integer({ min: 1, max: 200 }) });

/** Runs takes at the given times through stepBucket; returns how many were granted. */
function grants(times: number[], s: BucketSettings): number {
  let state: { tokens: number; at: number } | undefined;
  let granted = 0;
  for (const t of times) {
    const r = stepBucket(state, t, s);
    state = r.state;
    if (r.decision.ok) granted++;
  }
  return granted;
}

describe('stepBucket', () => {
  it('grants a full burst at once, then refuses with a whole-second Retry-After', () => {
    const s = { perSecond: 2, burst: 5 };
    let state: { tokens: number; at: number } | undefined;
    for (let i = 0; i < 5; i++) {
      const r = stepBucket(state, 1000, s);
      expect(r.decision).toEqual({ ok: true, retryAfter: 0, remaining: 4 - i });
      state = r.state;
    }
    const refused = stepBucket(state, 1000, s);
    expect(refused.decision).toEqual({ ok: false, retryAfter: 1, remaining: 0 });
    // Half a second later one token (2/s) is back.
    expect(stepBucket(refused.state, 1500, s).decision.ok).toBe(true);
  });

  it('rounds Retry-After up to whole seconds for slow refill rates', () => {
    const s = { perSecond: 1, burst: 1 };
    const first = stepBucket(undefined, 0, s);
    const second = stepBucket(first.state, 100, s);
    expect(second.decision).toEqual({ ok: false, retryAfter: 1, remaining: 0 });
    const slow = { perSecond: 0.25, burst: 1 };
    const a = stepBucket(undefined, 0, slow);
    expect(stepBucket(a.state, 0, slow).decision.retryAfter).toBe(4);
  });

  it('never grants more than burst + rate × elapsed, even when the clock steps backwards', () => {
    // A clock that goes back (NTP step, another Redis node) must not refill the same interval twice.
    expect(grants([1000, 0, 1000, 0, 1000, 0, 1000], { perSecond: 1, burst: 1 })).toBe(1);
    const time = fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 120_000 }));
    fc.assert(
      fc.property(settings, fc.array(time, { minLength: 1, maxLength: 400 }), (s, times) => {
        const span = (Math.max(...times) - Math.min(...times)) / 1000;
        expect(grants(times, s)).toBeLessThanOrEqual(Math.floor(s.burst + s.perSecond * span + 1e-6));
      }),
    );
  });

  it('grants every request that stays within the refill rate', () => {
    fc.assert(
      fc.property(settings, fc.integer({ min: 1, max: 300 }), (s, n) => {
        // One take every 1/perSecond seconds (or more) never empties the bucket.
        const gap = Math.ceil(1000 / s.perSecond);
        const times = Array.from({ length: n }, (_, i) => i * gap);
        expect(grants(times, s)).toBe(n);
      }),
    );
  });

  it('a refused take tells a wait after which the next take is granted', () => {
    fc.assert(
      fc.property(settings, fc.integer({ min: 0, max: 1e9 }), (s, t0) => {
        let state: { tokens: number; at: number } | undefined;
        let r = stepBucket(state, t0, s);
        while (r.decision.ok) {
          state = r.state;
          r = stepBucket(state, t0, s);
        }
        expect(Number.isInteger(r.decision.retryAfter)).toBe(true);
        expect(r.decision.retryAfter).toBeGreaterThanOrEqual(1);
        expect(stepBucket(r.state, t0 + r.decision.retryAfter * 1000, s).decision.ok).toBe(true);
      }),
    );
  });
});

describe('memory rate limiter', () => {
  it('keeps one bucket per key and refills with time', async () => {
    let now = 10_000;
    const limiter = createMemoryRateLimiter({ perSecond: 1, burst: 2 }, () => now);
    try {
      expect((await limiter.take('a')).ok).toBe(true);
      expect((await limiter.take('a')).ok).toBe(true);
      const refused = await limiter.take('a');
      expect(refused).toEqual({ ok: false, retryAfter: 1, remaining: 0 });
      expect((await limiter.take('b')).ok).toBe(true);
      now += 1000;
      expect((await limiter.take('a')).ok).toBe(true);
      expect((await limiter.take('a')).ok).toBe(false);
    } finally {
      await limiter.close();
    }
  });
});

describe('byte budgets (cost and charge)', () => {
  it('a charge may put the bucket in debt; take(0) refuses until it is paid back', () => {
    const s = { perSecond: 1000, burst: 4000 };
    let { state } = stepBucket(undefined, 0, s, 10_000, true);
    expect(state.tokens).toBe(-4000); // debt is bounded by the burst
    const refused = stepBucket(state, 0, s, 0);
    expect(refused.decision).toEqual({ ok: false, retryAfter: 4, remaining: 0 });
    state = refused.state;
    expect(stepBucket(state, 4000, s, 0).decision.ok).toBe(true);
  });

  it('a take of more than is left refuses and leaves the tokens', () => {
    const s = { perSecond: 1, burst: 10 };
    const r = stepBucket({ tokens: 3, at: 0 }, 0, s, 5);
    expect(r.decision).toEqual({ ok: false, retryAfter: 2, remaining: 0 });
    expect(r.state.tokens).toBe(3);
  });

  it('the memory limiter charges and refuses the same way', async () => {
    const limiter = createMemoryRateLimiter({ perSecond: 100, burst: 100 }, () => 0);
    try {
      expect((await limiter.take('k', 0)).ok).toBe(true);
      await limiter.charge('k', 150);
      expect((await limiter.take('k', 0)).ok).toBe(false);
      expect((await limiter.take('other', 0)).ok).toBe(true);
    } finally {
      await limiter.close();
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POOLS, type Pool } from './plans.ts';
import {
  billingPeriod,
  buildFeatureUsage,
  type PoolUsage,
  poolUsage,
  THRESHOLDS,
  thresholdAlert,
  thresholdOf,
} from './usage.report.ts';

describe('billingPeriod', () => {
  it('is the calendar month (UTC) holding the instant, end exclusive', () => {
    expect(billingPeriod(new Date('2031-05-20T10:00:00.000Z'))).toEqual({
      start: '2031-05-01T00:00:00.000Z',
      end: '2031-06-01T00:00:00.000Z',
    });
    expect(billingPeriod(new Date('2031-12-31T23:59:59.999Z'))).toEqual({
      start: '2031-12-01T00:00:00.000Z',
      end: '2032-01-01T00:00:00.000Z',
    });
    expect(billingPeriod(new Date('2032-02-29T12:00:00.000Z')).end).toBe('2032-03-01T00:00:00.000Z');
    expect(billingPeriod(new Date('2031-06-01T00:00:00.000Z')).start).toBe('2031-06-01T00:00:00.000Z');
    // Local-time offsets do not matter: 23:30 on 31 May in UTC-2 is already June in UTC.
    expect(billingPeriod(new Date('2031-05-31T23:30:00-02:00')).start).toBe('2031-06-01T00:00:00.000Z');
  });

  it('always contains the instant, and the next period starts where this one ends', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }), (d) => {
        const p = billingPeriod(d);
        expect(Date.parse(p.start)).toBeLessThanOrEqual(d.getTime());
        expect(d.getTime()).toBeLessThan(Date.parse(p.end));
        expect(billingPeriod(new Date(p.end)).start).toBe(p.end);
        expect(billingPeriod(new Date(Date.parse(p.end) - 1)).start).toBe(p.start);
      }),
    );
  });
});

describe('poolUsage', () => {
  it('shows unlimited pools as cap and remaining -1', () => {
    expect(poolUsage(12, null, 'plan')).toEqual({ usage: 12, cap: -1, remaining: -1, unlimited: true, source: 'plan' });
  });
  it('never shows a negative remaining when usage passed a lowered cap', () => {
    expect(poolUsage(45, 10, 'override')).toEqual({
      usage: 45,
      cap: 10,
      remaining: 0,
      unlimited: false,
      source: 'override',
    });
    expect(poolUsage(3, 10, 'plan').remaining).toBe(7);
  });
});

describe('thresholdOf', () => {
  it('reports the highest of 50 %, 80 %, 100 % reached', () => {
    const cases: [number, number, string][] = [
      [0, 40, 'none'],
      [19, 40, 'none'],
      [20, 40, '50%'],
      [31, 40, '50%'],
      [32, 40, '80%'],
      [39, 40, '80%'],
      [40, 40, '100%'],
      [41, 40, '100%'],
      [1, 1, '100%'],
      [0, 1, 'none'],
      [4, 5, '80%'],
      [2, 3, '50%'],
      [0, 0, 'none'],
      [1, 0, '100%'],
    ];
    for (const [usage, cap, want] of cases) expect(thresholdOf(usage, cap), `${usage}/${cap}`).toBe(want);
  });

  it('never goes down as usage grows', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), fc.nat(10_000), (cap, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(THRESHOLDS.indexOf(thresholdOf(lo, cap))).toBeLessThanOrEqual(THRESHOLDS.indexOf(thresholdOf(hi, cap)));
      }),
    );
  });
});

const pools = (entries: Partial<Record<Pool, [number, number | null]>>): Record<Pool, PoolUsage> =>
  Object.fromEntries(
    POOLS.map((p) => {
      const [usage, cap] = entries[p] ?? [0, null];
      return [p, poolUsage(usage, cap, 'plan')];
    }),
  ) as Record<Pool, PoolUsage>;

describe('thresholdAlert', () => {
  it('points at the capped pool with the highest usage ratio', () => {
    expect(
      thresholdAlert(pools({ image_generations: [30, 40], video_seconds: [25, 30], prompt_enhancements: [10, 100] })),
    ).toEqual({ pool: 'video_seconds', threshold: '80%' });
  });
  it('uses the first pool and none when no pool is capped', () => {
    expect(thresholdAlert(pools({ video_seconds: [1_000_000, null] }))).toEqual({
      pool: 'image_generations',
      threshold: 'none',
    });
  });
  it('breaks ties by pool order and ignores unlimited pools however much they used', () => {
    expect(
      thresholdAlert(
        pools({ image_generations: [5_000, null], environment_generations: [1, 4], video_seconds: [2, 8] }),
      ),
    ).toEqual({ pool: 'environment_generations', threshold: 'none' });
    expect(thresholdAlert(pools({ environment_generations: [0, 4], video_seconds: [0, 8] })).pool).toBe(
      'environment_generations',
    );
  });
  it('lets a pool capped at 0 alert only once something was used in it', () => {
    expect(thresholdAlert(pools({ image_generations: [1, 40], brand_dna_extractions: [0, 0] }))).toEqual({
      pool: 'image_generations',
      threshold: 'none',
    });
    expect(thresholdAlert(pools({ image_generations: [40, 40], brand_dna_extractions: [1, 0] }))).toEqual({
      pool: 'brand_dna_extractions',
      threshold: '100%',
    });
  });
  it('always names a pool whose ratio no other capped pool beats, with that pool’s threshold', () => {
    const entry = fc.option(fc.tuple(fc.nat(1000), fc.nat(1000)), { nil: undefined });
    fc.assert(
      fc.property(fc.tuple(entry, entry, entry, entry, entry), (list) => {
        const p = pools(
          Object.fromEntries(POOLS.map((name, i) => [name, list[i] ?? [0, null]])) as Record<Pool, [number, number]>,
        );
        const alert = thresholdAlert(p);
        const chosen = p[alert.pool];
        const r = (x: PoolUsage) => (x.cap === 0 ? (x.usage > 0 ? Number.POSITIVE_INFINITY : 0) : x.usage / x.cap);
        const capped = POOLS.filter((n) => !p[n].unlimited);
        if (capped.length === 0) return expect(alert).toEqual({ pool: POOLS[0], threshold: 'none' });
        expect(chosen.unlimited).toBe(false);
        for (const n of capped) expect(r(p[n])).toBeLessThanOrEqual(r(chosen));
        expect(alert.threshold).toBe(thresholdOf(chosen.usage, chosen.cap));
      }),
    );
  });
});

describe('buildFeatureUsage', () => {
  it('joins entitlements, usage and period into the response data', () => {
    const data = buildFeatureUsage(
      {
        planSlug: 'pro',
        features: {
          brand_dna: true,
          critique: false,
          video_generation: true,
          reference_to_video: true,
          reference_videos: false,
          url_extraction: true,
        },
        pools: {
          image_generations: { cap: 500, source: 'plan' },
          environment_generations: { cap: 200, source: 'plan' },
          prompt_enhancements: { cap: null, source: 'override' },
          video_seconds: { cap: 600, source: 'plan' },
          brand_dna_extractions: { cap: 20, source: 'plan' },
        },
        videoModel8: { maxReferenceImages: 4, maxReferenceVideos: 0, maxDurationSeconds: 10 },
        extraction: { maxConcurrentRuns: 4 },
      },
      {
        image_generations: 250,
        environment_generations: 0,
        prompt_enhancements: 7,
        video_seconds: 0,
        brand_dna_extractions: 17,
      },
      { start: '2031-05-01T00:00:00.000Z', end: '2031-06-01T00:00:00.000Z' },
    );
    expect(data).toEqual({
      pools: {
        image_generations: { usage: 250, cap: 500, remaining: 250, unlimited: false, source: 'plan' },
        environment_generations: { usage: 0, cap: 200, remaining: 200, unlimited: false, source: 'plan' },
        prompt_enhancements: { usage: 7, cap: -1, remaining: -1, unlimited: true, source: 'override' },
        video_seconds: { usage: 0, cap: 600, remaining: 600, unlimited: false, source: 'plan' },
        brand_dna_extractions: { usage: 17, cap: 20, remaining: 3, unlimited: false, source: 'plan' },
      },
      threshold_alert: { pool: 'brand_dna_extractions', threshold: '80%' },
      billing_period: { start: '2031-05-01T00:00:00.000Z', end: '2031-06-01T00:00:00.000Z' },
      plan_slug: 'pro',
      gated_features: {
        brand_dna: true,
        critique: false,
        video_generation: true,
        reference_to_video: true,
        reference_videos: false,
        url_extraction: true,
      },
    });
  });
});

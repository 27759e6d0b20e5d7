import { describe, expect, it } from 'vitest';
import { etaText, recentDurations, remainingSeconds, stageOf } from '../src/progress.ts';

const v = (status: string, critiqueStatus?: string) => ({ status, ...(critiqueStatus ? { critiqueStatus } : {}) });

describe('generation stage', () => {
  it('reads the stage from the forge and its variations', () => {
    expect(stageOf({ status: 'pending' }, [v('pending'), v('pending')]).label).toBe('Waiting for a worker');
    expect(stageOf({ status: 'processing' }, [v('completed'), v('processing'), v('pending'), v('pending')])).toEqual({
      stage: 'generating',
      label: 'Generating: 1 of 4 variations ready',
      ready: 1,
      total: 4,
    });
    expect(stageOf({ status: 'completed' }, [v('completed', 'processing')]).stage).toBe('scoring');
    expect(
      stageOf({ status: 'completed', refinedVariations: [{ status: 'processing' }] }, [v('completed')]).stage,
    ).toBe('refining');
    expect(stageOf({ status: 'completed' }, [v('completed', 'completed')]).stage).toBe('done');
    expect(stageOf({ status: 'failed' }, [v('failed')]).stage).toBe('failed');
    expect(stageOf({ status: 'processing' }, [v('processing')], 'videos').label).toBe(
      'Generating: 0 of 1 videos ready',
    );
  });
});

describe('estimate from recent runs', () => {
  const run = (created: string, completed?: string, status = 'completed') => ({
    status,
    createdAt: `2026-01-01T00:${created}Z`,
    ...(completed ? { completedAt: `2026-01-01T00:${completed}Z` } : {}),
  });

  it('takes the finished runs’ durations, newest first', () => {
    expect(
      recentDurations([
        run('00:00', '00:10'),
        run('01:00', '01:30'),
        run('02:00', undefined, 'processing'),
        run('03:00', '03:05', 'failed'),
      ]),
    ).toEqual([30_000, 10_000]);
  });

  it('is the median less the time spent, never negative, and nothing without history', () => {
    expect(remainingSeconds([10_000, 30_000, 20_000], 5_000)).toBe(15);
    expect(remainingSeconds([10_000, 20_000], 0)).toBe(15);
    expect(remainingSeconds([10_000], 60_000)).toBe(0);
    expect(remainingSeconds([], 0)).toBeUndefined();
  });

  it('reads as people say it', () => {
    expect(etaText(undefined)).toBe('');
    expect(etaText(1)).toBe('almost done');
    expect(etaText(20)).toBe('about 20 s left');
    expect(etaText(150)).toBe('about 3 min left');
  });
});

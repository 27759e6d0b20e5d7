import { describe, expect, it } from 'vitest';
import { expiredReason, REQUEUE_AFTER_MS, sweepAction } from './pending-sweep.ts';

describe('sweepAction', () => {
  const now = Date.parse('2026-11-29T12:00:00.000Z');
  const limits = { requeueAfterMs: REQUEUE_AFTER_MS, expireAfterMs: 60 * 60_000 };
  const ago = (ms: number) => new Date(now - ms).toISOString();

  it('leaves fresh work, enqueues again work waiting past two minutes, ends work past the limit', () => {
    expect(sweepAction(ago(0), now, limits)).toBe('wait');
    expect(sweepAction(ago(REQUEUE_AFTER_MS - 1), now, limits)).toBe('wait');
    expect(sweepAction(ago(REQUEUE_AFTER_MS), now, limits)).toBe('requeue');
    expect(sweepAction(ago(60 * 60_000 - 1), now, limits)).toBe('requeue');
    expect(sweepAction(ago(60 * 60_000), now, limits)).toBe('expire');
  });

  it('waits on a time it cannot read, or one in the future', () => {
    expect(sweepAction('not a time', now, limits)).toBe('wait');
    expect(sweepAction(ago(-5 * 60_000), now, limits)).toBe('wait');
  });

  it('says the limit in minutes', () => {
    expect(expiredReason(90 * 60_000)).toMatch(/^The work did not start within 90 minutes/);
  });
});

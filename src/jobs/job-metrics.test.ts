import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createJobMetrics } from './job-metrics.ts';
import { metricValue } from './jobs.test-harness.ts';
import type { QueueStats } from './types.ts';

describe('job metrics (prom-client)', () => {
  it('turns the observer calls into durations by outcome, failures, retries and stalls', async () => {
    const registry = new Registry();
    const { observer } = createJobMetrics(registry);
    const l = { queue: 'media', job: 'assets.process' };
    observer.attemptEnded({ ...l, outcome: 'completed', seconds: 0.2 });
    observer.attemptEnded({ ...l, outcome: 'completed', seconds: 3 });
    observer.attemptEnded({ ...l, outcome: 'retried', seconds: 1 });
    observer.attemptEnded({ ...l, outcome: 'failed', seconds: 1 });
    observer.failedOutside(l);
    observer.stalled(l);
    const text = await registry.metrics();
    const count = (outcome: string) => metricValue(text, 'atelier_job_duration_seconds_count', { ...l, outcome });
    expect([count('completed'), count('retried'), count('failed')]).toEqual([2, 1, 1]);
    expect(metricValue(text, 'atelier_job_duration_seconds_sum', { ...l, outcome: 'completed' })).toBeCloseTo(3.2);
    expect(metricValue(text, 'atelier_job_duration_seconds_bucket', { ...l, outcome: 'completed', le: '0.25' })).toBe(
      1,
    );
    // A failure after the last attempt and one outside any attempt.
    expect(metricValue(text, 'atelier_jobs_failed_total', l)).toBe(2);
    expect(metricValue(text, 'atelier_job_retries_total', l)).toBe(1);
    expect(metricValue(text, 'atelier_job_stalls_total', l)).toBe(1);
  });

  it('reads the queues once per scrape for both gauges, and shows no sample when they cannot be read', async () => {
    const registry = new Registry();
    const metrics = createJobMetrics(registry);
    expect(metricValue(await registry.metrics(), 'atelier_job_queue_depth')).toBeUndefined();

    let reads = 0;
    let stats: QueueStats[] | Error = [
      { queue: 'media', depth: 4, oldestWaitSeconds: 12.5 },
      { queue: 'generation', depth: 0, oldestWaitSeconds: 0 },
    ];
    metrics.watch({
      queueStats: async () => {
        reads++;
        if (stats instanceof Error) throw stats;
        return stats;
      },
    });
    let text = await registry.metrics();
    expect(reads).toBe(1);
    expect(metricValue(text, 'atelier_job_queue_depth', { queue: 'media' })).toBe(4);
    expect(metricValue(text, 'atelier_job_queue_oldest_wait_seconds', { queue: 'media' })).toBe(12.5);
    expect(metricValue(text, 'atelier_job_queue_depth', { queue: 'generation' })).toBe(0);

    stats = new Error('redis is down');
    text = await registry.metrics();
    expect(reads).toBe(2);
    expect(metricValue(text, 'atelier_job_queue_depth', { queue: 'media' })).toBeUndefined();
    expect(text).toContain('# TYPE atelier_job_queue_depth gauge');
  });
});

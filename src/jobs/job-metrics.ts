import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { JobObserver, JobSystem, QueueStats } from './types.ts';

/** A scrape does not wait longer than this for the queues' depth (Redis or the database slow or down). */
const STATS_BOUND_MS = 2000;

export interface JobMetrics {
  /** What the drivers report to (JobSystemOptions.observer). */
  observer: JobObserver;
  /** The job system whose queues the depth and wait gauges read at each scrape. */
  watch(jobs: Pick<JobSystem, 'queueStats'>): void;
}

/**
 * Prometheus metrics of the jobs on one registry: attempts run in this process (duration by
 * outcome, failures, retries, stalls taken over) and, read at scrape time, each queue's depth and
 * the wait of its oldest due job (the same in every process sharing the queues).
 */
export function createJobMetrics(registry: Registry): JobMetrics {
  const registers = [registry];
  const labelNames = ['queue', 'job'] as const;
  const duration = new Histogram({
    name: 'atelier_job_duration_seconds',
    help: 'Job attempts run in this process by queue, job and outcome (completed; failed: its last attempt; retried: a retry follows)',
    labelNames: ['queue', 'job', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers,
  });
  const failed = new Counter({
    name: 'atelier_jobs_failed_total',
    help: 'Jobs failed for good in this process: last attempt failed, payload no longer valid, or workers that kept dying',
    labelNames,
    registers,
  });
  const retries = new Counter({
    name: 'atelier_job_retries_total',
    help: 'Job attempts failed in this process with a retry to come',
    labelNames,
    registers,
  });
  const stalls = new Counter({
    name: 'atelier_job_stalls_total',
    help: 'Running jobs this process took over after their lease lapsed (their worker died or froze)',
    labelNames,
    registers,
  });

  let source: Pick<JobSystem, 'queueStats'> | undefined;
  let reading: Promise<QueueStats[] | undefined> | undefined;
  /** One read per scrape, shared by both gauges (prom-client collects them at once); undefined when it failed. */
  const read = (): Promise<QueueStats[] | undefined> => {
    if (!source) return Promise.resolve(undefined);
    reading ??= bounded(source.queueStats(), STATS_BOUND_MS).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const queueGauge = (name: string, help: string, value: (s: QueueStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'] as const,
      registers,
      async collect() {
        const stats = await read();
        // Unreadable queues show no sample rather than a stale one.
        this.reset();
        for (const s of stats ?? []) this.set({ queue: s.queue }, value(s));
      },
    });
  queueGauge(
    'atelier_job_queue_depth',
    'Jobs waiting in the queue, due now or later (delayed, or waiting out a retry backoff)',
    (s) => s.depth,
  );
  queueGauge(
    'atelier_job_queue_oldest_wait_seconds',
    'Seconds the longest-waiting due job of the queue has waited for a worker (0: none waiting)',
    (s) => s.oldestWaitSeconds,
  );

  return {
    observer: {
      attemptEnded({ queue, job, outcome, seconds }) {
        duration.observe({ queue, job, outcome }, seconds);
        if (outcome === 'failed') failed.inc({ queue, job });
        if (outcome === 'retried') retries.inc({ queue, job });
      },
      failedOutside: (labels) => failed.inc(labels),
      stalled: (labels) => stalls.inc(labels),
    },
    watch(jobs) {
      source = jobs;
    },
  };
}

/** The value, or undefined when it fails or takes longer than `ms`. */
async function bounded<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

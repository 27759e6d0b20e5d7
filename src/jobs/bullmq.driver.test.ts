import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../test/helpers/pg.ts';
import { Registry } from 'prom-client';
import { createJobMetrics } from './job-metrics.ts';
import {
  type Backend,
  createBackend,
  metricValue,
  recordingLogger,
  redisAvailable,
  waitFor,
} from './jobs.test-harness.ts';
import { defineJob, type JobDefinition } from './types.ts';

/**
 * What only the BullMQ driver has: a worker process that dies mid-job. Its lock lapses, a live
 * worker's stalled-job check returns the job to the queue; past maxStalledCount (1) it fails.
 */
const redis = await redisAvailable();
const Payload = Type.Object({ n: Type.Integer() });

describe.runIf(redis)('bullmq job driver', () => {
  let backend: Backend;
  const doomed: Redis[] = [];
  afterEach(async () => {
    for (const conn of doomed.splice(0)) conn.disconnect();
    await backend?.dispose();
  });

  /**
   * A bare BullMQ worker that takes one job and dies holding it (no more lock renewals). Its
   * stalled-job check (same interval as the live workers': BullMQ runs one check per interval
   * per queue) can hand it a job another doomed worker left behind.
   */
  async function dieHoldingAJob(): Promise<void> {
    const conn = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    doomed.push(conn);
    let took = false;
    const hang = async () => {
      took = true;
      await new Promise(() => {});
    };
    const worker = new Worker('default', hang, {
      connection: conn,
      prefix: backend.prefix,
      lockDuration: 200,
      stalledInterval: 200,
      maxStalledCount: 1,
    });
    worker.on('error', () => {});
    await waitFor(() => took, 5000, 'a doomed worker to take the job');
    await worker.close(true);
  }

  async function setup() {
    backend = await createBackend('bullmq');
    const runs: { jobId: string; attempt: number }[] = [];
    const failed: string[] = [];
    const def: JobDefinition<typeof Payload> = {
      name: 'b.job',
      payload: Payload,
      attempts: 3,
      handler: async (_p, ctx) => void runs.push({ jobId: ctx.jobId, attempt: ctx.attempt }),
      onFailed: async (_p, err) => void failed.push(err.message),
    };
    const producer = await backend.make();
    producer.register(defineJob(def));
    const registry = new Registry();
    const metrics = createJobMetrics(registry);
    const log = recordingLogger();
    const live = async () => {
      const jobs = await backend.make({ leaseMs: 200, observer: metrics.observer, logger: log });
      jobs.register(defineJob(def));
      await jobs.startWorkers();
      return jobs;
    };
    const value = async (name: string, labels: Record<string, string>) =>
      metricValue(await registry.metrics(), name, { queue: 'default', job: 'b.job', ...labels });
    return { producer, live, runs, failed, value, log };
  }

  it('runs a job whose worker died on a live worker, without counting the stall as an attempt', async () => {
    const { producer, live, runs, failed, value, log } = await setup();
    const id = await producer.enqueue('b.job', { n: 1 });
    await dieHoldingAJob();
    const jobs = await live();
    await waitFor(async () => (await jobs.get(id))?.status === 'completed', 8000, 'recovery');
    expect(runs).toEqual([{ jobId: id, attempt: 1 }]);
    expect(failed).toEqual([]);
    // The live worker's stalled check took it over: a warning naming the job, and a stall counted.
    await waitFor(async () => (await value('atelier_job_stalls_total', {})) === 1, 2000, 'the stall counted');
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([
      {
        level: 'warn',
        msg: expect.stringContaining('taken over after its lease expired'),
        fields: { job: 'b.job', jobId: id, queue: 'default', attemptsMade: 0 },
      },
    ]);
    expect(await value('atelier_job_duration_seconds_count', { outcome: 'completed' })).toBe(1);
  });

  it('fails a job whose workers keep dying, and still calls onFailed', async () => {
    const { producer, live, runs, failed, value } = await setup();
    const id = await producer.enqueue('b.job', { n: 1 });
    await dieHoldingAJob();
    await dieHoldingAJob(); // recovers the job once through its stalled check, then dies with it too
    const jobs = await live();
    await waitFor(async () => (await jobs.get(id))?.status === 'failed', 8000, 'failure');
    await waitFor(() => failed.length > 0);
    expect(failed).toEqual(['job stalled more than allowable limit']);
    expect(runs).toEqual([]);
    // The second stall was the live worker's to see; the failure is counted though no attempt ran here.
    expect(await value('atelier_job_stalls_total', {})).toBe(1);
    expect(await value('atelier_jobs_failed_total', {})).toBe(1);
    expect(await value('atelier_job_duration_seconds_count', { outcome: 'failed' })).toBeUndefined();
  });
});

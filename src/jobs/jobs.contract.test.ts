import { Type } from 'typebox';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Registry } from 'prom-client';
import { createJobMetrics } from './job-metrics.ts';
import {
  type Backend,
  createBackend,
  type DriverKind,
  metricValue,
  recordingLogger,
  redisAvailable,
  sleep,
  waitFor,
} from './jobs.test-harness.ts';
import { defineJob, JobDefinitionError, JobPayloadError, type JobSystem, UnknownJobError } from './types.ts';

/**
 * The one contract both job drivers keep, run on: the in-process driver over SQLite and over
 * PostgreSQL, and the BullMQ driver over Redis.
 */
const redis = await redisAvailable();
if (!redis && process.env.CI) throw new Error('CI: Redis is not reachable for the BullMQ job driver suite');
const kinds: DriverKind[] = [
  'local-sqlite',
  ...(inject('postgres') ? (['local-postgres'] as const) : []),
  ...(redis ? (['bullmq'] as const) : []),
];

const Payload = Type.Object({ n: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });

describe.each(kinds)('job system contract (%s)', (kind) => {
  let backend: Backend;
  afterEach(async () => backend?.dispose());
  const fresh = async () => {
    backend = await createBackend(kind);
    return backend;
  };

  it('runs an enqueued job once, with its payload, id and attempt number', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const seen: { n: number; jobId: string; attempt: number; maxAttempts: number }[] = [];
    jobs.register(
      defineJob({
        name: 'c.once',
        payload: Payload,
        attempts: 2,
        async handler(p, ctx) {
          seen.push({ n: p.n, jobId: ctx.jobId, attempt: ctx.attempt, maxAttempts: ctx.maxAttempts });
        },
      }),
    );
    await jobs.startWorkers();
    const id = await jobs.enqueue('c.once', { n: 7 });
    await waitFor(async () => (await jobs.get(id))?.status === 'completed', 5000, 'completion');
    await sleep(100);
    expect(seen).toEqual([{ n: 7, jobId: id, attempt: 1, maxAttempts: 2 }]);
    expect(await jobs.get(id)).toEqual({ id, name: 'c.once', queue: 'default', status: 'completed' });
    expect(await jobs.get('no-such-job')).toBeUndefined();
  });

  it('runs a job enqueued twice with the same id once, before and after it ran', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const runs: number[] = [];
    jobs.register(defineJob({ name: 'c.dedupe', payload: Payload, handler: async (p) => void runs.push(p.n) }));
    const first = await jobs.enqueue('c.dedupe', { n: 1 }, { jobId: 'asset-1' });
    const second = await jobs.enqueue('c.dedupe', { n: 2 }, { jobId: 'asset-1' });
    expect([first, second]).toEqual(['asset-1', 'asset-1']);
    await jobs.startWorkers();
    await waitFor(() => runs.length === 1);
    expect(await jobs.enqueue('c.dedupe', { n: 3 }, { jobId: 'asset-1' })).toBe('asset-1');
    await sleep(200);
    expect(runs).toEqual([1]);
    // An id both drivers cannot store is a programming error.
    for (const bad of ['has:colon', '12345', '', 'x'.repeat(201)]) {
      await expect(jobs.enqueue('c.dedupe', { n: 1 }, { jobId: bad })).rejects.toThrow(JobDefinitionError);
    }
  });

  it('does not run a delayed job before its time', async () => {
    const b = await fresh();
    const jobs = await b.make();
    let ranAt = 0;
    jobs.register(
      defineJob({
        name: 'c.delay',
        payload: Payload,
        async handler() {
          ranAt = Date.now();
        },
      }),
    );
    await jobs.startWorkers();
    const t0 = Date.now();
    await jobs.enqueue('c.delay', { n: 1 }, { delayMs: 250 });
    await waitFor(() => ranAt > 0);
    expect(ranAt - t0).toBeGreaterThanOrEqual(245);
  });

  it('retries with exponential backoff, then calls onFailed once with the last error', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const starts: { attempt: number; at: number }[] = [];
    const failed: { n: number; message: string; jobId: string }[] = [];
    jobs.register(
      defineJob({
        name: 'c.retry',
        payload: Payload,
        attempts: 3,
        backoffMs: 60,
        async handler(_p, ctx) {
          starts.push({ attempt: ctx.attempt, at: Date.now() });
          throw new Error(`boom ${ctx.attempt}`);
        },
        async onFailed(p, err, ctx) {
          failed.push({ n: p.n, message: err.message, jobId: ctx.jobId });
        },
      }),
    );
    await jobs.startWorkers();
    const id = await jobs.enqueue('c.retry', { n: 5 });
    await waitFor(async () => (await jobs.get(id))?.status === 'failed', 5000, 'failure');
    await sleep(150);
    expect(starts.map((s) => s.attempt)).toEqual([1, 2, 3]);
    const [s1, s2, s3] = starts;
    expect(s2!.at - s1!.at).toBeGreaterThanOrEqual(55); // 60 ms
    expect(s3!.at - s2!.at).toBeGreaterThanOrEqual(115); // 120 ms
    expect(failed).toEqual([{ n: 5, message: 'boom 3', jobId: id }]);
    expect((await jobs.get(id))?.lastError).toContain('boom 3');
  });

  it('does not call onFailed when a retry succeeds', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const attempts: number[] = [];
    let failedCalls = 0;
    jobs.register(
      defineJob({
        name: 'c.flaky',
        payload: Payload,
        attempts: 3,
        backoffMs: 10,
        async handler(_p, ctx) {
          attempts.push(ctx.attempt);
          if (ctx.attempt === 1) throw new Error('transient');
        },
        onFailed: async () => void failedCalls++,
      }),
    );
    await jobs.startWorkers();
    const id = await jobs.enqueue('c.flaky', { n: 1 });
    await waitFor(async () => (await jobs.get(id))?.status === 'completed');
    expect(attempts).toEqual([1, 2]);
    expect(failedCalls).toBe(0);
  });

  it('marks a job failed even when its onFailed hook throws', async () => {
    const b = await fresh();
    const jobs = await b.make();
    let hooked = 0;
    jobs.register(
      defineJob({
        name: 'c.badhook',
        payload: Payload,
        attempts: 1,
        handler: async () => {
          throw new Error('work failed');
        },
        onFailed: async () => {
          hooked++;
          throw new Error('hook failed too');
        },
      }),
    );
    await jobs.startWorkers();
    const id = await jobs.enqueue('c.badhook', { n: 1 });
    await waitFor(async () => (await jobs.get(id))?.status === 'failed');
    expect(hooked).toBe(1);
    expect((await jobs.get(id))?.lastError).toContain('work failed');
  });

  it('aborts an attempt at its timeout and counts it as failed, even when the handler ignores the signal', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const reasons: string[] = [];
    const failed: string[] = [];
    const onFailed = async (_p: unknown, err: Error) => void failed.push(err.name);
    jobs.register(
      defineJob({
        name: 'c.timeout',
        payload: Payload,
        attempts: 1,
        timeoutMs: 80,
        handler: (_p, ctx) =>
          new Promise<void>((_, reject) =>
            ctx.signal.addEventListener('abort', () => {
              reasons.push((ctx.signal.reason as Error).name);
              reject(ctx.signal.reason);
            }),
          ),
        onFailed,
      }),
      defineJob({ name: 'c.deaf', payload: Payload, attempts: 1, timeoutMs: 80, handler: () => sleep(1500), onFailed }),
    );
    await jobs.startWorkers();
    const t0 = Date.now();
    const a = await jobs.enqueue('c.timeout', { n: 1 });
    const d = await jobs.enqueue('c.deaf', { n: 1 });
    await waitFor(async () => (await jobs.get(a))?.status === 'failed' && (await jobs.get(d))?.status === 'failed');
    expect(Date.now() - t0).toBeLessThan(1400);
    expect(reasons).toEqual(['JobTimeoutError']);
    expect(failed).toEqual(['JobTimeoutError', 'JobTimeoutError']);
    expect((await jobs.get(d))?.lastError).toMatch(/did not finish within 80 ms/);
  });

  it('never runs more jobs of a queue at once than its concurrency', async () => {
    const b = await fresh();
    const jobs = await b.make({ queueConcurrency: { media: 2 } });
    let now = 0;
    let peak = 0;
    const done: number[] = [];
    jobs.register(
      defineJob({
        name: 'c.media',
        payload: Payload,
        queue: 'media',
        async handler(p) {
          now++;
          peak = Math.max(peak, now);
          await sleep(60);
          now--;
          done.push(p.n);
        },
      }),
    );
    for (let n = 0; n < 6; n++) await jobs.enqueue('c.media', { n });
    await jobs.startWorkers({ queues: ['media'] });
    await waitFor(() => done.length === 6);
    expect(peak).toBe(2);
  });

  it('stop() waits for running jobs and records their outcome', async () => {
    const b = await fresh();
    const jobs = await b.make();
    let started = false;
    let finished = false;
    jobs.register(
      defineJob({
        name: 'c.slow',
        payload: Payload,
        async handler() {
          started = true;
          await sleep(200);
          finished = true;
        },
      }),
    );
    await jobs.startWorkers();
    const id = await jobs.enqueue('c.slow', { n: 1 });
    await waitFor(() => started);
    await jobs.stop();
    expect(finished).toBe(true);
    await jobs.stop(); // idempotent
    const observer = await b.make();
    observer.register(defineJob({ name: 'c.slow', payload: Payload, handler: async () => {} }));
    expect((await observer.get(id))?.status).toBe('completed');
  });

  it('hands a job interrupted by a stopping (or dying) worker to another instance', async () => {
    const b = await fresh();
    const dying = await b.make({ stopGraceMs: 50 });
    let startedOnDying = false;
    dying.register(
      defineJob({
        name: 'c.resume',
        payload: Payload,
        attempts: 2,
        handler: async () => {
          startedOnDying = true;
          await sleep(60_000); // ignores its signal: stuck
        },
      }),
    );
    await dying.startWorkers();
    const id = await dying.enqueue('c.resume', { n: 9 });
    await waitFor(() => startedOnDying);
    await dying.stop();

    const alive = await b.make();
    const ran: number[] = [];
    let failed = 0;
    alive.register(
      defineJob({
        name: 'c.resume',
        payload: Payload,
        attempts: 2,
        handler: async (p) => void ran.push(p.n),
        onFailed: async () => void failed++,
      }),
    );
    await alive.startWorkers();
    await waitFor(async () => (await alive.get(id))?.status === 'completed', 8000, 'resumed job');
    expect(ran).toEqual([9]);
    expect(failed).toBe(0);
  });

  it('runs a scheduled job repeatedly, once per period across two instances', async () => {
    const b = await fresh();
    const period = 150;
    const runs: number[] = [];
    const instances: JobSystem[] = [];
    for (let i = 0; i < 2; i++) {
      const jobs = await b.make();
      jobs.register(
        defineJob({ name: 'c.cleanup', payload: Payload, handler: async () => void runs.push(Date.now()) }),
      );
      await jobs.schedule('c.cleanup', { n: 0 }, { everyMs: period });
      await jobs.startWorkers();
      instances.push(jobs);
    }
    const t0 = Date.now();
    await sleep(1200);
    const t1 = Date.now();
    const inWindow = runs.filter((at) => at >= t0 && at <= t1).length;
    // At most one run per period start in the window, plus one late run of the period before;
    // one run per instance per period would be about twice that.
    expect(inWindow).toBeGreaterThanOrEqual(3);
    expect(inWindow).toBeLessThanOrEqual(Math.floor((t1 - t0) / period) + 2);
  });

  it('validates payloads at enqueue (throws, stores nothing) and again before running', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const ran: number[] = [];
    jobs.register(defineJob({ name: 'c.valid', payload: Payload, handler: async (p) => void ran.push(p.n) }));
    for (const bad of [{ n: -1 }, { n: 'x' }, { n: 1, extra: true }, {}, null, 'text']) {
      const err = await jobs.enqueue('c.valid', bad as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JobPayloadError);
    }
    const err = (await jobs.enqueue('c.valid', { n: 1.5 }).catch((e: unknown) => e)) as JobPayloadError;
    expect(err.fields).toEqual([{ field: 'payload.n', message: 'must be integer' }]);
    await jobs.startWorkers();
    await jobs.enqueue('c.valid', { n: 3 });
    await waitFor(() => ran.length === 1);
    await sleep(150);
    expect(ran).toEqual([3]);

    await jobs.stop();

    // A job stored under an older, looser schema fails without retry (and without the hook,
    // whose payload could not be trusted) once the running code's schema rejects it.
    const old = await b.make();
    old.register(defineJob({ name: 'c.schema', payload: Type.Object({ n: Type.String() }), handler: async () => {} }));
    const id = await old.enqueue('c.schema', { n: 'x' });
    const current = await b.make();
    let handled = 0;
    let hooked = 0;
    current.register(
      defineJob({
        name: 'c.schema',
        payload: Payload,
        attempts: 3,
        handler: async () => void handled++,
        onFailed: async () => void hooked++,
      }),
    );
    await current.startWorkers();
    await waitFor(async () => (await current.get(id))?.status === 'failed');
    expect((await current.get(id))?.lastError).toContain('payload.n');
    expect([handled, hooked]).toEqual([0, 0]);
  });

  it('leaves a job it has no handler for to an instance that has one (rolling deploy)', async () => {
    const b = await fresh();
    const older = await b.make();
    older.register(defineJob({ name: 'c.present', payload: Payload, handler: async () => {} }));
    const newer = await b.make();
    const ran: number[] = [];
    const def = defineJob({ name: 'c.added', payload: Payload, handler: async (p) => void ran.push(p.n) });
    newer.register(def);
    await older.startWorkers();
    const id = await newer.enqueue(def, { n: 4 });
    await sleep(400);
    // Not run by the older instance. (On BullMQ it may be caught at the instant the older worker
    // holds it before handing it back, so "running" is allowed here; it never completes there.)
    expect(['queued', 'running']).toContain((await newer.get(id))?.status);
    expect(ran).toEqual([]);
    await newer.startWorkers();
    await older.stop(); // the deploy finishes
    await waitFor(async () => (await newer.get(id))?.status === 'completed');
    expect(ran).toEqual([4]);
  });

  it('rejects unknown job names, unknown queues and bad registrations with clear errors', async () => {
    const b = await fresh();
    const jobs = await b.make();
    const def = defineJob({ name: 'c.known', payload: Payload, queue: 'media', handler: async () => {} });
    jobs.register(def);
    await expect(jobs.enqueue('c.unknown', { n: 1 })).rejects.toThrow(UnknownJobError);
    await expect(jobs.enqueue('c.unknown', { n: 1 })).rejects.toThrow(/no job named "c.unknown".*c.known/);
    await expect(jobs.schedule('c.unknown', { n: 1 }, { everyMs: 1000 })).rejects.toThrow(UnknownJobError);
    await expect(jobs.schedule('c.known', { n: 1 }, { everyMs: 0 })).rejects.toThrow(JobDefinitionError);
    expect(() => jobs.register(def)).toThrow(/registered twice/);
    expect(() => jobs.register({ ...def, name: 'Bad Name' })).toThrow(JobDefinitionError);
    expect(() => jobs.register({ ...def, name: 'c.other', attempts: 0 })).toThrow(/attempts/);
    expect(() => jobs.register({ ...def, name: 'c.other', queue: 'a:b' })).toThrow(/queue/);
    await expect(jobs.startWorkers({ queues: ['media', 'nope'] })).rejects.toThrow(/queue "nope"/);
    await jobs.startWorkers({ queues: ['media'] });
    await expect(jobs.startWorkers()).rejects.toThrow(/already started/);
    expect(() => jobs.register({ ...def, name: 'c.late' })).toThrow(/before starting/);
    // Typed enqueue through the definition.
    expect(await jobs.enqueue(def, { n: 2 }, { jobId: 'typed-1' })).toBe('typed-1');
  });

  it('reports attempts, retries and failures to its observer, and the queues’ depth and wait at a scrape', async () => {
    const b = await fresh();
    const registry = new Registry();
    const metrics = createJobMetrics(registry);
    const log = recordingLogger();
    const jobs = await b.make({ observer: metrics.observer, logger: log });
    metrics.watch(jobs);
    let flaky = 0;
    jobs.register(
      defineJob({ name: 'c.ok', payload: Payload, handler: async () => {} }),
      defineJob({
        name: 'c.flaky',
        payload: Payload,
        attempts: 2,
        backoffMs: 10,
        async handler() {
          if (flaky++ === 0) throw new Error('first time');
        },
      }),
      defineJob({
        name: 'c.broken',
        payload: Payload,
        attempts: 1,
        async handler() {
          throw new Error('always');
        },
      }),
      defineJob({ name: 'c.later', queue: 'later', payload: Payload, handler: async () => {} }),
    );
    // Before any worker: one due job on `default`, one delayed on `later`.
    await jobs.enqueue('c.ok', { n: 1 }, { jobId: 'ok-1' });
    await jobs.enqueue('c.later', { n: 1 }, { delayMs: 60_000 });
    await sleep(300);
    let text = await registry.metrics();
    const value = (name: string, labels: Record<string, string>) => metricValue(text, name, labels);
    expect(value('atelier_job_queue_depth', { queue: 'default' })).toBe(1);
    expect(value('atelier_job_queue_oldest_wait_seconds', { queue: 'default' })).toBeGreaterThanOrEqual(0.25);
    expect(value('atelier_job_queue_oldest_wait_seconds', { queue: 'default' })).toBeLessThan(30);
    expect(value('atelier_job_queue_depth', { queue: 'later' })).toBe(1);
    expect(value('atelier_job_queue_oldest_wait_seconds', { queue: 'later' })).toBe(0); // not due yet

    await jobs.startWorkers({ queues: ['default'] });
    const flakyId = await jobs.enqueue('c.flaky', { n: 2 });
    const brokenId = await jobs.enqueue('c.broken', { n: 3 });
    for (const id of ['ok-1', flakyId, brokenId]) {
      await waitFor(async () => ['completed', 'failed'].includes((await jobs.get(id))?.status ?? ''), 5000, id);
    }
    await sleep(100);
    text = await registry.metrics();
    const attempts = (job: string, outcome: string) =>
      value('atelier_job_duration_seconds_count', { queue: 'default', job, outcome });
    expect([attempts('c.ok', 'completed'), attempts('c.flaky', 'retried'), attempts('c.flaky', 'completed')]).toEqual([
      1, 1, 1,
    ]);
    expect(attempts('c.broken', 'failed')).toBe(1);
    expect(value('atelier_job_retries_total', { queue: 'default', job: 'c.flaky' })).toBe(1);
    expect(value('atelier_jobs_failed_total', { queue: 'default', job: 'c.broken' })).toBe(1);
    expect(value('atelier_jobs_failed_total', { queue: 'default', job: 'c.flaky' })).toBeUndefined();
    expect(value('atelier_job_queue_depth', { queue: 'default' })).toBe(0);
    expect(value('atelier_job_queue_oldest_wait_seconds', { queue: 'default' })).toBe(0);
    // A completed job logs one line naming it, its queue and attempt, with its duration.
    expect(
      log.lines.filter((l) => l.msg === 'job completed' && 'jobId' in l.fields && l.fields.jobId === 'ok-1'),
    ).toEqual([
      {
        level: 'info',
        msg: 'job completed',
        fields: { job: 'c.ok', jobId: 'ok-1', queue: 'default', attempt: 1, durationMs: expect.any(Number) },
      },
    ]);
  });
});

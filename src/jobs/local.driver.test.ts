import { Type } from 'typebox';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { Database } from '../adapters/db/database.ts';
import { Registry } from 'prom-client';
import { createJobMetrics } from './job-metrics.ts';
import {
  type Backend,
  createBackend,
  type DriverKind,
  metricValue,
  recordingLogger,
  sleep,
  waitFor,
} from './jobs.test-harness.ts';
import { defineJob, type JobLogger } from './types.ts';

/** What only the in-process driver has: rows, leases, claims by several processes, pruning. */
const kinds: DriverKind[] = ['local-sqlite', ...(inject('postgres') ? (['local-postgres'] as const) : [])];
const Payload = Type.Object({ n: Type.Integer() });
const iso = (ms: number) => new Date(ms).toISOString();

async function insertRow(db: Database, row: Partial<Record<string, unknown>> & { id: string }): Promise<void> {
  const now = iso(Date.now());
  await db.kysely
    .insertInto('jobs')
    .values({
      name: 'l.job',
      queue: 'default',
      payload: JSON.stringify({ n: 1 }),
      status: 'queued',
      attempts: 0,
      max_attempts: 3,
      run_at: now,
      created_at: now,
      updated_at: now,
      ...row,
    } as never)
    .execute();
}

describe.each(kinds)('local job driver (%s)', (kind) => {
  let backend: Backend;
  afterEach(async () => backend?.dispose());

  it('resumes a job left running by a dead instance once its lease has expired', async () => {
    backend = await createBackend(kind);
    const db = await backend.db();
    // A live lease (another worker still owns it) and an expired one (its worker died).
    await insertRow(db, {
      id: 'live',
      status: 'running',
      attempts: 1,
      locked_by: 'alive-worker',
      locked_until: iso(Date.now() + 60_000),
    });
    await insertRow(db, {
      id: 'dead',
      payload: JSON.stringify({ n: 2 }),
      status: 'running',
      attempts: 1,
      locked_by: 'dead-worker',
      locked_until: iso(Date.now() - 1000),
    });
    const registry = new Registry();
    const metrics = createJobMetrics(registry);
    const log = recordingLogger();
    const jobs = await backend.make({ observer: metrics.observer, logger: log });
    const runs: { jobId: string; attempt: number; n: number }[] = [];
    jobs.register(
      defineJob({ name: 'l.job', payload: Payload, handler: async (p, c) => void runs.push({ ...c, n: p.n }) }),
    );
    await jobs.startWorkers();
    await waitFor(() => runs.length === 1);
    await sleep(200);
    expect(runs.map(({ jobId, attempt, n }) => ({ jobId, attempt, n }))).toEqual([{ jobId: 'dead', attempt: 2, n: 2 }]);
    expect((await jobs.get('dead'))?.status).toBe('completed');
    expect((await jobs.get('live'))?.status).toBe('running');
    // The takeover is a warning naming the job and the worker that lost it, and a stall in the metrics.
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([
      {
        level: 'warn',
        msg: expect.stringContaining('taken over after its lease expired'),
        fields: { job: 'l.job', jobId: 'dead', queue: 'default', attempt: 2, previousWorker: 'dead-worker' },
      },
    ]);
    const text = await registry.metrics();
    expect(metricValue(text, 'atelier_job_stalls_total', { queue: 'default', job: 'l.job' })).toBe(1);
    expect(metricValue(text, 'atelier_job_duration_seconds_count', { job: 'l.job', outcome: 'completed' })).toBe(1);
  });

  it('fails a job whose worker died during its last attempt, calling onFailed without running it', async () => {
    backend = await createBackend(kind);
    const db = await backend.db();
    await insertRow(db, {
      id: 'last',
      status: 'running',
      attempts: 3,
      locked_by: 'dead-worker',
      locked_until: iso(Date.now() - 1),
    });
    const registry = new Registry();
    const metrics = createJobMetrics(registry);
    const jobs = await backend.make({ observer: metrics.observer });
    let ran = 0;
    const failed: string[] = [];
    jobs.register(
      defineJob({
        name: 'l.job',
        payload: Payload,
        handler: async () => void ran++,
        onFailed: async (_p, err) => void failed.push(err.message),
      }),
    );
    await jobs.startWorkers();
    await waitFor(async () => (await jobs.get('last'))?.status === 'failed');
    expect(ran).toBe(0);
    expect(failed).toEqual([expect.stringContaining('lease expired')]);
    const text = await registry.metrics();
    expect(metricValue(text, 'atelier_job_stalls_total', { job: 'l.job' })).toBe(1);
    expect(metricValue(text, 'atelier_jobs_failed_total', { job: 'l.job' })).toBe(1);
    expect(
      metricValue(text, 'atelier_job_duration_seconds_count', { job: 'l.job', outcome: 'failed' }),
    ).toBeUndefined();
  });

  it('does not count a job that was queued, retried or handed back as a stall', async () => {
    backend = await createBackend(kind);
    const db = await backend.db();
    // Handed back by a stopping worker after a takeover: queued, with the takeover's note still there.
    await insertRow(db, {
      id: 'handed-back',
      attempts: 1,
      last_error: 'lease expired: the attempt stopped with its worker x; taken over by y at z',
    });
    await insertRow(db, { id: 'retry', attempts: 1, last_error: 'Error: flaky' });
    const registry = new Registry();
    const metrics = createJobMetrics(registry);
    const jobs = await backend.make({ observer: metrics.observer });
    const runs: string[] = [];
    jobs.register(defineJob({ name: 'l.job', payload: Payload, handler: async (_p, c) => void runs.push(c.jobId) }));
    await jobs.startWorkers();
    await waitFor(() => runs.length === 2);
    await sleep(100);
    const text = await registry.metrics();
    expect(metricValue(text, 'atelier_job_stalls_total', { job: 'l.job' })).toBeUndefined();
    expect(metricValue(text, 'atelier_job_duration_seconds_count', { job: 'l.job', outcome: 'completed' })).toBe(2);
  });

  it('gives each job to exactly one of several instances claiming at once', async () => {
    backend = await createBackend(kind);
    const runs = new Map<number, number>();
    const instances = await Promise.all([1, 2, 3].map(() => backend.make({ concurrency: 3 })));
    for (const jobs of instances) {
      jobs.register(
        defineJob({
          name: 'l.job',
          payload: Payload,
          async handler(p) {
            runs.set(p.n, (runs.get(p.n) ?? 0) + 1);
            await sleep(5);
          },
        }),
      );
    }
    for (let n = 0; n < 40; n++) await instances[n % 3]!.enqueue('l.job', { n });
    await Promise.all(instances.map((j) => j.startWorkers()));
    await waitFor(() => runs.size === 40, 10_000);
    await sleep(200);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it('leaves jobs it has no handler for to a process that has one, and says so at start', async () => {
    backend = await createBackend(kind);
    const db = await backend.db();
    await insertRow(db, { id: 'future', name: 'l.newer' });
    const warnings: string[] = [];
    const logger: JobLogger = {
      debug() {},
      info() {},
      error() {},
      warn: (_o, msg) => void warnings.push(msg ?? ''),
      child: () => logger,
    };
    const jobs = await backend.make({ logger });
    jobs.register(defineJob({ name: 'l.job', payload: Payload, handler: async () => {} }));
    await jobs.startWorkers();
    await sleep(200);
    expect(warnings).toEqual([expect.stringContaining('no handler is registered')]);
    const row = await db.kysely.selectFrom('jobs').selectAll().where('id', '=', 'future').executeTakeFirstOrThrow();
    expect([row.status, row.attempts]).toEqual(['queued', 0]);
  });

  it('hands back interrupted jobs without counting the attempt', async () => {
    backend = await createBackend(kind);
    const jobs = await backend.make({ stopGraceMs: 30 });
    let started = false;
    jobs.register(
      defineJob({
        name: 'l.job',
        payload: Payload,
        handler: async (_p, ctx) => {
          started = true;
          await new Promise((r) => ctx.signal.addEventListener('abort', r));
        },
      }),
    );
    await jobs.startWorkers();
    await jobs.enqueue('l.job', { n: 1 }, { jobId: 'cut' });
    await waitFor(() => started);
    await jobs.stop();
    const db = await backend.db();
    const row = await db.kysely.selectFrom('jobs').selectAll().where('id', '=', 'cut').executeTakeFirstOrThrow();
    expect([row.status, row.attempts, row.locked_by]).toEqual(['queued', 0, null]);
  });

  it('prunes finished rows past their retention with its scheduled cleanup', async () => {
    backend = await createBackend(kind);
    const db = await backend.db();
    const old = iso(Date.now() - 10_000);
    await insertRow(db, { id: 'old-done', status: 'completed', finished_at: old });
    await insertRow(db, { id: 'old-failed', status: 'failed', finished_at: old });
    await insertRow(db, { id: 'recent-failed', status: 'failed', finished_at: iso(Date.now() - 2000) });
    await insertRow(db, { id: 'waiting', status: 'queued', run_at: iso(Date.now() + 3_600_000) });
    const jobs = await backend.make({ pruneEveryMs: 100, retention: { completedMs: 1000, failedMs: 5000 } });
    jobs.register(defineJob({ name: 'l.job', payload: Payload, handler: async () => {} }));
    await jobs.startWorkers();
    await waitFor(async () => (await jobs.get('old-failed')) === undefined);
    expect(await jobs.get('old-done')).toBeUndefined();
    expect((await jobs.get('recent-failed'))?.status).toBe('failed');
    expect((await jobs.get('waiting'))?.status).toBe('queued');
  });
});

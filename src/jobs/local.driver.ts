import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../adapters/db/database.ts';
import type { JobsTable } from './jobs.tables.ts';
import {
  backoffDelay,
  callOnFailed,
  createJobRegistry,
  driverSettings,
  errorOf,
  type Registered,
  runAttempt,
  within,
} from './registry.ts';
import { createScheduleTicker } from './scheduler.ts';
import {
  type EnqueueOptions,
  type JobInfo,
  type JobRef,
  JobDefinitionError,
  JobInterruptedError,
  type JobSystem,
  type JobSystemOptions,
  type QueueStats,
} from './types.ts';

/**
 * The embedded-mode driver: job rows in the application database, so a restart resumes them.
 *
 * A loop per process claims due jobs (polling every `pollMs`, woken at once by an enqueue in the
 * same process and by known retry times). A claim is one UPDATE ... WHERE id IN (SELECT due ids)
 * RETURNING: atomic on SQLite (one writer at a time) and, with FOR UPDATE SKIP LOCKED, on
 * PostgreSQL, so concurrent claimers never take the same row. A claimed row is `running` with a
 * lease (`locked_until`) that a heartbeat extends; a running row whose lease ran out belongs to a
 * dead process and is claimed again. Every later write on a row is guarded by the claim
 * (locked_by + attempts), so a worker that lost its lease cannot overwrite the new owner's state.
 * A claim of an expired lease writes why into `last_error` (the dead worker and the claim), which
 * is how the claimer knows it took a job over: it logs and counts the stall.
 */
export interface LocalJobSystemOptions extends JobSystemOptions {
  db: Database;
  /** Idle poll interval of the claim loop. Default 1000. */
  pollMs?: number;
  /** Period of the built-in `jobs.prune` cleanup of finished rows; 0 disables. Default 1 hour. */
  pruneEveryMs?: number;
}

interface Claimed {
  row: JobsTable;
  /** The worker whose lease expired, when this claim took the job over from it. */
  takenOverFrom?: string;
}

interface Running extends Claimed {
  /** Aborted by stop() once the grace period is over: the job goes back to the queue. */
  stop: AbortController;
}

const iso = (ms: number): string => new Date(ms).toISOString();
/** Start of `last_error` on a job taken over after its lease expired (claim() writes it). */
const LEASE_EXPIRED = 'lease expired: the attempt stopped with its worker ';
const describe = (err: Error): string => `${err.name}: ${err.message}`.slice(0, 2000);

export function createLocalJobSystem(o: LocalJobSystemOptions): JobSystem {
  const db = o.db.kysely;
  const registry = createJobRegistry();
  const { log, leaseMs, graceMs, retention, concurrency, reports } = driverSettings(o);
  const workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const pollMs = o.pollMs ?? 1000;

  let queues: string[] = [];
  let started = false;
  let stopping = false;
  let stopped: Promise<void> | undefined;
  const running = new Map<string, Running>();
  const perQueue = new Map<string, number>();
  let idle: (() => void) | undefined;

  // ---- the claim loop ----------------------------------------------------------------------
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;
  /** Future instants someone asked to be woken at (retries, delayed jobs, schedule periods). */
  let wakeTargets: number[] = [];

  const ticker = createScheduleTicker(async (s, jobId) => {
    await insert(registry.require(s.name), jobId, s.payload, Date.now());
  });

  function wake(): void {
    if (!started || stopping) return;
    if (ticking) {
      again = true;
      return;
    }
    clearTimeout(timer);
    ticking = tick().finally(() => {
      ticking = undefined;
      arm();
    });
  }

  function wakeAt(at: number): void {
    if (!started || stopping || !Number.isFinite(at) || wakeTargets.includes(at)) return;
    wakeTargets.push(at);
    if (!ticking) arm();
  }

  function arm(): void {
    if (stopping) return;
    const now = Date.now();
    wakeTargets = wakeTargets.filter((t) => t > now);
    const next = Math.min(now + pollMs, ...wakeTargets);
    clearTimeout(timer);
    timer = setTimeout(wake, Math.max(0, next - now));
  }

  async function tick(): Promise<void> {
    do {
      again = false;
      try {
        wakeAt(await ticker.tick(Date.now()));
        for (const queue of queues) {
          const free = concurrency(queue) - (perQueue.get(queue) ?? 0);
          if (free <= 0 || stopping) continue;
          for (const claimed of await claim(queue, free)) launch(claimed);
        }
      } catch (err) {
        log.error({ err }, 'job claim loop failed; retrying at the next poll');
      }
    } while (again && !stopping);
  }

  async function claim(queue: string, limit: number): Promise<Claimed[]> {
    const now = Date.now();
    // SET sees the row as it was: a row still `running` here had a lease that expired.
    const takeover = `; taken over by ${workerId} at ${iso(now)}`;
    let due = db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', queue)
      .where('name', 'in', registry.namesOn(queue))
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', iso(now))]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', iso(now))]),
        ]),
      )
      .orderBy('run_at')
      .limit(limit);
    if (o.db.dialect === 'postgres') due = due.forUpdate().skipLocked();
    const rows = await db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        attempts: eb('attempts', '+', 1),
        locked_by: workerId,
        locked_until: iso(now + leaseMs),
        updated_at: iso(now),
        last_error: sql<string | null>`case when status = 'running'
          then cast(${LEASE_EXPIRED} as text) || coalesce(locked_by, '?') || cast(${takeover} as text)
          else last_error end`,
      }))
      .where('id', 'in', due)
      .returningAll()
      .execute();
    return rows.map((row) =>
      row.last_error?.startsWith(LEASE_EXPIRED) && row.last_error.endsWith(takeover)
        ? { row, takenOverFrom: row.last_error.slice(LEASE_EXPIRED.length, -takeover.length) }
        : { row },
    );
  }

  function launch(claimed: Claimed): void {
    const { row } = claimed;
    const entry: Running = { ...claimed, stop: new AbortController() };
    running.set(row.id, entry);
    perQueue.set(row.queue, (perQueue.get(row.queue) ?? 0) + 1);
    run(entry)
      .catch((err) => log.error({ err, jobId: row.id }, 'could not record the outcome of a job'))
      .finally(() => {
        running.delete(row.id);
        perQueue.set(row.queue, (perQueue.get(row.queue) ?? 1) - 1);
        if (running.size === 0) idle?.();
        wake();
      });
  }

  // ---- one attempt -------------------------------------------------------------------------
  async function run(entry: Running): Promise<void> {
    const { row } = entry;
    const def = registry.require(row.name);
    const labels = { queue: row.queue, job: row.name };
    const jobLog = log.child({ job: row.name, jobId: row.id, queue: row.queue, attempt: row.attempts });
    if (entry.takenOverFrom !== undefined) reports.stalled(labels, jobLog, { previousWorker: entry.takenOverFrom });
    let payload: unknown;
    try {
      payload = registry.payload(def, JSON.parse(row.payload));
    } catch (e) {
      const err = errorOf(e);
      reports.failedOutside(labels, jobLog, err, 'job payload no longer validates; failed without retry');
      await finish(row, { status: 'failed', last_error: describe(err) });
      return;
    }
    if (row.attempts > row.max_attempts) {
      // Claimed again after its worker died during the last attempt.
      const err = new Error('the worker running the last attempt stopped before it finished (lease expired)');
      reports.failedOutside(labels, jobLog, err, 'job failed: its workers stopped while running it');
      await fail(def, row, payload, err, jobLog);
      return;
    }
    const report = reports.attempt(labels, jobLog);
    try {
      const ctx = { jobId: row.id, attempt: row.attempts, maxAttempts: row.max_attempts, log: jobLog };
      await runAttempt(def, payload, ctx, entry.stop.signal);
    } catch (e) {
      if (entry.stop.signal.aborted) return; // handed back to the queue by stop()
      const err = errorOf(e);
      if (row.attempts < row.max_attempts) {
        const at = Date.now() + backoffDelay(row.attempts, def.backoffMs);
        report.retried(err, { retryAt: iso(at) });
        await finish(row, { status: 'queued', run_at: iso(at), last_error: describe(err) });
        wakeAt(at);
      } else {
        report.failed(err);
        await fail(def, row, payload, err, jobLog);
      }
      return;
    }
    if (entry.stop.signal.aborted) return;
    report.completed();
    await finish(row, { status: 'completed', last_error: null });
  }

  /** The failure hook, then the row marked failed (the failure is logged and counted by the caller). */
  async function fail(def: Registered, row: JobsTable, payload: unknown, err: Error, jobLog: typeof log) {
    // The hook runs before the row is marked, so a crash in between calls it again rather than never.
    await callOnFailed(def, payload, err, { jobId: row.id, log: jobLog });
    await finish(row, { status: 'failed', last_error: describe(err) });
  }

  /** Writes the outcome if this worker still owns the claim. */
  async function finish(row: JobsTable, set: Partial<JobsTable>): Promise<void> {
    const now = iso(Date.now());
    const terminal = set.status === 'completed' || set.status === 'failed';
    await db
      .updateTable('jobs')
      .set({ ...set, locked_by: null, locked_until: null, updated_at: now, ...(terminal ? { finished_at: now } : {}) })
      .where('id', '=', row.id)
      .where('status', '=', 'running')
      .where('locked_by', '=', workerId)
      .where('attempts', '=', row.attempts)
      .execute();
  }

  async function insert(def: Registered, id: string, data: unknown, runAt: number): Promise<void> {
    const now = iso(Date.now());
    await db
      .insertInto('jobs')
      .values({
        id,
        name: def.name,
        queue: def.queue,
        payload: JSON.stringify(data ?? null),
        status: 'queued',
        attempts: 0,
        max_attempts: def.attempts,
        run_at: iso(runAt),
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  // ---- built-in cleanup of finished rows ------------------------------------------------------
  registry.register([
    {
      name: 'jobs.prune',
      payload: Type.Object({}),
      attempts: 1,
      timeoutMs: 300_000,
      async handler() {
        const now = Date.now();
        for (const [status, keepMs] of [
          ['completed', retention.completedMs],
          ['failed', retention.failedMs],
        ] as const) {
          await db
            .deleteFrom('jobs')
            .where('status', '=', status)
            .where('finished_at', '<', iso(now - keepMs))
            .execute();
        }
      },
    },
  ]);
  const pruneEveryMs = o.pruneEveryMs ?? 3_600_000;
  if (pruneEveryMs > 0) ticker.set({ key: 'jobs.prune', name: 'jobs.prune', payload: {}, everyMs: pruneEveryMs });

  // ---- the public surface -----------------------------------------------------------------------
  return {
    driver: 'local',
    register(...defs) {
      registry.register(defs);
    },
    async enqueue(job: string | JobRef, payload: unknown, opts: EnqueueOptions = {}) {
      const { def, data, id, delay } = registry.prepareEnqueue(job, payload, opts);
      const runAt = Date.now() + delay;
      await insert(def, id, data, runAt);
      if (queues.includes(def.queue)) {
        if (delay === 0) wake();
        else wakeAt(runAt);
      }
      return id;
    },
    async schedule(name, payload, opts) {
      const { key, data } = registry.prepareSchedule(name, payload, opts);
      ticker.set({ key, name, payload: data, everyMs: opts.everyMs });
      wake();
    },
    async startWorkers(opts = {}) {
      if (started || stopping)
        throw new JobDefinitionError('workers were already started on this job system (or it stopped)');
      queues = registry.queuesToStart(opts.queues);
      started = true;
      registry.seal();
      const orphans = await db
        .selectFrom('jobs')
        .select('name')
        .distinct()
        .where('status', 'in', ['queued', 'running'])
        .where('name', 'not in', registry.names())
        .execute();
      if (orphans.length > 0) {
        log.warn(
          { names: orphans.map((r) => r.name) },
          'queued jobs have names no handler is registered for in this process; they wait for one that has',
        );
      }
      heartbeat = setInterval(() => void extendLeases(), Math.max(10, Math.floor(leaseMs / 3)));
      log.info({ queues, workerId }, 'job workers started');
      wake();
    },
    async get(jobId): Promise<JobInfo | undefined> {
      const row = await db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        name: row.name,
        queue: row.queue,
        status: row.status,
        ...(row.last_error ? { lastError: row.last_error } : {}),
      };
    },
    async queueStats(): Promise<QueueStats[]> {
      const now = Date.now();
      const rows = await db
        .selectFrom('jobs')
        .select((eb) => [
          'queue',
          eb.fn.countAll<number | string>().as('depth'),
          eb.fn.min<string | null>(sql`case when run_at <= ${iso(now)} then run_at end`).as('oldest'),
        ])
        .where('status', '=', 'queued')
        .groupBy('queue')
        .execute();
      return registry.queues().map((queue) => {
        const row = rows.find((r) => r.queue === queue);
        const waited = row?.oldest ? (now - Date.parse(row.oldest)) / 1000 : 0;
        return { queue, depth: Number(row?.depth ?? 0), oldestWaitSeconds: Math.max(0, waited) };
      });
    },
    stop() {
      stopped ??= shutdown();
      return stopped;
    },
  };

  async function extendLeases(): Promise<void> {
    const ids = [...running.keys()];
    if (ids.length === 0) return;
    try {
      await db
        .updateTable('jobs')
        .set({ locked_until: iso(Date.now() + leaseMs) })
        .where('id', 'in', ids)
        .where('status', '=', 'running')
        .where('locked_by', '=', workerId)
        .execute();
    } catch (err) {
      log.warn({ err }, 'could not extend job leases');
    }
  }

  async function shutdown(): Promise<void> {
    stopping = true;
    clearTimeout(timer);
    await ticking;
    if (running.size > 0) await within(new Promise<void>((resolve) => (idle = resolve)), graceMs);
    if (running.size > 0) {
      // Grace is over: abort the rest and give them back without counting the attempt.
      const left = [...running.values()];
      for (const r of left) r.stop.abort(new JobInterruptedError());
      await db
        .updateTable('jobs')
        .set((eb) => ({
          status: 'queued',
          attempts: eb('attempts', '-', 1),
          run_at: iso(Date.now()),
          locked_by: null,
          locked_until: null,
          updated_at: iso(Date.now()),
        }))
        .where(
          'id',
          'in',
          left.map((r) => r.row.id),
        )
        .where('status', '=', 'running')
        .where('locked_by', '=', workerId)
        .execute()
        .catch((err) => log.error({ err }, 'could not hand interrupted jobs back to the queue'));
      log.warn({ jobs: left.map((r) => r.row.id) }, 'stopped with jobs still running; they go back to the queue');
    }
    clearInterval(heartbeat);
  }
}

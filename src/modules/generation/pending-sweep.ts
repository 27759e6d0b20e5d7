import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import { GenerationError } from '../../engines/image/scene-engine.ts';
import { defineJob, type JobDefinition, type JobLogger, type JobRef, type JobSystem } from '../../jobs/types.ts';

/**
 * One sweeper for every kind of generation work (scene and video variations, environments, scene
 * and video prompt enhancements, Brand DNA runs). A create writes its rows `pending`, then
 * enqueues their jobs; when the enqueue fails it undoes the rows and answers 503, but a process
 * that dies between the two (or a queue that lost its jobs) leaves rows no job will ever move,
 * with their usage units reserved. Every minute the sweep enqueues again the job of each row still
 * pending after REQUEUE_AFTER_MS whose job the queue does not hold (same job id as the create's),
 * and ends a row pending past the operator's limit (queued or not) through its job's own failure
 * hook: failed with a reason, its units released, its change announced; a job that runs later
 * finds the row terminal and does nothing.
 */
export interface PendingKind {
  /** The module's table; its rows have `id`, `status` (`pending` while waiting) and `updated_at`. */
  table: string;
  /** The job that does a row's work; its failure hook ends a row that waited too long. */
  job: JobDefinition;
  /** The job's payload and id for a row, as the create enqueued them. */
  enqueueOf(row: Record<string, unknown>): { payload: unknown; jobId: string };
}

/** A module's waiting work: its table, the job (found by name among the module's) and the job's arguments. */
export function pendingKind(
  defs: readonly JobDefinition[],
  ref: JobRef,
  table: string,
  enqueueOf: PendingKind['enqueueOf'],
): PendingKind {
  const job = defs.find((d) => d.name === ref.name);
  if (!job) throw new Error(`pendingKind: no job named ${ref.name} among the module's jobs`);
  return { table, job, enqueueOf };
}

export const sweepPendingJob: JobRef = { name: 'generation.sweep', payload: Type.Object({}) };
export const SWEEP_PENDING_EVERY_MS = 60_000;
/** A row pending this long has probably lost its job (a queued job is not disturbed by the enqueue). */
export const REQUEUE_AFTER_MS = 2 * 60_000;
/** Rows looked at per kind and sweep (oldest first; the rest wait for the next sweep). */
const BATCH = 200;

/** What the sweep does with a row pending since `since`: nothing yet, enqueue its job again, or end it. */
export function sweepAction(
  since: string,
  nowMs: number,
  limits: { requeueAfterMs: number; expireAfterMs: number },
): 'wait' | 'requeue' | 'expire' {
  const waited = nowMs - Date.parse(since);
  if (!(waited >= limits.requeueAfterMs)) return 'wait';
  return waited >= limits.expireAfterMs ? 'expire' : 'requeue';
}

/** The failure reason of a row that waited past the limit (the client's, on the resource). */
export const expiredReason = (expireAfterMs: number) =>
  `The work did not start within ${Math.round(expireAfterMs / 60_000)} minutes (the job queue or its workers were unavailable); try again`;

export interface PendingSweepDeps {
  db: Database;
  jobs: Pick<JobSystem, 'enqueue' | 'get'>;
  clock: Clock;
  kinds: readonly PendingKind[];
  /** ATELIER_PENDING_LIMIT_MINUTES, in ms. */
  expireAfterMs: number;
}

interface WaitingRow {
  id: string;
  status: string;
  updated_at: string;
}

export function pendingSweep(deps: PendingSweepDeps) {
  // Every table has these columns; Kysely is shown just them under one name (as in runs.repo.ts).
  const k = deps.db.kysely as unknown as Kysely<{ waiting: WaitingRow }>;
  const limits = { requeueAfterMs: REQUEUE_AFTER_MS, expireAfterMs: deps.expireAfterMs };

  async function sweep(log: JobLogger): Promise<{ requeued: number; expired: number }> {
    const nowMs = deps.clock().getTime();
    const before = new Date(nowMs - REQUEUE_AFTER_MS).toISOString();
    let requeued = 0;
    let expired = 0;
    for (const kind of deps.kinds) {
      const rows = (await k
        .selectFrom(kind.table as 'waiting')
        .selectAll()
        .where('status', '=', 'pending')
        .where('updated_at', '<', before)
        .orderBy('updated_at')
        .limit(BATCH)
        .execute()) as unknown as (WaitingRow & Record<string, unknown>)[];
      for (const row of rows) {
        const { payload, jobId } = kind.enqueueOf(row);
        if (sweepAction(row.updated_at, nowMs, limits) === 'expire') {
          await kind.job.onFailed?.(payload, new GenerationError(expiredReason(deps.expireAfterMs)), {
            jobId,
            log,
          });
          expired++;
          continue;
        }
        try {
          const job = await deps.jobs.get(jobId);
          if (job?.status === 'queued' || job?.status === 'running') continue; // waiting its turn
          await deps.jobs.enqueue(kind.job, payload, { jobId });
          requeued++;
        } catch (err) {
          // The queue is away again: the next sweep tries again.
          log.warn({ err: (err as Error).message, table: kind.table }, 'pending work could not be enqueued again');
          return { requeued, expired };
        }
      }
    }
    if (requeued + expired > 0)
      log.warn({ requeued, expired }, 'work left pending without a job: enqueued again or ended');
    return { requeued, expired };
  }

  const job = defineJob({
    ...sweepPendingJob,
    queue: 'maintenance',
    attempts: 1,
    async handler(_payload, ctx) {
      await sweep(ctx.log);
    },
  });

  return { sweep, job, schedule: { name: sweepPendingJob.name, payload: {}, everyMs: SWEEP_PENDING_EVERY_MS } };
}

export type PendingSweep = ReturnType<typeof pendingSweep>;

import { randomUUID } from 'node:crypto';
import { type TObject, Type } from 'typebox';
import type { DB } from '../../adapters/db/schema.ts';
import type { Clock } from '../../clock.ts';
import { GenerationError } from '../../engines/image/scene-engine.ts';
import type { ResourceKind } from '../../events/changes.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobContext, type JobDefinition, type JobRef, type JobSystem } from '../../jobs/types.ts';
import type { Pool } from '../usage/plans.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { pendingLifecycle } from './lifecycle.ts';
import { type PendingKind, pendingKind } from './pending-sweep.ts';
import { reserveUnits, writeOrRelease } from './quota.ts';
import type { RunsRepo, RunTable } from './runs.repo.ts';

/**
 * A kind of generation work, one row and one job per run: a one-row run (an environment, a scene
 * or video prompt enhancement) or a variation (of a scene forge or refinement, of a video group;
 * variations.ts). One declaration per kind (`defineRunKind`); the create (`createRun`, or
 * `createVariations`: reserve → insert → enqueue, undone on failure), the job (`runJob`, or
 * `variationJob`: start → engine → finish → commit or release → announce) and the sweep's entry
 * (`pendingRuns`) follow from it.
 */
export interface RunKind<T extends RunTable> {
  /** The table of its runs (declared in its module's tables file); the sweep looks there. */
  table: T;
  /** The job's reference: its name and payload (`{ [idKey]: uuid }`). */
  job: JobRef<TObject>;
  /** The job id of a run: `<job name>.<run id>`. */
  jobId(id: string): string;
  /** The job's payload for a run. */
  payload(id: string): Record<string, string>;
  /** The run's id in a payload. */
  idOf(payload: object): string;
  /** The resource kind its changes are announced as (long-poll, webhooks); a variation's: its parent's. */
  change: ResourceKind;
  /** The usage pool a run takes its units of (one; a video variation: its duration's seconds). */
  pool: Pool;
}

/** Declares a run kind: table, job name, the payload's id member, announced kind, usage pool. */
export function defineRunKind<T extends RunTable>(o: {
  table: T;
  job: string;
  idKey: string;
  change: ResourceKind;
  pool: Pool;
}): RunKind<T> {
  return {
    table: o.table,
    job: { name: o.job, payload: Type.Object({ [o.idKey]: Uuid }) },
    jobId: (id) => `${o.job}.${id}`,
    payload: (id) => ({ [o.idKey]: id }),
    idOf: (p) => (p as Record<string, string>)[o.idKey]!,
    change: o.change,
    pool: o.pool,
  };
}

/** The columns `createRun` fills in: the id, the organization, the reservation and the lifecycle. */
type RunOwnColumns =
  | 'id'
  | 'organization_id'
  | 'reservation_id'
  | 'status'
  | 'error_code'
  | 'error_message'
  | 'created_at'
  | 'updated_at'
  | 'completed_at'
  | 'failed_at';

/** A run's row as its kind builds it: every column but the ones `createRun` fills in. */
export type RunFields<T extends RunTable> = Omit<DB[T], RunOwnColumns>;

export interface CreateRunDeps<T extends RunTable> {
  repo: RunsRepo<T>;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
  clock: Clock;
}

/**
 * Creates a run: reserves its unit (403 QUOTA_EXCEEDED when refused), writes its row `pending`
 * (the kind's `fields(id)` with the id, organization, reservation and lifecycle) and enqueues its
 * job; when the insert or the enqueue fails the row is deleted and the unit released before the
 * error goes on. Returns the row as written (the 202's body).
 */
export async function createRun<T extends RunTable>(
  deps: CreateRunDeps<T>,
  kind: RunKind<T>,
  orgId: string,
  fields: (id: string) => RunFields<T>,
): Promise<DB[T]> {
  const id = randomUUID();
  const [reservationId] = await reserveUnits(deps.usage, orgId, kind.pool, [id]);
  const row = {
    ...fields(id),
    id,
    organization_id: orgId,
    reservation_id: reservationId ?? null,
    ...pendingLifecycle(deps.clock().toISOString()),
  } as unknown as DB[T];
  await writeOrRelease(
    deps.usage,
    [reservationId],
    async () => {
      await deps.repo.insert(row);
      await deps.jobs.enqueue(kind.job, kind.payload(id), { jobId: kind.jobId(id) });
    },
    () => deps.repo.delete(id),
  );
  return row;
}

export interface RunJobDeps<T extends RunTable> {
  repo: RunsRepo<T>;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  clock: Clock;
  changes: ChangePublisher;
}

export interface RunJobSpec<T extends RunTable> {
  /** Base of the backoff between the three attempts. */
  backoffMs: number;
  /** Bound on one attempt. */
  timeoutMs: number;
  /** The engine's work on the run (now `processing`): the columns the completed run gets. */
  run(row: DB[T], ctx: JobContext): Promise<Partial<DB[T]>>;
  /** The failed run's error code and message, from the error that ended it. */
  failure(error: Error): { code: string; message: string };
  /** What the log says when the last attempt failed. */
  failedLog: string;
}

/**
 * A run's job on the `generation` queue (three attempts): pending → processing (announced) → the
 * kind's `run` → completed with its columns, the unit committed, the change announced. An engine's
 * non-retryable GenerationError fails the run at once; after the last attempt (or when the sweep
 * ends a run that waited too long) the run is failed with the kind's `failure`, its unit released
 * and the change announced. Idempotent: a terminal run is left as it is, and only the call that
 * made the run terminal commits or releases and announces.
 */
export function runJob<T extends RunTable>(
  kind: RunKind<T>,
  deps: RunJobDeps<T>,
  spec: RunJobSpec<T>,
): JobDefinition<TObject> {
  const now = () => deps.clock().toISOString();
  /** Announces the run as it is now; after the transition committed. */
  const changed = (id: string) => publishChange(deps, kind.change, () => deps.repo.byId(id));
  const fail = async (id: string, error: Error) => {
    const row = await deps.repo.byId(id);
    if (!row) return;
    const { code, message } = spec.failure(error);
    if (await deps.repo.finish(id, 'failed', { error_code: code, error_message: message } as Partial<DB[T]>, now())) {
      if (row.reservation_id) await deps.usage.release(row.reservation_id);
      await changed(id);
    }
  };
  return defineJob({
    ...kind.job,
    queue: 'generation',
    attempts: 3,
    backoffMs: spec.backoffMs,
    timeoutMs: spec.timeoutMs,
    async handler(payload, ctx) {
      const id = kind.idOf(payload);
      if (!(await deps.repo.start(id, now()))) return;
      const row = await deps.repo.byId(id);
      if (!row) return;
      await publishChange(deps, kind.change, row);
      try {
        const fields = await spec.run(row, ctx);
        if (await deps.repo.finish(id, 'completed', fields, now())) {
          if (row.reservation_id) await deps.usage.commit(row.reservation_id);
          await changed(id);
        }
      } catch (err) {
        if (err instanceof GenerationError && !err.retryable) return void (await fail(id, err));
        throw err;
      }
    },
    async onFailed(payload, error, ctx) {
      const id = kind.idOf(payload);
      ctx.log.error({ ...payload, err: error.message }, spec.failedLog);
      await fail(id, error);
    },
  });
}

/** The sweep's entry for a run kind: its table, its job (among the module's), payload and job id. */
export function pendingRuns(jobs: readonly JobDefinition[], kind: RunKind<RunTable>): PendingKind {
  return pendingKind(jobs, kind.job, kind.table, (r) => ({
    payload: kind.payload(r.id as string),
    jobId: kind.jobId(r.id as string),
  }));
}

import type { TObject } from 'typebox';
import type { Clock } from '../../clock.ts';
import { GenerationError } from '../../engines/image/scene-engine.ts';
import { type ChangePublisher, type ChangedRow, publishChange } from '../../events/publish.ts';
import { defineJob, type JobContext, type JobDefinition, type JobSystem } from '../../jobs/types.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { reserveUnits, writeOrRelease } from './quota.ts';
import type { RunKind } from './runs.ts';
import type { VariationTable } from './variations.repo.ts';

/**
 * The lifecycle of a generation made of variations under a parent (a scene forge and its
 * refinements, a video group): its variations are run kinds (`defineRunKind`: the variations'
 * table, the job, the parent's announced kind, the pool), created together (`createVariations`)
 * and each run by its job (`variationJob`), the parent rolled up by the variations repo.
 */

export interface CreateVariationsDeps {
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
}

/**
 * Reserves `amount` units (default one) of the kind's pool per variation (all or nothing, 403
 * QUOTA_EXCEEDED), builds the rows with the reservations (`rows`, in the order of `ids`), writes
 * them (`insert`) and enqueues one job per variation; when the write or an enqueue fails, `undo`
 * removes what was written and the units are released before the error goes on. Returns the rows
 * as built (the 202's body).
 */
export async function createVariations<R>(
  deps: CreateVariationsDeps,
  kind: RunKind<VariationTable>,
  o: {
    orgId: string;
    ids: string[];
    amount?: number;
    rows(reservations: (string | undefined)[]): R;
    insert(rows: R): Promise<void>;
    undo(): Promise<void>;
  },
): Promise<R> {
  const reservations = await reserveUnits(deps.usage, o.orgId, kind.pool, o.ids, o.amount);
  const rows = o.rows(o.ids.map((_, i) => reservations[i]));
  await writeOrRelease(
    deps.usage,
    reservations,
    async () => {
      await o.insert(rows);
      for (const id of o.ids) await deps.jobs.enqueue(kind.job, kind.payload(id), { jobId: kind.jobId(id) });
    },
    o.undo,
  );
  return rows;
}

/** The variations repo's transitions and reads a job uses (variations.repo.ts), over its row types. */
export interface VariationJobRepo<Parent, Variation> {
  start(variationId: string, at: string): Promise<boolean>;
  finish(
    variationId: string,
    status: 'completed' | 'failed',
    outcome: Partial<Variation>,
    at: string,
  ): Promise<{ reservationId: string | null; parent: Parent | undefined } | undefined>;
  variationById(id: string): Promise<Variation | undefined>;
  parentOf(variation: Variation): Promise<Parent | undefined>;
}

export interface VariationJobDeps<Parent, Variation> {
  repo: VariationJobRepo<Parent, Variation>;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  clock: Clock;
  changes: ChangePublisher;
}

export interface VariationJobSpec<Parent, Variation> {
  /** Bound on one attempt. */
  timeoutMs: number;
  /** The engine's work on the variation (now `processing`): the columns the completed variation gets. */
  run(variation: Variation, parent: Parent, ctx: JobContext): Promise<Partial<Variation>>;
  /** The failed variation's error message, from the error that ended it (the code is GENERATION_FAILED). */
  failedMessage(error: Error): string;
  /** What the log says when the last attempt failed. */
  failedLog: string;
}

/**
 * A variation's job on the `generation` queue (three attempts, backoff from 2 s): pending →
 * processing (the parent announced) → the kind's `run` → completed with its columns and the
 * parent rolled up, the unit committed, the parent announced as the transition left it (only the
 * variation that ended the parent announces its end). An engine's non-retryable GenerationError
 * fails the variation at once; after the last attempt (or when the sweep ends a variation that
 * waited too long) it is failed with GENERATION_FAILED and `failedMessage`, its unit released.
 * Idempotent: a terminal variation is left as it is.
 */
export function variationJob<Parent extends ChangedRow, Variation>(
  kind: RunKind<VariationTable>,
  deps: VariationJobDeps<Parent, Variation>,
  spec: VariationJobSpec<Parent, Variation>,
): JobDefinition<TObject> {
  const now = () => deps.clock().toISOString();
  const announce = async (done: { parent: Parent | undefined }) => {
    if (done.parent) await publishChange(deps, kind.change, done.parent);
  };
  const fail = async (id: string, error: Error) => {
    const outcome = { error_code: 'GENERATION_FAILED', error_message: spec.failedMessage(error) };
    const done = await deps.repo.finish(id, 'failed', outcome as unknown as Partial<Variation>, now());
    if (done?.reservationId) await deps.usage.release(done.reservationId);
    if (done) await announce(done);
  };
  return defineJob({
    ...kind.job,
    queue: 'generation',
    attempts: 3,
    backoffMs: 2000,
    timeoutMs: spec.timeoutMs,
    async handler(payload, ctx) {
      const id = kind.idOf(payload);
      if (!(await deps.repo.start(id, now()))) return;
      const v = await deps.repo.variationById(id);
      const parent = v && (await deps.repo.parentOf(v));
      if (!v || !parent) return;
      await publishChange(deps, kind.change, parent);
      try {
        const outcome = await spec.run(v, parent, ctx);
        const done = await deps.repo.finish(id, 'completed', outcome, now());
        if (done?.reservationId) await deps.usage.commit(done.reservationId);
        if (done) await announce(done);
      } catch (err) {
        if (err instanceof GenerationError && !err.retryable) return void (await fail(id, err));
        throw err;
      }
    },
    async onFailed(payload, error, ctx) {
      ctx.log.error({ ...payload, err: error.message }, spec.failedLog);
      await fail(kind.idOf(payload), error);
    },
  });
}

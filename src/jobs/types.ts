import type { Static, TSchema } from 'typebox';

/**
 * The job system's public surface. Feature modules declare their jobs with `defineJob` in
 * `<feature>.jobs.ts`, register them on `deps.jobs` (in deps.ts, every process), and enqueue from
 * their services. The same contract holds on both drivers: the in-process driver that keeps job
 * rows in the database (local.driver.ts) and BullMQ on Redis (bullmq.driver.ts).
 *
 *   // assets.jobs.ts
 *   export const ProcessAsset = { name: 'assets.process', payload: Type.Object({ assetId: Type.String() }) };
 *   export const assetJobs = (deps: { db: Database; storage: ObjectStorage }) => [
 *     defineJob({ ...ProcessAsset, queue: 'media', timeoutMs: 300_000,
 *       handler: async ({ assetId }, ctx) => { ... pending -> processing -> complete ... },
 *       onFailed: async ({ assetId }, err) => { ... mark the asset failed ... } }),
 *   ];
 *   // deps.ts registers every module's jobs and schedules from the `modules` list (FeatureModule)
 *   // assets.service.ts: await deps.jobs.enqueue(ProcessAsset, { assetId }, { jobId: assetId });
 */

/** The subset of a pino logger the job system writes to (a pino logger satisfies it). */
export interface JobLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): JobLogger;
}

export interface JobContext {
  /** The id `enqueue` returned (the caller's `jobId` when one was given). */
  jobId: string;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  maxAttempts: number;
  /**
   * Aborted when the attempt times out (reason: JobTimeoutError) or the process is stopping and
   * the grace period is over (reason: JobInterruptedError). Pass it to fetch, ffmpeg, sharp...
   * A handler that ignores it is abandoned: its attempt still counts as failed on timeout.
   */
  signal: AbortSignal;
  log: JobLogger;
}

export interface JobDefinition<S extends TSchema = TSchema> {
  /** Dotted lower-case name, `<feature>.<verb>`: `assets.process`, `brand-dna.extract`. */
  name: string;
  /** TypeBox schema of the payload; checked at enqueue (throws) and again before each run. */
  payload: S;
  /** Queue the job runs on; workers can be started per queue. Default `default`. */
  queue?: string;
  /** Runs before the job is marked failed. Default 3. */
  attempts?: number;
  /** Base of the exponential backoff between attempts: base, 2×base, 4×base... Default 2000. */
  backoffMs?: number;
  /** Bound on one attempt; past it the signal aborts and the attempt counts as failed. Default 120000. */
  timeoutMs?: number;
  /**
   * The work. Must be idempotent: a job can run more than once (a retry after a failure the
   * handler did not see through, a worker that died mid-run). Records progress on the feature's
   * own resource row: its first step moves the resource from `pending` to `processing`.
   */
  handler(payload: Static<S>, ctx: JobContext): Promise<void>;
  /**
   * Called once the last attempt has failed (or the payload no longer validates: no retries
   * then, and the hook is skipped because the payload cannot be trusted). The owning feature
   * marks its resource `failed` and releases what it reserved. Must be idempotent: after a crash
   * at the wrong moment it can be called again. Its own errors are logged, never retried.
   */
  onFailed?(payload: Static<S>, error: Error, ctx: { jobId: string; log: JobLogger }): Promise<void>;
}

/** Type-checks a definition; payload types flow from the schema into the handler. */
export function defineJob<S extends TSchema>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

/** Something that names a job and its payload schema: a definition, or a handler-less reference. */
export interface JobRef<S extends TSchema = TSchema> {
  name: string;
  payload: S;
}

export interface EnqueueOptions {
  /**
   * Dedupe key and id of the job: enqueueing the same id again while the first job is known
   * (queued, running, or finished and not yet pruned) does nothing and returns the same id.
   * Letters, digits, `.`, `_`, `-`, `@` only (BullMQ forbids `:`), not all digits, <= 200 chars.
   * Use the resource id: `${assetId}` or `assets.process.${assetId}`.
   */
  jobId?: string;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
}

export interface ScheduleOptions {
  /** Period. At most one run per period across every process sharing the database or Redis. */
  everyMs: number;
  /** Identity of the schedule (default: the job name); give one to schedule a job twice. */
  key?: string;
}

export interface StartOptions {
  /** Queues this process consumes; default every queue with a registered job. */
  queues?: string[];
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface JobInfo {
  id: string;
  name: string;
  queue: string;
  status: JobStatus;
  lastError?: string;
}

/** How one attempt ended: done, failed for good (it was the last), or failed with a retry to come. */
export type AttemptOutcome = 'completed' | 'failed' | 'retried';

/** The queue and name of a job, as the observer is told them. */
export interface JobLabels {
  queue: string;
  job: string;
}

/**
 * What the drivers report while jobs run, for metrics (src/jobs/job-metrics.ts makes one on
 * prom-client). Called synchronously from the drivers; it must not throw or block.
 */
export interface JobObserver {
  /** An attempt ran in this process and ended; `seconds` is the handler's time. */
  attemptEnded(e: JobLabels & { outcome: AttemptOutcome; seconds: number }): void;
  /**
   * A job failed for good without an attempt of its own ending here: its payload no longer
   * validates, or the workers running it kept dying (its last attempt's lease expired).
   */
  failedOutside(e: JobLabels): void;
  /** A running job was taken over after its lease lapsed: its worker died or froze. */
  stalled(e: JobLabels): void;
}

/** One queue as a metrics scrape sees it (JobSystem.queueStats). */
export interface QueueStats {
  queue: string;
  /** Jobs waiting for a worker, due now or later (delayed, or waiting out a retry's backoff). */
  depth: number;
  /** Seconds the longest-waiting job that is due has been waiting for a worker; 0 when none is due. */
  oldestWaitSeconds: number;
}

export interface JobSystem {
  readonly driver: 'local' | 'bullmq';
  /** Adds jobs to the registry. Every process registers every job (API nodes need the schemas). */
  register(...defs: JobDefinition[]): void;
  /** Validates and stores the job; returns its id. Throws UnknownJobError / JobPayloadError. */
  enqueue<S extends TSchema>(job: JobRef<S>, payload: Static<S>, opts?: EnqueueOptions): Promise<string>;
  enqueue(name: string, payload: unknown, opts?: EnqueueOptions): Promise<string>;
  /** Runs the job every period (cleanups, timeouts). Idempotent; call it at start in every process. */
  schedule(name: string, payload: unknown, opts: ScheduleOptions): Promise<void>;
  /** Starts consuming. Throws JobDefinitionError for a queue without jobs or a second start. */
  startWorkers(opts?: StartOptions): Promise<void>;
  /** Where a job is; undefined when unknown or already pruned. For operators and tests. */
  get(jobId: string): Promise<JobInfo | undefined>;
  /**
   * Depth and wait of every queue with a registered job, read from the database or Redis at the
   * call (a metrics scrape). Works in every process, with or without started workers.
   */
  queueStats(): Promise<QueueStats[]>;
  /**
   * Graceful stop: no new claims, waits for running jobs up to the grace bound, then aborts the
   * rest and hands them back to the queue (see docs/decisions/jobs.md, Jobs). Idempotent.
   */
  stop(): Promise<void>;
}

export interface JobSystemOptions {
  logger?: JobLogger;
  /** Jobs run at once per queue in this process (ATELIER_WORKER_CONCURRENCY). Default 2. */
  concurrency?: number;
  /** Per-queue overrides of `concurrency`. */
  queueConcurrency?: Record<string, number>;
  /**
   * How long a running job is owned without a heartbeat (local: lease; BullMQ: lock duration and
   * stalled-check interval). A crashed worker's jobs run again after about this long. Default 30000.
   */
  leaseMs?: number;
  /** How long `stop()` waits for running jobs before interrupting them. Default 10000. */
  stopGraceMs?: number;
  /** How long finished jobs are kept (dedupe, inspection). Defaults: 1 day completed, 7 days failed. */
  retention?: { completedMs: number; failedMs: number };
  /** Told about attempts, failures and stalls (metrics). Default: nobody. */
  observer?: JobObserver;
  /**
   * Level of the one line a completed job logs: `info` (default: production logs) or `debug` (a
   * person at a terminal, where successes stay quiet like successful requests).
   */
  successLogLevel?: 'info' | 'debug';
  /** How long `enqueue` waits for the queue's store before it throws QueueUnavailableError. Default 5000. */
  enqueueTimeoutMs?: number;
}

export class UnknownJobError extends Error {
  constructor(name: string, known: string[]) {
    super(`no job named "${name}" is registered (registered: ${known.length ? known.join(', ') : 'none'})`);
    this.name = 'UnknownJobError';
  }
}

export class JobPayloadError extends Error {
  readonly fields: { field: string; message: string }[];

  constructor(jobName: string, fields: { field: string; message: string }[]) {
    super(`invalid payload for job "${jobName}": ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`);
    this.fields = fields;
    this.name = 'JobPayloadError';
  }
}

/** A definition, registration, start or enqueue option that cannot work: a programming error. */
export class JobDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobDefinitionError';
  }
}

export class JobTimeoutError extends Error {
  constructor(jobName: string, timeoutMs: number) {
    super(`job "${jobName}" did not finish within ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}

export class JobInterruptedError extends Error {
  constructor() {
    super('the worker is stopping; the job goes back to the queue');
    this.name = 'JobInterruptedError';
  }
}

/**
 * The queue's store (Redis) did not take the job in time or refused it: the caller undoes what it
 * wrote and answers 503 with `Retry-After` (http/error-handler.ts); a row it keeps is re-enqueued
 * by its module's sweep.
 */
export class QueueUnavailableError extends Error {
  /** Seconds after which a retry is worth it. */
  readonly retryAfterSeconds = 5;

  constructor(queue: string, cause: string) {
    super(`the job queue "${queue}" cannot be reached (${cause})`);
    this.name = 'QueueUnavailableError';
  }
}

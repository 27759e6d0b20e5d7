import { randomUUID } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { describeValidation, makeAjv } from '../adapters/validation/json-schema.ts';
import { createJobReports, noopObserver } from './attempt-report.ts';
import {
  type EnqueueOptions,
  type JobContext,
  type JobDefinition,
  JobDefinitionError,
  type JobLogger,
  JobPayloadError,
  type JobRef,
  type JobSystemOptions,
  JobTimeoutError,
  type ScheduleOptions,
  UnknownJobError,
} from './types.ts';

/**
 * Name -> definition, shared by both drivers: registration rules, payload validation, the
 * per-attempt timeout, and the pure rules (ids, backoff) both drivers follow.
 */

const DEFAULT_QUEUE = 'default';
const NAME_RE = /^[a-z][a-z0-9]*(?:[.-][a-z0-9]+)*$/;
const QUEUE_RE = /^[a-z][a-z0-9-]{0,62}$/;
const ID_RE = /^[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,199}$/;

/** A definition with every default filled in, as the drivers use it. */
export interface Registered extends Required<Omit<JobDefinition, 'onFailed'>>, Pick<JobDefinition, 'onFailed'> {
  validate: ValidateFunction;
}

export interface JobRegistry {
  /** Adds definitions; JobDefinitionError once sealed. */
  register(defs: JobDefinition[]): void;
  /** Ends registration: the drivers seal the registry when their workers start. */
  seal(): void;
  /** The definition, or UnknownJobError. */
  require(name: string): Registered;
  find(name: string): Registered | undefined;
  names(): string[];
  /** Names registered on one queue. */
  namesOn(queue: string): string[];
  /** Queues with at least one registered job. */
  queues(): string[];
  /** The queues to consume: all registered ones, or the given ones after checking each has jobs. */
  queuesToStart(requested: string[] | undefined): string[];
  /** JSON round-trip then schema check; what passes is exactly what the handler will receive. */
  payload(def: Registered, value: unknown): unknown;
  /**
   * Resolves a name or reference and validates an enqueue call's arguments; `id` is the caller's
   * jobId or a new UUID, `delay` 0 when none was asked for.
   */
  prepareEnqueue(
    job: string | JobRef,
    payload: unknown,
    opts: EnqueueOptions,
  ): { def: Registered; data: unknown; id: string; delay: number };
  /** Validates a schedule call's arguments; `key` defaults to the job name. */
  prepareSchedule(
    name: string,
    payload: unknown,
    opts: ScheduleOptions,
  ): { def: Registered; key: string; data: unknown };
}

export function createJobRegistry(): JobRegistry {
  const ajv = makeAjv(false);
  const defs = new Map<string, Registered>();
  let sealed = false;

  const registry: JobRegistry = {
    register(list) {
      if (sealed) throw new JobDefinitionError('register every job before starting the workers');
      for (const def of list) {
        if (!NAME_RE.test(def.name)) {
          throw new JobDefinitionError(`job name "${def.name}" must be dotted lower-case words (assets.process)`);
        }
        if (defs.has(def.name)) throw new JobDefinitionError(`job "${def.name}" is registered twice`);
        const queue = def.queue ?? DEFAULT_QUEUE;
        if (!QUEUE_RE.test(queue)) {
          throw new JobDefinitionError(`job "${def.name}": queue "${queue}" must be lower-case letters, digits, -`);
        }
        const resolved = {
          name: def.name,
          payload: def.payload,
          queue,
          attempts: def.attempts ?? 3,
          backoffMs: def.backoffMs ?? 2000,
          timeoutMs: def.timeoutMs ?? 120_000,
          handler: def.handler,
          onFailed: def.onFailed,
        };
        wholeIn(def.name, 'attempts', resolved.attempts, 1, 100);
        wholeIn(def.name, 'backoffMs', resolved.backoffMs, 0, 86_400_000);
        wholeIn(def.name, 'timeoutMs', resolved.timeoutMs, 1, 86_400_000);
        let validate: ValidateFunction;
        try {
          validate = ajv.compile(def.payload);
        } catch (err) {
          throw new JobDefinitionError(`job "${def.name}": payload schema does not compile: ${(err as Error).message}`);
        }
        defs.set(def.name, { ...resolved, validate });
      }
    },
    seal() {
      sealed = true;
    },
    require(name) {
      const def = defs.get(name);
      if (!def) throw new UnknownJobError(name, [...defs.keys()]);
      return def;
    },
    find: (name) => defs.get(name),
    names: () => [...defs.keys()],
    namesOn: (queue) => [...defs.values()].filter((d) => d.queue === queue).map((d) => d.name),
    queues: () => [...new Set([...defs.values()].map((d) => d.queue))],
    queuesToStart(requested) {
      const known = registry.queues();
      if (requested === undefined) return known;
      for (const q of requested) {
        if (!known.includes(q)) {
          throw new JobDefinitionError(
            `cannot start workers for queue "${q}": no job is registered on it (queues with jobs: ${known.join(', ') || 'none'})`,
          );
        }
      }
      return [...new Set(requested)];
    },
    payload(def, value) {
      let data: unknown;
      try {
        data = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
      } catch (err) {
        throw new JobPayloadError(def.name, [{ field: 'payload', message: `is not JSON: ${(err as Error).message}` }]);
      }
      if (!def.validate(data))
        throw new JobPayloadError(def.name, describeValidation(def.validate.errors ?? [], 'payload'));
      return data;
    },
    prepareEnqueue(job, payload, opts) {
      const def = registry.require(typeof job === 'string' ? job : job.name);
      if (opts.jobId !== undefined) checkId('jobId', opts.jobId);
      const data = registry.payload(def, payload);
      const delay = checkDelay(opts.delayMs);
      return { def, data, id: opts.jobId ?? randomUUID(), delay };
    },
    prepareSchedule(name, payload, opts) {
      const def = registry.require(name);
      checkSchedule(opts.everyMs);
      const key = opts.key ?? name;
      checkId('schedule key', key);
      return { def, key, data: registry.payload(def, payload) };
    },
  };
  return registry;
}

/** The options both drivers read the same way, with their defaults. */
export function driverSettings(o: JobSystemOptions) {
  return {
    log: o.logger ?? noopLogger,
    leaseMs: o.leaseMs ?? 30_000,
    graceMs: o.stopGraceMs ?? 10_000,
    retention: o.retention ?? { completedMs: 86_400_000, failedMs: 7 * 86_400_000 },
    concurrency: (queue: string) => o.queueConcurrency?.[queue] ?? o.concurrency ?? 2,
    reports: createJobReports({ observer: o.observer ?? noopObserver, successLevel: o.successLogLevel ?? 'info' }),
  };
}

function wholeIn(job: string, field: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new JobDefinitionError(`job "${job}": ${field} must be a whole number in ${min}..${max}, got ${v}`);
  }
}

/** Ids and schedule keys that both drivers accept (BullMQ rejects `:` and all-digit ids). */
export function checkId(what: string, id: string): void {
  if (!ID_RE.test(id) || /^\d+$/.test(id)) {
    throw new JobDefinitionError(
      `${what} "${id}" must be 1..200 letters, digits, '.', '_', '-', '@', not start with '.', and not be all digits`,
    );
  }
}

function checkSchedule(everyMs: number): void {
  if (!Number.isInteger(everyMs) || everyMs < 10) {
    throw new JobDefinitionError(`schedule everyMs must be a whole number >= 10, got ${everyMs}`);
  }
}

function checkDelay(delayMs: number | undefined): number {
  if (delayMs === undefined) return 0;
  if (!Number.isInteger(delayMs) || delayMs < 0) {
    throw new JobDefinitionError(`delayMs must be a whole number >= 0, got ${delayMs}`);
  }
  return delayMs;
}

/** Wait before attempt `failedAttempt + 1`: base, 2×base, 4×base... (BullMQ's `exponential`). */
export function backoffDelay(failedAttempt: number, baseMs: number): number {
  return Math.round(2 ** (failedAttempt - 1) * baseMs);
}

/**
 * Runs one attempt with its timeout. `stopSignal` aborts it from outside (the worker stopping).
 * Resolves or rejects as soon as the attempt ends, the timeout passes or the stop signal fires,
 * whichever is first; a handler that ignores its signal is left behind.
 */
export async function runAttempt(
  def: Registered,
  payload: unknown,
  ctx: Omit<JobContext, 'signal'>,
  stopSignal: AbortSignal,
): Promise<void> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onStop = () => ac.abort(stopSignal.reason);
  const ended = new Promise<never>((_, reject) => {
    ac.signal.addEventListener('abort', () => reject(ac.signal.reason), { once: true });
    timer = setTimeout(() => ac.abort(new JobTimeoutError(def.name, def.timeoutMs)), def.timeoutMs);
    if (stopSignal.aborted) onStop();
    else stopSignal.addEventListener('abort', onStop, { once: true });
  });
  try {
    await Promise.race([def.handler(payload as never, { ...ctx, signal: ac.signal }), ended]);
  } finally {
    clearTimeout(timer);
    stopSignal.removeEventListener('abort', onStop);
  }
}

/** Calls the owner's failure hook, bounded by the job's timeout; its errors are logged, never thrown. */
export async function callOnFailed(
  def: Registered,
  payload: unknown,
  error: Error,
  ctx: { jobId: string; log: JobLogger },
): Promise<void> {
  const { onFailed } = def;
  if (!onFailed) return;
  const hook = Promise.resolve()
    .then(() => onFailed(payload as never, error, ctx))
    .catch((err) => ctx.log.error({ err }, 'onFailed hook threw'));
  if (!(await within(hook, def.timeoutMs)))
    ctx.log.error({}, `onFailed hook did not finish within ${def.timeoutMs} ms`);
}

const noop = () => {};
export const noopLogger: JobLogger = { debug: noop, info: noop, warn: noop, error: noop, child: () => noopLogger };

export const errorOf = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** Whether the promise settled (either way) within `ms`. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let bound: NodeJS.Timeout | undefined;
  const settled = p.then(
    () => true,
    () => true,
  );
  const timedOut = new Promise<boolean>((r) => {
    bound = setTimeout(() => r(false), ms);
  });
  const result = await Promise.race([settled, timedOut]);
  clearTimeout(bound);
  return result;
}

import type { FastifyPluginAsync } from 'fastify';
import type { JobDefinition } from '../jobs/types.ts';
import type { PendingKind } from './generation/pending-sweep.ts';

/** A job run on a timer: put in place by `startWorkers` (deps.ts) in every process that consumes. */
export interface ModuleSchedule {
  name: string;
  payload: unknown;
  everyMs: number;
}

/**
 * What every feature's `<feature>.module.ts` returns (ARCHITECTURE.md "A module"): the wiring
 * (deps.ts) keeps the modules in one ordered list, registers every module's jobs, schedules and
 * waiting work from it, and app.ts registers their routes under `/v1` in the list's order (the
 * OpenAPI document's order, hence the SDK's types and the agent tools'), then their root routes.
 * A module adds what its callers read (its service, its repo...) as further members.
 */
export interface FeatureModule {
  /** The feature (its folder under src/modules). */
  readonly name: string;
  /** Its job definitions; every process registers them (payloads are checked at enqueue). */
  readonly jobs?: readonly JobDefinition[];
  /** Its timers (maintenance sweeps and purges). */
  readonly schedules?: readonly ModuleSchedule[];
  /** Its generation work that may wait for a job (the pending sweep's, src/modules/generation). */
  readonly pending?: readonly PendingKind[];
  /** Its API routes, a plugin registered under `/v1`. */
  readonly routes?: FastifyPluginAsync;
  /** Its routes outside the API (the console's sign-in API and pages), registered at the root after `/v1`. */
  readonly rootRoutes?: FastifyPluginAsync;
}

/** A module's value, checked against the contract and keeping the types of its further members. */
export function defineModule<M extends FeatureModule>(module: M): M {
  return module;
}

/**
 * The local engines, the image analysis and the signing of generated files run on the engine
 * thread pool (ENGINE_THREADS), so a forge's cut-outs, compositing, scoring, painting and Content
 * Credentials do not hold the event loop that answers HTTP. Each wrapper speaks its engine's port: the request goes over without its AbortSignal
 * (aborting it ends the task's thread instead), the result comes back with Buffers, and a
 * failure is thrown again as what it was (a GenerationError keeps its `retryable`).
 */
import type { signWith } from '../../adapters/provenance/provenance.ts';
import { asBuffers, type ThreadPool } from '../../adapters/workers/thread-pool.ts';
import type { EnvironmentEngine } from '../../engines/environment/environment-engine.ts';
import { GenerationError, type SceneEngine } from '../../engines/image/scene-engine.ts';
import type { VideoEngine } from '../../engines/video/video-engine.ts';
import type { EngineTask, TaskOutcome } from './engine-tasks.ts';
import type { analyzePng } from './scoring.ts';

/** The pool of engine threads, its worker file fixed. */
export const ENGINE_WORKER = new URL('./engine-worker.mjs', import.meta.url);

async function run<T>(pool: ThreadPool, task: EngineTask, payload: unknown, signal?: AbortSignal): Promise<T> {
  const outcome = await pool.run<TaskOutcome<T>>(task, payload, signal);
  if (outcome.ok) return asBuffers(outcome.value);
  const { message, retryable, generation } = outcome.error;
  throw generation ? new GenerationError(message, retryable) : new Error(message);
}

/** A request without what cannot cross a thread boundary (its AbortSignal). */
function withoutSignal<R extends { signal?: AbortSignal }>(request: R): Omit<R, 'signal'> {
  const { signal: _signal, ...rest } = request;
  return rest;
}

export function pooledSceneEngine(pool: ThreadPool, longSide: number): SceneEngine {
  return {
    name: 'local',
    generate: (request) => run(pool, 'scene', { longSide, request: withoutSignal(request) }, request.signal),
  };
}

export function pooledEnvironmentEngine(pool: ThreadPool): EnvironmentEngine {
  return {
    name: 'local',
    generate: (request) => run(pool, 'environment', { request: withoutSignal(request) }, request.signal),
  };
}

export function pooledVideoEngine(pool: ThreadPool): VideoEngine {
  return {
    name: 'local',
    generate: (request) => run(pool, 'video', { request: withoutSignal(request) }, request.signal),
  };
}

export type Analyze = typeof analyzePng;

export const pooledAnalyze =
  (pool: ThreadPool): Analyze =>
  (png, options) =>
    run(pool, 'analyze', { png, options });

/** Content Credentials signed on the engine threads (c2pa-rs hashes whole files: ~30 ms a 1024 px PNG). */
export const pooledSigning =
  (pool: ThreadPool): typeof signWith =>
  (creds, bytes, facts) =>
    run(pool, 'sign', { creds, bytes, facts });

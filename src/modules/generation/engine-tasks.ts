/**
 * What the engine worker threads run (./engine-worker.mjs): the local engines, the image
 * analysis and the signing of generated files (Content Credentials), each made once per thread (a thread keeps its cut-out cache). A task's failure comes
 * back as a value, so a GenerationError keeps its class and `retryable` across the thread
 * boundary (./pooled-engines.ts throws it again).
 */
import type { SigningCredentials } from '../../adapters/provenance/credentials.ts';
import { type SigningFacts, signWith } from '../../adapters/provenance/provenance.ts';
import { asBuffers } from '../../adapters/workers/thread-pool.ts';
import type { EnvironmentRequest } from '../../engines/environment/environment-engine.ts';
import { createLocalEnvironmentEngine } from '../../engines/environment/local/local-environment-engine.ts';
import { createLocalSceneEngine } from '../../engines/image/local/local-scene-engine.ts';
import { GenerationError, type SceneEngine, type SceneRequest } from '../../engines/image/scene-engine.ts';
import { createLocalVideoEngine } from '../../engines/video/local/local-video-engine.ts';
import type { VideoRequest } from '../../engines/video/video-engine.ts';
import { analyzePng } from './scoring.ts';

export type TaskOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; error: { message: string; retryable: boolean; generation: boolean } };

const scenes = new Map<number, SceneEngine>();
/** One instance of each engine per thread, made on first use. */
const once = <T>(make: () => T) => {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
};
const environment = once(createLocalEnvironmentEngine);
const video = once(createLocalVideoEngine);

function sceneEngine(longSide: number): SceneEngine {
  const known = scenes.get(longSide);
  if (known) return known;
  const engine = createLocalSceneEngine({ longSide });
  scenes.set(longSide, engine);
  return engine;
}

export const ENGINE_TASKS = {
  scene: (p: { longSide: number; request: SceneRequest }) => sceneEngine(p.longSide).generate(p.request),
  environment: (p: { request: EnvironmentRequest }) => environment().generate(p.request),
  video: (p: { request: VideoRequest }) => video().generate(p.request),
  analyze: (p: { png: Buffer; options: Parameters<typeof analyzePng>[1] }) => analyzePng(p.png, p.options),
  sign: (p: { creds: SigningCredentials; bytes: Buffer; facts: SigningFacts }) => signWith(p.creds, p.bytes, p.facts),
} as const;

export type EngineTask = keyof typeof ENGINE_TASKS;

export async function runTask(task: EngineTask, payload: unknown): Promise<TaskOutcome<unknown>> {
  const fn = ENGINE_TASKS[task] as (p: unknown) => Promise<unknown>;
  if (!fn) return { ok: false, error: { message: `unknown engine task ${task}`, retryable: false, generation: false } };
  try {
    return { ok: true, value: await fn(asBuffers(payload)) };
  } catch (err) {
    const generation = err instanceof GenerationError;
    return {
      ok: false,
      error: {
        message: err instanceof Error ? err.message : String(err),
        retryable: generation ? err.retryable : true,
        generation,
      },
    };
  }
}

import { createFetcher } from '../../adapters/fetch/fetcher.ts';
import type { EnvironmentEngine } from '../../engines/environment/environment-engine.ts';
import { createLocalEnvironmentEngine } from '../../engines/environment/local/local-environment-engine.ts';
import { createSceneEngine, type SceneEngineSettings } from '../../engines/image/index.ts';
import { createLocalSceneEngine } from '../../engines/image/local/local-scene-engine.ts';
import type { InputHost } from '../../engines/image/provider-inputs.ts';
import type { SceneEngine } from '../../engines/image/scene-engine.ts';
import { createSceneEnhancer, createVideoEnhancer, type TextEngineSettings } from '../../engines/text/index.ts';
import type { VideoEnhancer } from '../../engines/text/video-enhancer.ts';
import type { SceneEnhancer } from '../../engines/text/scene-enhancer.ts';
import { createLocalVideoEngine } from '../../engines/video/local/local-video-engine.ts';
import { createVideoEngine, type VideoEngine, type VideoEngineSettings } from '../../engines/video/index.ts';
import type { VideoModelId } from '../videos/video-models.ts';
import type { ThreadPool } from '../../adapters/workers/thread-pool.ts';
import {
  type Analyze,
  pooledAnalyze,
  pooledEnvironmentEngine,
  pooledSceneEngine,
  pooledVideoEngine,
} from './pooled-engines.ts';
import { analyzePng } from './scoring.ts';

/** The engines generation jobs call, chosen once per process from the settings. */
export interface GenerationEngines {
  scene: SceneEngine;
  environment: EnvironmentEngine;
  enhancer: SceneEnhancer;
  /** Image-to-video prompt enhancement (LLM when configured, the local one as fallback). */
  videoEnhancer: VideoEnhancer;
  /** The video engine a model id is mapped to. */
  video(model: VideoModelId): VideoEngine;
  /** Scores and critique features of a generated PNG (./scoring.ts). */
  analyze: Analyze;
}

export interface EngineSettings {
  longSide: number;
  image: SceneEngineSettings;
  /** LLM_*: the OpenAI-compatible chat endpoint for prompt enhancement, with the local enhancer as fallback. */
  llm: TextEngineSettings;
  /** VIDEO_*: the video engine and the models it renders; the other models use the local engine. */
  video: { engine: VideoEngineSettings; models: readonly VideoModelId[] };
}

/**
 * `local` engines unless the settings name a provider (IMAGE_ENGINE..., LLM_...). Provider and LLM
 * endpoints are the operator's, so their adapters build their own fetchers (private addresses
 * allowed for the API, public-only for downloads from other origins). `inputHost` gives providers
 * that take images by URL short-lived links to them (./provider-inputs.ts).
 */
export function createGenerationEngines(
  s: EngineSettings,
  o: {
    logger?: { warn(obj: object, msg?: string): void };
    inputHost?: InputHost | undefined;
    /** ATELIER_ALLOW_PRIVATE_FETCH: provider results may be downloaded from private addresses too (local testing). */
    allowPrivateDownloads?: boolean;
    /** The engine threads (ATELIER_ENGINE_THREADS): the local engines and the analysis run there. */
    pool?: ThreadPool | undefined;
  } = {},
): GenerationEngines {
  const pool = o.pool;
  const local = () => (pool ? pooledSceneEngine(pool, s.longSide) : createLocalSceneEngine({ longSide: s.longSide }));
  const localVideo = pool ? pooledVideoEngine(pool) : createLocalVideoEngine();
  const inputs = {
    ...(o.inputHost ? { inputHost: o.inputHost } : {}),
    ...(o.allowPrivateDownloads ? { downloadFetcher: createFetcher({ allowPrivate: true }) } : {}),
  };
  const video = createVideoEngine(s.video.engine, { local: localVideo, ...inputs });
  const mapped = new Set(s.video.models);
  return {
    video: (model) => (mapped.has(model) ? video : localVideo),
    scene: createSceneEngine(s.image, { local, ...inputs }),
    environment: pool ? pooledEnvironmentEngine(pool) : createLocalEnvironmentEngine(),
    analyze: pool ? pooledAnalyze(pool) : analyzePng,
    enhancer: createSceneEnhancer(s.llm, o.logger ? { logger: o.logger } : {}),
    videoEnhancer: createVideoEnhancer(s.llm, o.logger ? { logger: o.logger } : {}),
  };
}

import type { RegistrySettings } from '../shared/provider-registry.ts';
import { VIDEO_PROVIDERS } from './providers.ts';
import type { VideoEngine } from './video-engine.ts';
import type { VideoEngineDeps } from './video-provider.ts';

export * from './video-engine.ts';
export { type ComfyUiVideoSettings, createComfyUiVideoEngine } from './comfyui/comfyui.ts';
export { conformProviderVideo } from './conform.ts';
export { createFalVideoEngine, type FalVideoSettings } from './fal/fal.ts';
export { createLumaVideoEngine, type LumaSettings } from './luma/luma.ts';
export type { VideoProviderLimits } from './provider-video.ts';
export { createReplicateVideoEngine, type ReplicateVideoSettings } from './replicate/replicate.ts';
export { createRunwayVideoEngine, type RunwaySettings } from './runway/runway.ts';
export { VIDEO_PROVIDERS } from './providers.ts';
export type { VideoEngineDeps } from './video-provider.ts';

/** Which video engine, and that engine's settings (`VIDEO_PROVIDERS.parse(env)` reads them). */
export type VideoEngineSettings = RegistrySettings<typeof VIDEO_PROVIDERS>;

/**
 * The video engine chosen by `settings.provider` (./providers.ts). As for the scene engine: API
 * calls go through a fetcher that may reach private addresses (the operator configured the
 * endpoint); result videos on another origin (CDNs) through a public-only fetcher, without
 * credentials (withDefaultFetchers, ../image/provider-http.ts).
 */
export function createVideoEngine(settings: VideoEngineSettings, deps: VideoEngineDeps = {}): VideoEngine {
  return VIDEO_PROVIDERS.create(settings, deps);
}

import { ConfigError, type Env, ifSet, jsonObject, providerApiEnv, str, url } from '../shared/env-settings.ts';
import type { LocalEngineDeps, Provider } from '../shared/provider-registry.ts';
import { type ProviderDeps, withDefaultFetchers } from '../image/provider-http.ts';
import type { VideoEngine } from './video-engine.ts';

/**
 * What the video engine's factory is given; each provider takes what it needs. `local` is the
 * local engine (src/engines/video/local: `createLocalVideoEngine()`) or a function making it,
 * passed in so the factory does not pull the renderer in.
 */
export interface VideoEngineDeps extends Partial<ProviderDeps>, LocalEngineDeps<VideoEngine> {}

/** A video engine provider (`VIDEO_ENGINE=<kind>`), listed in ./providers.ts. */
export type VideoProvider<K extends string, S extends object> = Provider<K, S, VideoEngineDeps, VideoEngine>;

/**
 * The VIDEO_* variables the providers share, checked whichever engine is chosen:
 * VIDEO_API_BASE_URL (the provider's API root; defaults per provider), VIDEO_TIMEOUT_SECONDS (the
 * provider part of a generation; default 600, ComfyUI 1800), VIDEO_MAX_RETRIES (extra attempts
 * after 429, 5xx or a network failure; default 2) and COMFYUI_URL (the ComfyUI server).
 */
export function videoApiEnv(env: Env) {
  const { baseUrl, apiKey, limits } = providerApiEnv(env, 'VIDEO', [10, 7200]);
  return { baseUrl, apiKey, comfyUrl: url(env, 'COMFYUI_URL', ['http:', 'https:']), limits };
}

/**
 * A hosted provider (runway, luma, fal, replicate): its settings are the shared ones
 * (hostedVideoSettings), its engine is made with the default fetchers (withDefaultFetchers). Its
 * settings type must take what hostedVideoSettings parses (else `kind` does not type-check).
 */
export function hostedVideoProvider<K extends string, S extends object>(
  kind: HostedVideoSettings extends S ? K : never,
  create: (settings: S, deps: ProviderDeps) => VideoEngine,
): VideoProvider<K, S> {
  return {
    kind,
    parseSettings: (env): S => hostedVideoSettings(env, kind) as HostedVideoSettings & S,
    create: (settings, deps) => create(settings, withDefaultFetchers(deps)),
  };
}

type HostedVideoSettings = ReturnType<typeof hostedVideoSettings>;

/**
 * The settings of a hosted provider (runway, luma, fal, replicate): VIDEO_API_KEY (required;
 * never logged), VIDEO_API_BASE_URL, VIDEO_MODEL, VIDEO_TIMEOUT_SECONDS, VIDEO_MAX_RETRIES,
 * VIDEO_EXTRA_INPUT (a JSON object merged into the provider's input) and VIDEO_END_FRAME_MODEL
 * (the model for videos with an end frame when VIDEO_MODEL takes none; `none` drops end frames).
 */
export function hostedVideoSettings(env: Env, kind: string) {
  const api = videoApiEnv(env);
  if (!api.apiKey) throw new ConfigError('VIDEO_API_KEY', `is required when VIDEO_ENGINE=${kind}`);
  return {
    apiKey: api.apiKey,
    ...ifSet('baseUrl', api.baseUrl),
    ...ifSet('model', str(env, 'VIDEO_MODEL')),
    ...api.limits,
    ...ifSet('extraInput', jsonObject(env, 'VIDEO_EXTRA_INPUT')),
    ...ifSet('endFrameModel', str(env, 'VIDEO_END_FRAME_MODEL')),
  };
}

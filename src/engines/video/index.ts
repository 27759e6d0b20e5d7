import { createFetcher } from '../../adapters/fetch/fetcher.ts';
import type { ProviderDeps } from '../image/provider-http.ts';
import { type ComfyUiVideoSettings, createComfyUiVideoEngine } from './providers/comfyui.ts';
import { createFalVideoEngine, type FalVideoSettings } from './providers/fal.ts';
import { createLumaVideoEngine, type LumaSettings } from './providers/luma.ts';
import { createReplicateVideoEngine, type ReplicateVideoSettings } from './providers/replicate.ts';
import { createRunwayVideoEngine, type RunwaySettings } from './providers/runway.ts';
import type { VideoEngine } from './video-engine.ts';

export * from './video-engine.ts';
export { type ComfyUiVideoSettings, createComfyUiVideoEngine } from './providers/comfyui.ts';
export { conformProviderVideo } from './providers/conform.ts';
export { createFalVideoEngine, type FalVideoSettings } from './providers/fal.ts';
export { createLumaVideoEngine, type LumaSettings } from './providers/luma.ts';
export type { VideoProviderLimits } from './providers/provider-video.ts';
export { createReplicateVideoEngine, type ReplicateVideoSettings } from './providers/replicate.ts';
export { createRunwayVideoEngine, type RunwaySettings } from './providers/runway.ts';

export const VIDEO_ENGINES = ['local', 'runway', 'luma', 'fal', 'replicate', 'comfyui'] as const;
export type VideoEngineKind = (typeof VIDEO_ENGINES)[number];

/** Which video engine, and that engine's settings. */
export type VideoEngineSettings =
  | { provider: 'local' }
  | ({ provider: 'runway' } & RunwaySettings)
  | ({ provider: 'luma' } & LumaSettings)
  | ({ provider: 'fal' } & FalVideoSettings)
  | ({ provider: 'replicate' } & ReplicateVideoSettings)
  | ({ provider: 'comfyui' } & ComfyUiVideoSettings);

export interface VideoEngineDeps extends Partial<ProviderDeps> {
  /**
   * The local engine (src/engines/video/local: `createLocalVideoEngine()`), or a function making
   * it. Required for `local`; passed in so this factory does not pull the renderer in.
   */
  local?: VideoEngine | (() => VideoEngine);
}

/**
 * The video engine chosen by `settings.provider`. As for the scene engine: API calls go through a
 * fetcher that may reach private addresses (the operator configured the endpoint); result videos
 * on another origin (CDNs) through a public-only fetcher, without credentials.
 */
export function createVideoEngine(settings: VideoEngineSettings, deps: VideoEngineDeps = {}): VideoEngine {
  if (settings.provider === 'local') {
    if (!deps.local) throw new Error('createVideoEngine: the local engine must be passed as deps.local');
    return typeof deps.local === 'function' ? deps.local() : deps.local;
  }
  const providerDeps: ProviderDeps = {
    fetcher: deps.fetcher ?? createFetcher({ allowPrivate: true }),
    downloadFetcher: deps.downloadFetcher ?? createFetcher(),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.inputHost ? { inputHost: deps.inputHost } : {}),
  };
  const { provider, ...rest } = settings;
  switch (provider) {
    case 'runway':
      return createRunwayVideoEngine(rest as RunwaySettings, providerDeps);
    case 'luma':
      return createLumaVideoEngine(rest as LumaSettings, providerDeps);
    case 'fal':
      return createFalVideoEngine(rest as FalVideoSettings, providerDeps);
    case 'replicate':
      return createReplicateVideoEngine(rest as ReplicateVideoSettings, providerDeps);
    case 'comfyui':
      return createComfyUiVideoEngine(rest as ComfyUiVideoSettings, providerDeps);
    default:
      throw new Error(`createVideoEngine: unknown video engine "${String(provider)}"`);
  }
}

/**
 * The video engine's configuration as environment variables give it (proposed for src/config.ts;
 * parse there, then `toVideoEngineSettings`).
 */
export interface VideoEngineConfig {
  /** VIDEO_ENGINE: `local` (default; offline ffmpeg, no key) | `runway` | `luma` | `fal` | `replicate` | `comfyui` (self-hosted). */
  engine: VideoEngineKind;
  /**
   * VIDEO_API_BASE_URL: the provider's API root. Defaults: runway `https://api.dev.runwayml.com`,
   * luma `https://api.lumalabs.ai/dream-machine/v1`, fal `https://queue.fal.run`, replicate
   * `https://api.replicate.com`.
   */
  baseUrl?: string;
  /** VIDEO_API_KEY: required for every provider (Bearer; `Key` for fal). Never logged. */
  apiKey?: string;
  /**
   * VIDEO_MODEL: runway `gen4_turbo`; luma `ray-2`; fal the endpoint id, default
   * `fal-ai/kling-video/v2.1/standard/image-to-video`; replicate `owner/name[:version]`, default
   * `kwaivgi/kling-v2.1`.
   */
  model?: string;
  /** VIDEO_TIMEOUT_SECONDS: the provider part of a generation (calls, queue, polls, download). Default 600. */
  timeoutSeconds?: number;
  /** VIDEO_MAX_RETRIES: extra attempts after 429, 5xx or a network failure. Default 2. */
  maxRetries?: number;
  /** VIDEO_EXTRA_INPUT: a JSON object merged into the provider's request body / model input. */
  extraInput?: Record<string, unknown> | string;
  /**
   * VIDEO_END_FRAME_MODEL: the provider's model for requests with an end frame when VIDEO_MODEL
   * takes none (each provider has a default where its family has one; see its adapter). `none`:
   * the end frame is dropped with an END_FRAME_UNSUPPORTED warning.
   */
  endFrameModel?: string;
  /** COMFYUI_URL (comfyui): the ComfyUI server. Default `http://127.0.0.1:8188` (VIDEO_API_BASE_URL also works). */
  comfyUrl?: string;
  /**
   * COMFYUI_VIDEO_WORKFLOW_FILE (comfyui): the API-format image-to-video workflow with
   * `{{placeholders}}` (src/engines/video/providers/comfyui.ts). Default: the shipped
   * config/comfyui/image-to-video.json (Wan 2.2 TI2V 5B).
   */
  comfyVideoWorkflowFile?: string;
}

/** Turns the flat configuration into VideoEngineSettings; throws an Error naming the variable at fault. */
export function toVideoEngineSettings(c: VideoEngineConfig): VideoEngineSettings {
  if (!(VIDEO_ENGINES as readonly string[]).includes(c.engine)) {
    throw new Error(`VIDEO_ENGINE must be one of ${VIDEO_ENGINES.join(', ')}`);
  }
  if (c.engine === 'local') return { provider: 'local' };
  // ComfyUI is self-hosted: VIDEO_API_KEY only for a proxy in front of it.
  if (!c.apiKey && c.engine !== 'comfyui') throw new Error(`VIDEO_API_KEY is required when VIDEO_ENGINE=${c.engine}`);
  if (c.baseUrl !== undefined && c.baseUrl !== '') {
    if (!URL.canParse(c.baseUrl) || !/^https?:$/.test(new URL(c.baseUrl).protocol)) {
      throw new Error('VIDEO_API_BASE_URL must be an http(s) URL');
    }
  }
  if (c.timeoutSeconds !== undefined && !(c.timeoutSeconds > 0)) {
    throw new Error('VIDEO_TIMEOUT_SECONDS must be a positive number');
  }
  if (c.maxRetries !== undefined && !(Number.isInteger(c.maxRetries) && c.maxRetries >= 0)) {
    throw new Error('VIDEO_MAX_RETRIES must be a whole number ≥ 0');
  }
  if (c.engine === 'comfyui') {
    const base = c.comfyUrl || c.baseUrl;
    return {
      provider: 'comfyui',
      ...(c.apiKey ? { apiKey: c.apiKey } : {}),
      ...(base ? { baseUrl: base } : {}),
      ...(c.comfyVideoWorkflowFile ? { workflow: c.comfyVideoWorkflowFile } : {}),
      ...(c.timeoutSeconds !== undefined ? { timeoutMs: Math.round(c.timeoutSeconds * 1000) } : {}),
      ...(c.maxRetries !== undefined ? { maxRetries: c.maxRetries } : {}),
    };
  }
  const extra = parseExtra(c.extraInput);
  return {
    provider: c.engine,
    apiKey: c.apiKey,
    ...(c.baseUrl ? { baseUrl: c.baseUrl } : {}),
    ...(c.model ? { model: c.model } : {}),
    ...(c.timeoutSeconds !== undefined ? { timeoutMs: Math.round(c.timeoutSeconds * 1000) } : {}),
    ...(c.maxRetries !== undefined ? { maxRetries: c.maxRetries } : {}),
    ...(extra ? { extraInput: extra } : {}),
    ...(c.endFrameModel ? { endFrameModel: c.endFrameModel } : {}),
  };
}

function parseExtra(v: VideoEngineConfig['extraInput']): Record<string, unknown> | undefined {
  if (v === undefined || v === '') return undefined;
  let o: unknown = v;
  if (typeof v === 'string') {
    try {
      o = JSON.parse(v);
    } catch {
      throw new Error('VIDEO_EXTRA_INPUT must be a JSON object');
    }
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('VIDEO_EXTRA_INPUT must be a JSON object');
  return o as Record<string, unknown>;
}

import { ConfigError, type Env, jsonObject, providerApiEnv, str, url } from '../shared/env-settings.ts';
import type { LocalEngineDeps, Provider } from '../shared/provider-registry.ts';
import type { ProviderDeps } from './provider-http.ts';
import type { SceneEngine } from './scene-engine.ts';

/**
 * What the scene engine's factory is given; each provider takes what it needs. `local` is the
 * local engine (src/engines/image/local: `createLocalSceneEngine()`) or a function making it,
 * passed in rather than imported so the factory does not pull the compositor in for deployments
 * that use a provider.
 */
export interface SceneEngineDeps extends Partial<ProviderDeps>, LocalEngineDeps<SceneEngine> {}

/** A scene engine provider (`IMAGE_ENGINE=<kind>`), listed in ./providers.ts. */
export type SceneProvider<K extends string, S extends object> = Provider<K, S, SceneEngineDeps, SceneEngine>;

/**
 * The IMAGE_* variables the providers share, checked whichever engine is chosen:
 * IMAGE_API_BASE_URL (the provider's API root; defaults per provider), IMAGE_API_KEY (never
 * logged), IMAGE_MODEL, IMAGE_TIMEOUT_SECONDS (the whole generation; default per provider),
 * IMAGE_MAX_RETRIES (extra attempts after 429, 5xx or a network failure; default 2),
 * COMFYUI_URL (the ComfyUI server) and IMAGE_EXTRA_INPUT (a JSON object merged into the model
 * input or request).
 */
export function imageApiEnv(env: Env) {
  const { baseUrl, apiKey, limits } = providerApiEnv(env, 'IMAGE', [5, 3600]);
  const comfyUrl = url(env, 'COMFYUI_URL', ['http:', 'https:']);
  const extraInput = jsonObject(env, 'IMAGE_EXTRA_INPUT');
  return { baseUrl, apiKey, model: str(env, 'IMAGE_MODEL'), comfyUrl, extraInput, limits };
}

/** IMAGE_API_KEY, required by `kind`. */
export function requiredImageKey(env: Env, kind: string): string {
  const key = str(env, 'IMAGE_API_KEY');
  if (!key) throw new ConfigError('IMAGE_API_KEY', `is required when IMAGE_ENGINE=${kind}`);
  return key;
}

/** An optional variable naming one of `allowed` for `kind` (IMAGE_SIZE_INPUT...). */
export function imageChoice<T extends string>(env: Env, name: string, kind: string, allowed: readonly T[]) {
  const v = str(env, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} for IMAGE_ENGINE=${kind}`);
  }
  return v as T;
}

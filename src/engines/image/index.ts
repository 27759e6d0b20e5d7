import { createFetcher } from '../../adapters/fetch/fetcher.ts';
import { SCENE_TEMPLATE } from './comfyui/comfy-client.ts';
import { type ComfyUiSettings, createComfyUiSceneEngine } from './comfyui/comfyui-engine.ts';
import { createFalSceneEngine, type FalSettings } from './fal/fal-engine.ts';
import { withProductFidelity } from './fidelity.ts';
import { createOpenAiImagesSceneEngine, type OpenAiImagesSettings } from './openai-images/openai-images-engine.ts';
import type { ProviderDeps } from './provider-http.ts';
import { createReplicateSceneEngine, type ReplicateSettings } from './replicate/replicate-engine.ts';
import type { SceneEngine } from './scene-engine.ts';

export * from './scene-engine.ts';
export { type ComfyUiSettings, type ComfyWorkflow, createComfyUiSceneEngine } from './comfyui/comfyui-engine.ts';
export { createFalSceneEngine, type FalSettings } from './fal/fal-engine.ts';
export {
  createOpenAiImagesSceneEngine,
  GPT_IMAGE_SIZES,
  type OpenAiImagesSettings,
} from './openai-images/openai-images-engine.ts';
export { ContentPolicyError, type ProviderDeps, type ProviderLimits, type Sleep } from './provider-http.ts';
export { createReplicateSceneEngine, type ReplicateSettings } from './replicate/replicate-engine.ts';

export const IMAGE_ENGINES = ['local', 'openai-images', 'fal', 'replicate', 'comfyui'] as const;
export type ImageEngineKind = (typeof IMAGE_ENGINES)[number];

/** Which scene engine, and that engine's settings. */
export type SceneEngineSettings =
  | { provider: 'local' }
  | ({ provider: 'openai-images' } & OpenAiImagesSettings)
  | ({ provider: 'fal' } & FalSettings)
  | ({ provider: 'replicate' } & ReplicateSettings)
  | ({ provider: 'comfyui' } & ComfyUiSettings);

export interface SceneEngineDeps extends Partial<ProviderDeps> {
  /**
   * The local engine (src/engines/image/local: `createLocalSceneEngine()`), or a function making
   * it. Required for `local`; it is passed in rather than imported so this factory does not pull
   * the compositor in for deployments that use a provider.
   */
  local?: SceneEngine | (() => SceneEngine);
}

/**
 * The scene engine chosen by `settings.provider`.
 *
 * Fetchers: provider endpoints are configured by the operator, not sent by clients, so by default
 * API calls go through a fetcher that may reach private addresses (a ComfyUI or an
 * OpenAI-compatible server on the same network is common); result images a provider links to on
 * another origin (CDNs) are downloaded through a public-only fetcher, without credentials. Every
 * other bound of the one fetcher (time, size, redirects, schemes) applies to both.
 *
 * Every provider engine comes wrapped in `withProductFidelity` (./fidelity.ts): each generation
 * is checked for the real product, whose box and mask are then reported, and a drifted product is
 * replaced by the real one, composited (results say so: `engine` suffixed `+fidelity`, warnings).
 * The engine keeps the provider's name (`openai-images:<model>`...), a stable identifier. `local`
 * is not wrapped (it composites the real product itself).
 */
export function createSceneEngine(settings: SceneEngineSettings, deps: SceneEngineDeps = {}): SceneEngine {
  if (settings.provider === 'local') {
    if (!deps.local) throw new Error('createSceneEngine: the local engine must be passed as deps.local');
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
  const engine = (() => {
    switch (provider) {
      case 'openai-images':
        return createOpenAiImagesSceneEngine(rest as OpenAiImagesSettings, providerDeps);
      case 'fal':
        return createFalSceneEngine(rest as FalSettings, providerDeps);
      case 'replicate':
        return createReplicateSceneEngine(rest as ReplicateSettings, providerDeps);
      case 'comfyui':
        return createComfyUiSceneEngine(rest as ComfyUiSettings, providerDeps);
      default:
        throw new Error(`createSceneEngine: unknown image engine "${String(provider)}"`);
    }
  })();
  return withProductFidelity(engine, { name: engine.name });
}

/**
 * The image engine's configuration as environment variables give it (proposed for src/config.ts;
 * parse there, then `toSceneEngineSettings`). Unset members take the defaults below.
 */
export interface ImageEngineConfig {
  /** IMAGE_ENGINE: `local` (default; offline compositing, no key) | `openai-images` | `fal` | `replicate` | `comfyui`. */
  engine: ImageEngineKind;
  /**
   * IMAGE_API_BASE_URL: the provider's API root. Defaults: openai-images `https://api.openai.com/v1`
   * (any OpenAI-compatible Images API root works), fal `https://queue.fal.run`, replicate
   * `https://api.replicate.com`. Not used by comfyui (COMFYUI_URL).
   */
  baseUrl?: string;
  /** IMAGE_API_KEY: the provider's key (Bearer for openai-images and replicate, `Key` for fal; optional Bearer for comfyui behind a proxy). Required for fal and replicate. Never logged. */
  apiKey?: string;
  /**
   * IMAGE_MODEL: openai-images `gpt-image-1` (default); fal the endpoint id, default
   * `fal-ai/flux-pro/kontext`; replicate `owner/name`, `owner/name:version` or a version id,
   * default `black-forest-labs/flux-kontext-pro`.
   */
  model?: string;
  /** IMAGE_TIMEOUT_SECONDS: the whole generation (calls, queue, polls, download). Default 180 (comfyui 300). */
  timeoutSeconds?: number;
  /** IMAGE_MAX_RETRIES: extra attempts after 429, 5xx or a network failure. Default 2. */
  maxRetries?: number;
  /** IMAGE_SIZES (openai-images): comma-separated `WxH` sizes the model accepts. Default `1024x1024,1536x1024,1024x1536`. */
  sizes?: string[];
  /** IMAGE_QUALITY (openai-images): `low` | `medium` | `high` | `auto` (dall-e-3: `standard` | `hd`). Unset: not sent. */
  quality?: string;
  /**
   * IMAGE_INPUT_FIELD (fal, replicate): where the product image goes. fal: `image_url` (default)
   * | `image_urls` | `none`; replicate: the input member name, default `input_image`, `none` for none.
   */
  inputField?: string;
  /** IMAGE_SIZE_INPUT (fal, replicate): `aspect_ratio` (default) | `image_size` (fal) | `width_height` (replicate) | `none`. */
  sizeInput?: string;
  /** IMAGE_EXTRA_INPUT: a JSON object merged into the model input (fal, replicate) or request (openai-images). */
  extraInput?: Record<string, unknown> | string;
  /** COMFYUI_URL: the ComfyUI server. Default `http://127.0.0.1:8188`. */
  comfyUrl?: string;
  /**
   * COMFYUI_WORKFLOW_FILE: the API-format workflow JSON with `{{placeholders}}` (see comfyui-engine.ts).
   * Default: the shipped config/comfyui/product-in-scene.json (SDXL inpainting around the real product).
   */
  comfyWorkflowFile?: string;
  /** COMFYUI_OUTPUT_NODE: the node id whose image is the result. Default: the first SaveImage output. */
  comfyOutputNode?: string;
}

/** Turns the flat configuration into SceneEngineSettings; throws an Error naming the variable at fault. */
export function toSceneEngineSettings(c: ImageEngineConfig): SceneEngineSettings {
  const limits = {
    ...(c.timeoutSeconds !== undefined ? { timeoutMs: Math.round(c.timeoutSeconds * 1000) } : {}),
    ...(c.maxRetries !== undefined ? { maxRetries: c.maxRetries } : {}),
  };
  const opt = <K extends string, V>(k: K, v: V | undefined) =>
    v === undefined || v === '' ? {} : ({ [k]: v } as Record<K, V>);
  const extra = parseExtra(c.extraInput);
  const needKey = () => {
    if (!c.apiKey) throw new Error(`IMAGE_API_KEY is required when IMAGE_ENGINE=${c.engine}`);
    return c.apiKey;
  };
  const oneOf = <T extends string>(name: string, v: string | undefined, allowed: readonly T[]): T | undefined => {
    if (v === undefined || v === '') return undefined;
    if (!(allowed as readonly string[]).includes(v))
      throw new Error(`${name} must be one of ${allowed.join(', ')} for IMAGE_ENGINE=${c.engine}`);
    return v as T;
  };
  switch (c.engine) {
    case 'local':
      return { provider: 'local' };
    case 'openai-images':
      return {
        provider: 'openai-images',
        ...opt('baseUrl', c.baseUrl),
        ...opt('apiKey', c.apiKey),
        ...opt('model', c.model),
        ...opt('sizes', c.sizes?.length ? c.sizes : undefined),
        ...opt('quality', c.quality),
        ...opt('extraParams', extra),
        ...limits,
      };
    case 'fal':
      return {
        provider: 'fal',
        apiKey: needKey(),
        ...opt('baseUrl', c.baseUrl),
        ...opt('model', c.model),
        ...opt('imageInput', oneOf('IMAGE_INPUT_FIELD', c.inputField, ['image_url', 'image_urls', 'none'] as const)),
        ...opt('sizeInput', oneOf('IMAGE_SIZE_INPUT', c.sizeInput, ['aspect_ratio', 'image_size', 'none'] as const)),
        ...opt('extraInput', extra),
        ...limits,
      };
    case 'replicate':
      return {
        provider: 'replicate',
        apiKey: needKey(),
        ...opt('baseUrl', c.baseUrl),
        ...opt('model', c.model),
        ...(c.inputField ? { imageInput: c.inputField === 'none' ? null : c.inputField } : {}),
        ...opt('sizeInput', oneOf('IMAGE_SIZE_INPUT', c.sizeInput, ['aspect_ratio', 'width_height', 'none'] as const)),
        ...opt('extraInput', extra),
        ...limits,
      };
    case 'comfyui':
      return {
        provider: 'comfyui',
        // Default: the shipped product-in-scene template (config/comfyui/product-in-scene.json).
        workflow: c.comfyWorkflowFile || SCENE_TEMPLATE,
        ...opt('baseUrl', c.comfyUrl),
        ...opt('apiKey', c.apiKey),
        ...opt('outputNode', c.comfyOutputNode),
        ...limits,
      };
    default:
      throw new Error(`IMAGE_ENGINE must be one of ${IMAGE_ENGINES.join(', ')}`);
  }
}

function parseExtra(v: ImageEngineConfig['extraInput']): Record<string, unknown> | undefined {
  if (v === undefined || v === '') return undefined;
  let o: unknown = v;
  if (typeof v === 'string') {
    try {
      o = JSON.parse(v);
    } catch {
      throw new Error('IMAGE_EXTRA_INPUT must be a JSON object');
    }
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('IMAGE_EXTRA_INPUT must be a JSON object');
  return o as Record<string, unknown>;
}

import { ifSet, str } from '../../shared/env-settings.ts';
import {
  authorization,
  nearestSize,
  parseRatios,
  type ProviderDeps,
  type ProviderLimits,
  providerSceneEngine,
  providerSceneResult,
  providerSessions,
  withDefaultFetchers,
} from '../provider-http.ts';
import { imageInput } from '../provider-inputs.ts';
import { ASPECT_RATIOS, type EngineWarning, type SceneEngine } from '../scene-engine.ts';
import { imageApiEnv, imageChoice, requiredImageKey, type SceneProvider } from '../scene-provider.ts';
import { createPredictions, LABEL, type PredictionSettings, replicateRetry } from './predictions.ts';

/**
 * Scenes by a model on Replicate, through the predictions protocol of ./predictions.ts (create,
 * `Prefer: wait`, poll `urls.get`, cancel on timeout or abort, 429-only retries of the create).
 *
 * The input is built from the model's row in REPLICATE_IMAGE_MODELS (what it takes), else from
 * the settings (unknown models): `{ prompt, seed, output_format: 'png', aspect_ratio | width +
 * height, <imageInput>: the first product, <backdropInput>: the backdrop }`, then `extraInput`.
 * Images go by our short-lived public link when this server has one (deps.inputHost), else
 * through Replicate's Files API (`POST /v1/files`, the file's `urls.get`), never as data URIs.
 * Images the model takes no slot for are not sent (INPUT_NOT_SENT warning). The output (a URL,
 * or an array whose first URL is used) is downloaded without the key (replicate.delivery) and
 * cover-cropped to the requested size.
 */
export interface ReplicateSettings extends ProviderLimits, PredictionSettings {
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** `owner/name`, `owner/name:version` or a 64-hex version id. Default `black-forest-labs/flux-kontext-pro`. */
  model?: string;
  /** Input member for the first product image. Default: the model's (`input_image`); `null`: no image sent. */
  imageInput?: string | null;
  /** Input member for the backdrop image; unset: the model's (none for the known ones). */
  backdropInput?: string;
  /** How the size is asked: `aspect_ratio`, `width_height` (`width`, `height`) or `none`. Default: the model's (`aspect_ratio`). */
  sizeInput?: 'aspect_ratio' | 'width_height' | 'none';
  /** Ratios the model accepts for `aspect_ratio`; the nearest is sent. Default: the model's, else the scene forge's. */
  aspectRatios?: string[];
  /**
   * Extra input members sent as-is (e.g. `safety_tolerance`, `prompt_upsampling`). A known
   * model's bounds still apply (flux-kontext-pro: `safety_tolerance` at most 2 with an input image).
   */
  extraInput?: Record<string, unknown>;
  /** First wait between polls. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 5 s. */
  maxPollIntervalMs?: number;
}

/** What one Replicate image model takes (its API page's input schema). */
export interface ReplicateImageModel {
  /** Input member of the first product image; null: none. */
  imageInput: string | null;
  /** Input member of the backdrop; undefined: none. */
  backdropInput?: string;
  sizeInput: 'aspect_ratio' | 'width_height' | 'none';
  /** `aspect_ratio` values. */
  aspectRatios: readonly string[];
  /** The model takes `seed`. */
  seed: boolean;
  /** The highest `safety_tolerance` allowed when an input image is sent. */
  maxSafetyWithImage?: number;
}

/**
 * Known models. black-forest-labs/flux-kontext-pro (replicate.com/black-forest-labs/flux-kontext-pro/
 * versions/0a138193…/api): prompt; input_image ("jpeg, png, gif, or webp"); aspect_ratio (enum
 * below, default match_input_image); seed; output_format jpg | png; safety_tolerance 0..6, "2 is
 * currently the maximum allowed when input images are used"; prompt_upsampling. Output: one URI string.
 */
export const REPLICATE_IMAGE_MODELS: Readonly<Record<string, ReplicateImageModel>> = {
  'black-forest-labs/flux-kontext-pro': {
    imageInput: 'input_image',
    sizeInput: 'aspect_ratio',
    aspectRatios: ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21', '2:1', '1:2'],
    seed: true,
    maxSafetyWithImage: 2,
  },
};

/** An unknown model: what the settings say, else these. */
const UNKNOWN_MODEL: ReplicateImageModel = {
  imageInput: 'input_image',
  sizeInput: 'aspect_ratio',
  aspectRatios: ASPECT_RATIOS,
  seed: true,
};

export function createReplicateSceneEngine(settings: ReplicateSettings, deps: ProviderDeps): SceneEngine {
  const api = createPredictions(settings, deps);
  const target = api.model(settings.model ?? 'black-forest-labs/flux-kontext-pro');
  const known = target.key ? REPLICATE_IMAGE_MODELS[target.key] : undefined;
  const caps: ReplicateImageModel = {
    ...(known ?? UNKNOWN_MODEL),
    ...(settings.imageInput !== undefined ? { imageInput: settings.imageInput } : {}),
    ...(settings.backdropInput ? { backdropInput: settings.backdropInput } : {}),
    ...(settings.sizeInput ? { sizeInput: settings.sizeInput } : {}),
    ...(settings.aspectRatios ? { aspectRatios: settings.aspectRatios } : {}),
  };
  const name = `replicate:${target.model}`;
  const ratios = parseRatios(caps.aspectRatios, 'replicate');
  const session = providerSessions(settings, deps, {
    label: LABEL,
    apiOrigin: api.baseUrl,
    headers: authorization('Bearer', settings.apiKey),
    defaultTimeoutMs: 180_000,
    retry: replicateRetry,
  });

  return providerSceneEngine(name, session, async (req, s) => {
    const warnings: EngineWarning[] = [];
    const route = api.inputRoute(s);
    const input: Record<string, unknown> = { prompt: req.prompt };
    if (caps.seed) input.seed = req.seed;
    input.output_format = 'png';
    if (caps.sizeInput === 'aspect_ratio') input.aspect_ratio = nearestSize(ratios, req.width, req.height).text;
    else if (caps.sizeInput === 'width_height') Object.assign(input, { width: req.width, height: req.height });

    const first = req.products[0];
    if (caps.imageInput && first) {
      input[caps.imageInput] = await imageInput(first.bytes, 'product image 1', route, warnings);
    }
    if (caps.backdropInput && req.backdrop) {
      input[caps.backdropInput] = await imageInput(req.backdrop, 'backdrop image', route, warnings);
    }
    const slots = caps.imageInput ? 1 : 0;
    const dropped = [
      ...(req.products.length > slots ? [`${req.products.length - slots} product image(s)`] : []),
      ...(req.backdrop && !caps.backdropInput ? ['the backdrop'] : []),
    ];
    if (dropped.length > 0) {
      warnings.push({
        code: 'INPUT_NOT_SENT',
        severity: 'warning',
        message: `The Replicate model's settings take no more images: ${dropped.join(' and ')} not sent`,
      });
    }
    Object.assign(input, settings.extraInput);

    const cap = caps.maxSafetyWithImage;
    const tolerance = input.safety_tolerance;
    const withImage = !!(caps.imageInput && first) || !!(caps.backdropInput && req.backdrop);
    if (cap !== undefined && withImage && typeof tolerance === 'number' && tolerance > cap) {
      input.safety_tolerance = cap;
      warnings.push({
        code: 'INPUT_NOT_SENT',
        severity: 'warning',
        message: `safety_tolerance ${tolerance} not sent: ${target.model} allows at most ${cap} with an input image; ${cap} was sent`,
      });
    }

    const url = await api.run(s, target, input, {
      signal: req.signal,
      intervals: { intervalMs: settings.pollIntervalMs ?? 1000, maxIntervalMs: settings.maxPollIntervalMs ?? 5000 },
      output: 'image',
    });
    const image = await s.downloadImage(url);
    return providerSceneResult(req, image, name, warnings);
  });
}

/**
 * IMAGE_ENGINE=replicate: IMAGE_API_KEY (required, Bearer), IMAGE_API_BASE_URL (default
 * `https://api.replicate.com`), IMAGE_MODEL (`owner/name`, `owner/name:version` or a version id,
 * default `black-forest-labs/flux-kontext-pro`), IMAGE_INPUT_FIELD (the input member of the
 * product image, default `input_image`; `none`: no image), IMAGE_SIZE_INPUT (`aspect_ratio`
 * default, `width_height`, `none`), IMAGE_EXTRA_INPUT, IMAGE_TIMEOUT_SECONDS, IMAGE_MAX_RETRIES.
 */
export const replicateSceneProvider: SceneProvider<'replicate', ReplicateSettings> = {
  kind: 'replicate',
  parseSettings(env) {
    const api = imageApiEnv(env);
    const inputField = str(env, 'IMAGE_INPUT_FIELD');
    return {
      apiKey: requiredImageKey(env, 'replicate'),
      ...ifSet('baseUrl', api.baseUrl),
      ...ifSet('model', api.model),
      ...(inputField ? { imageInput: inputField === 'none' ? null : inputField } : {}),
      ...ifSet(
        'sizeInput',
        imageChoice(env, 'IMAGE_SIZE_INPUT', 'replicate', ['aspect_ratio', 'width_height', 'none'] as const),
      ),
      ...ifSet('extraInput', api.extraInput),
      ...api.limits,
    };
  },
  create: (settings, deps) => createReplicateSceneEngine(settings, withDefaultFetchers(deps)),
};

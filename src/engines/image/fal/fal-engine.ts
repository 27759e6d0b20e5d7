import { ifSet } from '../../shared/env-settings.ts';
import {
  nearestSize,
  parseRatios,
  type ProviderDeps,
  providerSceneResult,
  withDefaultFetchers,
} from '../provider-http.ts';
import { imageApiEnv, imageChoice, requiredImageKey, type SceneProvider } from '../scene-provider.ts';
import {
  ASPECT_RATIOS,
  type EngineWarning,
  GenerationError,
  type SceneEngine,
  type SceneRequest,
  type SceneResult,
} from '../scene-engine.ts';
import { createFalQueue, FAL_LABEL, type FalQueueSettings, falEndpointId } from './fal-queue.ts';

/**
 * Scenes by a fal.ai model through fal's queue (./fal-queue.ts: submit, status polls, result,
 * cancel on timeout or abort, input images by our link or fal storage, never data URIs).
 *
 * What each known model takes comes from the table below (fal-js libs/client/src/types/endpoints.ts);
 * other models take the settings' `imageInput` / `sizeInput`. The default,
 * `fal-ai/flux-pro/kontext`, requires one `image_url`: a request without any image (no product,
 * no backdrop) goes to the family's `…/kontext/text-to-image`; several images go as the first one
 * (the others are named in an INPUT_NOT_SENT warning: `…/kontext/multi` takes `image_urls`).
 * The result is `images[0].url` (fal's CDN: downloaded without the key), checked and cropped.
 */
export interface FalSettings extends FalQueueSettings {
  /** Model endpoint id. Default `fal-ai/flux-pro/kontext` (prompt + one reference image). */
  model?: string;
  /**
   * Where the input images go, for models not in the table: `image_url` (the first product, else
   * the backdrop; default), `image_urls` (every product, then the backdrop) or `none` (text only).
   * For a model in the table only `none` may be given (its own member is used otherwise).
   */
  imageInput?: 'image_url' | 'image_urls' | 'none';
  /**
   * How the size is asked, for models not in the table: `aspect_ratio` ("16:9", default),
   * `image_size` ({ width, height }) or `none`. For a model in the table only `none` may be given.
   */
  sizeInput?: 'aspect_ratio' | 'image_size' | 'none';
  /** Ratios the model accepts for `aspect_ratio`; the nearest is sent. Default: the model's (table), else the scene forge's. */
  aspectRatios?: string[];
  /**
   * Extra input members sent as-is (e.g. `guidance_scale`). Kontext's `safety_tolerance` is a
   * string "1".."6": a number 1..6 is sent as that string.
   */
  extraInput?: Record<string, unknown>;
}

/** What a model takes (fal-js libs/client/src/types/endpoints.ts @381105e). */
interface FalImageModel {
  /** The member input images go in. */
  images: 'image_url' | 'image_urls' | 'none';
  /** The model fails without an input image. */
  imageRequired: boolean;
  /** The family's prompt-only model (for a request without images). */
  textModel?: string;
  /** The family's several-images model (named in the warning when images are left out). */
  multiModel?: string;
  size: 'aspect_ratio' | 'image_size' | 'none';
  aspectRatios: readonly string[];
  /** `safety_tolerance` is the string enum "1".."6". */
  stringSafetyTolerance: boolean;
}

/** FluxKontextInput.aspect_ratio (endpoints.ts:14137-14146). */
const KONTEXT_RATIOS = ['21:9', '16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16', '9:21'] as const;

/**
 * Kontext pro and max: `…/kontext` FluxKontextInput, `image_url` required (endpoints.ts:14133-14185,
 * 70852-70853); `…/multi` FluxKontextMultiInput, `image_urls` (14186-14238, 70854, 70859);
 * `…/text-to-image` FluxProKontextTextToImageInput, no image (14792-14836, 70857). All take
 * prompt, seed, num_images, output_format jpeg|png, aspect_ratio and safety_tolerance "1".."6".
 */
function kontextFamily(base: string): Record<string, FalImageModel> {
  const common = {
    textModel: `${base}/text-to-image`,
    multiModel: `${base}/multi`,
    size: 'aspect_ratio',
    aspectRatios: KONTEXT_RATIOS,
    stringSafetyTolerance: true,
  } as const;
  return {
    [base]: { ...common, images: 'image_url', imageRequired: true },
    [`${base}/multi`]: { ...common, images: 'image_urls', imageRequired: true },
    [`${base}/text-to-image`]: { ...common, images: 'none', imageRequired: false },
  };
}

export const FAL_IMAGE_MODELS: Readonly<Record<string, FalImageModel>> = {
  ...kontextFamily('fal-ai/flux-pro/kontext'),
  ...kontextFamily('fal-ai/flux-pro/kontext/max'),
};

const DEFAULT_MODEL = 'fal-ai/flux-pro/kontext';

interface Output {
  images?: { url?: unknown }[];
  image?: { url?: unknown };
  has_nsfw_concepts?: unknown;
}

export function createFalSceneEngine(settings: FalSettings, deps: ProviderDeps): SceneEngine {
  const model = falEndpointId(settings.model ?? DEFAULT_MODEL);
  const name = `fal:${model}`;
  const known = FAL_IMAGE_MODELS[model];
  const capsOf = (id: string): FalImageModel =>
    FAL_IMAGE_MODELS[id] ?? {
      images: settings.imageInput ?? 'image_url',
      imageRequired: false,
      size: settings.sizeInput ?? 'aspect_ratio',
      aspectRatios: ASPECT_RATIOS,
      stringSafetyTolerance: false,
    };
  if (known) {
    if (settings.imageInput && settings.imageInput !== 'none' && settings.imageInput !== known.images) {
      throw new Error(
        `fal: ${model} takes its input image as ${known.images}, not ${settings.imageInput}${known.multiModel && settings.imageInput === 'image_urls' ? ` (for several images use ${known.multiModel})` : ''}`,
      );
    }
    if (settings.sizeInput && settings.sizeInput !== 'none' && settings.sizeInput !== known.size) {
      throw new Error(`fal: ${model} takes the size as ${known.size}, not ${settings.sizeInput}`);
    }
  }
  const sendImages = settings.imageInput !== 'none';
  const sendSize = settings.sizeInput !== 'none';
  const extra = extraInput(settings.extraInput, capsOf(model).stringSafetyTolerance, model);
  const ratiosOf = (caps: FalImageModel) => parseRatios(settings.aspectRatios ?? caps.aspectRatios, 'fal');
  ratiosOf(capsOf(model)); // a bad aspectRatios setting stops the engine's creation
  const queue = createFalQueue(settings, deps, {
    defaultTimeoutMs: 180_000,
    poll: { intervalMs: 1000, maxIntervalMs: 5000 },
  });

  return {
    name,
    async generate(req: SceneRequest): Promise<SceneResult> {
      const warnings: EngineWarning[] = [];
      const images = [
        ...req.products.map((p, i) => ({ bytes: p.bytes, what: `product image ${i + 1}` })),
        ...(req.backdrop ? [{ bytes: req.backdrop, what: 'backdrop image' }] : []),
      ];
      if (!sendImages && images.length > 0) {
        warnings.push(notSent('imageInput is none: the product and backdrop images were not sent'));
      }
      const sending = sendImages ? images : [];

      // A model that requires an image gets a prompt-only request through its family's text model.
      let endpoint = model;
      let caps = capsOf(model);
      if (sending.length === 0 && caps.imageRequired) {
        if (!caps.textModel) {
          throw new GenerationError(
            `${FAL_LABEL}'s ${model} needs an input image: give a product or a backdrop, or set a text-to-image model`,
            false,
          );
        }
        endpoint = caps.textModel;
        caps = capsOf(endpoint);
      }

      const input: Record<string, unknown> = {
        prompt: req.prompt,
        seed: req.seed,
        num_images: 1,
        output_format: 'png',
      };
      if (sendSize && caps.size === 'aspect_ratio') {
        input.aspect_ratio = nearestSize(ratiosOf(caps), req.width, req.height).text;
      } else if (sendSize && caps.size === 'image_size') {
        input.image_size = { width: req.width, height: req.height };
      }

      const fs = queue.session(req.signal);
      if (caps.images === 'image_url' && sending[0]) {
        input.image_url = await fs.input(sending[0].bytes, sending[0].what, warnings);
        const left = sending.slice(1);
        if (left.length > 0) {
          const what = left.map((i) => i.what).join(', ');
          warnings.push(
            notSent(
              `${endpoint} takes one input image: ${what} not sent${caps.multiModel ? ` (${caps.multiModel} takes several)` : ''}`,
            ),
          );
        }
      } else if (caps.images === 'image_urls' && sending.length > 0) {
        const urls: string[] = [];
        for (const i of sending) urls.push(await fs.input(i.bytes, i.what, warnings));
        input.image_urls = urls;
      }
      Object.assign(input, extra);

      const out = await fs.run<Output>(endpoint, input);
      const s = fs.http;
      const nsfw = out?.has_nsfw_concepts;
      if (Array.isArray(nsfw) && nsfw[0] === true) {
        throw s.failed(
          { code: 'content_policy_violation', message: 'the safety checker flagged the image as NSFW' },
          '',
        );
      }
      const url = Array.isArray(out?.images) ? out.images[0]?.url : out?.image?.url;
      if (typeof url !== 'string' || !url)
        throw s.fail(`${FAL_LABEL} finished the job without an image (no images[0].url)`, true);
      const image = await s.downloadImage(url);
      return providerSceneResult(req, image, `fal:${endpoint}`, warnings);
    },
  };
}

/** The settings' extra input, `safety_tolerance` as the string the model's enum takes (a bad one stops the engine's creation). */
function extraInput(extra: Record<string, unknown> | undefined, stringTolerance: boolean, model: string) {
  if (!extra || !stringTolerance || extra.safety_tolerance === undefined) return extra ?? {};
  const v = extra.safety_tolerance;
  const s = typeof v === 'number' && Number.isInteger(v) ? String(v) : v;
  if (typeof s !== 'string' || !/^[1-6]$/.test(s)) {
    throw new Error(
      `fal: ${model} takes safety_tolerance as "1" to "6" (1 is the strictest), not ${JSON.stringify(v)}`,
    );
  }
  return { ...extra, safety_tolerance: s };
}

const notSent = (message: string): EngineWarning => ({ code: 'INPUT_NOT_SENT', severity: 'warning', message });

/**
 * IMAGE_ENGINE=fal: IMAGE_API_KEY (required, sent as `Key`), IMAGE_API_BASE_URL (default
 * `https://queue.fal.run`), IMAGE_MODEL (the endpoint id, default `fal-ai/flux-pro/kontext`),
 * IMAGE_INPUT_FIELD (`image_url` default, `image_urls`, `none`), IMAGE_SIZE_INPUT (`aspect_ratio`
 * default, `image_size`, `none`), IMAGE_EXTRA_INPUT, IMAGE_TIMEOUT_SECONDS, IMAGE_MAX_RETRIES.
 */
export const falSceneProvider: SceneProvider<'fal', FalSettings> = {
  kind: 'fal',
  parseSettings(env) {
    const api = imageApiEnv(env);
    return {
      apiKey: requiredImageKey(env, 'fal'),
      ...ifSet('baseUrl', api.baseUrl),
      ...ifSet('model', api.model),
      ...ifSet(
        'imageInput',
        imageChoice(env, 'IMAGE_INPUT_FIELD', 'fal', ['image_url', 'image_urls', 'none'] as const),
      ),
      ...ifSet(
        'sizeInput',
        imageChoice(env, 'IMAGE_SIZE_INPUT', 'fal', ['aspect_ratio', 'image_size', 'none'] as const),
      ),
      ...ifSet('extraInput', api.extraInput),
      ...api.limits,
    };
  },
  create: (settings, deps) => createFalSceneEngine(settings, withDefaultFetchers(deps)),
};

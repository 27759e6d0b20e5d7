import sharp from 'sharp';
import { ifSet, str } from '../../shared/env-settings.ts';
import {
  authorization,
  encodeMultipart,
  type MultipartField,
  nearestSize,
  parseSize,
  type ProviderDeps,
  type ProviderLimits,
  providerError,
  providerSceneEngine,
  providerSceneResult,
  providerSessions,
  type RetryPolicy,
  stainlessRetry,
  trimBase,
  truncateUtf16,
  withDefaultFetchers,
} from '../provider-http.ts';
import { toPngInput } from '../provider-inputs.ts';
import type { EngineWarning, SceneEngine, SceneRequest } from '../scene-engine.ts';
import { imageApiEnv, type SceneProvider } from '../scene-provider.ts';

/**
 * Scenes by an OpenAI-compatible Images API (OpenAI gpt-image-* and dall-e-*, Azure OpenAI,
 * compatible self-hosted servers). With input images (the products, then the backdrop when there
 * is one) it calls `POST {baseUrl}/images/edits` (multipart/form-data: model, prompt, `image[]`
 * files, size, n=1 and the optional parameters the model takes); with none, or with a model that
 * cannot edit (dall-e-3), `POST {baseUrl}/images/generations` (JSON). The answer's
 * `data[0].b64_json` (or `data[0].url`, downloaded) is checked to be an image, then cover-cropped
 * to exactly the requested width × height: the `size` asked for is the model's size nearest the
 * requested aspect ratio. The Images API has no seed, so results are not reproducible (a warning
 * says so).
 *
 * What each model takes is in `OPENAI_IMAGE_MODELS` (openai-node src/resources/images.ts
 * ImageEditParamsBase 566-692, ImageGenerateParamsBase 719-847). A configured parameter the
 * (known) model does not take stops the engine's creation with a message saying so; a model not
 * in the table (a compatible server's, an Azure deployment name) gets every configured parameter,
 * as before. Two rules hold for every model:
 * - `moderation` is a generations parameter only: it is not sent on edits (openai-node
 *   images.ts:746-751 has it on generations; ImageEditParamsBase has none).
 * - Retries follow the OpenAI SDK (`stainlessRetry`: x-should-retry, then 408/409/429/5xx), except
 *   a 429 whose error code is `insufficient_quota`: that is the account's billing state, not a
 *   rate limit, so it fails at once and is not retryable.
 */
export interface OpenAiImagesSettings extends ProviderLimits {
  /** API root, `/images/...` is appended. Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Default `gpt-image-1`. */
  model?: string;
  /** Sizes to ask for, `WxH`, sent as given. Default: the model's sizes (OPENAI_IMAGE_MODELS). */
  sizes?: string[];
  /** `quality`: gpt-image low, medium, high, auto; dall-e-3 standard, hd, auto; dall-e-2 standard, auto. Not sent when unset. */
  quality?: string;
  /** `background` (GPT image models): transparent, opaque or auto. Not sent when unset. */
  background?: 'transparent' | 'opaque' | 'auto';
  /** `input_fidelity` for edits (gpt-image-1, -1.5, -2; not -1-mini): high keeps the product closer. Not sent when unset. */
  inputFidelity?: 'high' | 'low';
  /** `moderation` (GPT image models, generations only): low or auto. Not sent when unset, never on edits. */
  moderation?: 'low' | 'auto';
  /** `response_format` (dall-e models only; GPT image models always answer base64). Default for dall-e: b64_json. */
  responseFormat?: 'b64_json' | 'url';
  /** Appends to the prompt one sentence saying which input image is the product and which the backdrop. Default true. */
  describeInputs?: boolean;
  /** Longest side of each uploaded input image (downscaled, PNG). Default 1536. */
  maxInputSide?: number;
  /** Extra members sent as-is (JSON members or multipart fields, both endpoints) for compatible servers: not checked. */
  extraParams?: Record<string, unknown>;
  /** Overrides of the model's row in OPENAI_IMAGE_MODELS (or of the default for a model not in it). */
  capabilities?: Partial<OpenAiImageModel>;
}

/** What one model takes (openai-node src/resources/images.ts; cited per member below). */
export interface OpenAiImageModel {
  /** The sizes it makes, `WxH` (images.ts:801-824 generations, 664-677 edits). */
  sizes: readonly string[];
  /**
   * How many images /images/edits takes: up to 16 for the GPT image models, one for dall-e-2,
   * none for dall-e-3, which has no edits (images.ts:567-578, 613-619).
   */
  maxInputs: number;
  /**
   * dall-e-2: the one edit image is "a square `png` file less than 4MB" (images.ts:575-576); we
   * send the first product on a transparent square (the transparent part is what it paints).
   */
  oneSquarePng?: boolean;
  /** `quality` values it takes (images.ts:782-791); undefined: not checked. */
  qualities?: readonly string[];
  /** `response_format` (dall-e only: images.ts:793-799, 656-662). */
  responseFormat: boolean;
  /** `background` (GPT image models only: images.ts:727-736; spec "only supported for the GPT image models"). */
  background: boolean;
  /** `moderation` on generations (GPT image models: images.ts:746-751). */
  moderation: boolean;
  /** `input_fidelity` on edits (gpt-image-1, -1.5 and later, not -1-mini: images.ts:597-603). */
  inputFidelity: boolean;
  /** Longest prompt in characters (images.ts:580-584, 720-725); undefined: not bounded here. */
  maxPromptChars?: number;
}

export const GPT_IMAGE_SIZES = ['1024x1024', '1536x1024', '1024x1536'];
const GPT_IMAGE: OpenAiImageModel = {
  sizes: GPT_IMAGE_SIZES,
  maxInputs: 16,
  qualities: ['low', 'medium', 'high', 'auto'],
  responseFormat: false,
  background: true,
  moderation: true,
  inputFidelity: true,
  maxPromptChars: 32_000,
};

/** The models openai-node names (ImageModel, images.ts:409-417), by what each takes. */
export const OPENAI_IMAGE_MODELS: Readonly<Record<string, OpenAiImageModel>> = {
  'gpt-image-1': GPT_IMAGE,
  'gpt-image-1.5': GPT_IMAGE,
  'gpt-image-2': GPT_IMAGE,
  'gpt-image-2-2026-04-21': GPT_IMAGE,
  'chatgpt-image-latest': GPT_IMAGE,
  'gpt-image-1-mini': { ...GPT_IMAGE, inputFidelity: false },
  'dall-e-3': {
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    maxInputs: 0,
    qualities: ['standard', 'hd', 'auto'],
    responseFormat: true,
    background: false,
    moderation: false,
    inputFidelity: false,
    maxPromptChars: 4000,
  },
  'dall-e-2': {
    sizes: ['256x256', '512x512', '1024x1024'],
    maxInputs: 1,
    oneSquarePng: true,
    qualities: ['standard', 'auto'],
    responseFormat: true,
    background: false,
    moderation: false,
    inputFidelity: false,
    maxPromptChars: 1000,
  },
};

/** A model not in the table (compatible servers, Azure deployments): everything configured is sent. */
export const UNKNOWN_IMAGE_MODEL: OpenAiImageModel = {
  sizes: GPT_IMAGE_SIZES,
  maxInputs: 16,
  responseFormat: true,
  background: true,
  moderation: true,
  inputFidelity: true,
};

const LABEL = 'The OpenAI Images API';
/** dall-e-2's edit image: "less than 4MB" (images.ts:575-576). */
const DALL_E_2_MAX_PNG_BYTES = 4 * 1024 * 1024;

interface ImagesAnswer {
  data?: { b64_json?: unknown; url?: unknown }[];
}

/**
 * The OpenAI SDK's retry policy, less a 429 whose `error.code` (or `type`) is
 * `insufficient_quota`: the account is out of credit, which waiting does not change.
 */
export const openAiImagesRetry: RetryPolicy = (a) =>
  !(a.status === 429 && a.body && isInsufficientQuota(a.body)) && stainlessRetry(a);

function isInsufficientQuota(body: Buffer): boolean {
  try {
    const e = (JSON.parse(body.toString('utf8')) as { error?: { code?: unknown; type?: unknown } }).error;
    return e?.code === 'insufficient_quota' || e?.type === 'insufficient_quota';
  } catch {
    return false;
  }
}

/** Throws when a configured parameter is one the (known) model does not take. */
function checkSettings(model: string, caps: OpenAiImageModel, settings: OpenAiImagesSettings): void {
  const refuse = (what: string) => {
    throw new Error(`openai-images: ${model} ${what}`);
  };
  if (settings.quality !== undefined && caps.qualities && !caps.qualities.includes(settings.quality)) {
    refuse(`takes no quality "${settings.quality}" (IMAGE_QUALITY): it takes ${caps.qualities.join(', ')}`);
  }
  if (settings.responseFormat !== undefined && !caps.responseFormat) {
    refuse('takes no response_format (the GPT image models always answer base64): remove responseFormat');
  }
  if (settings.background !== undefined && !caps.background) {
    refuse('takes no background (GPT image models only): remove background');
  }
  if (settings.moderation !== undefined && !caps.moderation) {
    refuse('takes no moderation (GPT image models only): remove moderation');
  }
  if (settings.inputFidelity !== undefined && !caps.inputFidelity) {
    refuse('takes no input_fidelity (gpt-image-1, gpt-image-1.5 and later only): remove inputFidelity');
  }
}

export function createOpenAiImagesSceneEngine(settings: OpenAiImagesSettings, deps: ProviderDeps): SceneEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.openai.com/v1');
  const model = settings.model ?? 'gpt-image-1';
  const known = Object.hasOwn(OPENAI_IMAGE_MODELS, model);
  const caps: OpenAiImageModel = {
    ...(known ? OPENAI_IMAGE_MODELS[model] : UNKNOWN_IMAGE_MODEL),
    ...settings.capabilities,
  } as OpenAiImageModel;
  checkSettings(model, caps, settings);
  const sizes = (settings.sizes ?? caps.sizes).map((s) => {
    const size = parseSize(s);
    if (!size) throw new Error(`openai-images: "${s}" is not a size like 1024x1536`);
    return { ...size, text: `${size.width}x${size.height}` };
  });
  if (sizes.length === 0) throw new Error('openai-images: no sizes configured');
  // dall-e answers a URL unless asked for base64 (images.ts:119-123): base64 saves a download.
  const responseFormat = settings.responseFormat ?? (known && caps.responseFormat ? 'b64_json' : undefined);
  const name = `openai-images:${model}`;
  const session = providerSessions(settings, deps, {
    label: LABEL,
    apiOrigin: baseUrl,
    headers: authorization('Bearer', settings.apiKey),
    maxJsonBytes: 64 * 1024 * 1024,
    defaultTimeoutMs: 180_000,
    retry: openAiImagesRetry,
  });

  return providerSceneEngine(name, session, async (req, s) => {
    const size = nearestSize(sizes, req.width, req.height);
    const warnings: EngineWarning[] = [
      {
        code: 'SEED_NOT_SUPPORTED',
        severity: 'info',
        message: `${LABEL} takes no seed: the same request can give a different image`,
      },
    ];
    const onHttpError = (status: number, body: Buffer) =>
      status === 429 && isInsufficientQuota(body)
        ? s.fail(
            `${LABEL} refused the request: the account's quota is used up (HTTP 429 insufficient_quota; check the plan and billing)${quotaDetail(body)}`,
            false,
          )
        : undefined;
    const extra = Object.entries(settings.extraParams ?? {});
    const common: [string, string | undefined][] = [
      ['quality', settings.quality],
      ['background', settings.background],
      ['response_format', responseFormat],
    ];
    const prompt = (text: string, note = '') => {
      const max = caps.maxPromptChars;
      if (max === undefined || text.length + note.length <= max) return text + note;
      warnings.push({
        code: 'PROMPT_TRUNCATED',
        severity: 'info',
        message: `${model} takes prompts of at most ${max} characters: the prompt was cut to fit`,
      });
      return truncateUtf16(text, Math.max(0, max - note.length)) + note;
    };

    // What goes to /images/edits (the products, then the backdrop), within what the model takes.
    let products = req.products;
    let backdrop = req.backdrop;
    if (caps.maxInputs === 0 && (products.length > 0 || backdrop)) {
      warnings.push(notSent(`${model} cannot edit images (no /images/edits)`, products.length, !!backdrop));
      products = [];
      backdrop = undefined;
    } else if (caps.oneSquarePng && (products.length > 1 || backdrop)) {
      const extraProducts = Math.max(0, products.length - 1);
      warnings.push(
        notSent(
          products.length > 0
            ? `${model} edits one image (the first product, on a transparent square for it to paint the scene around)`
            : `${model} edits one square image with transparency to paint`,
          products.length > 0 ? extraProducts : 0,
          !!backdrop,
        ),
      );
      products = products.slice(0, 1);
      backdrop = undefined;
    } else {
      const slots = caps.maxInputs - (backdrop ? 1 : 0);
      if (products.length > slots) {
        warnings.push({
          code: 'PRODUCTS_TRUNCATED',
          severity: 'warning',
          message: `${LABEL} takes at most ${caps.maxInputs} images; only the first ${slots} products were sent`,
        });
        products = products.slice(0, Math.max(0, slots));
      }
    }

    let answer: ImagesAnswer;
    if (products.length === 0 && !backdrop) {
      const body: Record<string, unknown> = { model, prompt: prompt(req.prompt), n: 1, size: size.text };
      for (const [k, v] of common) if (v !== undefined) body[k] = v;
      if (settings.moderation !== undefined) body.moderation = settings.moderation;
      for (const [k, v] of extra) body[k] = v;
      answer = (
        await s.json<ImagesAnswer>(`${baseUrl}/images/generations`, {
          json: body,
          what: 'generating the image',
          onHttpError,
        })
      ).json;
    } else {
      const maxSide = settings.maxInputSide ?? 1536;
      const files: [string, MultipartField][] = [];
      let text: string;
      if (caps.oneSquarePng) {
        // dall-e-2: one square PNG under 4 MB, sent as the plain `image` field (what openai-node
        // sends for a single Uploadable: src/internal/uploads.ts:464-470).
        const first = products[0] as SceneRequest['products'][number];
        const png = await squareOnTransparent(
          await toPngInput(first.bytes, 'product image 1', maxSide),
          size,
          req.width / req.height,
        );
        if (!png) throw s.fail(`${LABEL}: the product image does not fit in ${model}'s 4 MB square PNG`, false);
        files.push(['image', { bytes: png, filename: 'product-1.png', contentType: 'image/png' }]);
        text = prompt(req.prompt);
      } else {
        const images: Buffer[] = [];
        for (const [i, p] of products.entries())
          images.push(await toPngInput(p.bytes, `product image ${i + 1}`, maxSide));
        if (backdrop) images.push(await toPngInput(backdrop, 'backdrop image', maxSide));
        // Arrays go as repeated `image[]` fields, as openai-node encodes them (uploads.ts:471-474).
        for (const [i, bytes] of images.entries()) {
          const filename = i < products.length ? `product-${i + 1}.png` : 'backdrop.png';
          files.push(['image[]', { bytes, filename, contentType: 'image/png' }]);
        }
        text =
          settings.describeInputs === false
            ? prompt(req.prompt)
            : prompt(req.prompt, inputNote(products.length, !!backdrop));
      }
      const fields: [string, MultipartField][] = [
        ['model', model],
        ['prompt', text],
        ...files,
        ['size', size.text],
        ['n', '1'],
      ];
      for (const [k, v] of common) if (v !== undefined) fields.push([k, v]);
      if (settings.inputFidelity) fields.push(['input_fidelity', settings.inputFidelity]);
      // `moderation` is not an edits parameter (ImageEditParamsBase, images.ts:566-692): not sent.
      for (const [k, v] of extra) fields.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
      answer = (
        await s.json<ImagesAnswer>(`${baseUrl}/images/edits`, {
          body: await encodeMultipart(fields),
          what: 'editing the images',
          onHttpError,
        })
      ).json;
    }

    const first = Array.isArray(answer?.data) ? answer.data[0] : undefined;
    let image: Buffer;
    if (typeof first?.b64_json === 'string' && first.b64_json) image = await s.decodeBase64Image(first.b64_json);
    else if (typeof first?.url === 'string' && first.url) image = await s.downloadImage(first.url);
    else throw s.fail(`${LABEL} answered without an image (no data[0].b64_json or data[0].url)`, true);
    return providerSceneResult(req, image, name, warnings);
  });
}

function quotaDetail(body: Buffer): string {
  const message = providerError(body).message;
  return message ? `: ${message}` : '';
}

function notSent(why: string, products: number, backdrop: boolean): EngineWarning {
  const what = [
    ...(products > 0 ? [`${products} product image${products > 1 ? 's' : ''}`] : []),
    ...(backdrop ? ['the backdrop'] : []),
  ].join(' and ');
  return { code: 'INPUT_NOT_SENT', severity: 'warning', message: `${why}: ${what} not sent` };
}

/**
 * dall-e-2's one edit image: the product, fitted inside the part of a `size` square that the
 * final crop to `ratio` keeps (80 % of it, centred), on a transparent square whose transparent
 * part is what the model paints. Smaller squares (dall-e-2's other sizes) when the PNG is over
 * 4 MB; undefined when none fits.
 */
async function squareOnTransparent(
  product: Buffer,
  size: { width: number; height: number },
  ratio: number,
): Promise<Buffer | undefined> {
  const largest = Math.min(size.width, size.height);
  const sides = [largest, ...[512, 256].filter((v) => v < largest)];
  for (const side of sides) {
    const keepW = Math.max(1, Math.floor(side * Math.min(1, ratio) * 0.8));
    const keepH = Math.max(1, Math.floor(side * Math.min(1, 1 / ratio) * 0.8));
    const { data, info } = await sharp(product)
      .ensureAlpha()
      .resize({ width: keepW, height: keepH, fit: 'inside' })
      .png()
      .toBuffer({ resolveWithObject: true });
    const png = await sharp({
      create: { width: side, height: side, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        { input: data, left: Math.round((side - info.width) / 2), top: Math.round((side - info.height) / 2) },
      ])
      .png()
      .toBuffer();
    if (png.length < DALL_E_2_MAX_PNG_BYTES) return png;
  }
  return undefined;
}

/** The sentence telling the model which input image is which (appended to the prompt). */
function inputNote(products: number, backdrop: boolean): string {
  if (products === 0) return "\n\nUse the input image as the scene's backdrop.";
  const which =
    products === 1 ? 'The first input image is the product' : `The first ${products} input images are the products`;
  const keep = 'keep it exactly as it is (shape, colours, label and text)';
  return backdrop
    ? `\n\n${which}: ${keep}. The last input image is the backdrop: place the product into that scene.`
    : `\n\n${which}: ${keep}.`;
}

/**
 * IMAGE_ENGINE=openai-images: IMAGE_API_BASE_URL (default `https://api.openai.com/v1`; any
 * OpenAI-compatible Images API root), IMAGE_API_KEY (Bearer), IMAGE_MODEL (default
 * `gpt-image-1`), IMAGE_SIZES (comma-separated `WxH` sizes the model accepts), IMAGE_QUALITY
 * (`low`, `medium`, `high`, `auto`; dall-e-3 `standard`, `hd`; unset: not sent),
 * IMAGE_EXTRA_INPUT (merged into the request), IMAGE_TIMEOUT_SECONDS, IMAGE_MAX_RETRIES.
 */
export const openAiImagesProvider: SceneProvider<'openai-images', OpenAiImagesSettings> = {
  kind: 'openai-images',
  parseSettings(env) {
    const api = imageApiEnv(env);
    const sizes = str(env, 'IMAGE_SIZES')
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    return {
      ...ifSet('baseUrl', api.baseUrl),
      ...ifSet('apiKey', api.apiKey),
      ...ifSet('model', api.model),
      ...ifSet('sizes', sizes?.length ? sizes : undefined),
      ...ifSet('quality', str(env, 'IMAGE_QUALITY')),
      ...ifSet('extraParams', api.extraInput),
      ...api.limits,
    };
  },
  create: (settings, deps) => createOpenAiImagesSceneEngine(settings, withDefaultFetchers(deps)),
};

import {
  createProviderHttp,
  encodeMultipart,
  type MultipartField,
  nearestSize,
  parseSize,
  type ProviderDeps,
  type ProviderLimits,
  providerSceneResult,
  toPngInput,
  trimBase,
} from '../provider-http.ts';
import type { EngineWarning, SceneEngine, SceneRequest, SceneResult } from '../scene-engine.ts';

/**
 * Scenes by an OpenAI-compatible Images API (OpenAI gpt-image-*, Azure OpenAI, compatible
 * self-hosted servers). With input images (the products, then the backdrop when there is one) it
 * calls `POST {baseUrl}/images/edits` (multipart/form-data: model, prompt, image[] files, size,
 * n=1, quality, background, input_fidelity); with none, `POST {baseUrl}/images/generations`
 * (JSON). The answer's `data[0].b64_json` (or `data[0].url`, downloaded) is checked to be an
 * image, then cover-cropped to exactly the requested width × height: the `size` asked for is the
 * supported size nearest the requested aspect ratio. The Images API has no seed, so results are
 * not reproducible (a warning says so).
 */
export interface OpenAiImagesSettings extends ProviderLimits {
  /** API root, `/images/...` is appended. Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Default `gpt-image-1`. */
  model?: string;
  /** Sizes the model accepts, `WxH`. Default the gpt-image sizes 1024x1024, 1536x1024, 1024x1536. */
  sizes?: string[];
  /** `quality` (gpt-image: low, medium, high, auto; dall-e-3: standard, hd). Not sent when unset. */
  quality?: string;
  /** `background`: transparent, opaque or auto. Not sent when unset. */
  background?: 'transparent' | 'opaque' | 'auto';
  /** `input_fidelity` for edits (high keeps the product closer). Not sent when unset. */
  inputFidelity?: 'high' | 'low';
  /** `moderation` (gpt-image: low or auto). Not sent when unset. */
  moderation?: 'low' | 'auto';
  /** `response_format`: only for dall-e models (gpt-image always answers b64_json and refuses it). */
  responseFormat?: 'b64_json' | 'url';
  /** Appends to the prompt one sentence saying which input image is the product and which the backdrop. Default true. */
  describeInputs?: boolean;
  /** Longest side of each uploaded input image (downscaled, PNG). Default 1536. */
  maxInputSide?: number;
  /** Extra members sent as-is (JSON members or multipart fields) for compatible servers. */
  extraParams?: Record<string, unknown>;
}

export const GPT_IMAGE_SIZES = ['1024x1024', '1536x1024', '1024x1536'];
/** The API takes at most this many input images. */
const MAX_INPUT_IMAGES = 16;
const LABEL = 'The OpenAI Images API';

interface ImagesAnswer {
  data?: { b64_json?: unknown; url?: unknown }[];
}

export function createOpenAiImagesSceneEngine(settings: OpenAiImagesSettings, deps: ProviderDeps): SceneEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.openai.com/v1');
  const model = settings.model ?? 'gpt-image-1';
  const sizes = (settings.sizes ?? GPT_IMAGE_SIZES).map((s) => {
    const size = parseSize(s);
    if (!size) throw new Error(`openai-images: "${s}" is not a size like 1024x1536`);
    return { ...size, text: `${size.width}x${size.height}` };
  });
  if (sizes.length === 0) throw new Error('openai-images: no sizes configured');
  const name = `openai-images:${model}`;
  const http = createProviderHttp(
    {
      ...settings,
      label: LABEL,
      apiOrigin: baseUrl,
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      secrets: [settings.apiKey],
      maxJsonBytes: 64 * 1024 * 1024,
      defaultTimeoutMs: 180_000,
    },
    deps,
  );

  return {
    name,
    async generate(req: SceneRequest): Promise<SceneResult> {
      const s = http.session({ ...(req.signal ? { signal: req.signal } : {}) });
      const size = nearestSize(sizes, req.width, req.height);
      const warnings: EngineWarning[] = [
        {
          code: 'SEED_NOT_SUPPORTED',
          severity: 'info',
          message: `${LABEL} takes no seed: the same request can give a different image`,
        },
      ];
      const extra = Object.entries(settings.extraParams ?? {});
      const optional: [string, string | undefined][] = [
        ['quality', settings.quality],
        ['background', settings.background],
        ['moderation', settings.moderation],
        ['response_format', settings.responseFormat],
      ];

      let products = req.products;
      const slots = MAX_INPUT_IMAGES - (req.backdrop ? 1 : 0);
      if (products.length > slots) {
        warnings.push({
          code: 'PRODUCTS_TRUNCATED',
          severity: 'warning',
          message: `${LABEL} takes at most ${MAX_INPUT_IMAGES} images; only the first ${slots} products were sent`,
        });
        products = products.slice(0, slots);
      }

      let answer: ImagesAnswer;
      if (products.length === 0 && !req.backdrop) {
        const body: Record<string, unknown> = { model, prompt: req.prompt, n: 1, size: size.text };
        for (const [k, v] of optional) if (v !== undefined) body[k] = v;
        for (const [k, v] of extra) body[k] = v;
        answer = (
          await s.json<ImagesAnswer>(`${baseUrl}/images/generations`, { json: body, what: 'generating the image' })
        ).json;
      } else {
        const maxSide = settings.maxInputSide ?? 1536;
        const images: Buffer[] = [];
        for (const [i, p] of products.entries())
          images.push(await toPngInput(p.bytes, `product image ${i + 1}`, maxSide));
        if (req.backdrop) images.push(await toPngInput(req.backdrop, 'backdrop image', maxSide));
        const fields: [string, MultipartField][] = [
          ['model', model],
          [
            'prompt',
            settings.describeInputs === false ? req.prompt : withInputNote(req.prompt, products.length, !!req.backdrop),
          ],
          ...images.map((bytes, i): [string, MultipartField] => [
            'image[]',
            {
              bytes,
              filename: i < products.length ? `product-${i + 1}.png` : 'backdrop.png',
              contentType: 'image/png',
            },
          ]),
          ['size', size.text],
          ['n', '1'],
        ];
        for (const [k, v] of optional) if (v !== undefined) fields.push([k, v]);
        if (settings.inputFidelity) fields.push(['input_fidelity', settings.inputFidelity]);
        for (const [k, v] of extra) fields.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
        answer = (
          await s.json<ImagesAnswer>(`${baseUrl}/images/edits`, {
            body: await encodeMultipart(fields),
            what: 'editing the images',
          })
        ).json;
      }

      const first = Array.isArray(answer?.data) ? answer.data[0] : undefined;
      let image: Buffer;
      if (typeof first?.b64_json === 'string' && first.b64_json) image = await s.decodeBase64Image(first.b64_json);
      else if (typeof first?.url === 'string' && first.url) image = await s.downloadImage(first.url);
      else throw s.fail(`${LABEL} answered without an image (no data[0].b64_json or data[0].url)`, true);
      return providerSceneResult(req, image, name, warnings);
    },
  };
}

/** The prompt, plus one sentence telling the model which input image is which. */
export function withInputNote(prompt: string, products: number, backdrop: boolean): string {
  if (products === 0) return `${prompt}\n\nUse the input image as the scene's backdrop.`;
  const which =
    products === 1 ? 'The first input image is the product' : `The first ${products} input images are the products`;
  const keep = 'keep it exactly as it is (shape, colours, label and text)';
  return backdrop
    ? `${prompt}\n\n${which}: ${keep}. The last input image is the backdrop: place the product into that scene.`
    : `${prompt}\n\n${which}: ${keep}.`;
}

import {
  createProviderHttp,
  nearestSize,
  onOrigin,
  parseRatios,
  pngDataUri,
  type ProviderDeps,
  type ProviderLimits,
  providerSceneResult,
  toPngInput,
  trimBase,
} from '../provider-http.ts';
import {
  ASPECT_RATIOS,
  type EngineWarning,
  type SceneEngine,
  type SceneRequest,
  type SceneResult,
} from '../scene-engine.ts';

/**
 * Scenes by a fal.ai model through fal's queue API:
 *
 * 1. `POST {baseUrl}/{model}` with the model's input as JSON (`Authorization: Key <apiKey>`)
 *    answers `request_id`, `status_url`, `response_url`, `cancel_url`;
 * 2. `GET …/requests/{id}/status` is polled (backoff ×1.5 up to `maxPollIntervalMs`) while
 *    `IN_QUEUE` / `IN_PROGRESS`, until `COMPLETED`;
 * 3. `GET …/requests/{id}` gives the model's output, `images[0].url` (or `image.url`), which is
 *    downloaded (without the key when it is on another origin, fal's CDN) and checked.
 *
 * The status and result URLs fal returns are used only when they are on the configured origin;
 * otherwise they are rebuilt from the model's app id (`owner/app`, fal's rule), so an answer cannot
 * send the key elsewhere. Input images go as PNG data URIs (fal accepts data URIs wherever it takes
 * a URL). On timeout the request is cancelled (best effort).
 */
export interface FalSettings extends ProviderLimits {
  /** The queue's root. Default `https://queue.fal.run`. */
  baseUrl?: string;
  /** Sent as `Authorization: Key <apiKey>`. */
  apiKey?: string;
  /** Model endpoint id. Default `fal-ai/flux-pro/kontext` (prompt + one reference image). */
  model?: string;
  /**
   * Where the input images go: `image_url` (the first product; default, as Kontext-style models
   * take one), `image_urls` (every product, then the backdrop) or `none` (text only).
   */
  imageInput?: 'image_url' | 'image_urls' | 'none';
  /** How the size is asked: `aspect_ratio` ("16:9", default), `image_size` ({ width, height }) or `none`. */
  sizeInput?: 'aspect_ratio' | 'image_size' | 'none';
  /** Ratios the model accepts for `aspect_ratio`; the nearest is sent. Default: the scene forge's ratios. */
  aspectRatios?: string[];
  /** Extra input members sent as-is (e.g. `guidance_scale`, `safety_tolerance`). */
  extraInput?: Record<string, unknown>;
  /** First wait between status polls. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest wait between status polls. Default 5 s. */
  maxPollIntervalMs?: number;
}

interface Submitted {
  request_id?: unknown;
  status_url?: unknown;
  response_url?: unknown;
  cancel_url?: unknown;
}
interface Status {
  status?: unknown;
  error?: unknown;
  error_type?: unknown;
}
interface Output {
  images?: { url?: unknown }[];
  image?: { url?: unknown };
  has_nsfw_concepts?: unknown;
}

const LABEL = 'fal.ai';
const PENDING = new Set(['IN_QUEUE', 'IN_PROGRESS']);

export function createFalSceneEngine(settings: FalSettings, deps: ProviderDeps): SceneEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://queue.fal.run');
  const model = (settings.model ?? 'fal-ai/flux-pro/kontext').replace(/^\/+|\/+$/g, '');
  const appId = model.split('/').slice(0, 2).join('/');
  const name = `fal:${model}`;
  const imageInput = settings.imageInput ?? 'image_url';
  const sizeInput = settings.sizeInput ?? 'aspect_ratio';
  const ratios = parseRatios(settings.aspectRatios ?? ASPECT_RATIOS, 'fal');
  const origin = new URL(baseUrl).origin;
  const http = createProviderHttp(
    {
      ...settings,
      label: LABEL,
      apiOrigin: baseUrl,
      headers: settings.apiKey ? { authorization: `Key ${settings.apiKey}` } : {},
      secrets: [settings.apiKey],
      defaultTimeoutMs: 180_000,
    },
    deps,
  );
  const own = onOrigin(origin);

  return {
    name,
    async generate(req: SceneRequest): Promise<SceneResult> {
      const s = http.session({ ...(req.signal ? { signal: req.signal } : {}) });
      const warnings: EngineWarning[] = [];
      const input: Record<string, unknown> = {
        prompt: req.prompt,
        seed: req.seed,
        num_images: 1,
        output_format: 'png',
      };
      if (sizeInput === 'aspect_ratio') input.aspect_ratio = nearestSize(ratios, req.width, req.height).text;
      else if (sizeInput === 'image_size') input.image_size = { width: req.width, height: req.height };

      if (imageInput === 'image_url') {
        const first = req.products[0];
        if (first) input.image_url = pngDataUri(await toPngInput(first.bytes, 'product image 1'));
        else if (req.backdrop) input.image_url = pngDataUri(await toPngInput(req.backdrop, 'backdrop image'));
        if (req.products.length > 1) {
          warnings.push(
            notSent(`the model takes one input image; ${req.products.length - 1} more product(s) not sent`),
          );
        }
        if (req.backdrop && first) warnings.push(notSent('the model takes one input image; the backdrop was not sent'));
      } else if (imageInput === 'image_urls') {
        const urls: string[] = [];
        for (const [i, p] of req.products.entries())
          urls.push(pngDataUri(await toPngInput(p.bytes, `product image ${i + 1}`)));
        if (req.backdrop) urls.push(pngDataUri(await toPngInput(req.backdrop, 'backdrop image')));
        if (urls.length > 0) input.image_urls = urls;
      } else if (req.products.length > 0 || req.backdrop) {
        warnings.push(notSent('imageInput is none: the product and backdrop images were not sent'));
      }
      Object.assign(input, settings.extraInput);

      const submitted = (await s.json<Submitted>(`${baseUrl}/${model}`, { json: input, what: 'submitting the job' }))
        .json;
      const id = submitted?.request_id;
      if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
        throw s.fail(`${LABEL} answered the submission without a valid request_id`, true);
      }
      const requestBase = `${baseUrl}/${appId}/requests/${id}`;
      const statusUrl = own(submitted.status_url, `${requestBase}/status`);
      const responseUrl = own(submitted.response_url, requestBase);
      const cancelUrl = own(submitted.cancel_url, `${requestBase}/cancel`);

      try {
        await s.poll(
          async () => {
            const st = (await s.json<Status>(statusUrl, { what: 'checking the job status' })).json;
            const status = typeof st?.status === 'string' ? st.status : undefined;
            if (!status) throw s.fail(`${LABEL} answered a status without a status`, true);
            if (PENDING.has(status)) return undefined;
            if (status !== 'COMPLETED' || (typeof st.error === 'string' && st.error)) {
              throw s.failed(
                {
                  message: typeof st.error === 'string' ? st.error : undefined,
                  code: typeof st.error_type === 'string' ? st.error_type : undefined,
                },
                `${LABEL} reported the job ${status === 'COMPLETED' ? 'failed' : status.toLowerCase()}`,
              );
            }
            return true;
          },
          { intervalMs: settings.pollIntervalMs ?? 1000, maxIntervalMs: settings.maxPollIntervalMs ?? 5000 },
        );
      } catch (err) {
        if (s.remainingMs() <= 0) await s.cancel(cancelUrl, 'PUT');
        throw err;
      }

      const out = (await s.json<Output>(responseUrl, { what: 'fetching the result' })).json;
      const nsfw = out?.has_nsfw_concepts;
      if (Array.isArray(nsfw) && nsfw[0] === true) {
        throw s.failed(
          { code: 'content_policy_violation', message: 'the safety checker flagged the image as NSFW' },
          '',
        );
      }
      const url = Array.isArray(out?.images) ? out.images[0]?.url : out?.image?.url;
      if (typeof url !== 'string' || !url)
        throw s.fail(`${LABEL} finished the job without an image (no images[0].url)`, true);
      const image = await s.downloadImage(url);
      return providerSceneResult(req, image, name, warnings);
    },
  };
}

const notSent = (message: string): EngineWarning => ({ code: 'INPUT_NOT_SENT', severity: 'warning', message });

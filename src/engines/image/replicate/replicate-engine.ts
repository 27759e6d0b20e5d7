import {
  createProviderHttp,
  encodeMultipart,
  nearestSize,
  onOrigin,
  parseRatios,
  pngDataUri,
  type ProviderDeps,
  type ProviderLimits,
  type ProviderSession,
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
 * Scenes by a model on Replicate (HTTP predictions API):
 *
 * - `owner/name` (an official model): `POST {baseUrl}/v1/models/{owner}/{name}/predictions`;
 *   `owner/name:version` or a bare version id: `POST {baseUrl}/v1/predictions` with `version`;
 *   body `{ input }`, `Authorization: Bearer <apiKey>`, `Prefer: wait=N` when `waitSeconds` is set;
 * - the prediction's `urls.get` is polled (backoff) while `starting` / `processing`, until
 *   `succeeded`, `failed` or `canceled`; `output` is a URL or an array of URLs (the first is
 *   used), downloaded without the key when it is on another origin (replicate.delivery).
 *
 * Input images (the first product; the backdrop too when `backdropInput` names a member) go as PNG
 * data URIs when they are at most `dataUriMaxBytes` (Replicate recommends data URIs under 1 MB),
 * otherwise they are uploaded first through `POST /v1/files` (multipart `content`) and passed as
 * the file's `urls.get`. `urls.get` / `urls.cancel` are followed only on the configured origin
 * (else rebuilt from the prediction id). On timeout the prediction is cancelled (best effort).
 */
export interface ReplicateSettings extends ProviderLimits {
  /** API root. Default `https://api.replicate.com`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** `owner/name`, `owner/name:version` or a 64-hex version id. Default `black-forest-labs/flux-kontext-pro`. */
  model?: string;
  /** `Prefer: wait=N` (1..60 s): the creation call may answer the finished prediction. Not sent when unset or 0. */
  waitSeconds?: number;
  /** Input member for the first product image. Default `input_image`; `null`: no image sent. */
  imageInput?: string | null;
  /** Input member for the backdrop image; unset: not sent. */
  backdropInput?: string;
  /** How the size is asked: `aspect_ratio` (default), `width_height` (`width`, `height`) or `none`. */
  sizeInput?: 'aspect_ratio' | 'width_height' | 'none';
  /** Ratios the model accepts for `aspect_ratio`; the nearest is sent. Default: the scene forge's ratios. */
  aspectRatios?: string[];
  /** Extra input members sent as-is (e.g. `safety_tolerance`, `output_quality`). */
  extraInput?: Record<string, unknown>;
  /** Largest input image sent inline as a data URI; larger ones are uploaded. Default 1 MB. */
  dataUriMaxBytes?: number;
  /** First wait between polls. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 5 s. */
  maxPollIntervalMs?: number;
}

interface Prediction {
  id?: unknown;
  status?: unknown;
  output?: unknown;
  error?: unknown;
  urls?: { get?: unknown; cancel?: unknown };
}

const LABEL = 'Replicate';
const PENDING = new Set(['starting', 'processing', 'queued']);

export function createReplicateSceneEngine(settings: ReplicateSettings, deps: ProviderDeps): SceneEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.replicate.com');
  const origin = new URL(baseUrl).origin;
  const model = settings.model ?? 'black-forest-labs/flux-kontext-pro';
  const m = /^(?:([\w.-]+)\/([\w.-]+))?(?::?([0-9a-f]{64}))?$/i.exec(model);
  if (!m || (!m[1] && !m[3]))
    throw new Error(`replicate: "${model}" is not owner/name, owner/name:version or a version id`);
  const [, owner, modelName, version] = m;
  const createUrl = version ? `${baseUrl}/v1/predictions` : `${baseUrl}/v1/models/${owner}/${modelName}/predictions`;
  const name = `replicate:${model}`;
  const imageInput = settings.imageInput === undefined ? 'input_image' : settings.imageInput;
  const sizeInput = settings.sizeInput ?? 'aspect_ratio';
  const ratios = parseRatios(settings.aspectRatios ?? ASPECT_RATIOS, 'replicate');
  const wait = Math.min(60, Math.max(0, Math.round(settings.waitSeconds ?? 0)));
  const http = createProviderHttp(
    {
      ...settings,
      label: LABEL,
      apiOrigin: baseUrl,
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      secrets: [settings.apiKey],
      defaultTimeoutMs: 180_000,
    },
    deps,
  );
  const own = onOrigin(origin);

  /** A data URI, or the URL of the bytes uploaded to Replicate's Files API. */
  async function fileInput(s: ProviderSession, png: Buffer, filename: string): Promise<string> {
    if (png.length <= (settings.dataUriMaxBytes ?? 1_000_000)) return pngDataUri(png);
    const body = await encodeMultipart([['content', { bytes: png, filename, contentType: 'image/png' }]]);
    const file = (
      await s.json<{ urls?: { get?: unknown } }>(`${baseUrl}/v1/files`, { body, what: 'uploading an input image' })
    ).json;
    if (typeof file?.urls?.get !== 'string') throw s.fail(`${LABEL} answered the upload without a file URL`, true);
    return file.urls.get;
  }

  return {
    name,
    async generate(req: SceneRequest): Promise<SceneResult> {
      const s = http.session({ ...(req.signal ? { signal: req.signal } : {}) });
      const warnings: EngineWarning[] = [];
      const input: Record<string, unknown> = { prompt: req.prompt, seed: req.seed, output_format: 'png' };
      if (sizeInput === 'aspect_ratio') input.aspect_ratio = nearestSize(ratios, req.width, req.height).text;
      else if (sizeInput === 'width_height') Object.assign(input, { width: req.width, height: req.height });

      const first = req.products[0];
      if (imageInput && first) {
        input[imageInput] = await fileInput(s, await toPngInput(first.bytes, 'product image 1'), 'product-1.png');
      }
      if (settings.backdropInput && req.backdrop) {
        input[settings.backdropInput] = await fileInput(
          s,
          await toPngInput(req.backdrop, 'backdrop image'),
          'backdrop.png',
        );
      }
      const dropped = [
        ...(req.products.length > (imageInput ? 1 : 0)
          ? [`${req.products.length - (imageInput ? 1 : 0)} product image(s)`]
          : []),
        ...(req.backdrop && !settings.backdropInput ? ['the backdrop'] : []),
      ];
      if (dropped.length > 0) {
        warnings.push({
          code: 'INPUT_NOT_SENT',
          severity: 'warning',
          message: `The Replicate model's settings take no more images: ${dropped.join(' and ')} not sent`,
        });
      }
      Object.assign(input, settings.extraInput);

      let p = (
        await s.json<Prediction>(createUrl, {
          json: version ? { version, input } : { input },
          ...(wait > 0 ? { headers: { prefer: `wait=${wait}` } } : {}),
          what: 'creating the prediction',
        })
      ).json;
      const id = p?.id;
      if (typeof id !== 'string' || !/^[\w-]{1,128}$/.test(id)) {
        throw s.fail(`${LABEL} answered the prediction without a valid id`, true);
      }
      const getUrl = own(p.urls?.get, `${baseUrl}/v1/predictions/${id}`);
      const cancelUrl = own(p.urls?.cancel, `${baseUrl}/v1/predictions/${id}/cancel`);

      try {
        p = await s.poll(
          async () => {
            const status = typeof p?.status === 'string' ? p.status : undefined;
            if (status && !PENDING.has(status)) return p;
            if (!status) throw s.fail(`${LABEL} answered a prediction without a status`, true);
            p = (await s.json<Prediction>(getUrl, { what: 'checking the prediction' })).json;
            const next = typeof p?.status === 'string' ? p.status : undefined;
            return next && !PENDING.has(next) ? p : undefined;
          },
          { intervalMs: settings.pollIntervalMs ?? 1000, maxIntervalMs: settings.maxPollIntervalMs ?? 5000 },
        );
      } catch (err) {
        if (s.remainingMs() <= 0) await s.cancel(cancelUrl, 'POST');
        throw err;
      }

      const status = String(p.status);
      if (status !== 'succeeded') {
        const error = typeof p.error === 'string' ? p.error : p.error ? JSON.stringify(p.error) : undefined;
        throw s.failed(
          { message: error },
          `The Replicate prediction ${status === 'canceled' ? 'was canceled' : status === 'failed' ? 'failed' : `ended as "${status}"`}`,
        );
      }
      const output = p.output;
      const url =
        typeof output === 'string'
          ? output
          : Array.isArray(output)
            ? output.find((o) => typeof o === 'string')
            : undefined;
      if (typeof url !== 'string' || !url)
        throw s.fail(`${LABEL} finished the prediction without an image URL in its output`, true);
      const image = await s.downloadImage(url);
      return providerSceneResult(req, image, name, warnings);
    },
  };
}

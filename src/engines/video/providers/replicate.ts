import {
  encodeMultipart,
  nearestSize,
  onOrigin,
  parseRatios,
  pngDataUri,
  type ProviderDeps,
  type ProviderSession,
  toPngInput,
  trimBase,
} from '../../image/provider-http.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import {
  authorization,
  cancelVideoOnGiveUp,
  checkRequest,
  finishVideo,
  nearestDuration,
  notSent,
  pollIntervals,
  providerEngine,
  str,
  type VideoProviderLimits,
  validId,
  videoProviderSessions,
} from './provider-video.ts';

/**
 * Videos by a model on Replicate (HTTP predictions API, as the image Replicate adapter):
 *
 * - `owner/name`: `POST {baseUrl}/v1/models/{owner}/{name}/predictions`; `owner/name:version` or a
 *   version id: `POST {baseUrl}/v1/predictions` with `version`; body `{ input: { prompt,
 *   <imageInput>, <endImageInput>, duration, aspect_ratio, seed } }`, `Authorization: Bearer`,
 *   `Prefer: wait=N` when `waitSeconds` is set;
 * - the prediction's `urls.get` (on the configured origin only; else rebuilt from the id) is
 *   polled while `starting` / `processing`, until `succeeded` (`output`: a URL or an array, the
 *   first URL used), `failed` (`error`) or `canceled`;
 * - the output (replicate.delivery: no key) is downloaded and conformed to the request.
 *
 * Frames go as PNG data URIs up to `dataUriMaxBytes`, larger ones through `POST /v1/files`. On
 * timeout or abort the prediction is cancelled (`urls.cancel`, best effort). References-only
 * requests are refused; text-only requests are sent (the model decides; one needing an image
 * answers 422, reported as a non-retryable error).
 */
export interface ReplicateVideoSettings extends VideoProviderLimits {
  /** Default `https://api.replicate.com`. */
  baseUrl?: string;
  apiKey?: string;
  /** `owner/name`, `owner/name:version` or a version id. Default `kwaivgi/kling-v2.1`. */
  model?: string;
  /** `Prefer: wait=N` (1..60 s). Not sent when unset or 0. */
  waitSeconds?: number;
  /** Input member of the start frame. Default `start_image` (some models: `image`, `first_frame_image`). */
  imageInput?: string;
  /** Input member of the end frame. Default `end_image`; null: not sent. */
  endImageInput?: string | null;
  /** `aspect_ratio` (default) or `none`. */
  sizeInput?: 'aspect_ratio' | 'none';
  /** Default 16:9, 9:16, 1:1. */
  aspectRatios?: string[];
  /** Default 5, 10 (sent as integers). */
  durations?: number[];
  /** Send `seed`. Default true. */
  sendSeed?: boolean;
  /** Extra input members sent as-is (e.g. `mode`, `negative_prompt`). */
  extraInput?: Record<string, unknown>;
  /** Largest frame sent inline as a data URI; larger ones are uploaded. Default 1 MB. */
  dataUriMaxBytes?: number;
  /** First wait between polls. Default 2 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 10 s. */
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

export function createReplicateVideoEngine(settings: ReplicateVideoSettings, deps: ProviderDeps): VideoEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.replicate.com');
  const model = settings.model ?? 'kwaivgi/kling-v2.1';
  const m = /^(?:([\w.-]+)\/([\w.-]+))?(?::?([0-9a-f]{64}))?$/i.exec(model);
  if (!m || (!m[1] && !m[3]))
    throw new Error(`replicate: "${model}" is not owner/name, owner/name:version or a version id`);
  const [, owner, modelName, version] = m;
  const createUrl = version ? `${baseUrl}/v1/predictions` : `${baseUrl}/v1/models/${owner}/${modelName}/predictions`;
  const name = `replicate:${model}`;
  const ratios = parseRatios(settings.aspectRatios ?? ['16:9', '9:16', '1:1'], 'replicate');
  const durations = settings.durations ?? [5, 10];
  const imageInput = settings.imageInput ?? 'start_image';
  const endInput = settings.endImageInput === undefined ? 'end_image' : settings.endImageInput;
  const wait = Math.min(60, Math.max(0, Math.round(settings.waitSeconds ?? 0)));
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl,
    headers: authorization('Bearer', settings.apiKey),
  });
  const own = onOrigin(new URL(baseUrl).origin);

  /** A data URI, or the URL of the bytes uploaded to Replicate's Files API. */
  async function fileInput(s: ProviderSession, bytes: Buffer, which: 'start' | 'end'): Promise<string> {
    const png = await toPngInput(bytes, `${which} frame`);
    if (png.length <= (settings.dataUriMaxBytes ?? 1_000_000)) return pngDataUri(png);
    const body = await encodeMultipart([
      ['content', { bytes: png, filename: `${which}-frame.png`, contentType: 'image/png' }],
    ]);
    const file = (
      await s.json<{ urls?: { get?: unknown } }>(`${baseUrl}/v1/files`, { body, what: `uploading the ${which} frame` })
    ).json;
    const url = str(file?.urls?.get);
    if (!url) throw s.fail(`${LABEL} answered the upload without a file URL`, true);
    return url;
  }

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings = checkRequest(req, { label: LABEL, textOnly: true }, settings.conform);
    const s = session(req);
    const input: Record<string, unknown> = {
      prompt: req.prompt,
      duration: nearestDuration(durations, req.durationSeconds),
    };
    if ((settings.sizeInput ?? 'aspect_ratio') === 'aspect_ratio') {
      input.aspect_ratio = nearestSize(ratios, req.width, req.height).text;
    }
    if (settings.sendSeed ?? true) input.seed = req.seed >>> 0;
    if (req.startFrame) input[imageInput] = await fileInput(s, req.startFrame, 'start');
    if (req.endFrame && endInput) input[endInput] = await fileInput(s, req.endFrame, 'end');
    else if (req.endFrame) warnings.push(notSent(`${LABEL}: the model's settings take no end frame; not sent`));
    Object.assign(input, settings.extraInput);

    let p = (
      await s.json<Prediction>(createUrl, {
        json: version ? { version, input } : { input },
        ...(wait > 0 ? { headers: { prefer: `wait=${wait}` } } : {}),
        what: 'creating the prediction',
      })
    ).json;
    const id = validId(s, LABEL, p?.id, 'the prediction');
    const getUrl = own(p.urls?.get, `${baseUrl}/v1/predictions/${id}`);
    const cancelUrl = own(p.urls?.cancel, `${baseUrl}/v1/predictions/${id}/cancel`);
    const done = (x: Prediction) => {
      const st = str(x?.status);
      if (!st) throw s.fail(`${LABEL} answered a prediction without a status`, true);
      return !PENDING.has(st);
    };

    p = await cancelVideoOnGiveUp(
      s,
      req,
      () =>
        done(p)
          ? Promise.resolve(p)
          : s.poll(
              async () => {
                const next = (await s.json<Prediction>(getUrl, { what: 'checking the prediction' })).json;
                return done(next) ? next : undefined;
              },
              pollIntervals(settings, 2000, 10_000),
            ),
      () => s.cancel(cancelUrl, 'POST'),
    );

    const status = String(p.status);
    if (status !== 'succeeded') {
      const error = typeof p.error === 'string' ? p.error : p.error ? JSON.stringify(p.error) : undefined;
      throw s.failed(
        { message: error },
        `The ${LABEL} prediction ${status === 'canceled' ? 'was canceled' : status === 'failed' ? 'failed' : `ended as "${status}"`}`,
      );
    }
    const output = p.output;
    const url =
      typeof output === 'string'
        ? output
        : Array.isArray(output)
          ? output.find((o) => typeof o === 'string')
          : undefined;
    if (typeof url !== 'string' || !url) throw s.fail(`${LABEL} finished the prediction without a video URL`, true);
    return finishVideo(s, req, url, { label: LABEL, engine: name, warnings, limits: settings });
  });
}

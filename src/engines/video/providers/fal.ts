import { nearestSize, onOrigin, parseRatios, type ProviderDeps, trimBase } from '../../image/provider-http.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import {
  authorization,
  checkRequest,
  finishVideo,
  frameDataUri,
  nearestDuration,
  notSent,
  pollIntervals,
  pollJob,
  providerEngine,
  str,
  type VideoProviderLimits,
  validId,
  videoProviderSessions,
} from './provider-video.ts';

/**
 * Videos by a fal.ai model through fal's queue API (as the image fal adapter):
 *
 * 1. `POST {baseUrl}/{model}` (`Authorization: Key <apiKey>`) with the model's input
 *    `{ prompt, image_url, tail_image_url, duration, aspect_ratio }` answers `request_id`,
 *    `status_url`, `response_url`, `cancel_url`;
 * 2. `GET …/requests/{id}/status` is polled while `IN_QUEUE` / `IN_PROGRESS`, until `COMPLETED`
 *    (an `error` there is a failure);
 * 3. `GET …/requests/{id}` gives `video.url`, downloaded (fal's CDN: no key) and conformed.
 *
 * The status/result/cancel URLs fal returns are used only on the configured origin; otherwise they
 * are rebuilt from the model's app id (`owner/app`), so an answer cannot send the key elsewhere.
 * Frames go as PNG data URIs. On timeout or abort the request is cancelled (PUT, best effort).
 * References-only requests are refused; text-only ones are refused for `…image-to-video` models
 * (they need `image_url`) unless `textOnly` says otherwise.
 */
export interface FalVideoSettings extends VideoProviderLimits {
  /** Default `https://queue.fal.run`. */
  baseUrl?: string;
  /** Sent as `Authorization: Key <apiKey>`. */
  apiKey?: string;
  /** Default `fal-ai/kling-video/v2.1/standard/image-to-video`. */
  model?: string;
  /** Input member of the start frame. Default `image_url`. */
  imageInput?: string;
  /** Input member of the end frame (Kling: `tail_image_url`, default); null: not sent. */
  endImageInput?: string | null;
  /** `aspect_ratio` (default) or `none`. */
  sizeInput?: 'aspect_ratio' | 'none';
  /** Default 16:9, 9:16, 1:1. */
  aspectRatios?: string[];
  /** Default 5, 10 (sent as strings, as Kling's enum). */
  durations?: number[];
  /** Whether the model works without a start frame. Default: not for `…image-to-video` models. */
  textOnly?: boolean;
  /** Extra input members sent as-is (e.g. `negative_prompt`, `cfg_scale`). */
  extraInput?: Record<string, unknown>;
  /** First wait between status polls. Default 2 s. */
  pollIntervalMs?: number;
  /** Longest wait between status polls. Default 10 s. */
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
  video?: { url?: unknown };
}

const LABEL = 'fal.ai';
const PENDING = new Set(['IN_QUEUE', 'IN_PROGRESS']);

export function createFalVideoEngine(settings: FalVideoSettings, deps: ProviderDeps): VideoEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://queue.fal.run');
  const model = (settings.model ?? 'fal-ai/kling-video/v2.1/standard/image-to-video').replace(/^\/+|\/+$/g, '');
  const appId = model.split('/').slice(0, 2).join('/');
  const name = `fal:${model}`;
  const ratios = parseRatios(settings.aspectRatios ?? ['16:9', '9:16', '1:1'], 'fal');
  const durations = settings.durations ?? [5, 10];
  const imageInput = settings.imageInput ?? 'image_url';
  const endInput = settings.endImageInput === undefined ? 'tail_image_url' : settings.endImageInput;
  const textOnly = settings.textOnly ?? !/image-to-video$/.test(model);
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl,
    headers: authorization('Key', settings.apiKey),
  });
  const own = onOrigin(new URL(baseUrl).origin);

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings = checkRequest(req, { label: LABEL, textOnly }, settings.conform);
    const s = session(req);
    const input: Record<string, unknown> = {
      prompt: req.prompt,
      duration: String(nearestDuration(durations, req.durationSeconds)),
    };
    if ((settings.sizeInput ?? 'aspect_ratio') === 'aspect_ratio') {
      input.aspect_ratio = nearestSize(ratios, req.width, req.height).text;
    }
    if (req.startFrame) input[imageInput] = await frameDataUri(req.startFrame, 'start frame');
    if (req.endFrame && endInput) input[endInput] = await frameDataUri(req.endFrame, 'end frame');
    else if (req.endFrame) warnings.push(notSent(`${LABEL}: the model's settings take no end frame; not sent`));
    Object.assign(input, settings.extraInput);

    const submitted = (await s.json<Submitted>(`${baseUrl}/${model}`, { json: input, what: 'submitting the job' }))
      .json;
    const id = validId(s, LABEL, submitted?.request_id, 'the submission');
    const requestBase = `${baseUrl}/${appId}/requests/${id}`;
    const statusUrl = own(submitted.status_url, `${requestBase}/status`);
    const responseUrl = own(submitted.response_url, requestBase);
    const cancelUrl = own(submitted.cancel_url, `${requestBase}/cancel`);

    await pollJob(s, req, {
      url: statusUrl,
      what: 'checking the job status',
      status: (st: Status) => st.status,
      noStatus: `${LABEL} answered a status without a status`,
      pending: PENDING,
      settle: (status, st) => {
        if (status !== 'COMPLETED' || str(st.error)) {
          throw s.failed(
            { message: str(st.error), code: str(st.error_type) },
            `${LABEL} reported the job ${status === 'COMPLETED' ? 'failed' : status.toLowerCase()}`,
          );
        }
        return true;
      },
      intervals: pollIntervals(settings, 2000, 10_000),
      cancel: () => s.cancel(cancelUrl, 'PUT'),
    });

    const out = (await s.json<Output>(responseUrl, { what: 'fetching the result' })).json;
    const url = str(out?.video?.url);
    if (!url) throw s.fail(`${LABEL} finished the job without a video (no video.url)`, true);
    return finishVideo(s, req, url, { label: LABEL, engine: name, warnings, limits: settings });
  });
}

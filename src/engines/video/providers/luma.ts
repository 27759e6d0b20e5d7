import {
  nearestSize,
  parseRatios,
  type ProviderDeps,
  toPngInput,
  pngDataUri,
  trimBase,
} from '../../image/provider-http.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import {
  authorization,
  checkRequest,
  finishVideo,
  nearestDuration,
  pollIntervals,
  pollJob,
  providerEngine,
  str,
  type VideoProviderLimits,
  validId,
  videoProviderSessions,
} from './provider-video.ts';

/**
 * Videos by Luma's Dream Machine API:
 *
 * 1. `POST {baseUrl}/generations` (`Authorization: Bearer <apiKey>`) with `{ prompt, model,
 *    aspect_ratio, resolution, duration: "5s" | "9s", keyframes }`, `keyframes` being
 *    `{ frame0: { type: 'image', url }, frame1: { type: 'image', url } }` for the start and end
 *    frames; answers the generation (`id`, `state`);
 * 2. `GET {baseUrl}/generations/{id}` is polled while `queued` / `dreaming`, until `completed`
 *    (`assets.video`) or `failed` (`failure_reason`);
 * 3. the video (Luma's CDN, another origin: no key) is downloaded and conformed to the request.
 *
 * Limitation: Luma takes keyframe images by URL. `deps.frameUrl` (e.g. a presigned URL of the
 * frame in the object store) is used when given; otherwise the frame goes as a PNG data URI, which
 * Luma may refuse (reported as a non-retryable error naming Luma's reason). Text-only requests are
 * supported; references-only are refused (no reference mode). No seed is sent (Luma takes none).
 * On timeout or abort the generation is deleted (`DELETE /generations/{id}`, best effort).
 */
export interface LumaSettings extends VideoProviderLimits {
  /** Default `https://api.lumalabs.ai/dream-machine/v1`. */
  baseUrl?: string;
  apiKey?: string;
  /** Default `ray-2`. */
  model?: string;
  /** `540p` | `720p` (default) | `1080p` | `4k`; null: not sent. */
  resolution?: string | null;
  /** Ratios the model accepts; the nearest is sent. Default 1:1, 16:9, 9:16, 4:3, 3:4, 21:9, 9:21. */
  aspectRatios?: string[];
  /** Durations (s) the model accepts, sent as `"<n>s"`. Default 5, 9. */
  durations?: number[];
  /** Extra body members sent as-is (e.g. `loop`). */
  extraInput?: Record<string, unknown>;
  /** First wait between polls. Default 3 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 10 s. */
  maxPollIntervalMs?: number;
}

/** A public URL for a frame (PNG bytes) the provider can fetch; undefined: send a data URI. */
export type FrameUrl = (png: Buffer, which: 'start' | 'end') => Promise<string | undefined>;

export interface LumaDeps extends ProviderDeps {
  frameUrl?: FrameUrl;
}

export const LUMA_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21'];

interface Generation {
  id?: unknown;
  state?: unknown;
  failure_reason?: unknown;
  assets?: { video?: unknown } | null;
}

const LABEL = 'Luma';
const PENDING = new Set(['queued', 'dreaming']);

export function createLumaVideoEngine(settings: LumaSettings, deps: LumaDeps): VideoEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.lumalabs.ai/dream-machine/v1');
  const model = settings.model ?? 'ray-2';
  const name = `luma:${model}`;
  const ratios = parseRatios(settings.aspectRatios ?? LUMA_RATIOS, 'luma');
  const durations = settings.durations ?? [5, 9];
  const resolution = settings.resolution === undefined ? '720p' : settings.resolution;
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl,
    headers: authorization('Bearer', settings.apiKey),
  });

  async function frame(bytes: Buffer, which: 'start' | 'end') {
    const png = await toPngInput(bytes, `${which} frame`);
    const url = (await deps.frameUrl?.(png, which)) ?? pngDataUri(png);
    return { type: 'image', url };
  }

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings = checkRequest(req, { label: LABEL, textOnly: true }, settings.conform);
    const s = session(req);
    const keyframes: Record<string, unknown> = {};
    if (req.startFrame) keyframes.frame0 = await frame(req.startFrame, 'start');
    if (req.endFrame) keyframes.frame1 = await frame(req.endFrame, 'end');
    const body = {
      prompt: req.prompt,
      model,
      aspect_ratio: nearestSize(ratios, req.width, req.height).text,
      ...(resolution ? { resolution } : {}),
      duration: `${nearestDuration(durations, req.durationSeconds)}s`,
      ...(Object.keys(keyframes).length > 0 ? { keyframes } : {}),
      ...settings.extraInput,
    };
    const created = (
      await s.json<Generation>(`${baseUrl}/generations`, { json: body, what: 'creating the generation' })
    ).json;
    const id = validId(s, LABEL, created?.id, 'the generation');
    const genUrl = `${baseUrl}/generations/${id}`;

    const url = await pollJob(s, req, {
      url: genUrl,
      what: 'checking the generation',
      status: (g: Generation) => g.state,
      noStatus: `${LABEL} answered a generation without a state`,
      pending: PENDING,
      settle: (state, g) => {
        if (state === 'completed') {
          const video = str(g.assets?.video);
          if (!video) throw s.fail(`${LABEL} completed the generation without a video`, true);
          return video;
        }
        throw s.failed(
          { message: str(g.failure_reason) },
          `${LABEL} reported the generation ${state === 'failed' ? 'failed' : `as "${state}"`}`,
        );
      },
      intervals: pollIntervals(settings, 3000, 10_000),
      cancel: () => s.cancel(genUrl, 'DELETE'),
    });
    return finishVideo(s, req, url, { label: LABEL, engine: name, warnings, limits: settings });
  });
}

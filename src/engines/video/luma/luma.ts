import type { EngineWarning } from '../../image/scene-engine.ts';
import {
  authorization,
  nearestSize,
  parseRatios,
  type ProviderDeps,
  stainlessRetry,
  trimBase,
} from '../../image/provider-http.ts';
import { imageInput, type InputRoute } from '../../image/provider-inputs.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import { hostedVideoProvider } from '../video-provider.ts';
import {
  checkRequest,
  endFrameDropped,
  endFrameRouted,
  finishVideo,
  nearestDuration,
  pollIntervals,
  pollJob,
  providerEngine,
  str,
  validId,
  type VideoProviderLimits,
  videoProviderSessions,
} from '../provider-video.ts';

/**
 * Videos by Luma's Dream Machine API (lumalabs/lumaai-api openapi.yaml; lumalabs/lumaai-node):
 *
 * 1. `POST {baseUrl}/generations/video` (`Authorization: Bearer <apiKey>`) with `{ prompt, model,
 *    aspect_ratio, resolution, duration: "5s" | "9s", keyframes }`, `keyframes` being
 *    `{ frame0: { type: 'image', url }, frame1: { type: 'image', url } }` for the start and end
 *    frames; answers the generation (`id`, `state`) with 201;
 * 2. `GET {baseUrl}/generations/{id}` is polled while `queued` / `dreaming`, until `completed`
 *    (`assets.video`) or `failed` (`failure_reason`);
 * 3. the video (Luma's CDN, another origin: no key) is downloaded and conformed to the request.
 *
 * Keyframes go by URL only: Luma has no upload API and documents no data URIs ("upload and use
 * your own cdn image urls, currently this is the only way"), so a frame is published under a
 * short-lived link of ours (`deps.inputHost`); without one the request fails before any call with
 * a non-retryable error saying what to configure. Text-only requests are supported;
 * references-only are refused (no reference mode). No seed is sent (Luma takes none). The prompt
 * is sent whole (the spec sets no limit). Retries follow Luma's SDK (`stainlessRetry`). On timeout
 * or abort the generation is deleted (`DELETE /generations/{id}`, best effort).
 */
export interface LumaSettings extends VideoProviderLimits {
  /** Default `https://api.lumalabs.ai/dream-machine/v1`. */
  baseUrl?: string;
  apiKey?: string;
  /**
   * Default `ray-2`. A model not in LUMA_MODELS is sent as given with ray-2's capabilities (override
   * them below); Luma refuses a model it does not know (non-retryable error naming its reason).
   */
  model?: string;
  /** `540p` | `720p` (default) | `1080p` | `4k`; null: not sent. Checked against a known model's table. */
  resolution?: string | null;
  /** Ratios the model accepts; the nearest is sent. Default: the model's (LUMA_MODELS). */
  aspectRatios?: string[];
  /** Durations (s) the model accepts, sent as `"<n>s"`. Default: the model's (5, 9). */
  durations?: number[];
  /**
   * The model takes an end frame (`keyframes.frame1`). Default: the model's (true for both Ray 2
   * models and for unknown ones). When false, an end frame goes to `endFrameModel` (default
   * `ray-2`, `none` for ray-2 itself; END_FRAME_MODEL info) or, with `none`, is dropped
   * (END_FRAME_UNSUPPORTED warning).
   */
  endFrame?: boolean;
  /**
   * Extra body members sent as-is (e.g. `loop`, `resolution`, `concepts`, `callback_url`). They
   * may not set `model`, `keyframes` or `prompt` (refused when the engine is made).
   */
  extraInput?: Record<string, unknown>;
  /** First wait between polls. Default 3 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 10 s. */
  maxPollIntervalMs?: number;
}

/** What one Luma video model takes. */
export interface LumaModel {
  /** Durations in seconds, sent as `"<n>s"`. */
  durations: readonly number[];
  resolutions: readonly string[];
  aspectRatios: readonly string[];
  /** Takes `keyframes.frame1` (an end frame). */
  endFrame: boolean;
}

/** openapi.yaml AspectRatio (lines 162-174). */
export const LUMA_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21'];

const RAY_2: LumaModel = {
  // openapi.yaml VideoModelOutputDuration (196-202); lumaai-node video.ts:99.
  durations: [5, 9],
  // openapi.yaml VideoModelOutputResolution (186-194); lumaai-node video.ts:121.
  resolutions: ['540p', '720p', '1080p', '4k'],
  aspectRatios: LUMA_RATIOS,
  // openapi.yaml Keyframes frame0/frame1 (606-615): both models, either frame.
  endFrame: true,
};

/**
 * The models Luma's SDK accepts (lumaai-node src/resources/generations/video.ts:77:
 * `'ray-2' | 'ray-flash-2'`; `ray-1-6` was dropped in a3ac751). Unknown models get ray-2's row.
 */
export const LUMA_MODELS: Readonly<Record<string, LumaModel>> = {
  'ray-2': RAY_2,
  'ray-flash-2': RAY_2,
};

/** Body members the adapter owns: extraInput may not set them. */
const OWN_MEMBERS = ['model', 'keyframes', 'prompt'];

interface Generation {
  id?: unknown;
  state?: unknown;
  failure_reason?: unknown;
  assets?: { video?: unknown } | null;
}

const LABEL = 'Luma';
const PENDING = new Set(['queued', 'dreaming']);
const DEFAULT_MODEL = 'ray-2';

/** A model's capabilities with the settings' overrides, checked once. */
function plan(model: string, settings: LumaSettings) {
  const known = LUMA_MODELS[model];
  const caps = known ?? RAY_2;
  const durations = settings.durations ?? caps.durations;
  if (durations.length === 0 || durations.some((d) => !(d > 0))) {
    throw new Error('luma: durations must be positive numbers of seconds');
  }
  const resolution = settings.resolution === undefined ? '720p' : settings.resolution;
  if (known && resolution && !known.resolutions.includes(resolution)) {
    throw new Error(`luma: resolution "${resolution}" is not one of ${model}'s (${known.resolutions.join(', ')})`);
  }
  return {
    ratios: parseRatios(settings.aspectRatios ?? caps.aspectRatios, 'luma'),
    durations,
    resolution,
    endFrame: settings.endFrame ?? caps.endFrame,
  };
}

export function createLumaVideoEngine(settings: LumaSettings, deps: ProviderDeps): VideoEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.lumalabs.ai/dream-machine/v1');
  const model = settings.model ?? DEFAULT_MODEL;
  const name = `luma:${model}`;
  const main = plan(model, settings);
  // Where a request with an end frame goes when `model` takes none (VIDEO_END_FRAME_MODEL; default
  // ray-2, or `none` when the model is ray-2 itself).
  const endModel = main.endFrame
    ? model
    : (settings.endFrameModel ?? (model === DEFAULT_MODEL ? 'none' : DEFAULT_MODEL));
  if (endModel === model && !main.endFrame) {
    throw new Error(`luma: ${model} takes no end frame here; the end-frame model must be another one, or none`);
  }
  const endPlan =
    endModel === model || endModel === 'none' ? main : plan(endModel, { ...settings, endFrame: undefined });
  if (endModel !== model && endModel !== 'none' && !endPlan.endFrame) {
    throw new Error(`luma: the end-frame model "${endModel}" takes no end frame either`);
  }
  const extra = settings.extraInput ?? {};
  const owned = OWN_MEMBERS.filter((k) => Object.hasOwn(extra, k));
  if (owned.length > 0) {
    throw new Error(
      `luma: extraInput (VIDEO_EXTRA_INPUT) may not set ${owned.join(', ')}: the model is VIDEO_MODEL, the frames and prompt come from the request`,
    );
  }
  const route: InputRoute = { label: LABEL, host: deps.inputHost };
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl,
    headers: authorization('Bearer', settings.apiKey),
    // lumaai-node src/core.ts:572-591 (x-should-retry, 408, 409, 429, 5xx).
    retry: stainlessRetry,
  });

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings: EngineWarning[] = checkRequest(req, { label: LABEL, textOnly: true }, settings.conform);
    let sentModel = model;
    let p = main;
    let endFrame = req.endFrame;
    if (endFrame && !main.endFrame) {
      if (endModel === 'none') {
        endFrame = undefined;
        warnings.push(endFrameDropped(`${LABEL}'s ${model} takes no end frame: the end frame was not sent`));
      } else {
        sentModel = endModel;
        p = endPlan;
        warnings.push(
          endFrameRouted(`${LABEL}'s ${model} takes no end frame: the request was sent to ${endModel}, which does`),
        );
      }
    }
    // Both frames are published before any call: without a public link nothing is sent.
    const keyframes: Record<string, { type: 'image'; url: string }> = {};
    if (req.startFrame) {
      keyframes.frame0 = { type: 'image', url: await imageInput(req.startFrame, 'start frame', route, warnings) };
    }
    if (endFrame) keyframes.frame1 = { type: 'image', url: await imageInput(endFrame, 'end frame', route, warnings) };
    const body = {
      prompt: req.prompt,
      model: sentModel,
      aspect_ratio: nearestSize(p.ratios, req.width, req.height).text,
      ...(p.resolution ? { resolution: p.resolution } : {}),
      duration: `${nearestDuration(p.durations, req.durationSeconds)}s`,
      ...(Object.keys(keyframes).length > 0 ? { keyframes } : {}),
      ...extra,
    };
    const s = session(req);
    const created = (
      await s.json<Generation>(`${baseUrl}/generations/video`, { json: body, what: 'creating the generation' })
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
    return finishVideo(s, req, url, { label: LABEL, engine: `luma:${sentModel}`, warnings, limits: settings });
  });
}

/** VIDEO_ENGINE=luma (Luma Dream Machine): a hosted provider, its VIDEO_* settings the shared ones (hostedVideoProvider, ../video-provider.ts). */
export const lumaVideoProvider = hostedVideoProvider<'luma', LumaSettings>('luma', createLumaVideoEngine);

import { authorization, nearestSize, parseRatios, type ProviderDeps } from '../../image/provider-http.ts';
import { imageInput } from '../../image/provider-inputs.ts';
import {
  createPredictions,
  LABEL,
  type PredictionSettings,
  type ReplicateModel,
  replicateRetry,
} from '../../image/replicate/predictions.ts';
import type { EngineWarning } from '../../image/scene-engine.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import { hostedVideoProvider } from '../video-provider.ts';
import {
  checkRequest,
  endFrameDropped,
  endFrameRouted,
  finishVideo,
  nearestDuration,
  pollIntervals,
  providerEngine,
  type VideoProviderLimits,
  videoProviderSessions,
} from '../provider-video.ts';

/**
 * Videos by a model on Replicate, through the predictions protocol shared with the image adapter
 * (src/engines/image/replicate/predictions.ts: create, `Prefer: wait`, poll `urls.get`, cancel on
 * timeout or abort, 429-only retries of the create).
 *
 * The input follows the model's row in REPLICATE_VIDEO_MODELS (what it takes), else the settings
 * (unknown models): `{ prompt, duration, <start image>, <end image>, aspect_ratio?, seed? }`, then
 * `extraInput`, then what an end frame needs. Replicate silently ignores inputs a model does not
 * declare (cog PR #2943), so nothing a model lacks is sent: kling-v2.1 gets no `aspect_ratio` (the
 * start frame sets the shape; conform crops) and no `seed`.
 *
 * End frames: kling-v2.1 takes `end_image` only with `mode: "pro"` (its API page: "pro mode is
 * required when this parameter is set"), so a request with an end frame is sent in pro mode
 * (1080p, billed at the pro rate) with an END_FRAME_MODEL info warning. `endFrameModel`
 * (VIDEO_END_FRAME_MODEL) names another Replicate model for requests with an end frame, or `none`
 * to drop end frames (END_FRAME_UNSUPPORTED warning). A model that requires a start frame refuses a
 * prompt-only request before any call. Frames go by our short-lived link when this server has one,
 * else through Replicate's Files API (never data URIs). The output (replicate.delivery, no key) is
 * downloaded and conformed to the request.
 */
export interface ReplicateVideoSettings extends VideoProviderLimits, PredictionSettings {
  apiKey?: string;
  /** `owner/name`, `owner/name:version` or a version id. Default `kwaivgi/kling-v2.1`. */
  model?: string;
  /** Input member of the start frame. Default: the model's (`start_image`). */
  imageInput?: string;
  /** Input member of the end frame; null: the model takes none. Default: the model's (`end_image`). */
  endImageInput?: string | null;
  /** The model refuses a request without a start frame. Default: the model's (false for unknown models). */
  requiresStartFrame?: boolean;
  /** `aspect_ratio` or `none`. Default: the model's (`none` for kling-v2.1, `aspect_ratio` for unknown models). */
  sizeInput?: 'aspect_ratio' | 'none';
  /** Ratios for `aspect_ratio`. Default: the model's (16:9, 9:16, 1:1 for unknown models). */
  aspectRatios?: string[];
  /** Durations (s), sent as integers. Default: the model's (5, 10). */
  durations?: number[];
  /** Send `seed`. Default: the model's (false for kling-v2.1, true for unknown models). */
  sendSeed?: boolean;
  /** Extra input members sent as-is (e.g. `negative_prompt`, `mode`). What an end frame needs still wins. */
  extraInput?: Record<string, unknown>;
  /** First wait between polls. Default 2 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 10 s. */
  maxPollIntervalMs?: number;
}

/** What one Replicate video model takes (its API page's input schema). */
export interface ReplicateVideoModel {
  /** Input member of the start frame. */
  startImage: string;
  /** A prompt-only request is refused by the model. */
  requiresStartFrame: boolean;
  /** Input member of the end frame; null: none. */
  endImage: string | null;
  /** Inputs the model needs beside an end frame, and how the END_FRAME_MODEL warning says what they cost. */
  endFrameNeeds?: { input: Record<string, unknown>; note: string };
  /** `aspect_ratio` values; null: the model has no `aspect_ratio` input. */
  aspectRatios: readonly string[] | null;
  /** The model takes `seed`. */
  seed: boolean;
  durations: readonly number[];
}

/**
 * Known models. kwaivgi/kling-v2.1 (replicate.com/kwaivgi/kling-v2.1/versions/daad218f…/api):
 * prompt (required); start_image (required: "You must use a start image with kling-v2.1");
 * end_image ("pro mode is required when this parameter is set"); mode standard (720p) | pro
 * (1080p); duration 5 | 10; negative_prompt. No aspect_ratio, no seed; no stated prompt limit.
 * Output: one URI string.
 */
export const REPLICATE_VIDEO_MODELS: Readonly<Record<string, ReplicateVideoModel>> = {
  'kwaivgi/kling-v2.1': {
    startImage: 'start_image',
    requiresStartFrame: true,
    endImage: 'end_image',
    endFrameNeeds: { input: { mode: 'pro' }, note: 'runs in pro mode (1080p) and is billed at the pro rate' },
    aspectRatios: null,
    seed: false,
    durations: [5, 10],
  },
};

/** An unknown model: what the settings say, else these (the shape most image-to-video models on Replicate take). */
const UNKNOWN_MODEL: ReplicateVideoModel = {
  startImage: 'start_image',
  requiresStartFrame: false,
  endImage: 'end_image',
  aspectRatios: ['16:9', '9:16', '1:1'],
  seed: true,
  durations: [5, 10],
};

interface Plan {
  target: ReplicateModel;
  caps: ReplicateVideoModel;
  ratios: { width: number; height: number; text: string }[] | null;
}

export function createReplicateVideoEngine(settings: ReplicateVideoSettings, deps: ProviderDeps): VideoEngine {
  const api = createPredictions(settings, deps);
  const plan = (ref: string, overrides: boolean): Plan => {
    const target = api.model(ref);
    const known = target.key ? REPLICATE_VIDEO_MODELS[target.key] : undefined;
    const base = known ?? UNKNOWN_MODEL;
    // The settings describe the configured model; an end-frame model keeps its own row.
    const caps: ReplicateVideoModel = overrides
      ? {
          ...base,
          ...(settings.imageInput ? { startImage: settings.imageInput } : {}),
          ...(settings.endImageInput !== undefined ? { endImage: settings.endImageInput } : {}),
          ...(settings.requiresStartFrame !== undefined ? { requiresStartFrame: settings.requiresStartFrame } : {}),
          ...(settings.sizeInput === 'none' ? { aspectRatios: null } : {}),
          ...(settings.sizeInput === 'aspect_ratio' || settings.aspectRatios
            ? { aspectRatios: settings.aspectRatios ?? base.aspectRatios ?? UNKNOWN_MODEL.aspectRatios }
            : {}),
          ...(settings.durations ? { durations: settings.durations } : {}),
          ...(settings.sendSeed !== undefined ? { seed: settings.sendSeed } : {}),
        }
      : base;
    return { target, caps, ratios: caps.aspectRatios ? parseRatios(caps.aspectRatios, 'replicate') : null };
  };
  const main = plan(settings.model ?? 'kwaivgi/kling-v2.1', true);
  const endSetting = settings.endFrameModel?.trim();
  const endPlan = endSetting && endSetting !== 'none' ? plan(endSetting, false) : undefined;
  if (endPlan && !endPlan.caps.endImage) {
    throw new Error(`replicate: the end-frame model "${endSetting}" takes no end frame`);
  }
  const name = `replicate:${main.target.model}`;
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl: api.baseUrl,
    headers: authorization('Bearer', settings.apiKey),
    retry: replicateRetry,
  });

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings: EngineWarning[] = checkRequest(
      req,
      { label: LABEL, textOnly: !main.caps.requiresStartFrame },
      settings.conform,
    );
    let p = main;
    let endFrame = req.endFrame;
    if (endFrame) {
      const model = main.target.model;
      const routed = endPlan && endPlan.target.model !== model ? endPlan : undefined;
      if (endSetting === 'none' || (!routed && !main.caps.endImage)) {
        endFrame = undefined;
        warnings.push(
          endFrameDropped(
            endSetting === 'none'
              ? `${LABEL}: end frames are turned off (VIDEO_END_FRAME_MODEL=none): the end frame was not sent to ${model}`
              : `${LABEL}'s ${model} takes no end frame: the end frame was not sent (set VIDEO_END_FRAME_MODEL to a model that takes one)`,
          ),
        );
      } else if (routed) {
        p = routed;
        const needs = routed.caps.endFrameNeeds;
        warnings.push(
          endFrameRouted(
            `The request has an end frame, so it was sent to ${LABEL}'s ${routed.target.model} (VIDEO_END_FRAME_MODEL) instead of ${model}${needs ? `, which ${needs.note}` : ''}`,
          ),
        );
      } else if (p.caps.endFrameNeeds) {
        warnings.push(
          endFrameRouted(
            `${LABEL}'s ${model} takes an end frame only in ${describe(p.caps.endFrameNeeds.input)}: this video ${p.caps.endFrameNeeds.note}`,
          ),
        );
      }
    }

    const s = session(req);
    const route = api.inputRoute(s);
    const input: Record<string, unknown> = {
      prompt: req.prompt,
      duration: nearestDuration(p.caps.durations, req.durationSeconds),
    };
    if (p.ratios) input.aspect_ratio = nearestSize(p.ratios, req.width, req.height).text;
    if (p.caps.seed) input.seed = req.seed >>> 0;
    if (req.startFrame) input[p.caps.startImage] = await imageInput(req.startFrame, 'start frame', route, warnings);
    if (endFrame && p.caps.endImage) input[p.caps.endImage] = await imageInput(endFrame, 'end frame', route, warnings);
    Object.assign(input, settings.extraInput);
    if (endFrame && p.caps.endFrameNeeds) Object.assign(input, p.caps.endFrameNeeds.input);

    const url = await api.run(s, p.target, input, {
      signal: req.signal,
      intervals: pollIntervals(settings, 2000, 10_000),
      output: 'video',
    });
    return finishVideo(s, req, url, {
      label: LABEL,
      engine: `replicate:${p.target.model}`,
      warnings,
      limits: settings,
    });
  });
}

const describe = (input: Record<string, unknown>) =>
  Object.entries(input)
    .map(([k, v]) => `${k} "${String(v)}"`)
    .join(', ');

/** VIDEO_ENGINE=replicate (Replicate): a hosted provider, its VIDEO_* settings the shared ones (hostedVideoProvider, ../video-provider.ts). */
export const replicateVideoProvider = hostedVideoProvider<'replicate', ReplicateVideoSettings>(
  'replicate',
  createReplicateVideoEngine,
);

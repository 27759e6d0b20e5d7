import { createFalQueue, FAL_LABEL, type FalQueueSettings, falEndpointId } from '../../image/fal/fal-queue.ts';
import { nearestSize, parseRatios, type ProviderDeps } from '../../image/provider-http.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import { hostedVideoProvider } from '../video-provider.ts';
import {
  checkRequest,
  DEFAULT_VIDEO_TIMEOUT_MS,
  endFrameDropped,
  endFrameRouted,
  finishVideo,
  nearestDuration,
  providerEngine,
  str,
  type VideoProviderLimits,
} from '../provider-video.ts';

/**
 * Videos by a fal.ai model through fal's queue (src/engines/image/fal/fal-queue.ts: submit,
 * status polls, result, cancel on timeout or abort; frames by our link or fal storage, never as
 * data URIs). The result is `video.url` (fal's CDN: downloaded without the key), then conformed.
 *
 * What each known model takes comes from the table below (fal-js libs/client/src/types/endpoints.ts);
 * the settings override it for the configured model. The default,
 * `fal-ai/kling-video/v2.1/standard/image-to-video`, takes `prompt`, `image_url` and `duration`
 * "5"/"10", and neither an end frame nor an aspect ratio (the output follows the start frame; the
 * conform step crops and says so). A request with an end frame goes to the family's model that
 * takes one, `…/v2.1/pro/image-to-video` (`tail_image_url`), with an END_FRAME_MODEL warning;
 * `endFrameModel` (VIDEO_END_FRAME_MODEL) names another, or `none` to drop the end frame
 * (END_FRAME_UNSUPPORTED). References-only requests are refused; text-only ones too for models
 * that need a start frame.
 */
export interface FalVideoSettings extends VideoProviderLimits, FalQueueSettings {
  /** Default `fal-ai/kling-video/v2.1/standard/image-to-video`. */
  model?: string;
  /** Input member of the start frame. Default: the model's (table), else `image_url`. */
  imageInput?: string;
  /** Input member of the end frame; null: the model takes none. Default: the model's (table), else none. */
  endImageInput?: string | null;
  /** `aspect_ratio` or `none`. Default: the model's (table); else `none` for `…image-to-video` models, `aspect_ratio` for others. */
  sizeInput?: 'aspect_ratio' | 'none';
  /** Ratios for `aspect_ratio`. Default 16:9, 9:16, 1:1. */
  aspectRatios?: string[];
  /** Durations the model takes, in seconds (sent as strings, as Kling's enum). Default 5, 10. */
  durations?: number[];
  /** Whether the model works without a start frame. Default: the model's (table), else not for `…image-to-video` models. */
  textOnly?: boolean;
  /** Extra input members sent as-is (e.g. `negative_prompt`, `cfg_scale`). */
  extraInput?: Record<string, unknown>;
}

/** What a model takes. */
interface FalVideoModel {
  /** The start frame's member, or null (text to video). */
  image: string | null;
  /** The end frame's member, or null (none). */
  end: string | null;
  /** The family's model that takes an end frame (where a request with one goes). */
  endFrameModel?: string;
  /** Ratios the model takes as `aspect_ratio`, or null (no such member). */
  aspectRatios: readonly string[] | null;
  durations: readonly number[];
  textOnly: boolean;
}

const KLING_PRO = 'fal-ai/kling-video/v2.1/pro/image-to-video';
/**
 * Kling on fal. Standard and master i2v: KlingVideoV2MasterImageToVideoInput = { prompt, image_url,
 * duration "5"|"10", negative_prompt, cfg_scale } (endpoints.ts:27880-27902, 71398-71406): no end
 * frame, no aspect_ratio. Pro i2v, and v2.5-turbo pro (an alias of it): the same plus
 * `tail_image_url` (endpoints.ts:27774-27800, 71408-71409). Output I2VOutput { video: File } (21837-21842).
 */
const KLING_I2V = { image: 'image_url', aspectRatios: null, durations: [5, 10], textOnly: false } as const;
export const FAL_VIDEO_MODELS: Readonly<Record<string, FalVideoModel>> = {
  'fal-ai/kling-video/v2.1/standard/image-to-video': { ...KLING_I2V, end: null, endFrameModel: KLING_PRO },
  'fal-ai/kling-video/v2.1/master/image-to-video': { ...KLING_I2V, end: null, endFrameModel: KLING_PRO },
  [KLING_PRO]: { ...KLING_I2V, end: 'tail_image_url' },
  'fal-ai/kling-video/v2.5-turbo/pro/image-to-video': { ...KLING_I2V, end: 'tail_image_url' },
};

const DEFAULT_MODEL = 'fal-ai/kling-video/v2.1/standard/image-to-video';
const DEFAULT_RATIOS = ['16:9', '9:16', '1:1'];

interface Output {
  video?: { url?: unknown };
}

export function createFalVideoEngine(settings: FalVideoSettings, deps: ProviderDeps): VideoEngine {
  const model = falEndpointId(settings.model ?? DEFAULT_MODEL);
  const name = `fal:${model}`;
  /** A model's table entry, else the defaults for a model we do not know. */
  const tableOf = (id: string, endDefault: string | null): FalVideoModel =>
    FAL_VIDEO_MODELS[id] ?? {
      image: 'image_url',
      end: endDefault,
      aspectRatios: /image-to-video$/.test(id) ? null : DEFAULT_RATIOS,
      durations: [5, 10],
      textOnly: !/image-to-video$/.test(id),
    };
  const base = tableOf(model, null);
  // The settings override the configured model's entry (aspectRatios given: aspect_ratio is sent).
  const aspectRatios =
    settings.sizeInput === 'none'
      ? null
      : settings.sizeInput === 'aspect_ratio' || settings.aspectRatios
        ? (settings.aspectRatios ?? base.aspectRatios ?? DEFAULT_RATIOS)
        : base.aspectRatios;
  const caps: FalVideoModel = {
    ...base,
    aspectRatios,
    ...(settings.imageInput ? { image: settings.imageInput } : {}),
    ...(settings.endImageInput !== undefined ? { end: settings.endImageInput } : {}),
    ...(settings.durations?.length ? { durations: settings.durations } : {}),
    ...(settings.textOnly !== undefined ? { textOnly: settings.textOnly } : {}),
  };
  // Where a request with an end frame goes when the model takes none; an operator's model is
  // assumed to take it as Kling does (`tail_image_url`) when we do not know it.
  const endTarget = caps.end ? undefined : (settings.endFrameModel ?? base.endFrameModel);
  const endModel = endTarget && endTarget !== 'none' ? falEndpointId(endTarget) : undefined;
  const endCaps = endModel ? tableOf(endModel, 'tail_image_url') : undefined;
  if (endModel && !endCaps?.end) throw new Error(`fal: the end frame model ${endModel} takes no end frame`);
  for (const c of [caps, endCaps]) if (c?.aspectRatios) parseRatios(c.aspectRatios, 'fal');
  const queue = createFalQueue(settings, deps, {
    defaultTimeoutMs: DEFAULT_VIDEO_TIMEOUT_MS,
    poll: { intervalMs: 2000, maxIntervalMs: 10_000 },
  });

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings = checkRequest(req, { label: FAL_LABEL, textOnly: caps.textOnly }, settings.conform);
    let endpoint = model;
    let use = caps;
    if (req.endFrame && !caps.end) {
      if (endModel && endCaps) {
        endpoint = endModel;
        use = endCaps;
        warnings.push(endFrameRouted(`${model} takes no end frame: the video was made by ${endModel}, which does`));
      } else {
        warnings.push(endFrameDropped(`${FAL_LABEL}'s ${model} takes no end frame: it was not sent`));
      }
    }

    const input: Record<string, unknown> = {
      prompt: req.prompt,
      duration: String(nearestDuration(use.durations, req.durationSeconds)),
    };
    if (use.aspectRatios)
      input.aspect_ratio = nearestSize(parseRatios(use.aspectRatios, 'fal'), req.width, req.height).text;
    const fs = queue.session(req.signal);
    if (req.startFrame && use.image) input[use.image] = await fs.input(req.startFrame, 'start frame', warnings);
    if (req.endFrame && use.end) input[use.end] = await fs.input(req.endFrame, 'end frame', warnings);
    Object.assign(input, settings.extraInput);

    const out = await fs.run<Output>(endpoint, input);
    const url = str(out?.video?.url);
    if (!url) throw fs.http.fail(`${FAL_LABEL} finished the job without a video (no video.url)`, true);
    return finishVideo(fs.http, req, url, { label: FAL_LABEL, engine: `fal:${endpoint}`, warnings, limits: settings });
  });
}

/** VIDEO_ENGINE=fal (fal.ai): a hosted provider, its VIDEO_* settings the shared ones (hostedVideoProvider, ../video-provider.ts). */
export const falVideoProvider = hostedVideoProvider<'fal', FalVideoSettings>('fal', createFalVideoEngine);

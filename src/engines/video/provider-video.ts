/**
 * What the video provider adapters (runway, luma, fal, replicate, comfyui) share on top of the
 * image providers' HTTP helpers (src/engines/image/provider-http.ts; input frames travel by
 * src/engines/image/provider-inputs.ts): the end-frame warnings, duration picking, which request shapes a provider can take, a bounded download of the result
 * video (off-origin: through the public-only `downloadFetcher`, without the key), cancel on
 * timeout/abort, the HTTP session and the status polling of a job, and the final conform
 * (./conform.ts).
 */
import {
  cancelOnGiveUp,
  type ProviderDeps,
  type ProviderLimits,
  type ProviderSession,
  providerSessions,
  type RetryPolicy,
} from '../image/provider-http.ts';
import { type EngineWarning, GenerationError } from '../image/scene-engine.ts';
import type { VideoEngine, VideoRequest, VideoResult } from './video-engine.ts';
import { type ConformOptions, conformProviderVideo, requestShape } from './conform.ts';

/** Bounds every video provider's settings accept. */
export interface VideoProviderLimits extends ProviderLimits {
  /** Largest result video downloaded. Default 200 MiB. */
  maxVideoBytes?: number;
  /** Conform bounds (request size/length, ffmpeg time). */
  conform?: Omit<ConformOptions, 'engine' | 'warnings'>;
  /**
   * The provider's model for a request with an end frame when `model` takes none (VIDEO_END_FRAME_MODEL);
   * `none` drops the end frame with an END_FRAME_UNSUPPORTED warning. Default: the adapter's own.
   */
  endFrameModel?: string;
}

/** Generation, polls and download: video providers take minutes. Default 10 min. */
export const DEFAULT_VIDEO_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_VIDEO_BYTES = 200 * 1024 * 1024;

/** The allowed duration nearest `seconds` (ties: the longer, so less is held). */
export function nearestDuration(allowed: readonly number[], seconds: number): number {
  let best: number | undefined;
  for (const d of allowed) {
    if (best === undefined) best = d;
    const dd = Math.abs(d - seconds);
    const bd = Math.abs(best - seconds);
    if (dd < bd - 1e-9 || (Math.abs(dd - bd) <= 1e-9 && d > best)) best = d;
  }
  if (best === undefined) throw new Error('nearestDuration: no durations');
  return best;
}

export interface ProviderModes {
  /** The provider's label for messages. */
  label: string;
  /** A request without a start frame or references (prompt only) can be made. */
  textOnly: boolean;
}

/**
 * Checks the request can be made by this provider (before any call) and lists what will not be
 * sent. No provider here has a reference-to-video mode: references without a start frame are
 * refused; references beside a start frame are not sent (warning). Intermediate frames are never
 * sent (warning).
 */
export function checkRequest(req: VideoRequest, m: ProviderModes, conform?: VideoProviderLimits['conform']) {
  requestShape(req, conform);
  const warnings: EngineWarning[] = [];
  if (!req.startFrame) {
    if (req.references?.length) {
      throw new GenerationError(
        `${m.label} has no reference-to-video mode here: give a start frame (e.g. a scene) or use the local engine for a montage of references`,
        false,
      );
    }
    if (req.endFrame) throw new GenerationError(`${m.label} needs a start frame when an end frame is given`, false);
    if (!m.textOnly) {
      throw new GenerationError(
        `${m.label}'s model makes videos from a start frame; give a start frame (e.g. a scene)`,
        false,
      );
    }
  } else if (req.references?.length) {
    warnings.push(notSent(`${m.label} takes a start frame, not references: ${req.references.length} not sent`));
  }
  if (req.intermediateFrames?.length) {
    warnings.push(notSent(`${m.label} takes no intermediate frames: ${req.intermediateFrames.length} not sent`));
  }
  return warnings;
}

export const notSent = (message: string): EngineWarning => ({ code: 'INPUT_NOT_SENT', severity: 'warning', message });

/** The end frame went to another model (or mode) of the family that takes one (VIDEO_END_FRAME_MODEL). */
export const endFrameRouted = (message: string): EngineWarning => ({
  code: 'END_FRAME_MODEL',
  severity: 'info',
  message,
});

/** The end frame was not sent: the model takes none and no model that does was configured (or `none`). */
export const endFrameDropped = (message: string): EngineWarning => ({
  code: 'END_FRAME_UNSUPPORTED',
  severity: 'warning',
  message,
});

const VIDEO_SIGNATURES = [
  (b: Buffer) => b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp',
  // Some encoders put a free/wide/mdat/moov box first.
  (b: Buffer) => b.length >= 12 && ['moov', 'mdat', 'wide', 'free', 'skip'].includes(b.toString('latin1', 4, 8)),
];

/**
 * The result video's bytes: a `data:` URI decoded, or the URL downloaded (on another origin than
 * the API's: through `downloadFetcher`, without credentials), at most `maxBytes`. Bytes that are
 * not an MP4/QuickTime file fail here (non-retryable); conform probes them further.
 */
export async function downloadVideo(
  s: ProviderSession,
  label: string,
  url: string,
  maxBytes?: number,
): Promise<Buffer> {
  const max = maxBytes ?? DEFAULT_MAX_VIDEO_BYTES;
  let bytes: Buffer;
  const data = /^data:([^;,]*)(;base64)?,/i.exec(url);
  if (data) {
    if (url.length > Math.ceil((max * 4) / 3) + data[0].length + 4) {
      throw s.fail(`${label} returned a result video larger than ${max} bytes`);
    }
    const payload = url.slice(data[0].length);
    bytes = data[2] ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
  } else {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw s.fail(`${label} returned an invalid result video URL`, true);
    }
    bytes = (
      await s.raw(new URL(url).href, {
        what: 'downloading the result video',
        accept: 'video/mp4,video/*;q=0.9,*/*;q=0.1',
        maxBytes: max,
      })
    ).body;
  }
  if (bytes.length === 0) throw s.fail(`${label} returned an empty result video`, true);
  if (bytes.length > max) throw s.fail(`${label} returned a result video larger than ${max} bytes`);
  if (!VIDEO_SIGNATURES.some((f) => f(bytes))) throw s.fail(`${label} returned a result that is not an MP4 video`);
  return bytes;
}

/** cancelOnGiveUp (provider-http.ts) for a video request, with the timeout message reworded for a video. */
export async function cancelVideoOnGiveUp<T>(
  s: ProviderSession,
  req: VideoRequest,
  work: () => Promise<T>,
  cancel: () => Promise<void>,
): Promise<T> {
  try {
    return await cancelOnGiveUp(s, req.signal, work, cancel);
  } catch (err) {
    throw videoWording(err);
  }
}

/** The shared HTTP helpers' timeout message names an image: reworded for a video. */
export function videoWording(err: unknown): unknown {
  if (err instanceof GenerationError && /did not finish the image/.test(err.message)) {
    return new GenerationError(err.message.replace('the image', 'the video'), err.retryable, { cause: err });
  }
  return err;
}

/** Downloads the provider's result and conforms it to the request. */
export async function finishVideo(
  s: ProviderSession,
  req: VideoRequest,
  url: string,
  o: { label: string; engine: string; warnings: EngineWarning[]; limits: VideoProviderLimits },
): Promise<VideoResult> {
  const bytes = await downloadVideo(s, o.label, url, o.limits.maxVideoBytes).catch((err: unknown) => {
    throw videoWording(err);
  });
  return conformProviderVideo(bytes, req, { ...o.limits.conform, engine: o.engine, warnings: o.warnings });
}

/** A string member of a provider answer, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** An id a provider answered, safe to put in a path. */
export function validId(s: ProviderSession, label: string, id: unknown, what: string): string {
  if (typeof id !== 'string' || !/^[\w.-]{1,128}$/.test(id))
    throw s.fail(`${label} answered ${what} without a valid id`, true);
  return id;
}

/** A VideoEngine whose errors are reworded for a video (see videoWording). */
export function providerEngine(name: string, generate: (req: VideoRequest) => Promise<VideoResult>): VideoEngine {
  return {
    name,
    generate: (req) =>
      generate(req).catch((err: unknown) => {
        throw videoWording(err);
      }),
  };
}

/**
 * The provider's HTTP helpers (src/engines/image/provider-http.ts) for a video adapter: `headers`
 * sent to `baseUrl`, the API key kept out of messages, the video default timeout. Answers a
 * function opening the session of one request (aborted by its signal).
 */
export function videoProviderSessions(
  settings: VideoProviderLimits & { apiKey?: string },
  deps: ProviderDeps,
  o: { label: string; baseUrl: string; headers: Record<string, string>; retry?: RetryPolicy },
): (req: VideoRequest) => ProviderSession {
  return providerSessions(settings, deps, {
    label: o.label,
    apiOrigin: o.baseUrl,
    headers: o.headers,
    ...(o.retry ? { retry: o.retry } : {}),
    defaultTimeoutMs: DEFAULT_VIDEO_TIMEOUT_MS,
  });
}

/** The waits between polls: the settings' ones, else the provider's defaults. */
export const pollIntervals = (
  settings: { pollIntervalMs?: number; maxPollIntervalMs?: number },
  intervalMs: number,
  maxIntervalMs: number,
) => ({
  intervalMs: settings.pollIntervalMs ?? intervalMs,
  maxIntervalMs: settings.maxPollIntervalMs ?? maxIntervalMs,
});

export interface JobPoll<J, R> {
  /** The job's status URL. */
  url: string;
  /** The call, in messages ("checking the task"). */
  what: string;
  /** The status member of an answer. */
  status: (answer: J) => unknown;
  /** The (retryable) failure for an answer without a status ("Runway answered a task without a status"). */
  noStatus: string;
  /** Statuses polled again. */
  pending: ReadonlySet<string>;
  /** The result of a job no longer pending (or the error it throws). */
  settle: (status: string, answer: J) => R;
  intervals: { intervalMs: number; maxIntervalMs: number };
  /** Asks the provider to cancel the job (see cancelOnGiveUp). */
  cancel: () => Promise<void>;
}

/** Polls a job's status until it is no longer pending; cancels it on timeout or abort. */
export function pollJob<J, R>(s: ProviderSession, req: VideoRequest, o: JobPoll<J, R>): Promise<R> {
  return cancelVideoOnGiveUp(
    s,
    req,
    () =>
      s.poll(async () => {
        const answer = (await s.json<J>(o.url, { what: o.what })).json;
        const status = str(answer == null ? undefined : o.status(answer));
        if (!status) throw s.fail(o.noStatus, true);
        if (o.pending.has(status)) return undefined;
        return o.settle(status, answer);
      }, o.intervals),
    o.cancel,
  );
}

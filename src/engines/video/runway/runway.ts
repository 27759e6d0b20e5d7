import { isIP } from 'node:net';
import sharp from 'sharp';
import {
  authorization,
  createProviderHttp,
  encodeMultipart,
  nearestSize,
  type ProviderDeps,
  parseRatios,
  stainlessRetry,
  trimBase,
  truncateUtf16,
} from '../../image/provider-http.ts';
import { type InputHost, type InputRoute, prepareInput, toPngInput } from '../../image/provider-inputs.ts';
import { GenerationError } from '../../image/scene-engine.ts';
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
 * Videos by Runway's API (image to video), as its official SDK (runwayml/sdk-node 4.12.0) sends them:
 *
 * 1. the frames: cover-cropped to the ratio sent (clamped to the 0.5–2 width/height Runway takes
 *    for an input image) and no larger than that ratio's pixels, then sent as (in order) a
 *    short-lived HTTPS link to our storage (`deps.inputHost`), an ephemeral upload
 *    (`POST /v1/uploads` → presigned multipart POST without our key → `runway://…`), or a data URI
 *    under Runway's 5 MB limit (PNG, else JPEG with INPUT_DEGRADED);
 * 2. `POST {baseUrl}/v1/image_to_video` with `Authorization: Bearer <apiKey>` and
 *    `X-Runway-Version: 2024-11-06`, body `{ model, promptImage, ratio, duration, promptText?,
 *    seed?, audio? }` shaped by the model's row in RUNWAY_MODELS (which ratios and durations,
 *    whether it takes a seed, a last frame, audio); answers `{ id }`;
 * 3. `GET {baseUrl}/v1/tasks/{id}` is polled (Runway asks for ≥ 5 s between polls) while
 *    `PENDING` / `THROTTLED` / `RUNNING`, until `SUCCEEDED` (`output`: URLs, the first is used),
 *    `FAILED` (`failure`, `failureCode`) or `CANCELLED`;
 * 4. the output (Runway's CDN, another origin: no key) is downloaded and conformed to the request.
 *
 * An end frame goes as `promptImage: [{ position: 'first' }, { position: 'last' }]` only to a model
 * that takes a last frame (veo3.1, veo3.1_fast); for the others it goes to `endFrameModel` when set
 * (VIDEO_END_FRAME_MODEL, END_FRAME_MODEL warning), else it is dropped (END_FRAME_UNSUPPORTED).
 * Calls are retried under the SDK's policy (`stainlessRetry`). On timeout or abort the task is
 * deleted (`DELETE /v1/tasks/{id}`, best effort). Needs a start frame: text-only and
 * references-only requests are refused (non-retryable).
 */
export interface RunwaySettings extends VideoProviderLimits {
  /** Default `https://api.dev.runwayml.com`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Default `gen4_turbo`. */
  model?: string;
  /** `X-Runway-Version`. Default `2024-11-06`. */
  apiVersion?: string;
  /** Overrides `model`'s output ratios (`W:H` in px); the nearest is sent. Default: its RUNWAY_MODELS row. */
  ratios?: string[];
  /** Overrides `model`'s durations (s); the nearest is sent. Default: its RUNWAY_MODELS row. */
  durations?: number[];
  /**
   * Overrides `model`'s row of RUNWAY_MODELS (a model not in the table starts from
   * RUNWAY_UNKNOWN_MODEL: gen4_turbo's ratios, 5 or 10 s, no seed, first frame only).
   */
  capabilities?: Partial<RunwayModelCapabilities>;
  /**
   * Without a public link, frames go by Runway's ephemeral uploads API (≥ 512 bytes; smaller ones
   * as data URIs). Default true; false: data URIs only (JPEG with INPUT_DEGRADED when the PNG is
   * over Runway's 5 MB limit).
   */
  uploads?: boolean;
  /**
   * Extra body members for `model` (e.g. `contentModeration` for gen4_turbo / gen4.5). The
   * members this adapter sets (model, promptImage, ratio, duration, promptText, seed, audio) win.
   * Not sent with a request routed to `endFrameModel`.
   */
  extraInput?: Record<string, unknown>;
  /** First wait between polls. Default 5 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 15 s. */
  maxPollIntervalMs?: number;
}

/** What one Runway image-to-video model takes (runwayml/sdk-node src/resources/image-to-video.ts). */
export interface RunwayModelCapabilities {
  /** `ratio` values (`W:H` in px); the one nearest the request is sent. */
  ratios: readonly string[];
  /** `duration` values (s); the one nearest the request is sent. */
  durations: readonly number[];
  /** Takes `seed`. */
  seed: boolean;
  /** Takes a `promptImage` item at position `last` (an end frame). */
  lastFrame: boolean;
  /** Longest `promptText`, in UTF-16 code units. */
  promptMax: number;
  /** `promptText` is required. */
  promptRequired: boolean;
  /** Takes `audio` (boolean; sent as the request's enableAudio: audio is billed). */
  audio: boolean;
}

export const RUNWAY_RATIOS = ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'];
const VEO_RATIOS = ['1280:720', '720:1280', '1080:1920', '1920:1080'];
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** veo3.1 and veo3.1_fast take the same request (RUNWAY_MODELS). */
const VEO31: RunwayModelCapabilities = {
  ratios: VEO_RATIOS,
  durations: [4, 6, 8],
  seed: false,
  lastFrame: true,
  promptMax: 1000,
  promptRequired: false,
  audio: true,
};

/**
 * The image-to-video models this adapter knows (runwayml/sdk-node HEAD ecb7e33, 4.12.0,
 * src/resources/image-to-video.ts; lines there). `gen3a_turbo` is not here: it was removed from the
 * API (SDK 72f96f2) and retired on 2026-07-30 (docs.comfy.org Runway video-generation page).
 */
export const RUNWAY_MODELS: Readonly<Record<string, RunwayModelCapabilities>> = {
  // :108-169: ratio required (:119), promptImage position 'first' only (:151), seed (:142),
  // promptText ≤ 1000 UTF-16 units (:131-135); duration typed `number` (:129), documented as
  // "must specify a duration of 2-10 seconds" in SDK 0df86ce image-to-video.ts:75-79.
  gen4_turbo: {
    ratios: RUNWAY_RATIOS,
    durations: range(2, 10),
    seed: true,
    lastFrame: false,
    promptMax: 1000,
    promptRequired: false,
    audio: false,
  },
  // :44-106: duration required, "an integer from 2 to 10" (:46-49), promptText required (:62),
  // ratio (:67), seed (:79), 'first' only (:88).
  'gen4.5': {
    ratios: RUNWAY_RATIOS,
    durations: range(2, 10),
    seed: true,
    lastFrame: false,
    promptMax: 1000,
    promptRequired: true,
    audio: false,
  },
  // :171-222: ratio (:184), audio (:189), duration 4 | 6 | 8 (:194), promptText ≤ 1000 (:202-205),
  // 'first' | 'last' (:215), no seed; "does not support generating with only a last frame" (:176-178).
  'veo3.1': VEO31,
  // :224-275: as veo3.1 (:237, :242, :247, :255-258, :268).
  'veo3.1_fast': VEO31,
  // :604-647: duration required and 8 (:608), ratio (:620), promptText ≤ 1000 (:628-631), 'first' only (:640).
  veo3: {
    ratios: VEO_RATIOS,
    durations: [8],
    seed: false,
    lastFrame: false,
    promptMax: 1000,
    promptRequired: false,
    audio: false,
  },
  // :562-602: 'first' only (:566-568, :595), duration "a whole number from 3 to 10" (:572),
  // ratio 1280:720 | 720:1280 (:586); no promptText limit stated (1000 kept, as the others).
  gemini_omni_flash: {
    ratios: ['1280:720', '720:1280'],
    durations: range(3, 10),
    seed: false,
    lastFrame: false,
    promptMax: 1000,
    promptRequired: false,
    audio: false,
  },
};

/** A model missing from RUNWAY_MODELS: nothing it may not take is sent (settings.capabilities widens it). */
export const RUNWAY_UNKNOWN_MODEL: RunwayModelCapabilities = {
  ratios: RUNWAY_RATIOS,
  durations: [5, 10],
  seed: false,
  lastFrame: false,
  promptMax: 1000,
  promptRequired: false,
  audio: false,
};

/** Runway's data-URI limit: "under 5MB (1024 × 1024 × 5 bytes)", prefix included (docs.dev.runwayml.com/assets/inputs). */
export const RUNWAY_DATA_URI_MAX_CHARS = 5 * 1024 * 1024 - 1;
/** "The minimum uploadable file is 512 bytes" (docs.dev.runwayml.com/assets/uploads). */
const MIN_UPLOAD_BYTES = 512;
/** Input images must be 0.5–2 wide/high (ComfyUI comfy_api_nodes/nodes_runway.py:242, Runway's 400 text). */
const MIN_ASPECT = 0.5;
const MAX_ASPECT = 2;

interface Task {
  id?: unknown;
  status?: unknown;
  output?: unknown;
  failure?: unknown;
  failureCode?: unknown;
}

interface UploadStarted {
  runwayUri?: unknown;
  uploadUrl?: unknown;
  fields?: unknown;
}

interface Target {
  model: string;
  caps: RunwayModelCapabilities;
  ratios: { width: number; height: number; text: string }[];
}

const LABEL = 'Runway';
const PENDING = new Set(['PENDING', 'THROTTLED', 'RUNNING']);
/**
 * Failure codes Runway says may be retried (docs.dev.runwayml.com/errors/task-failures/:
 * `INTERNAL.BAD_OUTPUT.*` "You may retry these generations"; `INPUT_PREPROCESSING.INTERNAL` is a
 * problem on Runway's side). `SAFETY.*` and `INPUT_PREPROCESSING.SAFETY.*` ("You should not retry")
 * are content-policy refusals (ContentPolicyError, see ProviderSession.failed).
 */
const RETRYABLE_FAILURE = /^(INTERNAL\b|INPUT_PREPROCESSING\.INTERNAL\b)/;

const target = (model: string, caps: RunwayModelCapabilities): Target => ({
  model,
  caps,
  ratios: parseRatios(caps.ratios, `runway ${model}`),
});

export function createRunwayVideoEngine(settings: RunwaySettings, deps: ProviderDeps): VideoEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.dev.runwayml.com');
  const model = settings.model ?? 'gen4_turbo';
  const main = target(model, {
    ...(RUNWAY_MODELS[model] ?? RUNWAY_UNKNOWN_MODEL),
    ...settings.capabilities,
    ...(settings.ratios ? { ratios: settings.ratios } : {}),
    ...(settings.durations ? { durations: settings.durations } : {}),
  });
  if (main.caps.durations.length === 0) throw new Error(`runway ${model}: no durations`);
  const endRoute = endFrameRoute(main, settings.endFrameModel);
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl,
    headers: { ...authorization('Bearer', settings.apiKey), 'x-runway-version': settings.apiVersion ?? '2024-11-06' },
    retry: stainlessRetry,
  });
  // The presigned upload URL is storage on another origin: no key, the public-only fetcher
  // (runwayml/sdk-node src/resources/uploads.ts:38-42 posts there with no Authorization header).
  // Its own session (no headers at all, whatever origin Runway answers), same retry policy.
  const storage = createProviderHttp(
    {
      ...settings,
      label: LABEL,
      apiOrigin: baseUrl,
      headers: {},
      retry: stainlessRetry,
      secrets: [settings.apiKey],
    },
    { ...deps, fetcher: deps.downloadFetcher ?? deps.fetcher },
  );
  const host = runwayLinks(deps.inputHost);

  return providerEngine(`runway:${model}`, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings = checkRequest(req, { label: LABEL, textOnly: false }, settings.conform);
    let to = main;
    let endFrame = req.endFrame;
    if (endFrame && !main.caps.lastFrame) {
      if (endRoute) {
        to = endRoute;
        warnings.push(
          endFrameRouted(
            `Runway's ${model} takes no end frame, so this video was made by ${to.model} (VIDEO_END_FRAME_MODEL) with the start and end frames${settings.extraInput ? '; the extra input set for the configured model was not sent' : ''}`,
          ),
        );
      } else {
        endFrame = undefined;
        warnings.push(
          endFrameDropped(
            `Runway's ${model} takes only a first frame: the end frame was not sent${settings.endFrameModel === 'none' ? '' : ' (set VIDEO_END_FRAME_MODEL=veo3.1 to send such requests to a model that takes one)'}`,
          ),
        );
      }
    }
    const caps = to.caps;
    const prompt = req.prompt.trim();
    if (caps.promptRequired && !prompt) {
      throw new GenerationError(`Runway's ${to.model} needs a prompt describing the video`, false);
    }
    const promptText = truncateUtf16(prompt, caps.promptMax);
    if (promptText.length < prompt.length) {
      warnings.push({
        code: 'PROMPT_TRUNCATED',
        severity: 'warning',
        message: `The prompt was cut to the ${caps.promptMax} characters Runway's ${to.model} takes`,
      });
    }
    if (!caps.seed) {
      warnings.push({
        code: 'SEED_NOT_SUPPORTED',
        severity: 'info',
        message: `Runway's ${to.model} takes no seed: the same request can give another video`,
      });
    }
    const ratio = nearestSize(to.ratios, req.width, req.height);

    const s = session(req);
    const upload = async (bytes: Buffer, file: { name: string; contentType: string }): Promise<string> => {
      // runwayml/sdk-node src/resources/uploads.ts:90-93 (start), :25-42 (fields, then `file`), :107 (the URI).
      const started = (
        await s.json<UploadStarted>(`${baseUrl}/v1/uploads`, {
          json: { filename: file.name, type: 'ephemeral' },
          what: `starting the upload of the ${file.name}`,
        })
      ).json;
      const uri = str(started?.runwayUri);
      const url = str(started?.uploadUrl);
      const fields = started?.fields;
      if (
        !uri?.startsWith('runway://') ||
        !url ||
        !URL.canParse(url) ||
        !/^https?:$/.test(new URL(url).protocol) ||
        !fields ||
        typeof fields !== 'object' ||
        Object.values(fields).some((v) => typeof v !== 'string')
      ) {
        throw s.fail(`${LABEL} answered an upload without a runway:// URI, an upload URL and its fields`, true);
      }
      const form = await encodeMultipart([
        ...Object.entries(fields as Record<string, string>),
        ['file', { bytes, filename: file.name, contentType: file.contentType }],
      ]);
      const put = storage.session({
        ...(req.signal ? { signal: req.signal } : {}),
        timeoutMs: Math.max(1, s.remainingMs()),
      });
      await put.raw(new URL(url).href, { body: form, accept: '*/*', what: `uploading the ${file.name}` });
      return uri;
    };

    const frame = async (bytes: Buffer, what: string) => {
      const png = await fitFrame(bytes, what, ratio);
      const route: InputRoute = {
        label: LABEL,
        host,
        ...(settings.uploads !== false && png.length >= MIN_UPLOAD_BYTES ? { upload } : {}),
        dataUri: { maxChars: RUNWAY_DATA_URI_MAX_CHARS },
      };
      return (await prepareInput(png, what, route, warnings)).ref;
    };
    const first = await frame(req.startFrame as Buffer, 'start frame');
    const promptImage = endFrame
      ? [
          { uri: first, position: 'first' },
          { uri: await frame(endFrame, 'end frame'), position: 'last' },
        ]
      : first;
    const body = {
      ...(to === main ? settings.extraInput : {}),
      model: to.model,
      promptImage,
      ratio: ratio.text,
      duration: nearestDuration(caps.durations, req.durationSeconds),
      ...(promptText ? { promptText } : {}),
      ...(caps.seed ? { seed: req.seed >>> 0 } : {}),
      ...(caps.audio ? { audio: !!req.enableAudio } : {}),
    };
    const created = (await s.json<Task>(`${baseUrl}/v1/image_to_video`, { json: body, what: 'creating the task' }))
      .json;
    const id = validId(s, LABEL, created?.id, 'the task');
    const taskUrl = `${baseUrl}/v1/tasks/${id}`;

    const url = await pollJob(s, req, {
      url: taskUrl,
      what: 'checking the task',
      status: (t: Task) => t.status,
      noStatus: `${LABEL} answered a task without a status`,
      pending: PENDING,
      settle: (status, t) => {
        if (status === 'SUCCEEDED') {
          const out = Array.isArray(t.output) ? t.output.find((o) => typeof o === 'string') : str(t.output);
          if (!out) throw s.fail(`${LABEL} finished the task without an output URL`, true);
          return out as string;
        }
        if (status === 'CANCELLED') throw s.fail(`The ${LABEL} task was cancelled or deleted`);
        const code = str(t.failureCode);
        const prefix = `${LABEL} reported the task ${status === 'FAILED' ? 'failed' : `as "${status}"`}${code ? ` (${code})` : ''}`;
        if (code && RETRYABLE_FAILURE.test(code)) {
          const reason = str(t.failure);
          throw s.fail(`${prefix}${reason ? `: ${reason}` : ''}`, true);
        }
        throw s.failed({ message: str(t.failure), code }, prefix);
      },
      intervals: pollIntervals(settings, 5000, 15_000),
      cancel: () => s.cancel(taskUrl, 'DELETE'),
    });
    return finishVideo(s, req, url, {
      label: LABEL,
      engine: `runway:${to.model}`,
      warnings,
      limits: settings,
    });
  });
}

/**
 * Where a request with an end frame goes when `main` takes none: `endFrameModel` (a model that
 * takes a last frame), or undefined (dropped, END_FRAME_UNSUPPORTED) when it is unset or `none`.
 * There is no default route: the only first+last model of the Gen family, gen3a_turbo, is retired
 * (removed in runwayml/sdk-node 72f96f2; docs.comfy.org: retired 2026-07-30), and sending
 * gen4_turbo's requests to Google's Veo would change the model and the price unasked.
 */
function endFrameRoute(main: Target, endFrameModel: string | undefined): Target | undefined {
  const name = endFrameModel?.trim();
  if (main.caps.lastFrame || !name || name === 'none') return undefined;
  const known = RUNWAY_MODELS[name];
  if (known && !known.lastFrame) {
    const takers = Object.keys(RUNWAY_MODELS).filter((m) => RUNWAY_MODELS[m]?.lastFrame);
    throw new Error(
      `runway: VIDEO_END_FRAME_MODEL "${name}" takes no end frame either; use ${takers.join(' or ')}, or none`,
    );
  }
  // A model this table does not know is taken at the operator's word: it takes a last frame.
  return target(name, known ?? { ...RUNWAY_UNKNOWN_MODEL, lastFrame: true });
}

/**
 * Our public links, only when Runway can fetch them: HTTPS, a host name (not an IP address), at
 * most 2048 characters (docs.dev.runwayml.com/assets/inputs, "Inputs using URLs"); otherwise the
 * next way (upload, data URI).
 */
function runwayLinks(host: InputHost | undefined): InputHost | undefined {
  if (!host) return undefined;
  return {
    async publish(bytes, o) {
      const url = await host.publish(bytes, o);
      if (!url || url.length > 2048 || !URL.canParse(url)) return undefined;
      const u = new URL(url);
      return u.protocol === 'https:' && isIP(u.hostname.replace(/^\[|\]$/g, '')) === 0 ? url : undefined;
    },
  };
}

/**
 * A frame as Runway should get it: oriented PNG, centre-cropped to the ratio sent (Runway would
 * otherwise crop it itself) but never outside the 0.5–2 width/height it takes for an input image
 * (1584:672 is 2.36: cropped to 2, Runway crops the rest), and no larger than the ratio's pixels
 * (the output's size: more is not used and only costs bytes).
 */
async function fitFrame(bytes: Buffer, what: string, ratio: { width: number; height: number }): Promise<Buffer> {
  const png = await toPngInput(bytes, what);
  const meta = await sharp(png).metadata();
  const w = meta.width ?? 1;
  const h = meta.height ?? 1;
  const aspect = w / h;
  // Within 0.5 % of the ratio: left as is (Runway's own crop is then a few pixels at most).
  const near = Math.abs(Math.log(aspect / (ratio.width / ratio.height))) <= Math.log(1.005);
  const want = Math.min(MAX_ASPECT, Math.max(MIN_ASPECT, near ? aspect : ratio.width / ratio.height));
  let cw = w;
  let ch = h;
  if (want < aspect) cw = Math.max(1, Math.round(h * want));
  else if (want > aspect) ch = Math.max(1, Math.round(w / want));
  const maxSide = Math.max(ratio.width, ratio.height);
  if (cw === w && ch === h && Math.max(w, h) <= maxSide) return png;
  let img = sharp(png);
  if (cw !== w || ch !== h) {
    img = img.extract({ left: Math.floor((w - cw) / 2), top: Math.floor((h - ch) / 2), width: cw, height: ch });
  }
  if (Math.max(cw, ch) > maxSide) img = img.resize({ width: maxSide, height: maxSide, fit: 'inside' });
  return img.png().toBuffer();
}

/** VIDEO_ENGINE=runway (Runway): a hosted provider, its VIDEO_* settings the shared ones (hostedVideoProvider, ../video-provider.ts). */
export const runwayVideoProvider = hostedVideoProvider<'runway', RunwaySettings>('runway', createRunwayVideoEngine);

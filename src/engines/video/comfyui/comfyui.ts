import {
  type ComfyConnection,
  type ComfyWorkflow,
  comfyRetry,
  createComfyClient,
  LABEL,
  loadWorkflow,
  pickVideo,
  placeholdersIn,
  requestVars,
  substitute,
  VIDEO_TEMPLATE,
} from '../../image/comfyui/comfy-client.ts';
import { contentName, type ProviderDeps, withDefaultFetchers } from '../../image/provider-http.ts';
import { toPngInput } from '../../image/provider-inputs.ts';
import type { EngineWarning } from '../../image/scene-engine.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import { videoApiEnv, type VideoProvider } from '../video-provider.ts';
import { ifSet, str as envString } from '../../shared/env-settings.ts';
import { requestShape } from '../conform.ts';
import {
  checkRequest,
  endFrameDropped,
  finishVideo,
  providerEngine,
  type VideoProviderLimits,
  videoProviderSessions,
} from '../provider-video.ts';

/**
 * Videos by a self-hosted ComfyUI server running an image-to-video workflow: by default the
 * shipped config/comfyui/image-to-video.json (Wan 2.2 TI2V 5B, Apache 2.0: the start frame, the
 * prompt, `Wan22ImageToVideoLatent` → KSampler → VAEDecode → CreateVideo → SaveVideo as MP4), or
 * any API-format workflow of the operator's with these placeholders:
 *
 * | placeholder            | replaced by                                                           |
 * | ---------------------- | --------------------------------------------------------------------- |
 * | `{{start_image}}`      | the start frame, uploaded (the name a LoadImage node takes)           |
 * | `{{end_image}}`        | the end frame, uploaded (for a first-last-frame workflow); without    |
 * |                        | it in the workflow, an end frame is dropped with END_FRAME_UNSUPPORTED |
 * | `{{prompt}}`           | the request's prompt                                                  |
 * | `{{negative_prompt}}`  | the `negativePrompt` setting                                          |
 * | `{{seed}}`             | the seed (a number)                                                   |
 * | `{{width}}`/`{{height}}` | the generation size: the request's aspect at the model's pixel      |
 * |                        | budget (`maxPixels`), multiples of `sizeMultiple`                     |
 * | `{{frames}}`           | frames to generate: 1 + 4k (Wan's latent packs 4 frames), for the     |
 * |                        | request's duration at the model's `fps`, at most `maxFrames`          |
 * | `{{fps}}`              | the model's native frame rate (`fps`), for CreateVideo                |
 *
 * The run (upload, our own prompt id, history polls, lost jobs, cancel by queue delete then
 * interrupt): src/engines/image/comfyui/comfy-client.ts. The result is the first MP4 the
 * workflow saved (SaveVideo puts it under `images` with `animated: [true]`), downloaded from
 * `/view` and conformed to the request (size, fps, exact duration) by ./conform.ts.
 */
export interface ComfyUiVideoSettings extends VideoProviderLimits, ComfyConnection {
  /** The API-format workflow, or the path of its JSON file. Default: the shipped image-to-video template. */
  workflow?: ComfyWorkflow | string;
  /** The node whose video is the result. Default: the first node with a saved MP4. */
  outputNode?: string;
  /** First wait between history polls. Default 2 s. */
  pollIntervalMs?: number;
  /** Longest wait between history polls. Default 10 s. */
  maxPollIntervalMs?: number;
  /** The model's native frame rate (`{{fps}}`). Default 24 (Wan 2.2 TI2V 5B; Wan 2.1: 16). */
  fps?: number;
  /** Most frames generated (`{{frames}}`). Default 121 (5 s at 24 fps, Wan 2.2 5B's recommended length). */
  maxFrames?: number;
  /** Frames are 1 + k × this. Default 4 (Wan's temporal compression, nodes_wan.py latent length). */
  frameStep?: number;
  /** The generation's pixel budget (`{{width}}` × `{{height}}`). Default 1280 × 704 (Wan 2.2 5B). */
  maxPixels?: number;
  /** The generation size's sides are multiples of this. Default 32 (Wan22ImageToVideoLatent's step). */
  sizeMultiple?: number;
  /** `{{negative_prompt}}`. Default: DEFAULT_VIDEO_NEGATIVE_PROMPT. */
  negativePrompt?: string;
  /** Longest side of the uploaded frames. Default 2048. */
  maxInputSide?: number;
}

export const DEFAULT_VIDEO_NEGATIVE_PROMPT =
  'static frame, blurry, low quality, jpeg artifacts, flicker, distorted product, deformed, morphing, extra objects, text, watermark, subtitles';

/** Wan on one consumer GPU takes minutes: 30 min by default (VIDEO_TIMEOUT_SECONDS overrides). */
export const DEFAULT_COMFYUI_VIDEO_TIMEOUT_MS = 1_800_000;

const NUMERIC = new Set(['seed', 'width', 'height', 'frames', 'fps']);
const TEXT = new Set(['prompt', 'negative_prompt', 'start_image', 'end_image']);
const known = (name: string) => NUMERIC.has(name) || TEXT.has(name);

/** Frames to generate for `seconds` at `fps`: 1 + k·step, k ≥ 1, at most `max`. */
export function frameCount(seconds: number, fps: number, step: number, max: number): number {
  const want = Math.round(seconds * fps);
  const k = Math.max(1, Math.round((want - 1) / step));
  const most = Math.max(1, Math.floor((max - 1) / step));
  return 1 + step * Math.min(k, most);
}

/** The request's aspect at `maxPixels` (up or down: the model works best at its own size), multiples of `multiple`. */
export function videoGenerationSize(
  width: number,
  height: number,
  o: { maxPixels: number; multiple: number },
): { width: number; height: number } {
  const scale = Math.sqrt(o.maxPixels / (width * height));
  const m = o.multiple;
  const round = (v: number) => Math.max(m, Math.round((v * scale) / m) * m);
  return { width: round(width), height: round(height) };
}

export function createComfyUiVideoEngine(settings: ComfyUiVideoSettings, deps: ProviderDeps): VideoEngine {
  const { workflow, name: workflowName } = loadWorkflow(settings.workflow ?? VIDEO_TEMPLATE, known);
  const used = placeholdersIn(workflow);
  if (!used.has('start_image')) {
    throw new Error('comfyui: the video workflow must load the start frame ({{start_image}} in a LoadImage node)');
  }
  const name = `comfyui:${workflowName}`;
  const client = createComfyClient(settings, deps);
  const session = videoProviderSessions(
    { ...settings, timeoutMs: settings.timeoutMs ?? DEFAULT_COMFYUI_VIDEO_TIMEOUT_MS },
    deps,
    { label: LABEL, baseUrl: client.baseUrl, headers: client.headers, retry: comfyRetry },
  );
  const fps = settings.fps ?? 24;
  const maxSide = settings.maxInputSide ?? 2048;

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings: EngineWarning[] = checkRequest(req, { label: LABEL, textOnly: false }, settings.conform);
    const shape = requestShape(req, settings.conform);
    const s = session(req);
    const size = videoGenerationSize(req.width, req.height, {
      maxPixels: settings.maxPixels ?? 1280 * 704,
      multiple: settings.sizeMultiple ?? 32,
    });
    const vars: Record<string, string | number> = {
      ...requestVars(req, settings.negativePrompt ?? DEFAULT_VIDEO_NEGATIVE_PROMPT, size),
      frames: frameCount(shape.seconds, fps, settings.frameStep ?? 4, settings.maxFrames ?? 121),
      fps,
    };
    const upload = async (bytes: Buffer, what: string, prefix: string) => {
      const png = await toPngInput(bytes, what, maxSide);
      return client.upload(s, png, contentName(png, prefix), what);
    };
    vars.start_image = await upload(req.startFrame as Buffer, 'start frame', 'atelier-start');
    if (req.endFrame) {
      if (used.has('end_image')) vars.end_image = await upload(req.endFrame, 'end frame', 'atelier-end');
      else {
        warnings.push(
          endFrameDropped(
            `The ComfyUI workflow ${workflowName} takes no end frame ({{end_image}}); the end frame was not sent`,
          ),
        );
      }
    } else if (used.has('end_image')) {
      throw s.fail(`The ComfyUI workflow ${workflowName} needs an end frame ({{end_image}}) but the request has none`);
    }

    const { entry } = await client.run(s, substitute(workflow, vars), {
      ...(settings.outputNode !== undefined ? { outputNode: settings.outputNode } : {}),
      intervals: { intervalMs: settings.pollIntervalMs ?? 2000, maxIntervalMs: settings.maxPollIntervalMs ?? 10_000 },
      warnings,
    });
    const { file, others } = pickVideo(entry, settings.outputNode);
    if (!file) {
      const other = others[0]?.filename.split('.').pop();
      throw s.fail(
        other
          ? `${LABEL} saved the video as .${other}; Atelier reads MP4: save it with SaveVideo (format mp4, codec h264)`
          : `${LABEL} finished the workflow without a video${settings.outputNode ? ` from node ${settings.outputNode}` : ''} (is there a SaveVideo node?)`,
      );
    }
    return finishVideo(s, req, client.viewUrl(file), { label: LABEL, engine: name, warnings, limits: settings });
  });
}

/**
 * VIDEO_ENGINE=comfyui (self-hosted): COMFYUI_URL (default `http://127.0.0.1:8188`; else
 * VIDEO_API_BASE_URL), COMFYUI_VIDEO_WORKFLOW_FILE (default the shipped
 * config/comfyui/image-to-video.json), VIDEO_API_KEY (optional Bearer, for a proxy in front),
 * VIDEO_TIMEOUT_SECONDS (default 1800), VIDEO_MAX_RETRIES. No model, no extra input.
 */
export const comfyUiVideoProvider: VideoProvider<'comfyui', ComfyUiVideoSettings> = {
  kind: 'comfyui',
  parseSettings(env) {
    const api = videoApiEnv(env);
    return {
      ...ifSet('apiKey', api.apiKey),
      ...ifSet('baseUrl', api.comfyUrl || api.baseUrl),
      ...ifSet('workflow', envString(env, 'COMFYUI_VIDEO_WORKFLOW_FILE')),
      ...api.limits,
    };
  },
  create: (settings, deps) => createComfyUiVideoEngine(settings, withDefaultFetchers(deps)),
};

/**
 * The image-to-video prompt enhancement port: what `POST /brands/{brandId}/image-to-video-prompt-enhancements`
 * needs of a text engine — the user's prompt, the model, duration, aspect ratio and audio switch,
 * the frames (start, end, intermediate) or, for the reference-to-video model (`video-model-8`),
 * the reference images and clips, and the active Brand DNA in; a prompt a video director would
 * keep, the camera move it names and warnings out. Two implementations: `local` (rule-based,
 * deterministic, always available; local/video-enhancer.local.ts) and `openai-compatible`
 * (openai-compatible/video-enhancer.openai.ts), chosen by config with `local` as the fallback
 * (createVideoEnhancer in ./index.ts). No database and no HTTP of ours inside: the caller resolves
 * asset ids and the Brand DNA into this input.
 *
 * The camera contract: the enhanced prompt names exactly one move of the local video engine's
 * vocabulary (../video/camera.ts) before any other camera phrase, so `chooseCameraMove(enhancedPrompt)`
 * gives back `camera` — the local engine and the enhancement agree on the shot.
 */

import type { CameraMove } from '../video/camera.ts';
import type { SceneBrandContext } from './scene-enhancer.ts';

export type { CameraMove } from '../video/camera.ts';

/** The aspect ratios of image-to-video generation. */
export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16'] as const;
export type VideoAspectRatio = (typeof VIDEO_ASPECT_RATIOS)[number];

/** The reference-to-video model: references instead of frames, and twice the prompt length. */
export const REFERENCE_VIDEO_MODEL = 'video-model-8';
/** Bounds of `originalPrompt` and the enhanced prompt. */
export const VIDEO_PROMPT_MAX = 2500;
export const VIDEO_PROMPT_MAX_REFERENCE = 5000;

/** The prompt bound of a model: 5000 characters for `video-model-8`, 2500 for the others. */
export const videoPromptMax = (model: string): number =>
  model === REFERENCE_VIDEO_MODEL ? VIDEO_PROMPT_MAX_REFERENCE : VIDEO_PROMPT_MAX;

/**
 * The canonical words of each move: what the enhancers write (and ask a model to write) so that
 * `chooseCameraMove` reads the same move back. Other phrasings the video engine understands are in
 * its vocabulary (../video/camera.ts).
 */
export const VIDEO_CAMERA_PHRASES: Readonly<Record<CameraMove, string>> = {
  static: 'static camera',
  'push-in': 'push-in',
  'pull-out': 'pull-out',
  dolly: 'dolly',
  orbit: 'orbit',
  'pan-left': 'pan left',
  'pan-right': 'pan right',
  'tilt-up': 'tilt up',
  'tilt-down': 'tilt down',
  crane: 'crane up',
};

/** One image or clip, reduced to words (the asset's own description, tags, colours and name). */
export interface FrameContext {
  /** The asset's description, as its owner wrote it. */
  description?: string;
  /** The asset's tags (user and auto tags; technical auto tags such as `high-resolution` are ignored). */
  tags: string[];
  /** Dominant colour names (`orange`, `light-blue`...), strongest first. */
  colors: string[];
  /** The uploaded file name (used when there is no description). */
  fileName?: string;
}

export interface VideoEnhancementInput {
  /** 1..maxChars characters. */
  originalPrompt: string;
  aspectRatio: VideoAspectRatio;
  /** `video-model-1`..`video-model-9` or `optimized` (the API's enum; not checked here). */
  model: string;
  /** The clip's length in seconds (the caller resolves the model's default). */
  durationSeconds: number;
  enableAudio: boolean;
  /** The bound of the enhanced prompt: 2500, or 5000 for `video-model-8` (videoPromptMax). */
  maxChars: number;
  /** The start frame (every model but `video-model-8`). */
  start?: FrameContext;
  /** The end frame, when the model takes one. */
  end?: FrameContext;
  /** Frames between start and end, in time order (the `optimized` model). */
  intermediate: FrameContext[];
  /** `video-model-8` only, in request order. */
  referenceImages: FrameContext[];
  /** `video-model-8` only, in request order. */
  referenceVideos: (FrameContext & { durationSeconds?: number })[];
  /** The active Brand DNA, when the request uses it. */
  brand?: SceneBrandContext;
}

/**
 * Warning codes (severity in brackets; `field` is the request field concerned):
 * - `PROMPT_TRUNCATED` [info, originalPrompt]: everything would not fit in `maxChars`, so the
 *   least important additions were left out (the user's words are kept whole).
 *   [warning] when the user's own text alone does not fit (only possible outside the API, which
 *   caps it) and was cut at a word boundary.
 * - `BRAND_WORD_AVOIDED` [warning, originalPrompt]: the prompt uses a word the Brand DNA lists
 *   among words to avoid (whole-word, case-insensitive). The user's word is KEPT; the message names
 *   it so the client can rephrase. The enhancer itself never adds an avoided word (the
 *   OpenAI-compatible answer is refused and the local one used when it does).
 * - `NO_FRAME_CONTEXT` [info, startFrameAssetId or referenceImageAssetIds]: neither a start frame
 *   nor a reference says anything about what is pictured (none given, or no description, tags,
 *   colours or telling file name): the video is written around the prompt's words alone.
 * - `CAMERA_CONFLICT` [warning, originalPrompt]: the prompt names more than one camera move
 *   ("push in, then orbit"); a clip has one move, and the enhancement (and the local video
 *   engine) follow the first one named.
 * - `AUDIO_CUES_IGNORED` [info, enableAudio]: the prompt describes sound (music, voiceover, sound
 *   effects...) but audio is off: the clip will be silent. The words are kept.
 * - `HARDSPEC_ASPECT_MISMATCH` [warning, aspectRatio]: the prompt asks for a shape the aspect
 *   ratio contradicts (an explicit other ratio, "vertical"/"reel"/"TikTok" with 16:9,
 *   "widescreen"/"banner" with 9:16, a square format with either; same words as the scene
 *   enhancer). The prompt is kept; the composition follows the aspect ratio.
 * - `MULTIPLE_HEROES` [warning, startFrameAssetId or referenceImageAssetIds]: the prompt names as
 *   its subject or hero a product the start frame (or the first reference image) does not show
 *   ("The red cap on a ledge" over a frame of a T-shirt), judged by kind of product and only when
 *   the frame's words say what it shows. A clip has one subject: the frame's product stays the
 *   subject and the other named product is written as secondary; the user's words are kept.
 * - `TEXT_ENGINE_FALLBACK` [warning]: the configured language model (LLM_*) failed or gave an
 *   unusable answer; the built-in enhancer wrote the prompt. The message says why.
 */
export const VIDEO_WARNING_CODES = [
  'PROMPT_TRUNCATED',
  'BRAND_WORD_AVOIDED',
  'NO_FRAME_CONTEXT',
  'CAMERA_CONFLICT',
  'AUDIO_CUES_IGNORED',
  'HARDSPEC_ASPECT_MISMATCH',
  'MULTIPLE_HEROES',
  'TEXT_ENGINE_FALLBACK',
] as const;
export type VideoWarningCode = (typeof VIDEO_WARNING_CODES)[number];

export interface VideoWarning {
  code: VideoWarningCode;
  message: string;
  severity: 'info' | 'warning';
  field?: string;
}

export interface VideoEnhancement {
  /** 1..maxChars characters; names `camera` before any other camera phrase. */
  enhancedPrompt: string;
  /** The move the prompt names: `chooseCameraMove(enhancedPrompt, seed).move` for any seed. */
  camera: CameraMove;
  warnings: VideoWarning[];
  /** Which engine produced it (`local`, `openai-compatible:<model>`). */
  engine: string;
}

export interface VideoEnhanceOptions {
  signal?: AbortSignal;
}

export interface VideoEnhancer {
  /** `local`, `openai-compatible:<model>`, or `<primary>+<fallback>`. */
  readonly name: string;
  enhance(input: VideoEnhancementInput, opts?: VideoEnhanceOptions): Promise<VideoEnhancement>;
}

/**
 * The video model registry: what each `model` id of POST /brands/{brandId}/generate-video accepts.
 * Pure data plus lookups; the rules that read it live in video-rules.ts.
 *
 * Fixed by the spec: the ten ids; the default model `video-model-7`; `video-model-8` is
 * reference-to-video (no start frame, no end frame, references only there, durations
 * 6/8/10/15/20/30); intermediate frames only for `optimized` (1..5, per-duration bounds chosen
 * here); every prompt 1..1000 characters. Everything else below is a decision of this server
 * (the spec says "not shown"), copied to docs/decisions/generation.md:
 *
 * | model         | start frame | end frame | audio | listed durations (s)  | default | max prompts | dimension (each side) |
 * |---------------|-------------|-----------|-------|-----------------------|---------|-------------|-----------------------|
 * | video-model-1 | required    | no        | no    | 5, 10                 | 5       | 4           | 256..1920, even       |
 * | video-model-2 | required    | yes       | no    | 5, 10                 | 5       | 4           | 256..1920, even       |
 * | video-model-3 | required    | no        | yes   | 4, 6, 8               | 8       | 4           | 256..1920, even       |
 * | video-model-4 | required    | yes       | yes   | 4, 6, 8               | 8       | 4           | 256..1920, even       |
 * | video-model-5 | required    | yes       | no    | 5, 10                 | 5       | 4           | 256..1920, even       |
 * | video-model-6 | required    | no        | yes   | 6, 10                 | 6       | 4           | 256..1920, even       |
 * | video-model-7 | required    | yes       | yes   | 5, 8, 10              | 8       | 4           | 256..3840, even       |
 * | video-model-8 | rejected    | rejected  | yes   | 6, 8, 10, 15, 20, 30 ✱ | 6       | 2           | 256..1920, even       |
 * | video-model-9 | required    | yes       | yes   | 4, 6, 8, 10           | 6       | 4           | 256..3840, even       |
 * | optimized     | required    | yes       | no    | 5, 10, 15, 20, 30     | 10      | 4           | 256..1920, even       |
 *
 * ✱ Only `video-model-8` enforces its list (spec rule 4). For the other models the list is what
 *   the model is documented to render well; the spec says the service "does not enforce a general
 *   per-model allow-list", so any integer 1..{@link MAX_VIDEO_DURATION_SECONDS} is accepted.
 * - References: only `video-model-8`; absolute ceilings 30 images and 10 videos (spec), lower
 *   per plan tier (config/plans.json `videoModel8`).
 * - Intermediate frames: only `optimized`; the count sent must lie within the bounds of the
 *   request's duration ({@link intermediateFrameBounds}):
 *
 *   | duration (s) | min | max |
 *   |--------------|-----|-----|
 *   | 1..5         | 1   | 1   |
 *   | 6..10        | 1   | 3   |
 *   | 11..20       | 2   | 4   |
 *   | 21..60       | 3   | 5   |
 *
 *   Omitting them is allowed (the model then interpolates from the start and end frames).
 * - Dimension: width and height integers within the model's side bounds and even (H.264/H.265
 *   4:2:0 output needs even sides); no aspect-ratio rule.
 * - enableAudio true on a model without audio is rejected (400), never silently dropped.
 */

export const VIDEO_MODELS = [
  'video-model-1',
  'video-model-2',
  'video-model-3',
  'video-model-4',
  'video-model-5',
  'video-model-6',
  'video-model-7',
  'video-model-8',
  'video-model-9',
  'optimized',
] as const;
export type VideoModelId = (typeof VIDEO_MODELS)[number];

/** Used when the request omits `model` (spec; clients should always send it). */
export const DEFAULT_VIDEO_MODEL: VideoModelId = 'video-model-7';

/** Upper bound on `duration` for every model (the spec gives only `>= 1`; this server's ceiling). */
export const MAX_VIDEO_DURATION_SECONDS = 60;
/** Each entry of `userPrompts` (spec). */
export const VIDEO_PROMPT_MIN_CHARS = 1;
export const VIDEO_PROMPT_MAX_CHARS = 1000;
/** Absolute ceilings for `video-model-8` references (spec); plans cap lower. */
export const MAX_REFERENCE_IMAGES = 30;
export const MAX_REFERENCE_VIDEOS = 10;
/** Absolute bounds of `intermediateImageAssetIds` (spec); durations narrow them further. */
export const MIN_INTERMEDIATE_FRAMES = 1;
export const MAX_INTERMEDIATE_FRAMES = 5;

export interface IntermediateFrameBounds {
  min: number;
  max: number;
}

export interface VideoModel {
  id: VideoModelId;
  /** `required`: startImageAssetId must be sent; `forbidden`: it must not be (video-model-8). */
  startFrame: 'required' | 'forbidden';
  /** Whether endImageAssetId may be sent. */
  endFrame: boolean;
  /** Whether enableAudio true is accepted. */
  audio: boolean;
  /** Durations the model is documented for (seconds, ascending). */
  durations: readonly number[];
  /** Whether `durations` is enforced as an allow-list (only video-model-8). */
  enforceDurations: boolean;
  /** Used when the request omits `duration`; always one of `durations`. */
  defaultDuration: number;
  /** Maximum entries of `userPrompts` (one variation each). */
  maxPrompts: number;
  /** Whether reference images and videos are accepted (only video-model-8). */
  references: boolean;
  /** Whether intermediate frames are accepted (only optimized); bounds per duration below. */
  intermediateFrames: boolean;
  /** Bounds of each side of `dimension`, in pixels; sides must be even. */
  dimension: { min: number; max: number };
}

const HD = { min: 256, max: 1920 } as const;
const UHD = { min: 256, max: 3840 } as const;

const base = {
  startFrame: 'required',
  enforceDurations: false,
  maxPrompts: 4,
  references: false,
  intermediateFrames: false,
  dimension: HD,
} as const;

export const VIDEO_MODEL_REGISTRY: Readonly<Record<VideoModelId, VideoModel>> = {
  'video-model-1': {
    ...base,
    id: 'video-model-1',
    endFrame: false,
    audio: false,
    durations: [5, 10],
    defaultDuration: 5,
  },
  'video-model-2': {
    ...base,
    id: 'video-model-2',
    endFrame: true,
    audio: false,
    durations: [5, 10],
    defaultDuration: 5,
  },
  'video-model-3': {
    ...base,
    id: 'video-model-3',
    endFrame: false,
    audio: true,
    durations: [4, 6, 8],
    defaultDuration: 8,
  },
  'video-model-4': {
    ...base,
    id: 'video-model-4',
    endFrame: true,
    audio: true,
    durations: [4, 6, 8],
    defaultDuration: 8,
  },
  'video-model-5': {
    ...base,
    id: 'video-model-5',
    endFrame: true,
    audio: false,
    durations: [5, 10],
    defaultDuration: 5,
  },
  'video-model-6': {
    ...base,
    id: 'video-model-6',
    endFrame: false,
    audio: true,
    durations: [6, 10],
    defaultDuration: 6,
  },
  'video-model-7': {
    ...base,
    id: 'video-model-7',
    endFrame: true,
    audio: true,
    durations: [5, 8, 10],
    defaultDuration: 8,
    dimension: UHD,
  },
  'video-model-8': {
    ...base,
    id: 'video-model-8',
    startFrame: 'forbidden',
    endFrame: false,
    audio: true,
    durations: [6, 8, 10, 15, 20, 30],
    enforceDurations: true,
    defaultDuration: 6,
    maxPrompts: 2,
    references: true,
  },
  'video-model-9': {
    ...base,
    id: 'video-model-9',
    endFrame: true,
    audio: true,
    durations: [4, 6, 8, 10],
    defaultDuration: 6,
    dimension: UHD,
  },
  optimized: {
    ...base,
    id: 'optimized',
    endFrame: true,
    audio: false,
    durations: [5, 10, 15, 20, 30],
    defaultDuration: 10,
    intermediateFrames: true,
  },
};

export function isVideoModelId(value: unknown): value is VideoModelId {
  return typeof value === 'string' && (VIDEO_MODELS as readonly string[]).includes(value);
}

export function videoModel(id: VideoModelId): VideoModel {
  return VIDEO_MODEL_REGISTRY[id];
}

/** Per-duration bounds of the intermediate frame count for `optimized` (table above). */
export function intermediateFrameBounds(durationSeconds: number): IntermediateFrameBounds {
  if (durationSeconds <= 5) return { min: 1, max: 1 };
  if (durationSeconds <= 10) return { min: 1, max: 3 };
  if (durationSeconds <= 20) return { min: 2, max: 4 };
  return { min: MIN_INTERMEDIATE_FRAMES + 2, max: MAX_INTERMEDIATE_FRAMES };
}

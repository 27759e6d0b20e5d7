import { AppError, fieldError, forbidden, notFound, unprocessable } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { Entitlements } from '../usage/plans.ts';
import {
  DEFAULT_VIDEO_MODEL,
  intermediateFrameBounds,
  isVideoModelId,
  MAX_INTERMEDIATE_FRAMES,
  MAX_REFERENCE_IMAGES,
  MAX_REFERENCE_VIDEOS,
  MAX_VIDEO_DURATION_SECONDS,
  MIN_INTERMEDIATE_FRAMES,
  VIDEO_PROMPT_MAX_CHARS,
  VIDEO_PROMPT_MIN_CHARS,
  type VideoModel,
  type VideoModelId,
  videoModel,
} from './video-models.ts';

/**
 * The rules of POST /brands/{brandId}/generate-video that the JSON schema cannot express: per
 * model, per plan tier, and per referenced asset. Pure: the service resolves the referenced
 * assets (scoped to the caller's organization) and the plan entitlements and passes them in.
 *
 * Errors (order of checks = order below; the first failing rule is reported):
 *
 * | rule                                                        | status | code                |
 * |-------------------------------------------------------------|--------|---------------------|
 * | plan without `video_generation`                             | 403    | FORBIDDEN           |
 * | body rules (model, prompts, dimension, duration, audio,     | 400    | INVALID_REQUEST     |
 * |   frames/references per model, counts, duplicates)          |        |   (details.fields)  |
 * | `useBrandDna: true` on a plan without `brand_dna`           | 403    | FORBIDDEN           |
 * | video-model-8 without `reference_to_video`, reference       | 403    | upgrade_required    |
 * |   videos without `reference_videos`, counts or duration     |        |                     |
 * |   over the tier's `videoModel8` caps (nothing trimmed)      |        |                     |
 * | referenced asset not of the organization                    | 404    | ASSET_NOT_FOUND     |
 * | start/end/intermediate frame not `complete`                 | 422    | ASSET_NOT_READY     |
 * | start/end/intermediate frame not a picture                  | 422    | ASSET_NOT_IMAGE     |
 * | reference image not `uploaded`/`processing`/`complete`,     | 422    | ASSET_NOT_READY     |
 * |   reference video (with a duration) not `complete`          |        |                     |
 * | reference media format, size, type, duration range, FPS,    | 400    | INVALID_REQUEST     |
 * |   combined duration                                         |        |   (details.fields)  |
 * | reference video without a measured duration, not complete   | 409    | conflict            |
 * | reference video without a measured duration (or FPS),       | 400    | invalid_argument    |
 * |   complete                                                  |        |                     |
 */

export interface GenerateVideoBody {
  startImageAssetId?: string | null | undefined;
  endImageAssetId?: string | null | undefined;
  referenceImageAssetIds?: string[] | undefined;
  referenceVideoAssetIds?: string[] | undefined;
  intermediateImageAssetIds?: string[] | undefined;
  userPrompts: string[];
  dimension: { width: number; height: number };
  enableAudio?: boolean | undefined;
  model?: VideoModelId | undefined;
  duration?: number | undefined;
  promptIsEnhanced?: boolean | undefined;
  useBrandDna?: boolean | undefined;
  partner?: string | undefined;
}

/** What the service read of one referenced asset (looked up within the caller's organization). */
export interface VideoAssetFacts {
  assetId: string;
  /** False (or no entry at all) when the id is not an asset of the organization. */
  found: boolean;
  /** Asset status: uploading, uploaded, processing, complete, failed, canceled. */
  status: string;
  /** Asset type (`metadata.type`): image, logo, video, environment, ... */
  type: string;
  /**
   * Format: the format detected from the bytes (`JPEG`, `PNG`, `MP4`, `QuickTime`, ...) or, when
   * none was detected, the declared MIME type; the bare `image` for service-generated assets.
   */
  format: string | null;
  /** Bytes. */
  fileSize: number;
  /** Measured duration in seconds (videos); absent or null while unmeasured. */
  durationSeconds?: number | null | undefined;
  /** Measured frame rate (videos). */
  fps?: number | null | undefined;
  /** How the asset came to be: upload, extraction, generated. */
  origin: string;
}

export type VideoEntitlements = Pick<Entitlements, 'features' | 'videoModel8'> & { planSlug?: string };

export interface NormalizedVideoRequest {
  model: VideoModelId;
  duration: number;
  userPrompts: string[];
  dimension: { width: number; height: number };
  enableAudio: boolean;
  promptIsEnhanced: boolean;
  useBrandDna: boolean;
  partner?: string;
  /** Lower-cased ids; null / [] when not sent. Reference and intermediate lists keep their order. */
  startImageAssetId: string | null;
  endImageAssetId: string | null;
  referenceImageAssetIds: string[];
  referenceVideoAssetIds: string[];
  intermediateImageAssetIds: string[];
  /** Seconds to reserve from the `video_seconds` pool: duration × number of prompts. */
  reserveVideoSeconds: number;
}

/** The request members naming the frames, as errors report them. */
export interface FrameFields {
  start: string;
  end: string;
  intermediate: string;
}
export const GENERATE_FRAME_FIELDS: FrameFields = {
  start: 'startImageAssetId',
  end: 'endImageAssetId',
  intermediate: 'intermediateImageAssetIds',
};

export interface VideoRuleOptions {
  /**
   * How errors name the frame members (the image-to-video prompt enhancement calls them
   * startFrameAssetId, endFrameAssetId, intermediateFrameAssetIds); the body still uses the
   * generate-video names.
   */
  frameFields?: Partial<FrameFields>;
  /** Whether the per-duration bounds of intermediate frames apply (not for enhancements). Default true. */
  intermediatePerDuration?: boolean;
}

/** Reference image limits (spec, video-model-8 rule 2). */
export const REFERENCE_IMAGE_MAX_BYTES = 120 * 1024 * 1024;
export const REFERENCE_IMAGE_FORMATS = ['JPEG', 'PNG'] as const;
export const REFERENCE_IMAGE_TYPES = ['image', 'logo', 'environment'] as const;
/** `uploaded` suffices for a reference image (spec); later states with the bytes present too. */
export const REFERENCE_IMAGE_STATUSES = ['uploaded', 'processing', 'complete'] as const;
/** Reference video limits (spec, video-model-8 rule 3). */
export const REFERENCE_VIDEO_MAX_BYTES = 200 * 1024 * 1024;
export const REFERENCE_VIDEO_FORMATS = ['MP4', 'QuickTime'] as const;
export const REFERENCE_VIDEO_MIN_SECONDS = 1.8;
export const REFERENCE_VIDEO_MAX_SECONDS = 30.2;
export const REFERENCE_VIDEOS_MAX_TOTAL_SECONDS = 30;
export const REFERENCE_VIDEO_MIN_FPS = 23.8;
export const REFERENCE_VIDEO_MAX_FPS = 60;
/** Formats a start, end or intermediate frame may have (pictures the engines read). */
export const FRAME_FORMATS = ['JPEG', 'PNG', 'GIF', 'TIFF', 'WEBP'] as const;

const FORMAT_ALIASES: Record<string, string> = {
  jpeg: 'JPEG',
  jpg: 'JPEG',
  'image/jpeg': 'JPEG',
  'image/jpg': 'JPEG',
  'image/pjpeg': 'JPEG',
  png: 'PNG',
  'image/png': 'PNG',
  gif: 'GIF',
  'image/gif': 'GIF',
  tiff: 'TIFF',
  tif: 'TIFF',
  'image/tiff': 'TIFF',
  webp: 'WEBP',
  'image/webp': 'WEBP',
  mp4: 'MP4',
  'video/mp4': 'MP4',
  quicktime: 'QuickTime',
  mov: 'QuickTime',
  'video/quicktime': 'QuickTime',
};

/** The canonical format name (`JPEG`, `MP4`, ...) of a detected format or MIME type, else undefined. */
export function canonicalFormat(format: string | null | undefined): string | undefined {
  if (typeof format !== 'string') return undefined;
  return FORMAT_ALIASES[format.trim().toLowerCase()];
}

/** A service-generated picture: bare `image` file type (spec: accepted as a reference image). */
function isGeneratedImage(a: VideoAssetFacts): boolean {
  return a.origin === 'generated' && typeof a.format === 'string' && a.format.trim().toLowerCase() === 'image';
}

const upgradeRequired = (message: string, details: Record<string, unknown>) =>
  forbidden(message, 'upgrade_required', details);
/** A reference video whose duration is not measured yet (asset still processing). */
export const durationPending = (message: string, details: Record<string, unknown>) =>
  new AppError(409, 'conflict', message, details);
/** A complete reference video with no measured duration (it never will have one). */
export const invalidArgument = (message: string, details: Record<string, unknown>) =>
  new AppError(400, 'invalid_argument', message, details);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const chars = (s: string) => [...s].length;

function optionalBool(body: Record<string, unknown>, name: string): boolean {
  const v = body[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw fieldError(`body.${name}`, 'must be a boolean');
  return v;
}

function optionalId(body: Record<string, unknown>, name: string, field = `body.${name}`): string | null {
  const v = body[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length === 0) throw fieldError(field, 'must be an asset id');
  return v.toLowerCase();
}

function idList(body: Record<string, unknown>, name: string, field = `body.${name}`): string[] | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw fieldError(field, 'must be an array of asset ids');
  const ids = v.map((id, i) => {
    if (typeof id !== 'string' || id.length === 0) throw fieldError(`${field}[${i}]`, 'must be an asset id');
    return id.toLowerCase();
  });
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) throw fieldError(`${field}[${i}]`, `repeats asset ${id}; send each asset once`);
    seen.add(id);
  });
  return ids;
}

function prompts(body: Record<string, unknown>, m: VideoModel): string[] {
  const v = body.userPrompts;
  if (!Array.isArray(v) || v.length === 0) throw fieldError('body.userPrompts', 'must be a non-empty array of prompts');
  if (v.length > m.maxPrompts) {
    throw fieldError('body.userPrompts', `must have at most ${m.maxPrompts} prompts for model ${m.id}`);
  }
  return v.map((p, i) => {
    const field = `body.userPrompts[${i}]`;
    if (typeof p !== 'string') throw fieldError(field, 'must be a string');
    const n = chars(p);
    if (n < VIDEO_PROMPT_MIN_CHARS || n > VIDEO_PROMPT_MAX_CHARS) {
      throw fieldError(field, `must be ${VIDEO_PROMPT_MIN_CHARS}..${VIDEO_PROMPT_MAX_CHARS} characters`);
    }
    const problem = textProblem(p, true);
    if (problem) throw fieldError(field, problem);
    return p;
  });
}

function dimension(body: Record<string, unknown>, m: VideoModel): { width: number; height: number } {
  const d = body.dimension;
  if (!isObject(d)) throw fieldError('body.dimension', 'is required: {width, height}');
  const out = { width: 0, height: 0 };
  for (const side of ['width', 'height'] as const) {
    const v = d[side];
    const field = `body.dimension.${side}`;
    if (!isInt(v)) throw fieldError(field, 'must be an integer');
    if (v < m.dimension.min || v > m.dimension.max) {
      throw fieldError(field, `must be ${m.dimension.min}..${m.dimension.max} for model ${m.id}`);
    }
    if (v % 2 !== 0) throw fieldError(field, 'must be even');
    out[side] = v;
  }
  return out;
}

function duration(body: Record<string, unknown>, m: VideoModel): number {
  const v = body.duration;
  if (v === undefined || v === null) return m.defaultDuration;
  if (!isInt(v) || v < 1 || v > MAX_VIDEO_DURATION_SECONDS) {
    throw fieldError('body.duration', `must be an integer 1..${MAX_VIDEO_DURATION_SECONDS} (seconds)`);
  }
  if (m.enforceDurations && !m.durations.includes(v)) {
    throw fieldError('body.duration', `must be one of ${m.durations.join(', ')} for model ${m.id}`);
  }
  return v;
}

/** The ids a request refers to, for the service to look up (deduplicated, lower-cased). */
export function referencedAssetIds(body: Partial<GenerateVideoBody>): string[] {
  const ids = [
    body.startImageAssetId,
    body.endImageAssetId,
    ...(Array.isArray(body.intermediateImageAssetIds) ? body.intermediateImageAssetIds : []),
    ...(Array.isArray(body.referenceImageAssetIds) ? body.referenceImageAssetIds : []),
    ...(Array.isArray(body.referenceVideoAssetIds) ? body.referenceVideoAssetIds : []),
  ].filter((id): id is string => typeof id === 'string' && id.length > 0);
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

/**
 * Checks a generate-video body (already schema-validated, but every member is re-checked so any
 * input yields either the normalized request or an AppError) against the model registry, the plan
 * entitlements and the referenced assets' facts. Returns the request with defaults applied.
 */
export function validateGenerateVideo(
  input: GenerateVideoBody,
  entitlements: VideoEntitlements,
  assets: Iterable<VideoAssetFacts> | ReadonlyMap<string, VideoAssetFacts>,
  options: VideoRuleOptions = {},
): NormalizedVideoRequest {
  const plan = entitlements.planSlug ?? 'current';
  if (!entitlements.features.video_generation) {
    throw forbidden(`Your plan (${plan}) does not include video_generation`, 'FORBIDDEN', {
      feature: 'video_generation',
      plan,
    });
  }
  if (!isObject(input)) throw fieldError('body', 'must be an object');
  const body = input as unknown as Record<string, unknown>;

  // --- Body rules (400) ---
  const modelValue = body.model ?? DEFAULT_VIDEO_MODEL;
  if (!isVideoModelId(modelValue)) throw fieldError('body.model', 'is not a known video model');
  const m = videoModel(modelValue);
  const userPrompts = prompts(body, m);
  const dim = dimension(body, m);
  const seconds = duration(body, m);
  const enableAudio = optionalBool(body, 'enableAudio');
  if (enableAudio && !m.audio) throw fieldError('body.enableAudio', `is not supported by model ${m.id}`);
  const promptIsEnhanced = optionalBool(body, 'promptIsEnhanced');
  const useBrandDna = optionalBool(body, 'useBrandDna');
  const partner = body.partner;
  if (partner !== undefined && partner !== null && typeof partner !== 'string') {
    throw fieldError('body.partner', 'must be a string');
  }

  const names = { ...GENERATE_FRAME_FIELDS, ...options.frameFields };
  const startField = `body.${names.start}`;
  const endField = `body.${names.end}`;
  const intermediateField = `body.${names.intermediate}`;
  const startImageAssetId = optionalId(body, 'startImageAssetId', startField);
  if (m.startFrame === 'required' && startImageAssetId === null) {
    throw fieldError(startField, `is required for model ${m.id}`);
  }
  if (m.startFrame === 'forbidden' && startImageAssetId !== null) {
    throw fieldError(startField, `is not accepted by model ${m.id}; send references instead`);
  }
  const endImageAssetId = optionalId(body, 'endImageAssetId', endField);
  if (endImageAssetId !== null && !m.endFrame) {
    throw fieldError(endField, `is not supported by model ${m.id}`);
  }

  const intermediate = idList(body, 'intermediateImageAssetIds', intermediateField);
  if (intermediate !== undefined) {
    if (!m.intermediateFrames) {
      throw fieldError(intermediateField, `is only accepted by model optimized, not ${m.id}`);
    }
    if (intermediate.length < MIN_INTERMEDIATE_FRAMES || intermediate.length > MAX_INTERMEDIATE_FRAMES) {
      throw fieldError(intermediateField, `must have ${MIN_INTERMEDIATE_FRAMES}..${MAX_INTERMEDIATE_FRAMES} frames`);
    }
    const b = intermediateFrameBounds(seconds);
    if (options.intermediatePerDuration !== false && (intermediate.length < b.min || intermediate.length > b.max)) {
      throw fieldError(
        intermediateField,
        `must have ${b.min}..${b.max} frames for a ${seconds}-second video (got ${intermediate.length})`,
      );
    }
  }

  const refImages = idList(body, 'referenceImageAssetIds') ?? [];
  const refVideos = idList(body, 'referenceVideoAssetIds') ?? [];
  if (!m.references) {
    if (refImages.length > 0) {
      throw fieldError('body.referenceImageAssetIds', `is only accepted by model video-model-8, not ${m.id}`);
    }
    if (refVideos.length > 0) {
      throw fieldError('body.referenceVideoAssetIds', `is only accepted by model video-model-8, not ${m.id}`);
    }
  } else {
    if (refImages.length + refVideos.length === 0) {
      throw fieldError('body.referenceImageAssetIds', `needs at least one reference image or video for model ${m.id}`);
    }
    if (refImages.length > MAX_REFERENCE_IMAGES) {
      throw fieldError('body.referenceImageAssetIds', `must have at most ${MAX_REFERENCE_IMAGES} items`);
    }
    if (refVideos.length > MAX_REFERENCE_VIDEOS) {
      throw fieldError('body.referenceVideoAssetIds', `must have at most ${MAX_REFERENCE_VIDEOS} items`);
    }
  }

  // --- Plan (403) ---
  if (useBrandDna && !entitlements.features.brand_dna) {
    throw forbidden(`Your plan (${plan}) does not include brand_dna; send useBrandDna false or omit it`, 'FORBIDDEN', {
      feature: 'brand_dna',
      plan,
    });
  }
  if (m.references) {
    const caps = entitlements.videoModel8;
    if (!entitlements.features.reference_to_video) {
      throw upgradeRequired(`Your plan (${plan}) does not include reference-to-video (${m.id})`, {
        feature: 'reference_to_video',
        plan,
      });
    }
    if (refVideos.length > 0 && !entitlements.features.reference_videos) {
      throw upgradeRequired(`Your plan (${plan}) does not include reference videos`, {
        feature: 'reference_videos',
        plan,
        requested: refVideos.length,
      });
    }
    const over = (limit: string, requested: number, max: number, what: string) => {
      if (requested > max) {
        throw upgradeRequired(`Your plan (${plan}) allows at most ${max} ${what} for ${m.id}; ${requested} requested`, {
          limit,
          plan,
          max,
          requested,
        });
      }
    };
    over('maxReferenceImages', refImages.length, caps.maxReferenceImages, 'reference images');
    over('maxReferenceVideos', refVideos.length, caps.maxReferenceVideos, 'reference videos');
    over('maxDurationSeconds', seconds, caps.maxDurationSeconds, 'seconds of duration');
  }

  // --- Assets (404, 422, 400, 409) ---
  const byId = new Map<string, VideoAssetFacts>();
  for (const entry of assets instanceof Map ? assets.values() : (assets as Iterable<VideoAssetFacts>)) {
    if (entry && typeof entry.assetId === 'string') byId.set(entry.assetId.toLowerCase(), entry);
  }
  const lookup = (id: string, field: string): VideoAssetFacts => {
    const a = byId.get(id);
    if (!a?.found) throw notFound(`Asset ${id} (${field}) not found`, 'ASSET_NOT_FOUND');
    return a;
  };
  const frame = (id: string, field: string) => {
    const a = lookup(id, field);
    if (a.status !== 'complete') {
      throw unprocessable(
        `Asset ${id} (${field}) is ${a.status}; only complete assets can be used`,
        { field, assetId: id, status: a.status },
        'ASSET_NOT_READY',
      );
    }
    const f = canonicalFormat(a.format);
    if (!(f && (FRAME_FORMATS as readonly string[]).includes(f)) && !isGeneratedImage(a)) {
      throw unprocessable(
        `Asset ${id} (${field}) is not a picture (${a.format ?? a.type}); use a JPEG, PNG, GIF, TIFF or WebP image`,
        { field, assetId: id, detectedFormat: a.format },
        'ASSET_NOT_IMAGE',
      );
    }
  };
  if (startImageAssetId !== null) frame(startImageAssetId, startField);
  if (endImageAssetId !== null) frame(endImageAssetId, endField);
  (intermediate ?? []).forEach((id, i) => {
    frame(id, `${intermediateField}[${i}]`);
  });

  refImages.forEach((id, i) => {
    const field = `body.referenceImageAssetIds[${i}]`;
    const a = lookup(id, field);
    const f = canonicalFormat(a.format);
    if (!(f && (REFERENCE_IMAGE_FORMATS as readonly string[]).includes(f)) && !isGeneratedImage(a)) {
      throw fieldError(field, `must be a JPEG or PNG image (asset ${id} is ${a.format ?? 'of unknown format'})`);
    }
    if (!(REFERENCE_IMAGE_TYPES as readonly string[]).includes(a.type)) {
      throw fieldError(field, `must be an asset of type image, logo or environment (asset ${id} is ${a.type})`);
    }
    if (!(typeof a.fileSize === 'number' && a.fileSize <= REFERENCE_IMAGE_MAX_BYTES)) {
      throw fieldError(field, `must be at most 120 MB (asset ${id} is ${a.fileSize} bytes)`);
    }
    if (!(REFERENCE_IMAGE_STATUSES as readonly string[]).includes(a.status)) {
      throw unprocessable(
        `Asset ${id} (${field}) is ${a.status}; a reference image must be uploaded`,
        { field, assetId: id, status: a.status },
        'ASSET_NOT_READY',
      );
    }
  });

  let totalSeconds = 0;
  refVideos.forEach((id, i) => {
    const field = `body.referenceVideoAssetIds[${i}]`;
    const a = lookup(id, field);
    if (a.type !== 'video') throw fieldError(field, `must be an asset of type video (asset ${id} is ${a.type})`);
    const f = canonicalFormat(a.format);
    if (!(f && (REFERENCE_VIDEO_FORMATS as readonly string[]).includes(f))) {
      throw fieldError(field, `must be an MP4 or QuickTime video (asset ${id} is ${a.format ?? 'of unknown format'})`);
    }
    if (!(typeof a.fileSize === 'number' && a.fileSize <= REFERENCE_VIDEO_MAX_BYTES)) {
      throw fieldError(field, `must be at most 200 MB (asset ${id} is ${a.fileSize} bytes)`);
    }
    const measured = typeof a.durationSeconds === 'number' && Number.isFinite(a.durationSeconds);
    if (!measured) {
      const details = { field, assetId: id, status: a.status };
      if (a.status === 'uploaded' || a.status === 'processing') {
        throw durationPending(`Asset ${id} (${field}) is still processing; its duration is not measured yet`, details);
      }
      if (a.status === 'complete') {
        throw invalidArgument(`Asset ${id} (${field}) has no measured duration; it cannot be a reference`, details);
      }
    }
    if (a.status !== 'complete') {
      throw unprocessable(
        `Asset ${id} (${field}) is ${a.status}; only complete videos can be references`,
        { field, assetId: id, status: a.status },
        'ASSET_NOT_READY',
      );
    }
    const d = a.durationSeconds as number;
    if (d < REFERENCE_VIDEO_MIN_SECONDS || d > REFERENCE_VIDEO_MAX_SECONDS) {
      throw fieldError(
        field,
        `must last ${REFERENCE_VIDEO_MIN_SECONDS}..${REFERENCE_VIDEO_MAX_SECONDS} s (asset ${id}: ${d} s)`,
      );
    }
    const fps = a.fps;
    if (typeof fps !== 'number' || !Number.isFinite(fps)) {
      throw invalidArgument(`Asset ${id} (${field}) has no measured frame rate; it cannot be a reference`, {
        field,
        assetId: id,
      });
    }
    if (fps < REFERENCE_VIDEO_MIN_FPS || fps > REFERENCE_VIDEO_MAX_FPS) {
      throw fieldError(
        field,
        `must have ${REFERENCE_VIDEO_MIN_FPS}..${REFERENCE_VIDEO_MAX_FPS} FPS (asset ${id}: ${fps})`,
      );
    }
    totalSeconds += d;
  });
  if (totalSeconds > REFERENCE_VIDEOS_MAX_TOTAL_SECONDS) {
    throw fieldError(
      'body.referenceVideoAssetIds',
      `must last at most ${REFERENCE_VIDEOS_MAX_TOTAL_SECONDS} s combined (got ${Math.round(totalSeconds * 100) / 100} s)`,
    );
  }

  return {
    model: m.id,
    duration: seconds,
    userPrompts,
    dimension: dim,
    enableAudio,
    promptIsEnhanced,
    useBrandDna,
    ...(typeof partner === 'string' ? { partner } : {}),
    startImageAssetId,
    endImageAssetId,
    referenceImageAssetIds: refImages,
    referenceVideoAssetIds: refVideos,
    intermediateImageAssetIds: intermediate ?? [],
    reserveVideoSeconds: seconds * userPrompts.length,
  };
}

/**
 * The video engine port: a typed request in, an MP4 and a preview out. One implementation per
 * engine: `local` (src/engines/video/local: ffmpeg on the CPU, offline, moving the start frame
 * with a camera plan read from the prompt) and, later, provider adapters. No database and no HTTP
 * of ours inside an engine.
 */
import { type EngineWarning, GenerationError } from '../image/scene-engine.ts';

export type { EngineWarning };

export interface VideoReference {
  kind: 'image' | 'video';
  /** The file's bytes (PNG/JPEG/WebP for an image, MP4/QuickTime for a video)… */
  bytes?: Buffer;
  /** …or a local file path (read as a plain file only; never a URL). */
  path?: string;
}

export interface VideoRequest {
  /** Drives the camera move (see src/engines/video/camera.ts for the vocabulary). */
  prompt: string;
  /** Output size in px; both even. */
  width: number;
  height: number;
  /** Exact clip length (the frame count is durationSeconds × fps, rounded). */
  durationSeconds: number;
  /** Default 30. */
  fps?: number;
  /** The first frame (PNG/JPEG/WebP), e.g. a scene from the image engine. */
  startFrame?: Buffer;
  /**
   * The product's alpha in the start frame (one byte per pixel, width × height of the start
   * frame), e.g. the scene engine's `productMask`: the parallax moves use it to put the product
   * on its own layer. Without it the local engine cuts the product out with a matte.
   */
  startFrameMask?: { data: Buffer; width: number; height: number };
  /**
   * The start frame as layers (the scene engine's `layers`, same size as the start frame): the
   * clean plate (PNG, RGB) and the product layer over it (PNG, RGBA: the products with their
   * shadows), with the floor line (a fraction of the height). The local engine moves them apart
   * as they are (no matte, no filled hole); without them it cuts the product out.
   */
  startFrameLayers?: { plate: Buffer; product: Buffer; horizon?: number };
  /** The last frame: the clip crossfades to it through `intermediateFrames`. */
  endFrame?: Buffer;
  intermediateFrames?: Buffer[];
  /** Without a start frame: a paced montage of these. */
  references?: VideoReference[];
  /** Add a synthesized audio bed (AAC). Default false: no audio track at all. */
  enableAudio?: boolean;
  /** The same request and seed give the same clip (camera default, audio). */
  seed: number;
  signal?: AbortSignal;
}

export interface VideoResult {
  /** The master: MP4 (H.264 yuv420p, +faststart), exactly width × height, fps and durationSeconds. */
  mp4: Buffer;
  /** A short low-res preview of the whole clip (sped up to ≤ 3 s, 320 px wide, no audio). */
  preview: Buffer;
  previewFormat: 'mp4' | 'webp';
  width: number;
  height: number;
  durationSeconds: number;
  fps: number;
  /** What the engine chose (the camera move and why), for the record. */
  camera?: { move: string; source: 'prompt' | 'seed' | 'none' };
  warnings: EngineWarning[];
  /** Which engine made it (`local`). */
  engine: string;
}

export interface VideoEngine {
  readonly name: string;
  generate(req: VideoRequest): Promise<VideoResult>;
}

/**
 * A failure a video job reports as GENERATION_FAILED with this message (never a 500). The same
 * class as the scene engine's, so callers handle both alike.
 */
export const VideoGenerationError = GenerationError;
export type VideoGenerationError = GenerationError;

/**
 * The scene (image) engine port: what a scene-forge variation asks of an image generator. One
 * implementation per engine: `local` (src/engines/image/local: the real product cut out and
 * composited on a backdrop with sharp, offline, no keys) and provider adapters (one folder each
 * under src/engines/image/<provider>/). No database and no HTTP of ours inside an engine: a typed
 * request in, bytes and metadata out.
 */

/** The aspect ratios of the spec's scene forge (`aspectRatio`). */
export const ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '9:16', '16:9', '21:9'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** Output size with the long side `longSide` px and exactly the ratio asked for (rounded to even px). */
export function outputSize(aspectRatio: AspectRatio, longSide: number): { width: number; height: number } {
  const [w, h] = aspectRatio.split(':').map(Number) as [number, number];
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return w >= h
    ? { width: even(longSide), height: even((longSide * h) / w) }
    : { width: even((longSide * w) / h), height: even(longSide) };
}

export interface SceneProduct {
  /** The product image as uploaded (PNG/JPEG/...; alpha kept when it has one). */
  bytes: Buffer;
  /** Asset description and tags, for providers that take text. */
  description?: string;
}

export interface SceneRequest {
  /** The prompt the engine receives (already enhanced when it was). */
  prompt: string;
  aspectRatio: AspectRatio;
  width: number;
  height: number;
  /** 0..3 for a forge's four variations; decides the layout (placement, scale, camera, light). */
  variationIndex: number;
  /** Deterministic seed (the same request and seed give the same image). */
  seed: number;
  products: SceneProduct[];
  /**
   * The backdrop: the environment asset's bytes when the forge names one, else a backdrop the
   * environment engine generated from the prompt and the palette.
   */
  backdrop?: Buffer;
  /** What the environment engine said of a backdrop it made (floor line, light); else estimated. */
  backdropHints?: { horizon: number; lightAngle: number };
  /** Brand colours, `#rrggbb`, strongest first (active Brand DNA palette when used). */
  palette: string[];
  signal?: AbortSignal;
}

export interface EngineWarning {
  code: string;
  message: string;
  severity: 'info' | 'warning';
}

/** Where a product ended up in the output, in px (for scoring and fidelity checks). */
export interface PlacedBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface SceneResult {
  /** PNG bytes, exactly `width` × `height`. */
  png: Buffer;
  width: number;
  height: number;
  /** One box per product, in request order. */
  productBoxes: PlacedBox[];
  /** Product alpha at output size (1 channel, width × height) when the engine knows it. */
  productMask?: Buffer;
  warnings: EngineWarning[];
  /** Which engine made it (`local`, `openai-images:<model>`...). */
  engine: string;
}

export interface SceneEngine {
  readonly name: string;
  generate(req: SceneRequest): Promise<SceneResult>;
}

/** A failure the variation reports as GENERATION_FAILED with this message (never a 500). */
export class GenerationError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GenerationError';
  }
}

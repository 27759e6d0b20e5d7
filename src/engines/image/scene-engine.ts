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
  /**
   * A refinement's levers (steering.ts plans them from a source variation's scores); absent for a
   * forge's ordinary variations, which are then made exactly as without it.
   */
  steering?: SceneSteering;
  signal?: AbortSignal;
}

/** The layouts an engine knows (the four variations of a forge, in variationIndex order). */
export const SCENE_PLACEMENTS = ['centre', 'thirds-left', 'thirds-right', 'low-hero'] as const;
export type ScenePlacement = (typeof SCENE_PLACEMENTS)[number];

/**
 * How a refinement steers a regeneration away from its source variation. Every member is
 * optional; absent ones leave that aspect as the source had it. Engines apply what they can (the
 * local engine applies all of them; a provider may turn some into prompt words).
 */
export interface SceneSteering {
  /**
   * The source variation's `variationIndex`: the layout (placement, scale, camera, light) starts
   * from that one instead of the request's own `variationIndex`.
   */
  baseLayout?: number;
  /** Force a layout (wins over `baseLayout`); the camera and light go with it. */
  placement?: ScenePlacement;
  /** Multiplier on the products' size (linear), 0.6..1.8; the frame's margins still bound it. */
  scale?: number;
  /**
   * 0..1: separate the product from its backdrop: the backdrop around the product pushed away
   * from the product's brightness (lighter behind a dark product, deeper behind a light one), a
   * gentle vignette, and a rim of light on a dark product's edge.
   */
  contrast?: number;
  /** 0..1: calm the backdrop: blur its detail (a shallower depth of field), flatten and desaturate it. */
  simplifyBackdrop?: number;
  /**
   * Brand colours `#rrggbb` to bring into the set as accents, strongest first: the first one as
   * a colour block behind the products (a painted arch on the wall, or the floor of a studio set),
   * a second as a soft gel on the wall. Neutral colours (greys, black, white) are skipped.
   */
  accentColors?: string[];
  /**
   * The brand's logo, placed small and clean: `corner` (default) as a mark in the frame's
   * emptiest corner, `backdrop` printed on the wall beside or above the products. A plan
   * (steering.ts) asks for it without `bytes`, so it stays JSON-safe; the caller adds the brand
   * logo's bytes (PNG/SVG/JPEG; a transparent background preferred) before generating. Without
   * bytes the engine makes the scene without a logo and says so (LOGO_MISSING).
   */
  logo?: { bytes?: Buffer; placement?: 'corner' | 'backdrop' };
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
  /** Where the steering's logo was placed, in px (absent without a logo, or when it could not be placed). */
  logoBoxes?: PlacedBox[];
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

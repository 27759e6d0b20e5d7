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
  backdropHints?: BackdropHints;
  /** Brand colours, `#rrggbb`, strongest first (active Brand DNA palette when used). */
  palette: string[];
  /**
   * A refinement's levers (steering.ts plans them from a source variation's scores); absent for a
   * forge's ordinary variations, which are then made exactly as without it.
   */
  steering?: SceneSteering;
  signal?: AbortSignal;
}

/**
 * What a backdrop's maker knows of its set: the floor line (fraction of the height from the top)
 * and the key light's direction (degrees: 0 from the right, 90 from above, 180 from the left);
 * and, from a renderer that built the set, the key in three dimensions and how the camera sees the
 * floor, so products are lit and shadowed to agree.
 */
export interface BackdropHints {
  horizon: number;
  lightAngle: number;
  light?: SetLight;
  /** Floor depth seen per unit of width at the products (camera height over distance; 1 straight above). */
  camera?: number;
}

export interface SetLight {
  /** Unit vector from the products toward the key: x right, y up off the floor, z along the floor toward the camera. */
  key: { x: number; y: number; z: number };
  /** 0 diffuse .. 1 hard (a crisp shadow edge). */
  hardness: number;
  /** −1 cool (daylight) .. +1 warm (golden hour, candle). */
  temperature: number;
  /** Share of the light at the products that is ambient fill, 0..1: how deep their shadows are. */
  fill: number;
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
   * Brand colours `#rrggbb` to bring into the set as accents, strongest first, as a set designer
   * would, lit by the scene's light: on a studio set of the engine's own, seamless paper in the
   * first colour and a prop beside the products (a plinth, step, block or cylinder) in the second
   * (a deeper tone of the first without one); on a backdrop photo, its wall painted in the first
   * (its light and texture kept) and a soft gel of the second on the wall. Neutral colours (greys,
   * black, white) are skipped.
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
  /**
   * The scene as layers, when the engine composited it (the local engine): `plate`, the backdrop
   * exactly as the products went onto it (PNG, RGB); `product`, the products with their shadows
   * and reflection (PNG, RGBA), such that `product` over `plate` is `png` up to rounding;
   * `horizon`, the floor line (a fraction of the height from the top). The video engine moves
   * them apart (parallax) without cutting the product out.
   */
  layers?: { plate: Buffer; product: Buffer; horizon?: number };
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
  readonly retryable: boolean;

  constructor(message: string, retryable = false, options?: { cause?: unknown }) {
    super(message, options);
    this.retryable = retryable;
    this.name = 'GenerationError';
  }
}

/** Throws a retryable GenerationError when `signal` was aborted (the generation was cancelled). */
export function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new GenerationError('The generation was cancelled.', true, { cause: signal.reason });
}

/**
 * Backdrops for the local scene engine: a studio sweep of its own when the request brings none
 * (the procedural environment engine makes the real ones), and what the engine needs to know of
 * any backdrop: its ambient colour and brightness, its grain, and a floor line and light direction
 * when its maker did not say.
 */
import { hslToRgb, parseHex, rgbToHsl } from '../../../adapters/media/colors.ts';
import { aroundBox, boxBlur, clampByteFast, hashSeed, luma, toLab, toLinear, toSrgb } from './raster.ts';
import { prng } from '../../shared/prng.ts';
import { shotFor } from '../../environment/shot.ts';
import {
  defocus,
  lumaLinear,
  noiseField,
  paintProp,
  planProp,
  rowBlur,
  type SetCamera,
  setCamera,
  surfaceRow,
  sweepLight,
} from './set-dressing.ts';
import { clamp01, smooth01 } from '../../shared/math.ts';

export interface StudioBackdropSpec {
  width: number;
  height: number;
  /** Floor line (where the sweep curves from wall to floor), fraction of the height. */
  horizon: number;
  /** Degrees: 0 = from the right, 90 = from above, 180 = from the left. */
  lightAngle: number;
  /** Brand colours `#rrggbb`, strongest first (may be empty). */
  palette: string[];
  /** Mean brightness (0..255) of the products to stand on it: light products get a deeper tone. */
  productLuma: number;
  /** Where the hero stands (px), for the pool of light on the floor. */
  focus: { x: number; y: number };
  seed: number;
  /** The forge's shot (0..3, ../../environment/shot.ts): how the sweep is lit (SWEEP_LOOKS). */
  shot?: number;
}

/** How a shot lights the sweep. */
export interface SweepLook {
  /** Brightness across the wall toward the key's side, ± this share at the frame's edges. */
  lateral: number;
  /** Share of `lateral` taken off everywhere: the far side falls into shade rather than the key's
   * side burning out (a light paper stays below white). */
  shade: number;
  /** The top of the wall brighter (+) or darker (−) than at the floor line by this share. */
  top: number;
  /** The glow on the wall behind the hero: its strength and width (Gaussian variance, frame units). */
  glow: number;
  glowWidth: number;
  /** Darkening toward the corners. */
  vignette: number;
  /** Half-height of the curve from wall to floor, share of the height: small is a crisp seam. */
  cove: number;
  /** The wall darker than the floor by this share (a two-tone sweep). */
  wallDepth: number;
}

/**
 * The sweep lit four ways, one per shot, as a photographer lights paper for each setup:
 *   0 eye level      soft and even: darker toward the top, a little brighter on the key's side
 *   1 high angle     the low hard key rakes across the wall: bright on its side, falling off across
 *   2 three-quarter  the high key lights the top of the wall; a deeper wall meets a lighter floor
 *                    at a crisp seam
 *   3 low angle      a spot behind the hero: a halo on a deeper wall, the corners dark
 */
export const SWEEP_LOOKS: readonly SweepLook[] = [
  { lateral: 0.07, shade: 0, top: -0.14, glow: 0.06, glowWidth: 0.2, vignette: 0.1, cove: 0.09, wallDepth: 0 },
  { lateral: 0.24, shade: 0.6, top: -0.1, glow: 0.03, glowWidth: 0.2, vignette: 0.14, cove: 0.09, wallDepth: 0 },
  { lateral: 0.12, shade: 0, top: 0.12, glow: 0.04, glowWidth: 0.2, vignette: 0.1, cove: 0.03, wallDepth: 0.1 },
  { lateral: 0.04, shade: 0, top: -0.04, glow: 0.2, glowWidth: 0.06, vignette: 0.32, cove: 0.09, wallDepth: 0.1 },
];

const NEUTRAL: [number, number, number] = [214, 208, 200];

/**
 * The wall and floor colours of the studio sweep: the strongest brand colour, muted and lightened
 * to a backdrop tone (a neutral warm grey without a palette); deeper when the products are light,
 * so a white bottle does not vanish into it.
 */
export function studioTones(palette: string[], productLuma: number): { wall: number[]; floor: number[] } {
  const base = palette.map(parseHex).find((c) => c !== undefined) ?? NEUTRAL;
  const [h, s] = rgbToHsl(base);
  const sat = Math.min(0.32, s * 0.45);
  // Light products on a mid tone, dark ones on a light tone.
  const light = productLuma > 165 ? 0.66 : productLuma > 110 ? 0.8 : 0.87;
  return {
    wall: hslToRgb(h, sat, light),
    floor: hslToRgb(h, sat * 0.9, Math.min(0.93, light + 0.03)),
  };
}

/**
 * A studio sweep, RGB bytes: wall shading down to a seamless curve into the floor at the floor
 * line, brighter on the light's side, a pool of light on the floor where the hero stands, a glow on
 * the wall behind it, a vignette and fine grain, lit as the shot's look says (SWEEP_LOOKS).
 * Deterministic for the spec.
 */
export function studioBackdrop(spec: StudioBackdropSpec): Uint8Array {
  const { width: W, height: H } = spec;
  const look = SWEEP_LOOKS[shotFor(spec.shot ?? 0).index]!;
  const tones = studioTones(spec.palette, spec.productLuma);
  const wall = tones.wall.map((c) => c * (1 - look.wallDepth));
  const floor = tones.floor;
  const rand = prng(hashSeed(spec.seed, 0x5eed, W, H));
  const out = new Uint8Array(W * H * 3);
  const rad = (spec.lightAngle * Math.PI) / 180;
  const side = Math.cos(rad); // +1 light from the right, -1 from the left
  const horizonY = spec.horizon * H;
  const cove = Math.max(4, look.cove * H); // half-height of the curve between wall and floor
  const fx = spec.focus.x / W;
  const fy = spec.focus.y / H;
  const aspect = W / H;
  // Per-row factors first (wall shading, floor falloff, blend across the cove).
  const rowMix = new Float32Array(H);
  const rowGain = new Float32Array(H);
  for (let y = 0; y < H; y++) {
    const t = (y - horizonY) / cove;
    rowMix[y] = smooth01(0.5 + t * 0.5); // 0 wall … 1 floor
    const v = y / H;
    // Wall lighter or darker toward the top (the look's); floor a touch darker toward the camera.
    const wallGain = 1 + look.top * (1 - clamp01(v / Math.max(0.05, spec.horizon)));
    const floorGain = 1 - 0.07 * clamp01((y - horizonY) / Math.max(1, H - horizonY));
    rowGain[y] = wallGain * (1 - rowMix[y]!) + floorGain * rowMix[y]!;
  }
  // The pool of light (an ellipse on the floor) and the glow on the wall behind the hero are
  // separable Gaussians: per-column and per-row factors.
  const colPool = new Float32Array(W);
  const colGlow = new Float32Array(W);
  const colLateral = new Float32Array(W);
  const colVig = new Float32Array(W);
  for (let x = 0; x < W; x++) {
    const u = x / W;
    const dx = (u - fx) * aspect;
    colPool[x] = Math.exp(-(dx * dx) / 0.12);
    colGlow[x] = Math.exp(-(dx * dx) / look.glowWidth);
    colLateral[x] = 1 + look.lateral * (side * (u - 0.5) * 2 - look.shade);
    const cx = (u - 0.5) * 2;
    colVig[x] = cx * cx;
  }
  // Grain from a seeded tile (triangular noise, ±3 levels), read with a per-row offset.
  const tile = grainTile(rand, 3);
  for (let y = 0; y < H; y++) {
    const v = y / H;
    const mix = rowMix[y]!;
    const gain = rowGain[y]!;
    const r0 = wall[0]! * (1 - mix) + floor[0]! * mix;
    const g0 = wall[1]! * (1 - mix) + floor[1]! * mix;
    const b0 = wall[2]! * (1 - mix) + floor[2]! * mix;
    const dyFloor = (v - fy) * 2.4;
    const rowPool = 0.09 * mix * Math.exp(-(dyFloor * dyFloor) / 0.12);
    const dyWall = v - (fy - 0.35);
    const rowGlow = look.glow * (1 - mix) * Math.exp(-(dyWall * dyWall) / look.glowWidth);
    const cy = (v - 0.5) * 2;
    const cy2 = cy * cy;
    let t = Math.floor(rand() * GRAIN_TILE);
    const step = 1 + (y % 7);
    for (let x = 0; x < W; x++) {
      const r2 = Math.min(1, (colVig[x]! + cy2) / 2);
      const vig = 1 - look.vignette * r2 * Math.sqrt(r2);
      const k = gain * colLateral[x]! * vig * (1 + rowPool * colPool[x]! + rowGlow * colGlow[x]!);
      t += step;
      if (t >= GRAIN_TILE) t -= GRAIN_TILE;
      const grain = tile[t]!;
      const i = (y * W + x) * 3;
      out[i] = clampByteFast(r0 * k + grain);
      out[i + 1] = clampByteFast(g0 * k + grain);
      out[i + 2] = clampByteFast(b0 * k + grain);
    }
  }
  return out;
}

const GRAIN_TILE = 4096;

/** A tile of triangular noise (±`amplitude` levels), read with a per-row offset and stride. */
function grainTile(rand: () => number, amplitude: number): Float32Array {
  const tile = new Float32Array(GRAIN_TILE);
  for (let i = 0; i < GRAIN_TILE; i++) tile[i] = (rand() + rand() - 1) * amplitude;
  return tile;
}

export interface BackdropStats {
  /** Mean colour (0..255). */
  mean: [number, number, number];
  meanLuma: number;
  /** Standard deviation of the fine grain (neighbour differences / √2), in levels. */
  grain: number;
}

/** Ambient colour, brightness and grain of an RGB backdrop (sampled). */
export function backdropStats(rgb: Uint8Array, width: number, height: number): BackdropStats {
  const step = Math.max(1, Math.floor(Math.sqrt((width * height) / 40_000)));
  let r = 0;
  let g = 0;
  let b = 0;
  let count = 0;
  // A typed array sorts numerically in native code (a number[] with a comparator was
  // forge's engine CPU, ~7 %); the values and so the median are the same.
  const diffs = new Float64Array(Math.ceil(height / step) * Math.ceil(Math.max(0, width - 1) / step));
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width - 1; x += step) {
      const i = (y * width + x) * 3;
      r += rgb[i]!;
      g += rgb[i + 1]!;
      b += rgb[i + 2]!;
      const l0 = luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
      const l1 = luma(rgb[i + 3]!, rgb[i + 4]!, rgb[i + 5]!);
      diffs[count++] = Math.abs(l0 - l1);
    }
  }
  const sorted = diffs.subarray(0, count).sort();
  // Median absolute difference of neighbours: grain, not edges (edges are the rare large ones).
  const mad = sorted[count >> 1] ?? 0;
  const mean: [number, number, number] = [r / count, g / count, b / count];
  return { mean, meanLuma: luma(...mean), grain: (mad * 1.4826) / Math.SQRT2 };
}

/**
 * Floor line and light direction of a backdrop that came without hints: the floor line where the
 * row brightness changes most steeply in the middle band (a wall meeting a floor), the light from
 * the brighter side. Each is undefined when the image does not say clearly.
 */
export function estimateHints(
  rgb: Uint8Array,
  width: number,
  height: number,
): { horizon?: number; lightAngle?: number } {
  const rows = new Float32Array(height);
  const step = Math.max(1, Math.floor(width / 256));
  let left = 0;
  let right = 0;
  let lc = 0;
  let rc = 0;
  for (let y = 0; y < height; y++) {
    let s = 0;
    let c = 0;
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * 3;
      const l = luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
      s += l;
      c++;
      if (x < width / 3) {
        left += l;
        lc++;
      } else if (x >= (2 * width) / 3) {
        right += l;
        rc++;
      }
    }
    rows[y] = s / c;
  }
  const out: { horizon?: number; lightAngle?: number } = {};
  // Smoothed derivative of the row profile over a window of ~3 % of the height.
  const win = Math.max(2, Math.round(height * 0.03));
  let best = 0;
  let bestY = -1;
  for (let y = Math.round(height * 0.35); y < Math.round(height * 0.85); y++) {
    const a = y - win >= 0 ? rows[y - win]! : rows[0]!;
    const b = y + win < height ? rows[y + win]! : rows[height - 1]!;
    const d = Math.abs(b - a);
    if (d > best) {
      best = d;
      bestY = y;
    }
  }
  if (bestY >= 0 && best >= 12) out.horizon = bestY / height;
  const l = left / Math.max(1, lc);
  const r = right / Math.max(1, rc);
  const diff = (l - r) / Math.max(1, (l + r) / 2);
  if (Math.abs(diff) >= 0.06) out.lightAngle = 90 + Math.max(-1, Math.min(1, diff * 6)) * 60;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Refinement levers on the backdrop (SceneSteering): each works in place on RGB bytes, before the
// products are composited, so the products' ambient light, light wrap and grain follow the set.
// Each is what a set designer or a camera would do (set-dressing.ts): a shallower depth of field,
// a background light or less light on the set, painted paper, a painted wall, a prop, a gel.

/** What the backdrop levers need to know of the products. */
export interface SteerFocus {
  /** The products' union box, px. */
  box: { left: number; top: number; width: number; height: number };
  /** Alpha-weighted mean brightness of the products, 0..255. */
  productLuma: number;
  /** Floor line, fraction of the height (the wall above it, the floor below). */
  horizon: number;
}

/** Planar float copies of the three channels. */
function planes(rgb: Uint8Array, n: number): [Float32Array, Float32Array, Float32Array] {
  const out: [Float32Array, Float32Array, Float32Array] = [
    new Float32Array(n),
    new Float32Array(n),
    new Float32Array(n),
  ];
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    out[0][i] = rgb[j]!;
    out[1][i] = rgb[j + 1]!;
    out[2][i] = rgb[j + 2]!;
  }
  return out;
}

/** The set's camera for the products in `focus`: in focus where they stand. */
const cameraFor = (W: number, H: number, focus: SteerFocus) =>
  setCamera(W, H, focus.horizon, focus.box.top + focus.box.height);

/**
 * Blur radius per row (px) of a depth of field focused on the products' floor row, reaching
 * `wallRadius` on the wall (one plane, one radius) and growing with distance from the plane of
 * focus on the floor (up to 1.5× the wall's toward the camera).
 */
export function depthBlurRadii(W: number, H: number, wallRadius: number, focus?: SteerFocus): Float32Array {
  const radius = new Float32Array(H).fill(wallRadius);
  if (!focus) return radius;
  const cam = cameraFor(W, H, focus);
  const wall = Math.max(1e-3, defocus(cam, 0));
  for (let y = 0; y < H; y++) radius[y] = wallRadius * Math.min(1.5, defocus(cam, y) / wall);
  return radius;
}

/**
 * Calms the backdrop (`simplifyBackdrop`, 0..1), in place, as a wider aperture would: a depth of
 * field focused on the products' floor row (depthBlurRadii; the wall blurred up to 1.4% of the
 * long side), its mid-scale texture flattened (up to 45%) and its colour muted (up to 40%) as much
 * as it is out of focus, then the backdrop's own grain put back where the blur took it.
 */
export function simplifyBackdrop(
  rgb: Uint8Array,
  W: number,
  H: number,
  amount: number,
  seed: number,
  focus?: SteerFocus,
): void {
  const s = clamp01(amount);
  if (s <= 0) return;
  const n = W * H;
  const grain = Math.max(0.6, Math.min(4, backdropStats(rgb, W, H).grain));
  const long = Math.max(W, H);
  const wallRadius = Math.max(1, s * 0.014 * long);
  const radius = depthBlurRadii(W, H, wallRadius, focus);
  const coarseR = Math.max(2, Math.round(0.05 * long));
  const fine = planes(rgb, n);
  const coarse = fine.map((p) => boxBlur(Float32Array.from(p), W, H, coarseR, 2));
  for (const p of fine) rowBlur(p, W, H, radius);
  const rand = prng(hashSeed(seed, 0x51e7, W, H));
  for (let y = 0, i = 0, j = 0; y < H; y++) {
    // How far out of focus the row is (0 sharp … 1 as soft as the wall, or more).
    const blur = Math.min(1, radius[y]! / wallRadius);
    const flatten = 0.45 * s * blur;
    const desat = 0.4 * s * blur;
    const noiseAmp = 2 * grain * Math.min(1, radius[y]! / 1.5);
    for (let x = 0; x < W; x++, i++, j += 3) {
      const r = fine[0][i]! + (coarse[0]![i]! - fine[0][i]!) * flatten;
      const g = fine[1][i]! + (coarse[1]![i]! - fine[1][i]!) * flatten;
      const b = fine[2][i]! + (coarse[2]![i]! - fine[2][i]!) * flatten;
      const l = luma(r, g, b);
      const noise = (rand() + rand() + rand() - 1.5) * noiseAmp;
      rgb[j] = clampByteFast(r + (l - r) * desat + noise);
      rgb[j + 1] = clampByteFast(g + (l - g) * desat + noise);
      rgb[j + 2] = clampByteFast(b + (l - b) * desat + noise);
    }
  }
}

/** Mean luma of the backdrop in a band around a box (the box grown by a quarter, minus the box). */
export function surroundLuma(rgb: Uint8Array, W: number, H: number, box: SteerFocus['box']): number {
  const gx = Math.round(box.width * 0.25) + 4;
  const gy = Math.round(box.height * 0.25) + 4;
  const { x0, x1, y0, y1, step } = aroundBox(box, gx, gy, W, H);
  let sum = 0;
  let count = 0;
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      if (x >= box.left && x < box.left + box.width && y >= box.top && y < box.top + box.height) continue;
      const i = (y * W + x) * 3;
      sum += luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
      count++;
    }
  }
  return count ? sum / count : 128;
}

/** A film-like shoulder on linear light: values above 0.75 roll off toward 1 instead of clipping. */
const shoulder = (v: number) => (v < 0.75 ? v : 0.75 + 0.25 * (1 - Math.exp(-(v - 0.75) / 0.25)));

/**
 * The brightest a background light takes the set, in linear light (sRGB ≈ 236): a pool on a pale
 * wall reads as light on paper, not as paper burnt to white around the product.
 */
const POOL_CEILING = 0.84;
const POOL_KNEE = 0.7 * POOL_CEILING;

/**
 * A pixel (linear) under a gain: darker as it is, lighter rolling off toward POOL_CEILING, never
 * below where it was (a wall already brighter than the ceiling keeps its own light).
 */
export function poolLight(v: number, gain: number): number {
  const t = v * gain;
  if (t <= v || t <= POOL_KNEE) return t;
  const room = POOL_CEILING - POOL_KNEE;
  return Math.max(v, POOL_KNEE + room * (1 - Math.exp(-(t - POOL_KNEE) / room)));
}

/**
 * Separates the products from the backdrop (`contrast`, 0..1), in place, with light. Behind a
 * darker product: a background light, a broad soft pool on the wall centred behind the products
 * and much larger than them (the floor takes less of it), light added in linear light so the set
 * keeps its colour and rolls off below white (poolLight). Behind a lighter one: less light on the set
 * (flagged off), the wall more than the floor, falling off away from the products, its colour a
 * little muted. Both with a gentle vignette. Returns the direction taken (+1 lighter, −1 deeper).
 */
export function separateBackdrop(rgb: Uint8Array, W: number, H: number, amount: number, focus: SteerFocus): 1 | -1 {
  const c = clamp01(amount);
  const around = surroundLuma(rgb, W, H, focus.box);
  const p = focus.productLuma;
  // Push the surround away from the product; when they are close, toward the side with room.
  const dir: 1 | -1 = Math.abs(around - p) >= 24 ? (around > p ? 1 : -1) : p < 128 ? 1 : -1;
  if (c <= 0) return dir;
  const hy = focus.horizon * H;
  const cx = focus.box.left + focus.box.width / 2;
  // A background light is aimed at the wall behind the products, not at the floor line: the pool
  // centred well up the wall (a darkening is centred on the products).
  const cy =
    dir > 0 ? Math.min(focus.box.top + focus.box.height / 2, hy - 0.2 * H) : focus.box.top + focus.box.height / 2;
  const rx = Math.max(focus.box.width * 1.1, 0.42 * W);
  const ry = Math.max(focus.box.height * 1.0, 0.36 * H);
  const boost = 2.2 * c;
  const deepen = 0.55 * c;
  const mute = 0.2 * c;
  const vignette = 0.3 * c;
  const colW = new Float32Array(W);
  const colV = new Float32Array(W);
  for (let x = 0; x < W; x++) {
    const dx = (x - cx) / rx;
    colW[x] = dx * dx;
    const u = (x / W - 0.5) * 2;
    colV[x] = u * u;
  }
  for (let y = 0; y < H; y++) {
    const dy = (y - cy) / ry;
    const dy2 = dy * dy;
    const v = (y / H - 0.5) * 2;
    const v2 = v * v;
    // 1 on the wall … 0 on the floor, across the cove.
    const wall = 1 - smooth01((y - hy + 0.03 * H) / (0.08 * H));
    for (let x = 0; x < W; x++) {
      const w = Math.exp(-(colW[x]! + dy2));
      const r2 = Math.min(1, (colV[x]! + v2) / 2);
      const vig = 1 - vignette * r2 * (0.4 + 0.6 * (1 - w));
      const i = (y * W + x) * 3;
      if (dir > 0) {
        const gain = (1 + boost * w * (0.35 + 0.65 * wall)) * vig;
        for (let k = 0; k < 3; k++) rgb[i + k] = clampByteFast(toSrgb(poolLight(toLinear(rgb[i + k]!), gain)));
      } else {
        const gain = (1 - deepen * (0.55 + 0.45 * wall) * (0.7 + 0.3 * (1 - w))) * vig;
        const l = luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
        for (let k = 0; k < 3; k++) {
          const val = rgb[i + k]! + (l - rgb[i + k]!) * mute;
          rgb[i + k] = clampByteFast(toSrgb(toLinear(val) * gain));
        }
      }
    }
  }
  return dir;
}

const labOf = (c: readonly number[]) => {
  const lab = toLab(c, 1, 3);
  return [lab[0]!, lab[1]!, lab[2]!] as const;
};

/** Chroma (C*ab) of an RGB colour: below ~12 it reads as a neutral (white, grey, black). */
export function chroma(c: readonly number[]): number {
  const [, a, b] = labOf(c);
  return Math.hypot(a, b);
}

export interface AccentSpec {
  /** Accent colours (RGB), strongest first; neutrals already left out. */
  colors: [number, number, number][];
  /**
   * What the set is. `sweep`: the engine's own studio sweep, which becomes seamless paper in the
   * first colour (wall, cove and floor) with a prop beside the products. `wall`: a backdrop photo,
   * whose wall is painted in it (its light, texture and blur kept; what stands in front of it
   * left alone) and bounces a little of it onto the floor.
   */
  surface: 'sweep' | 'wall';
  /** Floor line, fraction of the height. */
  horizon: number;
  /** Degrees: 0 = from the right, 90 = from above, 180 = from the left. */
  lightAngle: number;
  focus: SteerFocus;
  /** The products' alpha-weighted mean colour (to keep the colour from swallowing them). */
  productColor: [number, number, number];
  seed: number;
}

/**
 * The paint colour for a brand colour behind a product: the colour itself, or, when it is close to
 * the product's own (ΔE < 30), a deeper shade of it (a lighter one under a dark product), so the
 * product still stands out.
 */
export function paintColour(colour: readonly number[], productColor: readonly number[]): number[] {
  const pl = labOf(productColor);
  const al = labOf(colour);
  const dE = Math.hypot(pl[0] - al[0], pl[1] - al[1], pl[2] - al[2]);
  if (dE >= 30) return [...colour];
  const t = Math.min(0.5, (30 - dE) / 35);
  const target = pl[0] >= 35 ? 0 : 255;
  return colour.map((v) => v + (target - v) * t);
}

/** Median brightness (luma, in linear light) of rows [y0, y1) of an RGB image (sampled). */
function medianLight(rgb: Uint8Array, W: number, y0: number, y1: number): number {
  const samples: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt((W * Math.max(1, y1 - y0)) / 20_000)));
  for (let y = Math.max(0, y0); y < y1; y += step) {
    for (let x = 0; x < W; x += step) {
      const i = (y * W + x) * 3;
      samples.push(toLinear(luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!)));
    }
  }
  samples.sort((a, b) => a - b);
  return Math.max(1e-3, samples[samples.length >> 1] ?? 0.5);
}

/**
 * Brings brand colours into the set (`accentColors`), in place, as a set designer would (see
 * `AccentSpec.surface`). The studio sweep: seamless paper in the first colour, lit by the set's
 * light (sweepLight, times the light already on the set, so a background light stays), with the
 * paper's tooth and a faint mottle that foreshortens on the floor; a prop (planProp) beside the
 * products in the second colour (a tone of the first without one); a gel of the second colour when
 * the prop has no room. A backdrop photo: the wall painted (paintWall) and a gel of the second
 * colour on the wall on the light's side.
 */
export function paintAccents(rgb: Uint8Array, W: number, H: number, spec: AccentSpec): void {
  const [first, second] = spec.colors;
  if (!first) return;
  const colour = paintColour(first, spec.productColor).map(toLinear);
  const cam = cameraFor(W, H, spec.focus);
  const focusX = spec.focus.box.left + spec.focus.box.width / 2;
  const sweep = sweepLight(cam, spec.lightAngle, focusX);
  if (spec.surface === 'wall') {
    paintWall(rgb, W, H, colour, cam, sweep);
    if (second) gelWash(rgb, W, H, second.map(toLinear), cam, spec.lightAngle);
    return;
  }
  paintSweep(rgb, W, H, colour, cam, sweep, spec.seed);
  const prop = planProp(cam, { avoid: spec.focus.box, lightAngle: spec.lightAngle, seed: spec.seed });
  if (prop) {
    // A second colour, else a deeper tone of the paper's: tone on tone.
    const propColour = second ? paintColour(second, spec.productColor).map(toLinear) : colour.map((v) => v * 0.78);
    const footX = (prop.bounds.left + prop.bounds.right) / 2;
    const exposure = sweep(footX, prop.bounds.bottom);
    paintProp(rgb, W, H, prop, propColour, exposure, spec.seed);
  } else if (second) {
    gelWash(rgb, W, H, second.map(toLinear), cam, spec.lightAngle);
  }
}

/** The set's light (sweepLight) at a pixel. */
type SetLight = (x: number, y: number) => number;

/** Seamless paper in a colour (linear RGB) over the whole studio sweep, lit by `sweep`, in place (paintAccents). */
function paintSweep(
  rgb: Uint8Array,
  W: number,
  H: number,
  colour: number[],
  cam: SetCamera,
  sweep: SetLight,
  seed: number,
): void {
  const ref = medianLight(rgb, W, 0, H);
  const mottle = noiseField(hashSeed(seed, 0x9a9e));
  const rand = prng(hashSeed(seed, 0x70074, W, H));
  const tile = grainTile(rand, 2.5);
  // The paper's mottle is smooth: worked out every 4 px along a row, linear between.
  const paper = new Float32Array((W >> 2) + 2);
  for (let y = 0, i = 0; y < H; y++) {
    const { scale, v } = surfaceRow(cam, y);
    for (let k = 0; k < paper.length; k++) {
      const u = (k * 4 - W / 2) * scale;
      paper[k] = 1 + 0.035 * mottle(u * 5, v * 5) + 0.015 * mottle(u * 23 + 91, v * 23);
    }
    let t = Math.floor(rand() * GRAIN_TILE);
    const step = 1 + (y % 5);
    for (let x = 0; x < W; x++, i += 3) {
      // The light already on the set (a background light, the grain), compressed: the paper's own
      // light (sweepLight) leads.
      const set = toLinear(luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!)) / ref;
      const k = x >> 2;
      const mottled = paper[k]! + (paper[k + 1]! - paper[k]!) * ((x & 3) / 4);
      const light = sweep(x, y) * Math.min(1.6, Math.max(0.6, set)) ** 0.7 * mottled;
      t += step;
      if (t >= GRAIN_TILE) t -= GRAIN_TILE;
      const grain = tile[t]!;
      rgb[i] = clampByteFast(toSrgb(colour[0]! * light) + grain);
      rgb[i + 1] = clampByteFast(toSrgb(colour[1]! * light) + grain);
      rgb[i + 2] = clampByteFast(toSrgb(colour[2]! * light) + grain);
    }
  }
}

/**
 * Paints a photo's wall in a colour (linear RGB), in place (paintAccents): the paint takes the
 * wall's own light (its falloff, texture and blur, as a ratio to the wall's median, a little
 * stronger: a saturated paint shows its light more) and the set's (sweepLight: deeper toward the
 * top, brighter on the key's side), down to the floor line with a short soft edge; what stands in
 * front of the wall (a colour far from the wall's own) is left as it is. Below the floor line the
 * painted wall bounces a little of its colour onto the floor, fading within a few per cent of the
 * height.
 */
function paintWall(rgb: Uint8Array, W: number, H: number, colour: number[], cam: SetCamera, sweep: SetLight): void {
  const hy = cam.horizonY;
  const band = Math.max(1.5, 0.008 * H);
  const rows = Math.min(H, Math.ceil(hy + band));
  if (rows <= 0) return;
  const ref = medianLight(rgb, W, 0, Math.floor(hy - band));
  // The wall's own colour (its median a*, b*) tells the wall from what stands before it.
  const lab = toLab(rgb.subarray(0, rows * W * 3), rows * W, 3);
  const [wallA, wallB] = medianChroma(lab, W, 0, Math.floor(hy - band));
  for (let y = 0; y < rows; y++) {
    const cover = 1 - smooth01((y - (hy - band)) / (2 * band));
    if (cover <= 0) continue;
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      const i = p * 3;
      const off = Math.hypot(lab[p * 3 + 1]! - wallA, lab[p * 3 + 2]! - wallB);
      const a = cover * (1 - smooth01((off - 12) / 16));
      if (a <= 0) continue;
      const own = toLinear(luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!)) / ref;
      const light = Math.min(1.5, Math.max(0.5, own)) ** 1.15 * sweep(x, y) ** 0.7;
      for (let k = 0; k < 3; k++) {
        const v = toSrgb(colour[k]! * light);
        rgb[i + k] = clampByteFast(rgb[i + k]! + (v - rgb[i + k]!) * a);
      }
    }
  }
  // The bounce: the floor nearest the wall tinted toward the paint's hue (brightness kept); what
  // stands on the floor (a colour far from the floor's own) is left alone.
  const tint = chromaOf(colour);
  const reach = 0.05 * H;
  const y0 = Math.max(0, Math.floor(hy));
  const y1 = Math.min(H, Math.ceil(hy + 4 * reach));
  if (y1 <= y0) return;
  const floorLab = toLab(rgb.subarray(y0 * W * 3, y1 * W * 3), (y1 - y0) * W, 3);
  const [floorA, floorB] = medianChroma(floorLab, W, 0, y1 - y0);
  for (let y = y0; y < y1; y++) {
    const b = 0.15 * Math.exp(-(y - hy) / reach);
    for (let x = 0; x < W; x++) {
      const p = (y - y0) * W + x;
      const off = Math.hypot(floorLab[p * 3 + 1]! - floorA, floorLab[p * 3 + 2]! - floorB);
      const a = b * (1 - smooth01((off - 12) / 16));
      if (a <= 0) continue;
      const i = (y * W + x) * 3;
      for (let k = 0; k < 3; k++) rgb[i + k] = clampByteFast(toSrgb(toLinear(rgb[i + k]!) * (1 + a * (tint[k]! - 1))));
    }
  }
}

/** Median a*, b* of rows [y0, y1) of a Lab image `W` wide (sampled). */
function medianChroma(lab: Float32Array, W: number, y0: number, y1: number): [number, number] {
  const as: number[] = [];
  const bs: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt((W * Math.max(1, y1 - y0)) / 20_000)));
  for (let y = y0; y < y1; y += step) {
    for (let x = 0; x < W; x += step) {
      as.push(lab[(y * W + x) * 3 + 1]!);
      bs.push(lab[(y * W + x) * 3 + 2]!);
    }
  }
  as.sort((p, q) => p - q);
  bs.sort((p, q) => p - q);
  return [as[as.length >> 1] ?? 0, bs[bs.length >> 1] ?? 0];
}

/** A linear colour's hue at unit luminance (each channel bounded to 0..3). */
function chromaOf(c: readonly number[]): number[] {
  const l = Math.max(1e-3, lumaLinear(c[0]!, c[1]!, c[2]!));
  return c.map((v) => Math.min(3, v / l));
}

/**
 * A gel: a soft pool of coloured light (linear RGB) thrown on the wall from the key's side, in
 * place: elongated along the light's direction, falling off smoothly, light added in the gel's hue
 * (the wall's own texture and shading kept), fading out across the floor line.
 */
function gelWash(rgb: Uint8Array, W: number, H: number, gel: number[], cam: SetCamera, lightAngle: number): void {
  const tint = chromaOf(gel);
  const a = (lightAngle * Math.PI) / 180;
  const dx = Math.cos(a);
  const dy = -Math.sin(a); // screen y grows downward
  const hy = cam.horizonY;
  const gx = W / 2 + dx * 0.38 * W;
  const gy = Math.max(0.15 * hy, hy * 0.4 + dy * 0.2 * hy);
  const along = 0.5 * Math.max(W, H);
  const across = 0.26 * Math.max(W, H);
  const rows = Math.min(H, Math.ceil(hy + 0.06 * H));
  for (let y = 0; y < rows; y++) {
    const fade = 1 - smooth01((y - (hy - 0.03 * H)) / (0.08 * H));
    for (let x = 0; x < W; x++) {
      const px = x - gx;
      const py = y - gy;
      const s = (px * dx + py * dy) / along;
      const t = (px * -dy + py * dx) / across;
      const w = 0.45 * Math.exp(-(s * s + t * t) * 1.6) * fade;
      if (w < 0.004) continue;
      const i = (y * W + x) * 3;
      for (let k = 0; k < 3; k++) {
        rgb[i + k] = clampByteFast(toSrgb(shoulder(toLinear(rgb[i + k]!) * (1 + w * (tint[k]! - 0.7)))));
      }
    }
  }
}

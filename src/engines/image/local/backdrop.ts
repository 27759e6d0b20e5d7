/**
 * Backdrops for the local scene engine: a studio sweep of its own when the request brings none
 * (the procedural environment engine makes the real ones), and what the engine needs to know of
 * any backdrop: its ambient colour and brightness, its grain, and a floor line and light direction
 * when its maker did not say.
 */
import { clamp01, hashSeed, luma, parseHex, prng } from './raster.ts';

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
}

const NEUTRAL: [number, number, number] = [214, 208, 200];

/** RGB 0..255 → HSL (h 0..1, s 0..1, l 0..1). */
function rgbToHsl(r: number, g: number, b: number): [number, number, number] {
  const rn = r / 255;
  const gn = g / 255;
  const bn = b / 255;
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === rn) h = (gn - bn) / d + (gn < bn ? 6 : 0);
  else if (max === gn) h = (bn - rn) / d + 2;
  else h = (rn - gn) / d + 4;
  return [h / 6, s, l];
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  if (s === 0) return [l * 255, l * 255, l * 255];
  const hue = (p: number, q: number, t: number) => {
    let u = t;
    if (u < 0) u += 1;
    if (u > 1) u -= 1;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  return [hue(p, q, h + 1 / 3) * 255, hue(p, q, h) * 255, hue(p, q, h - 1 / 3) * 255];
}

/**
 * The wall and floor colours of the studio sweep: the strongest brand colour, muted and lightened
 * to a backdrop tone (a neutral warm grey without a palette); deeper when the products are light,
 * so a white bottle does not vanish into it.
 */
export function studioTones(palette: string[], productLuma: number): { wall: number[]; floor: number[] } {
  const base = palette.map(parseHex).find((c) => c !== undefined) ?? NEUTRAL;
  const [h, s] = rgbToHsl(...base);
  const sat = Math.min(0.32, s * 0.45);
  // Light products on a mid tone, dark ones on a light tone.
  const light = productLuma > 165 ? 0.66 : productLuma > 110 ? 0.8 : 0.87;
  return {
    wall: hslToRgb(h, sat, light),
    floor: hslToRgb(h, sat * 0.9, Math.min(0.93, light + 0.03)),
  };
}

/**
 * A soft studio sweep, RGB bytes: wall shading down to a seamless curve into the floor at the
 * floor line, brighter on the light's side, a pool of light on the floor where the hero stands, a
 * gentle vignette and fine grain. Deterministic for the spec.
 */
export function studioBackdrop(spec: StudioBackdropSpec): Uint8Array {
  const { width: W, height: H } = spec;
  const { wall, floor } = studioTones(spec.palette, spec.productLuma);
  const rand = prng(hashSeed(spec.seed, 0x5eed, W, H));
  const out = new Uint8Array(W * H * 3);
  const rad = (spec.lightAngle * Math.PI) / 180;
  const side = Math.cos(rad); // +1 light from the right, -1 from the left
  const horizonY = spec.horizon * H;
  const cove = Math.max(4, 0.09 * H); // half-height of the curve between wall and floor
  const fx = spec.focus.x / W;
  const fy = spec.focus.y / H;
  const aspect = W / H;
  // Per-row factors first (wall shading, floor falloff, blend across the cove).
  const rowMix = new Float32Array(H);
  const rowGain = new Float32Array(H);
  for (let y = 0; y < H; y++) {
    const t = (y - horizonY) / cove;
    const m = clamp01(0.5 + t * 0.5);
    rowMix[y] = m * m * (3 - 2 * m); // 0 wall … 1 floor
    const v = y / H;
    // Wall darker toward the top; floor a touch darker toward the camera.
    const wallGain = 0.86 + 0.14 * clamp01(v / Math.max(0.05, spec.horizon));
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
    colGlow[x] = Math.exp(-(dx * dx) / 0.2);
    colLateral[x] = 1 + 0.07 * side * (u - 0.5) * 2;
    const cx = (u - 0.5) * 2;
    colVig[x] = cx * cx;
  }
  // Grain from a seeded tile (triangular noise, ±3 levels), read with a per-row offset.
  const TILE = 4096;
  const tile = new Float32Array(TILE);
  for (let i = 0; i < TILE; i++) tile[i] = (rand() + rand() - 1) * 3;
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
    const rowGlow = 0.06 * (1 - mix) * Math.exp(-(dyWall * dyWall) / 0.2);
    const cy = (v - 0.5) * 2;
    const cy2 = cy * cy;
    let t = Math.floor(rand() * TILE);
    const step = 1 + (y % 7);
    for (let x = 0; x < W; x++) {
      const r2 = Math.min(1, (colVig[x]! + cy2) / 2);
      const vig = 1 - 0.1 * r2 * Math.sqrt(r2);
      const k = gain * colLateral[x]! * vig * (1 + rowPool * colPool[x]! + rowGlow * colGlow[x]!);
      t += step;
      if (t >= TILE) t -= TILE;
      const grain = tile[t]!;
      const i = (y * W + x) * 3;
      out[i] = clampByteFast(r0 * k + grain);
      out[i + 1] = clampByteFast(g0 * k + grain);
      out[i + 2] = clampByteFast(b0 * k + grain);
    }
  }
  return out;
}

const clampByteFast = (n: number) => (n <= 0 ? 0 : n >= 255 ? 255 : (n + 0.5) | 0);

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
  const diffs: number[] = [];
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width - 1; x += step) {
      const i = (y * width + x) * 3;
      r += rgb[i]!;
      g += rgb[i + 1]!;
      b += rgb[i + 2]!;
      count++;
      const l0 = luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
      const l1 = luma(rgb[i + 3]!, rgb[i + 4]!, rgb[i + 5]!);
      diffs.push(Math.abs(l0 - l1));
    }
  }
  diffs.sort((a, c) => a - c);
  // Median absolute difference of neighbours: grain, not edges (edges are the rare large ones).
  const mad = diffs[diffs.length >> 1] ?? 0;
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

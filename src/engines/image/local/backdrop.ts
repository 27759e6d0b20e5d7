/**
 * Backdrops for the local scene engine: a studio sweep of its own when the request brings none
 * (the procedural environment engine makes the real ones), and what the engine needs to know of
 * any backdrop: its ambient colour and brightness, its grain, and a floor line and light direction
 * when its maker did not say.
 */
import { boxBlur, clamp01, hashSeed, luma, parseHex, prng, toLab } from './raster.ts';

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

// ---------------------------------------------------------------------------------------------
// Refinement levers on the backdrop (SceneSteering): each works in place on RGB bytes, before the
// products are composited, so the products' ambient light, light wrap and grain follow the set.

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

/**
 * Calms the backdrop (`simplifyBackdrop`, 0..1), in place: its detail blurred as by a shallower
 * depth of field focused on the products' floor line (radius up to 1.2% of the long side; the
 * floor where they stand stays sharper), its mid-scale texture flattened toward a coarse blur (up
 * to 45%), its colour desaturated (up to 40%), then the backdrop's own grain put back so it still
 * reads as a photograph.
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
  const fineR = Math.max(1, Math.round(s * 0.012 * long));
  const coarseR = Math.max(2, Math.round(0.05 * long));
  const fine = planes(rgb, n);
  const coarse = fine.map((p) => boxBlur(Float32Array.from(p), W, H, coarseR, 2));
  for (const p of fine) boxBlur(p, W, H, fineR, 3);
  const flatten = 0.45 * s;
  const desat = 0.4 * s;
  const rand = prng(hashSeed(seed, 0x51e7, W, H));
  // Depth of field: in focus along the products' floor line, fully soft 15% of the height away.
  const focusY = focus ? focus.box.top + focus.box.height : -1;
  for (let y = 0, i = 0, j = 0; y < H; y++) {
    const dof = focus ? 0.3 + 0.7 * smooth01(Math.abs(y - focusY) / (0.15 * H)) : 1;
    for (let x = 0; x < W; x++, i++, j += 3) {
      const o0 = rgb[j]!;
      const o1 = rgb[j + 1]!;
      const o2 = rgb[j + 2]!;
      const r = o0 + (fine[0][i]! + (coarse[0]![i]! - fine[0][i]!) * flatten - o0) * dof;
      const g = o1 + (fine[1][i]! + (coarse[1]![i]! - fine[1][i]!) * flatten - o1) * dof;
      const b = o2 + (fine[2][i]! + (coarse[2]![i]! - fine[2][i]!) * flatten - o2) * dof;
      const l = luma(r, g, b);
      const noise = (rand() + rand() + rand() - 1.5) * 2 * grain * dof;
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
  const x0 = Math.max(0, box.left - gx);
  const x1 = Math.min(W, box.left + box.width + gx);
  const y0 = Math.max(0, box.top - gy);
  const y1 = Math.min(H, box.top + box.height + gy);
  const step = Math.max(1, Math.floor(Math.sqrt(((x1 - x0) * (y1 - y0)) / 20_000)));
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

/**
 * Separates the products from the backdrop (`contrast`, 0..1), in place. Behind a darker product:
 * a broad, soft pool of light centred on the products and much larger than them (a background
 * light, not a halo). Behind a lighter one: the whole set taken deeper and calmer (less light on
 * it, its colour muted toward a warm grey as it darkens), a touch more toward the edges. Both with
 * a gentle vignette toward the corners. Returns the direction taken (+1 lighter, −1 deeper).
 */
export function separateBackdrop(rgb: Uint8Array, W: number, H: number, amount: number, focus: SteerFocus): 1 | -1 {
  const c = clamp01(amount);
  const around = surroundLuma(rgb, W, H, focus.box);
  const p = focus.productLuma;
  // Push the surround away from the product; when they are close, toward the side with room.
  const dir: 1 | -1 = Math.abs(around - p) >= 24 ? (around > p ? 1 : -1) : p < 128 ? 1 : -1;
  if (c <= 0) return dir;
  const cx = focus.box.left + focus.box.width / 2;
  const cy = focus.box.top + focus.box.height / 2;
  const rx = Math.max(focus.box.width * 1.1, 0.42 * W);
  const ry = Math.max(focus.box.height * 1.0, 0.36 * H);
  const hy = focus.horizon * H;
  // How far the surround can go: toward near-white (not clipped) or toward a deep tone.
  const lift = 0.5 * c;
  const deepen = 0.28 * c;
  const mute = 0.45 * c;
  const vignette = 0.16 * c;
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
    // A background light lights the wall; the floor takes less of it.
    const onWall = 0.45 + 0.55 * (1 - smooth01((y - hy + 0.03 * H) / (0.08 * H)));
    for (let x = 0; x < W; x++) {
      const w = Math.exp(-(colW[x]! + dy2)) * (dir > 0 ? onWall : 1);
      const r2 = Math.min(1, (colV[x]! + v2) / 2);
      const vig = 1 - vignette * r2 * (0.4 + 0.6 * (1 - w));
      const i = (y * W + x) * 3;
      if (dir > 0) {
        for (let k = 0; k < 3; k++) {
          const val = rgb[i + k]!;
          rgb[i + k] = clampByteFast((val + (244 - val) * lift * w) * vig);
        }
      } else {
        const l = luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
        const k0 = (1 - deepen * (0.85 + 0.15 * (1 - w))) * vig;
        for (let k = 0; k < 3; k++) {
          const val = rgb[i + k]!;
          rgb[i + k] = clampByteFast((val + (l - val) * mute) * k0);
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
   * Where the first colour goes: `floor`, the surface the products stand on (a studio set of the
   * engine's own); `wall`, a wash of it over the wall behind them (a backdrop photo: its floor
   * stays what it is, its wall keeps its texture and light).
   */
  surface: 'floor' | 'wall';
  /** Floor line, fraction of the height. */
  horizon: number;
  /** Degrees: 0 = from the right, 90 = from above, 180 = from the left. */
  lightAngle: number;
  focus: SteerFocus;
  /** The products' alpha-weighted mean colour (to keep the block from swallowing them). */
  productColor: [number, number, number];
}

/**
 * Brings brand colours into the set (`accentColors`), in place. The first becomes a colour block
 * (see `AccentSpec.surface`) that keeps the set's light: its shading follows the brightness of
 * what it covers (the pool of light, the falloff, the grain), compressed so it stays that colour.
 * A second colour, when there is one, is a soft gel of coloured light on the wall on the light's
 * side. When the first colour is too close to the product's own, the block takes a deeper (under
 * a dark product, lighter) shade of it so the product still stands out.
 */
export function paintAccents(rgb: Uint8Array, W: number, H: number, spec: AccentSpec): void {
  const [first, second] = spec.colors;
  if (!first) return;
  const hy = clamp01(spec.horizon) * H;
  const side = Math.cos((spec.lightAngle * Math.PI) / 180); // +1 light from the right

  // The gel first (it lights the wall; a block stands in front of it).
  if (second) {
    const gx = side >= 0 ? 0.88 * W : 0.12 * W;
    const gy = Math.min(hy, H) * 0.35;
    const rad = 0.42 * Math.max(W, H);
    for (let y = 0; y < Math.min(H, Math.ceil(hy + 0.05 * H)); y++) {
      const fade = 1 - smooth01((y - (hy - 0.04 * H)) / (0.09 * H));
      for (let x = 0; x < W; x++) {
        const d2 = ((x - gx) ** 2 + (y - gy) ** 2) / (rad * rad);
        const a = 0.3 * Math.exp(-d2 * 2.2) * fade;
        if (a < 0.003) continue;
        const i = (y * W + x) * 3;
        for (let k = 0; k < 3; k++) {
          // Coloured light: multiply toward the gel's colour, keeping the wall's brightness.
          const v = rgb[i + k]!;
          rgb[i + k] = clampByteFast(v + (second[k]! * (v / 200) - v) * a);
        }
      }
    }
  }

  // The block's colour, kept apart from the product's.
  let colour: number[] = [...first];
  const pl = labOf(spec.productColor);
  const al = labOf(first);
  const dE = Math.hypot(pl[0] - al[0], pl[1] - al[1], pl[2] - al[2]);
  if (dE < 30) {
    // A deeper shade of it under most products (a richer tone), a lighter one under dark ones.
    const t = Math.min(0.5, (30 - dE) / 35);
    const target = pl[0] >= 35 ? 0 : 255;
    colour = colour.map((v) => v + (target - v) * t);
  }
  // Floor: the surface the products stand on, from just in front of the wall's foot (its back
  // edge, with a little ambient occlusion on the wall above it). Wall: the wall washed in the
  // colour (its texture and light kept), fading out just above the floor line, so an uncertain
  // floor line in a photo never shows as a hard edge.
  const floor = spec.surface === 'floor';
  const edge = Math.min(H - 1, floor ? hy + 0.012 * H : hy - 0.012 * H);
  const cover = floor
    ? (y: number) => clamp01(0.5 + (y - edge) / 1.6)
    : (y: number) => 0.8 * (1 - smooth01((y - (edge - 0.035 * H)) / (0.035 * H)));
  // Reference brightness of the covered part (its median, sampled).
  const samples: number[] = [];
  const step = Math.max(1, Math.floor(Math.sqrt((W * H) / 20_000)));
  for (let y = 0; y < H; y += step) {
    if (cover(y) < 0.8) continue;
    for (let x = 0; x < W; x += step) {
      const i = (y * W + x) * 3;
      samples.push(luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!));
    }
  }
  if (samples.length === 0) return;
  samples.sort((a, b) => a - b);
  const ref = Math.max(1, samples[samples.length >> 1]!);
  const occlusion = Math.max(2, 0.012 * H);
  // A coloured surface shows its light more than a pale one: a pool of light around the products,
  // falling off toward the camera and the sides, and a faint sheen along the back edge.
  const box = spec.focus.box;
  const fx = box.left + box.width / 2;
  const fy = box.top + box.height;
  const colFall = new Float32Array(W);
  for (let x = 0; x < W; x++) colFall[x] = ((x - fx) / W) ** 2;
  for (let y = 0; y < H; y++) {
    const a = cover(y);
    // Ambient occlusion on the wall just above a floor's back edge.
    const ao = floor && y < edge ? 0.1 * Math.exp(-((edge - y) / occlusion)) : 0;
    if (a <= 0 && ao < 0.004) continue;
    const depth = floor ? clamp01((y - edge) / Math.max(1, H - edge)) : 0;
    const dy = floor ? (y - fy) / (0.45 * H) : 0;
    const sheen = floor ? 0.06 * Math.exp(-(((y - edge) / Math.max(1.5, 0.004 * H)) ** 2)) : 0;
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      const l = luma(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
      let gain = floor ? Math.min(1.1, Math.max(0.8, (l / ref) ** 0.85)) : Math.min(1.1, Math.max(0.6, l / ref));
      if (floor) {
        const pool = Math.exp(-(colFall[x]! * 5 + dy * dy));
        gain *= (0.9 + 0.12 * pool - 0.06 * depth * depth) * (1 + sheen);
      }
      for (let k = 0; k < 3; k++) {
        const under = rgb[i + k]! * (1 - ao);
        rgb[i + k] = clampByteFast(under * (1 - a) + colour[k]! * gain * a);
      }
    }
  }
}

const smooth01 = (t: number) => {
  const u = clamp01(t);
  return u * u * (3 - 2 * u);
};

/**
 * Compositing of the local scene engine: the cut-out products placed on the backdrop per the
 * layout, back to front, each with
 *
 * - a cast shadow: the product's own silhouette laid on the floor (sheared away from the key,
 *   foreshortened by the camera), its penumbra widening with distance as the key's softness says,
 *   taking away the key's share of the light (so it is as deep as the fill is weak, and tinted
 *   toward the fill's colour);
 * - a contact shadow: a tight dark line where the product touches the floor and a wider
 *   occlusion around it (neither key nor fill reaches under it);
 * - on a glossy or wet floor, a faint mirrored reflection fading downward;
 * - relighting by the scene's key: normals estimated from the silhouette (a rounded form), the
 *   photo's own soft frontal light divided out and the key's direction and colour temperature put
 *   in (in linear light, the product's exposure kept), a little of the surroundings' colour, and
 *   a light wrap of the backdrop at the edges, more where they face the key;
 * - edges as soft as the backdrop's detail around them, and grain matching the backdrop's.
 *
 * Products are resampled once with sharp (premultiplied alpha); everything else runs on float
 * buffers here. Deterministic for the same input and seed.
 */
import sharp from 'sharp';
import { lightColor } from '../../environment/shot.ts';
import type { SetLight } from '../scene-engine.ts';
import type { BackdropStats } from './backdrop.ts';
import type { Cutout } from './cutout.ts';
import type { Placement, SceneLayout } from './layout.ts';
import { aroundBox, boxBlur, clampByteFast, hashSeed, luma, SRGB_TO_LINEAR, toSrgb } from './raster.ts';
import { prng } from '../../shared/prng.ts';
import { boundsWhere } from '../../shared/raster.ts';
import { clamp01 } from '../../shared/math.ts';

export interface CompositeInput {
  width: number;
  height: number;
  /** RGB bytes, width × height. */
  backdrop: Uint8Array;
  stats: BackdropStats;
  layout: SceneLayout;
  /** One per placement, request order. */
  products: Cutout[];
  seed: number;
  /** Floor reflections (a glossy or wet surface). */
  glossy: boolean;
  /**
   * 0..1: a rim of light along a dark product's outline, stronger on the light's side and the top
   * (the `contrast` lever, for a dark product against a dark surround). Default 0: none.
   */
  rim?: number;
}

export interface CompositeOutput {
  /** RGB bytes, width × height. */
  rgb: Uint8Array;
  /** Products' alpha, width × height. */
  mask: Uint8Array;
}

/** Products resampled to their placement size: straight RGBA bytes. */
async function resampleProducts(products: Cutout[], placements: Placement[]): Promise<Buffer[]> {
  return Promise.all(
    products.map(async (c, i) => {
      const p = placements[i]!;
      if (p.width === c.width && p.height === c.height) return c.rgba;
      return sharp(c.rgba, { raw: { width: c.width, height: c.height, channels: 4 } })
        .resize(p.width, p.height, { fit: 'fill', kernel: p.width < c.width ? 'lanczos3' : 'mitchell' })
        .raw()
        .toBuffer();
    }),
  );
}

export async function composite(input: CompositeInput): Promise<CompositeOutput> {
  const { width: W, height: H, layout, stats } = input;
  const n = W * H;
  const canvas = new Float32Array(n * 3);
  for (let i = 0; i < n * 3; i++) canvas[i] = input.backdrop[i]!;
  const mask = new Float32Array(n);
  const resampled = await resampleProducts(input.products, layout.placements);
  const light = layout.light;
  const shares = keyShares(light);
  const rand = prng(hashSeed(input.seed, 0x9a1e, W, H, layout.variation));
  const gain = new Float32Array(3);
  // Shadow planes (share of the key hidden; of all light), reused product to product.
  const keyShade = new Float32Array(n);
  const aoShade = new Float32Array(n);

  for (const index of layout.drawOrder) {
    const p = layout.placements[index]!;
    const rgba = resampled[index]!;
    const { width: w, height: h } = p;
    const alpha = new Float32Array(w * h);
    for (let i = 0; i < w * h; i++) alpha[i] = rgba[i * 4 + 3]! / 255;

    const ambient = localAmbient(input.backdrop, W, H, p);

    if (!p.croppedBottom) {
      const foot = footprint(alpha, w, h);
      if (input.glossy) reflect(canvas, W, H, rgba, alpha, foot, p);
      castShadow(keyShade, W, H, alpha, foot, p, layout.shadow);
      contactShadow(aoShade, W, H, foot, p, layout.shadow.contact);
      applyShade(canvas, keyShade, aoShade, shares, W, p, layout.shadow);
      keyShade.fill(0);
      aoShade.fill(0);
    }

    // The product: relit by the key (normals from the silhouette), its exposure kept; a little of
    // the surroundings' colour; light wrap at the edges.
    const normals = silhouetteNormals(alpha, w, h);
    const relight = relighter(light);
    let sumL = 0;
    let sumA = 0;
    let sumG = 0;
    // Means over a sample of the product's pixels (every third).
    for (let i = 0; i < w * h; i += 3) {
      const a = alpha[i]!;
      if (a <= 0) continue;
      sumL += luma(rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!) * a;
      relight(normals[i * 3]!, normals[i * 3 + 1]!, normals[i * 3 + 2]!, gain);
      sumG += (0.2126 * gain[0]! + 0.7152 * gain[1]! + 0.0722 * gain[2]!) * a;
      sumA += a;
    }
    const productLuma = sumA > 0 ? sumL / sumA : 128;
    // A little toward the surroundings' brightness: more when they are much darker (a moody set).
    const brightness = 1 + Math.max(-0.15, Math.min(0.05, ((ambient.luma - productLuma) / 255) * 0.22));
    // The relight keeps the product's exposure: its mean gain is brought back to one.
    const keep = (sumA > 0 && sumG > 0 ? sumA / sumG : 1) * brightness;
    const tint = [0, 1, 2].map((c) => keep * (1 + 0.05 * (ambient[c]! / Math.max(1, ambient.luma) - 1)));
    const edgeR = Math.max(2, Math.round(Math.max(w, h) * 0.012));
    const inner = boxBlur(Float32Array.from(alpha), w, h, edgeR, 2);
    // Edges no crisper than the backdrop's detail around the product.
    const edgeAlpha = softenEdge(alpha, w, h, edgeSoftness(input.backdrop, W, H, p, { rgba, alpha }, stats.grain));
    // The rim light: a thin band inside the outline (about a third of the light wrap's).
    const rimAmount = input.rim && productLuma < 110 ? clamp01(input.rim) * 0.55 : 0;
    const rimInner =
      rimAmount > 0 ? boxBlur(Float32Array.from(alpha), w, h, Math.max(1, Math.round(edgeR / 2)), 2) : undefined;
    const k = light.key;
    for (let y = 0; y < h; y++) {
      const Y = p.top + y;
      if (Y < 0 || Y >= H) continue;
      const v = y / Math.max(1, h - 1);
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const a = edgeAlpha[i]!;
        if (a <= 0) continue;
        const X = p.left + x;
        if (X < 0 || X >= W) continue;
        relight(normals[i * 3]!, normals[i * 3 + 1]!, normals[i * 3 + 2]!, gain);
        // Light wrap: near the silhouette's edge, a little of the scene's colour bleeds in.
        const wrap = 0.12 * clamp01((1 - inner[i]!) * 2) * a;
        const o = (Y * W + X) * 3;
        let rim = 0;
        if (rimInner) {
          const band = clamp01((1 - rimInner[i]!) * 2.5) * a;
          const u = x / Math.max(1, w - 1);
          const toward = clamp01(0.35 + 0.65 * -k.x * (0.5 - u) * 2 + 0.5 * k.y * (0.5 - v));
          rim = rimAmount * band * toward;
        }
        for (let c = 0; c < 3; c++) {
          const src = toSrgb(SRGB_TO_LINEAR[rgba[i * 4 + c]!]! * gain[c]! * tint[c]!);
          const bg = input.backdrop[o + c]!;
          let col = src * (1 - wrap) + bg * wrap;
          if (rim > 0) col += (Math.max(bg, 200) - col) * rim;
          canvas[o + c] = canvas[o + c]! * (1 - a) + col * a;
        }
        const m = Y * W + X;
        mask[m] = a + mask[m]! * (1 - a);
      }
    }
  }

  // Grain on the products to match the backdrop's: mostly in luminance, a little in colour.
  const sigma = Math.max(0.8, Math.min(5, stats.grain));
  const rgb = new Uint8Array(n * 3);
  const outMask = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const m = mask[i]!;
    const o = i * 3;
    if (m > 0) {
      const u1 = rand();
      const u2 = rand();
      const u3 = rand();
      const g = (u1 + u2 + u3 - 1.5) * 2 * sigma * m;
      // A little colour in it, from the same draws (red and blue apart from green).
      const chroma = 0.3 * sigma * m;
      canvas[o]! += g + (u1 - u2) * chroma;
      canvas[o + 1]! += g;
      canvas[o + 2]! += g + (u3 - u2) * chroma;
      outMask[i] = (m * 255 + 0.5) | 0;
    }
    rgb[o] = clampByteFast(canvas[o]!);
    rgb[o + 1] = clampByteFast(canvas[o + 1]!);
    rgb[o + 2] = clampByteFast(canvas[o + 2]!);
  }
  return { rgb, mask: outMask };
}

/** Mean backdrop colour around a placement (its box grown by a quarter), with its luma. */
function localAmbient(rgb: Uint8Array, W: number, H: number, p: Placement) {
  const { x0, x1, y0, y1, step } = aroundBox(p, Math.round(p.width * 0.25), Math.round(p.height * 0.25), W, H);
  let r = 0;
  let g = 0;
  let b = 0;
  let c = 0;
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      const i = (y * W + x) * 3;
      r += rgb[i]!;
      g += rgb[i + 1]!;
      b += rgb[i + 2]!;
      c++;
    }
  }
  const mean = c ? [r / c, g / c, b / c] : [128, 128, 128];
  return Object.assign(mean, { luma: luma(mean[0]!, mean[1]!, mean[2]!) });
}

/**
 * Where each column of the product meets the floor (local y, px): the bottom of its silhouette
 * where that is near the product's base; columns that end higher (a mug's handle, a sleeve) take
 * the floor line of their nearest touching neighbours. `touching` marks the columns that do reach
 * the floor.
 */
export interface Footprint {
  floorY: Float32Array;
  /** The column reaches the floor. */
  touching: Uint8Array;
  /** 0..1 per column: 1 where it stands on the floor, fading to 0 as its bottom rises above it. */
  occlusion: Float32Array;
}

export function footprint(alpha: Float32Array, w: number, h: number): Footprint {
  const floorY = new Float32Array(w);
  const touching = new Uint8Array(w);
  const occlusion = new Float32Array(w);
  const bottom = new Int32Array(w).fill(-1);
  for (let x = 0; x < w; x++) {
    for (let y = h - 1; y >= 0; y--) {
      if (alpha[y * w + x]! >= 0.5) {
        bottom[x] = y;
        break;
      }
    }
  }
  const near = Math.max(2, h * 0.06);
  const touch: number[] = [];
  for (let x = 0; x < w; x++) {
    if (bottom[x]! >= 0 && h - 1 - bottom[x]! <= near) {
      touching[x] = 1;
      touch.push(x);
    }
  }
  if (touch.length === 0) {
    floorY.fill(h - 1);
    return { floorY, touching, occlusion };
  }
  let k = 0;
  for (let x = 0; x < w; x++) {
    if (touching[x]) {
      floorY[x] = bottom[x]!;
      continue;
    }
    while (k < touch.length - 1 && touch[k + 1]! < x) k++;
    const a = touch[k]!;
    const b = touch[Math.min(touch.length - 1, k + 1)]!;
    if (x <= a) floorY[x] = bottom[a]!;
    else if (x >= b) floorY[x] = bottom[b]!;
    else floorY[x] = bottom[a]! + ((bottom[b]! - bottom[a]!) * (x - a)) / (b - a);
  }
  for (let x = 0; x < w; x++) {
    if (bottom[x]! < 0) continue;
    occlusion[x] = Math.max(0, 1 - (floorY[x]! - bottom[x]!) / Math.max(1, h * 0.15));
  }
  return { floorY, touching, occlusion };
}

/**
 * Adds the product's cast shadow to `shade` (0..1: the share of the key hidden, per frame pixel):
 * each silhouette pixel `t` product-heights above its column's floor point lands `lateral·t`
 * heights sideways and `depth·t` heights up the floor (negative: toward the camera), thickened back
 * by the product's own depth on the floor (`thickness` of its width); then blurred more and fading
 * further from the product, the far blur `softness` product heights.
 */
function castShadow(
  shade: Float32Array,
  W: number,
  H: number,
  alpha: Float32Array,
  foot: { floorY: Float32Array },
  p: Placement,
  spec: SceneLayout['shadow'],
): void {
  const { width: w, height: h } = p;
  const { lateral, depth, opacity, softness, thickness } = spec;
  if (opacity <= 0 || Math.hypot(lateral, depth) * h < 1) return;
  const side = lateral * h;
  const back = depth * h;
  const thick = Math.max(1, Math.round(thickness * w));
  const soft = Math.max(2, Math.round(h * softness));
  const sharpR = Math.max(1, Math.round(h * Math.min(0.012, softness * 0.2)));
  const pad = soft * 3 + 2;
  // The shadow's box on the frame (what falls outside it is not drawn; the blur's margin is kept).
  const x0 = Math.max(-pad, Math.floor(p.left + Math.min(0, side)) - pad);
  const x1 = Math.min(W + pad, Math.ceil(p.left + w + Math.max(0, side)) + pad);
  const y0 = Math.max(-pad, Math.floor(p.top + h - 1 - Math.max(0, back)) - thick - pad - Math.ceil(h * 0.07));
  const y1 = Math.min(H + pad, Math.ceil(p.top + h + Math.max(0, -back)) + pad);
  const rw = x1 - x0;
  const rh = y1 - y0;
  if (rw <= 0 || rh <= 0) return;
  const sil = new Float32Array(rw * rh);
  const along = new Float32Array(rw * rh);
  // A row of the silhouette lands |side|/h px wide: fill the run so a long shadow has no gaps.
  const run = Math.max(1, Math.ceil(Math.abs(side) / h));
  const dx = side >= 0 ? 1 : -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const a = alpha[y * w + x]!;
      if (a < 0.02) continue;
      const fy = foot.floorY[x]!;
      const t = Math.max(0, (fy - y) / h);
      const X = Math.round(p.left + x + side * t) - x0;
      const Y = Math.round(p.top + fy - back * t) - y0;
      if (Y < 0 || Y >= rh) continue;
      for (let k = 0; k < run; k++) {
        const xx = X + k * dx;
        if (xx < 0 || xx >= rw) continue;
        const q = Y * rw + xx;
        if (a > sil[q]!) {
          sil[q] = a;
          along[q] = t;
        }
      }
    }
  }
  // The product's depth on the floor: each point of the shadow also covers `thick` px behind it
  // (a running maximum down each column).
  const deep = new Float32Array(rw * rh);
  const weighted = new Float32Array(rw * rh);
  const queue = new Int32Array(rh);
  for (let x = 0; x < rw; x++) {
    let head = 0;
    let tail = 0;
    for (let y = rh - 1; y >= 0; y--) {
      const v = sil[y * rw + x]!;
      while (tail > head && sil[queue[tail - 1]! * rw + x]! <= v) tail--;
      queue[tail++] = y;
      while (queue[head]! > y + thick) head++;
      const m = queue[head]! * rw + x;
      deep[y * rw + x] = sil[m]!;
      weighted[y * rw + x] = sil[m]! * along[m]!;
    }
  }
  // Sharp near the product, soft far from it (blurred at half size); how far along the shadow
  // each pixel is.
  const near = boxBlur(Float32Array.from(deep), rw, rh, sharpR, 2);
  const hw = Math.ceil(rw / 2);
  const hh = Math.ceil(rh / 2);
  const far = boxBlur(halve(deep, rw, rh), hw, hh, Math.max(1, Math.round(soft / 2)), 3);
  const farT = boxBlur(halve(weighted, rw, rh), hw, hh, Math.max(1, Math.round(soft / 2)), 3);
  addShade(shade, W, H, { x0, y0, rw, rh }, 0.97, (q, rx, ry) => {
    // The far part is smooth: its nearest half-size pixel will do.
    const h2 = (ry >> 1) * hw + (rx >> 1);
    const f = far[h2]!;
    if (f <= 0.002 && near[q]! <= 0.002) return 0;
    const t = f > 1e-4 ? Math.min(1, farT[h2]! / f) : 0;
    const mixT = Math.min(1, t * 1.6);
    return (near[q]! * (1 - mixT) + f * mixT) * opacity * (1 - 0.45 * t);
  });
}

/**
 * Adds a shadow to the `shade` plane (W×H, 0 none .. 1 full), in place: for each pixel of the
 * region (`rw`×`rh` at `x0`, `y0` on the frame) inside the frame, its `strength` (given the
 * region's index and coordinates; 0.002 or less is none), capped at `cap`, on top of the shade
 * already there.
 */
function addShade(
  shade: Float32Array,
  W: number,
  H: number,
  region: { x0: number; y0: number; rw: number; rh: number },
  cap: number,
  strength: (q: number, rx: number, ry: number) => number,
): void {
  const { x0, y0, rw, rh } = region;
  for (let ry = 0; ry < rh; ry++) {
    const Y = y0 + ry;
    if (Y < 0 || Y >= H) continue;
    for (let rx = 0; rx < rw; rx++) {
      const X = x0 + rx;
      if (X < 0 || X >= W) continue;
      const s = strength(ry * rw + rx, rx, ry);
      if (s <= 0.002) continue;
      const o = Y * W + X;
      shade[o] = 1 - (1 - shade[o]!) * (1 - Math.min(cap, s));
    }
  }
}

/** A plane at half size (2×2 means; a last odd row or column averaged with itself). */
function halve(src: Float32Array, w: number, h: number): Float32Array {
  const hw = Math.ceil(w / 2);
  const hh = Math.ceil(h / 2);
  const out = new Float32Array(hw * hh);
  for (let y = 0; y < hh; y++) {
    const y0 = 2 * y;
    const y1 = Math.min(h - 1, y0 + 1);
    for (let x = 0; x < hw; x++) {
      const x0 = 2 * x;
      const x1 = Math.min(w - 1, x0 + 1);
      out[y * hw + x] = (src[y0 * w + x0]! + src[y0 * w + x1]! + src[y1 * w + x0]! + src[y1 * w + x1]!) / 4;
    }
  }
  return out;
}

/** A plane's value between its pixels (edges clamped). */
function bilinear(src: Float32Array, w: number, h: number, x: number, y: number): number {
  const cx = Math.min(w - 1, Math.max(0, x));
  const cy = Math.min(h - 1, Math.max(0, y));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(w - 1, x0 + 1);
  const y1 = Math.min(h - 1, y0 + 1);
  const fx = cx - x0;
  const fy = cy - y0;
  const top = src[y0 * w + x0]! * (1 - fx) + src[y0 * w + x1]! * fx;
  const bottom = src[y1 * w + x0]! * (1 - fx) + src[y1 * w + x1]! * fx;
  return top * (1 - fy) + bottom * fy;
}

/**
 * Adds the contact shadow: a tight dark line where the product meets the floor (under the
 * touching columns) and a wider, fainter occlusion around it.
 */
function contactShadow(
  shade: Float32Array,
  W: number,
  H: number,
  foot: Footprint,
  p: Placement,
  opacity: number,
): void {
  const { width: w, height: h } = p;
  const tight = Math.max(1, Math.round(h * 0.007));
  const wide = Math.max(3, Math.round(h * 0.045));
  const pad = wide * 3 + 2;
  const x0 = p.left - pad;
  const y0 = p.top + h - 1 - Math.round(h * 0.08) - pad;
  const rw = w + 2 * pad;
  const rh = Math.round(h * 0.08) + 2 * pad + 1;
  const line = new Float32Array(rw * rh);
  const band = new Float32Array(rw * rh);
  for (let x = 0; x < w; x++) {
    const cy = Math.round(p.top + foot.floorY[x]!) - y0;
    const X = p.left + x - x0;
    // The wide occlusion under the product, fading with how high the column's bottom is above
    // the floor (a low overhang still shades it; a handle up in the air does not)…
    const occlusion = foot.occlusion[x]!;
    if (occlusion > 0) {
      for (let d = -2 * wide; d <= 0; d++) {
        const Y = cy + d;
        if (Y >= 0 && Y < rh) band[Y * rw + X] = occlusion;
      }
    }
    // …the tight line only where it touches.
    if (!foot.touching[x]) continue;
    for (let d = -2 * tight; d <= 0; d++) {
      const Y = cy + d;
      if (Y >= 0 && Y < rh) line[Y * rw + X] = 1;
    }
  }
  boxBlur(line, rw, rh, tight, 2);
  boxBlur(band, rw, rh, wide, 3);
  addShade(
    shade,
    W,
    H,
    { x0, y0, rw, rh },
    0.95,
    (q) => Math.min(1, line[q]! * 1.6) * opacity + Math.min(1, band[q]! * 1.4) * opacity * 0.6,
  );
}

/**
 * Darkens the canvas by the shadows: `keyShade` takes away that share of the key (per channel:
 * the key's part of the light there, so a shadow takes the fill's colour), `aoShade` that share of
 * all light.
 */
function applyShade(
  canvas: Float32Array,
  keyShade: Float32Array,
  aoShade: Float32Array,
  shares: readonly number[],
  W: number,
  p: Placement,
  spec: SceneLayout['shadow'],
): void {
  const H = keyShade.length / W;
  const reach = (Math.abs(spec.depth) + spec.thickness) * p.height + spec.thickness * p.width;
  const side = Math.abs(spec.lateral) * p.height;
  const pad = Math.round(p.height * (0.2 + 3 * spec.softness)) + 8;
  const x0 = Math.max(0, Math.floor(p.left - side - pad));
  const x1 = Math.min(W, Math.ceil(p.left + p.width + side + pad));
  const y0 = Math.max(0, Math.floor(p.top + p.height - reach - pad));
  const y1 = Math.min(H, Math.ceil(p.top + p.height + reach + pad));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * W + x;
      const k = keyShade[i]!;
      const a = aoShade[i]!;
      if (k <= 0 && a <= 0) continue;
      const o = i * 3;
      const open = 1 - a;
      canvas[o] = canvas[o]! * (1 - k * shares[0]!) * open;
      canvas[o + 1] = canvas[o + 1]! * (1 - k * shares[1]!) * open;
      canvas[o + 2] = canvas[o + 2]! * (1 - k * shares[2]!) * open;
    }
  }
}

/** A faint mirrored copy of the product under its floor line, fading over a third of its height. */
function reflect(
  canvas: Float32Array,
  W: number,
  H: number,
  rgba: Buffer,
  alpha: Float32Array,
  foot: { floorY: Float32Array },
  p: Placement,
): void {
  const { width: w, height: h } = p;
  const len = Math.max(1, Math.round(h * 0.3));
  for (let x = 0; x < w; x++) {
    const X = p.left + x;
    if (X < 0 || X >= W) continue;
    const fy = Math.round(foot.floorY[x]!);
    for (let d = 1; d < len; d++) {
      const Y = p.top + fy + d;
      const sy = fy - d;
      if (Y >= H || sy < 0) break;
      if (Y < 0) continue;
      const i = sy * w + x;
      const a = alpha[i]! * 0.2 * (1 - d / len) ** 1.6;
      if (a <= 0.002) continue;
      const o = (Y * W + X) * 3;
      for (let c = 0; c < 3; c++) canvas[o + c] = canvas[o + c]! * (1 - a) + rgba[i * 4 + c]! * a;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Relighting (pure).

/** The light a product photo is taken in: a soft key in front, a little above (x right, y up, z toward the camera). */
export const PHOTO_KEY = { x: 0, y: 0.38, z: 0.925 } as const;

/**
 * Per-channel gain (linear light) that relights a surface of normal (nx, ny, nz), lit in its photo
 * by PHOTO_KEY with the scene's fill, by the scene's key instead: its colour on the side facing
 * it, the fill's colour in its shade (Lambert, wrapped further round by a soft light). A
 * `strength` of the way there (0 leaves the photo as it is), bounded. Returns the function for
 * one light: `(nx, ny, nz, out)`.
 */
export function relighter(
  light: SetLight,
  strength = RELIGHT,
): (nx: number, ny: number, nz: number, out: Float32Array) => void {
  const fill = Math.min(0.9, Math.max(0.1, light.fill));
  const wrap = 0.2 + 0.4 * (1 - clamp01(light.hardness));
  const k = light.key;
  const key = lightColor(light.temperature, 1);
  const fillColour = lightColor(-light.temperature * 0.45, 0.7);
  return (nx, ny, nz, out) => {
    const now = Math.max(0, (nx * k.x + ny * k.y + nz * k.z + wrap) / (1 + wrap));
    const was = Math.max(0, (nx * PHOTO_KEY.x + ny * PHOTO_KEY.y + nz * PHOTO_KEY.z + wrap) / (1 + wrap));
    const before = fill + (1 - fill) * was;
    for (let c = 0; c < 3; c++) {
      const g = (fill * fillColour[c]! + (1 - fill) * now * key[c]!) / before;
      out[c] = Math.min(1.6, Math.max(0.4, 1 + (g - 1) * strength));
    }
  };
}

/** How far the products are relit toward the scene's key (the photo's own modelling keeps the rest). */
const RELIGHT = 0.7;

/**
 * The key's share of the light on the floor, per channel (1 − the fill's): what a cast shadow,
 * hiding the key, takes away; a warm key leaves a cooler shade.
 */
export function keyShares(light: SetLight): [number, number, number] {
  const fill = Math.min(0.9, Math.max(0.05, light.fill));
  const key = lightColor(light.temperature, 1);
  const fillColour = lightColor(-light.temperature * 0.45, 0.7);
  const share = (c: number) => ((1 - fill) * key[c]!) / ((1 - fill) * key[c]! + fill * fillColour[c]!);
  return [share(0), share(1), share(2)];
}

/**
 * Surface normals of a product from its silhouette (x right, y up, z toward the camera; 3 floats
 * a pixel): the alpha blurred at two scales is taken as its height, so the outline turns away
 * from the camera and the middle faces it, as a rounded form would.
 */
export function silhouetteNormals(alpha: Float32Array, w: number, h: number): Float32Array {
  const size = Math.min(w, h);
  const r1 = Math.max(1, Math.round(size * 0.035));
  const r2 = Math.max(2, Math.round(size * 0.14));
  // Padded with clear pixels (a trimmed cut-out's outline runs along its array's edges): the
  // fine form at full size, the broad one at a quarter (its blur is wide: the detail lost does
  // not show).
  const fine = slopes(alpha, w, h, 3 * r1 + 2, 1, r1);
  const broad = slopes(alpha, w, h, 3 * r2 + 4, 4, Math.max(1, Math.round(r2 / 4)));
  const out = new Float32Array(w * h * 3);
  // A blurred edge climbs about 0.4 / r per pixel: scaled so the outline leans about 60°.
  const k1 = 0.6 * 4.2 * r1;
  const k2 = 0.4 * 4.2 * r2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const gx = k1 * fine.gx[i]! + k2 * broad.gx[i]!;
      const gy = k1 * fine.gy[i]! + k2 * broad.gy[i]!;
      // Height rises inward: the normal leans against the gradient (image y runs down).
      const n = 1 / Math.sqrt(gx * gx + gy * gy + 1);
      out[i * 3] = -gx * n;
      out[i * 3 + 1] = gy * n;
      out[i * 3 + 2] = n;
    }
  }
  return out;
}

/**
 * The alpha's change per pixel (x and y, w × h each) once padded with `pad` clear pixels, shrunk
 * `k` times (means) and box-blurred (radius r, three passes); at full size again (bilinear).
 */
function slopes(alpha: Float32Array, w: number, h: number, pad: number, k: number, r: number) {
  const pw = Math.ceil((w + 2 * pad) / k);
  const ph = Math.ceil((h + 2 * pad) / k);
  const plane = new Float32Array(pw * ph);
  const share = 1 / (k * k);
  for (let y = 0; y < h; y++) {
    const row = Math.floor((y + pad) / k) * pw;
    for (let x = 0; x < w; x++) plane[row + Math.floor((x + pad) / k)]! += alpha[y * w + x]! * share;
  }
  boxBlur(plane, pw, ph, r, 3);
  // Central differences on the small plane, per pixel of the full one.
  const dx = new Float32Array(pw * ph);
  const dy = new Float32Array(pw * ph);
  for (let y = 1; y < ph - 1; y++) {
    for (let x = 1; x < pw - 1; x++) {
      const i = y * pw + x;
      dx[i] = (plane[i + 1]! - plane[i - 1]!) / (2 * k);
      dy[i] = (plane[i + pw]! - plane[i - pw]!) / (2 * k);
    }
  }
  const gx = new Float32Array(w * h);
  const gy = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const sy = (y + pad + 0.5) / k - 0.5;
    for (let x = 0; x < w; x++) {
      const sx = (x + pad + 0.5) / k - 0.5;
      gx[y * w + x] = k === 1 ? dx[(y + pad) * pw + x + pad]! : bilinear(dx, pw, ph, sx, sy);
      gy[y * w + x] = k === 1 ? dy[(y + pad) * pw + x + pad]! : bilinear(dy, pw, ph, sx, sy);
    }
  }
  return { gx, gy };
}

// ---------------------------------------------------------------------------------------------
// Edges (pure).

/**
 * Blur (px, Gaussian σ) the backdrop has at the product's depth beyond the product's own: read on
 * the floor beside the product's base (the wall behind may be out of focus; the product is not),
 * each image's sharpness from how its fine differences compare with its differences two pixels
 * apart, grain taken out (σ 0 gives a ratio of 1, a blurred image tends to one half), then mapped
 * to σ.
 */
export function edgeSoftness(
  backdrop: Uint8Array,
  W: number,
  H: number,
  p: Placement,
  product: { rgba: Buffer; alpha: Float32Array },
  grain: number,
): number {
  const gx = Math.round(p.width * 0.35);
  const gy = Math.round(p.height * 0.08);
  const x0 = Math.max(0, p.left - gx);
  const x1 = Math.min(W - 2, p.left + p.width + gx);
  const y0 = Math.max(0, p.base - gy);
  const y1 = Math.min(H, p.base + gy);
  let b1 = 0;
  let b2 = 0;
  let nb = 0;
  const step = Math.max(1, Math.floor(Math.sqrt(((x1 - x0) * (y1 - y0)) / 40_000)));
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      // Only around the product, not behind it.
      if (x >= p.left && x < p.left + p.width && y >= p.top && y < p.top + p.height) continue;
      const i = (y * W + x) * 3;
      const l0 = luma(backdrop[i]!, backdrop[i + 1]!, backdrop[i + 2]!);
      const l1 = luma(backdrop[i + 3]!, backdrop[i + 4]!, backdrop[i + 5]!);
      const l2 = luma(backdrop[i + 6]!, backdrop[i + 7]!, backdrop[i + 8]!);
      b1 += (l1 - l0) ** 2;
      b2 += (l2 - l0) ** 2;
      nb++;
    }
  }
  const { width: w, height: h } = p;
  let p1 = 0;
  let p2 = 0;
  let np = 0;
  const hist = new Uint32Array(256);
  const pstep = Math.max(1, Math.floor(Math.sqrt((w * h) / 40_000)));
  for (let y = 0; y < h; y += pstep) {
    for (let x = 0; x < w - 2; x += pstep) {
      const i = y * w + x;
      if (product.alpha[i]! < 0.99 || product.alpha[i + 2]! < 0.99) continue;
      const c = product.rgba;
      const l0 = luma(c[i * 4]!, c[i * 4 + 1]!, c[i * 4 + 2]!);
      const l1 = luma(c[i * 4 + 4]!, c[i * 4 + 5]!, c[i * 4 + 6]!);
      const l2 = luma(c[i * 4 + 8]!, c[i * 4 + 9]!, c[i * 4 + 10]!);
      p1 += (l1 - l0) ** 2;
      p2 += (l2 - l0) ** 2;
      hist[Math.min(255, Math.round(Math.abs(l1 - l0)))]!++;
      np++;
    }
  }
  if (nb < 50 || np < 50) return 0;
  let median = 0;
  for (let seen = 0; median < 255 && seen + hist[median]! <= np / 2; median++) seen += hist[median]!;
  const productGrain = (median * 1.4826) / Math.SQRT2;
  const ratio = (s1: number, s2: number, n: number, noise: number) => {
    const v1 = s1 / n - 2 * noise * noise;
    const v2 = s2 / n - 2 * noise * noise;
    return v1 > 1 && v2 > 1 ? Math.sqrt(v1 / v2) : undefined;
  };
  const qb = ratio(b1, b2, nb, grain);
  const qp = ratio(p1, p2, np, productGrain);
  if (qb === undefined || qp === undefined) return 0;
  return Math.max(0, sigmaOfRatio(qb) - sigmaOfRatio(qp));
}

/** Gaussian blur σ (px) that brings a flat-spectrum image's fine/coarse difference ratio to `q`. */
export function sigmaOfRatio(q: number): number {
  // q(σ) for σ = 0, 0.3, 0.5, 0.7, 1, 1.5, 2, 3 (tabulated from the spectrum integral).
  const Q = [1, 0.9, 0.777, 0.675, 0.592, 0.541, 0.523, 0.51];
  const S = [0, 0.3, 0.5, 0.7, 1, 1.5, 2, 3];
  if (q >= Q[0]!) return 0;
  for (let i = 1; i < Q.length; i++) {
    if (q >= Q[i]!) return S[i - 1]! + ((Q[i - 1]! - q) / (Q[i - 1]! - Q[i]!)) * (S[i]! - S[i - 1]!);
  }
  return 3;
}

/**
 * The alpha with its edge softened by σ (px, up to 3), inward only (no pixel gains coverage, so
 * no colour from outside the product comes in); a copy, or the alpha itself when σ is under a pixel.
 */
export function softenEdge(alpha: Float32Array, w: number, h: number, sigma: number): Float32Array {
  const r = Math.min(3, Math.round(sigma));
  if (r < 1) return alpha;
  const soft = boxBlur(Float32Array.from(alpha), w, h, r, 2);
  for (let i = 0; i < soft.length; i++) soft[i] = Math.min(alpha[i]!, soft[i]!);
  return soft;
}

// ---------------------------------------------------------------------------------------------
// The brand logo (the `logo` lever).

/** A decoded logo: straight RGBA, trimmed to its visible part. */
export interface LogoImage {
  rgba: Buffer;
  width: number;
  height: number;
  /** It has transparency (else it is placed as an opaque badge). */
  transparent: boolean;
}

/** Decodes and trims a logo (PNG/SVG/JPEG...), bounded; undefined when it cannot be read. */
export async function loadLogo(bytes: Buffer, maxInputPixels = 16_000_000): Promise<LogoImage | undefined> {
  try {
    // A vector logo is rasterised at about 1600 px on its long side, whatever size it declares.
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    const long = Math.max(meta.width ?? 0, meta.height ?? 0);
    const density = meta.format === 'svg' && long > 0 ? Math.min(600, Math.max(4, (72 * 1600) / long)) : 72;
    const img = sharp(bytes, { limitInputPixels: maxInputPixels, failOn: 'truncated', density })
      .autoOrient()
      .toColourspace('srgb')
      .ensureAlpha();
    const { data, info } = await img
      .resize(1600, 1600, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width: w, height: h } = info;
    let transparent = false;
    for (let i = 3; i < data.length && !transparent; i += 4) transparent = data[i]! < 250;
    const bounds = boundsWhere(w, h, (i) => data[i * 4 + 3]! >= 8);
    if (!bounds) return undefined;
    const { l, t, r, b } = bounds;
    const width = r - l + 1;
    const height = b - t + 1;
    const rgba = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++)
      data.copy(rgba, y * width * 4, ((t + y) * w + l) * 4, ((t + y) * w + l + width) * 4);
    return { rgba, width, height, transparent };
  } catch {
    return undefined;
  }
}

export interface LogoPlacementInput {
  width: number;
  height: number;
  /** Products' boxes (px): the logo keeps clear of them. */
  avoid: PlacedBox[];
  /** `corner`: a small mark in the emptiest corner; `backdrop`: larger, printed on the wall. */
  placement: 'corner' | 'backdrop';
  /** Floor line, fraction of the height (a printed logo stays on the wall above it). */
  horizon: number;
}

interface PlacedBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

const overlap = (a: PlacedBox, b: PlacedBox) =>
  Math.max(0, Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left)) *
  Math.max(0, Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top));

/** Gap (px) between two boxes, 0 when they touch or overlap. */
const gap = (a: PlacedBox, b: PlacedBox) =>
  Math.hypot(
    Math.max(0, a.left - (b.left + b.width), b.left - (a.left + a.width)),
    Math.max(0, a.top - (b.top + b.height), b.top - (a.top + a.height)),
  );

/**
 * Where the logo goes: its size from a target share of the frame (about 1% for a corner mark, 2.2%
 * printed on the wall), bounded in width and height; a corner mark takes the corner farthest from
 * the products (top corners preferred a little), kept 4.5% of the short side from the edges; a
 * printed one the widest free stretch of wall beside or above the products. Undefined when it
 * would have to cover a product.
 */
export function logoBox(logo: { width: number; height: number }, input: LogoPlacementInput): PlacedBox | undefined {
  const { width: W, height: H } = input;
  const aspect = logo.width / logo.height;
  const share = input.placement === 'corner' ? 0.0105 : 0.022;
  let h = Math.sqrt((share * W * H) / aspect);
  let w = h * aspect;
  const maxW = (input.placement === 'corner' ? 0.26 : 0.36) * W;
  const maxH = (input.placement === 'corner' ? 0.09 : 0.16) * H;
  if (w > maxW) {
    h *= maxW / w;
    w = maxW;
  }
  if (h > maxH) {
    w *= maxH / h;
    h = maxH;
  }
  w = Math.max(4, Math.round(w));
  h = Math.max(4, Math.round(h));
  const m = Math.round(0.045 * Math.min(W, H));
  const pad = Math.round(0.02 * Math.min(W, H));
  const candidates: { box: PlacedBox; bias: number }[] = [];
  if (input.placement === 'corner') {
    candidates.push(
      { box: { left: W - m - w, top: m, width: w, height: h }, bias: 1.15 },
      { box: { left: m, top: m, width: w, height: h }, bias: 1.1 },
      { box: { left: W - m - w, top: H - m - h, width: w, height: h }, bias: 1 },
      { box: { left: m, top: H - m - h, width: w, height: h }, bias: 0.95 },
    );
  } else {
    const wallBottom = Math.max(h + m, input.horizon * H - 0.06 * H);
    const top = Math.max(m, Math.round(Math.min(wallBottom - h, 0.2 * H)));
    for (const fx of [0.5, 0.25, 0.75, 0.18, 0.82]) {
      candidates.push({
        box: { left: Math.round(Math.min(W - m - w, Math.max(m, fx * W - w / 2))), top, width: w, height: h },
        bias: fx === 0.5 ? 1.1 : 1,
      });
    }
  }
  let best: { box: PlacedBox; score: number } | undefined;
  for (const c of candidates) {
    const grown = {
      left: c.box.left - pad,
      top: c.box.top - pad,
      width: c.box.width + 2 * pad,
      height: c.box.height + 2 * pad,
    };
    if (input.avoid.some((p) => overlap(grown, p) > 0)) continue;
    const clear = Math.min(Math.max(W, H), ...input.avoid.map((p) => gap(c.box, p)));
    const score = clear * c.bias;
    if (!best || score > best.score) best = { box: c.box, score };
  }
  return best?.box;
}

/**
 * Draws the logo into `rgb` (bytes, width × height × 3) at `box`, in place. Resampled once
 * (premultiplied). When its colours would not read against what is behind it (a dark mark on a
 * dark wall), it is drawn as a one-colour mark, near-white or charcoal, whichever contrasts. A
 * `printed` logo takes the wall's light and texture (multiplied by the wall's shading, 92% ink).
 */
export async function drawLogo(
  rgb: Uint8Array,
  width: number,
  logo: LogoImage,
  box: PlacedBox,
  printed: boolean,
): Promise<void> {
  const { data } = await sharp(logo.rgba, { raw: { width: logo.width, height: logo.height, channels: 4 } })
    .resize(box.width, box.height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = box.width * box.height;
  let bg = 0;
  for (let i = 0; i < n; i++) {
    const o = ((box.top + Math.floor(i / box.width)) * width + box.left + (i % box.width)) * 3;
    bg += luma(rgb[o]!, rgb[o + 1]!, rgb[o + 2]!);
  }
  bg /= n;
  // Legible when a good part (40%) of the mark's ink is 3:1 apart from what is behind it (WCAG's ratio for
  // graphics); else a one-colour mark (its light parts knocked out), near-white on a deep wall,
  // charcoal on a light one.
  const wall = relativeLuminance(bg, bg, bg);
  let legible = 0;
  let inkW = 0;
  for (let i = 0; i < n; i++) {
    const a = data[i * 4 + 3]! / 255;
    if (a <= 0) continue;
    const ink = relativeLuminance(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!);
    if ((Math.max(wall, ink) + 0.05) / (Math.min(wall, ink) + 0.05) >= 3) legible += a;
    inkW += a;
  }
  const mono = logo.transparent && legible < 0.4 * inkW ? (wall < 0.3 ? [246, 245, 242] : [30, 30, 32]) : undefined;
  for (let i = 0; i < n; i++) {
    let a0 = data[i * 4 + 3]! / 255;
    if (mono && a0 > 0) {
      const l = luma(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!) / 255;
      a0 *= clamp01((0.78 - l) / 0.2);
    }
    if (a0 <= 0) continue;
    const a = printed ? a0 * 0.92 : a0;
    const x = box.left + (i % box.width);
    const y = box.top + Math.floor(i / box.width);
    const o = (y * width + x) * 3;
    const shade = printed
      ? Math.min(1.08, Math.max(0.85, luma(rgb[o]!, rgb[o + 1]!, rgb[o + 2]!) / Math.max(1, bg)))
      : 1;
    for (let c = 0; c < 3; c++) {
      const src = (mono ? mono[c]! : data[i * 4 + c]!) * shade;
      rgb[o + c] = clampByteFast(rgb[o + c]! * (1 - a) + src * a);
    }
  }
}

/** WCAG relative luminance (0..1) of an sRGB colour. */
function relativeLuminance(r: number, g: number, b: number): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

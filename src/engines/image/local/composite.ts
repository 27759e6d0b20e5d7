/**
 * Compositing of the local scene engine: the cut-out products placed on the backdrop per the
 * layout, back to front, each with
 *
 * - a cast shadow: the product's own silhouette laid on the floor (sheared away from the light,
 *   foreshortened by the camera height), soft and fading with distance from the base;
 * - a contact shadow: the silhouette squashed almost flat at the base, tight and dark;
 * - on a glossy or wet floor, a faint mirrored reflection fading downward;
 * - a light nudge toward the scene: ambient tint and brightness (a few per cent), light-side
 *   shading and a light wrap of the backdrop's colour at the edges;
 * - grain matching the backdrop's.
 *
 * Products are resampled once with sharp (premultiplied alpha); everything else runs on float
 * buffers here. Deterministic for the same input and seed.
 */
import sharp from 'sharp';
import type { BackdropStats } from './backdrop.ts';
import type { Cutout } from './cutout.ts';
import type { Placement, SceneLayout } from './layout.ts';
import { boxBlur, clamp01, hashSeed, luma, prng } from './raster.ts';

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
  const rad = (layout.lightAngle * Math.PI) / 180;
  const lightSide = -Math.cos(rad); // +1: light from the left
  const lightTop = Math.sin(rad); // +1: light from above
  const rand = prng(hashSeed(input.seed, 0x9a1e, W, H, layout.variation));

  for (const index of layout.drawOrder) {
    const p = layout.placements[index]!;
    const rgba = resampled[index]!;
    const { width: w, height: h } = p;
    const alpha = new Float32Array(w * h);
    for (let i = 0; i < w * h; i++) alpha[i] = rgba[i * 4 + 3]! / 255;

    const ambient = localAmbient(input.backdrop, W, H, p);
    const shadowTint = ambient.map((c) => Math.min(0.5, Math.max(0.1, (0.26 * c) / Math.max(1, ambient.luma))));

    if (!p.croppedBottom) {
      const foot = footprint(alpha, w, h);
      if (input.glossy) reflect(canvas, W, H, rgba, alpha, foot, p);
      const shade = new Float32Array(n);
      const { lateral, depth, opacity, contact } = layout.shadow;
      castShadow(shade, W, H, alpha, foot, p, lateral, depth, opacity);
      contactShadow(shade, W, H, foot, p, contact);
      applyShade(canvas, shade, shadowTint, W, p, layout.shadow);
    }

    // The product: ambient tint and brightness nudged, light-side shading, light wrap.
    let sumL = 0;
    let sumA = 0;
    for (let i = 0; i < w * h; i++) {
      const a = alpha[i]!;
      if (a <= 0) continue;
      sumL += luma(rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!) * a;
      sumA += a;
    }
    const productLuma = sumA > 0 ? sumL / sumA : 128;
    const brightness = 1 + Math.max(-0.06, Math.min(0.05, ((ambient.luma - productLuma) / 255) * 0.12));
    const tint = [0, 1, 2].map((c) => 1 + 0.08 * (ambient[c]! / Math.max(1, ambient.luma) - 1));
    const edgeR = Math.max(2, Math.round(Math.max(w, h) * 0.012));
    const inner = boxBlur(Float32Array.from(alpha), w, h, edgeR, 2);
    for (let y = 0; y < h; y++) {
      const Y = p.top + y;
      if (Y < 0 || Y >= H) continue;
      const v = y / Math.max(1, h - 1);
      const vGain = 1 + 0.03 * lightTop * (0.5 - v);
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const a = alpha[i]!;
        if (a <= 0) continue;
        const X = p.left + x;
        if (X < 0 || X >= W) continue;
        const u = x / Math.max(1, w - 1);
        const gain = brightness * vGain * (1 + 0.05 * lightSide * (0.5 - u) * 2);
        // Light wrap: near the silhouette's edge, a little of the scene's colour bleeds in,
        // more on the light's side.
        const edge = clamp01((1 - inner[i]!) * 2) * a;
        const lit = 0.6 + 0.4 * clamp01(0.5 + lightSide * (0.5 - u) * 2);
        const wrap = 0.15 * edge * lit;
        const o = (Y * W + X) * 3;
        for (let c = 0; c < 3; c++) {
          const src = rgba[i * 4 + c]! * tint[c]! * gain;
          const bg = input.backdrop[o + c]!;
          const col = src * (1 - wrap) + bg * wrap;
          canvas[o + c] = canvas[o + c]! * (1 - a) + col * a;
        }
        const m = Y * W + X;
        mask[m] = a + mask[m]! * (1 - a);
      }
    }
  }

  // Grain on the products to match the backdrop's.
  const sigma = Math.max(0.8, Math.min(5, stats.grain));
  const rgb = new Uint8Array(n * 3);
  const outMask = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const m = mask[i]!;
    const o = i * 3;
    if (m > 0) {
      const g = (rand() + rand() + rand() - 1.5) * 2 * sigma * m;
      canvas[o]! += g;
      canvas[o + 1]! += g;
      canvas[o + 2]! += g;
      outMask[i] = (m * 255 + 0.5) | 0;
    }
    rgb[o] = byte(canvas[o]!);
    rgb[o + 1] = byte(canvas[o + 1]!);
    rgb[o + 2] = byte(canvas[o + 2]!);
  }
  return { rgb, mask: outMask };
}

const byte = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0);

/** Mean backdrop colour around a placement (its box grown by a quarter), with its luma. */
function localAmbient(rgb: Uint8Array, W: number, H: number, p: Placement) {
  const gx = Math.round(p.width * 0.25);
  const gy = Math.round(p.height * 0.25);
  const x0 = Math.max(0, p.left - gx);
  const x1 = Math.min(W, p.left + p.width + gx);
  const y0 = Math.max(0, p.top - gy);
  const y1 = Math.min(H, p.top + p.height + gy);
  const step = Math.max(1, Math.floor(Math.sqrt(((x1 - x0) * (y1 - y0)) / 20_000)));
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
 * Adds the product's cast shadow to `shade` (0..1 darkness per frame pixel): each silhouette
 * pixel `t` product-heights above its column's floor point lands `lateral·t` heights sideways and
 * `depth·t` heights up the floor (negative: toward the camera), then blurred more and fading
 * further from the product.
 */
function castShadow(
  shade: Float32Array,
  W: number,
  H: number,
  alpha: Float32Array,
  foot: { floorY: Float32Array },
  p: Placement,
  lateral: number,
  depth: number,
  opacity: number,
): void {
  const { width: w, height: h } = p;
  const reach = Math.abs(depth) * h;
  if (reach < 0.5 || opacity <= 0) return;
  const sideways = lateral * h;
  const soft = Math.max(2, Math.round(h * 0.03));
  const sharpR = Math.max(1, Math.round(h * 0.008));
  const pad = soft * 3 + 2;
  const x0 = Math.floor(p.left + Math.min(0, sideways)) - pad;
  const x1 = Math.ceil(p.left + w + Math.max(0, sideways)) + pad;
  const y0 = Math.floor(p.top + h - 1 - (depth > 0 ? reach : 0)) - pad - Math.ceil(h * 0.07);
  const y1 = Math.ceil(p.top + h + (depth < 0 ? reach : 0)) + pad;
  const rw = x1 - x0;
  const rh = y1 - y0;
  const sil = new Float32Array(rw * rh);
  const dir = depth > 0 ? -1 : 1; // image y direction the shadow runs
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const a = alpha[y * w + x]!;
      if (a < 0.02) continue;
      const fy = foot.floorY[x]!;
      const t = Math.max(0, (fy - y) / h);
      const X = Math.round(p.left + x + sideways * t) - x0;
      const Y = Math.round(p.top + fy + dir * reach * t) - y0;
      if (X < 0 || Y < 0 || X >= rw || Y >= rh) continue;
      const q = Y * rw + X;
      if (a > sil[q]!) sil[q] = a;
    }
  }
  // Sharp near the product, soft far from it.
  const near = boxBlur(Float32Array.from(sil), rw, rh, sharpR, 2);
  const far = boxBlur(sil, rw, rh, soft, 3);
  const baseY = p.top + h - 1;
  for (let ry = 0; ry < rh; ry++) {
    const Y = y0 + ry;
    if (Y < 0 || Y >= H) continue;
    // Distance from the base along the shadow, in shadow lengths.
    const t = Math.min(1, Math.max(0, (dir * (Y - baseY)) / reach));
    for (let rx = 0; rx < rw; rx++) {
      const X = x0 + rx;
      if (X < 0 || X >= W) continue;
      const q = ry * rw + rx;
      const mixT = Math.min(1, t * 1.6);
      const s = (near[q]! * (1 - mixT) + far[q]! * mixT) * opacity * (1 - 0.5 * t);
      if (s <= 0.002) continue;
      const o = Y * W + X;
      shade[o] = 1 - (1 - shade[o]!) * (1 - s);
    }
  }
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
  const wide = Math.max(3, Math.round(h * 0.035));
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
  for (let ry = 0; ry < rh; ry++) {
    const Y = y0 + ry;
    if (Y < 0 || Y >= H) continue;
    for (let rx = 0; rx < rw; rx++) {
      const X = x0 + rx;
      if (X < 0 || X >= W) continue;
      const q = ry * rw + rx;
      const s = Math.min(1, line[q]! * 1.6) * opacity + Math.min(1, band[q]! * 1.4) * opacity * 0.45;
      if (s <= 0.002) continue;
      const o = Y * W + X;
      shade[o] = 1 - (1 - shade[o]!) * (1 - Math.min(0.95, s));
    }
  }
}

/** Darkens the canvas by `shade` toward the shadow tint (a deep version of the ambient colour). */
function applyShade(
  canvas: Float32Array,
  shade: Float32Array,
  tint: number[],
  W: number,
  p: Placement,
  spec: SceneLayout['shadow'],
): void {
  const H = shade.length / W;
  const reach = Math.max(Math.abs(spec.depth), 0.05) * p.height;
  const side = Math.abs(spec.lateral) * p.height;
  const pad = Math.round(p.height * 0.2) + 8;
  const x0 = Math.max(0, Math.floor(p.left - side - pad));
  const x1 = Math.min(W, Math.ceil(p.left + p.width + side + pad));
  const y0 = Math.max(0, Math.floor(p.top + p.height - reach - pad));
  const y1 = Math.min(H, Math.ceil(p.top + p.height + reach + pad));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * W + x;
      const s = shade[i]!;
      if (s <= 0) continue;
      const o = i * 3;
      canvas[o] = canvas[o]! * (1 - s * (1 - tint[0]!));
      canvas[o + 1] = canvas[o + 1]! * (1 - s * (1 - tint[1]!));
      canvas[o + 2] = canvas[o + 2]! * (1 - s * (1 - tint[2]!));
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

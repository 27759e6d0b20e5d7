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
    // The rim light: a thin band inside the outline (about a third of the light wrap's).
    const rimAmount = input.rim && productLuma < 110 ? clamp01(input.rim) * 0.55 : 0;
    const rimInner =
      rimAmount > 0 ? boxBlur(Float32Array.from(alpha), w, h, Math.max(1, Math.round(edgeR / 2)), 2) : undefined;
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
        let rim = 0;
        if (rimInner) {
          const band = clamp01((1 - rimInner[i]!) * 2.5) * a;
          const toward = clamp01(0.35 + 0.65 * lightSide * (0.5 - u) * 2 + 0.5 * lightTop * (0.5 - v));
          rim = rimAmount * band * toward;
        }
        for (let c = 0; c < 3; c++) {
          const src = rgba[i * 4 + c]! * tint[c]! * gain;
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
    let l = w;
    let t = h;
    let r = -1;
    let b = -1;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const a = data[(y * w + x) * 4 + 3]!;
        if (a < 250) transparent = true;
        if (a >= 8) {
          if (x < l) l = x;
          if (x > r) r = x;
          if (y < t) t = y;
          if (y > b) b = y;
        }
      }
    }
    if (r < 0) return undefined;
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
      rgb[o + c] = byte(rgb[o + c]! * (1 - a) + src * a);
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

/**
 * Product fidelity for provider scene engines. A generative model receives the product photo and
 * draws a whole new scene, and it often drifts the product (a different logo, shape or colour).
 * `withProductFidelity(provider)` checks every generation against the real product:
 *
 * 1. The product is cut out (local/cutout.ts) and located in the provider's image
 *    (`locateProduct`): a multi-scale template search (coarse grid at half `SEARCH_SIDE`,
 *    refinement of the best few at `SEARCH_SIDE`, a last pass on a crop with the product at
 *    `FINE_SIDE` px), each candidate scored by a masked similarity of the product region:
 *    zero-mean normalised cross-correlation of luminance within the product's alpha, a Lab chroma
 *    term, a brightness term and the figure/ground contrast of the silhouette against a thin ring
 *    around it.
 * 2. At the best match, the fidelity (`ProductMatch.similarity`): the real product relit to the
 *    image's light (brightness and white-balance gains), cut into blocks, each block's masked
 *    SSIM of luminance times its chroma agreement, each block allowed to move a few px (a redrawn
 *    product is never registered to the pixel); the mean blended with the worst quarter, so a
 *    repainted logo is not averaged away.
 * 3. Similarity ≥ `FIDELITY_THRESHOLD`: preserved. The provider's image is returned with the
 *    product's real box and mask. Below: drifted. The real cut-out is composited over the
 *    provider's image (local/composite.ts: contact and faint cast shadow, ambient tint, grain),
 *    slightly enlarged at the drifted product's place, after what of the drifted product would
 *    still show is filled from its surroundings (`eraseHole`). The place: the match when its form
 *    evidence is plausible (`MATCH_PLAUSIBLE`), else (one product) the image's salient object
 *    (`salientObject`: another product drawn instead), else centred on the lower part of the frame.
 *
 * The pixel work is pure and synchronous on raw arrays (exported for tests); sharp only decodes,
 * resamples the cut-out for the mask and encodes.
 */
import sharp from 'sharp';
import { backdropStats, estimateHints } from './local/backdrop.ts';
import { composite } from './local/composite.ts';
import { alphaBox, type Cutout, cutoutCache, matte } from './local/cutout.ts';
import { keyFromAngle, type Placement, type SceneLayout, shadowFor } from './local/layout.ts';
import { boxBlur, dilate, erode, hashSeed, neighbours4, pushPull, toLab } from './local/raster.ts';
import { components } from '../shared/raster.ts';
import { prng } from '../shared/prng.ts';
import {
  type EngineWarning,
  checkAbort,
  type PlacedBox,
  type SceneEngine,
  type SceneRequest,
  type SceneResult,
} from './scene-engine.ts';
import { smoothstep } from '../shared/math.ts';

/**
 * Fidelity (0..1, `ProductMatch.similarity`) at or above which the provider's drawing of a
 * product counts as preserved. Calibrated on the fixture products placed on backdrops: faithful
 * drawings, also relit (±15–20 % brightness, a warm cast), blurred, JPEG-40 re-compressed or
 * turned 2–3°, score 0.74–0.98; the same products with a hue shift, the logo painted out or
 * replaced by another product score 0.02–0.60 (neutral products, whose hue shift changes
 * nothing, stay high, as they should; a logo under ~3 % of the product, like the hat's label, is
 * below what is measured). 0.68 sits in the gap.
 */
export const FIDELITY_THRESHOLD = 0.68;

/**
 * Form evidence (0..1, `ProductMatch.shape`: the mean of the luminance ZNCC and the silhouette's
 * figure/ground contrast; colour left out, since a drifted product's colour is expected to be
 * wrong) at or above which the best match is taken as where the provider drew the product even
 * when it drifted. On the fixtures a recoloured or relabelled product scores 0.6–1 at its place;
 * the best match for a product that is not there (another product drawn instead) 0.3–0.45.
 */
export const MATCH_PLAUSIBLE = 0.5;

/** A drifted product's replacement is this much larger than the matched box (base kept), to cover it. */
export const RECOMPOSITE_ENLARGE = 1.08;

/** Long side (px) of the image the search scans (the coarse pass runs at half of it). */
export const SEARCH_SIDE = 176;

/** Long side (px) of the product in the last refinement and the similarity measure. */
export const FINE_SIDE = 144;

/** Cut-outs under this matte confidence are not composited (a rough edge is worse than a drift). */
export const MIN_CUTOUT_CONFIDENCE = 0.4;

export interface FidelityOptions {
  /** Default `FIDELITY_THRESHOLD`. */
  threshold?: number;
  /** Default `MATCH_PLAUSIBLE`. */
  plausible?: number;
  /** Default `RECOMPOSITE_ENLARGE`. */
  enlarge?: number;
  /** Default `SEARCH_SIDE`. */
  searchSide?: number;
  /** Default `MIN_CUTOUT_CONFIDENCE`. */
  minCutoutConfidence?: number;
  /** Cut-outs kept (by product bytes and size). Default 16. */
  cacheEntries?: number;
  /** The wrapped engine's name. Default `${provider.name}+fidelity`. */
  name?: string;
}

// ---------------------------------------------------------------------------------------------
// Pure pieces
// ---------------------------------------------------------------------------------------------

/** Interleaved 8-bit (or float) pixels, `channels` a pixel, row-major. */
export interface RawImage {
  data: ArrayLike<number>;
  width: number;
  height: number;
  channels: number;
}

interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Per-axis area-resampling weights: output `o` covers source [start + o·s, start + (o+1)·s). */
function axisWeights(start: number, extent: number, size: number, out: number) {
  const s = extent / out;
  const first = new Int32Array(out + 1);
  const idx: number[] = [];
  const wt: number[] = [];
  for (let o = 0; o < out; o++) {
    first[o] = idx.length;
    const a = start + o * s;
    const b = a + s;
    for (let i = Math.floor(a); i < Math.ceil(b); i++) {
      const w = (Math.min(b, i + 1) - Math.max(a, i)) / s;
      if (w <= 1e-6) continue;
      idx.push(Math.min(size - 1, Math.max(0, i)));
      wt.push(w);
    }
  }
  first[out] = idx.length;
  return { first, idx: Int32Array.from(idx), wt: Float32Array.from(wt) };
}

/**
 * Area-average resampling of `rect` (fractional px allowed; edges clamped) of an interleaved
 * image into `dw` × `dh` floats, same channels.
 */
export function resampleArea(img: RawImage, dw: number, dh: number, rect?: Rect): Float32Array {
  const { data, width: sw, height: sh, channels: ch } = img;
  const r = rect ?? { left: 0, top: 0, width: sw, height: sh };
  const xs = axisWeights(r.left, r.width, sw, dw);
  const ys = axisWeights(r.top, r.height, sh, dh);
  const y0 = Math.max(0, Math.floor(r.top));
  const y1 = Math.min(sh, Math.ceil(r.top + r.height));
  const rows = Math.max(1, y1 - y0);
  // Horizontal pass over the source rows the rectangle touches.
  const tmp = new Float32Array(rows * dw * ch);
  for (let y = 0; y < rows; y++) {
    const sy = Math.min(sh - 1, y0 + y);
    const srow = sy * sw * ch;
    const trow = y * dw * ch;
    for (let o = 0; o < dw; o++) {
      for (let k = xs.first[o]!; k < xs.first[o + 1]!; k++) {
        const w = xs.wt[k]!;
        const si = srow + xs.idx[k]! * ch;
        const ti = trow + o * ch;
        for (let c = 0; c < ch; c++) tmp[ti + c]! += data[si + c]! * w;
      }
    }
  }
  const out = new Float32Array(dw * dh * ch);
  for (let o = 0; o < dh; o++) {
    const orow = o * dw * ch;
    for (let k = ys.first[o]!; k < ys.first[o + 1]!; k++) {
      const w = ys.wt[k]!;
      const trow = Math.min(rows - 1, Math.max(0, ys.idx[k]! - y0)) * dw * ch;
      for (let i = 0; i < dw * ch; i++) out[orow + i]! += tmp[trow + i]! * w;
    }
  }
  return out;
}

/** Lab planes, optionally padded by `pad` px on every side (edges replicated). */
interface Planes {
  /** Padded size. */
  w: number;
  h: number;
  pad: number;
  L: Float32Array;
  A: Float32Array;
  B: Float32Array;
}

function planes(rgb: Float32Array, width: number, height: number, pad: number, ch = 3): Planes {
  const lab = toLab(rgb, width * height, ch);
  const w = width + 2 * pad;
  const h = height + 2 * pad;
  const L = new Float32Array(w * h);
  const A = new Float32Array(w * h);
  const B = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(height - 1, Math.max(0, y - pad));
    for (let x = 0; x < w; x++) {
      const sx = Math.min(width - 1, Math.max(0, x - pad));
      const s = (sy * width + sx) * 3;
      const o = y * w + x;
      L[o] = lab[s]!;
      A[o] = lab[s + 1]!;
      B[o] = lab[s + 2]!;
    }
  }
  return { w, h, pad, L, A, B };
}

/** The product at one size: Lab planes and alpha (0..1). */
interface Template {
  w: number;
  h: number;
  L: Float32Array;
  A: Float32Array;
  B: Float32Array;
  alpha: Float32Array;
  /** Straight sRGB colour, 0..255 floats. */
  rgb: Float32Array;
}

/** Straight RGBA bytes → premultiplied float RGBA (colour 0..255 × alpha 0..1, alpha 0..1). */
function premultiply(rgba: ArrayLike<number>, n: number): Float32Array {
  const out = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) {
    const a = rgba[i * 4 + 3]! / 255;
    out[i * 4] = rgba[i * 4]! * a;
    out[i * 4 + 1] = rgba[i * 4 + 1]! * a;
    out[i * 4 + 2] = rgba[i * 4 + 2]! * a;
    out[i * 4 + 3] = a;
  }
  return out;
}

function templateAt(pre: RawImage, tw: number, th: number): Template {
  const r = resampleArea(pre, tw, th);
  const n = tw * th;
  const rgb = new Float32Array(n * 3);
  const alpha = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const a = r[i * 4 + 3]!;
    alpha[i] = a;
    if (a > 1e-3) {
      rgb[i * 3] = r[i * 4]! / a;
      rgb[i * 3 + 1] = r[i * 4 + 1]! / a;
      rgb[i * 3 + 2] = r[i * 4 + 2]! / a;
    }
  }
  const p = planes(rgb, tw, th, 0);
  return { w: tw, h: th, L: p.L, A: p.A, B: p.B, alpha, rgb };
}

const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const toSrgb = (l: number) => 255 * (l <= 0.0031308 ? l * 12.92 : 1.055 * l ** (1 / 2.4) - 0.055);

/**
 * The template as the image's light shows it: one brightness gain (0.6..1.6) and per-channel
 * white-balance gains relative to it (0.87..1.15), fitted on the linear-light means over the
 * product at (x0, y0) of `rgb` (rw × rh, sRGB floats). Relighting and a colour cast are forgiven;
 * a hue change is not (it is far outside those gains).
 */
function relit(t: Template, rgb: Float32Array, rw: number, rh: number, x0: number, y0: number): Template {
  const mt = [0, 0, 0];
  const mi = [0, 0, 0];
  let sw = 0;
  for (let y = 0; y < t.h; y++) {
    const Y = y0 + y;
    if (Y < 0 || Y >= rh) continue;
    for (let x = 0; x < t.w; x++) {
      const X = x0 + x;
      if (X < 0 || X >= rw) continue;
      const ti = y * t.w + x;
      const w = insideWeight(t.alpha[ti]!);
      if (w <= 0) continue;
      sw += w;
      const o = (Y * rw + X) * 3;
      for (let c = 0; c < 3; c++) {
        mt[c]! += w * toLinear(t.rgb[ti * 3 + c]!);
        mi[c]! += w * toLinear(rgb[o + c]!);
      }
    }
  }
  if (sw <= 0) return t;
  const eps = 0.01 * sw;
  const g = [0, 1, 2].map((c) => (mi[c]! + eps) / (mt[c]! + eps));
  const mean = Math.cbrt(g[0]! * g[1]! * g[2]!);
  const gain = Math.min(1.6, Math.max(0.6, mean));
  const k = g.map((v) => gain * Math.min(1.15, Math.max(0.87, v / mean)));
  const n = t.w * t.h;
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n * 3; i++) out[i] = Math.min(255, Math.max(0, toSrgb(toLinear(t.rgb[i]!) * k[i % 3]!)));
  const p = planes(out, t.w, t.h, 0);
  return { ...t, L: p.L, A: p.A, B: p.B, rgb: out };
}

/** The template's pixels the score reads, as offsets into planes `stride` wide. */
interface Samples {
  tw: number;
  th: number;
  n: number;
  off: Int32Array;
  wt: Float32Array;
  /** Template luminance minus its weighted mean. */
  tl: Float32Array;
  ta: Float32Array;
  tb: Float32Array;
  sw: number;
  tmean: number;
  tvar: number;
  /** Σ w (ta² + tb²). */
  tcc: number;
  /** The ring just outside the silhouette. */
  rn: number;
  roff: Int32Array;
}

/** Inside weight from alpha: edge pixels (part background) count less. */
const insideWeight = (a: number) => (a <= 0.35 ? 0 : a >= 0.85 ? 1 : (a - 0.35) / 0.5);

function samplesFor(t: Template, stride: number, maxInside: number, maxRing: number): Samples {
  const { w: tw, h: th } = t;
  let count = 0;
  for (let i = 0; i < tw * th; i++) if (insideWeight(t.alpha[i]!) > 0) count++;
  const step = Math.max(1, Math.ceil(Math.sqrt(count / maxInside)));
  const o0 = step >> 1;
  const off: number[] = [];
  const wt: number[] = [];
  const tl: number[] = [];
  const ta: number[] = [];
  const tb: number[] = [];
  for (let y = o0; y < th; y += step) {
    for (let x = o0; x < tw; x += step) {
      const i = y * tw + x;
      const w = insideWeight(t.alpha[i]!);
      if (w <= 0) continue;
      off.push(y * stride + x);
      wt.push(w);
      tl.push(t.L[i]!);
      ta.push(t.A[i]!);
      tb.push(t.B[i]!);
    }
  }
  let sw = 0;
  let sl = 0;
  for (let k = 0; k < wt.length; k++) {
    sw += wt[k]!;
    sl += wt[k]! * tl[k]!;
  }
  const tmean = sw > 0 ? sl / sw : 0;
  let tvar = 0;
  let tcc = 0;
  for (let k = 0; k < wt.length; k++) {
    tl[k] = tl[k]! - tmean;
    tvar += wt[k]! * tl[k]! * tl[k]!;
    tcc += wt[k]! * (ta[k]! * ta[k]! + tb[k]! * tb[k]!);
  }
  // Ring: pixels clear of the product within `g` px of its silhouette (may lie outside the box).
  const g = Math.max(1, Math.round(Math.min(tw, th) * 0.08));
  const ew = tw + 2 * g;
  const eh = th + 2 * g;
  const solid = new Uint8Array(ew * eh);
  for (let y = 0; y < th; y++)
    for (let x = 0; x < tw; x++) if (t.alpha[y * tw + x]! >= 0.5) solid[(y + g) * ew + x + g] = 1;
  const grown = dilate(solid, ew, eh, g);
  let ringCount = 0;
  const clear = (x: number, y: number) =>
    x < g || y < g || x >= tw + g || y >= th + g || t.alpha[(y - g) * tw + x - g]! < 0.05;
  for (let y = 0; y < eh; y++) for (let x = 0; x < ew; x++) if (grown[y * ew + x] && clear(x, y)) ringCount++;
  const rstep = Math.max(1, Math.ceil(Math.sqrt(ringCount / maxRing)));
  const roff: number[] = [];
  for (let y = 0; y < eh; y += rstep) {
    for (let x = (y / rstep) % 2 ? rstep >> 1 : 0; x < ew; x += rstep) {
      if (grown[y * ew + x] && clear(x, y)) roff.push((y - g) * stride + x - g);
    }
  }
  return {
    tw,
    th,
    n: wt.length,
    off: Int32Array.from(off),
    wt: Float32Array.from(wt),
    tl: Float32Array.from(tl),
    ta: Float32Array.from(ta),
    tb: Float32Array.from(tb),
    sw,
    tmean,
    tvar,
    tcc,
    rn: roff.length,
    roff: Int32Array.from(roff),
  };
}

/** The parts of the last `scoreAt` (structure, colour, brightness, contrast). */
const parts = new Float64Array(4);

/**
 * Location score (0..1) of the template's samples with their top-left at `base` (an index into
 * the planes): 0.45 luminance ZNCC (structure) + 0.25 chroma agreement + 0.1 brightness
 * agreement + 0.2 figure/ground contrast (correlation ratio of the Lab colours inside the
 * silhouette vs the ring around it).
 */
function scoreAt(P: Planes, s: Samples, base: number): number {
  const { L, A, B } = P;
  let sL = 0;
  let sLL = 0;
  let sLT = 0;
  let sA = 0;
  let sAA = 0;
  let sAT = 0;
  let sB = 0;
  let sBB = 0;
  let sBT = 0;
  const { off, wt, tl, ta, tb } = s;
  for (let k = 0; k < s.n; k++) {
    const i = base + off[k]!;
    const w = wt[k]!;
    const l = L[i]!;
    const a = A[i]!;
    const b = B[i]!;
    const wl = w * l;
    const wa = w * a;
    const wb = w * b;
    sL += wl;
    sLL += wl * l;
    sLT += wl * tl[k]!;
    sA += wa;
    sAA += wa * a;
    sAT += wa * ta[k]!;
    sB += wb;
    sBB += wb * b;
    sBT += wb * tb[k]!;
  }
  let rL = 0;
  let rLL = 0;
  let rA = 0;
  let rAA = 0;
  let rB = 0;
  let rBB = 0;
  const roff = s.roff;
  for (let k = 0; k < s.rn; k++) {
    const i = base + roff[k]!;
    const l = L[i]!;
    const a = A[i]!;
    const b = B[i]!;
    rL += l;
    rLL += l * l;
    rA += a;
    rAA += a * a;
    rB += b;
    rBB += b * b;
  }
  const sw = s.sw;
  const varI = Math.max(0, sLL - (sL * sL) / sw);
  // Regularised: flat against flat is no evidence of structure.
  const eps = sw * 1.5;
  const ncc = sLT / Math.sqrt((s.tvar + eps) * (varI + eps));
  const dC2 = Math.max(0, sAA + sBB - 2 * (sAT + sBT) + s.tcc) / sw;
  const colour = 1 / (1 + dC2 / 225);
  const dL = sL / sw - s.tmean;
  const bright = 1 / (1 + (dL * dL) / 400);
  let contrast = 0;
  const rn = s.rn;
  if (rn > 0) {
    const nt = sw + rn;
    const dl = sL / sw - rL / rn;
    const da = sA / sw - rA / rn;
    const db = sB / sw - rB / rn;
    const between = ((sw * rn) / nt) * (dl * dl + da * da + db * db);
    const tL = sL + rL;
    const tA = sA + rA;
    const tB = sB + rB;
    const total = sLL + rLL + sAA + rAA + sBB + rBB - (tL * tL + tA * tA + tB * tB) / nt;
    contrast = Math.sqrt(Math.min(1, between / (total + nt * 4)));
  }
  const structure = Math.max(ncc, 0);
  parts[0] = structure;
  parts[1] = colour;
  parts[2] = bright;
  parts[3] = contrast;
  return 0.45 * structure + 0.25 * colour + 0.1 * bright + 0.2 * contrast;
}

/** Where a product was found and how faithfully it was drawn there. */
export interface ProductMatch {
  /** In the image's px. */
  box: PlacedBox;
  /** Location score (0..1): see `MATCH_PLAUSIBLE`. */
  score: number;
  /** Fidelity (0..1): see `FIDELITY_THRESHOLD` and `productSimilarity`. */
  similarity: number;
  /**
   * How well the product's form (not its colours) fits there: the mean of `structure` and
   * `contrast`; see `MATCH_PLAUSIBLE`.
   */
  shape: number;
  /** Parts of the location score at the match: luminance ZNCC, chroma, brightness, contrast. */
  structure: number;
  colour: number;
  brightness: number;
  contrast: number;
}

export interface LocateOptions {
  /** Long side of the scanned image, px. Default `SEARCH_SIDE`. */
  searchSide?: number;
  /** Product size range: its larger side as a fraction of the frame's fit. Default 0.13..0.98. */
  minSize?: number;
  maxSize?: number;
  /** Boxes (image px) already taken by other products: matches overlapping one by > 50 % are skipped. */
  exclude?: PlacedBox[];
}

interface Cand {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
}

const iou = (a: Rect, b: Rect) => {
  const x0 = Math.max(a.left, b.left);
  const y0 = Math.max(a.top, b.top);
  const x1 = Math.min(a.left + a.width, b.left + b.width);
  const y1 = Math.min(a.top + a.height, b.top + b.height);
  if (x1 <= x0 || y1 <= y0) return 0;
  const i = (x1 - x0) * (y1 - y0);
  return i / (a.width * a.height + b.width * b.height - i);
};

/**
 * Finds the product (`product`: straight RGBA, trimmed, e.g. a `Cutout`) in `image` (RGB or
 * RGBA): coarse grid over sizes at half the search side, refinement of the best few at the search
 * side, a last refinement on a crop at `FINE_SIDE`, and the fidelity measure there.
 */
export function locateProduct(image: RawImage, product: RawImage, opts: LocateOptions = {}): ProductMatch {
  const W = image.width;
  const H = image.height;
  const side = opts.searchSide ?? SEARCH_SIDE;
  const k1 = Math.min(1, side / Math.max(W, H));
  const w1 = Math.max(8, Math.round(W * k1));
  const h1 = Math.max(8, Math.round(H * k1));
  const rgb1 = toRgb(resampleArea(image, w1, h1), w1 * h1, image.channels);
  const w0 = Math.max(8, Math.round(w1 / 2));
  const h0 = Math.max(8, Math.round(h1 / 2));
  const rgb0 = resampleArea({ data: rgb1, width: w1, height: h1, channels: 3 }, w0, h0);
  const pad1 = Math.ceil(Math.max(w1, h1) * 0.1) + 2;
  const pad0 = Math.ceil(Math.max(w0, h0) * 0.1) + 2;
  const P1 = planes(rgb1, w1, h1, pad1);
  const P0 = planes(rgb0, w0, h0, pad0);

  const cw = product.width;
  const ch = product.height;
  const pre = premultiplied(product);
  // The template source, no larger than the search needs (resampled again per size).
  const fit1 = Math.min(w1 / cw, h1 / ch);
  const baseK = Math.min(1, fit1 * 1.2);
  const bw = Math.max(1, Math.round(cw * baseK));
  const bh = Math.max(1, Math.round(ch * baseK));
  const base: RawImage = { data: resampleArea(pre, bw, bh), width: bw, height: bh, channels: 4 };
  const exclude = (opts.exclude ?? []).map((b) => ({
    left: b.left * k1,
    top: b.top * k1,
    width: b.width * k1,
    height: b.height * k1,
  }));
  const excluded = (r: Rect) => exclude.some((e) => iou(r, e) > 0.5);

  // 1. Coarse: every size, a grid of positions.
  const minSize = opts.minSize ?? 0.13;
  const maxSize = opts.maxSize ?? 0.98;
  const fit0 = Math.min(w0 / cw, h0 / ch);
  const coarse: Cand[] = [];
  for (let rel = maxSize; rel >= minSize * 0.999; rel /= 1.1) {
    const tw = Math.round(cw * fit0 * rel);
    const th = Math.round(ch * fit0 * rel);
    if (tw < 3 || th < 3 || tw > w0 || th > h0) continue;
    const t = templateAt(base, tw, th);
    const s = samplesFor(t, P0.w, 260, 100);
    if (s.n < 6) continue;
    const step = Math.max(1, Math.round(Math.min(tw, th) / 7));
    const local: Cand[] = [];
    for (let y = 0; y <= h0 - th; y += step) {
      for (let x = 0; x <= w0 - tw; x += step) {
        const sc = scoreAt(P0, s, (y + pad0) * P0.w + x + pad0);
        local.push({ x, y, w: tw, h: th, score: sc });
      }
    }
    local.sort((a, b) => b.score - a.score);
    // The best few positions of this size that are not the same place.
    const kept: Cand[] = [];
    for (const c of local) {
      if (kept.length >= 3) break;
      const r = { left: c.x * 2, top: c.y * 2, width: c.w * 2, height: c.h * 2 };
      if (excluded(r)) continue;
      if (kept.some((o) => Math.abs(o.x - c.x) < tw / 2 && Math.abs(o.y - c.y) < th / 2)) continue;
      kept.push(c);
    }
    coarse.push(...kept);
  }
  coarse.sort((a, b) => b.score - a.score);
  const seeds: Cand[] = [];
  for (const c of coarse) {
    if (seeds.length >= 6) break;
    const r = { left: c.x, top: c.y, width: c.w, height: c.h };
    if (seeds.some((o) => iou(r, { left: o.x, top: o.y, width: o.w, height: o.h }) > 0.6)) continue;
    seeds.push(c);
  }
  if (seeds.length === 0) {
    // The frame is too small for any size: the whole frame, no confidence.
    return { box: { left: 0, top: 0, width: W, height: H }, score: 0, similarity: 0, shape: 0, ...zeroParts };
  }

  // 2. Refine at the search side: sizes ±10 %, positions ±(grid step + 1).
  const templates = new Map<string, Samples>();
  const samplesAt = (tw: number, th: number) => {
    const key = `${tw}x${th}`;
    let s = templates.get(key);
    if (!s) {
      s = samplesFor(templateAt(base, tw, th), P1.w, 500, 160);
      templates.set(key, s);
    }
    return s;
  };
  const refine = (c: Cand, scales: number[], radius: number): Cand => {
    let best = c;
    for (const f of scales) {
      const tw = Math.round(c.w * f);
      const th = Math.round(c.h * f);
      if (tw < 3 || th < 3 || tw > w1 || th > h1) continue;
      const s = samplesAt(tw, th);
      if (s.n < 6) continue;
      // Scale about the centre.
      const cx = c.x + c.w / 2 - tw / 2;
      const cy = c.y + c.h / 2 - th / 2;
      for (let dy = -radius; dy <= radius; dy++) {
        const y = Math.round(cy + dy);
        if (y < 0 || y > h1 - th) continue;
        for (let dx = -radius; dx <= radius; dx++) {
          const x = Math.round(cx + dx);
          if (x < 0 || x > w1 - tw) continue;
          if (excluded({ left: x, top: y, width: tw, height: th })) continue;
          const sc = scoreAt(P1, s, (y + pad1) * P1.w + x + pad1);
          if (sc > best.score || best === c) best = { x, y, w: tw, h: th, score: sc };
        }
      }
    }
    return best;
  };
  let best: Cand | undefined;
  for (const c of seeds) {
    const up: Cand = { x: c.x * (w1 / w0), y: c.y * (h1 / h0), w: c.w * (w1 / w0), h: c.h * (h1 / h0), score: -1 };
    const radius = Math.max(2, Math.round(Math.min(c.w, c.h) / 7) + 1);
    let r = refine(up, [0.91, 0.955, 1, 1.045, 1.09], radius);
    r = refine(r, [0.98, 1, 1.02], 1);
    if (!best || r.score > best.score) best = r;
  }
  const b1 = best!;

  // 3. Fine: a crop around the match with the product at up to FINE_SIDE px.
  const box = { left: b1.x / k1, top: b1.y / k1, width: b1.w / k1, height: b1.h / k1 };
  const kf = Math.min(1, FINE_SIDE / Math.max(box.width, box.height));
  const grow = Math.max(box.width, box.height) * 0.1 + 2 / kf;
  const crop = clipRect(
    { left: box.left - grow, top: box.top - grow, width: box.width + 2 * grow, height: box.height + 2 * grow },
    W,
    H,
  );
  const fw = Math.max(4, Math.round(crop.width * kf));
  const fh = Math.max(4, Math.round(crop.height * kf));
  const kx = fw / crop.width;
  const ky = fh / crop.height;
  const padf = Math.ceil(Math.max(fw, fh) * 0.1) + 2;
  const rgbF = toRgb(resampleArea(image, fw, fh, crop), fw * fh, image.channels);
  const PF = planes(rgbF, fw, fh, padf);
  const fine: RawImage = (() => {
    const k = Math.min(1, (Math.max(box.width, box.height) * kf * 1.1) / Math.max(cw, ch));
    const w = Math.max(1, Math.round(cw * k));
    const h = Math.max(1, Math.round(ch * k));
    return { data: resampleArea(pre, w, h), width: w, height: h, channels: 4 };
  })();
  const fc: Cand = {
    x: (box.left - crop.left) * kx,
    y: (box.top - crop.top) * ky,
    w: box.width * kx,
    h: box.height * ky,
    score: -1,
  };
  let fb: Cand = fc;
  let fbT: Template | undefined;
  const fineRefine = (c: Cand, scales: number[], radius: number) => {
    for (const f of scales) {
      const tw = Math.max(3, Math.round(c.w * f));
      const th = Math.max(3, Math.round(c.h * f));
      const t = templateAt(fine, tw, th);
      const s = samplesFor(t, PF.w, 1500, 300);
      if (s.n < 6) continue;
      const cx = c.x + c.w / 2 - tw / 2;
      const cy = c.y + c.h / 2 - th / 2;
      for (let dy = -radius; dy <= radius; dy++) {
        for (let dx = -radius; dx <= radius; dx++) {
          const x = Math.round(cx + dx);
          const y = Math.round(cy + dy);
          if (x < -padf || y < -padf || x + tw > fw + padf || y + th > fh + padf) continue;
          const sc = scoreAt(PF, s, (y + padf) * PF.w + x + padf);
          if (sc > fb.score) {
            fb = { x, y, w: tw, h: th, score: sc };
            fbT = t;
          }
        }
      }
    }
  };
  // About one search px either way, then finer.
  fineRefine(fc, [0.96, 0.98, 1, 1.02, 1.04], Math.max(1, Math.round(Math.max(fc.w, fc.h) / Math.max(b1.w, b1.h))));
  fineRefine({ ...fb }, [0.985, 0.995, 1, 1.005, 1.015], 1);
  if (!fbT) {
    fbT = templateAt(fine, Math.max(3, Math.round(fc.w)), Math.max(3, Math.round(fc.h)));
    fb = { ...fc, x: Math.round(fc.x), y: Math.round(fc.y), w: fbT.w, h: fbT.h };
  }
  const s = samplesFor(fbT, PF.w, 1e9, 1e9);
  const score = s.n >= 6 ? scoreAt(PF, s, (fb.y + padf) * PF.w + fb.x + padf) : 0;
  const [structure, colour, brightness, contrast] = [parts[0]!, parts[1]!, parts[2]!, parts[3]!];
  const similarity = productSimilarity(PF, relit(fbT, rgbF, fw, fh, fb.x, fb.y), fb.x + padf, fb.y + padf);
  return {
    box: {
      left: Math.round(crop.left + fb.x / kx),
      top: Math.round(crop.top + fb.y / ky),
      width: Math.max(1, Math.round(fb.w / kx)),
      height: Math.max(1, Math.round(fb.h / ky)),
    },
    score,
    similarity,
    shape: (structure + contrast) / 2,
    structure,
    colour,
    brightness,
    contrast,
  };
}

const zeroParts = { structure: 0, colour: 0, brightness: 0, contrast: 0 };

function toRgb(data: Float32Array, n: number, channels: number): Float32Array {
  if (channels === 3) return data;
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    out[i * 3] = data[i * channels]!;
    out[i * 3 + 1] = data[i * channels + 1]!;
    out[i * 3 + 2] = data[i * channels + 2]!;
  }
  return out;
}

function premultiplied(product: RawImage): RawImage {
  if (product.channels !== 4) throw new Error('locateProduct: the product must be RGBA');
  return {
    data: premultiply(product.data, product.width * product.height),
    width: product.width,
    height: product.height,
    channels: 4,
  };
}

function clipRect(r: Rect, W: number, H: number): Rect {
  const left = Math.max(0, r.left);
  const top = Math.max(0, r.top);
  const right = Math.min(W, r.left + r.width);
  const bottom = Math.min(H, r.top + r.height);
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/**
 * How faithfully the image shows the product at (x, y) of the planes (0..1): the product cut
 * into blocks (about 8 across its short side); per block the masked SSIM of luminance (Lab L,
 * alpha-weighted) times a chroma agreement 1 / (1 + (ΔC/10)²) with ΔC the distance between the
 * block's mean Lab a*b* and the product's (times one chroma gain for the whole product, 0.77..1.3,
 * so relighting is tolerated and a hue change is not); the result is the blocks' weighted mean blended half and half with the mean of the
 * worst quarter (by weight), so that a local change (a logo) counts.
 */
function productSimilarity(P: Planes, t: Template, x0: number, y0: number): number {
  const { w: tw, h: th } = t;
  const bs = Math.max(3, Math.round(Math.min(tw, th) / 8));
  const C1 = 1; // (0.01 · 100)²
  const C2 = 9; // (0.03 · 100)²
  // What relighting leaves over: Lab chroma scaled (a brighter or dimmer product is less or
  // more saturated); one chroma gain for the whole product, 0.8..1.25.
  let num = 0;
  let den = 0;
  for (let y = 0; y < th; y++) {
    const py = y0 + y;
    if (py < 0 || py >= P.h) continue;
    for (let x = 0; x < tw; x++) {
      const px = x0 + x;
      if (px < 0 || px >= P.w) continue;
      const ti = y * tw + x;
      const w = insideWeight(t.alpha[ti]!);
      if (w <= 0) continue;
      const i = py * P.w + px;
      num += w * (t.A[ti]! * P.A[i]! + t.B[ti]! * P.B[i]!);
      den += w * (t.A[ti]! * t.A[ti]! + t.B[ti]! * t.B[ti]!);
    }
  }
  const gain = den > 0 ? Math.min(1.25, Math.max(0.8, num / den)) : 1;
  // Each block may move a little (a redrawn product is never registered to the pixel: a degree
  // of rotation, a slight warp), its best match counting; a repainted logo matches nowhere near.
  const reach = Math.max(1, Math.round(Math.max(tw, th) * 0.025));
  const blocks: { q: number; w: number }[] = [];
  const ti: number[] = [];
  const tx: number[] = [];
  const ty: number[] = [];
  const tw8: number[] = [];
  for (let by = 0; by < th; by += bs) {
    for (let bx = 0; bx < tw; bx += bs) {
      ti.length = 0;
      tx.length = 0;
      ty.length = 0;
      tw8.length = 0;
      let sw = 0;
      let sx = 0;
      let sxx = 0;
      let ta = 0;
      let tb = 0;
      for (let y = by; y < Math.min(th, by + bs); y++) {
        for (let x = bx; x < Math.min(tw, bx + bs); x++) {
          const i = y * tw + x;
          const w = insideWeight(t.alpha[i]!);
          if (w <= 0) continue;
          ti.push(i);
          tx.push(x0 + x);
          ty.push(y0 + y);
          tw8.push(w);
          const a = t.L[i]!;
          sw += w;
          sx += w * a;
          sxx += w * a * a;
          ta += w * gain * t.A[i]!;
          tb += w * gain * t.B[i]!;
        }
      }
      if (sw < bs * bs * 0.3) continue;
      const mx = sx / sw;
      const vx = Math.max(0, sxx / sw - mx * mx);
      const at = (dx: number, dy: number) => {
        let sy = 0;
        let syy = 0;
        let sxy = 0;
        let sa = 0;
        let sb = 0;
        let ws = 0;
        for (let k = 0; k < ti.length; k++) {
          const px = tx[k]! + dx;
          const py = ty[k]! + dy;
          if (px < 0 || py < 0 || px >= P.w || py >= P.h) continue;
          const i = py * P.w + px;
          const w = tw8[k]!;
          const v = P.L[i]!;
          ws += w;
          sy += w * v;
          syy += w * v * v;
          sxy += w * v * t.L[ti[k]!]!;
          sa += w * P.A[i]!;
          sb += w * P.B[i]!;
        }
        if (ws < sw * 0.9) return 0;
        const my = sy / sw;
        const vy = Math.max(0, syy / sw - my * my);
        const cxy = sxy / sw - mx * my;
        const ssim = ((2 * mx * my + C1) * (2 * cxy + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2));
        const da = (sa - ta) / sw;
        const db = (sb - tb) / sw;
        return Math.max(0, ssim) / (1 + (da * da + db * db) / 100);
      };
      // Coarse steps over the reach, then the neighbours of the best.
      const step = reach > 2 ? 2 : 1;
      let best = at(0, 0);
      let bdx = 0;
      let bdy = 0;
      for (let dy = -reach; dy <= reach; dy += step) {
        for (let dx = -reach; dx <= reach; dx += step) {
          if (dx === 0 && dy === 0) continue;
          const q = at(dx, dy);
          if (q > best) [best, bdx, bdy] = [q, dx, dy];
        }
      }
      if (step > 1) {
        const [cx, cy] = [bdx, bdy];
        for (let dy = cy - 1; dy <= cy + 1; dy++) {
          for (let dx = cx - 1; dx <= cx + 1; dx++) {
            if ((dx === cx && dy === cy) || Math.abs(dx) > reach || Math.abs(dy) > reach) continue;
            const q = at(dx, dy);
            if (q > best) best = q;
          }
        }
      }
      blocks.push({ q: best, w: sw });
    }
  }
  if (blocks.length === 0) return 0;
  let total = 0;
  let mean = 0;
  for (const b of blocks) {
    total += b.w;
    mean += b.q * b.w;
  }
  mean /= total;
  blocks.sort((a, b) => a.q - b.q);
  let acc = 0;
  let low = 0;
  for (const b of blocks) {
    const take = Math.min(b.w, total * 0.25 - acc);
    if (take <= 0) break;
    low += b.q * take;
    acc += take;
  }
  low /= Math.max(1e-9, acc);
  return 0.5 * mean + 0.5 * low;
}

/**
 * The salient object of an RGB image (bytes; run it on a small copy, ~160 px): the largest
 * foreground component, as a box and its mask (255 on the component, width × height). Two
 * background models are tried: a matte from the border (local/cutout.ts `matte`: studio sweeps,
 * plain and gradient backgrounds), then a row model (each row's background colour and spread: a
 * wall and a textured floor, which the border matte can take for foreground). Undefined when neither
 * finds an object of a plausible size (1–60 % of the frame, under 90 % of either side).
 */
export function salientObject(
  rgb: Uint8Array,
  width: number,
  height: number,
): { box: PlacedBox; alpha: Uint8Array } | undefined {
  const m = matte(rgb, width, height);
  if (m.confidence >= 0.5) {
    const solid = new Uint8Array(width * height);
    for (let i = 0; i < solid.length; i++) solid[i] = m.alpha[i]! >= 128 ? 1 : 0;
    // Opened: a thin line (a wall meeting the floor) does not join the object to the frame.
    const r = Math.max(1, Math.round(Math.min(width, height) * 0.012));
    const found = largestObject(dilate(erode(solid, width, height, r, 0), width, height, r), width, height);
    if (found) return found;
  }
  return largestObject(rowForeground(rgb, width, height), width, height);
}

/**
 * Pixels far from their row's background colour (the median Lab of the row's outer quarters;
 * seeds over 3 spreads and 8 ΔE, grown through pixels over 1.5 spreads and 4 ΔE), opened and
 * closed.
 */
function rowForeground(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const lab = toLab(rgb, width * height, 3);
  const med = new Float32Array(height * 3);
  const spread = new Float32Array(height);
  const dist = new Float32Array(width);
  // The row's outer quarters stand for its background (a product is rarely off to both sides).
  const side = Math.max(1, Math.round(width * 0.25));
  const outer = new Float32Array(side * 2);
  for (let y = 0; y < height; y++) {
    for (let c = 0; c < 3; c++) {
      for (let k = 0; k < side; k++) {
        outer[k] = lab[(y * width + k) * 3 + c]!;
        outer[side + k] = lab[(y * width + width - 1 - k) * 3 + c]!;
      }
      outer.sort();
      med[y * 3 + c] = outer[side]!;
    }
  }
  // Medians smoothed over a few rows (an object's rows pull them less).
  const sm = new Float32Array(height * 3);
  for (let y = 0; y < height; y++) {
    for (let c = 0; c < 3; c++) {
      const list: number[] = [];
      for (let k = -2; k <= 2; k++) list.push(med[Math.min(height - 1, Math.max(0, y + k)) * 3 + c]!);
      list.sort((p, q) => p - q);
      sm[y * 3 + c] = list[2]!;
    }
  }
  const d = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const e0 = lab[i]! - sm[y * 3]!;
      const e1 = lab[i + 1]! - sm[y * 3 + 1]!;
      const e2 = lab[i + 2]! - sm[y * 3 + 2]!;
      d[y * width + x] = dist[x] = Math.sqrt(e0 * e0 + e1 * e1 + e2 * e2);
    }
    dist.sort();
    spread[y] = dist[width >> 1]! * 1.4826;
  }
  // Hysteresis: clear outliers seed the object, which grows through fainter ones (a white
  // product's top against a light wall).
  const strong: number[] = [];
  const weak = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const hi = Math.max(8, 3 * spread[y]!);
    const lo = Math.max(4, 1.5 * spread[y]!);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (d[i]! > lo) weak[i] = 1;
      if (d[i]! > hi) strong.push(i);
    }
  }
  const fg = grow(weak, width, height, strong);
  const r = Math.max(1, Math.round(Math.min(width, height) * 0.008));
  const opened = dilate(erode(fg, width, height, r, 0), width, height, r);
  return erode(dilate(opened, width, height, r * 3), width, height, r * 3, 0);
}

/** The pixels of `mask` 4-connected to a seed (pixel indices; seeds outside the mask ignored). */
function grow(mask: Uint8Array, width: number, height: number, seeds: number[]): Uint8Array {
  const out = new Uint8Array(mask.length);
  const queue = new Int32Array(mask.length);
  let tail = 0;
  for (const p of seeds) {
    if (mask[p] && !out[p]) {
      out[p] = 1;
      queue[tail++] = p;
    }
  }
  for (let head = 0; head < tail; head++) {
    const p = queue[head]!;
    for (const q of neighbours4(p, width, height)) {
      if (q >= 0 && mask[q] && !out[q]) {
        out[q] = 1;
        queue[tail++] = q;
      }
    }
  }
  return out;
}

/**
 * The largest component of a 0/1 mask, with the sizeable components next to it (≥ 20 % of its
 * size, within 5 % of the frame: a product in parts), if object-sized: its box and mask (0/255).
 */
function largestObject(solid: Uint8Array, width: number, height: number) {
  const { labels, list } = components(solid, width, height);
  if (list.length === 0) return undefined;
  const boxes: Rect[] = list.map((c) => ({
    left: c.left,
    top: c.top,
    width: c.right - c.left + 1,
    height: c.bottom - c.top + 1,
  }));
  let best = 0;
  for (let id = 1; id < list.length; id++) if (list[id]!.area > list[best]!.area) best = id;
  const gap = Math.max(width, height) * 0.05;
  const b = boxes[best]!;
  const keep = new Set([best + 1]);
  let size = list[best]!.area;
  for (let id = 0; id < list.length; id++) {
    if (id === best || list[id]!.area < list[best]!.area * 0.2) continue;
    const o = boxes[id]!;
    const dx = Math.max(0, o.left - (b.left + b.width), b.left - (o.left + o.width));
    const dy = Math.max(0, o.top - (b.top + b.height), b.top - (o.top + o.height));
    if (dx <= gap && dy <= gap) {
      keep.add(id + 1);
      size += list[id]!.area;
    }
  }
  const share = size / (width * height);
  if (share < 0.01 || share > 0.6) return undefined;
  const alpha = new Uint8Array(width * height);
  for (let i = 0; i < alpha.length; i++) alpha[i] = keep.has(labels[i]!) ? 255 : 0;
  const box = alphaBox(alpha, width, height, 128);
  // Spanning the frame is not an object (a textured floor taken for foreground).
  if (!box || box.width > width * 0.9 || box.height > height * 0.9) return undefined;
  return { box, alpha };
}

/** A soft mask (0..1, `width` × `height`) over a rectangle of the image: what to erase. */
export interface Hole {
  left: number;
  top: number;
  width: number;
  height: number;
  mask: Float32Array;
}

/**
 * The hole an object leaves: `alpha` (aw × ah bytes; its `src` rectangle) laid onto `box`
 * (image px), taken where it is ≥ 10 %, grown by `grow` px and softened at the edge.
 */
export function holeFromAlpha(
  alpha: ArrayLike<number>,
  aw: number,
  ah: number,
  src: Rect,
  box: PlacedBox,
  grow: number,
  W: number,
  H: number,
): Hole {
  const bw = Math.max(1, Math.round(box.width));
  const bh = Math.max(1, Math.round(box.height));
  const laid = resampleArea({ data: alpha, width: aw, height: ah, channels: 1 }, bw, bh, src);
  const g = Math.max(1, Math.round(grow));
  const pad = g * 2 + 1;
  const r = clipRect(
    { left: Math.round(box.left) - pad, top: Math.round(box.top) - pad, width: bw + 2 * pad, height: bh + 2 * pad },
    W,
    H,
  );
  const left = Math.round(r.left);
  const top = Math.round(r.top);
  const width = Math.max(1, Math.round(r.width));
  const height = Math.max(1, Math.round(r.height));
  const solid = new Uint8Array(width * height);
  const ox = Math.round(box.left) - left;
  const oy = Math.round(box.top) - top;
  for (let y = 0; y < bh; y++) {
    const Y = y + oy;
    if (Y < 0 || Y >= height) continue;
    for (let x = 0; x < bw; x++) {
      const X = x + ox;
      if (X < 0 || X >= width) continue;
      if (laid[y * bw + x]! >= 25.5) solid[Y * width + X] = 1;
    }
  }
  const grown = dilate(solid, width, height, g);
  const mask = new Float32Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = grown[i]!;
  boxBlur(mask, width, height, Math.max(1, g >> 1), 2);
  return { left, top, width, height, mask };
}

/**
 * Erases what `hole` covers (RGB bytes, in place): its pixels that differ from a fill from
 * around the hole (per row, interpolated between the hole's sides; push-pull on a small copy
 * where a row has no side in the frame) take the fill, with grain of `grain` levels. Pixels close
 * to the fill (background showing through) keep their own texture.
 */
export function eraseHole(rgb: Uint8Array, W: number, H: number, hole: Hole, grain: number, seed: number): void {
  const margin = Math.max(6, Math.round(Math.max(hole.width, hole.height) * 0.15));
  const win = clipRect(
    {
      left: hole.left - margin,
      top: hole.top - margin,
      width: hole.width + 2 * margin,
      height: hole.height + 2 * margin,
    },
    W,
    H,
  );
  const wl = Math.round(win.left);
  const wt = Math.round(win.top);
  const ww = Math.max(1, Math.round(win.width));
  const wh = Math.max(1, Math.round(win.height));
  // The fill on a copy of the window at most 96 px long; the hole (grown a little) unknown.
  const k = Math.min(1, 96 / Math.max(ww, wh));
  const sw = Math.max(2, Math.round(ww * k));
  const sh = Math.max(2, Math.round(wh * k));
  const rect = { left: wl, top: wt, width: ww, height: wh };
  const small = resampleArea({ data: rgb, width: W, height: H, channels: 3 }, sw, sh, rect);
  const full = new Float32Array(ww * wh);
  for (let y = 0; y < hole.height; y++) {
    for (let x = 0; x < hole.width; x++) {
      const X = hole.left + x - wl;
      const Y = hole.top + y - wt;
      if (X >= 0 && Y >= 0 && X < ww && Y < wh) full[Y * ww + X] = hole.mask[y * hole.width + x]!;
    }
  }
  const holeSmall = resampleArea({ data: full, width: ww, height: wh, channels: 1 }, sw, sh);
  const weight = new Float32Array(sw * sh);
  for (let i = 0; i < weight.length; i++) weight[i] = holeSmall[i]! > 0.01 ? 0 : 1;
  const fill = pushPull(small, weight, sw, sh, 3);
  const planesF = [0, 1, 2].map((c) => {
    const f = new Float32Array(sw * sh);
    for (let i = 0; i < f.length; i++) f[i] = fill[i * 3 + c]!;
    return boxBlur(f, sw, sh, Math.max(1, Math.round(Math.min(sw, sh) * 0.03)), 2);
  });
  // Per hole pixel: the fill (bilinear), how far the pixel is from it, the replacement weight.
  const n = hole.width * hole.height;
  const fillAt = new Float32Array(n * 3);
  const change = new Float32Array(n);
  for (let y = 0; y < hole.height; y++) {
    const Y = hole.top + y;
    const fy = Math.min(sh - 1, Math.max(0, (Y - wt + 0.5) * (sh / wh) - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < hole.width; x++) {
      const q = y * hole.width + x;
      if (hole.mask[q]! <= 0.002) continue;
      const X = hole.left + x;
      const fx = Math.min(sw - 1, Math.max(0, (X - wl + 0.5) * (sw / ww) - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(sw - 1, x0 + 1);
      const tx = fx - x0;
      const o = (Y * W + X) * 3;
      let d = 0;
      for (let c = 0; c < 3; c++) {
        const f = planesF[c]!;
        const v =
          (f[y0 * sw + x0]! * (1 - tx) + f[y0 * sw + x1]! * tx) * (1 - ty) +
          (f[y1 * sw + x0]! * (1 - tx) + f[y1 * sw + x1]! * tx) * ty;
        fillAt[q * 3 + c] = v;
        const e = rgb[o + c]! - v;
        d += e * e;
      }
      change[q] = smoothstep(6, 18, Math.sqrt(d));
    }
  }
  // Backdrops run in horizontal bands (a wall, its meeting with the floor, a floor): across a
  // row, the hole is better filled from its sides (band edges stay sharp); the push-pull fill
  // stays only where a row has no side in the frame.
  rowFill(rgb, W, hole, fillAt, change);
  // Grown and softened, so an object's texture and its faint antialiased edge go as a whole,
  // not pixel by pixel.
  const r = Math.max(1, Math.round(Math.min(hole.width, hole.height) * 0.012));
  const bin = new Uint8Array(n);
  for (let q = 0; q < n; q++) bin[q] = change[q]! > 0.3 ? 1 : 0;
  const grownBin = dilate(bin, hole.width, hole.height, r);
  const soft = new Float32Array(n);
  for (let q = 0; q < n; q++) soft[q] = grownBin[q]!;
  boxBlur(soft, hole.width, hole.height, Math.max(1, r >> 1), 2);
  for (let q = 0; q < n; q++) change[q] = Math.min(1, Math.max(change[q]! * 1.6, soft[q]!));
  const rand = prng(hashSeed(seed, 0xe7a5, hole.left, hole.top));
  const sigma = Math.max(0.6, Math.min(5, grain));
  for (let y = 0; y < hole.height; y++) {
    for (let x = 0; x < hole.width; x++) {
      const q = y * hole.width + x;
      const m = hole.mask[q]! * change[q]!;
      if (m <= 0.002) continue;
      const o = ((hole.top + y) * W + hole.left + x) * 3;
      const g = (rand() + rand() + rand() - 1.5) * 2 * sigma;
      for (let c = 0; c < 3; c++) {
        const v = rgb[o + c]! * (1 - m) + (fillAt[q * 3 + c]! + g) * m;
        rgb[o + c] = v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0;
      }
    }
  }
}

/**
 * Overwrites `fillAt` (hole pixels, RGB floats) with a per-row linear interpolation between the
 * hole's two sides (the mean of up to 4 known px on each, a little away from the hole; one
 * side's colour where the other is off the frame), smoothed over ±2 rows; `change` (how far each pixel is from the fill) is
 * recomputed there.
 */
function rowFill(rgb: Uint8Array, W: number, hole: Hole, fillAt: Float32Array, change: Float32Array): void {
  const { width: hw, height: hh, mask } = hole;
  // Sides are sampled a little away from the hole, and narrow gaps in it (between two parts of
  // an object, tainted by their edges) are bridged.
  const unknown = new Uint8Array(hw * hh);
  for (let q = 0; q < unknown.length; q++) unknown[q] = mask[q]! > 0.02 ? 1 : 0;
  const bridged = dilate(unknown, hw, hh, Math.max(2, Math.round(hw * 0.015)));
  const known = (x: number, y: number) => x < 0 || x >= hw || !bridged[y * hw + x];
  const side = (x0: number, dir: number, y: number, out: number[]) => {
    let n = 0;
    out[0] = out[1] = out[2] = 0;
    for (let x = x0; n < 4; x += dir) {
      const X = hole.left + x;
      if (X < 0 || X >= W || !known(x, y)) break;
      const o = ((hole.top + y) * W + X) * 3;
      out[0]! += rgb[o]!;
      out[1]! += rgb[o + 1]!;
      out[2]! += rgb[o + 2]!;
      n++;
    }
    if (n === 0) return false;
    out[0]! /= n;
    out[1]! /= n;
    out[2]! /= n;
    return true;
  };
  const row = new Float32Array(hw * hh * 3);
  const has = new Uint8Array(hw * hh);
  const lc = [0, 0, 0];
  const rc = [0, 0, 0];
  for (let y = 0; y < hh; y++) {
    let x = 0;
    while (x < hw) {
      if (known(x, y)) {
        x++;
        continue;
      }
      const a = x;
      while (x < hw && !known(x, y)) x++;
      const b = x - 1;
      const hasL = side(a - 1, -1, y, lc);
      const hasR = side(b + 1, 1, y, rc);
      if (!hasL && !hasR) continue;
      if (!hasL) lc.splice(0, 3, ...rc);
      if (!hasR) rc.splice(0, 3, ...lc);
      for (let k = a; k <= b; k++) {
        const t = (k - a + 1) / (b - a + 2);
        const q = y * hw + k;
        has[q] = 1;
        for (let c = 0; c < 3; c++) row[q * 3 + c] = lc[c]! * (1 - t) + rc[c]! * t;
      }
    }
  }
  for (let y = 0; y < hh; y++) {
    for (let x = 0; x < hw; x++) {
      const q = y * hw + x;
      if (!has[q]) continue;
      const v = [0, 0, 0];
      let n = 0;
      for (let dy = -2; dy <= 2; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= hh || !has[yy * hw + x]) continue;
        const p = (yy * hw + x) * 3;
        v[0]! += row[p]!;
        v[1]! += row[p + 1]!;
        v[2]! += row[p + 2]!;
        n++;
      }
      const o = ((hole.top + y) * W + hole.left + x) * 3;
      let d = 0;
      for (let c = 0; c < 3; c++) {
        const f = v[c]! / n;
        fillAt[q * 3 + c] = f;
        const e = rgb[o + c]! - f;
        d += e * e;
      }
      change[q] = smoothstep(6, 18, Math.sqrt(d));
    }
  }
}

/**
 * Where a drifted product's replacement goes: the product's own aspect at the target's height
 * times `enlarge`, centred on the target and standing on its base (a little below, so the larger
 * product still covers the drifted one's foot), within the frame.
 */
export function replacementBox(target: PlacedBox, aspect: number, enlarge: number, W: number, H: number): PlacedBox {
  let h = target.height * enlarge;
  let w = h * aspect;
  if (w > W * 0.98) {
    w = W * 0.98;
    h = w / aspect;
  }
  if (h > H * 0.98) {
    h = H * 0.98;
    w = h * aspect;
  }
  const base = Math.min(H, target.top + target.height + (h - target.height) * 0.15);
  const cx = target.left + target.width / 2;
  const left = Math.round(Math.min(W - w, Math.max(0, cx - w / 2)));
  const top = Math.round(Math.max(0, base - h));
  return { left, top, width: Math.max(1, Math.round(w)), height: Math.max(1, Math.round(h)) };
}

/** The fallback place: centred, on the lower part of the frame (base at 90 %), half its height. */
export function fallbackBox(aspect: number, W: number, H: number): PlacedBox {
  let h = H * 0.5;
  let w = h * aspect;
  if (w > W * 0.6) {
    w = W * 0.6;
    h = w / aspect;
  }
  return {
    left: Math.round((W - w) / 2),
    top: Math.round(H * 0.9 - h),
    width: Math.max(1, Math.round(w)),
    height: Math.max(1, Math.round(h)),
  };
}

/**
 * Where the drifted product is: the template match when its form evidence is plausible; else
 * (another product drawn instead, or none) the image's salient object when there is one; else
 * nowhere known.
 */
export function driftTarget(plausible: boolean, salient: PlacedBox | undefined): 'match' | 'salient' | 'none' {
  if (plausible) return 'match';
  return salient ? 'salient' : 'none';
}

// ---------------------------------------------------------------------------------------------
// The wrapper
// ---------------------------------------------------------------------------------------------

/**
 * `provider` with every generation checked for product fidelity (see the file's comment). Its
 * name is `${provider.name}+fidelity` unless `opts.name` says otherwise; a result it checked has
 * `engine` suffixed `+fidelity`.
 * Requests without products pass through untouched. When the check itself fails (a product image
 * that cannot be cut out), the provider's result is returned with a `PRODUCT_FIDELITY_SKIPPED`
 * warning; a cancelled request still throws.
 */
export function withProductFidelity(provider: SceneEngine, opts: FidelityOptions = {}): SceneEngine {
  const threshold = opts.threshold ?? FIDELITY_THRESHOLD;
  const plausibleAt = opts.plausible ?? MATCH_PLAUSIBLE;
  const enlarge = opts.enlarge ?? RECOMPOSITE_ENLARGE;
  const searchSide = opts.searchSide ?? SEARCH_SIDE;
  const minConfidence = opts.minCutoutConfidence ?? MIN_CUTOUT_CONFIDENCE;
  const cachedCutout = cutoutCache(opts.cacheEntries ?? 16);
  const cutout = (bytes: Buffer, maxSide: number) => cachedCutout(bytes, { maxSide });

  async function check(req: SceneRequest, res: SceneResult): Promise<SceneResult> {
    const decoded = await sharp(res.png, { limitInputPixels: 100_000_000 })
      .toColourspace('srgb')
      .flatten({ background: '#808080' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const W = decoded.info.width;
    const H = decoded.info.height;
    const rgb = new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.length);
    const maxSide = Math.max(512, Math.min(2048, Math.round(Math.max(W, H) * 1.25)));
    const cutouts = await Promise.all(req.products.map((p) => cutout(p.bytes, maxSide)));
    checkAbort(req.signal);

    const warnings: EngineWarning[] = [];
    const boxes: PlacedBox[] = [];
    const preserved: number[] = [];
    const recomposite: { index: number; hole?: Hole }[] = [];
    let located = true;
    for (const [i, c] of cutouts.entries()) {
      const m = locateProduct(
        { data: rgb, width: W, height: H, channels: 3 },
        { data: c.rgba, width: c.width, height: c.height, channels: 4 },
        { searchSide, exclude: boxes },
      );
      const sim = m.similarity.toFixed(2);
      const plausible = m.shape >= plausibleAt;
      if (m.similarity >= threshold) {
        boxes.push(m.box);
        preserved.push(i);
        warnings.push({
          code: 'PRODUCT_FIDELITY_CHECKED',
          severity: 'info',
          message: `Product ${i + 1} was found in the generated image as supplied (similarity ${sim}).`,
        });
        continue;
      }
      if (c.confidence < minConfidence) {
        if (plausible) boxes.push(m.box);
        else {
          boxes.push({ left: 0, top: 0, width: W, height: H });
          located = false;
        }
        warnings.push({
          code: 'PRODUCT_DRIFTED',
          severity: 'warning',
          message: `Product ${i + 1} changed in the generated image (similarity ${sim}); its cut-out is too rough to composite in its place, so the image is left as generated.`,
        });
        continue;
      }
      // Where the drifted product is, and the hole it leaves.
      let salient: { box: PlacedBox; alpha: Uint8Array; w: number; h: number } | undefined;
      if (!plausible && cutouts.length === 1) {
        const small = smallCopy(rgb, W, H);
        const s = salientObject(small.rgb, small.w, small.h);
        if (s) {
          const kx = W / small.w;
          const ky = H / small.h;
          const box = {
            left: Math.round(s.box.left * kx),
            top: Math.round(s.box.top * ky),
            width: Math.round(s.box.width * kx),
            height: Math.round(s.box.height * ky),
          };
          salient = { box, alpha: s.alpha, w: small.w, h: small.h };
        }
      }
      const where = driftTarget(plausible, salient?.box);
      let target: PlacedBox | undefined;
      let hole: Hole | undefined;
      if (where === 'match') {
        target = m.box;
        const alpha = new Uint8Array(c.width * c.height);
        for (let k = 0; k < alpha.length; k++) alpha[k] = c.rgba[k * 4 + 3]!;
        const full = { left: 0, top: 0, width: c.width, height: c.height };
        hole = holeFromAlpha(alpha, c.width, c.height, full, m.box, Math.max(m.box.width, m.box.height) * 0.015, W, H);
      } else if (where === 'salient' && salient) {
        target = salient.box;
        const kx = salient.w / W;
        const ky = salient.h / H;
        const src = {
          left: target.left * kx,
          top: target.top * ky,
          width: target.width * kx,
          height: target.height * ky,
        };
        const grow = Math.max(target.width, target.height) * 0.04;
        hole = holeFromAlpha(salient.alpha, salient.w, salient.h, src, target, grow, W, H);
      }
      const aspect = c.width / c.height;
      boxes.push(target ? replacementBox(target, aspect, enlarge, W, H) : fallbackBox(aspect, W, H));
      recomposite.push({ index: i, ...(hole ? { hole } : {}) });
      warnings.push({
        code: 'PRODUCT_RECOMPOSITED',
        severity: 'warning',
        message: target
          ? `Product ${i + 1} changed in the generated image (similarity ${sim}); the real product was composited in its place.`
          : `Product ${i + 1} was not found in the generated image (similarity ${sim}); the real product was composited at the centre.`,
      });
      for (const w of c.warnings) warnings.push({ ...w, message: `Product ${i + 1}: ${w.message}` });
    }
    checkAbort(req.signal);

    const mask = new Uint8Array(W * H);
    let png = res.png;
    if (recomposite.length > 0) {
      const canvas = Uint8Array.from(rgb);
      const grain = backdropStats(rgb, W, H).grain;
      for (const r of recomposite) if (r.hole) eraseHole(canvas, W, H, r.hole, grain, req.seed);
      const hints = estimateHints(rgb, W, H);
      const lightAngle = hints.lightAngle ?? 90;
      // The scene's own light is only estimated: a weak key over a strong fill (a gentle relight).
      const light = { key: keyFromAngle(lightAngle, 0.5), hardness: 0.3, temperature: 0, fill: 0.6 };
      const shadow = shadowFor(light, 0.3);
      const placements: Placement[] = recomposite.map((r) => {
        const b = boxes[r.index]!;
        return { ...b, base: b.top + b.height, row: 0, croppedBottom: cutouts[r.index]!.touches.bottom };
      });
      const layout: SceneLayout = {
        name: 'centre',
        variation: req.variationIndex,
        width: W,
        height: H,
        horizon: hints.horizon ?? 0.6,
        lightAngle,
        light,
        camera: 0.3,
        // A faint cast shadow, a clear contact shadow.
        shadow: { ...shadow, opacity: shadow.opacity * 0.5, contact: 0.6 },
        margin: 0,
        placements,
        drawOrder: placements.map((_, k) => k).sort((a, b) => placements[a]!.base - placements[b]!.base),
      };
      const out = await composite({
        width: W,
        height: H,
        backdrop: canvas,
        stats: backdropStats(canvas, W, H),
        layout,
        products: recomposite.map((r) => cutouts[r.index]!),
        seed: req.seed,
        glossy: false,
      });
      mask.set(out.mask);
      png = await sharp(out.rgb, { raw: { width: W, height: H, channels: 3 } })
        .png({ compressionLevel: 6, adaptiveFiltering: false })
        .toBuffer();
    }
    for (const i of preserved) await drawAlpha(mask, W, H, cutouts[i]!, boxes[i]!);

    return {
      ...res,
      png,
      width: W,
      height: H,
      productBoxes: boxes.map((b) => clipBox(b, W, H)),
      productMask: Buffer.from(mask.buffer, mask.byteOffset, mask.length),
      warnings: [...res.warnings.filter((w) => !(located && w.code === 'PRODUCT_PLACEMENT_UNKNOWN')), ...warnings],
      engine: `${res.engine}+fidelity`,
    };
  }

  async function generate(req: SceneRequest): Promise<SceneResult> {
    const res = await provider.generate(req);
    if (!Array.isArray(req.products) || req.products.length === 0) return res;
    checkAbort(req.signal);
    try {
      return await check(req, res);
    } catch (err) {
      if (req.signal?.aborted) throw err;
      return {
        ...res,
        warnings: [
          ...res.warnings,
          {
            code: 'PRODUCT_FIDELITY_SKIPPED',
            severity: 'warning',
            message: `The product could not be checked in the generated image (${err instanceof Error ? err.message : String(err)}); the image is returned as generated.`,
          },
        ],
      };
    }
  }

  return { name: opts.name ?? `${provider.name}+fidelity`, generate };
}

/** A copy at most 160 px long (bytes), for the salient-object matte. */
function smallCopy(rgb: Uint8Array, W: number, H: number): { rgb: Uint8Array; w: number; h: number } {
  const k = Math.min(1, 160 / Math.max(W, H));
  const w = Math.max(8, Math.round(W * k));
  const h = Math.max(8, Math.round(H * k));
  const f = resampleArea({ data: rgb, width: W, height: H, channels: 3 }, w, h);
  const out = new Uint8Array(f.length);
  for (let i = 0; i < f.length; i++) out[i] = f[i]! + 0.5;
  return { rgb: out, w, h };
}

function clipBox(b: PlacedBox, W: number, H: number): PlacedBox {
  const left = Math.max(0, Math.min(W - 1, b.left));
  const top = Math.max(0, Math.min(H - 1, b.top));
  return {
    left,
    top,
    width: Math.max(1, Math.min(W, b.left + b.width) - left),
    height: Math.max(1, Math.min(H, b.top + b.height) - top),
  };
}

/** The cut-out's alpha resized to `box`, max-combined into `mask` (W × H). */
async function drawAlpha(mask: Uint8Array, W: number, H: number, c: Cutout, box: PlacedBox): Promise<void> {
  const alpha = await sharp(c.rgba, { raw: { width: c.width, height: c.height, channels: 4 } })
    .extractChannel(3)
    .resize(box.width, box.height, { fit: 'fill' })
    .raw()
    .toBuffer();
  for (let y = 0; y < box.height; y++) {
    const Y = box.top + y;
    if (Y < 0 || Y >= H) continue;
    for (let x = 0; x < box.width; x++) {
      const X = box.left + x;
      if (X < 0 || X >= W) continue;
      const a = alpha[y * box.width + x]!;
      if (a > mask[Y * W + X]!) mask[Y * W + X] = a;
    }
  }
}

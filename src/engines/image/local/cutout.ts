/**
 * Product cut-out for the local scene engine: the uploaded product image in, the product alone
 * out (straight RGBA trimmed to its bounding box).
 *
 * - An upload with a meaningful alpha channel (some of it transparent, the opaque part not a
 *   plain rectangle) is trusted: its alpha is the matte.
 * - Otherwise a classical matte (`matte`): the background is modelled from the border, one
 *   robust colour per border stretch (gradients and uneven light followed, the stretches the
 *   product itself crosses left out); the background region is what is connected to the border
 *   through pixels close to a smooth background field (first a Coons patch of the border colours,
 *   then refined from the region found, a few passes) and, on a grainy background, as grainy as
 *   it; narrow leaks are cut by an opening by reconstruction on every pass. Interior product
 *   pixels of the background's colour stay (they are not connected to it), enclosed holes (a
 *   mug's handle) are given back when they match the background closely, share its grain and are
 *   framed by a clear edge; specks are dropped. Edge pixels get a fractional alpha from nearby
 *   product and background colours, their colour decontaminated, and the edge softened by a pixel.
 */
import { createHash } from 'node:crypto';
import sharp, { type Metadata, type OutputInfo } from 'sharp';
import { type EngineWarning, GenerationError, type PlacedBox } from '../scene-engine.ts';
import { boxBlur, channel, clampByte, dilate, erode, neighbours4, pushPull, reconstruct, toLab } from './raster.ts';
import { chamferDistance, components } from '../../shared/raster.ts';
import { clamp01, smoothstep } from '../../shared/math.ts';

/** The product alone: straight (not premultiplied) RGBA, trimmed to the product. */
export interface Cutout {
  rgba: Buffer;
  width: number;
  height: number;
  /** Where the product was in the (oriented, working-size) upload. */
  box: PlacedBox;
  /** The working size of the upload the box refers to (the upload scaled by `scale`). */
  sourceWidth: number;
  sourceHeight: number;
  /** Working px per upload px (≤ 1). */
  scale: number;
  method: 'alpha' | 'matte';
  /** 0..1: how much the matte is to be trusted (1 for a real alpha channel). */
  confidence: number;
  /** The product reaches that edge of the upload (it is cropped there). */
  touches: { top: boolean; right: boolean; bottom: boolean; left: boolean };
  warnings: EngineWarning[];
}

export interface CutoutOptions {
  /** The upload is worked on at most this long side (px). Default 1280. */
  maxSide?: number;
  /** Decoding bound (pixels of the upload). Default 64 MP. */
  maxInputPixels?: number;
}

export const DEFAULT_CUTOUT_MAX_SIDE = 1280;
export const DEFAULT_MAX_INPUT_PIXELS = 64_000_000;

/**
 * cutOutProduct remembered for the `entries` most recently used pictures (by their bytes and the
 * options): a forge's four variations, and its refinements, cut each product out once. A failed
 * cut-out is not kept: the next request tries again and reports its own error.
 */
export function cutoutCache(entries: number): (bytes: Buffer, opts?: CutoutOptions) => Promise<Cutout> {
  const cache = new Map<string, Promise<Cutout>>();
  return (bytes, opts = {}) => {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const key = `${opts.maxSide ?? ''}:${opts.maxInputPixels ?? ''}:${hash}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const work = cutOutProduct(bytes, opts);
    cache.set(key, work);
    work.catch(() => cache.delete(key));
    while (cache.size > entries) cache.delete(cache.keys().next().value!);
    return work;
  };
}

/** Decodes the upload (bounded), applies its orientation and cuts the product out. */
export async function cutOutProduct(bytes: Buffer, opts: CutoutOptions = {}): Promise<Cutout> {
  const maxSide = opts.maxSide ?? DEFAULT_CUTOUT_MAX_SIDE;
  const maxPixels = opts.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new GenerationError('A product image could not be read.', false, { cause: err });
  }
  if (!meta.width || !meta.height) throw new GenerationError('A product image has no size.');
  if (meta.width * (meta.pageHeight ?? meta.height) > maxPixels) {
    throw new GenerationError(
      `A product image is ${meta.width}×${meta.pageHeight ?? meta.height} px, over the limit of ${maxPixels} pixels.`,
    );
  }
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'truncated' })
      .autoOrient()
      .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new GenerationError('A product image could not be decoded.', false, { cause: err });
  }
  const { data, info } = decoded;
  const { width, height } = info;
  const orientedWidth = meta.autoOrient?.width ?? meta.width;
  const scale = width / orientedWidth;
  return cutOutRaw(new Uint8Array(data.buffer, data.byteOffset, data.length), width, height, scale);
}

/** The cut-out of decoded RGBA pixels (see `cutOutProduct`). */
export function cutOutRaw(rgba: Uint8Array, width: number, height: number, scale = 1): Cutout {
  const n = width * height;
  const warnings: EngineWarning[] = [];
  let alpha: Uint8Array;
  let colour: Uint8Array; // RGB, decontaminated where the matte made it
  let method: Cutout['method'];
  let confidence: number;
  const own = meaningfulAlpha(rgba, width, height);
  if (own) {
    alpha = own;
    colour = new Uint8Array(n * 3);
    for (let i = 0; i < n; i++) {
      colour[i * 3] = rgba[i * 4]!;
      colour[i * 3 + 1] = rgba[i * 4 + 1]!;
      colour[i * 3 + 2] = rgba[i * 4 + 2]!;
    }
    method = 'alpha';
    confidence = 1;
  } else {
    const rgb = new Uint8Array(n * 3);
    for (let i = 0; i < n; i++) {
      rgb[i * 3] = rgba[i * 4]!;
      rgb[i * 3 + 1] = rgba[i * 4 + 1]!;
      rgb[i * 3 + 2] = rgba[i * 4 + 2]!;
    }
    const m = matte(rgb, width, height);
    alpha = m.alpha;
    colour = m.rgb;
    method = 'matte';
    confidence = m.confidence;
    if (m.confidence < 0.5) {
      warnings.push({
        code: 'MATTE_UNRELIABLE',
        message: `The product's background could not be told apart cleanly (${m.reason}); the cut-out may be rough.`,
        severity: 'warning',
      });
    }
  }

  const box = alphaBox(alpha, width, height, 8);
  if (!box) throw new GenerationError('A product image is empty (nothing opaque to cut out).');
  const touches = {
    top: box.top === 0,
    left: box.left === 0,
    bottom: box.top + box.height === height,
    right: box.left + box.width === width,
  };
  const out = Buffer.alloc(box.width * box.height * 4);
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) {
      const s = (box.top + y) * width + box.left + x;
      const d = (y * box.width + x) * 4;
      out[d] = colour[s * 3]!;
      out[d + 1] = colour[s * 3 + 1]!;
      out[d + 2] = colour[s * 3 + 2]!;
      out[d + 3] = alpha[s]!;
    }
  }
  return {
    rgba: out,
    width: box.width,
    height: box.height,
    box,
    sourceWidth: width,
    sourceHeight: height,
    scale,
    method,
    confidence,
    touches,
    warnings,
  };
}

/**
 * The upload's own alpha when it means something: at least 0.5 % of the pixels transparent and
 * 0.5 % opaque, and the opaque part not a filled rectangle (a photo padded with transparency).
 */
function meaningfulAlpha(rgba: Uint8Array, width: number, height: number): Uint8Array | undefined {
  const n = width * height;
  let transparent = 0;
  let opaque = 0;
  for (let i = 0; i < n; i++) {
    const a = rgba[i * 4 + 3]!;
    if (a < 128) transparent++;
    else opaque++;
  }
  if (transparent < n * 0.005 || opaque < n * 0.005) return undefined;
  const alpha = new Uint8Array(n);
  for (let i = 0; i < n; i++) alpha[i] = rgba[i * 4 + 3]!;
  const box = alphaBox(alpha, width, height, 128);
  if (box && opaque >= box.width * box.height * 0.995) return undefined;
  return alpha;
}

/** Bounding box of the pixels with alpha ≥ `min` (undefined when there are none). */
export function alphaBox(alpha: Uint8Array, width: number, height: number, min: number): PlacedBox | undefined {
  let left = width;
  let right = -1;
  let top = height;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (alpha[row + x]! >= min) {
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        bottom = y;
      }
    }
  }
  if (right < 0) return undefined;
  return { left, top, width: right - left + 1, height: bottom - top + 1 };
}

export interface MatteResult {
  /** 0..255 per pixel. */
  alpha: Uint8Array;
  /** RGB with edge pixels decontaminated. */
  rgb: Uint8Array;
  confidence: number;
  /** Why the confidence is low, when it is. */
  reason: string;
}

interface Segment {
  /** Pixel indices of this stretch of the border strip. */
  pixels: number[];
  /** Robust (median) Lab colour of the stretch. */
  lab: [number, number, number];
  /** Median distance of its pixels from that colour (noise / texture level). */
  spread: number;
  background: boolean;
}

const dist3 = (a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number) => {
  const d0 = a[i]! - b[j]!;
  const d1 = a[i + 1]! - b[j + 1]!;
  const d2 = a[i + 2]! - b[j + 2]!;
  return Math.sqrt(d0 * d0 + d1 * d1 + d2 * d2);
};

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};

/**
 * The classical matte of an RGB image (3 bytes a pixel) whose product stands on a background
 * that reaches the border: plain, gradient or textured.
 */
export function matte(rgb: Uint8Array, width: number, height: number): MatteResult {
  const n = width * height;
  const minSide = Math.min(width, height);

  // Border model on the image as it is: robust colour per stretch of the border strip, and the
  // noise level that decides how much to smooth before keying.
  const strip = Math.max(2, Math.round(minSide * 0.01));
  const rawLab = toLab(rgb, n, 3);
  let lab = rawLab;
  let segments = borderSegments(lab, width, height, strip);
  const rawNoise = median(segments.map((s) => s.spread));
  // A smoothed copy for the keying decisions when the background is grainy or textured (plain
  // backgrounds keep every pixel sharp: a faint product edge must stay a barrier).
  const blurRadius = rawNoise < 1.2 ? 0 : rawNoise < 6 ? 1 : 2;
  let blurred: Float32Array;
  if (blurRadius === 0) {
    blurred = Float32Array.from(rgb);
  } else {
    blurred = new Float32Array(n * 3);
    for (let c = 0; c < 3; c++) {
      const plane = boxBlur(channel(rgb, n, 3, c), width, height, blurRadius, 2);
      for (let i = 0; i < n; i++) blurred[i * 3 + c] = plane[i]!;
    }
    lab = toLab(blurred, n, 3);
    segments = borderSegments(lab, width, height, strip);
  }
  classifySegments(segments, width, height);
  const bgSegments = segments.filter((s) => s.background);
  const bgFraction = bgSegments.length / segments.length;
  const noise = median(bgSegments.map((s) => s.spread));
  const tol = Math.min(28, 3 + 3 * noise);
  const seeds: number[] = [];
  for (const s of bgSegments) for (const p of s.pixels) seeds.push(p);

  // Grain: how far each pixel stands from its smoothed self, averaged locally. On a grainy
  // background a smooth product surface of the same colour is told apart by it.
  let grainFloor = 0;
  let energy: Float32Array | undefined;
  if (blurRadius > 0) {
    energy = new Float32Array(n);
    for (let i = 0; i < n; i++) energy[i] = dist3(rawLab, i * 3, lab, i * 3);
    boxBlur(energy, width, height, 3, 2);
    const seedGrain = median(seeds.filter((_, k) => k % 5 === 0).map((p) => energy![p]!));
    if (seedGrain >= 1) grainFloor = 0.45 * seedGrain;
  }

  // 1. Background region, refined a few times: the pixels connected to the background border
  // stretches whose colour is within `tol` of a smooth background field. The first field comes
  // from the border alone (a Coons patch of the edges' colours, product-covered stretches
  // interpolated); each next one is filled in smoothly from the region found so far, so a
  // vignette or uneven light is followed while a faint product edge still stops the region (no
  // colour reference travels along paths, so nothing drifts across an edge).
  let field = borderPatch(segments, width, height);
  const candidate = new Uint8Array(n);
  let bg: Uint8Array = new Uint8Array(n);
  // Narrow leaks into the product are cut on every pass (opening by reconstruction from the
  // border), so a leak never feeds the next field.
  const r = Math.max(1, Math.round(minSide / 400));
  let cutLeak = 0;
  // What the last opening cut off: background-like pixels reached only through narrow gaps (a
  // leak, or the background in a narrow opening such as between a sleeve and the body).
  const leaked = new Uint8Array(n);
  const PASSES = 6;
  for (let pass = 0; pass < PASSES; pass++) {
    const tol2 = tol * tol;
    for (let i = 0, j = 0; i < n; i++, j += 3) {
      const d0 = lab[j]! - field[j]!;
      const d1 = lab[j + 1]! - field[j + 1]!;
      const d2 = lab[j + 2]! - field[j + 2]!;
      candidate[i] = d0 * d0 + d1 * d1 + d2 * d2 < tol2 && (!energy || energy[i]! >= grainFloor) ? 1 : 0;
    }
    const grown = reconstruct(candidate, width, seeds);
    const opened = dilate(reconstruct(erode(grown, width, height, r, 1), width, seeds), width, height, r);
    cutLeak = 0;
    let changed = 0;
    for (let i = 0; i < n; i++) {
      const v = opened[i]! & grown[i]!;
      leaked[i] = grown[i]! & (1 - v);
      cutLeak += leaked[i]!;
      changed += v ^ bg[i]!;
      grown[i] = v;
    }
    bg = grown;
    if (pass === PASSES - 1 || changed < n * 0.0005) break;
    field = smoothField(blurred, erode(bg, width, height, r + 2, 1), width, height);
  }

  // The background's broad colour everywhere (smooth, from the background found), for holes.
  const bgLab = smoothField(blurred, erode(bg, width, height, 1, 1), width, height);

  // 3. Enclosed holes that are background after all (inside a handle): close to the background
  // field and as flat as the background.
  const notBg = new Uint8Array(n);
  for (let i = 0; i < n; i++) notBg[i] = bg[i] ? 0 : 1;
  const holeTol = Math.max(2.5, Math.min(10, 0.8 * tol));
  const holeCandidate = new Uint8Array(n);
  const holeDist = new Float32Array(n);
  const holeTol2 = holeTol * holeTol;
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    if (!notBg[i]) continue;
    const d0 = lab[j]! - bgLab[j]!;
    const d1 = lab[j + 1]! - bgLab[j + 1]!;
    const d2 = lab[j + 2]! - bgLab[j + 2]!;
    const d = d0 * d0 + d1 * d1 + d2 * d2;
    if (d < holeTol2 || leaked[i]) {
      holeCandidate[i] = 1;
      holeDist[i] = Math.sqrt(d);
    }
  }
  const holes = components(holeCandidate, width, height);
  const holeSizes = holes.list.map((c) => c.area);
  const minHole = Math.max(48, n * 0.0004);
  // Grain: how far each pixel stands from its smoothed self. A hole shows the background's grain;
  // a smooth product surface of the background's colour does not.
  const grainOf = (i: number) => (rawLab === lab ? 0 : dist3(rawLab, i * 3, lab, i * 3));
  // The background's own grain and its typical distance from the smooth field: what a hole
  // showing the background looks like.
  let bgGrain = 0;
  let bgSpread = 0;
  let bgCount = 0;
  for (let i = 0; i < n; i += 7) {
    if (!bg[i]) continue;
    bgGrain += grainOf(i);
    bgSpread += dist3(lab, i * 3, bgLab, i * 3);
    bgCount++;
  }
  bgGrain = bgCount ? bgGrain / bgCount : 0;
  bgSpread = bgCount ? bgSpread / bgCount : 0;
  const holeStats = holeSizes.map(() => ({ sum: 0, sq: 0, grain: 0 }));
  for (let i = 0; i < n; i++) {
    const id = holes.labels[i]! - 1;
    if (id < 0) continue;
    const d = holeDist[i]!;
    holeStats[id]!.sum += d;
    holeStats[id]!.sq += d * d;
    holeStats[id]!.grain += grainOf(i);
  }
  const flat = holeSizes.map((size, id) => {
    if (size < minHole) return false;
    const mean = holeStats[id]!.sum / size;
    const sd = Math.sqrt(Math.max(0, holeStats[id]!.sq / size - mean * mean));
    const grain = holeStats[id]!.grain / size;
    return (
      sd < Math.max(1.2, 2 * noise) &&
      Math.abs(grain - bgGrain) <= Math.max(0.6, 0.4 * bgGrain) &&
      // The colour: close to the field; on a grainy background whose grain the hole shares, the
      // field (extrapolated across the product) is trusted less.
      mean <
        (bgGrain >= 1 && Math.abs(grain - bgGrain) <= 0.25 * bgGrain
          ? holeTol
          : Math.max(holeTol * 0.6, bgSpread * 1.6))
    );
  });
  // A real hole is framed by product with a clear edge (a handle); a highlight on a light
  // product fades into it: the colour just outside it must stand well off the background.
  const rim = rimContrast(holes.labels, flat, lab, bgLab, width, height);
  const acceptHole = flat.map((ok, id) => ok && rim[id]! >= Math.max(12, 3 * holeTol));
  // An accepted hole takes in the rest of its opening: neighbouring pixels close to the hole's
  // own colour (the field extrapolated across the product can be off there).
  const holeMean = holeSizes.map(() => [0, 0, 0]);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = holes.labels[i]! - 1;
    if (id < 0 || !acceptHole[id]) continue;
    notBg[i] = 0;
    queue.push(i);
    for (let c = 0; c < 3; c++) holeMean[id]![c]! += lab[i * 3 + c]!;
  }
  for (const [id, size] of holeSizes.entries()) for (let c = 0; c < 3; c++) holeMean[id]![c]! /= size;
  const owner = Int32Array.from(holes.labels);
  while (queue.length) {
    const p = queue.pop()!;
    const id = owner[p]! - 1;
    const x = p % width;
    for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width]) {
      if (q < 0 || q >= n || !notBg[q]) continue;
      if (dist3(lab, q * 3, holeMean[id]!, 0) >= tol) continue;
      if (energy && energy[q]! < grainFloor * 0.5) continue;
      notBg[q] = 0;
      owner[q] = id + 1;
      queue.push(q);
    }
  }

  // 4. Specks: product components far smaller than the largest are background.
  const fgComps = components(notBg, width, height);
  const largest = Math.max(0, ...fgComps.list.map((c) => c.area));
  const keep = fgComps.list.map((c) => c.area >= Math.max(24, largest * 0.012));
  for (let i = 0; i < n; i++) {
    const id = fgComps.labels[i]! - 1;
    if (id >= 0 && !keep[id]) notBg[i] = 0;
  }
  const fg = notBg;
  let fgArea = 0;
  for (let i = 0; i < n; i++) fgArea += fg[i]!;

  // 5. Edges: fractional alpha from the local product and background colours (nearby confident
  // pixels of each, closest weighing most), decontaminated.
  const dIn = chamferDistance(invert(fg), width, height, 8);
  const dOut = chamferDistance(fg, width, height, 8);
  const alpha = new Uint8Array(n);
  const out = new Uint8Array(rgb);
  let contrastSum = 0;
  let contrastCount = 0;
  const noiseRgb = Math.max(4, noise * 3);
  const fgC = new Float32Array(3);
  const bgC = new Float32Array(3);
  for (let i = 0; i < n; i++) {
    const inside = dIn[i]!;
    const outside = dOut[i]!;
    if (inside >= 2) {
      alpha[i] = 255;
      continue;
    }
    if (outside > 2) continue; // background
    const j = i * 3;
    const haveFg = nearbyMean(rgb, dIn, 2, i, width, height, fgC);
    const haveBg = nearbyMean(blurred, dOut, 2.5, i, width, height, bgC);
    if (!haveFg || !haveBg) {
      alpha[i] = inside > 0 ? 255 : 0;
      continue;
    }
    const fr = fgC[0]! - bgC[0]!;
    const fgc = fgC[1]! - bgC[1]!;
    const fb = fgC[2]! - bgC[2]!;
    const den = fr * fr + fgc * fgc + fb * fb;
    const contrast = Math.sqrt(den);
    if (inside > 0) {
      contrastSum += contrast;
      contrastCount++;
    }
    let a: number;
    if (contrast < 18) {
      // Product and background alike here: the binary edge, softened below.
      a = inside > 0 ? 1 : 0;
    } else {
      const vr = rgb[j]! - bgC[0]!;
      const vg = rgb[j + 1]! - bgC[1]!;
      const vb = rgb[j + 2]! - bgC[2]!;
      a = clamp01((vr * fr + vg * fgc + vb * fb) / den);
      // Background noise along the product's colour direction is not coverage.
      if (inside === 0 && a * contrast < noiseRgb) a = 0;
      if (inside > 0) a = Math.max(a, 0.15);
    }
    alpha[i] = Math.round(a * 255);
    if (a <= 0) {
      // Background, but the softened edge may give it a little alpha: the product's colour then.
      out[j] = clampByte(fgC[0]!);
      out[j + 1] = clampByte(fgC[1]!);
      out[j + 2] = clampByte(fgC[2]!);
    } else if (a < 1) {
      // Decontaminate: the background's share out, leaning on the local product colour when the
      // pixel is mostly background (the solve is unstable there).
      const w = smoothstep(0.15, 0.6, a);
      for (let k = 0; k < 3; k++) {
        const solved = (rgb[j + k]! - (1 - a) * bgC[k]!) / a;
        out[j + k] = clampByte(w * solved + (1 - w) * fgC[k]!);
      }
    }
  }
  // Soften the edge by a pixel: a light 3×3 blur of alpha on the edge band only.
  const soft = softenEdge(alpha, dIn, dOut, width, height);

  // Confidence.
  const fgFraction = fgArea / n;
  const meanContrast = contrastCount ? contrastSum / contrastCount : 0;
  const reasons: string[] = [];
  let confidence = 1;
  if (bgFraction < 0.5) {
    confidence *= 0.4;
    reasons.push('the product covers most of the image border');
  }
  if (fgFraction > 0.9 || fgFraction < 0.002) {
    confidence *= 0.3;
    reasons.push(fgFraction > 0.9 ? 'almost nothing was background' : 'almost nothing was product');
  }
  if (meanContrast < 30) {
    confidence *= 0.5;
    reasons.push('the product and its background have similar colours');
  }
  if (rawNoise > 8) {
    confidence *= rawNoise > 16 ? 0.35 : 0.7;
    reasons.push('the background is busy');
  }
  if (cutLeak > fgArea * 0.15) {
    confidence *= 0.7;
    reasons.push('the background leaked into the product');
  }
  return { alpha: soft, rgb: out, confidence, reason: reasons.join('; ') || 'ok' };
}

function invert(mask: Uint8Array): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) out[i] = mask[i] ? 0 : 1;
  return out;
}

function softenEdge(alpha: Uint8Array, dIn: Float32Array, dOut: Float32Array, width: number, height: number) {
  const out = new Uint8Array(alpha);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (dIn[i]! > 1.5 || dOut[i]! > 1.5) continue;
      let s = 0;
      s += alpha[i - width - 1]! + 2 * alpha[i - width]! + alpha[i - width + 1]!;
      s += 2 * alpha[i - 1]! + 4 * alpha[i]! + 2 * alpha[i + 1]!;
      s += alpha[i + width - 1]! + 2 * alpha[i + width]! + alpha[i + width + 1]!;
      out[i] = Math.round(s / 16);
    }
  }
  return out;
}

/** The border strip cut into stretches, each with its robust colour and spread. */
function borderSegments(lab: Float32Array, width: number, height: number, strip: number): Segment[] {
  const len = segmentLength(width, height);
  const segments: Segment[] = [];
  const addSide = (count: number, pixelsAt: (from: number, to: number) => number[]) => {
    const parts = Math.max(1, Math.round(count / len));
    for (let k = 0; k < parts; k++) {
      const from = Math.floor((k * count) / parts);
      const to = Math.floor(((k + 1) * count) / parts);
      segments.push(makeSegment(lab, pixelsAt(from, to)));
    }
  };
  // Clockwise: top (left→right), right (top→bottom), bottom (right→left), left (bottom→top).
  addSide(width, (from, to) => {
    const px: number[] = [];
    for (let x = from; x < to; x++) for (let d = 0; d < strip; d++) px.push(d * width + x);
    return px;
  });
  addSide(height, (from, to) => {
    const px: number[] = [];
    for (let y = from; y < to; y++) for (let d = 0; d < strip; d++) px.push(y * width + width - 1 - d);
    return px;
  });
  addSide(width, (from, to) => {
    const px: number[] = [];
    for (let x = width - 1 - from; x > width - 1 - to; x--) {
      for (let d = 0; d < strip; d++) px.push((height - 1 - d) * width + x);
    }
    return px;
  });
  addSide(height, (from, to) => {
    const px: number[] = [];
    for (let y = height - 1 - from; y > height - 1 - to; y--) for (let d = 0; d < strip; d++) px.push(y * width + d);
    return px;
  });
  return segments;
}

function makeSegment(lab: Float32Array, pixels: number[]): Segment {
  const L: number[] = [];
  const A: number[] = [];
  const B: number[] = [];
  for (const p of pixels) {
    L.push(lab[p * 3]!);
    A.push(lab[p * 3 + 1]!);
    B.push(lab[p * 3 + 2]!);
  }
  const c: [number, number, number] = [median(L), median(A), median(B)];
  const spread = median(pixels.map((p) => dist3(lab, p * 3, c, 0)));
  return { pixels, lab: c, spread, background: false };
}

/**
 * Which border stretches are background. The ring of stretches is cut into runs wherever the
 * colour jumps or a stretch is busy (the product crossing the border); a smooth gradient stays
 * one run. Background: the run of the corner most corners agree with, and every other run that
 * holds a corner and is long enough not to be a product poking into it.
 */
function classifySegments(segments: Segment[], width: number, height: number): void {
  const count = segments.length;
  // Corner stretches: the first and last stretch of each side.
  const [c0, c1, c2] = sideCounts(width, height);
  const corners = [0, count - 1, c0! - 1, c0!, c0! + c1! - 1, c0! + c1!, c0! + c1! + c2! - 1, c0! + c1! + c2!];
  const cornerSet = [...new Set(corners.filter((i) => i >= 0 && i < count))];
  const noise = median(segments.map((s) => s.spread));
  const agree = Math.max(10, 4 * noise);
  const step = Math.max(8, 4 * noise);
  const busy = Math.max(6, 3 * noise + 2);

  // Runs along the ring: run id per stretch (busy stretches are runs of their own, never bg).
  const run = new Int32Array(count).fill(-1);
  const joins = (i: number, j: number) =>
    segments[i]!.spread < busy && segments[j]!.spread < busy && dist3(segments[i]!.lab, 0, segments[j]!.lab, 0) < step;
  // Start after a break so a run is not split by the ring's start.
  let start = 0;
  for (let i = 0; i < count; i++) {
    if (!joins((i - 1 + count) % count, i)) {
      start = i;
      break;
    }
  }
  let id = -1;
  const lengths: number[] = [];
  for (let k = 0; k < count; k++) {
    const i = (start + k) % count;
    if (k === 0 || !joins((i - 1 + count) % count, i)) {
      id++;
      lengths.push(0);
    }
    run[i] = id;
    lengths[id]! += 1;
  }

  let best = cornerSet[0]!;
  let bestVotes = -1;
  for (const i of cornerSet) {
    if (segments[i]!.spread >= busy) continue;
    let votes = 0;
    for (const j of cornerSet) if (dist3(segments[i]!.lab, 0, segments[j]!.lab, 0) < agree) votes++;
    votes += lengths[run[i]!]! / count; // ties: the longer run
    if (votes > bestVotes) {
      bestVotes = votes;
      best = i;
    }
  }
  const bgRuns = new Set<number>([run[best]!]);
  for (const i of cornerSet) {
    const r = run[i]!;
    if (segments[i]!.spread >= busy) continue;
    if (dist3(segments[i]!.lab, 0, segments[best]!.lab, 0) < agree || lengths[r]! >= count * 0.06) bgRuns.add(r);
  }
  for (let i = 0; i < count; i++) segments[i]!.background = bgRuns.has(run[i]!) && segments[i]!.spread < busy;
}

/**
 * The expected background colour everywhere from the border colours alone: each side's colour
 * profile (background stretches, product-covered ones interpolated), blended by a Coons patch.
 * Returns Lab per pixel.
 */
function borderPatch(segments: Segment[], width: number, height: number): Float32Array {
  // Per side profile sampled per pixel position along the side.
  const count = segments.length;
  // Fill non-background stretches from the nearest background ones along the ring.
  const filled: [number, number, number][] = segments.map((s) => s.lab);
  for (let i = 0; i < count; i++) {
    if (segments[i]!.background) continue;
    let prev = -1;
    let next = -1;
    for (let d = 1; d < count && (prev < 0 || next < 0); d++) {
      if (prev < 0 && segments[(i - d + count) % count]!.background) prev = d;
      if (next < 0 && segments[(i + d) % count]!.background) next = d;
    }
    if (prev < 0 || next < 0) continue;
    const a = segments[(i - prev + count) % count]!.lab;
    const b = segments[(i + next) % count]!.lab;
    const t = prev / (prev + next);
    filled[i] = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
  }
  // Stretch centres along each side, in order; sides follow each other clockwise.
  const perSideCounts = sideCounts(width, height);
  const sides: [number, number, number][][] = [];
  let k = 0;
  for (const c of perSideCounts) {
    sides.push(filled.slice(k, k + c));
    k += c;
  }
  const profile = (side: [number, number, number][], length: number, reverse: boolean) => {
    const out = new Float32Array(length * 3);
    const m = side.length;
    for (let p = 0; p < length; p++) {
      const pos = reverse ? length - 1 - p : p;
      const f = Math.min(m - 1, Math.max(0, ((pos + 0.5) / length) * m - 0.5));
      const a = Math.floor(f);
      const b = Math.min(m - 1, a + 1);
      const t = f - a;
      for (let c = 0; c < 3; c++) out[p * 3 + c] = side[a]![c]! * (1 - t) + side[b]![c]! * t;
    }
    return out;
  };
  const top = profile(sides[0]!, width, false);
  const right = profile(sides[1]!, height, false);
  const bottom = profile(sides[2]!, width, true);
  const left = profile(sides[3]!, height, true);
  const out = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const v = height > 1 ? y / (height - 1) : 0;
    for (let x = 0; x < width; x++) {
      const u = width > 1 ? x / (width - 1) : 0;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const ruled =
          (1 - v) * top[x * 3 + c]! + v * bottom[x * 3 + c]! + (1 - u) * left[y * 3 + c]! + u * right[y * 3 + c]!;
        const corners =
          (1 - u) * (1 - v) * top[c]! +
          u * (1 - v) * top[(width - 1) * 3 + c]! +
          (1 - u) * v * bottom[c]! +
          u * v * bottom[(width - 1) * 3 + c]!;
        out[i + c] = ruled - corners;
      }
    }
  }
  return out;
}

/** Stretches per side (top, right, bottom, left), as `borderSegments` cuts them. */
function sideCounts(width: number, height: number): number[] {
  const len = segmentLength(width, height);
  return [width, height, width, height].map((c) => Math.max(1, Math.round(c / len)));
}

const segmentLength = (width: number, height: number) => Math.max(8, Math.round((2 * (width + height)) / 120));

/**
 * A smooth background colour field (Lab per pixel) from the pixels of `mask`: push-pull at an
 * eighth of the size (only the broad shading matters), bilinear back up.
 */
function smoothField(rgb: Float32Array, mask: Uint8Array, width: number, height: number): Float32Array {
  const f = 8;
  const w = Math.max(1, Math.ceil(width / f));
  const h = Math.max(1, Math.ceil(height / f));
  const sum = new Float32Array(w * h * 3);
  const weight = new Float32Array(w * h);
  for (let y = 0; y < height; y++) {
    const sy = Math.floor(y / f);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      const q = sy * w + Math.floor(x / f);
      weight[q]! += 1;
      sum[q * 3]! += rgb[i * 3]!;
      sum[q * 3 + 1]! += rgb[i * 3 + 1]!;
      sum[q * 3 + 2]! += rgb[i * 3 + 2]!;
    }
  }
  const full = f * f;
  for (let q = 0; q < w * h; q++) {
    const wt = weight[q]!;
    if (wt > 0) for (let c = 0; c < 3; c++) sum[q * 3 + c] = sum[q * 3 + c]! / wt;
    weight[q] = Math.min(1, (wt / full) * 2);
  }
  const small = toLab(pushPull(sum, weight, w, h, 3), w * h, 3);
  const out = new Float32Array(width * height * 3);
  const col0 = new Int32Array(width);
  const col1 = new Int32Array(width);
  const colF = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const cx = Math.min(w - 1, Math.max(0, (x + 0.5) / f - 0.5));
    col0[x] = Math.floor(cx) * 3;
    col1[x] = Math.min(w - 1, Math.floor(cx) + 1) * 3;
    colF[x] = cx - Math.floor(cx);
  }
  const rowA = new Float32Array(w * 3);
  for (let y = 0; y < height; y++) {
    const cy = Math.min(h - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = Math.floor(cy) * w * 3;
    const y1 = Math.min(h - 1, Math.floor(cy) + 1) * w * 3;
    const fy = cy - Math.floor(cy);
    for (let k = 0; k < w * 3; k++) rowA[k] = small[y0 + k]! * (1 - fy) + small[y1 + k]! * fy;
    for (let x = 0, i = y * width * 3; x < width; x++, i += 3) {
      const a = col0[x]!;
      const b = col1[x]!;
      const fx = colF[x]!;
      out[i] = rowA[a]! + (rowA[b]! - rowA[a]!) * fx;
      out[i + 1] = rowA[a + 1]! + (rowA[b + 1]! - rowA[a + 1]!) * fx;
      out[i + 2] = rowA[a + 2]! + (rowA[b + 2]! - rowA[a + 2]!) * fx;
    }
  }
  return out;
}

/**
 * Mean colour distance from the background field of the pixels 2–3 px outside each listed
 * component (`labels` as from `components`; only components with `which[id]` are measured).
 */
function rimContrast(
  labels: Int32Array,
  which: boolean[],
  lab: Float32Array,
  bgLab: Float32Array,
  width: number,
  height: number,
): number[] {
  const n = width * height;
  const owner = new Int32Array(n);
  const depth = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) {
    const id = labels[i]! - 1;
    if (id >= 0 && which[id]) {
      owner[i] = id + 1;
      queue[tail++] = i;
    }
  }
  const sum = which.map(() => 0);
  const count = which.map(() => 0);
  while (head < tail) {
    const p = queue[head++]!;
    const d = depth[p]!;
    if (d >= 3) continue;
    for (const q of neighbours4(p, width, height)) {
      if (q < 0 || owner[q]) continue;
      owner[q] = owner[p]!;
      depth[q] = d + 1;
      queue[tail++] = q;
      if (d + 1 >= 2) {
        const id = owner[p]! - 1;
        sum[id]! += dist3(lab, q * 3, bgLab, q * 3);
        count[id]! += 1;
      }
    }
  }
  return sum.map((s, id) => (count[id] ? s / count[id]! : 0));
}

/**
 * Mean colour (`src`, 3 channels) of the pixels within 4 px of `i` (8 px when there are none)
 * whose `dist` is at least `min`, weighted toward the closest; false when there are none.
 */
function nearbyMean(
  src: ArrayLike<number>,
  dist: Float32Array,
  min: number,
  i: number,
  width: number,
  height: number,
  out: Float32Array,
): boolean {
  const x = i % width;
  const y = (i - x) / width;
  for (const r of [4, 8]) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let sw = 0;
    const xa = Math.max(0, x - r);
    const xb = Math.min(width - 1, x + r);
    const ya = Math.max(0, y - r);
    const yb = Math.min(height - 1, y + r);
    for (let yy = ya; yy <= yb; yy++) {
      const dy = yy - y;
      for (let xx = xa; xx <= xb; xx++) {
        const q = yy * width + xx;
        if (dist[q]! < min) continue;
        const dx = xx - x;
        const wt = 1 / (1 + dx * dx + dy * dy);
        s0 += src[q * 3]! * wt;
        s1 += src[q * 3 + 1]! * wt;
        s2 += src[q * 3 + 2]! * wt;
        sw += wt;
      }
    }
    if (sw > 0) {
      out[0] = s0 / sw;
      out[1] = s1 / sw;
      out[2] = s2 / sw;
      return true;
    }
  }
  return false;
}

/**
 * Small raster helpers of the local scene engine, on plain typed arrays (row-major, `width` ×
 * `height`, interleaved channels): colour conversion, blurs, binary morphology, connected
 * components, distance transforms, push-pull fill and a seeded PRNG. Pure and synchronous; the
 * engine hands whole images to sharp only for decoding, resampling and encoding.
 */
import { clamp01 } from '../../shared/math.ts';

/** sRGB byte → linear light (0..1). */
export const SRGB_TO_LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  SRGB_TO_LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
const SRGB_STEPS = 4096;
const LINEAR_TO_SRGB = new Float32Array(SRGB_STEPS + 1);
for (let i = 0; i <= SRGB_STEPS; i++) {
  const l = i / SRGB_STEPS;
  LINEAR_TO_SRGB[i] = 255 * (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055);
}

/** sRGB byte (0..255, rounded) → linear light 0..1. */
export const toLinear = (v: number) => SRGB_TO_LINEAR[v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0]!;
/** Linear light → sRGB level 0..255 (float; above 1 clips to white). */
export const toSrgb = (l: number) => (l <= 0 ? 0 : l >= 1 ? 255 : LINEAR_TO_SRGB[(l * SRGB_STEPS + 0.5) | 0]!);

/**
 * CIE L*a*b* (D65) of an interleaved 8-bit RGB(A) buffer, as 3 floats a pixel. Float input (a
 * blurred image) is rounded to the nearest byte for the transfer curve.
 */
export function toLab(rgb: ArrayLike<number>, pixels: number, channels: number): Float32Array {
  const out = new Float32Array(pixels * 3);
  const lin = SRGB_TO_LINEAR;
  for (let i = 0, j = 0, o = 0; i < pixels; i++, j += channels, o += 3) {
    let v = rgb[j]!;
    const r = lin[v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0]!;
    v = rgb[j + 1]!;
    const g = lin[v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0]!;
    v = rgb[j + 2]!;
    const b = lin[v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0]!;
    const xr = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const yr = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const zr = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    const x = xr > 0.008856 ? Math.cbrt(xr) : 7.787 * xr + 16 / 116;
    const y = yr > 0.008856 ? Math.cbrt(yr) : 7.787 * yr + 16 / 116;
    const z = zr > 0.008856 ? Math.cbrt(zr) : 7.787 * zr + 16 / 116;
    out[o] = 116 * y - 16;
    out[o + 1] = 500 * (x - y);
    out[o + 2] = 200 * (y - z);
  }
  return out;
}

export const clampByte = (n: number) => (n <= 0 ? 0 : n >= 255 ? 255 : Math.round(n));
/** clampByte rounding half up with a bit trick: for hot loops over pixels. */
export const clampByteFast = (n: number) => (n <= 0 ? 0 : n >= 255 ? 255 : (n + 0.5) | 0);

/** Relative luminance-ish brightness (0..255) of an RGB colour, Rec. 709 weights on the bytes. */
export const luma = (r: number, g: number, b: number) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

/**
 * Box blur of radius `r` (window 2r+1), separable, edge-clamped, of a planar float channel,
 * in place; `passes` repeats it (two or three approximate a Gaussian).
 */
export function boxBlur(data: Float32Array, width: number, height: number, r: number, passes = 1): Float32Array {
  if (r < 1) return data;
  const tmp = new Float32Array(Math.max(width, height));
  const win = 2 * r + 1;
  for (let p = 0; p < passes; p++) {
    for (let y = 0; y < height; y++) {
      const row = y * width;
      let acc = 0;
      for (let k = -r; k <= r; k++) acc += data[row + Math.min(width - 1, Math.max(0, k))]!;
      for (let x = 0; x < width; x++) {
        tmp[x] = acc / win;
        acc += data[row + Math.min(width - 1, x + r + 1)]! - data[row + Math.max(0, x - r)]!;
      }
      data.set(tmp.subarray(0, width), row);
    }
    for (let x = 0; x < width; x++) {
      let acc = 0;
      for (let k = -r; k <= r; k++) acc += data[Math.min(height - 1, Math.max(0, k)) * width + x]!;
      for (let y = 0; y < height; y++) {
        tmp[y] = acc / win;
        acc += data[Math.min(height - 1, y + r + 1) * width + x]! - data[Math.max(0, y - r) * width + x]!;
      }
      for (let y = 0; y < height; y++) data[y * width + x] = tmp[y]!;
    }
  }
  return data;
}

/** A planar float copy of channel `c` of an interleaved buffer. */
export function channel(src: ArrayLike<number>, pixels: number, channels: number, c: number): Float32Array {
  const out = new Float32Array(pixels);
  for (let i = 0, j = c; i < pixels; i++, j += channels) out[i] = src[j]!;
  return out;
}

/**
 * Square erosion of a 0/1 mask with radius r (window 2r+1), separable: a pixel stays when the run
 * of set pixels through it reaches r further on both sides, along the row and then the column.
 * Outside the image counts as set when `outside` is 1.
 */
export function erode(mask: Uint8Array, width: number, height: number, r: number, outside = 1): Uint8Array {
  if (r < 1) return mask.slice();
  const big = outside ? 1 << 30 : 0;
  const tmp = new Uint8Array(mask.length);
  const out = new Uint8Array(mask.length);
  const run = new Int32Array(Math.max(width, height));
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let c = big;
    for (let x = 0; x < width; x++) {
      c = mask[row + x] ? c + 1 : 0;
      run[x] = c;
    }
    c = big;
    for (let x = width - 1; x >= 0; x--) {
      c = mask[row + x] ? c + 1 : 0;
      tmp[row + x] = c > r && run[x]! > r ? 1 : 0;
    }
  }
  for (let x = 0; x < width; x++) {
    let c = big;
    for (let y = 0, i = x; y < height; y++, i += width) {
      c = tmp[i] ? c + 1 : 0;
      run[y] = c;
    }
    c = big;
    for (let y = height - 1, i = (height - 1) * width + x; y >= 0; y--, i -= width) {
      c = tmp[i] ? c + 1 : 0;
      out[i] = c > r && run[y]! > r ? 1 : 0;
    }
  }
  return out;
}

/** Square dilation of a 0/1 mask with radius r (outside the image counts as unset). */
export function dilate(mask: Uint8Array, width: number, height: number, r: number): Uint8Array {
  if (r < 1) return mask.slice();
  const inv = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) inv[i] = mask[i] ? 0 : 1;
  const e = erode(inv, width, height, r, 1);
  for (let i = 0; i < e.length; i++) e[i] = e[i] ? 0 : 1;
  return e;
}

/**
 * Pixels of `mask` connected (4-neighbourhood) to a seed: `seeds` lists pixel indices; seeds
 * outside the mask are ignored.
 */
export function reconstruct(mask: Uint8Array, width: number, seeds: Iterable<number>): Uint8Array {
  const out = new Uint8Array(mask.length);
  const queue = new Int32Array(mask.length);
  let head = 0;
  let tail = 0;
  const visit = (q: number) => {
    if (mask[q] && !out[q]) {
      out[q] = 1;
      queue[tail++] = q;
    }
  };
  for (const s of seeds) visit(s);
  while (head < tail) {
    const p = queue[head++]!;
    const x = p % width;
    if (x > 0) visit(p - 1);
    if (x < width - 1) visit(p + 1);
    if (p >= width) visit(p - width);
    if (p + width < mask.length) visit(p + width);
  }
  return out;
}

/**
 * Push-pull fill: a smooth colour field that equals `colour` where `weight` is 1 and is filled
 * from the nearest weighted pixels elsewhere (coarse-to-fine). `colour` has `ch` interleaved
 * float channels; `weight` is 0..1 per pixel.
 */
export function pushPull(
  colour: ArrayLike<number>,
  weight: Float32Array,
  width: number,
  height: number,
  ch: number,
): Float32Array {
  interface Level {
    w: number;
    h: number;
    c: Float32Array; // premultiplied
    a: Float32Array;
  }
  const n = width * height;
  const c0 = new Float32Array(n * ch);
  const a0 = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const a = clamp01(weight[i]!);
    a0[i] = a;
    for (let k = 0; k < ch; k++) c0[i * ch + k] = colour[i * ch + k]! * a;
  }
  const levels: Level[] = [{ w: width, h: height, c: c0, a: a0 }];
  while (levels.at(-1)!.w > 1 || levels.at(-1)!.h > 1) {
    const prev = levels.at(-1)!;
    const w = Math.ceil(prev.w / 2);
    const h = Math.ceil(prev.h / 2);
    const c = new Float32Array(w * h * ch);
    const a = new Float32Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const x0 = 2 * x;
        const x1 = Math.min(prev.w - 1, x0 + 1);
        const y0 = 2 * y;
        const y1 = Math.min(prev.h - 1, y0 + 1);
        const p00 = y0 * prev.w + x0;
        const p10 = y0 * prev.w + x1;
        const p01 = y1 * prev.w + x0;
        const p11 = y1 * prev.w + x1;
        const sa = prev.a[p00]! + prev.a[p10]! + prev.a[p01]! + prev.a[p11]!;
        const q = y * w + x;
        // Average of the block, then renormalised so a block with any weight is fully known.
        if (sa > 0) {
          const na = Math.min(1, sa);
          a[q] = na;
          const f = na / sa;
          for (let k = 0; k < ch; k++) {
            c[q * ch + k] =
              (prev.c[p00 * ch + k]! + prev.c[p10 * ch + k]! + prev.c[p01 * ch + k]! + prev.c[p11 * ch + k]!) * f;
          }
        }
      }
    }
    levels.push({ w, h, c, a });
  }
  // Pull: fill each level from the (already filled) coarser one, bilinear.
  for (let l = levels.length - 2; l >= 0; l--) {
    const fine = levels[l]!;
    const coarse = levels[l + 1]!;
    const { w, h } = fine;
    for (let y = 0; y < h; y++) {
      const cy = Math.min(coarse.h - 1, Math.max(0, (y + 0.5) / 2 - 0.5));
      const y0 = Math.floor(cy);
      const y1 = Math.min(coarse.h - 1, y0 + 1);
      const fy = cy - y0;
      for (let x = 0; x < w; x++) {
        const q = y * w + x;
        const a = fine.a[q]!;
        if (a >= 1) {
          continue;
        }
        const cx = Math.min(coarse.w - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
        const x0 = Math.floor(cx);
        const x1 = Math.min(coarse.w - 1, x0 + 1);
        const fx = cx - x0;
        const w00 = (1 - fx) * (1 - fy);
        const w10 = fx * (1 - fy);
        const w01 = (1 - fx) * fy;
        const w11 = fx * fy;
        const p00 = y0 * coarse.w + x0;
        const p10 = y0 * coarse.w + x1;
        const p01 = y1 * coarse.w + x0;
        const p11 = y1 * coarse.w + x1;
        for (let k = 0; k < ch; k++) {
          const up =
            coarse.c[p00 * ch + k]! * w00 +
            coarse.c[p10 * ch + k]! * w10 +
            coarse.c[p01 * ch + k]! * w01 +
            coarse.c[p11 * ch + k]! * w11;
          fine.c[q * ch + k] = fine.c[q * ch + k]! + (1 - a) * up;
        }
        fine.a[q] = 1;
      }
    }
  }
  // Level 0 is now premultiplied with alpha 1 where it was filled; where the weight was 1 it is
  // the colour itself. (A fully unweighted image stays 0.)
  return levels[0]!.c;
}

/**
 * A box grown by `gx` × `gy` px on each side and clipped to the `W`×`H` image ([x0, x1) × [y0, y1)),
 * with the sampling step that visits about 20,000 of its pixels.
 */
export function aroundBox(
  box: { left: number; top: number; width: number; height: number },
  gx: number,
  gy: number,
  W: number,
  H: number,
): { x0: number; x1: number; y0: number; y1: number; step: number } {
  const x0 = Math.max(0, box.left - gx);
  const x1 = Math.min(W, box.left + box.width + gx);
  const y0 = Math.max(0, box.top - gy);
  const y1 = Math.min(H, box.top + box.height + gy);
  const step = Math.max(1, Math.floor(Math.sqrt(((x1 - x0) * (y1 - y0)) / 20_000)));
  return { x0, x1, y0, y1, step };
}

/** The 4-neighbours of pixel `p` of a `width`×`height` grid (left, right, up, down), −1 where outside. */
export function neighbours4(p: number, width: number, height: number): number[] {
  const x = p % width;
  const y = (p - x) / width;
  return [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, y > 0 ? p - width : -1, y < height - 1 ? p + width : -1];
}

/** A 32-bit hash of numbers (FNV-1a over their 32-bit words), for seeding per purpose. */
export function hashSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    let v = Math.floor(part) >>> 0;
    for (let i = 0; i < 4; i++) {
      h ^= v & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
      v >>>= 8;
    }
  }
  return h >>> 0;
}

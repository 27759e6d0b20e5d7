/**
 * Small raster operations over row-major float/byte planes for the critique features: area-average
 * resizing, separable Gaussian blur, a chamfer distance transform and connected components. Pure,
 * deterministic, no allocation beyond the returned arrays and one scratch row or plane.
 */

/** Fills `row` (source width × channels floats) with source row `y`. */
export type RowReader = (y: number, row: Float32Array) => void;

interface Taps {
  start: Int32Array;
  count: Int32Array;
  weight: Float64Array;
  stride: number;
}

/**
 * For each of `dst` output cells, the source cells its interval `[j·s, (j+1)·s)` (s = src/dst)
 * overlaps and the normalised overlap of each: an exact box (area) filter when shrinking, and
 * nearest-cell replication when enlarging.
 */
function taps(src: number, dst: number): Taps {
  const s = src / dst;
  const stride = Math.ceil(s) + 1;
  const start = new Int32Array(dst);
  const count = new Int32Array(dst);
  const weight = new Float64Array(dst * stride);
  for (let j = 0; j < dst; j++) {
    const a = j * s;
    const b = Math.min(src, (j + 1) * s);
    const i0 = Math.floor(a);
    const i1 = Math.min(src, Math.ceil(b));
    start[j] = i0;
    count[j] = i1 - i0;
    for (let i = i0; i < i1; i++) weight[j * stride + i - i0] = (Math.min(b, i + 1) - Math.max(a, i)) / (b - a);
  }
  return { start, count, weight, stride };
}

/**
 * Resizes a `sw` × `sh` image of `channels` interleaved floats to `dw` × `dh` by area averaging
 * (separable: each source row is read once through `read`, shrunk horizontally and added straight
 * into the output rows it overlaps). Output: `dw × dh × channels` floats, interleaved.
 */
export function areaResize(
  read: RowReader,
  sw: number,
  sh: number,
  channels: number,
  dw: number,
  dh: number,
): Float32Array {
  const tx = taps(sw, dw);
  const ty = taps(sh, dh);
  // For each source row, the output rows it feeds and with what weight.
  const feeds: { j: number; w: number }[][] = Array.from({ length: sh }, () => []);
  for (let j = 0; j < dh; j++) {
    for (let k = 0; k < ty.count[j]!; k++) {
      const w = ty.weight[j * ty.stride + k]!;
      if (w > 0) feeds[ty.start[j]! + k]!.push({ j, w });
    }
  }
  const row = new Float32Array(sw * channels);
  const line = new Float32Array(dw * channels);
  const out = new Float32Array(dw * dh * channels);
  const rowLen = dw * channels;
  const { start, count, weight, stride } = tx;
  for (let y = 0; y < sh; y++) {
    const targets = feeds[y]!;
    if (targets.length === 0) continue;
    read(y, row);
    if (channels === 3) {
      for (let j = 0; j < dw; j++) {
        let i = start[j]! * 3;
        const n = count[j]!;
        const w0 = j * stride;
        let a0 = 0;
        let a1 = 0;
        let a2 = 0;
        for (let k = 0; k < n; k++, i += 3) {
          const w = weight[w0 + k]!;
          a0 += row[i]! * w;
          a1 += row[i + 1]! * w;
          a2 += row[i + 2]! * w;
        }
        line[j * 3] = a0;
        line[j * 3 + 1] = a1;
        line[j * 3 + 2] = a2;
      }
    } else {
      for (let j = 0; j < dw; j++) {
        const s0 = start[j]!;
        const n = count[j]!;
        const w0 = j * stride;
        for (let c = 0; c < channels; c++) {
          let acc = 0;
          for (let k = 0; k < n; k++) acc += row[(s0 + k) * channels + c]! * weight[w0 + k]!;
          line[j * channels + c] = acc;
        }
      }
    }
    for (const { j, w } of targets) {
      const ob = j * rowLen;
      for (let i = 0; i < rowLen; i++) out[ob + i] = out[ob + i]! + line[i]! * w;
    }
  }
  return out;
}

/** A row reader over an interleaved float plane. */
export const floatRows =
  (data: Float32Array, width: number, channels: number): RowReader =>
  (y, row) => {
    row.set(data.subarray(y * width * channels, (y + 1) * width * channels));
  };

/** Separable Gaussian blur (kernel truncated at 3σ, borders clamped). One channel. */
export function gaussianBlur(src: ArrayLike<number>, width: number, height: number, sigma: number): Float32Array {
  const out = new Float32Array(width * height);
  if (sigma <= 0) {
    for (let i = 0; i < out.length; i++) out[i] = src[i]!;
    return out;
  }
  const r = Math.max(1, Math.ceil(3 * sigma));
  const kernel = new Float64Array(2 * r + 1);
  let sum = 0;
  for (let i = -r; i <= r; i++) {
    const v = Math.exp(-(i * i) / (2 * sigma * sigma));
    kernel[i + r] = v;
    sum += v;
  }
  for (let i = 0; i < kernel.length; i++) kernel[i] = kernel[i]! / sum;
  const tmp = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const b = y * width;
    for (let x = 0; x < width; x++) {
      let acc = 0;
      for (let k = -r; k <= r; k++) {
        const xx = x + k < 0 ? 0 : x + k >= width ? width - 1 : x + k;
        acc += src[b + xx]! * kernel[k + r]!;
      }
      tmp[b + x] = acc;
    }
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let acc = 0;
      for (let k = -r; k <= r; k++) {
        const yy = y + k < 0 ? 0 : y + k >= height ? height - 1 : y + k;
        acc += tmp[yy * width + x]! * kernel[k + r]!;
      }
      out[y * width + x] = acc;
    }
  }
  return out;
}

/** Sets to 1 every zero pixel not connected (4-neighbours) to the frame border: fills holes. */
export function fillHoles(binary: Uint8Array, width: number, height: number): Uint8Array {
  const outside = new Uint8Array(width * height);
  const stack: number[] = [];
  const seed = (i: number) => {
    if (!binary[i] && !outside[i]) {
      outside[i] = 1;
      stack.push(i);
    }
  };
  for (let x = 0; x < width; x++) {
    seed(x);
    seed((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    seed(y * width);
    seed(y * width + width - 1);
  }
  while (stack.length > 0) {
    const i = stack.pop()!;
    const x = i % width;
    if (x > 0) seed(i - 1);
    if (x < width - 1) seed(i + 1);
    if (i >= width) seed(i - width);
    if (i < width * (height - 1)) seed(i + width);
  }
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = outside[i] ? 0 : 1;
  return out;
}

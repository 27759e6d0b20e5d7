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

/**
 * Approximate Euclidean distance (3-4 chamfer, in pixels) from every pixel to the nearest pixel
 * where `inside[i]` is non-zero; 0 inside. With no inside pixel at all, every distance is Infinity.
 */
export function chamferDistance(inside: Uint8Array, width: number, height: number): Float32Array {
  const INF = 1e9;
  const d = new Float64Array(width * height);
  for (let i = 0; i < d.length; i++) d[i] = inside[i] ? 0 : INF;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      let v = d[i]!;
      if (v === 0) continue;
      if (x > 0) v = Math.min(v, d[i - 1]! + 3);
      if (y > 0) {
        v = Math.min(v, d[i - width]! + 3);
        if (x > 0) v = Math.min(v, d[i - width - 1]! + 4);
        if (x < width - 1) v = Math.min(v, d[i - width + 1]! + 4);
      }
      d[i] = v;
    }
  }
  for (let y = height - 1; y >= 0; y--) {
    for (let x = width - 1; x >= 0; x--) {
      const i = y * width + x;
      let v = d[i]!;
      if (v === 0) continue;
      if (x < width - 1) v = Math.min(v, d[i + 1]! + 3);
      if (y < height - 1) {
        v = Math.min(v, d[i + width]! + 3);
        if (x < width - 1) v = Math.min(v, d[i + width + 1]! + 4);
        if (x > 0) v = Math.min(v, d[i + width - 1]! + 4);
      }
      d[i] = v;
    }
  }
  const out = new Float32Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = d[i]! >= INF ? Number.POSITIVE_INFINITY : d[i]! / 3;
  return out;
}

export interface Component {
  /** Label in `labels` (1-based). */
  label: number;
  area: number;
  /** Sum of the weight plane over the component (its area when no weights are given). */
  mass: number;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Connected components (8-connected) of the non-zero pixels of `binary`, in scan order of their
 * first pixel. `weights` (same size) gives each component's `mass`.
 */
export function components(
  binary: Uint8Array,
  width: number,
  height: number,
  weights?: ArrayLike<number>,
): { labels: Int32Array; list: Component[] } {
  const labels = new Int32Array(width * height);
  const list: Component[] = [];
  const stack: number[] = [];
  for (let start = 0; start < binary.length; start++) {
    if (!binary[start] || labels[start]) continue;
    const label = list.length + 1;
    const c: Component = { label, area: 0, mass: 0, left: width, top: height, right: -1, bottom: -1 };
    labels[start] = label;
    stack.push(start);
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      c.area++;
      c.mass += weights ? weights[i]! : 1;
      if (x < c.left) c.left = x;
      if (x > c.right) c.right = x;
      if (y < c.top) c.top = y;
      if (y > c.bottom) c.bottom = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width || (dx === 0 && dy === 0)) continue;
          const j = yy * width + xx;
          if (binary[j] && !labels[j]) {
            labels[j] = label;
            stack.push(j);
          }
        }
      }
    }
    list.push(c);
  }
  return { labels, list };
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

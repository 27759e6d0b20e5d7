/**
 * A small radix-2 complex FFT (iterative Cooley–Tukey, in place) in one and two dimensions, for the
 * spectral-residual saliency map. Pure and deterministic; sizes must be powers of two. The forward
 * transform is unscaled and the inverse divides by the element count, so `inverse(forward(x)) = x`.
 */

export const isPowerOfTwo = (n: number): boolean => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

interface Plan {
  rev: Uint32Array;
  cos: Float64Array;
  sin: Float64Array;
}

const plans = new Map<number, Plan>();

/** Bit-reversal permutation and twiddle factors (cos, sin of 2πk/n for k < n/2), cached per size. */
function plan(n: number): Plan {
  let p = plans.get(n);
  if (p) return p;
  if (!isPowerOfTwo(n)) throw new RangeError(`FFT size must be a power of two, got ${n}`);
  const bits = Math.round(Math.log2(n));
  const rev = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) r |= ((i >>> b) & 1) << (bits - 1 - b);
    rev[i] = r;
  }
  const half = n >> 1;
  const cos = new Float64Array(half);
  const sin = new Float64Array(half);
  for (let k = 0; k < half; k++) {
    cos[k] = Math.cos((2 * Math.PI * k) / n);
    sin[k] = Math.sin((2 * Math.PI * k) / n);
  }
  p = { rev, cos, sin };
  plans.set(n, p);
  return p;
}

/**
 * In-place FFT of `n` complex values read from `re`/`im` at `offset + i * stride`. `inverse` uses
 * the conjugate twiddles and scales by 1/n.
 */
export function fft1d(
  re: Float64Array,
  im: Float64Array,
  inverse = false,
  n = re.length,
  offset = 0,
  stride = 1,
): void {
  if (n <= 1) return;
  const { rev, cos, sin } = plan(n);
  for (let i = 0; i < n; i++) {
    const j = rev[i]!;
    if (j > i) {
      const a = offset + i * stride;
      const b = offset + j * stride;
      const tr = re[a]!;
      re[a] = re[b]!;
      re[b] = tr;
      const ti = im[a]!;
      im[a] = im[b]!;
      im[b] = ti;
    }
  }
  const sign = inverse ? 1 : -1;
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step]!;
        const wi = sign * sin[k * step]!;
        const a = offset + (start + k) * stride;
        const b = a + half * stride;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
      }
    }
  }
  if (inverse) {
    for (let i = 0; i < n; i++) {
      const a = offset + i * stride;
      re[a] = re[a]! / n;
      im[a] = im[a]! / n;
    }
  }
}

/**
 * In-place 2D FFT of a `width` × `height` row-major complex array (both powers of two): every row,
 * then every column. `inverse` scales by 1/(width·height) overall.
 */
export function fft2d(re: Float64Array, im: Float64Array, width: number, height: number, inverse = false): void {
  if (re.length !== width * height || im.length !== width * height) {
    throw new RangeError(`FFT buffers must hold ${width}x${height} values`);
  }
  for (let y = 0; y < height; y++) fft1d(re, im, inverse, width, y * width, 1);
  for (let x = 0; x < width; x++) fft1d(re, im, inverse, height, x, width);
}

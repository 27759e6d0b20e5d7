/** Raster helpers the engine families share. */

/**
 * The bounding box (`l`..`r`, `t`..`b`, inclusive) of the pixels of a `w`×`h` grid that `keep`
 * (given the pixel's index) accepts; undefined when it accepts none.
 */
export function boundsWhere(
  w: number,
  h: number,
  keep: (i: number) => boolean,
): { l: number; t: number; r: number; b: number } | undefined {
  let l = w;
  let t = h;
  let r = -1;
  let b = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!keep(y * w + x)) continue;
      if (x < l) l = x;
      if (x > r) r = x;
      if (y < t) t = y;
      if (y > b) b = y;
    }
  }
  return r < 0 ? undefined : { l, t, r, b };
}

/** A connected component of a mask (components). */
export interface Component {
  /** Its label in `labels` (1-based, in scan order of its first pixel). */
  label: number;
  area: number;
  /** Sum of the weight plane over the component (its area when no weights are given). */
  mass: number;
  /** Its bounding box, inclusive. */
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** It has a pixel on the frame's edge. */
  touchesBorder: boolean;
}

/**
 * Connected components (8-connected) of the non-zero pixels of `mask`, labelled 1.. in scan order
 * of their first pixel (`labels`: 0 off the mask). `weights` (same size) gives each one's `mass`.
 */
export function components(
  mask: Uint8Array,
  width: number,
  height: number,
  weights?: ArrayLike<number>,
): { labels: Int32Array; list: Component[] } {
  const labels = new Int32Array(mask.length);
  const list: Component[] = [];
  const queue = new Int32Array(mask.length);
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || labels[start]) continue;
    const label = list.length + 1;
    const c: Component = {
      label,
      area: 0,
      mass: 0,
      left: width,
      top: height,
      right: -1,
      bottom: -1,
      touchesBorder: false,
    };
    let head = 0;
    let tail = 0;
    labels[start] = label;
    queue[tail++] = start;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      const y = (p - x) / width;
      c.mass += weights ? weights[p]! : 1;
      if (x < c.left) c.left = x;
      if (x > c.right) c.right = x;
      if (y < c.top) c.top = y;
      if (y > c.bottom) c.bottom = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const q = yy * width + xx;
          if (mask[q] && !labels[q]) {
            labels[q] = label;
            queue[tail++] = q;
          }
        }
      }
    }
    c.area = tail;
    c.touchesBorder = c.left === 0 || c.top === 0 || c.right === width - 1 || c.bottom === height - 1;
    list.push(c);
  }
  return { labels, list };
}

/**
 * Approximate Euclidean distance (3-4 chamfer, px) from every pixel to the nearest non-zero pixel
 * of `sources` (0 on them), at most `cap`. Outside the frame is not a source. With no source at
 * all, every distance is `cap` (Infinity by default).
 */
export function chamferDistance(sources: Uint8Array, width: number, height: number, cap = Infinity): Float32Array {
  const FAR = 1e9;
  const d = new Int32Array(width * height);
  for (let i = 0; i < d.length; i++) d[i] = sources[i] ? 0 : FAR;
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
  const out = new Float32Array(d.length);
  for (let i = 0; i < out.length; i++) out[i] = d[i]! >= FAR ? cap : Math.min(cap, d[i]! / 3);
  return out;
}

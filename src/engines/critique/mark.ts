/**
 * Brand mark on the product: where a logo (or any printed mark) sits on the product itself, measured
 * on the analysis copy inside the product mask. Pure and deterministic.
 *
 * Detector (always): the product's pixels are split into regions of smoothly varying colour
 * (4-neighbours joined while ΔE76 < `MARK_JOIN_DELTA_E`, so folds and shading stay one region and a
 * printed edge splits). A region is a mark part when it does not touch the product's outline (a
 * brim, a second product, a hand do), holds between `MARK_MIN_PIXELS` pixels and 60% of the
 * product, and differs from the product around it (its box grown by 3 px, product pixels of other
 * regions) by ΔE76 ≥ `MARK_MIN_DELTA_E`. Parts whose boxes are within 2% of the long side are one
 * mark (the halves of a symbol, the letters of a wordmark); a mark is kept when its parts fill at
 * least 15% of its box and the box is at most 8:1.
 *
 * Asset match (with the brand's logo): the logo's shape (alpha, else its darkness) is matched by
 * normalised cross-correlation against the product region's luma at half the analysis size, over
 * widths from 6% to 90% of the product box; |NCC| (either polarity: a dark logo printed light) ≥
 * `MARK_MATCH_MIN` is a match, its box the mark.
 */
import { boundsWhere, chamferDistance } from '../shared/raster.ts';

export interface MarkBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface MarkFeature {
  /** `asset`: the brand logo matched; `detector`: a contrasting mark found; `none`. */
  source: 'asset' | 'detector' | 'none';
  count: number;
  /** Largest mark's box, share of the frame. */
  largestShare: number;
  /** Summed mark boxes, share of the frame. */
  areaShare: number;
  /** ΔE76 of the largest detected mark against the product around it (0 for an asset match). */
  deltaE: number;
  /** Best |NCC| of the brand logo on the product (0 without a logo). */
  match: number;
  /** Shares of the frame, largest first, at most 4. */
  regions: MarkBox[];
}

/** A grey template of the brand logo: `width × height`, 0..1, 1 = logo. */
export interface LogoTemplate {
  data: Float32Array;
  width: number;
  height: number;
}

export const MARK_JOIN_DELTA_E = 10;
export const MARK_MIN_DELTA_E = 25;
export const MARK_MIN_PIXELS = 12;
export const MARK_MATCH_MIN = 0.6;

const NONE: MarkFeature = { source: 'none', count: 0, largestShare: 0, areaShare: 0, deltaE: 0, match: 0, regions: [] };

interface Region {
  area: number;
  left: number;
  top: number;
  right: number;
  bottom: number;
  touches: boolean;
  lab: [number, number, number];
}

/** Regions of smoothly varying colour inside the product. */
function regionsOf(
  lab: Float32Array,
  inside: Uint8Array,
  edgeDist: Float32Array,
  w: number,
  h: number,
): { labels: Int32Array; list: Region[] } {
  const labels = new Int32Array(w * h);
  const list: Region[] = [];
  const stack: number[] = [];
  const limit = MARK_JOIN_DELTA_E * MARK_JOIN_DELTA_E;
  const near = (i: number, j: number) =>
    (lab[i * 3]! - lab[j * 3]!) ** 2 +
      (lab[i * 3 + 1]! - lab[j * 3 + 1]!) ** 2 +
      (lab[i * 3 + 2]! - lab[j * 3 + 2]!) ** 2 <
    limit;
  for (let start = 0; start < w * h; start++) {
    if (!inside[start] || labels[start]) continue;
    const label = list.length + 1;
    const r: Region = { area: 0, left: w, top: h, right: -1, bottom: -1, touches: false, lab: [0, 0, 0] };
    const sum: [number, number, number] = [0, 0, 0];
    labels[start] = label;
    stack.push(start);
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      r.area++;
      sum[0] += lab[i * 3]!;
      sum[1] += lab[i * 3 + 1]!;
      sum[2] += lab[i * 3 + 2]!;
      if (edgeDist[i]! <= 1.5) r.touches = true;
      if (x < r.left) r.left = x;
      if (x > r.right) r.right = x;
      if (y < r.top) r.top = y;
      if (y > r.bottom) r.bottom = y;
      const next = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1];
      for (const j of next) {
        if (j < 0 || !inside[j] || labels[j] || !near(i, j)) continue;
        labels[j] = label;
        stack.push(j);
      }
    }
    r.lab = [sum[0] / r.area, sum[1] / r.area, sum[2] / r.area];
    list.push(r);
  }
  return { labels, list };
}

/** Contrasting marks inside the product (see the module comment). */
function detect(lab: Float32Array, inside: Uint8Array, w: number, h: number): MarkFeature {
  let insideCount = 0;
  for (let i = 0; i < w * h; i++) insideCount += inside[i]!;
  if (insideCount === 0) return NONE;
  const outside = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) outside[i] = inside[i] ? 0 : 1;
  // Distance to the nearest pixel off the product; the frame's edge counts as off it too.
  const edgeDist = chamferDistance(outside, w, h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      edgeDist[i] = Math.min(edgeDist[i]!, x + 1, y + 1, w - x, h - y);
    }
  }
  const { labels, list } = regionsOf(lab, inside, edgeDist, w, h);
  const parts: { r: Region; deltaE: number }[] = [];
  const candidate = new Uint8Array(list.length + 1);
  list.forEach((r, k) => {
    if (!r.touches && r.area >= MARK_MIN_PIXELS && r.area <= 0.6 * insideCount) candidate[k + 1] = 1;
  });
  list.forEach((r, k) => {
    if (!candidate[k + 1]) return;
    const s: [number, number, number] = [0, 0, 0];
    let c = 0;
    for (let y = Math.max(0, r.top - 3); y <= Math.min(h - 1, r.bottom + 3); y++) {
      for (let x = Math.max(0, r.left - 3); x <= Math.min(w - 1, r.right + 3); x++) {
        const i = y * w + x;
        const l = labels[i]!;
        if (!inside[i] || l === k + 1 || candidate[l]) continue;
        s[0] += lab[i * 3]!;
        s[1] += lab[i * 3 + 1]!;
        s[2] += lab[i * 3 + 2]!;
        c++;
      }
    }
    if (c < 4) return;
    const deltaE = Math.hypot(r.lab[0] - s[0] / c, r.lab[1] - s[1] / c, r.lab[2] - s[2] / c);
    if (deltaE >= MARK_MIN_DELTA_E) parts.push({ r, deltaE });
  });
  if (parts.length === 0) return NONE;
  // Group parts whose boxes are close.
  const gap = Math.max(2, 0.02 * Math.max(w, h));
  const group = parts.map((_, k) => k);
  const find = (k: number): number => {
    let r = k;
    while (group[r] !== r) r = group[r]!;
    group[k] = r;
    return r;
  };
  for (let a = 0; a < parts.length; a++) {
    for (let b = a + 1; b < parts.length; b++) {
      const A = parts[a]!.r;
      const B = parts[b]!.r;
      const dx = Math.max(0, Math.max(A.left, B.left) - Math.min(A.right, B.right) - 1);
      const dy = Math.max(0, Math.max(A.top, B.top) - Math.min(A.bottom, B.bottom) - 1);
      if (dx <= gap && dy <= gap) group[find(a)] = find(b);
    }
  }
  const marks = new Map<number, { left: number; top: number; right: number; bottom: number; px: number; dE: number }>();
  parts.forEach(({ r, deltaE }, k) => {
    const g = find(k);
    const m = marks.get(g) ?? { left: w, top: h, right: -1, bottom: -1, px: 0, dE: 0 };
    m.left = Math.min(m.left, r.left);
    m.top = Math.min(m.top, r.top);
    m.right = Math.max(m.right, r.right);
    m.bottom = Math.max(m.bottom, r.bottom);
    m.px += r.area;
    m.dE = Math.max(m.dE, deltaE);
    marks.set(g, m);
  });
  const kept = [...marks.values()]
    .map((m) => ({ ...m, bw: m.right + 1 - m.left, bh: m.bottom + 1 - m.top }))
    .filter((m) => m.px >= 0.15 * m.bw * m.bh && Math.max(m.bw / m.bh, m.bh / m.bw) <= 8)
    .sort((a, b) => b.bw * b.bh - a.bw * a.bh || a.top - b.top || a.left - b.left);
  if (kept.length === 0) return NONE;
  const n = w * h;
  return {
    source: 'detector',
    count: kept.length,
    largestShare: (kept[0]!.bw * kept[0]!.bh) / n,
    areaShare: kept.reduce((s, m) => s + m.bw * m.bh, 0) / n,
    deltaE: kept[0]!.dE,
    match: 0,
    regions: kept.slice(0, 4).map((m) => ({ left: m.left / w, top: m.top / h, width: m.bw / w, height: m.bh / h })),
  };
}

/** Area-average a float plane to `tw × th`. */
function shrink(src: Float32Array, w: number, h: number, tw: number, th: number): Float32Array {
  const out = new Float32Array(tw * th);
  for (let y = 0; y < th; y++) {
    const y0 = Math.floor((y * h) / th);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * h) / th));
    for (let x = 0; x < tw; x++) {
      const x0 = Math.floor((x * w) / tw);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * w) / tw));
      let s = 0;
      for (let yy = y0; yy < y1; yy++) for (let xx = x0; xx < x1; xx++) s += src[yy * w + xx]!;
      out[y * tw + x] = s / ((y1 - y0) * (x1 - x0));
    }
  }
  return out;
}

/** Best |NCC| of the logo template on the product region (see the module comment). */
function matchAsset(
  Y: Float32Array,
  inside: Uint8Array,
  w: number,
  h: number,
  logo: LogoTemplate,
): { match: number; box: MarkBox | null } {
  const bounds = boundsWhere(w, h, (i) => !!inside[i]);
  if (!bounds || logo.width < 2 || logo.height < 2) return { match: 0, box: null };
  const { l, t, r, b } = bounds;
  // Half the analysis size.
  const k = 2;
  const pw = Math.max(1, Math.floor((r + 1 - l) / k));
  const ph = Math.max(1, Math.floor((b + 1 - t) / k));
  const region = new Float32Array(pw * ph);
  for (let y = 0; y < ph; y++) {
    for (let x = 0; x < pw; x++) {
      let s = 0;
      for (let dy = 0; dy < k; dy++) for (let dx = 0; dx < k; dx++) s += Y[(t + y * k + dy) * w + l + x * k + dx]!;
      region[y * pw + x] = s / (k * k);
    }
  }
  let best = 0;
  let bestBox: MarkBox | null = null;
  const aspect = logo.height / logo.width;
  for (let step = 0; step < 10; step++) {
    const tw = Math.round(pw * (0.06 + (0.84 * step) / 9));
    const th = Math.round(tw * aspect);
    if (tw < 4 || th < 4 || tw > pw || th > ph) continue;
    const tpl = shrink(logo.data, logo.width, logo.height, tw, th);
    const m = tw * th;
    let tm = 0;
    for (let i = 0; i < m; i++) tm += tpl[i]!;
    tm /= m;
    let tv = 0;
    for (let i = 0; i < m; i++) {
      tpl[i] = tpl[i]! - tm;
      tv += tpl[i]! ** 2;
    }
    if (tv <= 1e-6) continue;
    const stride = tw > 24 ? 2 : 1;
    for (let y = 0; y + th <= ph; y += stride) {
      for (let x = 0; x + tw <= pw; x += stride) {
        let s = 0;
        let s2 = 0;
        let c = 0;
        for (let yy = 0; yy < th; yy++) {
          const row = (y + yy) * pw + x;
          for (let xx = 0; xx < tw; xx++) {
            const v = region[row + xx]!;
            s += v;
            s2 += v * v;
            c += v * tpl[yy * tw + xx]!;
          }
        }
        const iv = s2 - (s * s) / m;
        if (iv <= 1e-4 * m) continue;
        const ncc = Math.abs(c / Math.sqrt(iv * tv));
        if (ncc > best) {
          best = ncc;
          bestBox = { left: (l + x * k) / w, top: (t + y * k) / h, width: (tw * k) / w, height: (th * k) / h };
        }
      }
    }
  }
  return { match: best, box: bestBox };
}

/**
 * The mark on the product: the brand logo's match when it holds (≥ `MARK_MATCH_MIN`), else the
 * detector's marks. `lab` and `Y` are the analysis copy (L*a*b*, luma 0..1), `inside` the product.
 */
export function measureMark(
  lab: Float32Array,
  Y: Float32Array,
  inside: Uint8Array,
  w: number,
  h: number,
  logo?: LogoTemplate,
): MarkFeature {
  const found = detect(lab, inside, w, h);
  if (!logo) return found;
  const { match, box } = matchAsset(Y, inside, w, h, logo);
  if (match >= MARK_MATCH_MIN && box) {
    const share = box.width * box.height;
    return {
      source: 'asset',
      count: 1,
      largestShare: share,
      areaShare: share,
      deltaE: 0,
      match,
      regions: [box],
    };
  }
  return { ...found, match };
}

/** A logo image (1–4 channels, alpha used when present) as a template: 1 where the logo is. */
export function logoTemplate({
  data,
  width,
  height,
  channels,
}: {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}): LogoTemplate {
  const out = new Float32Array(width * height);
  let hasAlpha = false;
  if (channels === 2 || channels === 4) {
    for (let i = 0; i < width * height; i++) if (data[i * channels + channels - 1]! < 250) hasAlpha = true;
  }
  for (let i = 0; i < width * height; i++) {
    const p = i * channels;
    if (hasAlpha) out[i] = data[p + channels - 1]! / 255;
    else {
      const v = channels >= 3 ? 0.2126 * data[p]! + 0.7152 * data[p + 1]! + 0.0722 * data[p + 2]! : data[p]!;
      out[i] = 1 - v / 255;
    }
  }
  return { data: out, width, height };
}

import { createLabLookup } from '../../adapters/media/colors.ts';
import { chroma, deltaE2000, type Lab, labToRgb, toHex } from './color.ts';

/**
 * Palettes from pixels: opaque pixels are bucketed (5 bits per channel), the background is found
 * on the border and left out, and the buckets are clustered with weighted k-means in CIELAB (a
 * perceptual space, so clusters are colours a person would tell apart). Pure: works on raw RGBA.
 */
export interface PaletteColor {
  hex: string;
  /** Share of the counted pixels, 0..1. */
  share: number;
}

export interface PixelPalette {
  colors: PaletteColor[];
  /** The detected background colour, when the border was uniform. */
  background?: string;
  /** Share of opaque pixels that were background. */
  backgroundShare: number;
  /** Share of pixels that were transparent. */
  transparentShare: number;
  /** Pixel statistics for the imagery style. */
  stats: PixelStats;
}

export interface PixelStats {
  /** Mean L* (0..100). */
  meanLightness: number;
  /** Standard deviation of L*. */
  lightnessSpread: number;
  /** Mean chroma C*ab. */
  meanChroma: number;
  /** Mean b* + mean a*: positive for reds, oranges and yellows, negative for blues. */
  warmth: number;
}

interface Point {
  lab: Lab;
  weight: number;
}

/** Accumulates RGBA rasters (several video frames feed one histogram). */
export function createHistogram() {
  const counts = new Map<number, { n: number; r: number; g: number; b: number }>();
  const border = new Map<number, number>();
  let transparent = 0;
  let total = 0;
  let borderTotal = 0;
  return {
    /** Adds a raster of `width`×`height` RGBA pixels. */
    add(rgba: Uint8Array, width: number, height: number) {
      const ring = Math.max(1, Math.round(Math.min(width, height) * 0.04));
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const i = (y * width + x) * 4;
          total++;
          if (rgba[i + 3]! < 128) {
            transparent++;
            continue;
          }
          const r = rgba[i]!;
          const g = rgba[i + 1]!;
          const b = rgba[i + 2]!;
          const key = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
          const c = counts.get(key);
          if (c) {
            c.n++;
            c.r += r;
            c.g += g;
            c.b += b;
          } else counts.set(key, { n: 1, r, g, b });
          if (x < ring || y < ring || x >= width - ring || y >= height - ring) {
            border.set(key, (border.get(key) ?? 0) + 1);
            borderTotal++;
          }
        }
      }
    },
    result() {
      return { counts, border, borderTotal, transparent, total };
    },
  };
}

export type HistogramBuilder = ReturnType<typeof createHistogram>;

/** How far (ΔE2000) a pixel may be from the border colour and still count as background. */
const BACKGROUND_DE = 8;
/** Share of the border the most common colour must cover to be taken as the background. */
const BACKGROUND_BORDER_SHARE = 0.6;

export function paletteFromHistogram(h: HistogramBuilder, opts: { k?: number; max?: number } = {}): PixelPalette {
  const { counts, border, borderTotal, transparent, total } = h.result();
  const labOf = createLabLookup();
  const points: (Point & { key: number })[] = [];
  for (const [key, c] of counts) {
    points.push({ key, lab: labOf(c.r / c.n, c.g / c.n, c.b / c.n), weight: c.n });
  }
  const opaque = points.reduce((s, p) => s + p.weight, 0);
  if (opaque === 0) {
    const stats = pixelStats(points, points);
    return { colors: [], backgroundShare: 0, transparentShare: total ? transparent / total : 0, stats };
  }

  // Background: the border's dominant colour (with its close neighbours) when it covers most of
  // the border. Neutral backdrops are dropped; a coloured backdrop may be the brand colour, so it
  // stays but counts half.
  let background: Lab | undefined;
  if (borderTotal > 0) {
    const byKey = new Map(points.map((p) => [p.key, p]));
    const ranked = [...border.entries()].sort((a, b) => b[1] - a[1]);
    const top = byKey.get(ranked[0]![0])!;
    let near = 0;
    for (const [key, n] of ranked) if (deltaE2000(byKey.get(key)!.lab, top.lab) < BACKGROUND_DE) near += n;
    if (near / borderTotal >= BACKGROUND_BORDER_SHARE) background = top.lab;
  }
  let backgroundWeight = 0;
  const kept: Point[] = [];
  for (const p of points) {
    if (background && deltaE2000(p.lab, background) < BACKGROUND_DE) {
      backgroundWeight += p.weight;
      if (chroma(background) < 12) continue;
      kept.push({ lab: p.lab, weight: p.weight * 0.5 });
    } else kept.push(p);
  }
  const stats = pixelStats(points, kept);
  const clusters = kmeans(kept, opts.k ?? 8);
  const sum = clusters.reduce((s, c) => s + c.weight, 0);
  const colors = clusters
    .map((c) => ({ hex: toHex(labToRgb(c.lab)), share: sum ? c.weight / sum : 0 }))
    .filter((c) => c.share >= 0.01)
    .slice(0, opts.max ?? 6)
    .map((c) => ({ ...c, share: Math.round(c.share * 1000) / 1000 }));
  return {
    colors,
    ...(background ? { background: toHex(labToRgb(background)) } : {}),
    backgroundShare: Math.round((backgroundWeight / opaque) * 1000) / 1000,
    transparentShare: Math.round((transparent / total) * 1000) / 1000,
    stats,
  };
}

/** Lightness over every opaque pixel; chroma and warmth over the subject (background left out). */
function pixelStats(all: Point[], subject: Point[]): PixelStats {
  const total = all.reduce((s, p) => s + p.weight, 0);
  const subjectTotal = subject.reduce((s, p) => s + p.weight, 0);
  if (total === 0) return { meanLightness: 0, lightnessSpread: 0, meanChroma: 0, warmth: 0 };
  let l = 0;
  for (const p of all) l += p.lab[0] * p.weight;
  const meanL = l / total;
  let v = 0;
  for (const p of all) v += (p.lab[0] - meanL) ** 2 * p.weight;
  let c = 0;
  let warm = 0;
  for (const p of subject) {
    c += chroma(p.lab) * p.weight;
    warm += (p.lab[1] + p.lab[2]) * p.weight;
  }
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    meanLightness: r(meanL),
    lightnessSpread: r(Math.sqrt(v / total)),
    meanChroma: r(subjectTotal ? c / subjectTotal : 0),
    warmth: r(subjectTotal ? warm / subjectTotal : 0),
  };
}

/**
 * Weighted k-means in Lab. Deterministic seeding (k-means++ taking the farthest weighted point
 * each time), 12 Lloyd iterations, then clusters closer than ΔE2000 5 are merged. Largest first.
 */
export function kmeans(points: Point[], k: number): Point[] {
  if (points.length === 0) return [];
  const sorted = [...points].sort((a, b) => b.weight - a.weight);
  const centers: Lab[] = [sorted[0]!.lab];
  const d2 = (a: Lab, b: Lab) => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;
  while (centers.length < Math.min(k, sorted.length)) {
    let best: Point | undefined;
    let bestScore = 0;
    for (const p of sorted) {
      const nearest = Math.min(...centers.map((c) => d2(p.lab, c)));
      const score = nearest * p.weight;
      if (score > bestScore) {
        bestScore = score;
        best = p;
      }
    }
    if (!best) break;
    centers.push(best.lab);
  }
  let weights: number[] = [];
  for (let iter = 0; iter < 12; iter++) {
    const sums = centers.map(() => [0, 0, 0, 0]);
    for (const p of sorted) {
      let bi = 0;
      let bd = Number.POSITIVE_INFINITY;
      for (let i = 0; i < centers.length; i++) {
        const d = d2(p.lab, centers[i]!);
        if (d < bd) {
          bd = d;
          bi = i;
        }
      }
      const s = sums[bi]!;
      s[0]! += p.lab[0] * p.weight;
      s[1]! += p.lab[1] * p.weight;
      s[2]! += p.lab[2] * p.weight;
      s[3]! += p.weight;
    }
    weights = sums.map((s) => s[3]!);
    sums.forEach((s, i) => {
      if (s[3]! > 0) centers[i] = [s[0]! / s[3]!, s[1]! / s[3]!, s[2]! / s[3]!];
    });
  }
  let clusters = centers.map((lab, i) => ({ lab, weight: weights[i] ?? 0 })).filter((c) => c.weight > 0);
  clusters.sort((a, b) => b.weight - a.weight);
  const merged: Point[] = [];
  for (const c of clusters) {
    const into = merged.find((m) => deltaE2000(m.lab, c.lab) < 5);
    if (into) {
      const w = into.weight + c.weight;
      into.lab = [0, 1, 2].map((j) => (into.lab[j]! * into.weight + c.lab[j]! * c.weight) / w) as Lab;
      into.weight = w;
    } else merged.push({ ...c });
  }
  clusters = merged.sort((a, b) => b.weight - a.weight);
  return clusters;
}

/** Words for a set of pixel statistics (the imagery style). */
export function imageryStyle(stats: PixelStats, backgroundShare: number, transparentShare: number): string[] {
  const out: string[] = [];
  if (stats.meanLightness >= 70) out.push('bright');
  else if (stats.meanLightness <= 35) out.push('dark');
  if (stats.meanChroma >= 35) out.push('vibrant');
  else if (stats.meanChroma < 8) out.push('monochrome');
  else if (stats.meanChroma < 18) out.push('muted');
  if (stats.lightnessSpread >= 30) out.push('high-contrast');
  else if (stats.lightnessSpread <= 12) out.push('soft');
  if (stats.warmth >= 12) out.push('warm');
  else if (stats.warmth <= -8) out.push('cool');
  if (backgroundShare + transparentShare >= 0.45) out.push('minimal');
  if (transparentShare >= 0.2) out.push('cut-out');
  return out;
}

/**
 * Framing and depth layers of the local video engine (pure).
 *
 * - Depth: every layer of a still moves by the camera plan at its depth: 0 moves with the camera
 *   (the wall), 1 with the product (the plan's `parallax` over again), floor bands in between
 *   and beyond, as a ground plane does (a floor row's depth grows with its distance below the
 *   horizon, 1 at the product's base, so the product stands still on it).
 * - Framing: where the start frame lies in the output frame (`Fit`): the cover crop that keeps
 *   the product's box inside every moment of its layer's view, else the picture fitted smaller
 *   around the product and the backdrop extended to fill the frame; never the product cropped.
 *
 * Coordinates are output px of the picture (the frame at zoom 1), y down.
 */
import { clamp, smooth01 } from '../shared/math.ts';
import { type CameraMove, type CameraPlan, ease, planCamera } from './camera.ts';

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A layer's view at one key: its zoom and the picture point at the frame's centre (px). */
export interface LayerKey {
  at: number;
  zoom: number;
  cx: number;
  cy: number;
}

/** A layer's zoom never goes below this (a floor band far in front of the product on an orbit). */
const MIN_ZOOM = 0.5;
/** Moments sampled across the clip to bound a layer's views. */
const SAMPLES = 48;

/**
 * The plan's keys as a layer at `depth` sees them: its zoom and offsets part from the plan's rest
 * pose f times as far as the camera's, f = 1 + parallax·depth.
 */
export function layerKeys(plan: CameraPlan, depth: number, width: number, height: number): LayerKey[] {
  const { rest } = plan;
  return plan.keys.map((k) => {
    const f = 1 + k.parallax * depth;
    return {
      at: k.at,
      zoom: Math.max(MIN_ZOOM, rest.zoom + (k.zoom - rest.zoom) * f),
      cx: width * (0.5 + rest.x + (k.x - rest.x) * f),
      cy: height * (0.5 + rest.y + (k.y - rest.y) * f),
    };
  });
}

/** A layer's view at u (0..1 of the clip): eased interpolation between its keys, as the ffmpeg expressions do. */
export function sampleLayer(keys: LayerKey[], easing: CameraPlan['easing'], u: number): Omit<LayerKey, 'at'> {
  const first = keys[0] as LayerKey;
  const last = keys.at(-1) as LayerKey;
  if (u <= first.at) return { zoom: first.zoom, cx: first.cx, cy: first.cy };
  if (u >= last.at) return { zoom: last.zoom, cx: last.cx, cy: last.cy };
  let i = 0;
  while (i < keys.length - 2 && u > (keys[i + 1] as LayerKey).at) i++;
  const a = keys[i] as LayerKey;
  const b = keys[i + 1] as LayerKey;
  const p = ease(easing, (u - a.at) / Math.max(1e-9, b.at - a.at));
  const lerp = (from: number, to: number) => from + (to - from) * p;
  return { zoom: lerp(a.zoom, b.zoom), cx: lerp(a.cx, b.cx), cy: lerp(a.cy, b.cy) };
}

function samples(plan: CameraPlan, depth: number, width: number, height: number): Omit<LayerKey, 'at'>[] {
  const keys = layerKeys(plan, depth, width, height);
  const us = new Set<number>(keys.map((k) => k.at));
  for (let i = 0; i <= SAMPLES; i++) us.add(i / SAMPLES);
  return [...us].sort((a, b) => a - b).map((u) => sampleLayer(keys, plan.easing, u));
}

const right = (r: Rect) => r.left + r.width;
const bottom = (r: Rect) => r.top + r.height;

function union(rects: Rect[]): Rect {
  const l = Math.min(...rects.map((r) => r.left));
  const t = Math.min(...rects.map((r) => r.top));
  return { left: l, top: t, width: Math.max(...rects.map(right)) - l, height: Math.max(...rects.map(bottom)) - t };
}

/** The part of the picture a layer at `depth` shows during the whole clip (px; the intersection of its views). */
export function safeRect(plan: CameraPlan, depth: number, width: number, height: number): Rect {
  let l = Number.NEGATIVE_INFINITY;
  let t = Number.NEGATIVE_INFINITY;
  let r = Number.POSITIVE_INFINITY;
  let b = Number.POSITIVE_INFINITY;
  for (const v of samples(plan, depth, width, height)) {
    l = Math.max(l, v.cx - width / (2 * v.zoom));
    r = Math.min(r, v.cx + width / (2 * v.zoom));
    t = Math.max(t, v.cy - height / (2 * v.zoom));
    b = Math.min(b, v.cy + height / (2 * v.zoom));
  }
  return { left: l, top: t, width: Math.max(0, r - l), height: Math.max(0, b - t) };
}

/**
 * Where a layer goes in the frame and what it reads: `place`, the frame px its stream covers
 * (the content's image over the whole clip, clipped to the frame, whole px, at least a tenth of
 * the frame a side), and `window`, the
 * picture px that `place` shows over the clip (their union, at `place`'s aspect ratio, whole px).
 * Undefined when the content never shows.
 */
export function layerGeometry(
  plan: CameraPlan,
  depth: number,
  width: number,
  height: number,
  content: Rect,
): { place: Rect; window: Rect } | undefined {
  const views = samples(plan, depth, width, height);
  const images = views.map((v) => ({
    left: (content.left - v.cx) * v.zoom + width / 2,
    top: (content.top - v.cy) * v.zoom + height / 2,
    width: content.width * v.zoom,
    height: content.height * v.zoom,
  }));
  const seen = union(images);
  let x0 = Math.max(0, Math.floor(seen.left) - 2);
  let y0 = Math.max(0, Math.floor(seen.top) - 2);
  let x1 = Math.min(width, Math.ceil(right(seen)) + 2);
  let y1 = Math.min(height, Math.ceil(bottom(seen)) + 2);
  if (x1 - x0 < 2 || y1 - y0 < 2) return undefined;
  // A sliver (a band's last rows) is widened past the frame's edge (the overlay clips it), so its
  // window keeps to the picture it shows rather than stretching to a sliver's aspect ratio.
  const least = Math.round(0.1 * Math.min(width, height));
  if (x1 - x0 < least) [x0, x1] = x0 === 0 ? [x1 - least, x1] : [x0, x0 + least];
  if (y1 - y0 < least) [y0, y1] = y0 === 0 ? [y1 - least, y1] : [y0, y0 + least];
  const place = { left: x0, top: y0, width: x1 - x0, height: y1 - y0 };
  const windows = views.map((v) => ({
    left: v.cx + (place.left - width / 2) / v.zoom,
    top: v.cy + (place.top - height / 2) / v.zoom,
    width: place.width / v.zoom,
    height: place.height / v.zoom,
  }));
  const u = union(windows);
  // Whole px with a pixel to spare, then widened or heightened to the place's aspect ratio.
  let w = Math.ceil(right(u) + 1) - Math.floor(u.left - 1);
  let h = Math.ceil(bottom(u) + 1) - Math.floor(u.top - 1);
  const aspect = place.width / place.height;
  if (w / h < aspect) w = Math.ceil(h * aspect);
  else h = Math.ceil(w / aspect);
  const cx = u.left + u.width / 2;
  const cy = u.top + u.height / 2;
  return { place, window: { left: Math.floor(cx - w / 2), top: Math.floor(cy - h / 2), width: w, height: h } };
}

/** Where the source picture lies in the output frame: output = source × scale + (left, top). */
export interface Fit {
  scale: number;
  left: number;
  top: number;
  /** Part of the frame is not covered by the picture (its backdrop is extended there). */
  extended: boolean;
}

export interface FitInput {
  source: { width: number; height: number };
  out: { width: number; height: number };
  /** The product's box in source px (absent: a centred cover crop). */
  box?: Rect;
  /** Sides where the box meets the source's edge: the product is cut there already, so they are not kept inside. */
  touches?: { left?: boolean; top?: boolean; right?: boolean; bottom?: boolean };
  /** Output px the product must stay inside (its layer's safe rect). */
  safe: Rect;
  /** Free px kept around the product. */
  margin: number;
}

/** The offsets on one axis that keep the box inside the safe span at `scale`. */
function keepRange(
  b0: number,
  b1: number,
  s0: number,
  s1: number,
  margin: number,
  scale: number,
  touch0: boolean,
  touch1: boolean,
): [number, number] {
  return [
    touch0 ? Number.NEGATIVE_INFINITY : s0 + margin - scale * b0,
    touch1 ? Number.POSITIVE_INFINITY : s1 - margin - scale * b1,
  ];
}

/**
 * The framing (pure): a cover crop (the picture scaled to fill the frame) placed as near the
 * centre as keeps the product's box with its margin inside the safe rect; when no cover crop
 * does, the largest scale at which the box fits, placed to cover as much of the frame as it can
 * (the rest is extended backdrop). Offsets are whole px.
 */
export function chooseFit(input: FitInput): Fit {
  const { source, out, box, safe, margin } = input;
  const cover = Math.max(out.width / source.width, out.height / source.height);
  const t = input.touches ?? {};
  const axes = (scale: number) => {
    const size = { x: source.width * scale, y: source.height * scale };
    const coverRange = { x: [out.width - size.x, 0], y: [out.height - size.y, 0] };
    const keep = box
      ? {
          x: keepRange(box.left, right(box), safe.left, right(safe), margin, scale, !!t.left, !!t.right),
          y: keepRange(box.top, bottom(box), safe.top, bottom(safe), margin, scale, !!t.top, !!t.bottom),
        }
      : {
          x: [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
          y: [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
        };
    return { size, coverRange, keep };
  };
  const place = (scale: number): Fit | undefined => {
    const { size, coverRange, keep } = axes(scale);
    const pick = (axis: 'x' | 'y', length: number) => {
      const centred = (length - size[axis]) / 2;
      const [k0, k1] = keep[axis] as [number, number];
      const [c0, c1] = coverRange[axis] as [number, number];
      const lo = Math.max(k0, c0);
      const hi = Math.min(k1, c1);
      if (lo <= hi + 1e-9) return Math.round(clamp(centred, lo, hi));
      if (k0 > k1 + 1e-9) return undefined;
      // As near covering as the product allows; a picture smaller than the frame, centred.
      return Math.round(clamp(c0 <= c1 ? clamp(centred, c0, c1) : centred, k0, k1));
    };
    const left = pick('x', out.width);
    const top = pick('y', out.height);
    if (left === undefined || top === undefined) return undefined;
    const extended = left > 0.5 || top > 0.5 || left + size.x < out.width - 0.5 || top + size.y < out.height - 0.5;
    return { scale, left, top, extended };
  };
  const covered = place(cover);
  if (covered && !covered.extended) return covered;
  if (!box)
    return {
      scale: cover,
      left: Math.round((out.width - source.width * cover) / 2),
      top: Math.round((out.height - source.height * cover) / 2),
      extended: false,
    };
  // The box does not fit a cover crop: the largest scale at which it fits the safe rect.
  const limit = (span: number, size: number, both: boolean) =>
    both && size > 0 ? (span - 2 * margin) / size : Number.POSITIVE_INFINITY;
  const scale = Math.max(
    1e-3,
    Math.min(
      cover,
      limit(safe.width, box.width, !t.left && !t.right),
      limit(safe.height, box.height, !t.top && !t.bottom),
    ),
  );
  return place(scale) ?? place(scale * 0.98) ?? { scale, left: 0, top: 0, extended: true };
}

/** The move at a gentler intensity, tried when the full one would need the backdrop extended. */
const GENTLE = 0.6;

/**
 * The plan and the framing of a move on a start frame whose product's box is known (pure): the
 * camera aimed at the product where a first framing puts it, then framed for that plan (the
 * product's layer is at `depth`: 1 when it moves apart from the set, 0 when the frame moves as
 * one). When the move at full intensity cannot keep the product whole in a cover crop but a
 * gentler one can, the gentler one; when neither can, the full one with the backdrop extended.
 */
export function frameMove(
  move: CameraMove,
  input: Omit<FitInput, 'safe' | 'box'> & { box: Rect; depth: number },
): { plan: CameraPlan; fit: Fit } {
  const { out } = input;
  const attempt = (intensity: number) => {
    const fitFor = (plan: CameraPlan) =>
      chooseFit({ ...input, safe: safeRect(plan, input.depth, out.width, out.height) });
    const first = fitFor(planCamera(move, { intensity }));
    const centreX = first.left + (input.box.left + input.box.width / 2) * first.scale;
    const centreY = first.top + (input.box.top + input.box.height / 2) * first.scale;
    const plan = planCamera(move, {
      intensity,
      focus: { x: centreX / out.width - 0.5, y: centreY / out.height - 0.5 },
    });
    return { plan, fit: fitFor(plan) };
  };
  const full = attempt(1);
  if (!full.fit.extended) return full;
  const gentle = attempt(GENTLE);
  return gentle.fit.extended ? full : gentle;
}

/** A floor band: plate rows moved at one depth, faded in over its top edge. */
export interface FloorBand {
  depth: number;
  /** Rows (picture px) where its alpha rises from 0 to 1 (a smoothstep). */
  fadeTop: number;
  fadeBottom: number;
  /** Below this row (picture px) it is cut; the next band covers it. Absent for the last band. */
  end?: number;
}

/** Depth step between floor bands, and the deepest band (twice the product's parallax). */
const BAND_STEP = 1 / 3;
const MAX_DEPTH = 2;

/**
 * The floor below the horizon as bands of a ground plane (pure): a row's depth is its distance
 * below the horizon over the product's base's (so the band under the product moves with it), in
 * steps of a third up to 2, each band fading in over its top edge (the first over the horizon
 * line, softly) and cut under the next band's fade. None when the horizon is unknown or the
 * product does not stand clearly below it.
 */
export function floorBands(
  horizon: number | undefined,
  base: number,
  frameBottom: number,
  height: number,
): FloorBand[] {
  if (horizon === undefined || !Number.isFinite(horizon)) return [];
  const span = base - horizon;
  if (span < height * 0.04 || horizon >= frameBottom) return [];
  const rowAt = (depth: number) => horizon + depth * span;
  const feather = BAND_STEP * span * 0.35;
  const slack = height * 0.01 + 2;
  const bands: FloorBand[] = [];
  for (let k = 1; ; k++) {
    const depth = Math.min(MAX_DEPTH, k * BAND_STEP);
    const top = k === 1 ? horizon : rowAt((k - 0.5) * BAND_STEP);
    const soft = k === 1 ? Math.max(3, height * 0.02) : feather;
    const nextTop = rowAt((k + 0.5) * BAND_STEP);
    const last = depth >= MAX_DEPTH || nextTop - feather >= frameBottom;
    bands.push({
      depth,
      fadeTop: top - soft,
      fadeBottom: top + soft,
      ...(last ? {} : { end: nextTop + feather + slack }),
    });
    if (last) return bands;
  }
}

/** A band's alpha (0..1) at a picture row. */
export function bandAlpha(band: FloorBand, y: number): number {
  if (band.end !== undefined && y >= band.end) return 0;
  return smooth01((y - band.fadeTop) / Math.max(1e-9, band.fadeBottom - band.fadeTop));
}

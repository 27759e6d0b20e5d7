/**
 * Scene layouts of the local engine (pure): where the products stand, how big, where the floor
 * line and the camera are and where the light comes from, for each of a forge's four variations.
 * Each variation is the shot of the same index (../../environment/shot.ts), the one the
 * environment engine built the set for: the products stand where its props left room, and the
 * backdrop's own floor line and light (its hints) win over the shot's defaults.
 *
 *   0 centre        centred group, medium size, camera at mid height, key from the right
 *   1 thirds-left   group on the left third, smaller, high camera, low hard key from the left
 *   2 thirds-right  group on the right third, smaller, camera a little lower, high soft key, left
 *   3 low-hero      large centred hero, low camera (floor line low), soft key almost overhead
 *
 * Products (1..5) stand as one group: the first (the hero) in front in the middle, the others
 * alternately to its right and left, each row a little smaller and further back (its base higher),
 * neighbours overlapping slightly. Sizes come from a target area (so a cap and a bottle read alike),
 * bounded by the frame; the whole group is scaled to keep the margins, so nothing is cut by the
 * frame edge. A product whose own image cuts it at the bottom (a cropped torso) stands on the
 * frame's bottom edge instead, where the cut is hidden.
 */
import { elevationOf, lightAngleOf, shotFor } from '../../environment/shot.ts';
import type { BackdropHints, PlacedBox, SetLight } from '../scene-engine.ts';
import { clamp } from '../../shared/math.ts';

export type LayoutName = 'centre' | 'thirds-left' | 'thirds-right' | 'low-hero';
export const LAYOUT_NAMES: readonly LayoutName[] = ['centre', 'thirds-left', 'thirds-right', 'low-hero'];

export interface LayoutItem {
  /** Width / height of the product's trimmed cut-out. */
  aspect: number;
  /** The product's image cuts it at the bottom: it stands on the frame's bottom edge. */
  croppedBottom?: boolean;
}

export interface LayoutInput {
  width: number;
  height: number;
  /** 0..3 (others wrap). */
  variationIndex: number;
  items: LayoutItem[];
  /** The backdrop's floor line and light, when its maker said (they win over the shot's). */
  hints?: BackdropHints;
  /** Force this layout instead of the variation's (a refinement's steering). */
  preset?: LayoutName;
  /**
   * Multiplier on the products' linear size (a refinement's steering), 0.6..1.8 (clamped); the
   * frame's margins still bound it. Default 1.
   */
  scale?: number;
  /**
   * The least depth (fraction of the height from the top) at which the hero stands: a photo that
   * came as it is was shot without the products, so they stand in its near foreground, in front
   * of whatever its floor line is. Default: the shot's own floor.
   */
  standAt?: number;
}

export interface Placement extends PlacedBox {
  /** Floor contact line (px from the top): the box's bottom. */
  base: number;
  /** Row in the group: 0 front (the hero), 1 and 2 further back. */
  row: number;
  /** Cut at the bottom by its own image: stands on the frame edge, no floor shadow. */
  croppedBottom: boolean;
}

export interface ShadowSpec {
  /**
   * The cast shadow as an affine image of the product's silhouette about its base: a point `t`
   * product-heights above the base lands `lateral · t` heights to the right (negative: left) and
   * `depth · t` heights above the base (negative: below, toward the camera).
   */
  lateral: number;
  depth: number;
  /** Share of the key the cast shadow hides near the product (0..1; a soft light wraps round). */
  opacity: number;
  /** Opacity of the tight contact shadow at the base (0..1). */
  contact: number;
  /** Penumbra at the shadow's far end, in product heights (a soft light's grows wide). */
  softness: number;
  /** The product's own depth on the floor as the camera sees it, in product widths. */
  thickness: number;
}

export interface SceneLayout {
  name: LayoutName;
  variation: number;
  width: number;
  height: number;
  /** Floor line, fraction of the height from the top (where the wall would meet the floor). */
  horizon: number;
  /** Degrees: 0 = from the right, 90 = from above, 180 = from the left. */
  lightAngle: number;
  /** The key light and its quality (the backdrop maker's, else the shot's): products are lit by it. */
  light: SetLight;
  /** Floor depth seen per unit of width at the products (camera height over distance). */
  camera: number;
  shadow: ShadowSpec;
  /** Kept free on every side, px. */
  margin: number;
  /** One per item, in request order. */
  placements: Placement[];
  /** Item indices, back to front. */
  drawOrder: number[];
}

interface Preset {
  name: LayoutName;
  /** Hero's target area, fraction of the frame. */
  area: number;
  /** Hero's largest height / width, fractions of the frame. */
  maxH: number;
  maxW: number;
  /** Hero's base, fraction of the height. */
  base: number;
  /** The whole group's largest width, fraction of the frame (a third needs room to move). */
  groupW: number;
  /** Size of the rows behind the hero, relative to it. */
  rows: [number, number, number];
}

const PRESETS: readonly Preset[] = [
  {
    name: 'centre',
    area: 0.19,
    maxH: 0.62,
    maxW: 0.6,
    base: 0.83,
    groupW: 0.9,
    rows: [1, 0.8, 0.66],
  },
  {
    name: 'thirds-left',
    area: 0.14,
    maxH: 0.52,
    maxW: 0.46,
    base: 0.78,
    groupW: 0.6,
    rows: [1, 0.8, 0.66],
  },
  {
    name: 'thirds-right',
    area: 0.15,
    maxH: 0.54,
    maxW: 0.46,
    base: 0.8,
    groupW: 0.6,
    rows: [1, 0.8, 0.66],
  },
  {
    name: 'low-hero',
    area: 0.27,
    maxH: 0.74,
    maxW: 0.7,
    base: 0.91,
    groupW: 1,
    rows: [1, 0.68, 0.54],
  },
];

/** The set's own floor line, which a shot moves (when no backdrop says where it is). */
const SET_HORIZON = 0.6;
/** How much further back each row stands (fraction of the height). */
const ROW_STEP = 0.035;
/** Left-to-right arrangement of item indices: hero in the middle, then right, left, right, left. */
const ARRANGEMENT = [4, 2, 0, 1, 3];
/** Neighbours overlap by this share of the narrower one's width. */
const OVERLAP = 0.12;

/** The layout of one variation. */
export function computeLayout(input: LayoutInput): SceneLayout {
  const { width: W, height: H } = input;
  if (!(W >= 16 && H >= 16)) throw new RangeError('layout: the frame must be at least 16×16 px');
  const forced = input.preset ? LAYOUT_NAMES.indexOf(input.preset) : -1;
  const variation = (forced >= 0 ? forced : ((Math.floor(input.variationIndex) % 4) + 4) % 4) as 0 | 1 | 2 | 3;
  const scale = input.scale === undefined || !Number.isFinite(input.scale) ? 1 : clamp(input.scale, 0.6, 1.8);
  const preset = PRESETS[variation]!;
  const shot = shotFor(variation);
  const margin = Math.max(2, Math.round(Math.min(W, H) * 0.06));

  // Floor line, light and camera: the backdrop's when it said, else the shot's.
  const hints = input.hints;
  const horizon = hints ? clamp(hints.horizon, 0.2, 0.95) : SET_HORIZON + shot.horizonShift;
  const lightAngle = hints
    ? ((hints.lightAngle % 360) + 360) % 360
    : lightAngleOf(shot.light.side, shot.light.elevation);
  const light = hints?.light ?? {
    key: keyFromAngle(lightAngle, shot.light.front),
    hardness: clamp(0.15 + shot.light.hardness, 0, 1),
    temperature: 0,
    fill: 0.3,
  };
  // Without a camera from the backdrop's maker it follows the floor line: a high horizon is seen
  // from above, a low one from low down.
  const camera = hints?.camera ?? (hints ? 0.12 + 0.5 * clamp((0.8 - horizon) / 0.4, 0, 1) : 0.12 + 0.5 * shot.camera);
  const shadow = shadowFor(light, camera);

  // Hero's base: on the floor, in front of the floor line, inside the bottom margin.
  const baseMax = H - margin;
  const standAt = input.standAt !== undefined && Number.isFinite(input.standAt) ? clamp(input.standAt, 0, 1) : 0;
  const base = clamp(Math.max(preset.base * H, horizon * H + 0.05 * H, standAt * H), 0, baseMax);

  const items = input.items.map((it) => ({
    aspect: clamp(Number.isFinite(it.aspect) && it.aspect > 0 ? it.aspect : 1, 0.05, 20),
    croppedBottom: it.croppedBottom === true,
  }));
  const n = items.length;
  const order = ARRANGEMENT.filter((i) => i < n);
  const rowOf = (i: number) => (i === 0 ? 0 : i <= 2 ? 1 : 2);

  // A portrait frame is narrow: products may take more of its width (a third has less room to
  // move, but a wide product would otherwise be tiny).
  const widen = W / H < 0.85 ? 1.3 : 1;

  // Natural sizes (before fitting): the hero's target area bounded by the frame, rows smaller.
  const heroArea = preset.area * W * H * (n > 1 ? 0.8 : 1) * scale * scale;
  const natural = items.map((it, i) => {
    const s = preset.rows[rowOf(i)]!;
    let h = Math.sqrt(heroArea / it.aspect) * s;
    let w = h * it.aspect;
    const maxH = (scale === 1 ? preset.maxH : Math.min(0.9, preset.maxH * scale)) * H * s;
    const maxW =
      (scale === 1 ? Math.min(0.8, preset.maxW * widen) : Math.min(0.9, preset.maxW * widen * scale)) * W * s;
    if (h > maxH) {
      w *= maxH / h;
      h = maxH;
    }
    if (w > maxW) {
      h *= maxW / w;
      w = maxW;
    }
    return { w, h };
  });

  // Fit the group: scale until it fits between the margins (a few rounds: the depth offsets do
  // not scale).
  let k = 1;
  let boxes: { left: number; top: number; w: number; h: number; base: number }[] = [];
  for (let round = 0; round < 6; round++) {
    boxes = arrange(items, natural, order, rowOf, k, base, H);
    const left = Math.min(...boxes.map((b) => b.left));
    const right = Math.max(...boxes.map((b) => b.left + b.w));
    const fitW = Math.min(W - 2 * margin, Math.min(1, preset.groupW * widen * Math.max(1, scale)) * W) / (right - left);
    const fitH = Math.min(
      ...boxes.map((b, i) => (items[i]!.croppedBottom ? (H - margin) / b.h : (b.base - margin) / b.h)),
    );
    const f = Math.min(fitW, fitH);
    if (f >= 0.999) break;
    k *= f * 0.995;
  }

  // Horizontal placement: the group's centre on the preset's line, kept inside the margins.
  const gl = Math.min(...boxes.map((b) => b.left));
  const gr = Math.max(...boxes.map((b) => b.left + b.w));
  const gw = gr - gl;
  const desired = shot.subjectX * W - gw / 2;
  const shift = clamp(desired, margin, W - margin - gw) - gl;

  const placements: Placement[] = boxes.map((b, i) => {
    const width = Math.max(1, Math.round(b.w));
    const height = Math.max(1, Math.round(b.h));
    let left = Math.round(b.left + shift);
    left = clamp(left, margin, Math.max(margin, W - margin - width));
    let top: number;
    if (items[i]!.croppedBottom) {
      top = H - height;
    } else {
      top = Math.round(b.base - height);
      top = clamp(top, margin, Math.max(margin, H - margin - height));
    }
    return {
      left,
      top,
      width,
      height,
      base: top + height,
      row: rowOf(i),
      croppedBottom: items[i]!.croppedBottom,
    };
  });

  // Back to front: rows from the back; within a row, the outer ones first.
  const drawOrder = [...order].sort((a, b) => rowOf(b) - rowOf(a) || b - a);
  return {
    name: preset.name,
    variation,
    width: W,
    height: H,
    horizon,
    lightAngle,
    light,
    camera,
    shadow,
    margin,
    placements,
    drawOrder,
  };
}

/** Boxes (unrounded) for the items at scale `k`, arranged left to right from x = 0. */
function arrange(
  items: { aspect: number; croppedBottom: boolean }[],
  natural: { w: number; h: number }[],
  order: number[],
  rowOf: (i: number) => number,
  k: number,
  base: number,
  H: number,
) {
  const boxes = items.map(() => ({ left: 0, top: 0, w: 0, h: 0, base: 0 }));
  let x = 0;
  let prevW = 0;
  for (const [pos, i] of order.entries()) {
    const w = natural[i]!.w * k;
    const h = natural[i]!.h * k;
    if (pos > 0) x -= Math.min(w, prevW) * OVERLAP;
    const b = items[i]!.croppedBottom ? H : base - rowOf(i) * ROW_STEP * H;
    boxes[i] = { left: x, top: b - h, w, h, base: b };
    x += w;
    prevW = w;
  }
  return boxes;
}

/**
 * A key's direction (unit vector: x right, y up, z toward the camera) from a port light angle, a
 * little in front of the product by `front` (0..1).
 */
export function keyFromAngle(lightAngle: number, front: number): SetLight['key'] {
  const { elevation, side } = elevationOf(lightAngle);
  const e = (elevation * Math.PI) / 180;
  const x = -side * Math.cos(e);
  const y = Math.sin(e);
  const z = 0.2 + 0.6 * clamp(front, 0, 1);
  const n = Math.sqrt(x * x + y * y + z * z);
  return { x: x / n, y: y / n, z: z / n };
}

/**
 * The products' shadows for a key light and how the camera sees the floor: cast opposite the key
 * (sideways by its side, back or forward by its depth), longer the lower it is, its depth on the
 * floor foreshortened by the camera (`camera`: floor depth seen per unit of width); hiding most
 * of a hard key and less of a soft one (it wraps round), crisper the harder the light. The
 * contact shadow where the product meets the floor is always deep (no light reaches under it).
 */
export function shadowFor(light: SetLight, camera: number): ShadowSpec {
  const k = light.key;
  const up = Math.max(0.12, k.y);
  const hard = clamp(light.hardness, 0, 1);
  return {
    lateral: clamp(-k.x / up, -1.4, 1.4),
    depth: clamp((camera * k.z) / up, -0.8, 0.8),
    opacity: 0.75 + 0.22 * hard,
    contact: 0.72 + 0.18 * (1 - clamp(light.fill, 0, 1)),
    softness: 0.015 + 0.09 * (1 - hard),
    thickness: clamp(0.3 * camera, 0.03, 0.3),
  };
}

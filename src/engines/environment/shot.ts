/**
 * A forge's four shots (pure): how a photographer shoots one set four ways. Each shot sets the
 * camera (height, which moves the floor line and how steeply the floor recedes; a turn about the
 * product, which angles the floor's pattern and the wall's seam; the lens), the key light (side,
 * height, hardness, how far in front of the product it stands), the set dressing (simple props
 * in the open part of the frame) and the crop (where the product stands).
 *
 * The environment engine builds the set for a shot; the local scene engine's layout places the
 * products for the same shot, so the props keep clear of them and their shadows fall the same way.
 *
 *   0 eye level      product centred, key from the right at 45°, a plinth on the shadow side
 *   1 high angle     product on the left third, camera high and turned, a low hard key from the
 *                    left throwing long shadows into the open right, where steps and a small block stand
 *   2 three-quarter  product on the right third, camera a little low and turned the other way, a
 *                    high soft key from the left, an arch on the wall and a column in the open left
 *   3 low angle      large centred hero, camera near the floor, long lens (softer background), a
 *                    soft key almost overhead (a little right), one low block at the edge
 *
 * The key comes from the right, left, left, and from above unless the prompt names a side: two
 * shots lit from one side differ in camera height and where the product stands.
 */

export type PropKind = 'plinth' | 'column' | 'block' | 'steps' | 'arch';

export interface ShotProp {
  kind: PropKind;
  /**
   * Distance of its centre from the product's, toward the open side of the frame, as a fraction of
   * the frame's width (the open side: away from a product on a third, else away from the light).
   */
  offset: number;
  /** Where it stands between the product (0) and the wall (1). */
  behind: number;
  /** Height as a fraction of the frame's height at the product's distance. */
  height: number;
  /** Width over height. */
  aspect: number;
  /** Painted in the brand's accent colour when the set has one (else in the set's own tones). */
  accent: boolean;
}

export interface ShotLight {
  /** 1: the key from the left; -1: from the right. A prompt's side wins. */
  side: 1 | -1;
  /** Height of the key above the floor, degrees (a prompt's height mostly wins). */
  elevation: number;
  /** Added to the light's hardness (0 diffuse .. 1 hard), bounded; a prompt's hardness keeps most of its weight. */
  hardness: number;
  /** How far in front of the product the key stands, 0 beside it .. 1 well in front. */
  front: number;
}

export interface Shot {
  index: 0 | 1 | 2 | 3;
  name: 'eye level' | 'high angle' | 'three-quarter' | 'low angle';
  /** Camera height, 0 at the floor .. 1 high looking down. */
  camera: number;
  /** Floor line moved from the set's own, fraction of the height (+: lower in the frame, more wall). */
  horizonShift: number;
  /** The camera turned about the product, degrees (+: the wall's right end comes nearer). */
  yaw: number;
  /** Focal length relative to the standard lens (> 1: tighter, a softer background). */
  lens: number;
  light: ShotLight;
  /** Where the product (group) stands, fraction of the width. */
  subjectX: number;
  props: ShotProp[];
  /**
   * The crop of a set photo that came as it is (an environment asset, not built for the shot):
   * zoomed in by `zoom`, the frame's spare width and height split `x` : 1 − x and `y` : 1 − y.
   */
  crop: { zoom: number; x: number; y: number };
}

const SHOTS: readonly Shot[] = [
  {
    index: 0,
    name: 'eye level',
    camera: 0.5,
    horizonShift: 0,
    yaw: 0,
    lens: 1,
    light: { side: -1, elevation: 45, hardness: 0, front: 0.5 },
    subjectX: 0.5,
    props: [{ kind: 'plinth', offset: 0.36, behind: 0.45, height: 0.3, aspect: 0.75, accent: true }],
    crop: { zoom: 1, x: 0.5, y: 0.5 },
  },
  {
    index: 1,
    name: 'high angle',
    camera: 0.85,
    horizonShift: -0.1,
    yaw: 9,
    lens: 0.9,
    light: { side: 1, elevation: 30, hardness: 0.2, front: 0.35 },
    subjectX: 1 / 3,
    props: [
      { kind: 'steps', offset: 0.4, behind: 0.4, height: 0.2, aspect: 1.3, accent: true },
      { kind: 'block', offset: 0.24, behind: 0.1, height: 0.08, aspect: 1.1, accent: false },
    ],
    crop: { zoom: 1.2, x: 0.25, y: 0.8 },
  },
  {
    index: 2,
    name: 'three-quarter',
    camera: 0.4,
    horizonShift: 0.05,
    yaw: -8,
    lens: 1.1,
    light: { side: 1, elevation: 58, hardness: -0.1, front: 0.7 },
    subjectX: 2 / 3,
    props: [
      { kind: 'arch', offset: 0.4, behind: 1, height: 0.55, aspect: 0.6, accent: false },
      { kind: 'column', offset: 0.45, behind: 0.4, height: 0.42, aspect: 0.42, accent: true },
    ],
    crop: { zoom: 1.15, x: 0.8, y: 0.5 },
  },
  {
    index: 3,
    name: 'low angle',
    camera: 0.12,
    horizonShift: 0.11,
    yaw: 6,
    lens: 1.3,
    light: { side: -1, elevation: 78, hardness: -0.15, front: 0.55 },
    subjectX: 0.5,
    props: [{ kind: 'block', offset: 0.42, behind: 0.45, height: 0.2, aspect: 1.2, accent: true }],
    crop: { zoom: 1.15, x: 0.5, y: 0.3 },
  },
];

/** The shot of a variation (indices wrap). */
export function shotFor(variationIndex: number): Shot {
  const i = Number.isFinite(variationIndex) ? ((Math.floor(variationIndex) % 4) + 4) % 4 : 0;
  return SHOTS[i]!;
}

/**
 * The key light's direction in the port's convention (degrees: 0 from the right, 90 from above,
 * 180 from the left) for a side (+1 left, −1 right) and an elevation.
 */
export function lightAngleOf(side: number, elevation: number): number {
  const e = Math.min(90, Math.max(0, elevation));
  return side >= 0 ? 180 - e : e;
}

/** The elevation (degrees) and side (+1 left, −1 right, 0 overhead) of a port light angle. */
export function elevationOf(lightAngle: number): { elevation: number; side: 1 | -1 | 0 } {
  const a = ((lightAngle % 360) + 360) % 360;
  if (a > 180) return { elevation: 90, side: 0 };
  if (Math.abs(a - 90) < 1e-9) return { elevation: 90, side: 0 };
  return a > 90 ? { elevation: 180 - a, side: 1 } : { elevation: a, side: -1 };
}

/**
 * Which side of the product is open for props: +1 the right, −1 the left. A product on a third
 * leaves the other side open; a centred one the side away from the light (+1 light from the left).
 */
export function openSide(subjectX: number, lightSide: number): 1 | -1 {
  if (subjectX < 0.45) return 1;
  if (subjectX > 0.55) return -1;
  return lightSide >= 0 ? 1 : -1;
}

/**
 * The colour of a light (linear RGB, luminance about 1) at a temperature −1 cool .. +1 warm,
 * `strength` of the way: the set's key at `t`, its ambient at about `−0.45 t` and weaker.
 */
export function lightColor(t: number, strength: number): [number, number, number] {
  const k = Math.max(-1, Math.min(1, t)) * strength;
  const c = k >= 0 ? [1 + 0.13 * k, 1 - 0.02 * k, 1 - 0.24 * k] : [1 + 0.14 * k, 1 + 0.01 * k, 1 - 0.2 * k];
  const l = 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
  return [c[0]! / l, c[1]! / l, c[2]! / l];
}

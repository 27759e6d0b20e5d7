/**
 * Set dressing for the local environment engine (pure geometry): simple props standing on the
 * floor (cylinders and blocks), ray-cast by the renderer and lit by the set's key, with the
 * soft shadows and contact occlusion they throw on the floor and the wall; and an arched niche
 * set into the wall.
 *
 * Coordinates are the renderer's, in centimetres: x right, y up from the floor, z away from the
 * camera (a flat lay: z up the frame).
 */
import { smooth01 } from '../../shared/math.ts';

export type SolidKind = 'cylinder' | 'block';

export interface Solid {
  kind: SolidKind;
  /** Centre of its footprint on the floor. */
  x: number;
  z: number;
  /** Height. */
  h: number;
  /** Half extents of its footprint (a cylinder: rx is the radius). */
  rx: number;
  rz: number;
  /** Turn about the vertical (radians; blocks only). */
  yaw: number;
  /** Painted in the brand's accent (else the set's own tone). */
  accent: boolean;
}

export interface Hit {
  t: number;
  /** Unit normal. */
  nx: number;
  ny: number;
  nz: number;
  /** Surface coordinates for the material (cm). */
  u: number;
  v: number;
  solid: number;
}

/**
 * A ray `o + t·d` (`d` need not be unit length: `t` is in its lengths). A caster keeps one and
 * sets its fields for each ray, so the hot loop allocates nothing.
 */
export interface Ray {
  ox: number;
  oy: number;
  oz: number;
  dx: number;
  dy: number;
  dz: number;
}

/**
 * The nearest hit of the ray (t in (0, tMax)) on the solids, written into `out`; false when it
 * hits none.
 */
export function intersectSolids(solids: readonly Solid[], ray: Ray, tMax: number, out: Hit): boolean {
  let best = tMax;
  let found = false;
  for (let i = 0; i < solids.length; i++) {
    const s = solids[i]!;
    const t = s.kind === 'cylinder' ? hitCylinder(s, ray, best, out) : hitBlock(s, ray, best, out);
    if (t > 0 && t < best) {
      best = t;
      out.solid = i;
      found = true;
    }
  }
  return found;
}

/** The ray's nearest hit on a cylinder (its top cap or its side) before `tMax` into `out`, its t; else -1. */
function hitCylinder(s: Solid, ray: Ray, tMax: number, out: Hit): number {
  const { ox, oy, oz, dx, dy, dz } = ray;
  const r = s.rx;
  let best = -1;
  // The top cap, seen from above.
  if (dy < 0 && oy > s.h) {
    const t = (s.h - oy) / dy;
    const px = ox + t * dx - s.x;
    const pz = oz + t * dz - s.z;
    if (t > 0 && t < tMax && px * px + pz * pz <= r * r) {
      best = t;
      out.t = t;
      out.nx = 0;
      out.ny = 1;
      out.nz = 0;
      out.u = px;
      out.v = pz;
    }
  }
  // The side.
  const fx = ox - s.x;
  const fz = oz - s.z;
  const a = dx * dx + dz * dz;
  if (a < 1e-12) return best;
  const b = fx * dx + fz * dz;
  const c = fx * fx + fz * fz - r * r;
  const disc = b * b - a * c;
  if (disc < 0) return best;
  const t = (-b - Math.sqrt(disc)) / a;
  if (t <= 0 || t >= (best > 0 ? best : tMax)) return best;
  const y = oy + t * dy;
  if (y < 0 || y > s.h) return best;
  const nx = (fx + t * dx) / r;
  const nz = (fz + t * dz) / r;
  out.t = t;
  out.nx = nx;
  out.ny = 0;
  out.nz = nz;
  out.u = Math.atan2(nx, -nz) * r;
  out.v = y;
  return t;
}

/** The ray's hit on a block (turned by its yaw) before `tMax` into `out`, its t; else -1. */
function hitBlock(s: Solid, ray: Ray, tMax: number, out: Hit): number {
  const { ox, oy, oz, dx, dy, dz } = ray;
  // Into the block's frame: centred, turned back by its yaw; then the slabs x, y, z.
  const c = Math.cos(s.yaw);
  const sn = Math.sin(s.yaw);
  const px = ox - s.x;
  const pz = oz - s.z;
  const lox = c * px + sn * pz;
  const loz = -sn * px + c * pz;
  const loy = oy - s.h / 2;
  const ldx = c * dx + sn * dz;
  const ldz = -sn * dx + c * dz;
  let t0 = -Infinity;
  let t1 = Infinity;
  let axis = -1;
  let sign = 1;
  for (let k = 0; k < 3; k++) {
    const o = k === 0 ? lox : k === 1 ? loy : loz;
    const d = k === 0 ? ldx : k === 1 ? dy : ldz;
    const e = k === 0 ? s.rx : k === 1 ? s.h / 2 : s.rz;
    if (Math.abs(d) < 1e-12) {
      if (Math.abs(o) > e) return -1;
      continue;
    }
    const ta = (-e - o) / d;
    const tb = (e - o) / d;
    const near = Math.min(ta, tb);
    if (near > t0) {
      t0 = near;
      axis = k;
      sign = ta < tb ? -1 : 1;
    }
    t1 = Math.min(t1, Math.max(ta, tb));
    if (t0 > t1) return -1;
  }
  if (axis < 0 || t0 <= 0 || t0 >= tMax) return -1;
  const lx = lox + t0 * ldx;
  const ly = loy + t0 * dy + s.h / 2;
  const lz = loz + t0 * ldz;
  // The face's normal in the block's frame, back to the world.
  const nx = axis === 0 ? sign : 0;
  const nz = axis === 2 ? sign : 0;
  out.t = t0;
  out.nx = c * nx - sn * nz;
  out.ny = axis === 1 ? sign : 0;
  out.nz = sn * nx + c * nz;
  out.u = axis === 0 ? lz : lx;
  out.v = axis === 1 ? lz : ly;
  return t0;
}

/**
 * How much of the key light (at `l`, a disc of radius `lightR` facing the point) the solids hide
 * from the point `q`: 0 none .. 1 all. Each solid is taken as its footprint swept up its height;
 * the penumbra widens with the point's distance behind it.
 */
export function solidShadow(
  solids: readonly Solid[],
  qx: number,
  qy: number,
  qz: number,
  lx: number,
  ly: number,
  lz: number,
  lightR: number,
): number {
  let lit = 1;
  const ex = lx - qx;
  const ey = ly - qy;
  const ez = lz - qz;
  const exz2 = ex * ex + ez * ez;
  for (const s of solids) {
    // The part of the segment towards the light that is within the solid's height.
    let sMin = 0;
    let sMax = 1;
    if (Math.abs(ey) < 1e-9) {
      if (qy < 0 || qy > s.h) continue;
    } else {
      const a = (0 - qy) / ey;
      const b = (s.h - qy) / ey;
      sMin = Math.max(0, Math.min(a, b));
      sMax = Math.min(1, Math.max(a, b));
      if (sMin > sMax) continue;
    }
    // Its point nearest the solid's axis, and how far outside the footprint that is.
    const cx = s.x - qx;
    const cz = s.z - qz;
    const near = exz2 > 1e-9 ? (cx * ex + cz * ez) / exz2 : 0;
    const at = Math.min(sMax, Math.max(sMin, near));
    const px = ex * at - cx;
    const pz = ez * at - cz;
    let dist: number;
    if (s.kind === 'cylinder') dist = Math.sqrt(px * px + pz * pz) - s.rx;
    else {
      const c = Math.cos(s.yaw);
      const sn = Math.sin(s.yaw);
      dist = boxSdf(c * px + sn * pz, -sn * px + c * pz, s.rx, s.rz);
    }
    if (at <= 0) continue;
    const pen = Math.max(0.25, lightR * at);
    if (dist >= pen) continue;
    const k = dist <= -pen ? 1 : 1 - smooth01((dist + pen) / (2 * pen));
    lit *= 1 - k;
  }
  return 1 - lit;
}

/**
 * Ambient occlusion on the floor around the solids' feet: 1 open .. about 0.5 at a foot. `qx, qz`:
 * a floor point.
 */
export function solidOcclusion(solids: readonly Solid[], qx: number, qz: number): number {
  let ao = 1;
  for (const s of solids) {
    const px = qx - s.x;
    const pz = qz - s.z;
    let d: number;
    let reach: number;
    if (s.kind === 'block') {
      const c = Math.cos(s.yaw);
      const sn = Math.sin(s.yaw);
      d = boxSdf(c * px + sn * pz, -sn * px + c * pz, s.rx, s.rz);
      reach = 0.3 * Math.min(s.h, 2 * Math.min(s.rx, s.rz)) + 1;
    } else {
      d = Math.sqrt(px * px + pz * pz) - s.rx;
      reach = 0.3 * Math.min(s.h, 2 * s.rx) + 1;
    }
    if (d > reach * 5) continue;
    ao *= 1 - 0.55 * Math.exp(-Math.max(0, d) / reach);
  }
  return ao;
}

/** Signed distance from a point to a centred rectangle of half extents (a, b). */
export function boxSdf(px: number, pz: number, a: number, b: number): number {
  const qx = Math.abs(px) - a;
  const qz = Math.abs(pz) - b;
  const ox = Math.max(qx, 0);
  const oz = Math.max(qz, 0);
  return Math.sqrt(ox * ox + oz * oz) + Math.min(Math.max(qx, qz), 0);
}

/**
 * Signed distance (cm, negative inside) on the wall from `(u, h)` to an arch: a rectangle `2a`
 * wide from the floor up to `top − a`, closed by a half circle of radius `a`, centred at `cu`.
 */
export function archSdf(u: number, h: number, cu: number, a: number, top: number): number {
  const x = Math.abs(u - cu);
  const spring = top - a;
  if (h > spring) return Math.sqrt(x * x + (h - spring) ** 2) - a;
  // Below the spring line: the sides (the floor is no edge: the niche runs into it).
  return x - a;
}

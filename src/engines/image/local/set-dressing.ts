/**
 * Set dressing for the refinement levers (pure geometry and light, and painters on RGB bytes):
 * what a set designer would build rather than a flat block of colour.
 *
 * The set is seen by a pinhole camera one unit (its height) above a flat floor, looking level:
 * a floor row `y` lies at depth `focal / (y − eyeY)`, the wall stands where the floor line is, and
 * the products stand on the row `focusY`. From that come the depth of every row (for a depth of
 * field), the perspective of a prop on the floor (its faces, its contact and cast shadows), and a
 * floor texture that foreshortens toward the wall. The key light's direction comes from the
 * layout's angle (0 = from the right, 90 = from above, 180 = from the left), a little in front of
 * the set as a studio key is.
 */
import { hashSeed, toSrgb } from './raster.ts';
import { prng } from '../../shared/prng.ts';
import { clamp01, smooth01 } from '../../shared/math.ts';

// ---------------------------------------------------------------------------------------------
// Linear light (the sRGB tables are raster.ts's).

/** Relative luminance of a linear RGB colour. */
export const lumaLinear = (r: number, g: number, b: number) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

// ---------------------------------------------------------------------------------------------
// The camera.

export interface SetCamera {
  width: number;
  height: number;
  /** Floor line (the wall's foot), px from the top. */
  horizonY: number;
  /** Eye level, px: floor lines running away from the camera converge on it. */
  eyeY: number;
  /** Focal length, px (a 35° horizontal field of view). */
  focal: number;
  /** The row the products stand on, px: the plane of focus. */
  focusY: number;
}

/**
 * The camera for a set with its floor line at `horizon` (fraction of the height) and products
 * standing on row `focusY` (px). The camera's height follows the floor line as the layouts do (a
 * high floor line is seen from above: the eye level far above it; a low one from near the floor).
 */
export function setCamera(width: number, height: number, horizon: number, focusY: number): SetCamera {
  const horizonY = clamp01(horizon) * height;
  const camera = clamp01((0.8 - clamp01(horizon)) / 0.4);
  const eyeY = horizonY - (0.1 + 0.45 * camera) * height;
  const focal = width / (2 * Math.tan((17.5 * Math.PI) / 180));
  return { width, height, horizonY, eyeY, focal, focusY: Math.max(focusY, horizonY + 0.02 * height) };
}

/** Depth (camera heights) of what row `y` shows: the floor below the floor line, the wall above it. */
export function rowDepth(cam: SetCamera, y: number): number {
  return cam.focal / (Math.max(y, cam.horizonY) - cam.eyeY);
}

/**
 * Defocus of row `y` relative to the plane of focus: the circle of confusion ∝ |1 − Zfocus/Z|,
 * 0 on the products' floor row, growing linearly (in screen rows) toward the camera and toward the
 * wall, constant over the wall (one plane at one depth).
 */
export function defocus(cam: SetCamera, y: number): number {
  return Math.abs(1 - rowDepth(cam, cam.focusY) / rowDepth(cam, y));
}

/** Screen position (px) of a world point: X right of the view axis, Y up from the floor, Z depth. */
export function project(cam: SetCamera, X: number, Y: number, Z: number): [number, number] {
  return [cam.width / 2 + (cam.focal * X) / Z, cam.eyeY + (cam.focal * (1 - Y)) / Z];
}

/** World position (X, Z) of the floor under a screen point (px) below the eye level. */
export function floorPoint(cam: SetCamera, x: number, y: number): [number, number] {
  const Z = rowDepth(cam, y);
  return [((x - cam.width / 2) * Z) / cam.focal, Z];
}

// ---------------------------------------------------------------------------------------------
// The light.

/** Unit vector toward the key light: x right, y up, z away from the camera (the key is in front). */
export function keyLight(lightAngle: number): [number, number, number] {
  const a = (lightAngle * Math.PI) / 180;
  const v: [number, number, number] = [Math.cos(a), Math.sin(a), -0.7];
  const n = Math.hypot(...v);
  return [v[0] / n, v[1] / n, v[2] / n];
}

/**
 * Light on a face with outward normal `normal`: the ambient share, Lambert from the key, and the
 * studio's overhead fill on faces that look up.
 */
export function faceLight(normal: readonly number[], light: readonly number[], ambient = 0.36): number {
  const d = normal[0]! * light[0]! + normal[1]! * light[1]! + normal[2]! * light[2]!;
  return ambient + (1 - ambient) * Math.max(0, d) + 0.35 * Math.max(0, normal[1]!);
}

/**
 * Light on a seamless sweep (a multiplier around 1), as a function of the pixel (x, y): the wall
 * deepening toward the top and brighter on the key's side, a glow on the wall behind the products,
 * the floor (which faces the key) brighter, with a pool of light around the products foreshortened
 * by the perspective and a falloff toward the camera, joined across a soft cove; a gentle
 * vignette. What depends on the row or the column alone is worked out once.
 */
export function sweepLight(cam: SetCamera, lightAngle: number, focusX: number): (x: number, y: number) => number {
  const { width: W, height: H, horizonY: hy } = cam;
  const side = Math.cos((lightAngle * Math.PI) / 180);
  const cove = 0.07 * H;
  const fx = (focusX - W / 2) / (W / 2);
  const [FX, FZ] = floorPoint(cam, focusX, cam.focusY);
  const colU = new Float32Array(W);
  const colWall = new Float32Array(W);
  const colFloor = new Float32Array(W);
  const colGlow = new Float32Array(W);
  for (let x = 0; x < W; x++) {
    const u = (x / W - 0.5) * 2;
    colU[x] = u * u;
    colWall[x] = 1 + 0.14 * side * u;
    colFloor[x] = 1 + 0.08 * side * u;
    colGlow[x] = Math.exp(-(((u - fx) / 0.7) ** 2));
  }
  const rowT = new Float32Array(H);
  const rowWall = new Float32Array(H);
  const rowGlow = new Float32Array(H);
  const rowFloor = new Float32Array(H);
  const rowZ = new Float32Array(H);
  const rowV = new Float32Array(H);
  for (let y = 0; y < H; y++) {
    rowT[y] = smooth01((y - (hy - cove)) / (2 * cove));
    rowWall[y] = 0.64 + 0.3 * smooth01(y / Math.max(1, hy)) ** 0.7;
    const glowY = (y - (cam.focusY - 0.32 * H)) / (0.3 * H);
    rowGlow[y] = 0.1 * Math.exp(-glowY * glowY);
    rowFloor[y] = 1.1 * (1 - 0.18 * clamp01((y - hy) / Math.max(1, H - hy)) ** 1.5);
    rowZ[y] = rowDepth(cam, Math.max(y, hy + 1));
    rowV[y] = ((y / H - 0.5) * 2) ** 2;
  }
  return (px, py) => {
    const x = Math.max(0, Math.min(W - 1, Math.round(px)));
    const y = Math.max(0, Math.min(H - 1, Math.round(py)));
    const t = rowT[y]!;
    const wall = rowWall[y]! * colWall[x]! + rowGlow[y]! * colGlow[x]!;
    let floor = 1;
    if (t > 0) {
      const Z = rowZ[y]!;
      const X = ((x - W / 2) * Z) / cam.focal;
      const pool = Math.exp(-(((X - FX) / (0.55 * FZ)) ** 2) - ((Z - FZ) / (0.5 * FZ)) ** 2);
      floor = rowFloor[y]! * colFloor[x]! + 0.14 * pool;
    }
    const r2 = Math.min(1, (colU[x]! + rowV[y]!) / 2);
    return (wall * (1 - t) + floor * t) * (1 - 0.12 * r2 * Math.sqrt(r2));
  };
}

// ---------------------------------------------------------------------------------------------
// Texture.

/** Smooth value noise in [−1, 1] over the plane: a seeded 256 × 256 lattice, smoothstep between. */
export function noiseField(seed: number): (u: number, v: number) => number {
  const rand = prng(hashSeed(seed, 0x4015e));
  const lattice = new Float32Array(256 * 256);
  for (let i = 0; i < lattice.length; i++) lattice[i] = rand() * 2 - 1;
  return (u, v) => {
    const x0 = Math.floor(u);
    const y0 = Math.floor(v);
    const sx = u - x0;
    const sy = v - y0;
    const fx = sx * sx * (3 - 2 * sx);
    const fy = sy * sy * (3 - 2 * sy);
    const i0 = (y0 & 255) * 256;
    const i1 = ((y0 + 1) & 255) * 256;
    const a0 = lattice[i0 + (x0 & 255)]!;
    const b0 = lattice[i0 + ((x0 + 1) & 255)]!;
    const a1 = lattice[i1 + (x0 & 255)]!;
    const b1 = lattice[i1 + ((x0 + 1) & 255)]!;
    const top = a0 + (b0 - a0) * fx;
    return top + (a1 + (b1 - a1) * fx - top) * fy;
  };
}

/**
 * Surface coordinates (world units) of the sweep along row `y`: a pixel's are
 * `((x − width / 2) · scale, v)`. On the floor its (X, Z), which foreshorten toward the floor line;
 * on the wall its (X, height).
 */
export function surfaceRow(cam: SetCamera, y: number): { scale: number; v: number } {
  const Z = rowDepth(cam, y);
  if (y > cam.horizonY) return { scale: Z / cam.focal, v: Z };
  return { scale: Z / cam.focal, v: 1 - ((y - cam.eyeY) * Z) / cam.focal };
}

// ---------------------------------------------------------------------------------------------
// Props.

export type Point = [number, number];

export interface PropFace {
  /** `body`: a cylinder's side, lit across its width (the normal turns with x). */
  name: 'front' | 'top' | 'left' | 'right' | 'body';
  /** Screen outline (px), convex, in order. */
  points: Point[];
  /** Light on the face (faceLight); for a body, at its middle. */
  light: number;
  /** The edge nearest the camera that catches the light (a painted edge's bevel). */
  highlight?: [Point, Point];
  /** A body's axis and half-width (px), for its light across. */
  body?: { cx: number; rx: number };
}

export interface PropPlan {
  kind: 'plinth' | 'step' | 'block' | 'cylinder';
  /** Unit vector toward the key light (keyLight). */
  light: [number, number, number];
  /** Faces to paint in order (back to front). */
  faces: PropFace[];
  /** The footprint on the floor (px), for the contact shadow. */
  footprint: Point[];
  /** The cast shadow on the floor (px): away from the light. */
  shadow: Point[];
  /** Screen bounds of the prop (px). */
  bounds: { left: number; top: number; right: number; bottom: number };
}

interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  z0: number;
  z1: number;
}

/**
 * The visible faces of a world box, each with its light, back to front: the top when the camera
 * is above it, the side facing the view axis when the box is off it, the front. The top's front
 * edge catches the light, and so does a side's front edge when that side is lit more than the front.
 */
export function boxFaces(cam: SetCamera, b: Box, light: readonly number[]): PropFace[] {
  const p = (X: number, Y: number, Z: number) => project(cam, X, Y, Z);
  const faces: PropFace[] = [];
  const front = faceLight([0, 0, -1], light);
  if (b.y1 < 1) {
    const points = [p(b.x0, b.y1, b.z0), p(b.x1, b.y1, b.z0), p(b.x1, b.y1, b.z1), p(b.x0, b.y1, b.z1)];
    faces.push({ name: 'top', points, light: faceLight([0, 1, 0], light), highlight: [points[0]!, points[1]!] });
  }
  const side = b.x0 > 0 ? b.x0 : b.x1 < 0 ? b.x1 : undefined;
  if (side !== undefined) {
    const points = [p(side, b.y0, b.z0), p(side, b.y1, b.z0), p(side, b.y1, b.z1), p(side, b.y0, b.z1)];
    const lit = faceLight([side === b.x0 ? -1 : 1, 0, 0], light);
    faces.push({
      name: side === b.x0 ? 'left' : 'right',
      points,
      light: lit,
      ...(lit > front ? { highlight: [points[0]!, points[1]!] as [Point, Point] } : {}),
    });
  }
  faces.push({
    name: 'front',
    points: [p(b.x0, b.y0, b.z0), p(b.x1, b.y0, b.z0), p(b.x1, b.y1, b.z0), p(b.x0, b.y1, b.z0)],
    light: front,
  });
  return faces;
}

/** A world circle (centre X, Z; radius r) at height Y, as a screen polygon of `n` points. */
function circle(cam: SetCamera, X: number, Y: number, Z: number, r: number, n = 48): Point[] {
  return Array.from({ length: n }, (_, k) => {
    const t = (2 * Math.PI * k) / n;
    return project(cam, X + r * Math.cos(t), Y, Z + r * Math.sin(t));
  });
}

/** The visible parts of a standing cylinder (centre X, Z; radius r; height h): its body, its top. */
export function cylinderFaces(
  cam: SetCamera,
  X: number,
  Z: number,
  r: number,
  h: number,
  light: readonly number[],
): PropFace[] {
  const top = circle(cam, X, h, Z, r);
  const base = circle(cam, X, 0, Z, r);
  const [cx, cy] = project(cam, X, h, Z);
  const rx = (cam.focal * r) / Z;
  // The body: from the top's middle line down to the base's front arc (the half nearer the camera),
  // its sides vertical (a level camera keeps verticals vertical).
  const by = project(cam, X, 0, Z)[1];
  const arc = base
    .filter((pt) => pt[1] > by)
    .map((pt): Point => [Math.max(cx - rx, Math.min(cx + rx, pt[0])), pt[1]])
    .sort((a, b) => b[0] - a[0]);
  const faces: PropFace[] = [
    {
      name: 'body',
      points: [[cx - rx, cy], [cx + rx, cy], [cx + rx, by], ...arc, [cx - rx, by]],
      light: faceLight([0, 0, -1], light),
      body: { cx, rx },
    },
  ];
  if (h < 1) faces.push({ name: 'top', points: top, light: faceLight([0, 1, 0], light) });
  return faces;
}

/** Convex hull of points (monotone chain). */
export function convexHull(points: Point[]): Point[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (const p of pts.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

export interface PropSpec {
  /** The products' union box (px). */
  avoid: { left: number; top: number; width: number; height: number };
  lightAngle: number;
  seed: number;
}

export const PROP_KINDS = ['plinth', 'step', 'block', 'cylinder'] as const;

/**
 * A prop from simple geometry standing on the floor beside the products, on the side with more
 * room, a step behind them (smaller, nearer the wall), clear of their box: a plinth (a tall box),
 * a step (a low block with a narrower one on its back half), a low block or a cylinder, by seed
 * (or `kind`). Its faces are lit by the key (boxFaces, cylinderFaces), with its footprint for a
 * contact shadow and a cast shadow on the floor away from the light. Undefined when the floor
 * beside the products has no room for it.
 */
export function planProp(
  cam: SetCamera,
  spec: PropSpec,
  kind = PROP_KINDS[hashSeed(spec.seed, 0x9e0) % 4]!,
): PropPlan | undefined {
  const { width: W, height: H } = cam;
  const box = spec.avoid;
  const light = keyLight(spec.lightAngle);
  const roomLeft = box.left;
  const roomRight = W - (box.left + box.width);
  const right = roomRight >= roomLeft;
  const room = Math.max(roomLeft, roomRight);
  // Standing a little behind the products, between them and the wall.
  const baseY = cam.horizonY + 0.55 * (cam.focusY - cam.horizonY);
  const Z0 = rowDepth(cam, baseY);
  const px = Z0 / cam.focal; // world units per px at that depth
  const size = { plinth: [0.13, 0.3], step: [0.24, 0.2], block: [0.26, 0.12], cylinder: [0.15, 0.22] }[kind];
  const width = size[0]! * W * px;
  const height = Math.min(size[1]! * H, 0.9 * Math.max(1, box.height)) * px;
  const depth = kind === 'cylinder' ? width : Math.min(width, Z0 * 0.25);
  // Clear of the products by a gap; it may run off the frame's edge (the set goes on).
  const gap = 0.04 * W;
  if (room < gap + 0.45 * size[0]! * W) return undefined;
  const near = right ? box.left + box.width + gap : box.left - gap;
  const nearX = (near - W / 2) * px;
  const x0 = right ? nearX : nearX - width;
  const x1 = right ? nearX + width : nearX;
  const faces: PropFace[] = [];
  if (kind === 'cylinder') {
    faces.push(...cylinderFaces(cam, (x0 + x1) / 2, Z0 + width / 2, width / 2, height, light));
  } else if (kind === 'step') {
    faces.push(...boxFaces(cam, { x0, x1, y0: 0, y1: height * 0.5, z0: Z0, z1: Z0 + depth }, light));
    faces.push(...boxFaces(cam, { x0, x1, y0: height * 0.5, y1: height, z0: Z0 + depth * 0.5, z1: Z0 + depth }, light));
  } else {
    faces.push(...boxFaces(cam, { x0, x1, y0: 0, y1: height, z0: Z0, z1: Z0 + depth }, light));
  }
  const footprint =
    kind === 'cylinder'
      ? circle(cam, (x0 + x1) / 2, 0, Z0 + width / 2, width / 2, 24)
      : [
          project(cam, x0, 0, Z0),
          project(cam, x1, 0, Z0),
          project(cam, x1, 0, Z0 + depth),
          project(cam, x0, 0, Z0 + depth),
        ];
  // The footprint swept along the floor away from the light, as far as the top's shadow reaches
  // (a low light throws it far; a key in front throws it back, toward the wall).
  const reach = height * Math.min(2.2, 0.55 / Math.max(0.25, light[1]));
  const dx = -light[0] * reach;
  const dz = -light[2] * reach * 0.8;
  const shadow = convexHull(
    footprint.flatMap((pt) => {
      const [X, Z] = floorPoint(cam, pt[0], pt[1]);
      return [pt, project(cam, X + dx, 0, Z + dz)];
    }),
  );
  const all = faces.flatMap((f) => f.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  return {
    kind,
    light,
    faces,
    footprint,
    shadow,
    bounds: { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) },
  };
}

/** Distance (px) from a point to a segment. */
function segmentDistance(a: Point, b: Point, x: number, y: number): number {
  const ex = b[0] - a[0];
  const ey = b[1] - a[1];
  const t = clamp01(((x - a[0]) * ex + (y - a[1]) * ey) / Math.max(1e-9, ex * ex + ey * ey));
  return Math.hypot(x - a[0] - t * ex, y - a[1] - t * ey);
}

/**
 * Signed distance (px) to a convex polygon's outline, as a function of the point: negative inside.
 * Exact inside and along the edges, a close bound near the corners.
 */
export function polygonDistance(points: Point[]): (x: number, y: number) => number {
  // Orientation-free: the centroid tells which side of each edge is inside.
  const cx = points.reduce((s, p) => s + p[0], 0) / points.length;
  const cy = points.reduce((s, p) => s + p[1], 0) / points.length;
  const edges: number[] = []; // nx, ny, offset per edge: d = nx·x + ny·y − offset
  for (let i = 0; i < points.length; i++) {
    const a = points[i]!;
    const b = points[(i + 1) % points.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len < 1e-9) continue;
    let nx = (b[1] - a[1]) / len;
    let ny = -(b[0] - a[0]) / len;
    if ((cx - a[0]) * nx + (cy - a[1]) * ny > 0) {
      nx = -nx;
      ny = -ny;
    }
    edges.push(nx, ny, a[0] * nx + a[1] * ny);
  }
  return (x, y) => {
    let d = -Infinity;
    for (let k = 0; k < edges.length; k += 3) d = Math.max(d, edges[k]! * x + edges[k + 1]! * y - edges[k + 2]!);
    return d;
  };
}

/** Screen bounds of polygons, grown by `pad` and clipped to the frame. */
function bounds(polys: Point[][], pad: number, W: number, H: number) {
  const pts = polys.flat();
  return {
    x0: Math.max(0, Math.floor(Math.min(...pts.map((p) => p[0])) - pad)),
    x1: Math.min(W - 1, Math.ceil(Math.max(...pts.map((p) => p[0])) + pad)),
    y0: Math.max(0, Math.floor(Math.min(...pts.map((p) => p[1])) - pad)),
    y1: Math.min(H - 1, Math.ceil(Math.max(...pts.map((p) => p[1])) + pad)),
  };
}

/**
 * Paints a planned prop in a colour (linear RGB) onto RGB bytes, in place: first its shadows on
 * the floor (a soft cast shadow away from the light, a tight contact shadow along its foot), then
 * its faces, each lit by the key with a darker foot (the floor's occlusion), a fine highlight along
 * the edges that face the light, and a painted surface's fine grain. `exposure` is the light on the
 * floor where it stands (the sweep's), so it sits in the same exposure as the set.
 */
export function paintProp(
  rgb: Uint8Array,
  W: number,
  H: number,
  plan: PropPlan,
  colour: readonly number[],
  exposure: number,
  seed: number,
): void {
  const scale = Math.max(W, H);
  // Shadows.
  const soft = 0.025 * scale;
  const tight = 0.006 * scale;
  const sb = bounds([plan.shadow, plan.footprint], soft * 2, W, H);
  const toShadow = polygonDistance(plan.shadow);
  const toFoot = polygonDistance(plan.footprint);
  for (let y = sb.y0; y <= sb.y1; y++) {
    for (let x = sb.x0; x <= sb.x1; x++) {
      const cast = 0.32 * (1 - smooth01((toShadow(x, y) + soft * 0.5) / (soft * 1.5)));
      const contact = 0.45 * Math.exp(-Math.max(0, toFoot(x, y)) / tight);
      const a = 1 - (1 - cast) * (1 - contact);
      if (a < 0.003) continue;
      const i = (y * W + x) * 3;
      for (let k = 0; k < 3; k++) rgb[i + k] = Math.round(rgb[i + k]! * (1 - a));
    }
  }
  // Faces.
  const rand = prng(hashSeed(seed, 0x9a17, W, H));
  const edge = 0.003 * scale;
  for (const face of plan.faces) {
    const fb = bounds([face.points], 1, W, H);
    const xs = face.points.map((p) => p[0]);
    const ys = face.points.map((p) => p[1]);
    const midX = (Math.min(...xs) + Math.max(...xs)) / 2;
    const halfW = Math.max(1, (Math.max(...xs) - Math.min(...xs)) / 2);
    const foot = Math.max(...ys);
    const tall = Math.max(1, foot - Math.min(...ys));
    const toFace = polygonDistance(face.points);
    for (let y = fb.y0; y <= fb.y1; y++) {
      // The floor (or the block below) occludes the light near a standing face's foot.
      const occlusion = face.name === 'top' ? 1 : 1 - 0.18 * Math.exp(-(foot - y) / (0.15 * tall));
      for (let x = fb.x0; x <= fb.x1; x++) {
        const d = toFace(x, y);
        const a = clamp01(0.5 - d);
        if (a <= 0) continue;
        let lit = face.light;
        if (face.body) {
          // A cylinder's normal turns across it: lit on the key's side, falling off round the back.
          const nx = Math.max(-1, Math.min(1, (x - face.body.cx) / face.body.rx));
          lit = faceLight([nx, 0, -Math.sqrt(1 - nx * nx)], plan.light);
          // A satin paint's soft sheen where the normal meets the light.
          lit += 0.12 * Math.exp(-(((nx - plan.light[0]) / 0.3) ** 2));
        } else {
          // Across a flat face, a little more light toward the key's side.
          lit *= 1 + 0.08 * plan.light[0] * ((x - midX) / halfW);
        }
        const bevel = face.highlight ? 0.3 * Math.exp(-segmentDistance(...face.highlight, x, y) / edge) : 0;
        const l = exposure * lit * occlusion * (1 + bevel);
        const grain = (rand() + rand() - 1) * 2.2;
        const i = (y * W + x) * 3;
        for (let k = 0; k < 3; k++) {
          const v = toSrgb(colour[k]! * l) + grain;
          rgb[i + k] = Math.round(Math.min(255, Math.max(0, rgb[i + k]! + (v - rgb[i + k]!) * a)));
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Depth of field.

/**
 * Blurs a planar channel, in place, with a box of radius `radius[y]` (px, fractional) on each row
 * (a depth of field that depends on the row), `passes` times (three approximate a Gaussian).
 */
export function rowBlur(data: Float32Array, W: number, H: number, radius: Float32Array, passes = 3): Float32Array {
  const line = new Float64Array(W + 1);
  const row = new Float32Array(W);
  // Column prefix sums, row-major (row y + 1 holds the sums of rows 0..y), so the vertical pass
  // reads memory in order.
  const prefix = new Float64Array((H + 1) * W);
  for (let p = 0; p < passes; p++) {
    // Along each row, its own radius.
    for (let y = 0; y < H; y++) {
      const r = radius[y]!;
      if (r <= 0) continue;
      const o = y * W;
      row.set(data.subarray(o, o + W));
      line[0] = 0;
      for (let x = 0; x < W; x++) line[x + 1] = line[x]! + row[x]!;
      const ri = Math.floor(r);
      const fr = r - ri;
      for (let x = 0; x < W; x++) {
        const lo = Math.max(0, x - ri);
        const hi = Math.min(W - 1, x + ri);
        let s = line[hi + 1]! - line[lo]!;
        s += fr * (row[Math.max(0, x - ri - 1)]! + row[Math.min(W - 1, x + ri + 1)]!);
        // Clamped edges: the missing window repeats the edge pixel.
        s += Math.max(0, ri - x) * row[0]! + Math.max(0, x + ri - (W - 1)) * row[W - 1]!;
        data[o + x] = s / (2 * r + 1);
      }
    }
    // Down each column, each row gathering with its own radius.
    for (let y = 0; y < H; y++) {
      const a = y * W;
      const b = a + W;
      for (let x = 0; x < W; x++) prefix[b + x] = prefix[a + x]! + data[a + x]!;
    }
    const at = (y: number, x: number) => prefix[(y + 1) * W + x]! - prefix[y * W + x]!;
    for (let y = 0; y < H; y++) {
      const r = radius[y]!;
      if (r <= 0) continue;
      const ri = Math.floor(r);
      const fr = r - ri;
      const lo = Math.max(0, y - ri);
      const hi = Math.min(H - 1, y + ri);
      const below = Math.max(0, y - ri - 1);
      const above = Math.min(H - 1, y + ri + 1);
      const padTop = Math.max(0, ri - y);
      const padBottom = Math.max(0, y + ri - (H - 1));
      const o = y * W;
      for (let x = 0; x < W; x++) {
        let s = prefix[(hi + 1) * W + x]! - prefix[lo * W + x]!;
        s += fr * (at(below, x) + at(above, x));
        if (padTop > 0) s += padTop * at(0, x);
        if (padBottom > 0) s += padBottom * at(H - 1, x);
        data[o + x] = s / (2 * r + 1);
      }
    }
  }
  return data;
}

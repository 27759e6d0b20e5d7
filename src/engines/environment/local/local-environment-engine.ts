/**
 * The local environment engine: a procedural, photographic-looking set (a surface in perspective
 * meeting a wall, a seamless paper sweep, ground under a sky, or a flat lay) rendered from the
 * prompt's words and the brand palette, offline, deterministic for a seed, shot as one of a
 * forge's four shots (shot.ts: camera height and turn, lens, key light, props).
 *
 * Pipeline: the prompt is read into a plan (environment-prompt.ts); every pixel is ray-cast onto
 * the floor plane or the back wall (turned with the camera, so its seam runs at an angle), shaded
 * by a material (materials.ts, in centimetres, filtered by the pixel's footprint) and lit in linear
 * light by a soft key light (inverse-square falloff, its side and height from the plan and the
 * shot), an ambient dome with corner occlusion, a glossy lobe and Fresnel reflections of the wall
 * on polished floors, an optional window or foliage pattern, and the props' soft shadows. The props
 * (props.ts) are ray-cast into a layer of their own, four rays a pixel. Then: filmic tone curve,
 * vignette, depth of field (two blurs mixed by each row's distance from the focus plane; the props
 * blurred by their own depth and laid over), film grain, PNG. All per-pixel work is on typed
 * arrays; sharp only blurs and encodes.
 */
import sharp from 'sharp';
import type { SetLight } from '../../image/scene-engine.ts';
import { parseHex } from '../../../adapters/media/colors.ts';
import { type EngineWarning, GenerationError } from '../../image/scene-engine.ts';
import type { EnvironmentEngine, EnvironmentRequest, EnvironmentResult } from '../environment-engine.ts';
import { elevationOf, lightAngleOf, lightColor, openSide, type Shot, shotFor } from '../shot.ts';
import {
  type EnvironmentColors,
  type EnvironmentPlan,
  type Rgb,
  readEnvironmentPrompt,
  resolveColors,
} from './environment-prompt.ts';
import { createMaterial, type Material, toLin } from './materials.ts';
import { prng } from '../../shared/prng.ts';
import { createNoise, hash2, hashBits, type Noise } from './noise.ts';
import { archSdf, type Hit, intersectSolids, type Ray, type Solid, solidOcclusion, solidShadow } from './props.ts';
import { smoothstep } from '../../shared/math.ts';

/** Largest width or height accepted (a 4096² render takes a few seconds). */
export const MAX_ENVIRONMENT_SIDE = 4096;
export const MIN_ENVIRONMENT_SIDE = 16;

export function createLocalEnvironmentEngine(): EnvironmentEngine {
  return {
    name: 'local',
    generate: (req) => generateEnvironment(req),
  };
}

/** Renders the backdrop a request asks for (the engine's `generate`). */
export async function generateEnvironment(req: EnvironmentRequest): Promise<EnvironmentResult> {
  const { width, height } = req;
  for (const [name, n] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(n) || n < MIN_ENVIRONMENT_SIDE || n > MAX_ENVIRONMENT_SIDE) {
      throw new GenerationError(
        `environment ${name} must be a whole number of pixels from ${MIN_ENVIRONMENT_SIDE} to ${MAX_ENVIRONMENT_SIDE} (got ${n})`,
      );
    }
  }
  if (!Number.isFinite(req.seed))
    throw new GenerationError(`environment seed must be a finite number (got ${req.seed})`);
  req.signal?.throwIfAborted();

  const warnings: EngineWarning[] = [];
  const palette: Rgb[] = [];
  for (const hex of req.palette) {
    const rgb = parseHex(hex);
    if (rgb) palette.push(rgb);
    else
      warnings.push({
        code: 'PALETTE_COLOR_IGNORED',
        message: `palette colour ${JSON.stringify(hex)} is not a hex colour (#rrggbb) and was ignored`,
        severity: 'warning',
      });
  }
  const plan = readEnvironmentPrompt(req.prompt);
  if (plan.recognised.length === 0) {
    warnings.push({
      code: 'ENVIRONMENT_PROMPT_DEFAULTED',
      message: 'the prompt names no surface, place or light the local engine knows: a seamless studio sweep was used',
      severity: 'info',
    });
  }
  if (plan.subjects.length > 0) {
    const words = plan.subjects.map((w) => `"${w}"`).join(', ');
    const set =
      plan.layout === 'outdoor' ? `${plan.floor} under the sky` : `a ${plan.floor} floor and a ${plan.wall} wall`;
    warnings.push({
      code: 'UNDRAWABLE_SUBJECT',
      message: `the local engine cannot draw ${words}: it built the set (${set}, the prompt's colours and light) without ${plan.subjects.length > 1 ? 'them' : 'it'}; set IMAGE_ENGINE to a provider (openai-images, fal, replicate or comfyui) to have ${plan.subjects.length > 1 ? 'them' : 'it'} drawn`,
      severity: 'warning',
    });
  }
  const colors = resolveColors(plan, palette);
  const s = seedBits(req.seed);
  const shot = shotFor(req.variationIndex ?? s % 4);
  const rendered = await renderEnvironment(plan, colors, width, height, req.seed, shot, req.signal);
  req.signal?.throwIfAborted();
  const png = await sharp(rendered.rgb, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return {
    png,
    width,
    height,
    horizon: rendered.horizon,
    lightAngle: rendered.lightAngle,
    light: rendered.light,
    camera: rendered.camera,
    warnings,
    engine: 'local',
  };
}

export interface RenderedEnvironment {
  /** Raw RGB, 3 bytes a pixel, row-major. */
  rgb: Buffer;
  horizon: number;
  lightAngle: number;
  light: SetLight;
  camera: number;
}

/** 32 bits of a seed (any finite number). */
function seedBits(seed: number): number {
  return (Math.floor(Math.abs(seed)) ^ Math.floor(Math.abs(seed) / 4294967296) ^ (seed < 0 ? 0x5bd1e995 : 0)) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// The shot applied to the plan (pure)

export interface ShotLighting {
  /** Port convention: degrees, 0 from the right, 90 from above, 180 from the left. */
  angle: number;
  hardness: number;
  /** How far in front of the product the key stands (shot.ts). */
  front: number;
}

/**
 * The key for a plan shot as `shot`: what the prompt said (side, height, hardness) wins, the shot
 * fills in the rest (a side the prompt left open, a height it did not name) and nudges the height
 * and hardness it did name.
 */
export function shotLighting(plan: EnvironmentPlan, shot: Shot): ShotLighting {
  const { elevation: said, side: saidSide } = elevationOf(plan.light.angle);
  const l = plan.light;
  // A height the prompt named is only nudged; a side it named keeps the key low enough to read.
  const elevation = l.elevationGiven
    ? Math.min(85, Math.max(5, said + (shot.light.elevation - 45) * 0.15))
    : l.sideGiven
      ? Math.min(60, shot.light.elevation)
      : shot.light.elevation;
  const hardness = Math.min(1, Math.max(0, l.hardness + shot.light.hardness * (l.hardnessGiven ? 0.5 : 1)));
  const angle = l.sideGiven
    ? saidSide === 0
      ? 90
      : lightAngleOf(saidSide, elevation)
    : lightAngleOf(shot.light.side, elevation);
  return { angle: round3(angle), hardness, front: shot.light.front };
}

/** The floor line for a plan shot as `shot` (a view the prompt named moves less). */
export function shotHorizon(plan: EnvironmentPlan, shot: Shot): number {
  if (plan.layout === 'flatlay') return 0;
  const h = plan.horizon + shot.horizonShift * (plan.horizonGiven ? 0.4 : 1);
  return round3(Math.min(0.8, Math.max(0.36, h)));
}

/** Wall distance over the nearest floor's (how steeply the floor recedes) for a camera height 0..1. */
export function recession(layout: EnvironmentPlan['layout'], camera: number): number {
  if (layout === 'outdoor') return 14;
  const r = (c: number) => 2 + 4.5 * (1 - Math.min(1, Math.max(0, c))) ** 1.5;
  return Math.max(1.6, ((layout === 'sweep' ? 2.6 : 3) * r(camera)) / r(0.5));
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** Camera and set geometry in centimetres and pixels. */
interface Geometry {
  W: number;
  H: number;
  cx: number;
  /** Floor line at the frame's centre (px from the top), vanishing line, focal length (px). */
  yh: number;
  yv: number;
  f: number;
  /** Camera height, wall distance, depth in focus (cm); K = f × camera height. */
  hc: number;
  D: number;
  K: number;
  zf: number;
}

/**
 * Renders a plan as a shot to raw RGB: the same plan, colours, size, seed and shot give the same
 * bytes. Seeded: the noise, the materials' figure.
 */
export async function renderEnvironment(
  plan: EnvironmentPlan,
  colors: EnvironmentColors,
  W: number,
  H: number,
  seed: number,
  shot: Shot,
  signal?: AbortSignal,
): Promise<RenderedEnvironment> {
  const s = seedBits(seed);
  const lighting = shotLighting(plan, shot);
  const noise = createNoise(s);

  const rowBlur = new Float32Array(H);
  const scene = buildScene(plan, colors, W, H, shotHorizon(plan, shot), lighting, shot, s, noise);
  // Rows are tone-mapped to 8-bit as they are shaded: no full-frame float buffer.
  const pre = Buffer.allocUnsafe(W * H * 3);
  const tone = makeTone(W, H, scene.vignette, s);
  await scene.render(rowBlur, (y, row) => tone.row(pre, y, row), signal);
  signal?.throwIfAborted();
  const overlay = scene.props(tone.pixel);
  const rgb = await finish(pre, rowBlur, W, H, scene.sigma, scene.grain, s, overlay, signal);
  return {
    rgb,
    horizon: scene.horizon,
    lightAngle: Math.round(lighting.angle),
    light: scene.light,
    camera: scene.camera,
  };
}

/** A layer over the frame (the props): premultiplied colour (0..255) and coverage, in a box. */
interface Overlay {
  x0: number;
  y0: number;
  w: number;
  h: number;
  rgb: Float32Array;
  a: Float32Array;
}

type TonePixel = (r: number, g: number, b: number, x: number, y: number, out: Float32Array, o: number) => void;

interface Scene {
  render(rowBlur: Float32Array, emit: (y: number, row: Float32Array) => void, signal?: AbortSignal): Promise<void>;
  /** The props' layer (toned with `tone`), blurred for their depth; undefined without props. */
  props(tone: TonePixel): Overlay | undefined;
  /** Depth-of-field blur (px) of the most defocused rows. */
  sigma: number;
  vignette: number;
  grain: number;
  /** Floor line to report (the lowest point of a slanted seam across the middle of the frame). */
  horizon: number;
  light: SetLight;
  camera: number;
}

function buildScene(
  plan: EnvironmentPlan,
  colors: EnvironmentColors,
  W: number,
  H: number,
  horizon: number,
  lighting: ShotLighting,
  shot: Shot,
  seed: number,
  noise: Noise,
): Scene {
  const layout = plan.layout;
  const mood = plan.mood;
  const hard = lighting.hardness;
  const temp = plan.light.temperature;
  const theta = (lighting.angle * Math.PI) / 180;
  const ca = Math.cos(theta);
  const sa = Math.sin(theta);
  const side = Math.max(W, H);

  // Geometry: a pinhole camera over the floor plane; the floor line at `horizon`; the camera's
  // height sets how steeply the floor recedes, its lens the focal length.
  const yh = horizon * H;
  const R = recession(layout, shot.camera);
  const z0 = 50;
  const yv = layout === 'flatlay' ? 0 : yh - (H - yh) / (R - 1);
  const K = z0 * (H - yv);
  const f = 0.95 * side * shot.lens;
  const g: Geometry = {
    W,
    H,
    cx: W / 2,
    yh,
    yv,
    f,
    hc: K / f,
    D: z0 * R,
    K,
    zf: layout === 'flatlay' ? 0 : K / (yh + 0.45 * (H - yh) - yv),
  };
  const zf = g.zf;
  /** The product's spot: across (cm, at the focus depth; a flat lay: on the surface). */
  const flatScale = 70 / side;
  const xs = layout === 'flatlay' ? (shot.subjectX * W - g.cx) * flatScale : ((shot.subjectX * W - g.cx) * zf) / f;

  // The wall, turned with the camera (a room only: a sweep's paper and the sky show no turn). Its
  // normal n = (sin ψ, 0, cos ψ); the wall keeps its distance behind the product. Per column: the
  // ray's distance to the wall and the seam's row.
  const psi = layout === 'room' ? (shot.yaw * Math.PI) / 180 : 0;
  const sinP = Math.sin(psi);
  const cosP = Math.cos(psi);
  const Dn = g.D - zf + xs * sinP + zf * cosP;
  const tw = new Float32Array(W);
  const seamY = new Float32Array(W);
  let seamMin = Infinity;
  let seamMax = -Infinity;
  let seamMid = -Infinity;
  for (let x = 0; x < W; x++) {
    const X = (x + 0.5 - g.cx) / f;
    const den = X * sinP + cosP;
    tw[x] = Dn / den;
    seamY[x] = layout === 'room' ? yv + K / tw[x]! : yh;
    seamMin = Math.min(seamMin, seamY[x]!);
    seamMax = Math.max(seamMax, seamY[x]!);
    if (x >= 0.15 * W && x <= 0.85 * W) seamMid = Math.max(seamMid, seamY[x]!);
  }
  // The floor's pattern turns with the camera (a flat lay: the board under it turns further).
  const rot = layout === 'flatlay' ? (shot.yaw * 1.8 * Math.PI) / 180 : psi;
  const rc = Math.cos(rot);
  const rs = Math.sin(rot);

  // Light: a soft key (a point light with an area-like softening) and a coloured ambient.
  const D = layout === 'outdoor' ? 150 : g.D;
  const reach = D * (1.15 + 0.3 * mood) * (layout === 'flatlay' ? 0.6 : 1);
  const L = {
    x: ca * reach,
    y: layout === 'flatlay' ? 45 + 25 * sa : Math.max(0.4, sa) * reach * 0.8 + 12,
    z: layout === 'flatlay' ? sa * reach * 0.5 : zf * (0.95 - 0.6 * lighting.front),
  };
  // The wall takes less of the key than the floor (photographers flag it), more so when moody.
  const wallKey = 0.62 + 0.18 * mood;
  const soft2 = ((1 - hard) * 0.45 * reach + 8) ** 2;
  /** Radius of the key as an area light (cm), for the props' penumbrae. */
  const lightR = (1 - hard) * 0.3 * reach + 2;
  const keyCol = lightColor(temp, 1);
  const ambCol = lightColor(-temp * 0.45, 0.7);
  const amb = 0.42 + 0.22 * mood;
  const exposure = (0.92 + 0.14 * mood) / (1 + amb);
  const nL = L.x * sinP + L.z * cosP;

  const floorIrr = (u: number, z: number): number => {
    const dx = u - L.x;
    const dz = z - L.z;
    const d2 = dx * dx + L.y * L.y + dz * dz + soft2;
    return L.y / (d2 * Math.sqrt(d2));
  };
  /** Key on the wall at (px, h, pz) (camera coordinates): the wall faces the camera. */
  const wallIrr = (px: number, h: number, pz: number): number => {
    const dx = px - L.x;
    const dy = h - L.y;
    const dz = pz - L.z;
    const d2 = dx * dx + dy * dy + dz * dz + soft2;
    return (wallKey * (Dn - nL)) / (d2 * Math.sqrt(d2));
  };
  // A sweep is lit as one sheet: the light over the unrolled paper (floor depth, then D + height
  // up the wall), so the gradient runs smoothly through the curve with no crease.
  const sweepS = zf * 0.95;
  const sweepH = Math.min(L.y, 0.6 * g.D);
  const sweepIrr = (u: number, s: number): number => {
    const dx = u - L.x * 0.6;
    const ds = s - sweepS;
    const d2 = dx * dx + ds * ds + sweepH * sweepH + soft2 * 0.5;
    return sweepH / (d2 * Math.sqrt(d2));
  };
  const sweepUpright = 0.3 * Math.max(0.3, sa);
  const E0 = layout === 'flatlay' ? floorIrr(0, 0) : layout === 'sweep' ? sweepIrr(0, zf) : floorIrr(0, zf);

  // Materials.
  const variants = new Set(plan.variants);
  // Water under the sky is open water (waves and reflections), not a pool's caustics.
  if (layout === 'outdoor') variants.add('open');
  const lightLen = Math.hypot(ca, sa) || 1;
  const floorMat = createMaterial(plan.floor, {
    noise,
    seed,
    color: colors.floor,
    accents: colors.accents,
    variants,
    // Towards the light across the floor: sideways by its side, backwards by its height.
    lightU: layout === 'flatlay' ? ca / lightLen : ca * 0.8,
    lightV: layout === 'flatlay' ? sa / lightLen : 0.6,
    plane: 'floor',
  });
  const wallMat: Material | null =
    plan.wall === 'sky'
      ? null
      : createMaterial(plan.wall, {
          noise,
          seed: seed ^ 0x77,
          color: colors.wall,
          accents: colors.accents,
          variants,
          lightU: ca,
          lightV: sa,
          plane: 'wall',
        });
  const wallLin = toLin(colors.wall);

  // Window / foliage pattern projected along the light, with a penumbra growing with distance.
  const gobo = makeGobo(plan, ca, sa, g, noise, seed);

  const sigma =
    layout === 'flatlay'
      ? 0
      : Math.max(1.2, side * (layout === 'outdoor' ? 0.0065 : 0.0052) * (plan.mood < -0.3 ? 1.15 : 1)) *
        shot.lens ** 1.5;
  const sky = layout === 'outdoor' ? makeSky(plan, colors, g, ca, sa, noise) : null;

  const cWall = layout === 'flatlay' ? 1 : 1 - zf / g.D;
  /** Defocus at depth z: 0 in the focus plane, 1 at the wall (nearer than focus blurs less). */
  const defocusAt = (z: number): number =>
    z > zf ? Math.min(1, (1 - zf / z) / cWall) : Math.min(0.35, (0.35 * (zf / z - 1)) / cWall);
  /** Defocus of a row (the wall's rows: 1). */
  const defocus = (yc: number): number => {
    if (layout === 'flatlay') return 0;
    if (yc < seamMin) return 1;
    return defocusAt(g.K / (yc - g.yv));
  };

  // Set dressing: the shot's props in the open side of the frame.
  const dressing = dressSet(plan, shot, g, { xs, Dn, sinP, cosP, flatScale, lightFromLeft: ca < 0, tw });
  const solids = dressing.solids;
  const arch = dressing.arch;
  // Where each solid's shadow and foot shade can fall on the frame: tested per pixel only there.
  const shadeBoxes = solids.map((so) =>
    shadowReach(so, L, layout === 'flatlay' ? null : { sinP, cosP, Dn, nL }, (x, y, z) =>
      layout === 'flatlay'
        ? [g.cx + x / flatScale, H / 2 - z / flatScale]
        : [g.cx + (f * x) / Math.max(1, z), g.yv + (f * (g.hc - y)) / Math.max(1, z)],
    ),
  );
  /** The solids whose shade reaches row `y`, and the columns it spans. */
  const rowShade = (y: number): { list: Solid[]; x0: number; x1: number } => {
    const list: Solid[] = [];
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const [i, r] of shadeBoxes.entries()) {
      if (y < r.y0 || y > r.y1) continue;
      list.push(solids[i]!);
      x0 = Math.min(x0, r.x0);
      x1 = Math.max(x1, r.x1);
    }
    return { list, x0, x1 };
  };

  const out = new Float64Array(5);
  /** Linear RGB of the row being shaded. */
  const lin = new Float32Array(W * 3);
  const sweepBand = layout === 'sweep' ? (22 * f) / g.D : 0;
  const wallTop = g.hc + (g.yv * g.D) / f;

  // The room's corner is darker: by the distance (cm) from it; the last value is kept (a row of
  // an unturned wall or floor asks for the same one).
  let cornerAt = Number.NaN;
  let cornerIs = 1;
  const cornerShade = (d: number): number => {
    if (d !== cornerAt) {
      cornerAt = d;
      cornerIs = 1 - 0.32 * Math.exp(-d / 9);
    }
    return cornerIs;
  };

  /** A wall (or sky) pixel; `shade`: the solids whose shadows reach its row. */
  const shadeWall = (x: number, yc: number, step: number, shade: ReturnType<typeof rowShade>): void => {
    const o = x * 3;
    if (sky) {
      sky.color(x + 0.5, yc, lin, o);
      return;
    }
    const t = tw[x]!;
    const X = (x + 0.5 - g.cx) / f;
    const h = g.hc - ((yc - g.yv) * t) / f;
    const px = X * t;
    const wu = t * (X * cosP - sinP);
    const fp = (t / f) * Math.max(step, sigma * 0.7);
    let ao = layout === 'room' ? cornerShade(h) : 1;
    const sw = layout === 'sweep' ? smoothstep(yh + 0.3 * sweepBand, yh - 0.7 * sweepBand, yc) : 1;
    wallMat!.shade(wu, h, fp, out);
    // On a sweep the upright part faces the camera, not the light: it takes less of it.
    let key = layout === 'sweep' ? (sweepIrr(wu, g.D + h) / E0) * (1 - sweepUpright * sw) : wallIrr(px, h, t) / E0;
    if (gobo) key *= gobo(px, h, t);
    if (layout === 'room') key *= 0.8 + 0.2 * ao;
    if (shade.list.length > 0 && x >= shade.x0 && x <= shade.x1)
      key *= 1 - 0.92 * solidShadow(shade.list, px, h, t, L.x, L.y, L.z, lightR);
    if (arch) {
      // A niche: its back set into the wall, in the shade of its rim on the light's side.
      const d = archSdf(wu, h, arch.cu, arch.a, arch.top);
      if (d < 1.5) {
        const inside = smoothstep(1.5, -1.5, d);
        const lx = L.x - px;
        const ly = L.y - h;
        const ln = Math.max(1, Dn - nL);
        const lu = lx * cosP - (L.z - t) * sinP;
        const exit = archSdf(wu + (arch.depth * lu) / ln, h + (arch.depth * ly) / ln, arch.cu, arch.a, arch.top);
        const rim = smoothstep(-1.2, 1.2, exit);
        key *= 1 - inside * rim * 0.85;
        ao *= 1 - inside * (0.12 + 0.2 * Math.exp(d / 4));
      }
    }
    const ambRow = amb * (1 - sw * (layout === 'sweep' ? 0.08 + 0.22 * Math.min(1, h / wallTop) : 0)) * ao;
    lin[o] = out[0]! * (ambRow * ambCol[0] + key * keyCol[0]) * exposure;
    lin[o + 1] = out[1]! * (ambRow * ambCol[1] + key * keyCol[1]) * exposure;
    lin[o + 2] = out[2]! * (ambRow * ambCol[2] + key * keyCol[2]) * exposure;
  };

  const shadeRow = (yc: number, step: number): void => {
    // ---- flat lay: the whole frame is the surface, seen from straight above.
    if (layout === 'flatlay') {
      const s = flatScale;
      const v = (H / 2 - yc) * s;
      const shade = rowShade(yc);
      for (let x = 0; x < W; x++) {
        const o = x * 3;
        const u = (x + 0.5 - g.cx) * s;
        floorMat.shade(u * rc - v * rs, u * rs + v * rc, s, out);
        let key = floorIrr(u, v) / E0;
        if (gobo) key *= gobo(u, 0, v);
        let a = amb;
        if (shade.list.length > 0 && x >= shade.x0 && x <= shade.x1) {
          key *= 1 - 0.92 * solidShadow(shade.list, u, 0, v, L.x, L.y, L.z, lightR);
          a *= solidOcclusion(shade.list, u, v);
        }
        lin[o] = out[0]! * (a * ambCol[0] + key * keyCol[0]) * exposure;
        lin[o + 1] = out[1]! * (a * ambCol[1] + key * keyCol[1]) * exposure;
        lin[o + 2] = out[2]! * (a * ambCol[2] + key * keyCol[2]) * exposure;
      }
      return;
    }
    // ---- the back: wall or sky (and, for a sweep, the upper part of the curve).
    const shade = rowShade(yc);
    if (yc < seamMin) {
      for (let x = 0; x < W; x += step) shadeWall(x, yc, step, shade);
      if (step === 2) fillOdd(lin, 0, W);
      return;
    }
    // ---- the floor, in perspective (and, where the seam slants, the wall above it).
    const z = g.K / (yc - g.yv);
    const fpu = z / f;
    const fpv = (z * z) / g.K;
    const fp = Math.max(fpu * step, Math.sqrt(fpu * fpv), fpu * defocus(yc) * sigma * 0.7);
    const t = layout === 'sweep' ? smoothstep(yh + 0.3 * sweepBand, yh - 0.7 * sweepBand, yc) : 0;
    // Camera ray geometry for gloss: view cosine, Fresnel.
    const cosV = g.hc / Math.sqrt(g.hc * g.hc + z * z);
    const fres = 0.04 + 0.96 * (1 - cosV) ** 5;
    const haze = sky ? Math.exp(-(yc - yh) / (0.06 * H)) * 0.45 : 0;
    const mixed = yc < seamMax;
    for (let x = 0; x < W; x += step) {
      if (mixed && yc < seamY[x]!) {
        shadeWall(x, yc, step, shade);
        continue;
      }
      const o = x * 3;
      const u = ((x + 0.5 - g.cx) * z) / f;
      floorMat.shade(u * rc - z * rs, u * rs + z * rc, fp, out);
      // Distance to the wall (perpendicular): the corner's occlusion.
      const ao = layout === 'room' ? cornerShade(Dn - u * sinP - z * cosP) : 1;
      let ambPx = amb * ao * (1 - 0.08 * t);
      let key: number;
      if (sky) key = 0.92 + 0.32 * ca * ((x + 0.5 - g.cx) / W);
      else key = layout === 'sweep' ? (sweepIrr(u, z) / E0) * (1 - sweepUpright * t) : floorIrr(u, z) / E0;
      const gob = gobo ? gobo(u, 0, z) : 1;
      key *= gob;
      if (layout === 'room') key *= 0.85 + 0.15 * ao;
      if (shade.list.length > 0 && x >= shade.x0 && x <= shade.x1) {
        key *= 1 - 0.92 * solidShadow(shade.list, u, 0, z, L.x, L.y, L.z, lightR);
        ambPx *= solidOcclusion(shade.list, u, z);
      }
      const gl = out[3]!;
      let r = out[0]! * (ambPx * ambCol[0] + key * keyCol[0]);
      let gg = out[1]! * (ambPx * ambCol[1] + key * keyCol[1]);
      let b = out[2]! * (ambPx * ambCol[2] + key * keyCol[2]);
      if (gl > 0.01) {
        // Specular lobe of the key light (half-vector against the floor normal).
        const vx = -u;
        const vy = g.hc;
        const vz = -z;
        const vl = 1 / Math.sqrt(vx * vx + vy * vy + vz * vz);
        const lx = L.x - u;
        const ly = L.y;
        const lz = L.z - z;
        const ll = 1 / Math.sqrt(lx * lx + ly * ly + lz * lz);
        const hx = vx * vl + lx * ll;
        const hy = vy * vl + ly * ll;
        const hz = vz * vl + lz * ll;
        const cosH = hy / Math.sqrt(hx * hx + hy * hy + hz * hz);
        const spec = Math.exp(-floorMat.specPower * (1 - cosH)) * gl * 0.5 * gob;
        // Fresnel reflection of the wall (or sky) behind, bent by ripples: the reflected ray runs
        // on up the same column and meets the wall where that column's ray does.
        const F = fres * gl;
        let rr: number;
        let rg: number;
        let rb: number;
        if (sky) {
          sky.reflect(x + 0.5, yc, out[4]!, out);
          rr = out[0]!;
          rg = out[1]!;
          rb = out[2]!;
        } else {
          const twx = tw[x]!;
          const hr = Math.max(0, (g.hc * (twx - z)) / z + out[4]! * (twx - z) * 0.5);
          const X = (x + 0.5 - g.cx) / f;
          const e =
            (amb * 0.85 + wallIrr(X * twx, hr, twx) / E0) * (layout === 'room' ? 1 - 0.3 * Math.exp(-hr / 9) : 1);
          rr = wallLin[0] * e * ambCol[0];
          rg = wallLin[1] * e * ambCol[1];
          rb = wallLin[2] * e * ambCol[2];
        }
        r = r * (1 - F) + rr * F + spec * keyCol[0];
        gg = gg * (1 - F) + rg * F + spec * keyCol[1];
        b = b * (1 - F) + rb * F + spec * keyCol[2];
      }
      if (haze > 0) {
        sky!.color(x + 0.5, g.yv + 0.5, lin, o);
        const k = haze / exposure;
        r = r * (1 - haze) + lin[o]! * k;
        gg = gg * (1 - haze) + lin[o + 1]! * k;
        b = b * (1 - haze) + lin[o + 2]! * k;
      }
      lin[o] = r * exposure;
      lin[o + 1] = gg * exposure;
      lin[o + 2] = b * exposure;
    }
    if (step === 2) fillOdd(lin, 0, W);
  };

  /**
   * Shades every row, handing each to `emit` (the same buffer, reused). Yields to the event loop
   * every few rows (a 1024² frame is a few hundred ms of work) and stops there when aborted.
   */
  const render = async (
    rowBlur: Float32Array,
    emit: (y: number, row: Float32Array) => void,
    signal?: AbortSignal,
  ): Promise<void> => {
    for (let y = 0; y < H; y++) rowBlur[y] = defocus(y + 0.5);
    // Rows that end up well blurred are shaded at half resolution (2×2 blocks): the blur hides it.
    const coarse = (y: number) => sigma >= 2 && rowBlur[y]! >= 0.45;
    const rowsPerSlice = Math.max(8, Math.floor(131072 / W));
    for (let y = 0; y < H; y++) {
      if (y > 0 && y % rowsPerSlice === 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
      const step = coarse(y) ? 2 : 1;
      // An odd row of a coarse pair repeats the row above (still in the buffer).
      if (!(step === 2 && y & 1 && coarse(y - 1))) shadeRow(y + 0.5, step);
      emit(y, lin);
    }
  };

  // The props: four rays a pixel over each prop's box on the frame, shaded with the set's light.
  const props = (tone: TonePixel): Overlay | undefined => {
    if (solids.length === 0) return undefined;
    const box = dressing.box;
    const ow = box.x1 - box.x0;
    const oh = box.y1 - box.y0;
    if (ow <= 0 || oh <= 0) return undefined;
    const rgb = new Float32Array(ow * oh * 3);
    const a = new Float32Array(ow * oh);
    const hit: Hit = { t: 0, nx: 0, ny: 0, nz: 0, u: 0, v: 0, solid: 0 };
    const mats = dressing.materials(noise, seed, colors, variants);
    const px = new Float32Array(3);
    const wrap = 0.35 * (1 - hard);
    let levels = 0;
    let count = 0;
    for (const s of solids) {
      levels += layout === 'flatlay' ? 0 : defocusAt(s.z);
      count++;
    }
    // The ray through a point of the frame: a flat lay's straight down from high above it, else
    // from the lens (its length: one unit of depth).
    const ray: Ray =
      layout === 'flatlay'
        ? { ox: 0, oy: 1e4, oz: 0, dx: 0, dy: -1, dz: 0 }
        : { ox: 0, oy: g.hc, oz: 0, dx: 0, dy: 0, dz: 1 };
    const tMax = layout === 'flatlay' ? 2e4 : 1e6;
    const cast = (sx: number, sy: number): boolean => {
      if (layout === 'flatlay') {
        ray.ox = (sx - g.cx) * flatScale;
        ray.oz = (H / 2 - sy) * flatScale;
      } else {
        ray.dx = (sx - g.cx) / f;
        ray.dy = (g.yv - sy) / f;
      }
      return intersectSolids(solids, ray, tMax, hit);
    };
    /** Adds the lit colour of the solid the ray through (sx, sy) meets to `sum`; false on a miss. */
    const sum = new Float64Array(3);
    const sample = (sx: number, sy: number): boolean => {
      if (!cast(sx, sy)) return false;
      const so = solids[hit.solid]!;
      // The point hit, along the ray just cast.
      const hx = ray.ox + ray.dx * hit.t;
      const hy = ray.oy + ray.dy * hit.t;
      const hz = ray.oz + ray.dz * hit.t;
      mats[so.accent ? 1 : 0]!.shade(hit.u, hit.v, layout === 'flatlay' ? flatScale : hit.t / f, out);
      const lx = L.x - hx;
      const ly = L.y - hy;
      const lz = L.z - hz;
      const d2 = lx * lx + ly * ly + lz * lz + soft2;
      const cosL = (hit.nx * lx + hit.ny * ly + hit.nz * lz) / Math.sqrt(d2);
      let key = Math.max(0, (cosL + wrap) / (1 + wrap)) / (d2 * E0);
      if (gobo) key *= gobo(hx, hy, hz);
      // Sky above, the floor's shade near the foot.
      const ambK = amb * (0.68 + 0.32 * (0.5 + 0.5 * hit.ny)) * (1 - 0.3 * Math.exp(-hy / (0.06 * so.h + 0.4)));
      sum[0]! += out[0]! * (ambK * ambCol[0] + key * keyCol[0]) * exposure;
      sum[1]! += out[1]! * (ambK * ambCol[1] + key * keyCol[1]) * exposure;
      sum[2]! += out[2]! * (ambK * ambCol[2] + key * keyCol[2]) * exposure;
      return true;
    };
    // One ray a pixel first (which solid, if any); four where a solid's outline passes.
    const mw = ow + 2;
    const which = new Int8Array(mw * (oh + 2)).fill(-1);
    for (let y = box.y0 - 1; y <= box.y1; y++) {
      for (let x = box.x0 - 1; x <= box.x1; x++) {
        if (cast(x + 0.5, y + 0.5)) which[(y - box.y0 + 1) * mw + x - box.x0 + 1] = hit.solid;
      }
    }
    for (let y = box.y0; y < box.y1; y++) {
      for (let x = box.x0; x < box.x1; x++) {
        const m = (y - box.y0 + 1) * mw + x - box.x0 + 1;
        const centre = which[m]!;
        let edge = false;
        for (let dy = -mw; dy <= mw && !edge; dy += mw) {
          for (let dx = -1; dx <= 1; dx++) if (which[m + dy + dx] !== centre) edge = true;
        }
        if (!edge && centre < 0) continue;
        sum.fill(0);
        let cover = 0;
        if (!edge) cover = sample(x + 0.5, y + 0.5) ? 1 : 0;
        else {
          for (let k = 0; k < 4; k++) if (sample(x + 0.25 + 0.5 * (k & 1), y + 0.25 + 0.5 * (k >> 1))) cover += 0.25;
        }
        if (cover <= 0) continue;
        const n = edge ? cover * 4 : 1;
        const q = (y - box.y0) * ow + (x - box.x0);
        tone(sum[0]! / n, sum[1]! / n, sum[2]! / n, x, y, px, 0);
        rgb[q * 3] = px[0]! * cover;
        rgb[q * 3 + 1] = px[1]! * cover;
        rgb[q * 3 + 2] = px[2]! * cover;
        a[q] = cover;
      }
    }
    // Behind the product the props are a little out of focus.
    const blur = sigma * (levels / Math.max(1, count)) * 0.8;
    if (blur >= 0.5) {
      const r = Math.max(1, Math.round(blur * 0.9));
      for (let c = 0; c < 3; c++) blurChannel(rgb, ow, oh, 3, c, r);
      blurChannel(a, ow, oh, 1, 0, r);
    }
    return { x0: box.x0, y0: box.y0, w: ow, h: oh, rgb, a };
  };

  // What the scene engine needs to light the products alike: the key seen from the product's spot.
  const hs = layout === 'flatlay' ? 0 : 0.12 * ((H * zf) / f);
  const zs = layout === 'flatlay' ? (H / 2 - 0.62 * H) * flatScale : zf;
  const kx = L.x - xs;
  const ky = L.y - hs;
  const kz = -(L.z - zs);
  const kl = Math.hypot(kx, ky, kz) || 1;
  const keyAt = layout === 'flatlay' ? floorIrr(xs, zs) / E0 : floorIrr(xs, zf) / E0;
  return {
    render,
    props,
    sigma,
    vignette: 0.2 - 0.12 * mood,
    grain: 1 + 0.35 * Math.max(0, -mood),
    horizon: layout === 'room' && psi !== 0 ? round3(seamMid / H) : horizon,
    light: {
      key: { x: round3(kx / kl), y: round3(ky / kl), z: round3(kz / kl) },
      hardness: round3(hard),
      temperature: round3(temp),
      fill: round3(amb / (amb + keyAt)),
    },
    camera: layout === 'flatlay' ? 1 : round3(g.hc / zf),
  };
}
/** Copies each even pixel of a row into the odd one after it (half-resolution rows). */
function fillOdd(lin: Float32Array, o: number, W: number): void {
  for (let x = 1; x < W; x += 2) {
    const d = o + x * 3;
    lin[d] = lin[d - 3]!;
    lin[d + 1] = lin[d - 2]!;
    lin[d + 2] = lin[d - 1]!;
  }
}

/**
 * A hard light's shadow pattern: `(u, h, z)` world point → 0..1 light let through. Window panes
 * (mullions, frame) or foliage, projected along the light onto a plane across it.
 */
function makeGobo(
  plan: EnvironmentPlan,
  ca: number,
  sa: number,
  g: Geometry,
  noise: Noise,
  seed: number,
): ((u: number, h: number, z: number) => number) | null {
  const kind = plan.light.gobo;
  if (kind === 'none') return null;
  // Direction towards the light: sideways, up, and towards the camera (so the wall is lit).
  let sx = ca;
  let sy = Math.max(0.35, sa);
  let sz = -0.55;
  const n = Math.hypot(sx, sy, sz);
  sx /= n;
  sy /= n;
  sz /= n;
  // Plane axes across the light: e1 horizontal, e2 = e1 × s.
  let e1x = sz;
  let e1z = -sx;
  const m = Math.hypot(e1x, e1z) || 1;
  e1x /= m;
  e1z /= m;
  const e2x = e1z * sy;
  const e2y = e1z * sx - e1x * sz;
  const e2z = -e1x * sy;
  // Centre the pattern a little off the product, on the wall behind it.
  const px = 0;
  const py = 25;
  const pz = g.D;
  const ca0 = px * e1x + pz * e1z;
  const cb0 = px * e2x + py * e2y + pz * e2z;
  const sc0 = px * sx + py * sy + pz * sz;
  const paneW = 34;
  const paneH = 46;
  const bar = 3.2;
  // Palm fronds: from a plant high on the light's side, reaching across the wall behind the set.
  const rng = prng(seed ^ 0xfa1);
  const toPlane = (u: number, h: number, z: number): [number, number] => [
    u * e1x + z * e1z - ca0,
    u * e2x + h * e2y + z * e2z - cb0,
  ];
  const wallHalf = (g.W / 2) * (g.D / g.f);
  const [oa, ob] = toPlane((ca >= 0 ? 1 : -1) * wallHalf * 1.1, 95, g.D);
  const [ta, tb] = toPlane(0, 25, g.D);
  const towards = Math.atan2(tb - ob, ta - oa);
  const fronds = Array.from({ length: 3 }, (_, i) => {
    const ang = towards + (i - 1) * 0.45 + (rng() - 0.5) * 0.25;
    return {
      ox: oa + (rng() - 0.5) * 10,
      oy: ob + (rng() - 0.5) * 10,
      c: Math.cos(ang),
      s: Math.sin(ang),
      len: 95 + rng() * 30,
      width: 26 + rng() * 8,
      droop: (rng() - 0.3) * 0.35,
      spacing: 6 + rng() * 2,
    };
  });
  return (u, h, z) => {
    const a = u * e1x + z * e1z - ca0;
    const b = u * e2x + h * e2y + z * e2z - cb0;
    const dist = Math.max(0, 120 + (sc0 - (u * sx + h * sy + z * sz)));
    const pen = 0.5 + dist * 0.018 + (1 - plan.light.hardness) * 5;
    if (kind === 'leaves') {
      // Clusters of small leaves: fine blobs, thinned out where a coarse noise says "gap".
      const cluster = noise.noise(a * 0.018 + 50, b * 0.018);
      const q = noise.fbm(a * 0.11 + 100, b * 0.11, 3, pen * 0.11) + 0.55 * cluster;
      const e = 0.06 + pen * 0.012;
      return 0.14 + 0.86 * smoothstep(0.05 - e, 0.05 + e, -q);
    }
    if (kind === 'palm') {
      let shadow = 0;
      for (const fr of fronds) {
        const dx = a - fr.ox;
        const dy = b - fr.oy;
        const t = dx * fr.c + dy * fr.s;
        if (t < -pen || t > fr.len + pen) continue;
        const d = Math.abs(-dx * fr.s + dy * fr.c - (fr.droop * t * t) / fr.len);
        const tt = Math.min(1, Math.max(0, t / fr.len));
        const w = fr.width * Math.sin(Math.PI * (0.15 + 0.85 * tt)) ** 0.7 + 1;
        const env = 1 - smoothstep(w - pen, w + pen, d);
        if (env <= 0) continue;
        // Leaflets: strips slanting back and drooping from the rib, unevenly spaced, thinning at
        // their tips; soft when the shadow falls far from the plant.
        const ph = (t + d * 1.25 + 0.004 * d * d + 2.2 * noise.noise(t * 0.04 + fr.ox, d > 0 ? 3 : 7)) / fr.spacing;
        const fr01 = ph - Math.floor(ph);
        const e = Math.min(0.3, pen / fr.spacing);
        const wl = 0.5 * (1 - 0.5 * (d / w) ** 2);
        const leaflet = smoothstep(0, e, fr01) * (1 - smoothstep(wl - e, wl + e, fr01));
        const rib = 1 - smoothstep(0.8 - pen, 0.8 + pen, d);
        const avg = 0.4;
        const k = Math.min(1, pen / fr.spacing);
        shadow = Math.max(shadow, env * Math.max(leaflet * (1 - k) + avg * k, rib));
      }
      return 0.14 + 0.86 * (1 - shadow);
    }
    // Two by two panes (plus a margin frame), offset so the light falls across the set.
    const ax = a + paneW * 0.35;
    const bx = b + paneH * 0.2;
    const inside =
      smoothstep(-paneW - pen, -paneW + pen, ax) *
      (1 - smoothstep(paneW - pen, paneW + pen, ax)) *
      smoothstep(-paneH - pen, -paneH + pen, bx) *
      (1 - smoothstep(paneH - pen, paneH + pen, bx));
    const mull =
      (1 - smoothstep(bar * 0.5, bar * 0.5 + pen, Math.abs(ax))) * 0.9 +
      (1 - smoothstep(bar * 0.5, bar * 0.5 + pen, Math.abs(bx))) * 0.9;
    return 0.14 + 0.86 * inside * (1 - Math.min(1, mull));
  };
}

/** Outdoor sky (gradient, sun glow, faint cloud) and a sea band for beaches; emissive. */
function makeSky(
  plan: EnvironmentPlan,
  colors: EnvironmentColors,
  g: Geometry,
  ca: number,
  sa: number,
  noise: Noise,
): {
  color(x: number, y: number, lin: Float32Array, o: number): void;
  reflect(x: number, y: number, slope: number, out: Float64Array): void;
} {
  const t = plan.light.temperature;
  const mood = plan.mood;
  const mixc = (a: Rgb, b: Rgb, k: number): Rgb => [
    a[0] + (b[0] - a[0]) * k,
    a[1] + (b[1] - a[1]) * k,
    a[2] + (b[2] - a[2]) * k,
  ];
  let zenith: Rgb = [116, 156, 204];
  let horizonC: Rgb = [214, 224, 232];
  if (t > 0) {
    zenith = mixc(zenith, [136, 150, 190], t);
    horizonC = mixc(horizonC, [252, 200, 150], t);
  } else if (t < 0) {
    zenith = mixc(zenith, [70, 92, 140], -t);
    horizonC = mixc(horizonC, [170, 178, 200], -t);
  }
  if (plan.wallColor) horizonC = mixc(horizonC, plan.wallColor, 0.35);
  const z = toLin(zenith);
  const hzn = toLin(horizonC);
  const sea = plan.variants.includes('sea') && plan.floor !== 'water';
  const seaLin = toLin(mixc([52, 96, 122], colors.wall, 0.15));
  const sunX = g.cx + ca * g.W * 0.55;
  const sunY = g.yv - Math.max(0.05, sa * 0.6) * g.H * 0.6;
  const glowR2 = (0.35 * Math.max(g.W, g.H)) ** 2;
  const sun = toLin([255, 236, 200]);
  const bright = 0.95 + 0.15 * mood;
  const skyAt = (x: number, y: number, out: Float64Array | Float32Array, o: number): void => {
    const k = Math.min(1, Math.max(0, (g.yv - y) / Math.max(1, g.yv)));
    const e = k ** 0.55;
    const dx = x - sunX;
    const dy = y - sunY;
    const glow = Math.exp(-(dx * dx + dy * dy) / glowR2) * (0.35 + 0.4 * Math.max(0, t));
    const cloud = Math.max(0, noise.fbm((x / g.W) * 2.2 + 30, (y / g.H) * 7, 4, 2 / g.W)) * 0.14 * e;
    for (let c = 0; c < 3; c++) {
      const base = hzn[c]! + (z[c]! - hzn[c]!) * e;
      out[o + c] = (base * (1 + cloud) + sun[c]! * glow) * bright;
    }
  };
  return {
    color(x, y, lin, o) {
      if (sea && y >= g.yv) {
        // Sea between the sand and the true horizon: darker water reflecting the sky near it.
        const k = (y - g.yv) / Math.max(1, g.yh - g.yv);
        const streak = noise.noise(x * 0.01, y * 0.35) * 0.08;
        skyAt(x, g.yv - (y - g.yv) * 3, lin, o);
        const refl = 0.45 * (1 - k) + 0.1;
        for (let c = 0; c < 3; c++) lin[o + c] = lin[o + c]! * refl + seaLin[c]! * (1 - refl) * (1 + streak) * bright;
        return;
      }
      skyAt(x, y, lin, o);
    },
    reflect(x, y, slope, out) {
      const my = g.yv - (y - g.yv) * 0.9 - slope * 40;
      skyAt(x, Math.min(g.yv, my), out, 0);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Tone, depth of field, grain

/** Filmic shoulder on luminance (0..4 in 4096 steps): the factor that maps L to shoulder(L). */
const SHOULDER_LUT = (() => {
  const n = 4096;
  const lut = new Float32Array(n + 1);
  for (let i = 0; i <= n; i++) {
    const x = Math.max(1e-6, (i / n) * 4);
    const y = x < 0.62 ? x : 0.62 + 0.36 * (1 - Math.exp(-(x - 0.62) / 0.36));
    lut[i] = y / x;
  }
  return lut;
})();

/** Linear 0..1 → sRGB 0..255, 8192 steps (fine enough in the shadows with the dither). */
const SRGB_LUT = (() => {
  const n = 8192;
  const lut = new Float32Array(n + 1);
  for (let i = 0; i <= n; i++) {
    const y = i / n;
    const s = y <= 0.0031308 ? 12.92 * y : 1.055 * y ** (1 / 2.4) - 0.055;
    lut[i] = s * 255;
  }
  return lut;
})();

/**
 * A row consumer and a pixel toner: vignette in linear light, a filmic shoulder on luminance, sRGB,
 * a little dither (8-bit RGB).
 */
function makeTone(W: number, H: number, vignette: number, seed: number) {
  const cx = W / 2;
  const cy = H / 2;
  const rx = 1 / (0.5 * Math.hypot(W, H));
  const vx = new Float32Array(W);
  for (let x = 0; x < W; x++) vx[x] = ((x + 0.5 - cx) * rx) ** 2 * 1.25;
  const pixel = (
    r: number,
    g: number,
    b: number,
    x: number,
    y: number,
    out: Float32Array | Buffer,
    o: number,
  ): void => {
    // Weaker top to bottom than side to side, so the floor near the camera is not dimmed.
    const r2 = vx[x]! + ((y + 0.5 - cy) * rx) ** 2 * 0.6;
    const vig = 1 - vignette * r2 * (1.3 - 0.3 * r2);
    const d = hash2(x, y, seed) - 0.5;
    r *= vig;
    g *= vig;
    b *= vig;
    const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const k = SHOULDER_LUT[l <= 0 ? 0 : l >= 4 ? 4096 : (l * 1024) | 0]!;
    r *= k;
    g *= k;
    b *= k;
    // A channel past white bleeds into the others (highlights go to white, not to a hue).
    const over = Math.max(r, g, b) - 1;
    if (over > 0) {
      const w = Math.min(1, over * 1.5);
      r = Math.min(1, r + (1 - r) * w);
      g = Math.min(1, g + (1 - g) * w);
      b = Math.min(1, b + (1 - b) * w);
    }
    out[o] = tone8(r, d);
    out[o + 1] = tone8(g, d);
    out[o + 2] = tone8(b, d);
  };
  return {
    pixel,
    row(pre: Buffer, y: number, lin: Float32Array): void {
      for (let x = 0, i = 0, o = y * W * 3; x < W; x++, i += 3, o += 3)
        pixel(lin[i]!, lin[i + 1]!, lin[i + 2]!, x, y, pre, o);
    },
  };
}

/** Depth of field (two blurs mixed per row by its defocus), the props laid over, film grain. */
async function finish(
  pre: Buffer,
  rowBlur: Float32Array,
  W: number,
  H: number,
  sigma: number,
  grain: number,
  seed: number,
  overlay: Overlay | undefined,
  signal?: AbortSignal,
): Promise<Buffer> {
  signal?.throwIfAborted();
  let b1: Buffer | null = null;
  let b2: Buffer | null = null;
  if (sigma > 0.3) {
    const raw = { raw: { width: W, height: H, channels: 3 as const } };
    [b1, b2] = await Promise.all([
      sharp(pre, raw)
        .blur(Math.max(0.3, sigma * 0.4))
        .raw()
        .toBuffer(),
      sharp(pre, raw).blur(sigma).raw().toBuffer(),
    ]);
  }
  // Per row: mix sharp → light blur → full blur by the row's defocus; the props over; then grain.
  const out = Buffer.allocUnsafe(W * H * 3);
  const amp = 2.6 * grain;
  for (let y = 0; y < H; y++) {
    const level = b1 ? Math.min(1, Math.max(0, rowBlur[y]!)) : 0;
    let o = y * W * 3;
    const a = level < 0.4 ? pre : b1!;
    const b = level < 0.4 ? b1 : b2;
    const k = level < 0.4 ? level / 0.4 : (level - 0.4) / 0.6;
    const oy = overlay && y >= overlay.y0 && y < overlay.y0 + overlay.h ? y - overlay.y0 : -1;
    for (let x = 0; x < W; x++, o += 3) {
      // One 32-bit hash → a triangular mono grain and three small chroma offsets.
      const h = hashBits(x, y, seed);
      const mono = (((h & 255) + ((h >>> 8) & 255)) / 255 - 1) * amp;
      const cr = (((h >>> 16) & 63) / 63 - 0.5) * 0.9;
      const cg = (((h >>> 22) & 63) / 63 - 0.5) * 0.9;
      const cb = (((h >>> 26) & 63) / 63 - 0.5) * 0.9;
      const ox = oy >= 0 ? x - overlay!.x0 : -1;
      const q = ox >= 0 && ox < overlay!.w ? oy * overlay!.w + ox : -1;
      const cover = q >= 0 ? overlay!.a[q]! : 0;
      for (let c = 0; c < 3; c++) {
        let base = b && k > 0 ? a[o + c]! + (b[o + c]! - a[o + c]!) * k : a[o + c]!;
        if (cover > 0) base = base * (1 - cover) + overlay!.rgb[q * 3 + c]!;
        // Grain is strongest in the mid-tones.
        const mid = 0.55 + base * (255 - base) * 0.0000277;
        const v = base + (mono + (c === 0 ? cr : c === 1 ? cg : cb)) * mid;
        out[o + c] = v < 0 ? 0 : v > 255 ? 255 : v + 0.5;
      }
    }
  }
  return out;
}

function tone8(l: number, dither: number): number {
  const v = SRGB_LUT[l <= 0 ? 0 : l >= 1 ? 8192 : (l * 8192) | 0]! + dither + 0.5;
  return Math.min(255, Math.max(0, v));
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** A box blur (three passes, about a Gaussian) of one channel of an interleaved plane, in place. */
function blurChannel(data: Float32Array, w: number, h: number, stride: number, c: number, r: number): void {
  const line = new Float32Array(Math.max(w, h));
  for (let pass = 0; pass < 3; pass++) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) line[x] = data[(y * w + x) * stride + c]!;
      boxLine(line, w, r, (x, v) => {
        data[(y * w + x) * stride + c] = v;
      });
    }
    for (let x = 0; x < w; x++) {
      for (let y = 0; y < h; y++) line[y] = data[(y * w + x) * stride + c]!;
      boxLine(line, h, r, (y, v) => {
        data[(y * w + x) * stride + c] = v;
      });
    }
  }
}

/** Running mean of `n` values over a window of 2r + 1 (edges clamped), handed to `put`. */
function boxLine(line: Float32Array, n: number, r: number, put: (i: number, v: number) => void): void {
  let sum = 0;
  for (let i = -r; i <= r; i++) sum += line[Math.min(n - 1, Math.max(0, i))]!;
  const k = 1 / (2 * r + 1);
  for (let i = 0; i < n; i++) {
    const v = sum * k;
    sum += line[Math.min(n - 1, i + r + 1)]! - line[Math.max(0, i - r)]!;
    put(i, v);
  }
}

// ---------------------------------------------------------------------------------------------
// Set dressing

/**
 * The frame box (px) where a solid's shadow and the shade at its foot can fall: its bounding box's
 * corners, and where the light projects them onto the floor and the wall (a very low light's
 * shadow is cut at four heights), with a margin for the penumbra and the foot's occlusion.
 */
function shadowReach(
  s: Solid,
  L: { x: number; y: number; z: number },
  wall: { sinP: number; cosP: number; Dn: number; nL: number } | null,
  project: (x: number, y: number, z: number) => [number, number],
): { x0: number; y0: number; x1: number; y1: number } {
  const r = Math.sqrt(s.rx * s.rx + s.rz * s.rz) * 1.6 + 0.2 * s.h + 2;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (x: number, y: number, z: number) => {
    const [px, py] = project(x, y, z);
    x0 = Math.min(x0, px);
    x1 = Math.max(x1, px);
    y0 = Math.min(y0, py);
    y1 = Math.max(y1, py);
  };
  for (const dx of [-r, r]) {
    for (const dz of [-r, r]) {
      for (const cy of [0, s.h]) {
        const cx = s.x + dx;
        const cz = s.z + dz;
        add(cx, cy, cz);
        // Onto the floor, along the light (at most four heights away).
        const vx = cx - L.x;
        const vy = cy - L.y;
        const vz = cz - L.z;
        const k = vy < -1e-6 ? Math.min(-L.y / vy, 1 + (4 * s.h) / Math.max(1, Math.sqrt(vx * vx + vz * vz))) : 1;
        add(L.x + vx * k, Math.max(0, L.y + vy * k), L.z + vz * k);
        // Onto the wall.
        if (wall) {
          const nv = vx * wall.sinP + vz * wall.cosP;
          if (nv > 1e-6) {
            const kw = (wall.Dn - wall.nL) / nv;
            if (kw > 1) add(L.x + vx * kw, Math.max(0, L.y + vy * kw), L.z + vz * kw);
          }
        }
      }
    }
  }
  return { x0: Math.floor(x0) - 4, y0: Math.floor(y0) - 4, x1: Math.ceil(x1) + 4, y1: Math.ceil(y1) + 4 };
}

interface Arch {
  /** Centre along the wall, half width, height of its crown, depth of the niche (cm). */
  cu: number;
  a: number;
  top: number;
  depth: number;
}

interface Dressing {
  solids: Solid[];
  arch: Arch | null;
  /** The part of the frame the solids cover (px, half-open). */
  box: { x0: number; y0: number; x1: number; y1: number };
  /** The props' paints: the set's own tone, the brand's accent. */
  materials(noise: Noise, seed: number, colors: EnvironmentColors, variants: ReadonlySet<string>): [Material, Material];
}

/**
 * The shot's props placed in the set: each at its offset from the product toward the open side of
 * the frame, between the product and the wall (kept clear of it), sized from the frame at the
 * product's distance. The arch is a niche in a room's wall. A flat lay's props are low.
 */
function dressSet(
  plan: EnvironmentPlan,
  shot: Shot,
  g: Geometry,
  o: {
    xs: number;
    Dn: number;
    sinP: number;
    cosP: number;
    flatScale: number;
    lightFromLeft: boolean;
    tw: Float32Array;
  },
): Dressing {
  const layout = plan.layout;
  const flat = layout === 'flatlay';
  const { W, H, f, zf } = g;
  const open = openSide(shot.subjectX, o.lightFromLeft ? 1 : -1);
  // Sizes from the frame's short side at the product's distance (a tall frame's props stay in scale).
  const frameCm = flat ? Math.min(W, H) * o.flatScale : (Math.min(W, H) * zf) / f;
  const psi = Math.atan2(o.sinP, o.cosP);
  const solids: Solid[] = [];
  let arch: Arch | null = null;
  for (const p of shot.props) {
    const xi = (shot.subjectX + open * p.offset) * W;
    const hCm = p.height * frameCm;
    const wCm = hCm * p.aspect;
    if (p.kind === 'arch') {
      if (layout !== 'room') continue;
      const col = Math.min(W - 1, Math.max(0, Math.round(xi)));
      const t = o.tw[col]!;
      const X = (col + 0.5 - g.cx) / f;
      const visible = g.hc + (g.yv * t) / f;
      const top = Math.min(0.8 * visible, (p.height * H * t) / f);
      arch = { cu: t * (X * o.cosP - o.sinP), a: 0.5 * p.aspect * top, top, depth: 0.07 * top };
      continue;
    }
    const reachR = p.kind === 'steps' ? wCm * 0.55 : wCm * 0.5;
    let x: number;
    let z: number;
    if (flat) {
      x = (xi - g.cx) * o.flatScale;
      z = (H / 2 - H * (0.68 - 0.4 * p.behind)) * o.flatScale;
    } else {
      const gap = layout === 'outdoor' ? 80 : g.D - zf;
      z = zf + p.behind * gap * 0.8;
      x = ((xi - g.cx) * z) / f;
      if (layout !== 'outdoor') {
        // Clear of the wall: its far side a few centimetres in front of it.
        const over = x * o.sinP + z * o.cosP + reachR + 3 - o.Dn;
        if (over > 0) {
          z -= over / o.cosP;
          x = ((xi - g.cx) * z) / f;
        }
      }
    }
    const h = flat ? Math.min(hCm, 6) : hCm;
    const accent = p.accent;
    if (p.kind === 'plinth' || p.kind === 'column') {
      solids.push({ kind: 'cylinder', x, z, h, rx: wCm / 2, rz: wCm / 2, yaw: 0, accent });
    } else if (p.kind === 'block') {
      solids.push({ kind: 'block', x, z, h, rx: wCm / 2, rz: wCm * 0.35, yaw: -psi, accent });
    } else {
      // Steps: a long low block, and a short tall one on its outer end.
      const c = Math.cos(-psi);
      const s = Math.sin(-psi);
      solids.push({ kind: 'block', x, z, h: h * 0.5, rx: wCm / 2, rz: wCm * 0.3, yaw: -psi, accent });
      const k = open * wCm * 0.25;
      solids.push({ kind: 'block', x: x + k * c, z: z + k * s, h, rx: wCm * 0.25, rz: wCm * 0.3, yaw: -psi, accent });
    }
  }
  // The frame box the solids cover: their bounding boxes' corners projected.
  let x0 = W;
  let y0 = H;
  let x1 = 0;
  let y1 = 0;
  for (const s of solids) {
    const r = Math.hypot(s.rx, s.rz);
    for (const dx of [-r, r]) {
      for (const dz of [-r, r]) {
        for (const hy of [0, s.h]) {
          let px: number;
          let py: number;
          if (flat) {
            px = g.cx + (s.x + dx) / o.flatScale;
            py = H / 2 - (s.z + dz) / o.flatScale;
          } else {
            const zz = Math.max(1, s.z + dz);
            px = g.cx + (f * (s.x + dx)) / zz;
            py = g.yv + (f * (g.hc - hy)) / zz;
          }
          x0 = Math.min(x0, px);
          x1 = Math.max(x1, px);
          y0 = Math.min(y0, py);
          y1 = Math.max(y1, py);
        }
      }
    }
  }
  const box = {
    x0: Math.max(0, Math.floor(x0) - 2),
    y0: Math.max(0, Math.floor(y0) - 2),
    x1: Math.min(W, Math.ceil(x1) + 2),
    y1: Math.min(H, Math.ceil(y1) + 2),
  };
  return {
    solids,
    arch,
    box,
    materials(noise, seed, colors, variants) {
      // The set's own tone: the wall's colour a step lighter (a darker step on a pale wall).
      const w = colors.wall;
      const l = (0.2126 * w[0] + 0.7152 * w[1] + 0.0722 * w[2]) / 255;
      const tonal: Rgb =
        l > 0.72
          ? [w[0] * 0.9, w[1] * 0.9, w[2] * 0.9]
          : [w[0] + (255 - w[0]) * 0.22, w[1] + (255 - w[1]) * 0.22, w[2] + (255 - w[2]) * 0.22];
      const ctx = {
        noise,
        seed: seed ^ 0x5e7,
        accents: colors.accents,
        variants,
        lightU: 0,
        lightV: 1,
        plane: 'wall' as const,
      };
      return [
        createMaterial('plaster', { ...ctx, color: tonal }),
        createMaterial('plaster', { ...ctx, color: colors.brandAccent ?? tonal }),
      ];
    },
  };
}

/**
 * The local environment engine: a procedural, photographic-looking set (a surface in perspective
 * meeting a wall, a seamless paper sweep, ground under a sky, or a flat lay) rendered from the
 * prompt's words and the brand palette, offline, deterministic for a seed.
 *
 * Pipeline: the prompt is read into a plan (environment-prompt.ts); every pixel is ray-cast onto
 * the floor plane or the back wall, shaded by a material (materials.ts, in centimetres, filtered
 * by the pixel's footprint) and lit in linear light by a soft key light (inverse-square falloff,
 * its side and height from the plan), an ambient dome with corner occlusion, a glossy lobe and
 * Fresnel reflections of the wall on polished floors, and an optional window or foliage pattern.
 * Then: filmic tone curve, vignette, depth of field (two blurs mixed by each row's distance from
 * the focus plane), film grain, PNG. All per-pixel work is on typed arrays; sharp only blurs and
 * encodes.
 */
import sharp from 'sharp';
import type { EnvironmentEngine, EnvironmentRequest, EnvironmentResult } from '../environment-engine.ts';
import { type EngineWarning, GenerationError } from '../../image/scene-engine.ts';
import {
  type EnvironmentColors,
  type EnvironmentPlan,
  parseHex,
  type Rgb,
  readEnvironmentPrompt,
  resolveColors,
} from './environment-prompt.ts';
import { createMaterial, type Lin, type Material, toLin } from './materials.ts';
import { createNoise, createRng, hash2, hashBits, type Noise, smoothstep } from './noise.ts';

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
        message: `palette colour ${JSON.stringify(hex)} is not #rrggbb and was ignored`,
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
  const rendered = await renderEnvironment(plan, colors, width, height, req.seed, req.signal);
  req.signal?.throwIfAborted();
  if (colors.brandAccent) paintAccentProp(rendered, plan, colors.brandAccent, width, height, req.seed);
  const png = await sharp(rendered.rgb, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return {
    png,
    width,
    height,
    horizon: rendered.horizon,
    lightAngle: rendered.lightAngle,
    warnings,
    engine: 'local',
  };
}

export interface RenderedEnvironment {
  /** Raw RGB, 3 bytes a pixel, row-major. */
  rgb: Buffer;
  horizon: number;
  lightAngle: number;
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** Camera and set geometry in centimetres and pixels. */
interface Geometry {
  W: number;
  H: number;
  cx: number;
  /** Floor line (px from the top), vanishing line, focal length (px). */
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
 * Renders a plan to raw RGB: the same plan, colours, size and seed give the same bytes. Seeded
 * choices: which side an unspecified light comes from, a small horizon shift, the noise.
 */
export async function renderEnvironment(
  plan: EnvironmentPlan,
  colors: EnvironmentColors,
  W: number,
  H: number,
  seed: number,
  signal?: AbortSignal,
): Promise<RenderedEnvironment> {
  const s = (Math.floor(Math.abs(seed)) ^ Math.floor(Math.abs(seed) / 4294967296) ^ (seed < 0 ? 0x5bd1e995 : 0)) >>> 0;
  const rng = createRng(s ^ 0x9e3779b9);
  let angle = plan.light.angle;
  if (!plan.light.sideGiven && angle !== 90 && rng() < 0.5) angle = 180 - angle;
  const horizon = plan.layout === 'flatlay' ? 0 : round3(plan.horizon + (rng() - 0.5) * 0.03);
  const noise = createNoise(s);

  const rowBlur = new Float32Array(H);
  const scene = buildScene(plan, colors, W, H, horizon, angle, s, noise);
  // Rows are tone-mapped to 8-bit as they are shaded: no full-frame float buffer.
  const pre = Buffer.allocUnsafe(W * H * 3);
  await scene.render(rowBlur, toneRows(pre, W, H, scene.vignette, s), signal);
  signal?.throwIfAborted();
  const rgb = await finish(pre, rowBlur, W, H, scene.sigma, scene.grain, s, signal);
  return { rgb, horizon, lightAngle: Math.round(angle) };
}

interface Scene {
  render(rowBlur: Float32Array, emit: (y: number, row: Float32Array) => void, signal?: AbortSignal): Promise<void>;
  /** Depth-of-field blur (px) of the most defocused rows. */
  sigma: number;
  vignette: number;
  grain: number;
}

function buildScene(
  plan: EnvironmentPlan,
  colors: EnvironmentColors,
  W: number,
  H: number,
  horizon: number,
  angle: number,
  seed: number,
  noise: Noise,
): Scene {
  const layout = plan.layout;
  const mood = plan.mood;
  const hard = plan.light.hardness;
  const temp = plan.light.temperature;
  const theta = (angle * Math.PI) / 180;
  const ca = Math.cos(theta);
  const sa = Math.sin(theta);
  const side = Math.max(W, H);

  // Geometry: a pinhole camera over the floor plane; the floor line at `horizon`.
  const yh = horizon * H;
  const R = layout === 'sweep' ? 2.6 : layout === 'outdoor' ? 14 : 3;
  const z0 = 50;
  const yv = layout === 'flatlay' ? 0 : yh - (H - yh) / (R - 1);
  const K = z0 * (H - yv);
  const f = 0.95 * side;
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

  // Light: a soft key (a point light with an area-like softening) and a coloured ambient.
  const D = layout === 'outdoor' ? 150 : g.D;
  const reach = D * (1.15 + 0.3 * mood) * (layout === 'flatlay' ? 0.6 : 1);
  const L = {
    x: ca * reach,
    y: layout === 'flatlay' ? 45 + 25 * sa : Math.max(0.4, sa) * reach * 0.8 + 12,
    z: layout === 'flatlay' ? sa * reach * 0.5 : g.zf * 0.85,
  };
  // The wall takes less of the key than the floor (photographers flag it), more so when moody.
  const wallKey = 0.62 + 0.18 * mood;
  const soft2 = ((1 - hard) * 0.45 * reach + 8) ** 2;
  const keyCol = temperatureColor(temp, 1);
  const ambCol = temperatureColor(-temp * 0.45, 0.7);
  const amb = 0.42 + 0.22 * mood;
  const exposure = (0.92 + 0.14 * mood) / (1 + amb);

  const floorIrr = (u: number, z: number): number => {
    const dx = u - L.x;
    const dz = z - L.z;
    const d2 = dx * dx + L.y * L.y + dz * dz + soft2;
    return L.y / (d2 * Math.sqrt(d2));
  };
  const wallIrr = (wu: number, h: number): number => {
    const dx = wu - L.x;
    const dy = h - L.y;
    const dz = g.D - L.z;
    const d2 = dx * dx + dy * dy + dz * dz + soft2;
    return (wallKey * dz) / (d2 * Math.sqrt(d2));
  };
  // A sweep is lit as one sheet: the light over the unrolled paper (floor depth, then D + height
  // up the wall), so the gradient runs smoothly through the curve with no crease.
  const sweepS = g.zf * 0.95;
  const sweepH = Math.min(L.y, 0.6 * g.D);
  const sweepIrr = (u: number, s: number): number => {
    const dx = u - L.x * 0.6;
    const ds = s - sweepS;
    const d2 = dx * dx + ds * ds + sweepH * sweepH + soft2 * 0.5;
    return sweepH / (d2 * Math.sqrt(d2));
  };
  const sweepUpright = 0.3 * Math.max(0.3, sa);
  const E0 = layout === 'flatlay' ? floorIrr(0, 0) : layout === 'sweep' ? sweepIrr(0, g.zf) : floorIrr(0, g.zf);

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
      : Math.max(1.2, side * (layout === 'outdoor' ? 0.0065 : 0.0052) * (plan.mood < -0.3 ? 1.15 : 1));
  const sky = layout === 'outdoor' ? makeSky(plan, colors, g, ca, sa, noise) : null;

  const zf = g.zf;
  const cWall = layout === 'flatlay' ? 1 : 1 - zf / g.D;
  /** Defocus of a row: 0 in the focus plane, 1 at the wall (front rows blur less). */
  const defocus = (yc: number): number => {
    if (layout === 'flatlay') return 0;
    if (yc < yh) return 1;
    const z = g.K / (yc - g.yv);
    return z > zf ? (1 - zf / z) / cWall : Math.min(0.35, (0.35 * (zf / z - 1)) / cWall);
  };

  const out = new Float64Array(5);
  /** Linear RGB of the row being shaded. */
  const lin = new Float32Array(W * 3);
  const sweepBand = layout === 'sweep' ? (22 * f) / g.D : 0;
  const wallTop = g.hc + (g.yv * g.D) / f;
  const shadeRow = (yc: number, step: number): void => {
    // ---- flat lay: the whole frame is the surface, seen from straight above.
    if (layout === 'flatlay') {
      const s = 70 / side;
      const v = (H / 2 - yc) * s;
      for (let x = 0; x < W; x++) {
        const o = x * 3;
        const u = (x + 0.5 - g.cx) * s;
        floorMat.shade(u, v, s, out);
        const e = floorIrr(u, v) / E0;
        const key = gobo ? e * gobo(u, 0, v) : e;
        lin[o] = out[0]! * (amb * ambCol[0] + key * keyCol[0]) * exposure;
        lin[o + 1] = out[1]! * (amb * ambCol[1] + key * keyCol[1]) * exposure;
        lin[o + 2] = out[2]! * (amb * ambCol[2] + key * keyCol[2]) * exposure;
      }
      return;
    }
    // ---- the back: wall or sky (and, for a sweep, the upper part of the curve).
    if (yc < yh) {
      if (sky) {
        for (let x = 0; x < W; x += step) sky.color(x + 0.5, yc, lin, x * 3);
      } else {
        const h = g.hc - ((yc - g.yv) * g.D) / f;
        const fp = (g.D / f) * Math.max(step, sigma * 0.7);
        const ao = layout === 'room' ? 1 - 0.32 * Math.exp(-h / 9) : 1;
        const t = layout === 'sweep' ? smoothstep(yh + 0.3 * sweepBand, yh - 0.7 * sweepBand, yc) : 1;
        const ambRow = amb * (1 - t * (0.08 + 0.22 * Math.min(1, h / wallTop))) * ao;
        for (let x = 0; x < W; x += step) {
          const o = x * 3;
          const wu = ((x + 0.5 - g.cx) * g.D) / f;
          wallMat!.shade(wu, h, fp, out);
          // On a sweep the upright part faces the camera, not the light: it takes less of it.
          let key = layout === 'sweep' ? (sweepIrr(wu, g.D + h) / E0) * (1 - sweepUpright * t) : wallIrr(wu, h) / E0;
          if (gobo) key *= gobo(wu, h, g.D);
          if (layout === 'room') key *= 0.8 + 0.2 * ao;
          lin[o] = out[0]! * (ambRow * ambCol[0] + key * keyCol[0]) * exposure;
          lin[o + 1] = out[1]! * (ambRow * ambCol[1] + key * keyCol[1]) * exposure;
          lin[o + 2] = out[2]! * (ambRow * ambCol[2] + key * keyCol[2]) * exposure;
        }
      }
      if (step === 2) fillOdd(lin, 0, W);
      return;
    }
    // ---- the floor, in perspective.
    const z = g.K / (yc - g.yv);
    const fpu = z / f;
    const fpv = (z * z) / g.K;
    const fp = Math.max(fpu * step, Math.sqrt(fpu * fpv), fpu * defocus(yc) * sigma * 0.7);
    const ao = layout === 'room' ? 1 - 0.32 * Math.exp(-(g.D - z) / 9) : 1;
    const t = layout === 'sweep' ? smoothstep(yh + 0.3 * sweepBand, yh - 0.7 * sweepBand, yc) : 0;
    const ambRow = amb * ao * (1 - 0.08 * t);
    // Camera ray geometry for gloss: view cosine, Fresnel, where the reflected ray meets the wall.
    const cosV = g.hc / Math.sqrt(g.hc * g.hc + z * z);
    const fres = 0.04 + 0.96 * (1 - cosV) ** 5;
    const reflH = (g.hc * (g.D - z)) / z;
    const haze = sky ? Math.exp(-(yc - yh) / (0.06 * H)) * 0.45 : 0;
    for (let x = 0; x < W; x += step) {
      const o = x * 3;
      const u = ((x + 0.5 - g.cx) * z) / f;
      floorMat.shade(u, z, fp, out);
      let key: number;
      if (sky) key = 0.92 + 0.32 * ca * ((x + 0.5 - g.cx) / W);
      else key = layout === 'sweep' ? (sweepIrr(u, z) / E0) * (1 - sweepUpright * t) : floorIrr(u, z) / E0;
      const gob = gobo ? gobo(u, 0, z) : 1;
      key *= gob;
      if (layout === 'room') key *= 0.85 + 0.15 * ao;
      const gl = out[3]!;
      let r = out[0]! * (ambRow * ambCol[0] + key * keyCol[0]);
      let gg = out[1]! * (ambRow * ambCol[1] + key * keyCol[1]);
      let b = out[2]! * (ambRow * ambCol[2] + key * keyCol[2]);
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
        // Fresnel reflection of the wall (or sky) behind, bent by ripples.
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
          const hr = Math.max(0, reflH + out[4]! * (g.D - z) * 0.5);
          const wu = (u * g.D) / z;
          const e = (amb * 0.85 + wallIrr(wu, hr) / E0) * (layout === 'room' ? 1 - 0.3 * Math.exp(-hr / 9) : 1);
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

  return {
    render,
    sigma,
    vignette: 0.2 - 0.12 * mood,
    grain: 1 + 0.35 * Math.max(0, -mood),
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

/** Key and ambient colour for a temperature (−1 cool .. +1 warm), luminance kept near 1. */
function temperatureColor(t: number, strength: number): Lin {
  const k = Math.max(-1, Math.min(1, t)) * strength;
  const c: Lin = k >= 0 ? [1 + 0.13 * k, 1 - 0.02 * k, 1 - 0.24 * k] : [1 + 0.14 * k, 1 + 0.01 * k, 1 - 0.2 * k];
  const l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  return [c[0] / l, c[1] / l, c[2] / l];
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
  const rng = createRng(seed ^ 0xfa1);
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
 * A row consumer: vignette in linear light, a filmic shoulder on luminance, sRGB, a little dither,
 * into `pre` (8-bit RGB).
 */
function toneRows(pre: Buffer, W: number, H: number, vignette: number, seed: number) {
  const cx = W / 2;
  const cy = H / 2;
  const rx = 1 / (0.5 * Math.hypot(W, H));
  const vx = new Float32Array(W);
  for (let x = 0; x < W; x++) vx[x] = ((x + 0.5 - cx) * rx) ** 2 * 1.25;
  return (y: number, lin: Float32Array): void => {
    // Weaker top to bottom than side to side, so the floor near the camera is not dimmed.
    const vy = ((y + 0.5 - cy) * rx) ** 2 * 0.6;
    let o = y * W * 3;
    for (let x = 0, i = 0; x < W; x++, o += 3, i += 3) {
      const r2 = vx[x]! + vy;
      const vig = 1 - vignette * r2 * (1.3 - 0.3 * r2);
      const d = hash2(x, y, seed) - 0.5;
      let r = lin[i]! * vig;
      let g = lin[i + 1]! * vig;
      let b = lin[i + 2]! * vig;
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
      pre[o] = tone8(r, d);
      pre[o + 1] = tone8(g, d);
      pre[o + 2] = tone8(b, d);
    }
  };
}

/** Depth of field (two blurs mixed per row by its defocus) and film grain. */
async function finish(
  pre: Buffer,
  rowBlur: Float32Array,
  W: number,
  H: number,
  sigma: number,
  grain: number,
  seed: number,
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
  // Per row: mix sharp → light blur → full blur by the row's defocus; then grain.
  const out = Buffer.allocUnsafe(W * H * 3);
  const amp = 2.6 * grain;
  for (let y = 0; y < H; y++) {
    const level = b1 ? Math.min(1, Math.max(0, rowBlur[y]!)) : 0;
    let o = y * W * 3;
    const a = level < 0.4 ? pre : b1!;
    const b = level < 0.4 ? b1 : b2;
    const k = level < 0.4 ? level / 0.4 : (level - 0.4) / 0.6;
    for (let x = 0; x < W; x++, o += 3) {
      // One 32-bit hash → a triangular mono grain and three small chroma offsets.
      const h = hashBits(x, y, seed);
      const mono = (((h & 255) + ((h >>> 8) & 255)) / 255 - 1) * amp;
      const cr = (((h >>> 16) & 63) / 63 - 0.5) * 0.9;
      const cg = (((h >>> 22) & 63) / 63 - 0.5) * 0.9;
      const cb = (((h >>> 26) & 63) / 63 - 0.5) * 0.9;
      for (let c = 0; c < 3; c++) {
        const base = b && k > 0 ? a[o + c]! + (b[o + c]! - a[o + c]!) * k : a[o + c]!;
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

/**
 * The brand's accent when the prompt chose the set's colours: a painted cylinder plinth standing
 * on the floor towards one side of the frame (the side by seed), lit from the set's light, with a
 * soft contact shadow; a painted disc seen from above in a flat lay. In place, on the rendered RGB.
 */
export function paintAccentProp(
  rendered: RenderedEnvironment,
  plan: EnvironmentPlan,
  color: Rgb,
  W: number,
  H: number,
  seed: number,
): void {
  const rgb = rendered.rgb;
  const s = (Math.floor(Math.abs(seed)) * 2654435761) >>> 0;
  const left = (s >>> 7) % 2 === 0;
  const side = Math.cos((rendered.lightAngle * Math.PI) / 180); // +1 light from the right
  const flat = plan.layout === 'flatlay';
  const hy = rendered.horizon * H;
  const w = (flat ? 0.17 : 0.13) * W;
  const cx = (left ? 0.12 : 0.88) * W;
  const base = flat ? 0.22 * H + w / 2 : hy + 0.22 * (H - hy);
  const h = flat ? 0 : Math.min(0.22 * H, base - 0.05 * H);
  const ry = flat ? w / 2 : Math.max(2, 0.14 * w);
  const rx = w / 2;
  const edge = (d: number) => Math.min(1, Math.max(0, 0.5 - d)); // d in px outside (+) / inside (−)
  const blend = (i: number, c: readonly number[], a: number) => {
    for (let k = 0; k < 3; k++) rgb[i + k] = Math.round(rgb[i + k]! + (c[k]! - rgb[i + k]!) * a);
  };
  const y0 = Math.max(0, Math.floor(base - h - ry - 2));
  const y1 = Math.min(H - 1, Math.ceil(base + ry * 3 + 0.04 * H));
  const x0 = Math.max(0, Math.floor(cx - rx * 2.2));
  const x1 = Math.min(W - 1, Math.ceil(cx + rx * 2.2));
  // Contact shadow first, cast away from the light.
  const sx = cx - side * rx * (flat ? 0.18 : 0.35);
  const sy = base + (flat ? 0.1 * w : ry * 0.4);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const d = ((x - sx) / (rx * 1.25)) ** 2 + ((y - sy) / (ry * (flat ? 1.25 : 1.9))) ** 2;
      const a = 0.34 * Math.exp(-d * 2.2);
      if (a < 0.004) continue;
      blend((y * W + x) * 3, [0, 0, 0], a);
    }
  }
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const nx = (x - cx) / rx;
      const i = (y * W + x) * 3;
      if (flat) {
        const r = Math.hypot(x - cx, y - base);
        const a = edge(r - rx);
        if (a <= 0) continue;
        const shade = 0.92 + 0.1 * Math.max(-1, Math.min(1, nx * side)) - 0.06 * (r / rx) ** 4;
        blend(
          i,
          color.map((v) => v * shade),
          a,
        );
        continue;
      }
      if (Math.abs(nx) > 1.02) continue;
      const half = ry * Math.sqrt(Math.max(0, 1 - Math.min(1, nx * nx)));
      // Body: between the top ellipse's centre line and the bottom ellipse's lower arc.
      const body = Math.min(edge(Math.abs(x - cx) - rx), edge(y - (base + half)), edge(base - h - y));
      const top = edge(Math.hypot((x - cx) / rx, (y - (base - h)) / ry) * Math.min(rx, ry) - Math.min(rx, ry));
      if (body <= 0 && top <= 0) continue;
      // Lambert across the cylinder from the light's side, a darker foot, a lighter top.
      const lam = Math.max(0, nx * side * 0.8 + Math.sqrt(Math.max(0, 1 - nx * nx)) * 0.6);
      const foot = 1 - 0.12 * Math.max(0, (y - (base - 0.25 * h)) / Math.max(1, 0.25 * h));
      const shade = (0.58 + 0.5 * lam) * foot;
      if (body > 0)
        blend(
          i,
          color.map((v) => v * shade),
          body,
        );
      if (top > 0)
        blend(
          i,
          color.map((v) => Math.min(255, v * 1.12 + 10)),
          top,
        );
    }
  }
}

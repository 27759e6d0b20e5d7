/**
 * Local scene engine benchmark over the product cut-outs of FIXTURES (PNG with transparent
 * backgrounds; default /work/shared/fixtures/product-images), each flattened onto (a) a plain
 * light background and (b) a textured gradient, so the classical matte is what cuts them out:
 *
 * - cut-out IoU against the image's own alpha (plain and textured);
 * - product fidelity: SSIM (luma, 7×7 windows) over the product of each variation, against the
 *   original cut-out (its own alpha) pasted at the same place and scale on the same output;
 * - distinctness of a forge's four variations: mean pairwise pixel difference and how far the
 *   hero's box moves; and, on forges made as the app makes them (the environment engine's set for
 *   the variation's shot, then the scene), a perceptual distinctness (`perceptual` below): for each
 *   pair, how many of five things a viewer sees differ — the camera height (the floor line found
 *   in the image), the light's direction (the brightness slope of the set, found in the image),
 *   the structure (1 − SSIM of 64 px luma), the layout of lines (edge-orientation histograms) and
 *   the colours (histogram distance) — each past a threshold of its own; a forge's score is its
 *   least distinct pair's;
 * - wall time of one forge (four 1:1 1024 px variations at once, on a fresh engine so the cut-out
 *   is included) against a baseline in the same run: a plain sharp resize + composite of the same
 *   product onto a flat background into the same boxes, four at once; and peak memory; and the
 *   whole forge as the app runs it (the environment engine's four sets, then the scenes) for the
 *   first products. These run first in a child process of their own (this file with --forges), so
 *   the measurements' own work and buffers are not counted.
 *
 * Writes a labelled contact sheet to bench/results/scenes.png (several products × their four
 * variations, each row labelled with its forge's distinctness). Prints JSON; exits 1 when the mean
 * plain IoU is under BENCH_SCENE_MIN_IOU (0.95), the median forge takes over
 * BENCH_SCENE_MAX_FORGE_MS (3000; the goal is 2000 on a 2-core machine), or, over the forges made
 * as the app makes them, a least distinct pair differs in fewer than BENCH_SCENE_MIN_DISTINCT (2)
 * of the five or their mean is under BENCH_SCENE_MIN_MEAN_DISTINCT (2.8; before the shots the
 * forges measured 0 and 0.3). Skips (exit 0) when the fixtures are not there.
 *
 *   npm run bench -- scenes                # BENCH_SCENE_LIMIT=6 to run on the first six only
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { cutOutProduct } from '../src/engines/image/local/cutout.ts';
import { createLocalSceneEngine } from '../src/engines/image/local/local-scene-engine.ts';
import {
  type AspectRatio,
  outputSize,
  type SceneRequest,
  type SceneResult,
} from '../src/engines/image/scene-engine.ts';
import { ffmpegPath } from '../src/adapters/media/video.ts';
import { texturedJpeg } from '../test/helpers/images.ts';

const FIXTURES = process.env.BENCH_SCENE_FIXTURES ?? '/work/shared/fixtures/product-images';
const LIMIT = Number(process.env.BENCH_SCENE_LIMIT ?? 0);
const MIN_IOU = Number(process.env.BENCH_SCENE_MIN_IOU ?? 0.95);
const MAX_FORGE_MS = Number(process.env.BENCH_SCENE_MAX_FORGE_MS ?? 3000);
/** Floors of the perceptual distinctness: each forge's least distinct pair, and their mean. */
const MIN_DISTINCT = Number(process.env.BENCH_SCENE_MIN_DISTINCT ?? 2);
const MIN_MEAN_DISTINCT = Number(process.env.BENCH_SCENE_MIN_MEAN_DISTINCT ?? 2.8);
/** Forges timed end to end (environment + scene), the first products. */
const ENV_FORGES = Number(process.env.BENCH_SCENE_ENV_FORGES ?? 6);
/** Side of the forges the perceptual distinctness is measured on. */
const DISTINCT_SIDE = 512;
/** Prompts of the environment forges, one per product in turn. */
const SET_PROMPTS = [
  'on a polished marble table',
  'on a warm oak wooden table, soft window light',
  'raw concrete floor, industrial loft',
  'sage green plaster wall, walnut table, soft morning daylight',
  'studio product shot',
  'terracotta tile floor, warm evening light',
];
const GOAL_FORGE_MS = 2000;
const LONG_SIDE = 1024;
const CUTOUT_SIDE = LONG_SIDE; // what the engine works cut-outs at
const PLAIN = { r: 243, g: 242, b: 239 };
const PALETTE = ['#c8102e', '#1d1d1f'];
const RESULTS = path.join(import.meta.dirname, 'results');

const round = (n: number, digits = 3) => Number(n.toFixed(digits));
const roundAll = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

interface Fixture {
  name: string;
  rgba: Buffer;
  width: number;
  height: number;
  plain: Buffer;
  textured: Buffer;
}

/** A textured gradient background (diagonal two-tone gradient, soft waves, grain). */
function texturedBackground(width: number, height: number, seed: number): Buffer {
  const out = Buffer.alloc(width * height * 3);
  let s = seed >>> 0 || 1;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const wave = Math.sin(u * 9 + Math.cos(v * 7) * 2) * 0.5 + 0.5;
      const g = (rand() - 0.5) * 28;
      const i = (y * width + x) * 3;
      out[i] = clamp(150 + 70 * u + 20 * wave + g);
      out[i + 1] = clamp(170 + 40 * v - 30 * u + 20 * wave + g);
      out[i + 2] = clamp(200 - 60 * v + 15 * wave + g);
    }
  }
  return out;
}

const clamp = (n: number) => (n < 0 ? 0 : n > 255 ? 255 : Math.round(n));

/** The cut-out flattened over a background (RGB bytes or a flat colour) as PNG bytes. */
async function flatten(rgba: Buffer, width: number, height: number, bg: Buffer | typeof PLAIN): Promise<Buffer> {
  const out = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const a = rgba[i * 4 + 3]! / 255;
    const b = Buffer.isBuffer(bg) ? [bg[i * 3]!, bg[i * 3 + 1]!, bg[i * 3 + 2]!] : [bg.r, bg.g, bg.b];
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(rgba[i * 4 + c]! * a + b[c]! * (1 - a));
  }
  return sharp(out, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** The fixture names (sorted; the first BENCH_SCENE_LIMIT when set). */
function fixtureNames(): string[] {
  const files = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => path.basename(f, '.png'));
  return LIMIT > 0 ? files.slice(0, LIMIT) : files;
}

/** One fixture, read and flattened both ways (loaded one at a time: memory is measured). */
async function loadFixture(name: string, k = 0): Promise<Fixture> {
  const { data, info } = await sharp(path.join(FIXTURES, `${name}.png`))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  return {
    name,
    rgba: data,
    width,
    height,
    plain: await flatten(data, width, height, PLAIN),
    textured: await flatten(data, width, height, texturedBackground(width, height, 7 + k)),
  };
}

/** The fixture's own RGBA at the cut-out's working size. */
async function atWorkingSize(f: Fixture, w: number, h: number): Promise<Buffer> {
  if (w === f.width && h === f.height) return f.rgba;
  return sharp(f.rgba, { raw: { width: f.width, height: f.height, channels: 4 } })
    .resize(w, h, { fit: 'fill' })
    .raw()
    .toBuffer();
}

/** IoU (alpha ≥ 50 %) of a cut-out against the fixture's own alpha. */
async function cutoutIou(f: Fixture, bytes: Buffer) {
  const cut = await cutOutProduct(bytes, { maxSide: CUTOUT_SIDE });
  const truth = await atWorkingSize(f, cut.sourceWidth, cut.sourceHeight);
  let inter = 0;
  let union = 0;
  for (let y = 0; y < cut.sourceHeight; y++) {
    for (let x = 0; x < cut.sourceWidth; x++) {
      const t = truth[(y * cut.sourceWidth + x) * 4 + 3]! >= 128;
      const bx = x - cut.box.left;
      const by = y - cut.box.top;
      const m =
        bx >= 0 && by >= 0 && bx < cut.width && by < cut.height && cut.rgba[(by * cut.width + bx) * 4 + 3]! >= 128;
      if (t && m) inter++;
      if (t || m) union++;
    }
  }
  return { iou: union ? inter / union : 1, cut };
}

const luma = (b: Buffer | Uint8Array, i: number) => 0.2126 * b[i]! + 0.7152 * b[i + 1]! + 0.0722 * b[i + 2]!;

/**
 * SSIM (luma, 7×7 box windows) of `a` against `b` (RGB, same size) over a box, averaged over the
 * pixels where `weight` (box-sized, 0..1) is at least one half.
 */
function maskedSsim(a: Buffer, b: Buffer, W: number, box: SceneResult['productBoxes'][number], weight: Float32Array) {
  const { left, top, width: w, height: h } = box;
  const r = 3;
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  const stride = w + 1;
  const sums = Array.from({ length: 5 }, () => new Float64Array(stride * (h + 1)));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = ((top + y) * W + left + x) * 3;
      const p = luma(a, o);
      const q = luma(b, o);
      const vals = [p, q, p * p, q * q, p * q];
      const at = (y + 1) * stride + x + 1;
      for (let k = 0; k < 5; k++) {
        const s = sums[k]!;
        s[at] = vals[k]! + s[at - 1]! + s[at - stride]! - s[at - stride - 1]!;
      }
    }
  }
  let total = 0;
  let count = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (weight[y * w + x]! < 0.5) continue;
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(w, x + r + 1);
      const y0 = Math.max(0, y - r);
      const y1 = Math.min(h, y + r + 1);
      const n = (x1 - x0) * (y1 - y0);
      const get = (k: number) => {
        const s = sums[k]!;
        return s[y1 * stride + x1]! - s[y0 * stride + x1]! - s[y1 * stride + x0]! + s[y0 * stride + x0]!;
      };
      const mp = get(0) / n;
      const mq = get(1) / n;
      const vp = get(2) / n - mp * mp;
      const vq = get(3) / n - mq * mq;
      const cov = get(4) / n - mp * mq;
      total += ((2 * mp * mq + C1) * (2 * cov + C2)) / ((mp * mp + mq * mq + C1) * (vp + vq + C2));
      count++;
    }
  }
  return count ? total / count : 1;
}

/** Fidelity of one variation: its product pixels against the original cut-out placed alike. */
async function fidelity(f: Fixture, cut: Awaited<ReturnType<typeof cutOutProduct>>, res: SceneResult): Promise<number> {
  const box = res.productBoxes[0]!;
  const { data: out } = await sharp(res.png).raw().toBuffer({ resolveWithObject: true });
  const truth = await atWorkingSize(f, cut.sourceWidth, cut.sourceHeight);
  const original = await sharp(truth, { raw: { width: cut.sourceWidth, height: cut.sourceHeight, channels: 4 } })
    .extract(cut.box)
    .resize(box.width, box.height, { fit: 'fill' })
    .raw()
    .toBuffer();
  const ref = Buffer.from(out);
  const weight = new Float32Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) {
      const i = y * box.width + x;
      const a = original[i * 4 + 3]! / 255;
      weight[i] = a;
      const o = ((box.top + y) * res.width + box.left + x) * 3;
      for (let c = 0; c < 3; c++) ref[o + c] = Math.round(original[i * 4 + c]! * a + ref[o + c]! * (1 - a));
    }
  }
  return maskedSsim(out, ref, res.width, box, weight);
}

/** Mean absolute pixel difference (0..1) between two PNGs, compared at 256 px. */
/**
 * A photo to stand a product in, as a user's own backdrop upload (no floor line or light given):
 * an outdoor frame of the shared reference clip (a meadow under trees, 854×480) when it is there,
 * else a textured test image.
 */
async function photoBackdrop(): Promise<{ label: string; bytes: Buffer }> {
  const clip = path.join(FIXTURES, '../video/big-buck-bunny-480p-30s.mp4');
  if (fs.existsSync(clip)) {
    const frame = spawnSync(
      ffmpegPath(),
      ['-loglevel', 'error', '-ss', '8', '-i', clip, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', '-'],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    if (frame.status === 0 && frame.stdout.length > 0) return { label: 'outdoor photo backdrop', bytes: frame.stdout };
  }
  return { label: 'textured backdrop', bytes: await texturedJpeg(1600, 1000, 3, 88) };
}

async function pixelDifference(a: Buffer, b: Buffer): Promise<number> {
  const small = (png: Buffer) => sharp(png).resize(256, 256, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  const [x, y] = await Promise.all([small(a), small(b)]);
  let d = 0;
  for (let i = 0; i < x.length; i++) d += Math.abs(x[i]! - y[i]!);
  return d / x.length / 255;
}

// ---------------------------------------------------------------------------------------------
// Perceptual distinctness of a forge's variations (what a viewer sees differ, not pixels).

interface Look {
  /** 64×64 luma (area-averaged). */
  small: Float32Array;
  /** Edge orientations: 12 bins over 0..180°, weighted by gradient magnitude, summing to 1. */
  edges: Float64Array;
  /** Colour histogram: 4×4×4 RGB bins, summing to 1. */
  colours: Float64Array;
  /** Floor line found in the image (fraction of the height), or undefined when there is none. */
  horizon?: number;
  /** Direction the set brightens toward (degrees, 0 right, 90 up), or undefined when it is flat. */
  light?: number;
}

/** What a viewer reads off a frame (products left out where their mask says). */
async function look(png: Buffer, mask?: Buffer): Promise<Look> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H } = info;
  const small = new Float32Array(64 * 64);
  const tiny = await sharp(png)
    .removeAlpha()
    .greyscale()
    .resize(64, 64, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
  for (let i = 0; i < small.length; i++) small[i] = tiny[i]!;
  // Edge orientations on a 128 px luma.
  const S = 128;
  const mid = await sharp(png).removeAlpha().greyscale().resize(S, S, { fit: 'fill' }).raw().toBuffer();
  const edges = new Float64Array(12);
  let total = 0;
  for (let y = 1; y < S - 1; y++) {
    for (let x = 1; x < S - 1; x++) {
      const gx = mid[y * S + x + 1]! - mid[y * S + x - 1]!;
      const gy = mid[(y + 1) * S + x]! - mid[(y - 1) * S + x]!;
      const m = Math.hypot(gx, gy);
      if (m < 4) continue;
      const a = ((Math.atan2(gy, gx) * 180) / Math.PI + 180) % 180;
      edges[Math.min(11, Math.floor(a / 15))]! += m;
      total += m;
    }
  }
  for (let k = 0; k < 12; k++) edges[k] = total > 0 ? edges[k]! / total : 0;
  const colours = new Float64Array(64);
  for (let i = 0; i < W * H; i++)
    colours[(data[i * 3]! >> 6) * 16 + (data[i * 3 + 1]! >> 6) * 4 + (data[i * 3 + 2]! >> 6)]! += 1 / (W * H);
  // The set alone (products left out): rows' mean luma for the floor line; then a plane fit of
  // the wall's brightness (above the floor line: the floor's own tone would swamp it) for the light.
  const rows = new Float64Array(H);
  for (let y = 0; y < H; y++) {
    let s = 0;
    let c = 0;
    for (let x = 0; x < W; x += 2) {
      const p = y * W + x;
      if (mask && mask[p]! > 24) continue;
      s += luma(data, p * 3);
      c++;
    }
    rows[y] = c > 0 ? s / c : Number.NaN;
  }
  // The floor line is above where the products stand (their shadows below it are not a floor line).
  let bottom = H;
  if (mask) {
    for (let y = H - 1; y >= 0 && bottom === H; y--) {
      for (let x = 0; x < W; x += 2) {
        if (mask[y * W + x]! > 24) {
          bottom = y;
          break;
        }
      }
    }
  }
  const win = Math.max(2, Math.round(H * 0.025));
  let best = 0;
  let horizon: number | undefined;
  const end = Math.min(Math.round(H * 0.92), bottom - Math.round(H * 0.03)) - win;
  for (let y = Math.round(H * 0.25) + win; y < end; y++) {
    const d = Math.abs(rows[y + win]! - rows[y - win]!);
    if (Number.isFinite(d) && d > best) {
      best = d;
      horizon = y / H;
    }
  }
  if (best < 6) horizon = undefined;
  const wallEnd = Math.round(H * (horizon !== undefined ? horizon - 0.03 : 0.5));
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sl = 0;
  let sxl = 0;
  let syl = 0;
  let n = 0;
  for (let y = 0; y < wallEnd; y += 2) {
    for (let x = 0; x < W; x += 2) {
      const p = y * W + x;
      if (mask && mask[p]! > 24) continue;
      const l = luma(data, p * 3);
      const u = x / W - 0.5;
      const v = 0.5 - y / H;
      sx += u;
      sy += v;
      sxx += u * u;
      syy += v * v;
      sl += l;
      sxl += u * l;
      syl += v * l;
      n++;
    }
  }
  // Least squares l = a + bx·u + by·v (the cross terms are small and left out).
  const bx = n > 0 ? (sxl - (sx * sl) / n) / Math.max(1e-9, sxx - (sx * sx) / n) : 0;
  const by = n > 0 ? (syl - (sy * sl) / n) / Math.max(1e-9, syy - (sy * sy) / n) : 0;
  const light = Math.hypot(bx, by) >= 6 ? (Math.atan2(by, bx) * 180) / Math.PI : undefined;
  return {
    small,
    edges,
    colours,
    ...(horizon !== undefined ? { horizon } : {}),
    ...(light !== undefined ? { light } : {}),
  };
}

/** SSIM of two 64×64 lumas (8×8 windows, stride 4). */
function ssim64(a: Float32Array, b: Float32Array): number {
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  let total = 0;
  let count = 0;
  for (let y0 = 0; y0 + 8 <= 64; y0 += 4) {
    for (let x0 = 0; x0 + 8 <= 64; x0 += 4) {
      let ma = 0;
      let mb = 0;
      for (let y = y0; y < y0 + 8; y++) {
        for (let x = x0; x < x0 + 8; x++) {
          ma += a[y * 64 + x]!;
          mb += b[y * 64 + x]!;
        }
      }
      ma /= 64;
      mb /= 64;
      let va = 0;
      let vb = 0;
      let cov = 0;
      for (let y = y0; y < y0 + 8; y++) {
        for (let x = x0; x < x0 + 8; x++) {
          const da = a[y * 64 + x]! - ma;
          const db = b[y * 64 + x]! - mb;
          va += da * da;
          vb += db * db;
          cov += da * db;
        }
      }
      va /= 63;
      vb /= 63;
      cov /= 63;
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      count++;
    }
  }
  return total / count;
}

/** Thresholds past which a viewer sees two frames differ in each of the five. */
const SEEN = { horizon: 0.04, light: 30, structure: 0.35, edges: 0.08, colours: 0.12 };

interface PairDistinctness {
  horizon: number;
  light: number;
  structure: number;
  edges: number;
  colours: number;
  /** How many of the five differ past their thresholds. */
  seen: number;
}

function distinctness(a: Look, b: Look): PairDistinctness {
  const horizon = a.horizon !== undefined && b.horizon !== undefined ? Math.abs(a.horizon - b.horizon) : 0;
  let light = 0;
  if (a.light !== undefined && b.light !== undefined) {
    light = Math.abs(a.light - b.light) % 360;
    if (light > 180) light = 360 - light;
  } else if ((a.light === undefined) !== (b.light === undefined)) light = SEEN.light; // lit vs flat
  const structure = 1 - ssim64(a.small, b.small);
  let edges = 0;
  for (let k = 0; k < 12; k++) edges += Math.abs(a.edges[k]! - b.edges[k]!) / 2;
  let bc = 0;
  for (let k = 0; k < 64; k++) bc += Math.sqrt(a.colours[k]! * b.colours[k]!);
  const colours = Math.sqrt(Math.max(0, 1 - bc));
  const seen =
    Number(horizon >= SEEN.horizon) +
    Number(light >= SEEN.light) +
    Number(structure >= SEEN.structure) +
    Number(edges >= SEEN.edges) +
    Number(colours >= SEEN.colours);
  return { horizon, light, structure, edges, colours, seen };
}

/** A forge's distinctness: every pair's, and the least distinct pair's count and measures. */
async function forgeDistinctness(results: SceneResult[]) {
  const looks = await Promise.all(results.map((r) => look(r.png, r.productMask)));
  const pairs: PairDistinctness[] = [];
  for (let i = 0; i < looks.length; i++)
    for (let j = i + 1; j < looks.length; j++) pairs.push(distinctness(looks[i]!, looks[j]!));
  const minOf = (k: keyof PairDistinctness) => Math.min(...pairs.map((p) => p[k]));
  return {
    minSeen: minOf('seen'),
    meanSeen: mean(pairs.map((p) => p.seen)),
    min: {
      horizon: minOf('horizon'),
      light: minOf('light'),
      structure: minOf('structure'),
      edges: minOf('edges'),
      colours: minOf('colours'),
    },
    horizons: looks.map((l) => (l.horizon === undefined ? null : round(l.horizon, 2))),
    lights: looks.map((l) => (l.light === undefined ? null : Math.round(l.light))),
  };
}

function request(bytes: Buffer[], ar: AspectRatio, v: number, prompt = 'studio product shot'): SceneRequest {
  const { width, height } = outputSize(ar, LONG_SIDE);
  return {
    prompt,
    aspectRatio: ar,
    width,
    height,
    variationIndex: v,
    seed: 1234,
    products: bytes.map((b) => ({ bytes: b })),
    palette: PALETTE,
  };
}

/** The baseline forge: each box filled by a plain sharp resize + composite onto a flat colour. */
async function baselineForge(bytes: Buffer, boxes: SceneResult['productBoxes'][], W: number, H: number) {
  return Promise.all(
    boxes.map(async ([box]) => {
      const product = await sharp(bytes).resize(box!.width, box!.height, { fit: 'fill' }).png().toBuffer();
      return sharp({ create: { width: W, height: H, channels: 3, background: '#e8e4df' } })
        .composite([{ input: product, left: box!.left, top: box!.top }])
        .png({ compressionLevel: 6, adaptiveFiltering: false })
        .toBuffer();
    }),
  );
}

interface SheetRow {
  label: string;
  products: Buffer[];
  ar: AspectRatio;
  prompt?: string;
  backdrop?: Buffer;
  /** Backdrops from the local environment engine for this prompt (one per variation). */
  environment?: string;
}

type EnvironmentGenerate = (req: {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  palette: string[];
  variationIndex?: number;
}) => Promise<
  { png: Buffer; horizon: number; lightAngle: number } & Pick<SceneRequest, 'backdropHints'>['backdropHints']
>;

/** The local environment engine when it is there (built separately); undefined otherwise. */
async function environmentEngine(): Promise<EnvironmentGenerate | undefined> {
  try {
    const mod = (await import('../src/engines/environment/local/local-environment-engine.ts')) as {
      createLocalEnvironmentEngine?: () => { generate: EnvironmentGenerate };
    };
    const engine = mod.createLocalEnvironmentEngine?.();
    return engine ? (req) => engine.generate(req) : undefined;
  } catch {
    return undefined;
  }
}

async function contactSheet(rows: SheetRow[]): Promise<{ file: string; forges: { label: string; minSeen: number }[] }> {
  const cell = 360;
  const labelH = 26;
  const rowH = cell + labelH;
  const engine = createLocalSceneEngine({ longSide: LONG_SIDE });
  const environment = await environmentEngine();
  const layers: OverlayOptions[] = [];
  const names = ['0 eye level', '1 high', '2 three-quarter', '3 low'];
  const usable = rows.filter((row) => !row.environment || environment);
  const forges: { label: string; minSeen: number }[] = [];
  for (const [r, row] of usable.entries()) {
    const results =
      row.environment && environment
        ? await environmentForge(environment, engine, row.products, row.ar, row.environment)
        : await Promise.all(
            [0, 1, 2, 3].map((v) =>
              engine.generate({ ...request(row.products, row.ar, v, row.prompt), backdrop: row.backdrop }),
            ),
          );
    const d = await forgeDistinctness(results);
    forges.push({ label: row.label, minSeen: d.minSeen });
    for (const [v, res] of results.entries()) {
      const tile = await sharp(res.png).resize(cell, cell, { fit: 'contain', background: '#1b1b1b' }).png().toBuffer();
      layers.push({ input: tile, left: v * cell, top: r * rowH + labelH });
      const warn = res.warnings.length ? ` · ${res.warnings.map((w) => w.code).join(', ')}` : '';
      const seen = v === 0 ? `distinct ≥ ${d.minSeen}/5 · ` : '';
      const text = escapeXml(`${seen}${row.label} · ${row.ar} · ${names[v]}${warn}`);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${cell}" height="${labelH}"><rect width="${cell}" height="${labelH}" fill="#111"/><text x="8" y="18" font-family="DejaVu Sans, sans-serif" font-size="13" fill="#eee">${text}</text></svg>`;
      layers.push({ input: Buffer.from(svg), left: v * cell, top: r * rowH });
    }
  }
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, 'scenes.png');
  await sharp({ create: { width: cell * 4, height: rowH * usable.length, channels: 3, background: '#1b1b1b' } })
    .composite(layers)
    .png()
    .toFile(file);
  return { file, forges };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A forge as the app makes it: for each variation the environment engine's set for its shot, then
 * the scene on it with what the set's maker said of it.
 */
async function environmentForge(
  environment: EnvironmentGenerate,
  engine: ReturnType<typeof createLocalSceneEngine>,
  products: Buffer[],
  ar: AspectRatio,
  prompt: string,
  side = LONG_SIDE,
): Promise<SceneResult[]> {
  return Promise.all(
    [0, 1, 2, 3].map(async (v) => {
      const req = request(products, ar, v, prompt);
      const { width, height } = outputSize(ar, side);
      const env = await environment({ prompt, width, height, seed: 100 + v, palette: PALETTE, variationIndex: v });
      const { png, horizon, lightAngle, light, camera } = env;
      return engine.generate({
        ...req,
        width,
        height,
        backdrop: png,
        backdropHints: {
          horizon,
          lightAngle,
          ...(light ? { light } : {}),
          ...(camera !== undefined ? { camera } : {}),
        },
      });
    }),
  );
}

interface ForgeTimes {
  forgeMs: number[];
  baselineMs: number[];
  /** Whole forges (environment + scene) of the first products. */
  environmentForgeMs: number[];
  idleRssMb: number;
  peakRssMb: number;
  maxRssMb: number;
}

/**
 * Child (this file with --forges): the forges alone, so their time and memory are not mixed with
 * the measurements' own: per product a fresh engine runs four 1:1 variations at once, then the
 * baseline fills the same boxes. RSS is sampled every 10 ms; the OS's maximum comes at the end.
 */
async function forges(): Promise<void> {
  const idle = process.memoryUsage().rss;
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const names = fixtureNames();
  const { width: W, height: H } = outputSize('1:1', LONG_SIDE);
  // Warm-up: libvips and the JIT, so the first forge is not charged for them.
  const first = await loadFixture(names[0]!);
  await createLocalSceneEngine({ longSide: LONG_SIDE }).generate(request([first.plain], '1:1', 0));
  await baselineForge(first.plain, [[{ left: 10, top: 10, width: 100, height: 100 }]], 256, 256);
  const out: ForgeTimes = {
    forgeMs: [],
    baselineMs: [],
    environmentForgeMs: [],
    idleRssMb: 0,
    peakRssMb: 0,
    maxRssMb: 0,
  };
  for (const name of names) {
    const bytes = (await loadFixture(name)).plain;
    const engine = createLocalSceneEngine({ longSide: LONG_SIDE });
    let t = performance.now();
    const variations = await Promise.all([0, 1, 2, 3].map((v) => engine.generate(request([bytes], '1:1', v))));
    out.forgeMs.push(performance.now() - t);
    t = performance.now();
    await baselineForge(
      bytes,
      variations.map((r) => r.productBoxes),
      W,
      H,
    );
    out.baselineMs.push(performance.now() - t);
  }
  const environment = await environmentEngine();
  if (environment) {
    for (const [k, name] of names.slice(0, ENV_FORGES).entries()) {
      const bytes = (await loadFixture(name)).plain;
      const engine = createLocalSceneEngine({ longSide: LONG_SIDE });
      const t = performance.now();
      await environmentForge(environment, engine, [bytes], '1:1', SET_PROMPTS[k % SET_PROMPTS.length]!);
      out.environmentForgeMs.push(performance.now() - t);
    }
  }
  clearInterval(sampler);
  out.idleRssMb = Math.round(idle / 2 ** 20);
  out.peakRssMb = Math.round(peak / 2 ** 20);
  out.maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(JSON.stringify(out));
}

async function main(): Promise<void> {
  if (!fs.existsSync(FIXTURES)) {
    process.stdout.write(`${JSON.stringify({ skipped: `no fixtures at ${FIXTURES}` })}\n`);
    return;
  }
  // Timing and memory first, in a process of their own (nothing else running there).
  const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--forges'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`bench/scenes --forges exited ${child.status}`);
  const times = JSON.parse(child.stdout) as ForgeTimes;

  const names = fixtureNames();
  const { width: W, height: H } = outputSize('1:1', LONG_SIDE);
  const perProduct: Record<string, unknown>[] = [];
  const iouPlain: number[] = [];
  const iouTextured: number[] = [];
  const ssim: number[] = [];
  const diffs: number[] = [];
  const moves: number[] = [];
  const studioSeen: number[] = [];
  const setSeen: number[] = [];
  const setForges: Record<string, unknown>[] = [];
  const environment = await environmentEngine();
  for (const [k, name] of names.entries()) {
    const f = await loadFixture(name, k);
    const plain = await cutoutIou(f, f.plain);
    const textured = await cutoutIou(f, f.textured);
    iouPlain.push(plain.iou);
    iouTextured.push(textured.iou);

    // The forge's four variations again (deterministic: the same images the child timed).
    const engine = createLocalSceneEngine({ longSide: LONG_SIDE });
    const variations = await Promise.all([0, 1, 2, 3].map((v) => engine.generate(request([f.plain], '1:1', v))));
    const fid: number[] = [];
    for (const r of variations) fid.push(await fidelity(f, plain.cut, r));
    ssim.push(...fid);
    const pairDiffs: number[] = [];
    const pairMoves: number[] = [];
    for (let i = 0; i < 4; i++) {
      for (let j = i + 1; j < 4; j++) {
        pairDiffs.push(await pixelDifference(variations[i]!.png, variations[j]!.png));
        const a = variations[i]!.productBoxes[0]!;
        const b = variations[j]!.productBoxes[0]!;
        const dx = (a.left + a.width / 2 - b.left - b.width / 2) / W;
        const dy = (a.top + a.height / 2 - b.top - b.height / 2) / H;
        const ds = Math.abs(a.height - b.height) / H;
        pairMoves.push(Math.hypot(dx, dy) + ds);
      }
    }
    diffs.push(mean(pairDiffs));
    moves.push(Math.min(...pairMoves));
    const studio = await forgeDistinctness(variations);
    studioSeen.push(studio.minSeen);
    // The forge as the app makes it: the environment engine's sets, then the scenes.
    let set: Awaited<ReturnType<typeof forgeDistinctness>> | undefined;
    if (environment) {
      const prompt = SET_PROMPTS[k % SET_PROMPTS.length]!;
      const made = await environmentForge(environment, engine, [f.plain], '1:1', prompt, DISTINCT_SIDE);
      set = await forgeDistinctness(made);
      setSeen.push(set.minSeen);
      setForges.push({ name: f.name, prompt, ...set, min: roundAll(set.min), meanSeen: round(set.meanSeen, 2) });
    }
    perProduct.push({
      name: f.name,
      iouPlain: round(plain.iou, 4),
      iouTextured: round(textured.iou, 4),
      ssim: round(mean(fid)),
      pixelDiff: round(mean(pairDiffs)),
      distinctSeen: { studio: studio.minSeen, ...(set ? { set: set.minSeen } : {}) },
      forgeMs: Math.round(times.forgeMs[k]!),
      baselineMs: Math.round(times.baselineMs[k]!),
      warnings: [...new Set(variations.flatMap((r) => r.warnings.map((w) => w.code)))],
    });
  }

  const cache = new Map<string, Fixture>();
  const byName = async (n: string) => {
    const name = names.includes(n) || fs.existsSync(path.join(FIXTURES, `${n}.png`)) ? n : names[0]!;
    if (!cache.has(name)) cache.set(name, await loadFixture(name));
    return cache.get(name)!;
  };
  const backdrop = await photoBackdrop();
  const { file: sheet, forges: sheetForges } = await contactSheet([
    { label: 'bottles_2 (matte)', products: [(await byName('solidus_bottles_2')).plain], ar: '1:1' },
    { label: 'cap_red_2 (matte)', products: [(await byName('solidus_cap_red_2')).plain], ar: '4:3' },
    {
      label: 'group of 3',
      products: (
        await Promise.all(['solidus_bottles_2', 'solidus_cap_black_1', 'solidus_mug_set'].map((n) => byName(n)))
      ).map((f) => f.plain),
      ar: '3:2',
    },
    { label: 'hoodie_black_1 (matte)', products: [(await byName('solidus_hoodie_black_1')).plain], ar: '16:9' },
    { label: 'notebook (textured bg matte)', products: [(await byName('solidus_notebook')).textured], ar: '3:4' },
    { label: 'sticker (matte)', products: [(await byName('solidus_sticker')).plain], ar: '21:9' },
    {
      label: 'mug_set on env. marble',
      products: [(await byName('solidus_mug_set')).plain],
      ar: '1:1',
      prompt: 'on a polished marble table',
      environment: 'on a polished marble table',
    },
    {
      label: 'cap_black_2 on env. wood',
      products: [(await byName('solidus_cap_black_2')).plain],
      ar: '16:9',
      environment: 'on a warm oak wooden table, soft window light',
    },
    {
      label: 'tshirt on env. concrete',
      products: [(await byName('solidus_tshirt')).textured],
      ar: '9:16',
      environment: 'raw concrete floor, industrial loft',
    },
    {
      label: `cap_gray_1, ${backdrop.label}`,
      products: [(await byName('solidus_cap_gray_1')).plain],
      ar: '3:2',
      backdrop: backdrop.bytes,
    },
  ]);

  const forgeMedian = median(times.forgeMs);
  const result = {
    products: names.length,
    cutoutIou: {
      plain: { mean: round(mean(iouPlain), 4), min: round(Math.min(...iouPlain), 4), goal: MIN_IOU },
      textured: { mean: round(mean(iouTextured), 4), min: round(Math.min(...iouTextured), 4) },
    },
    fidelitySsim: { mean: round(mean(ssim)), min: round(Math.min(...ssim)) },
    distinctness: {
      meanPairwisePixelDiff: round(mean(diffs)),
      minPairwisePixelDiff: round(Math.min(...diffs)),
      minHeroBoxMove: round(Math.min(...moves)),
      // Of five things a viewer sees (camera height, light direction, structure, lines, colours):
      // how many the least distinct pair of each forge differs in.
      perceptual: {
        thresholds: SEEN,
        floor: { min: MIN_DISTINCT, meanMin: MIN_MEAN_DISTINCT },
        setForges: {
          side: DISTINCT_SIDE,
          minSeen: setSeen.length ? Math.min(...setSeen) : null,
          meanMinSeen: setSeen.length ? round(mean(setSeen), 2) : null,
        },
        studioForges: { minSeen: Math.min(...studioSeen), meanMinSeen: round(mean(studioSeen), 2) },
        sheet: sheetForges,
        perForge: setForges,
      },
    },
    forge: {
      variations: 4,
      size: '1024x1024',
      medianMs: Math.round(forgeMedian),
      maxMs: Math.round(Math.max(...times.forgeMs)),
      goalMs: GOAL_FORGE_MS,
      meetsGoal: forgeMedian < GOAL_FORGE_MS,
      baselineMedianMs: Math.round(median(times.baselineMs)),
      ratio: round(forgeMedian / Math.max(1, median(times.baselineMs)), 1),
      // The whole forge as the app runs it (the environment engine's sets, then the scenes).
      withEnvironment: times.environmentForgeMs.length
        ? {
            forges: times.environmentForgeMs.length,
            medianMs: Math.round(median(times.environmentForgeMs)),
            maxMs: Math.round(Math.max(...times.environmentForgeMs)),
          }
        : null,
    },
    memory: {
      // The forge process: RSS before any work, peak sampled during the forges, and the OS's maximum.
      idleRssMb: times.idleRssMb,
      peakRssMb: times.peakRssMb,
      maxRssMb: times.maxRssMb,
    },
    contactSheet: path.relative(process.cwd(), sheet),
    perProduct,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const failures: string[] = [];
  if (result.cutoutIou.plain.mean < MIN_IOU) failures.push(`plain IoU ${result.cutoutIou.plain.mean} under ${MIN_IOU}`);
  if (forgeMedian > MAX_FORGE_MS) failures.push(`forge ${Math.round(forgeMedian)} ms over ${MAX_FORGE_MS} ms`);
  if (setSeen.length && Math.min(...setSeen) < MIN_DISTINCT)
    failures.push(`a forge's least distinct pair differs in ${Math.min(...setSeen)} of five, under ${MIN_DISTINCT}`);
  if (setSeen.length && mean(setSeen) < MIN_MEAN_DISTINCT)
    failures.push(
      `forges' least distinct pairs differ in ${round(mean(setSeen), 2)} of five on average, under ${MIN_MEAN_DISTINCT}`,
    );
  for (const f of failures) process.stderr.write(`bench/scenes: ${f}\n`);
  if (failures.length) process.exitCode = 1;
}

if (process.argv.includes('--forges')) await forges();
else await main();

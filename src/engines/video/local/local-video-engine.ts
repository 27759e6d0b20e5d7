/**
 * The local video engine (`local`): offline, CPU only, one ffmpeg run per clip (see
 * ../ffmpeg-args.ts for the filter graph).
 *
 * What it makes, by what the request carries:
 * - a start frame alone: the frame moved by the camera plan the prompt names (../camera.ts; the
 *   seed picks one when it names none), framed for the output's aspect ratio without cropping the
 *   product (../framing.ts: a cover crop that keeps it inside the whole move, else the picture
 *   fitted smaller and its backdrop extended around it, BACKDROP_EXTENDED). For moves with
 *   parallax the frame is taken apart into depth layers: the backdrop (wall), floor bands below
 *   the horizon moving as a ground plane, and the product with its shadows. The layers come from
 *   the scene engine when the request carries them (`startFrameLayers`: no cutting, no filling),
 *   from the staging of a bare product photo (./stage.ts), else the product is cut out of the
 *   frame (the scene's mask, or cutOutProduct's matte) and the hole it leaves filled (push-pull);
 *   when that cut-out is not trusted (low confidence, too small/large, touching the frame's edge)
 *   the frame moves as one layer and a PARALLAX_SKIPPED note says so.
 * - a start frame with intermediate and/or end frames: one gently moving segment per frame,
 *   crossfaded; the last segment settles exactly on the end frame.
 * - no start frame, references: a paced montage of them (images moved gently, videos cut to
 *   length from their middle, looped when short), crossfaded.
 * - none of these (text only): a slow camera move over a soft gradient backdrop coloured from
 *   the seed, with a TEXT_ONLY_BACKDROP warning; this engine cannot draw what a prompt describes.
 *
 * Every run has a time bound (ffmpeg killed past it), output size bounds, a temp folder removed
 * afterwards, and the request's AbortSignal checked between steps; an abort during the ffmpeg run
 * rejects at once (AbortError) and the temp folder is removed, but the child itself runs on until
 * its time bound: run-process takes no signal yet.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { lastStderrLine, runProcess } from '../../../adapters/media/run-process.ts';
import { ffmpegPath, probeVideo } from '../../../adapters/media/video.ts';
import { estimateHints } from '../../image/local/backdrop.ts';
import { type Cutout, cutOutRaw } from '../../image/local/cutout.ts';
import { dilate, erode, pushPull, reconstruct } from '../../image/local/raster.ts';
import { components } from '../../shared/raster.ts';
import { type EngineWarning, GenerationError } from '../../image/scene-engine.ts';
import { type CameraMove, type CameraPlan, chooseCameraMove, planCamera } from '../camera.ts';
import { readClip, requestShape } from '../conform.ts';
import {
  clipWindowStart,
  frameLayer,
  type RenderSpec,
  renderArgs,
  type Segment,
  type StillLayer,
  seeded,
  segmentFrames,
} from '../ffmpeg-args.ts';
import { bandAlpha, chooseFit, type Fit, floorBands, frameMove, layerGeometry, type Rect } from '../framing.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import { backdropSvg } from './backdrop-svg.ts';
import { extensionReach, layerIn, plateIn, type Raster } from './plate.ts';
import { stageBareProduct } from './stage.ts';

export interface LocalVideoEngineOptions {
  /** Largest output side (px). Default 3840. */
  maxSide?: number;
  /** Longest clip (s). Default 60. */
  maxSeconds?: number;
  /** ffmpeg's time bound: this many ms per second of clip, at least 60 s. Default 12000. */
  msPerSecond?: number;
  /** Largest master accepted (bytes). Default 512 MiB. */
  maxOutputBytes?: number;
  /** Largest reference or frame accepted (bytes). Default 256 MiB. */
  maxInputBytes?: number;
  /** libx264 preset, default `veryfast`. */
  preset?: string;
  /** Keep the temp folder (debugging). */
  keepTemp?: boolean;
  /** Where each render's temp folder is made. Default the OS's temp folder. */
  tmpRoot?: string;
  /**
   * Called with a start frame's still before it is rendered (benches, debugging): its framing,
   * the source size the framing maps from, its layers and plan. The layer files live until the
   * promise settles.
   */
  onStill?: (still: StartStill) => Promise<void>;
}

/** What `onStill` is shown. */
export interface StartStill {
  fit: Fit;
  source: { width: number; height: number };
  layers: StillLayer[];
  plan: CameraPlan;
}

const MAX_REFERENCES = 24;
const MAX_KEYFRAMES = 16;
const PREVIEW = { width: 320, maxSeconds: 3, fps: 15 } as const;

const fail = (message: string, cause?: unknown) => new GenerationError(message, false, cause ? { cause } : undefined);

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The video was cancelled.', 'AbortError');
}

function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

/** Rejects as soon as the signal aborts; otherwise settles with the promise. */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** A still, oriented and cover-fitted to width × height, as raw RGBA. */
async function fitRaw(bytes: Buffer, width: number, height: number): Promise<Buffer> {
  try {
    return await sharp(bytes, { limitInputPixels: 100_000_000, failOn: 'truncated' })
      .autoOrient()
      .resize(width, height, { fit: 'cover', kernel: 'lanczos3' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer();
  } catch (err) {
    throw fail('A frame or reference image could not be read.', err);
  }
}

/** A one-layer still segment from bytes: the picture cover-fitted to the output size. */
async function stillLayer(
  dir: string,
  name: string,
  bytes: Buffer,
  width: number,
  height: number,
): Promise<StillLayer> {
  const raw = await fitRaw(bytes, width, height);
  return writeFrameLayer(dir, name, raw, 4, width, height);
}

async function writeFrameLayer(
  dir: string,
  name: string,
  raw: Buffer,
  channels: 3 | 4,
  width: number,
  height: number,
): Promise<StillLayer> {
  const file = path.join(dir, `${name}.png`);
  await sharp(raw, { raw: { width, height, channels } }).removeAlpha().png({ compressionLevel: 1 }).toFile(file);
  return frameLayer(file, width, height);
}

/**
 * A start frame as RGBA, oriented, at most ~1.5× the output's long side and 2.5 MP (what the
 * framing can show), with its decoded size (to match the layers given with it).
 */
async function decodeFrame(bytes: Buffer, width: number, height: number): Promise<Raster & { original: Size }> {
  try {
    const img = sharp(bytes, { limitInputPixels: 100_000_000, failOn: 'truncated' }).autoOrient();
    const meta = await img.metadata();
    const ow = (meta.autoOrient?.width ?? meta.width) as number;
    const oh = (meta.autoOrient?.height ?? meta.height) as number;
    const bound = Math.min(1, (1.5 * Math.max(width, height)) / Math.max(ow, oh), Math.sqrt(2_500_000 / (ow * oh)));
    const w = Math.max(16, Math.round(ow * bound));
    const h = Math.max(16, Math.round(oh * bound));
    const data = await img
      .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer();
    return { data, width: w, height: h, channels: 4, original: { width: ow, height: oh } };
  } catch (err) {
    throw fail('A frame or reference image could not be read.', err);
  }
}

type Size = { width: number; height: number };

/** A start frame taken apart: its clean plate, the product layer over it, the product's box, the floor line. */
interface Separated {
  plate: Raster;
  product: Raster;
  /** The product (alpha ≥ 50%), source px, and where it meets the frame's edge. */
  box: Rect;
  touches: Cutout['touches'];
  /** Everything on the product layer (shadows included), source px. */
  content: Rect;
  /** Floor line, source px from the top. */
  horizon?: number;
}

/** Bounding boxes of a layer's alpha ≥ `solid` and > `clear`; undefined when nothing is solid. */
function alphaBoxes(
  rgba: Buffer,
  width: number,
  height: number,
  solid = 128,
  clear = 2,
): { box: Rect; content: Rect } | undefined {
  const b = [width, height, -1, -1];
  const c = [width, height, -1, -1];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const a = rgba[(y * width + x) * 4 + 3] as number;
      if (a <= clear) continue;
      for (const [box, ok] of [
        [c, true],
        [b, a >= solid],
      ] as const) {
        if (!ok) continue;
        box[0] = Math.min(box[0] as number, x);
        box[1] = Math.min(box[1] as number, y);
        box[2] = Math.max(box[2] as number, x);
        box[3] = Math.max(box[3] as number, y);
      }
    }
  }
  if ((b[2] as number) < 0) return undefined;
  const rect = (r: number[]) => ({
    left: r[0] as number,
    top: r[1] as number,
    width: (r[2] as number) - (r[0] as number) + 1,
    height: (r[3] as number) - (r[1] as number) + 1,
  });
  return { box: rect(b), content: rect(c) };
}

const touchesOf = (box: Rect, width: number, height: number): Cutout['touches'] => ({
  left: box.left === 0,
  top: box.top === 0,
  right: box.left + box.width >= width,
  bottom: box.top + box.height >= height,
});

/** The floor line of a plate (RGB) by its row profile (undefined when it does not show one). */
function estimateHorizon(plate: Raster): number | undefined {
  const rgb = new Uint8Array(plate.width * plate.height * 3);
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += plate.channels) {
    rgb[i] = plate.data[j] as number;
    rgb[i + 1] = plate.data[j + 1] as number;
    rgb[i + 2] = plate.data[j + 2] as number;
  }
  const h = estimateHints(rgb, plate.width, plate.height).horizon;
  return h === undefined ? undefined : h * plate.height;
}

/**
 * The given layers (the scene engine's, or a staged photo's) at the frame's size; undefined when
 * they do not match the frame or hold no product.
 */
async function fromLayers(
  frame: Raster & { original: Size },
  layers: NonNullable<VideoRequest['startFrameLayers']>,
): Promise<Separated | undefined> {
  const read = async (bytes: Buffer, channels: 3 | 4): Promise<Raster | undefined> => {
    const img = sharp(bytes, { limitInputPixels: 100_000_000, failOn: 'truncated' });
    const meta = await img.metadata();
    if (meta.width !== frame.original.width || meta.height !== frame.original.height) return undefined;
    const data = await (channels === 3 ? img.removeAlpha() : img.ensureAlpha())
      .resize(frame.width, frame.height, { fit: 'fill', kernel: 'lanczos3' })
      .toColourspace('srgb')
      .raw()
      .toBuffer();
    return { data, width: frame.width, height: frame.height, channels };
  };
  const [plate, product] = await Promise.all([read(layers.plate, 3), read(layers.product, 4)]).catch(() => []);
  if (!plate || !product) return undefined;
  const boxes = alphaBoxes(product.data, product.width, product.height);
  if (!boxes) return undefined;
  return {
    plate,
    product,
    ...boxes,
    touches: touchesOf(boxes.box, frame.width, frame.height),
    horizon: layers.horizon !== undefined ? layers.horizon * frame.height : estimateHorizon(plate),
  };
}

/** Whether the cut-out is one a parallax can trust; a reason when not. */
function parallaxProblem(
  cut: Pick<Cutout, 'confidence' | 'box' | 'touches'>,
  width: number,
  height: number,
): string | undefined {
  const area = (cut.box.width * cut.box.height) / (width * height);
  if (cut.confidence < 0.5) return 'the product could not be separated cleanly from its backdrop';
  if (area < 0.01) return 'no product was found in the start frame';
  if (area > 0.6) return 'the product fills most of the frame';
  const t = cut.touches;
  if (t.left || t.right || t.top) return 'the product is cropped by the frame';
  return undefined;
}

/**
 * The product's piece of a matte: alpha > 50% opened by ~0.6% of the frame (thin lines go), the
 * largest connected piece clear of the frame's edge (else the largest), and the matte connected to
 * it within ~2% of the frame (thin parts of the product); the matte is zeroed elsewhere (in place). Undefined when nothing is left.
 */
function productPiece(
  alpha: Buffer,
  width: number,
  height: number,
): { box: Cutout['box']; touches: Cutout['touches'] } | undefined {
  const n = width * height;
  const solid = new Uint8Array(n);
  for (let i = 0; i < n; i++) solid[i] = (alpha[i] as number) > 128 ? 1 : 0;
  const r = Math.max(2, Math.round(Math.max(width, height) * 0.006));
  const opened = dilate(erode(solid, width, height, r, 0), width, height, r);
  const { labels, list } = components(opened, width, height);
  let best = -1;
  for (let id = 0; id < list.length; id++) {
    const b = list[best];
    const c = list[id]!;
    const better =
      !b || (b.touchesBorder && !c.touchesBorder) || (b.touchesBorder === c.touchesBorder && c.area > b.area);
    if (better) best = id;
  }
  if (best < 0) return undefined;
  const piece = new Uint8Array(n);
  const seeds: number[] = [];
  for (let i = 0; i < n; i++) {
    piece[i] = labels[i] === best + 1 ? 1 : 0;
    if (piece[i] && solid[i]) seeds.push(i);
  }
  // Thin parts of the product the opening cut off (a bottle's loop, a strap) come back: the matte
  // connected to the piece, near it.
  const near = dilate(piece, width, height, 3 * r);
  const reach = new Uint8Array(n);
  for (let i = 0; i < n; i++) reach[i] = near[i] && (alpha[i] as number) > 24 ? 1 : 0;
  const grown = reconstruct(reach, width, seeds);
  const keep = dilate(grown, width, height, 2);
  let left = width;
  let top = height;
  let right = -1;
  let bottom = -1;
  for (let i = 0; i < n; i++) {
    if (!keep[i]) {
      alpha[i] = 0;
      continue;
    }
    if ((alpha[i] as number) < 8) continue;
    const x = i % width;
    const y = (i - x) / width;
    left = Math.min(left, x);
    right = Math.max(right, x);
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
  }
  if (right < 0) return undefined;
  return {
    box: { left, top, width: right - left + 1, height: bottom - top + 1 },
    touches: { left: left === 0, top: top === 0, right: right === width - 1, bottom: bottom === height - 1 },
  };
}

/**
 * The frame taken apart by a matte: the product's alpha (the given mask, else cut out at a
 * working size of ~0.5 MP), kept to the product's piece; the plate is the frame with the
 * product's place (grown by ~2.5% of the frame: its halo, its soft edge) filled from around it.
 * Without a piece, only why; with one the parallax cannot trust, the separation (its box frames
 * the shot) and why.
 */
async function fromMatte(
  frame: Raster,
  mask?: VideoRequest['startFrameMask'],
): Promise<{ separated?: Separated; problem?: string }> {
  const { width, height } = frame;
  const ws = Math.min(1, Math.sqrt(520_000 / (width * height)));
  const cw = Math.max(16, Math.round(width * ws));
  const chh = Math.max(16, Math.round(height * ws));
  let alphaSmall: Buffer;
  let confidence = 1;
  if (mask) {
    if (mask.data.length !== mask.width * mask.height) return { problem: 'the product mask does not match its size' };
    alphaSmall = await sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: 1 } })
      .resize(cw, chh, { fit: 'fill' })
      .extractChannel(0)
      .raw()
      .toBuffer();
  } else {
    const small =
      ws < 1
        ? await sharp(frame.data, { raw: { width, height, channels: 4 } })
            .resize(cw, chh)
            .raw()
            .toBuffer()
        : frame.data;
    let cut: Cutout;
    try {
      cut = cutOutRaw(new Uint8Array(small.buffer, small.byteOffset, small.length), cw, chh);
    } catch (err) {
      return { problem: `the product could not be cut out (${(err as Error).message})` };
    }
    confidence = cut.confidence;
    // Full-frame alpha at working size, kept to the product: the matte also takes whatever is not
    // backdrop-like (a floor line, a picture on the wall), so thin parts are opened away and only
    // the largest piece (preferably one clear of the frame's edge) and its near surroundings stay.
    alphaSmall = Buffer.alloc(cw * chh);
    for (let y = 0; y < cut.height; y++) {
      for (let x = 0; x < cut.width; x++) {
        alphaSmall[(y + cut.box.top) * cw + x + cut.box.left] = cut.rgba[(y * cut.width + x) * 4 + 3] as number;
      }
    }
  }
  const piece = productPiece(alphaSmall, cw, chh);
  if (!piece) return { problem: 'no product was found in the start frame' };
  const problem = parallaxProblem({ confidence, box: piece.box, touches: piece.touches }, cw, chh);
  if (confidence < 0.5) return { problem: problem as string };
  const alpha = await sharp(alphaSmall, { raw: { width: cw, height: chh, channels: 1 } })
    .resize(width, height, { kernel: 'cubic' })
    .extractChannel(0) // sharp turns a one-channel raw input into sRGB
    .raw()
    .toBuffer();
  const grow = Math.max(2, Math.round(Math.max(width, height) * 0.025));
  const grown = await sharp(alpha, { raw: { width, height, channels: 1 } })
    .blur(grow / 2)
    .extractChannel(0)
    .raw()
    .toBuffer();
  const n = width * height;
  const weight = new Float32Array(n);
  const colour = new Float32Array(n * 3);
  const raw = frame.data;
  for (let i = 0; i < n; i++) {
    weight[i] = (grown[i] as number) > 2 || (alpha[i] as number) > 0 ? 0 : 1;
    colour[i * 3] = raw[i * 4] as number;
    colour[i * 3 + 1] = raw[i * 4 + 1] as number;
    colour[i * 3 + 2] = raw[i * 4 + 2] as number;
  }
  const filled = pushPull(colour, weight, width, height, 3);
  const plate = Buffer.alloc(n * 3);
  const layer = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    const keep = weight[i] as number;
    for (let k = 0; k < 3; k++) {
      const orig = raw[i * 4 + k] as number;
      plate[i * 3 + k] = keep ? orig : Math.round(filled[i * 3 + k] as number);
      layer[i * 4 + k] = orig;
    }
    layer[i * 4 + 3] = alpha[i] as number;
  }
  const plateRaster: Raster = { data: plate, width, height, channels: 3 };
  const boxes = alphaBoxes(layer, width, height);
  if (!boxes) return { problem: 'no product was found in the start frame' };
  return {
    separated: {
      plate: plateRaster,
      product: { data: layer, width, height, channels: 4 },
      ...boxes,
      touches: touchesOf(boxes.box, width, height),
      horizon: estimateHorizon(plateRaster),
    },
    ...(problem ? { problem } : {}),
  };
}

/** Where the picture's rect lies in the output picture under a fit. */
const placed = (r: Rect, fit: Fit): Rect => ({
  left: fit.left + r.left * fit.scale,
  top: fit.top + r.top * fit.scale,
  width: r.width * fit.scale,
  height: r.height * fit.scale,
});

function boundingRect(rects: Rect[]): Rect {
  const left = Math.floor(Math.min(...rects.map((r) => r.left)));
  const top = Math.floor(Math.min(...rects.map((r) => r.top)));
  const right = Math.ceil(Math.max(...rects.map((r) => r.left + r.width)));
  const bottom = Math.ceil(Math.max(...rects.map((r) => r.top + r.height)));
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * The depth layers of a separated frame under a fit and a plan: the plate over all the frame
 * (and past it, as far as any backdrop layer looks), floor bands read from the same plate with
 * their alpha ramps, and the product layer over the part of the frame it reaches.
 */
async function depthLayers(
  dir: string,
  sep: Separated,
  plan: CameraPlan,
  fit: Fit,
  width: number,
  height: number,
): Promise<StillLayer[]> {
  const everywhere = { left: -width, top: -height, width: 3 * width, height: 3 * height };
  const wall = layerGeometry(plan, 0, width, height, everywhere) as NonNullable<ReturnType<typeof layerGeometry>>;
  const box = placed(sep.box, fit);
  const horizon = sep.horizon === undefined ? undefined : fit.top + sep.horizon * fit.scale;
  const bands = floorBands(horizon, box.top + box.height, height, height).flatMap((band) => {
    const end = band.end ?? 2 * height;
    const geometry = layerGeometry(plan, band.depth, width, height, {
      left: -width,
      top: band.fadeTop,
      width: 3 * width,
      height: end - band.fadeTop,
    });
    return geometry ? [{ band, ...geometry }] : [];
  });
  const product = layerGeometry(plan, 1, width, height, placed(sep.content, fit));
  const extent = boundingRect([wall.window, ...bands.map((b) => b.window)]);
  const plate = await plateIn(sep.plate, fit, extent, extensionReach(width, height));
  const plateFile = path.join(dir, 'plate.png');
  await sharp(plate, { raw: { width: extent.width, height: extent.height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toFile(plateFile);
  const origin = { x: extent.left, y: extent.top };
  const layers: StillLayer[] = [
    { path: plateFile, alpha: false, depth: 0, origin, window: wall.window, place: wall.place },
  ];
  for (const [i, b] of bands.entries()) {
    const ramp = Buffer.alloc(b.window.height);
    for (let r = 0; r < ramp.length; r++) ramp[r] = Math.round(bandAlpha(b.band, b.window.top + r + 0.5) * 255);
    const rampFile = path.join(dir, `band${i}.png`);
    await sharp(ramp, { raw: { width: 1, height: ramp.length, channels: 1 } })
      .png()
      .toFile(rampFile);
    layers.push({
      path: plateFile,
      alpha: true,
      depth: b.band.depth,
      origin,
      window: b.window,
      place: b.place,
      ramp: rampFile,
    });
  }
  if (product) {
    const w = product.window;
    const raster = await layerIn(sep.product, fit, w, plate, extent);
    const file = path.join(dir, 'product.png');
    await sharp(raster, { raw: { width: w.width, height: w.height, channels: 4 } })
      .png({ compressionLevel: 1 })
      .toFile(file);
    layers.push({
      path: file,
      alpha: true,
      depth: 1,
      origin: { x: w.left, y: w.top },
      window: w,
      place: product.place,
    });
  }
  return layers;
}

/** A separated frame as one still (no parallax): the product layer over the plate, framed. */
async function flatLayer(dir: string, sep: Separated, fit: Fit, width: number, height: number): Promise<StillLayer> {
  const frame = { left: 0, top: 0, width, height };
  const plate = await plateIn(sep.plate, fit, frame, extensionReach(width, height));
  const layer = await layerIn(sep.product, fit, frame, plate, frame);
  for (let i = 0; i < width * height; i++) {
    const a = (layer[i * 4 + 3] as number) / 255;
    if (a === 0) continue;
    for (let c = 0; c < 3; c++) {
      plate[i * 3 + c] = Math.round((layer[i * 4 + c] as number) * a + (plate[i * 3 + c] as number) * (1 - a));
    }
  }
  return writeFrameLayer(dir, 'still', plate, 3, width, height);
}

/** A soft two-colour gradient with a glow, coloured from the seed (text-only requests). */
async function gradientBackdrop(seed: number, width: number, height: number): Promise<Buffer> {
  const hue = Math.round(seeded(seed, 1) * 360);
  const hue2 = (hue + 30 + Math.round(seeded(seed, 2) * 60)) % 360;
  const svg = backdropSvg(width, height, {
    wash: {
      x2: 1,
      y2: 1,
      stops: [
        { offset: 0, color: `hsl(${hue},45%,78%)` },
        { offset: 1, color: `hsl(${hue2},40%,42%)` },
      ],
    },
    light: {
      cx: 0.3 + 0.4 * seeded(seed, 3),
      cy: 0.4,
      r: 0.6,
      stops: [
        { offset: 0, color: '#ffffff', opacity: 0.45 },
        { offset: 1, color: '#ffffff', opacity: 0 },
      ],
    },
  });
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function readReference(
  ref: NonNullable<VideoRequest['references']>[number],
  maxBytes: number,
): Promise<Buffer | undefined> {
  if (ref.bytes) {
    if (ref.bytes.length > maxBytes) throw fail(`A reference is over ${maxBytes} bytes.`);
    return ref.bytes;
  }
  if (!ref.path) throw fail('A reference has neither bytes nor a path.');
  const stat = await fs.stat(ref.path).catch((err) => {
    throw fail('A reference file could not be opened.', err);
  });
  if (!stat.isFile()) throw fail('A reference path is not a file.');
  if (stat.size > maxBytes) throw fail(`A reference is over ${maxBytes} bytes.`);
  return ref.kind === 'image' ? fs.readFile(ref.path) : undefined;
}

/**
 * The still segment of a start frame (or the text-only backdrop): taken apart into layers when
 * the move has parallax or the frame must be framed for another aspect ratio, framed so the
 * product stays whole, the camera aimed at the product.
 */
async function startStill(
  dir: string,
  req: VideoRequest & { startFrame: Buffer; starts: boolean },
  move: CameraMove,
): Promise<StartStill & { warnings: EngineWarning[] }> {
  const { width, height, signal } = req;
  const warnings: EngineWarning[] = [];
  let frame = await decodeFrame(req.startFrame, width, height);
  let sep = req.startFrameLayers ? await fromLayers(frame, req.startFrameLayers) : undefined;
  if (req.starts && !sep && !req.startFrameMask) {
    // A bare product photo is not a scene: stage it on a studio sweep first (./stage.ts).
    const staged = await stageBareProduct(req.startFrame, width, height).catch(() => undefined);
    checkAbort(signal);
    if (staged) {
      frame = await decodeFrame(staged.png, width, height);
      sep = await fromLayers(frame, staged.layers);
      warnings.push({
        code: 'START_FRAME_STAGED',
        message: `The start frame is a bare product photo (${staged.reason === 'transparent' ? 'a cut-out with a transparent background' : 'on a plain background'}): it was placed whole on a studio backdrop first. Use a scene as the start frame for a styled film.`,
        severity: 'warning',
      });
    }
  }
  const wantsParallax = req.starts && planCamera(move).keys.some((k) => k.parallax !== 0);
  const reframed = Math.abs(frame.width / frame.height - width / height) > 0.005;
  let problem: string | undefined;
  if (req.starts && !sep && (wantsParallax || reframed)) {
    const r = await fromMatte(frame, req.startFrameMask);
    checkAbort(signal);
    sep = r.separated;
    problem = r.problem;
  }
  if (wantsParallax && problem) {
    warnings.push({ code: 'PARALLAX_SKIPPED', message: `The frame moves as one layer: ${problem}.`, severity: 'info' });
  }
  const layered = wantsParallax && sep !== undefined && !problem;
  const out = { width, height };
  const margin = Math.round(0.03 * Math.min(width, height));
  const { plan, fit } = sep
    ? frameMove(move, { source: frame, out, box: sep.box, touches: sep.touches, margin, depth: layered ? 1 : 0 })
    : {
        plan: planCamera(move),
        fit: chooseFit({ source: frame, out, safe: { left: 0, top: 0, width, height }, margin }),
      };
  if (fit.extended) {
    warnings.push({
      code: 'BACKDROP_EXTENDED',
      message:
        'The start frame was fitted smaller so the product stays whole through the camera move (another aspect ratio, or a product that fills the frame), and its backdrop was extended around it.',
      severity: 'info',
    });
  }
  let layers: StillLayer[];
  if (sep && layered) layers = await depthLayers(dir, sep, plan, fit, width, height);
  else if (sep) layers = [await flatLayer(dir, sep, fit, width, height)];
  else {
    const raw = await plateIn(frame, fit, { left: 0, top: 0, width, height }, extensionReach(width, height));
    layers = [await writeFrameLayer(dir, 'still', raw, 3, width, height)];
  }
  checkAbort(signal);
  return { layers, plan, fit, source: { width: frame.width, height: frame.height }, warnings };
}

const MONTAGE_MOVES: CameraMove[] = ['push-in', 'pan-right', 'pull-out', 'pan-left'];

export function createLocalVideoEngine(options: LocalVideoEngineOptions = {}): VideoEngine {
  const maxSide = options.maxSide ?? 3840;
  const maxSeconds = options.maxSeconds ?? 60;
  const msPerSecond = options.msPerSecond ?? 12_000;
  const maxOutputBytes = options.maxOutputBytes ?? 512 * 1024 * 1024;
  const maxInputBytes = options.maxInputBytes ?? 256 * 1024 * 1024;

  async function generate(req: VideoRequest): Promise<VideoResult> {
    const { width, height, fps, frames } = requestShape(req, { maxSide, maxSeconds });
    const signal = req.signal;
    checkAbort(signal);
    const warnings: EngineWarning[] = [];
    const dir = await fs.mkdtemp(path.join(options.tmpRoot ?? os.tmpdir(), 'atelier-video-'));
    try {
      const seconds = frames / fps;
      const choice = chooseCameraMove(req.prompt ?? '', req.seed);
      let camera: VideoResult['camera'] = { move: choice.move, source: choice.source };
      const segments: Segment[] = [];
      let crossfadeFrames = 0;
      const keyframes = req.startFrame
        ? [req.startFrame, ...(req.intermediateFrames ?? []), ...(req.endFrame ? [req.endFrame] : [])]
        : [];
      if (keyframes.length > MAX_KEYFRAMES) throw fail(`At most ${MAX_KEYFRAMES} key frames are accepted.`);
      for (const k of keyframes) if (k.length > maxInputBytes) throw fail(`A frame is over ${maxInputBytes} bytes.`);

      if (keyframes.length === 1 || (keyframes.length === 0 && !req.references?.length)) {
        let bytes = keyframes[0];
        if (!bytes) {
          warnings.push({
            code: 'TEXT_ONLY_BACKDROP',
            message:
              'No start frame or references: the local engine moved the camera over a plain gradient backdrop. Give a start frame (a scene) for a product film.',
            severity: 'warning',
          });
          bytes = await gradientBackdrop(req.seed, width, height);
        }
        const still = await startStill(dir, { ...req, startFrame: bytes, starts: keyframes.length === 1 }, choice.move);
        warnings.push(...still.warnings);
        await options.onStill?.({ fit: still.fit, source: still.source, layers: still.layers, plan: still.plan });
        segments.push({ kind: 'still', layers: still.layers, plan: still.plan, frames });
      } else if (keyframes.length > 1) {
        crossfadeFrames = Math.max(1, Math.min(Math.round(0.8 * fps), Math.floor(frames / (keyframes.length * 2))));
        const lengths = segmentFrames(frames, keyframes.length, crossfadeFrames);
        if (lengths.some((l) => l < 2)) throw fail('The clip is too short for that many key frames.');
        const settle: CameraPlan = planCamera('pull-out', { intensity: 0.4 });
        const drift: CameraPlan = planCamera('push-in', { intensity: 0.4 });
        for (const [i, bytes] of keyframes.entries()) {
          checkAbort(signal);
          const last = i === keyframes.length - 1 && keyframes.length > 1 && req.endFrame !== undefined;
          const layer = await stillLayer(dir, `key${i}`, bytes, width, height);
          segments.push({ kind: 'still', layers: [layer], plan: last ? settle : drift, frames: lengths[i] as number });
        }
        camera = { move: 'crossfade', source: 'none' };
      } else {
        const refs = (req.references ?? []).slice(0, MAX_REFERENCES);
        if ((req.references?.length ?? 0) > MAX_REFERENCES) {
          warnings.push({
            code: 'REFERENCES_DROPPED',
            message: `Only the first ${MAX_REFERENCES} references were used.`,
            severity: 'warning',
          });
        }
        crossfadeFrames = Math.max(1, Math.min(Math.round(0.5 * fps), Math.floor(frames / (refs.length * 3))));
        const lengths = segmentFrames(frames, refs.length, crossfadeFrames);
        if (lengths.some((l) => l < 2)) throw fail('The clip is too short for that many references.');
        for (const [i, ref] of refs.entries()) {
          checkAbort(signal);
          const bytes = await readReference(ref, maxInputBytes);
          const length = lengths[i] as number;
          if (ref.kind === 'image') {
            const layer = await stillLayer(dir, `ref${i}`, bytes as Buffer, width, height);
            const move = MONTAGE_MOVES[(i + Math.floor(seeded(req.seed, 11) * 4)) % 4] as CameraMove;
            segments.push({
              kind: 'still',
              layers: [layer],
              plan: planCamera(move, { intensity: 0.6 }),
              frames: length,
            });
          } else {
            let file = ref.path as string;
            if (ref.bytes) {
              file = path.join(dir, `ref${i}.mp4`);
              await fs.writeFile(file, ref.bytes);
            }
            const clipSeconds = await probeVideo(file, 30_000).then(
              (p) => p.durationSeconds,
              () => undefined,
            );
            const startSeconds = clipWindowStart(clipSeconds, length / fps);
            segments.push({ kind: 'video', path: file, frames: length, ...(startSeconds ? { startSeconds } : {}) });
          }
        }
        camera = { move: 'montage', source: 'none' };
      }

      checkAbort(signal);
      const spec: RenderSpec = {
        width,
        height,
        fps,
        frames,
        segments,
        crossfadeFrames,
        ...(req.enableAudio ? { audio: { seed: req.seed } } : {}),
        output: path.join(dir, 'out.mp4'),
        preview: { output: path.join(dir, 'preview.mp4'), ...PREVIEW },
        ...(options.preset ? { preset: options.preset } : {}),
      };
      const timeoutMs = Math.max(60_000, Math.ceil(seconds * msPerSecond));
      if (options.keepTemp) await fs.writeFile(path.join(dir, 'ffmpeg-args.json'), JSON.stringify(renderArgs(spec)));
      const run = await abortable(
        runProcess(ffmpegPath(), renderArgs(spec), {
          timeoutMs,
          maxStdoutBytes: 1024 * 1024,
          label: 'Rendering the video',
          ...(signal ? { signal } : {}),
        }),
        signal,
      ).catch((err) => {
        if (err instanceof Error && (err.name === 'AbortError' || signal?.aborted)) throw err;
        throw fail(`The video could not be rendered: ${(err as Error).message}`, err);
      });
      if (run.exitCode !== 0) {
        throw fail(
          `The video could not be rendered (ffmpeg: ${lastStderrLine(run.stderr) || `exit ${run.exitCode}`}).`,
        );
      }
      const stat = await fs.stat(spec.output);
      if (stat.size > maxOutputBytes) throw fail(`The rendered video is over ${maxOutputBytes} bytes.`);
      const clip = await readClip(
        { output: spec.output, preview: spec.preview!.output },
        { width, height, seconds, fps },
        warnings,
        (probe) => fail(`The rendered video is ${probe.width}×${probe.height}, not ${width}×${height}.`),
      );
      return { ...clip, camera, warnings, engine: 'local' };
    } finally {
      if (!options.keepTemp) await fs.rm(dir, { recursive: true, force: true });
    }
  }

  return { name: 'local', generate };
}

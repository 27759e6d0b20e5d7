/**
 * Local video engine benchmark, in three parts.
 *
 * 1. Speed and smoothness: 5 s 1280×720 30 fps clips from a start frame (a fixture product
 *    composited by the local scene engine on a grainy set with a marker disc; a plain composite
 *    when that fails), one per camera move (push-in with the audio bed, pan, orbit — from the
 *    scene's layers, and again from the video engine's own matte) and a transition clip (start →
 *    intermediate → end frame, crossfaded) and a reference montage as video-model-8 makes (three
 *    pictures and, when the shared fixture is there, a video clip cut to length). For each clip:
 *    wall time against real time (the goal is ≤ 1× on a 2-core machine), the peak RSS of the
 *    ffmpeg child (sampled from /proc) and of this process, the ffprobe check (h264, yuv420p,
 *    1280×720, 30/1, 5 s ± 0.1, audio only when asked), and a smoothness measure: the marker disc
 *    is tracked frame by frame (its centroid, at 640×360) and the largest and RMS second
 *    difference of its path, in output px, are reported (`jitter`; a smooth eased move is near 0
 *    plus coding noise; zoompan's whole-pixel stepping without supersampling shows as max ≥ 1,
 *    RMS ≥ 0.5). Contact sheet: bench/results/video-frames.png.
 * 2. Smear, per camera move: the mug set's scene filmed from its layers (after) and by the matte
 *    (before, what every scene got until the layers were kept). Each clip's still is rendered
 *    again by the bench (the engine's `onStill`): with the scene's true clean plate in place of
 *    the clip's and no product (the reference: the clean plate moved by the same camera), and as
 *    a mask (the true product layer in white on black). In a band around the product (within 3%
 *    of the frame of it, clear of its shadows) the clip's luma is compared with the reference's:
 *    `smear` is the RMS difference, `noise` the band's natural noise (the plate's grain there,
 *    from neighbour differences); a clip passes when smear < noise. Contact sheets:
 *    bench/results/video-moves-{1,2}.png (after and before, with close-ups of the product).
 * 3. Framing: the cap's scene at 1:1, 4:3, 16:9, 9:16 and 21:9 filmed at each other aspect ratio
 *    (push-in and pan from the layers, push-in by the matte): the product's box (its mask clip,
 *    as above) must stay inside every frame. Contact sheets: bench/results/video-framing-{1,2}.png.
 *
 * Prints JSON; exits 1 when a clip fails its ffprobe check, the slowest clip of part 1 takes
 * over BENCH_VIDEO_MAX_VS_BASELINE (default 14) × the time of a baseline encode of the same run
 * (see MAX_VS_BASELINE; the goal of ≤ 1× real time is reported as `meetsGoal`), a layered clip
 * smears, or a product leaves the frame. Skips (exit 0) when the fixtures are not there. BENCH_VIDEO_PARTS (e.g.
 * `2,3`) runs some parts only.
 *
 *   npm run bench -- video
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { runProcess } from '../src/adapters/media/run-process.ts';
import { ffmpegPath, ffprobePath } from '../src/adapters/media/video.ts';
import { createLocalSceneEngine } from '../src/engines/image/local/local-scene-engine.ts';
import { type AspectRatio, outputSize, type SceneResult } from '../src/engines/image/scene-engine.ts';
import { CAMERA_MOVES, type CameraMove } from '../src/engines/video/camera.ts';
import { renderArgs, type StillLayer } from '../src/engines/video/ffmpeg-args.ts';
import { createLocalVideoEngine, type StartStill } from '../src/engines/video/local/local-video-engine.ts';
import { extensionReach, layerIn, plateIn, type Raster } from '../src/engines/video/local/plate.ts';
import type { VideoRequest } from '../src/engines/video/video-engine.ts';

const FIXTURES = process.env.BENCH_VIDEO_FIXTURES ?? '/work/shared/fixtures/product-images';
const REFERENCE_CLIP = path.join(FIXTURES, '../video/big-buck-bunny-480p-30s.mp4');
/**
 * The gate on part 1's slowest clip, against a baseline encoded in the same run (ffmpeg's testsrc2
 * pattern, the same size, rate, length and x264 settings, no filters): a slower machine slows both
 * alike. 14× is the former absolute gate (1.5× real time) on the machine where the baseline took
 * 0.105× real time.
 */
const MAX_VS_BASELINE = Number(process.env.BENCH_VIDEO_MAX_VS_BASELINE ?? 14);
const PARTS = new Set((process.env.BENCH_VIDEO_PARTS ?? '1,2,3').split(',').map((p) => p.trim()));
const GOAL_RATIO = 1;
const W = 1280;
const H = 720;
const FPS = 30;
const SECONDS = 5;
const RESULTS = path.join(import.meta.dirname, 'results');
const MARKER = { r: 200, g: 60, b: 40 };
/** The grain of the bench's sets (σ, levels): a photographed set is never flat. */
const GRAIN = 4;

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** A set with a floor, a soft light, a marker disc (for tracking) and grain, as PNG, `width` × `height`. */
async function backdrop(wall: string, floor: string, width = W, height = H, seed = 1): Promise<Buffer> {
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><radialGradient id="l" cx="0.7" cy="0.3" r="0.7"><stop offset="0" stop-color="#fff" stop-opacity="0.35"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
  <rect width="${width}" height="${height}" fill="${wall}"/><rect y="${height * 0.68}" width="${width}" height="${height * 0.32}" fill="${floor}"/>
  <rect width="${width}" height="${height}" fill="url(#l)"/>
  <circle cx="${width * 0.2}" cy="${height * 0.3}" r="${Math.min(width, height) * 0.07}" fill="rgb(${MARKER.r},${MARKER.g},${MARKER.b})"/>
</svg>`);
  const rgb = await sharp(svg).removeAlpha().raw().toBuffer();
  let t = seed >>> 0;
  const rand = () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), t | 1);
    r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = 0; i < rgb.length; i += 3) {
    const g = (rand() + rand() + rand() + rand() - 2) * GRAIN * Math.sqrt(3);
    for (let c = 0; c < 3; c++) rgb[i + c] = Math.max(0, Math.min(255, Math.round((rgb[i + c] as number) + g)));
  }
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A scene: the product placed on the set by the local scene engine. */
async function scene(
  product: Buffer,
  wall: string,
  floor: string,
  seed: number,
  aspect: AspectRatio = '16:9',
  longSide = W,
) {
  const { width, height } = outputSize(aspect, longSide);
  return createLocalSceneEngine().generate({
    prompt: 'product on a table',
    aspectRatio: aspect,
    width,
    height,
    variationIndex: 0,
    seed,
    products: [{ bytes: product }],
    backdrop: await backdrop(wall, floor, width, height, seed),
    palette: ['#c8102e', '#1d1d1f'],
  });
}

/** A start frame: the scene (with its layers and mask), or a plain composite when the scene engine fails. */
async function startFrame(
  product: Buffer,
  wall: string,
  floor: string,
  seed: number,
): Promise<{ png: Buffer; layers?: SceneResult['layers']; mask?: { data: Buffer; width: number; height: number } }> {
  try {
    const r = await scene(product, wall, floor, seed);
    return {
      png: r.png,
      ...(r.layers ? { layers: r.layers } : {}),
      ...(r.productMask ? { mask: { data: r.productMask, width: W, height: H } } : {}),
    };
  } catch (err) {
    process.stderr.write(`scene engine failed (${(err as Error).message}); plain composite\n`);
    const p = await sharp(product)
      .resize(Math.round(W * 0.3), Math.round(H * 0.6), { fit: 'inside' })
      .png()
      .toBuffer();
    const m = await sharp(p).metadata();
    const png = await sharp(await backdrop(wall, floor))
      .composite([{ input: p, left: Math.round((W - (m.width ?? 0)) / 2), top: Math.round(H * 0.8 - (m.height ?? 0)) }])
      .png()
      .toBuffer();
    return { png };
  }
}

/** Peak RSS (MiB) of this process's children while `work` runs, sampled every 25 ms from /proc. */
async function withChildPeak<T>(work: () => Promise<T>): Promise<{ value: T; childPeakMiB: number }> {
  let peak = 0;
  const sample = () => {
    try {
      for (const pid of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        let status: string;
        try {
          status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        } catch {
          continue;
        }
        if (Number(/PPid:\s+(\d+)/.exec(status)?.[1]) !== process.pid) continue;
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kb / 1024);
      }
    } catch {
      // /proc not readable: no measure
    }
  };
  const timer = setInterval(sample, 25);
  try {
    const value = await work();
    return { value, childPeakMiB: round(peak, 1) };
  } finally {
    clearInterval(timer);
  }
}

interface ProbeJson {
  streams: {
    codec_type: string;
    codec_name: string;
    width?: number;
    height?: number;
    pix_fmt?: string;
    r_frame_rate?: string;
  }[];
  format: { duration: string };
}

async function probe(file: string): Promise<ProbeJson> {
  const r = await runProcess(
    ffprobePath(),
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
    {
      timeoutMs: 30_000,
      maxStdoutBytes: 1 << 20,
      label: 'ffprobe',
    },
  );
  return JSON.parse(r.stdout.toString('utf8')) as ProbeJson;
}

/** A clip's frames through a filter: raw bytes (`gray`, `rgb24`) or a PNG stream. */
async function decode(file: string, vf: string, format: 'gray' | 'rgb24' | 'png'): Promise<Buffer> {
  const out = format === 'png' ? ['-f', 'image2pipe', '-c:v', 'png'] : ['-f', 'rawvideo', '-pix_fmt', format];
  const r = await runProcess(ffmpegPath(), ['-v', 'error', '-i', file, '-vf', vf, '-vsync', '0', ...out, 'pipe:1'], {
    timeoutMs: 120_000,
    maxStdoutBytes: 512 * 1024 * 1024,
    label: 'ffmpeg frames',
  });
  return r.stdout;
}

/**
 * The marker's centroid per frame (output px), undefined where it is not visible: found by its
 * colour, measured by its luma (full resolution in the coded video, where the colour is halved)
 * against the wall around it, so edge pixels count partly (a subpixel centroid).
 */
async function markerPath(file: string): Promise<({ x: number; y: number } | undefined)[]> {
  const w = 640;
  const h = 360;
  const r = { stdout: await decode(file, `scale=${w}:${h}:flags=area`, 'rgb24') };
  const frameBytes = w * h * 3;
  const markerLuma = 0.299 * MARKER.r + 0.587 * MARKER.g + 0.114 * MARKER.b;
  const out: ({ x: number; y: number } | undefined)[] = [];
  for (let f = 0; f + frameBytes <= r.stdout.length; f += frameBytes) {
    const px = (i: number) => r.stdout.subarray(f + i * 3, f + i * 3 + 3);
    const luma = (i: number) => {
      const [R, G, B] = px(i) as unknown as [number, number, number];
      return 0.299 * R + 0.587 * G + 0.114 * B;
    };
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < w * h; i++) {
      const [R, G, B] = px(i) as unknown as [number, number, number];
      if (Math.abs(R - MARKER.r) + Math.abs(G - MARKER.g) + Math.abs(B - MARKER.b) >= 90) continue;
      xs.push(i % w);
      ys.push(Math.floor(i / w));
    }
    if (xs.length < 50) {
      out.push(undefined);
      continue;
    }
    // A window around the disc (the median of its colour; a product's red parts are fewer and far).
    const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1] as number;
    const reach = Math.round(0.1 * h);
    const [mx, my] = [median(xs), median(ys)];
    const [x0, y0, x1, y1] = [
      Math.max(0, mx - reach),
      Math.max(0, my - reach),
      Math.min(w - 1, mx + reach),
      Math.min(h - 1, my + reach),
    ];
    let ring = 0;
    let rn = 0;
    for (let x = x0; x <= x1; x++) for (const y of [y0, y1]) [ring, rn] = [ring + luma(y * w + x), rn + 1];
    for (let y = y0; y <= y1; y++) for (const x of [x0, x1]) [ring, rn] = [ring + luma(y * w + x), rn + 1];
    const wall = ring / rn;
    let sx = 0;
    let sy = 0;
    let sw = 0;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const wt = Math.min(1, Math.max(0, (wall - luma(y * w + x)) / (wall - markerLuma)));
        sx += x * wt;
        sy += y * wt;
        sw += wt;
      }
    }
    out.push(sw > 50 ? { x: (sx / sw) * (W / w), y: (sy / sw) * (H / h) } : undefined);
  }
  return out;
}

/**
 * Second differences of the marker's path (px), over frames where it is tracked: the largest and
 * the RMS. A smooth eased move has both near 0 (plus tracking noise through the H.264 coding).
 */
function jitter(path: ({ x: number; y: number } | undefined)[]): { maxPx: number; rmsPx: number } | undefined {
  const d: number[] = [];
  for (let i = 1; i + 1 < path.length; i++) {
    const a = path[i - 1];
    const b = path[i];
    const c = path[i + 1];
    if (a && b && c) d.push(Math.hypot(a.x - 2 * b.x + c.x, a.y - 2 * b.y + c.y));
  }
  if (d.length === 0) return undefined;
  return { maxPx: round(Math.max(...d)), rmsPx: round(Math.sqrt(d.reduce((s, v) => s + v * v, 0) / d.length)) };
}

/** 8 frames across the clip, one row, each `cell` px wide. */
async function filmstrip(file: string, cell: number): Promise<Buffer> {
  const every = Math.max(1, Math.floor((SECONDS * FPS) / 8));
  const tile = `select='not(mod(n\\,${every}))',scale=${cell}:-2:flags=area,tile=8x1:padding=4:color=white`;
  return pngs(await decode(file, tile, 'png'))[0] as Buffer;
}

/** The PNGs of an image2pipe stream. */
function pngs(stream: Buffer): Buffer[] {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const out: Buffer[] = [];
  let at = stream.indexOf(sig);
  while (at >= 0) {
    const next = stream.indexOf(sig, at + 8);
    out.push(stream.subarray(at, next < 0 ? undefined : next));
    at = next;
  }
  return out;
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A contact sheet: a label bar over each row of images, written to `file`. */
async function contactSheet(rows: { label: string; cells: Buffer[] }[], file: string): Promise<string> {
  const labelH = 26;
  const gap = 4;
  const laid = await Promise.all(
    rows.map(async (r) => {
      const metas = await Promise.all(r.cells.map((c) => sharp(c).metadata()));
      return {
        ...r,
        metas,
        width: metas.reduce((w, m) => w + (m.width ?? 0) + gap, 0),
        height: Math.max(...metas.map((m) => m.height ?? 0)),
      };
    }),
  );
  const sheetW = Math.max(...laid.map((r) => r.width));
  const layers: OverlayOptions[] = [];
  let top = 0;
  for (const row of laid) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${sheetW}" height="${labelH}"><rect width="${sheetW}" height="${labelH}" fill="#111"/><text x="8" y="18" font-family="DejaVu Sans, sans-serif" font-size="14" fill="#eee">${escapeXml(row.label)}</text></svg>`;
    layers.push({ input: Buffer.from(svg), left: 0, top });
    let left = 0;
    for (const [i, cell] of row.cells.entries()) {
      layers.push({ input: cell, left, top: top + labelH });
      left += (row.metas[i]?.width ?? 0) + gap;
    }
    top += labelH + row.height + gap;
  }
  await sharp({ create: { width: sheetW, height: top, channels: 3, background: '#ffffff' } })
    .composite(layers)
    .png()
    .toFile(file);
  return path.relative(process.cwd(), file);
}

/**
 * This machine's speed at the clips' encode, as a share of real time: ffmpeg's moving testsrc2
 * pattern encoded with the engine's x264 settings (ffmpeg-args.ts: veryfast, CRF 20, yuv420p),
 * the faster of two runs.
 */
async function baselineRatio(tmp: string): Promise<number> {
  const file = path.join(tmp, 'baseline.mp4');
  const src = `testsrc2=size=${W}x${H}:rate=${FPS}:duration=${SECONDS}`;
  const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', src, '-c:v', 'libx264', '-preset', 'veryfast'];
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const r = await runProcess(ffmpegPath(), [...args, '-crf', '20', '-pix_fmt', 'yuv420p', file], {
      timeoutMs: 120_000,
      maxStdoutBytes: 1024,
      label: 'ffmpeg baseline',
    });
    if (r.exitCode !== 0) throw new Error(`the baseline encode failed: ${r.stderr}`);
    best = Math.min(best, performance.now() - t0);
  }
  return round(best / 1000 / SECONDS, 3);
}

/** Part 1: speed, memory, the ffprobe check and smoothness of six 5 s 720p clips. */
async function speed(fixture: (name: string) => Buffer, tmp: string, failures: string[]) {
  const start = await startFrame(fixture('solidus_bottles_1'), '#e9e4dc', '#d6cdbf', 1);
  const middle = await startFrame(fixture('solidus_cap_black_1'), '#dfe6ea', '#c3ccd2', 2);
  const end = await startFrame(fixture('solidus_canvas_tote'), '#2d3640', '#1f262d', 3);
  const engine = createLocalVideoEngine();
  const base = { width: W, height: H, durationSeconds: SECONDS, fps: FPS, seed: 7, startFrame: start.png };
  const withLayers = start.layers ? { startFrameLayers: start.layers } : {};
  const clips: { label: string; req: VideoRequest }[] = [
    {
      label: 'push-in (+audio)',
      req: { ...base, ...withLayers, prompt: 'slow push in on the bottles', enableAudio: true },
    },
    { label: 'pan right', req: { ...base, ...withLayers, prompt: 'pan right across the table' } },
    { label: 'orbit (parallax, scene layers)', req: { ...base, ...withLayers, prompt: 'orbit around the product' } },
    { label: 'orbit (parallax, matte)', req: { ...base, prompt: 'orbit around the product' } },
    {
      label: 'transition (3 frames)',
      req: { ...base, prompt: 'product reveal', intermediateFrames: [middle.png], endFrame: end.png },
    },
    {
      label: `montage (video-model-8: 3 images${fs.existsSync(REFERENCE_CLIP) ? ' + 1 clip' : ''})`,
      req: {
        width: W,
        height: H,
        durationSeconds: SECONDS,
        fps: FPS,
        seed: 7,
        prompt: 'the collection, cut to the beat',
        references: [
          { kind: 'image', bytes: start.png },
          { kind: 'image', bytes: middle.png },
          ...(fs.existsSync(REFERENCE_CLIP) ? [{ kind: 'video' as const, path: REFERENCE_CLIP }] : []),
          { kind: 'image', bytes: end.png },
        ],
      },
    },
  ];

  const baseline = await baselineRatio(tmp);
  const rows: { label: string; cells: Buffer[] }[] = [];
  const results = [];
  for (const clip of clips) {
    const t0 = performance.now();
    const { value: r, childPeakMiB } = await withChildPeak(() => engine.generate(clip.req));
    const ms = performance.now() - t0;
    const file = path.join(tmp, `speed-${rows.length}.mp4`);
    fs.writeFileSync(file, r.mp4);
    const p = await probe(file);
    const v = p.streams.find((s) => s.codec_type === 'video');
    const audio = p.streams.filter((s) => s.codec_type === 'audio').map((s) => s.codec_name);
    const duration = Number(p.format.duration);
    const ok =
      v?.codec_name === 'h264' &&
      v.pix_fmt === 'yuv420p' &&
      v.width === W &&
      v.height === H &&
      v.r_frame_rate === `${FPS}/1` &&
      Math.abs(duration - SECONDS) <= 0.1 &&
      audio.length === (clip.req.enableAudio ? 1 : 0) &&
      (!clip.req.enableAudio || audio[0] === 'aac');
    if (!ok) failures.push(`${clip.label}: ffprobe check failed`);
    const path_ = await markerPath(file);
    const tracked = path_.filter(Boolean);
    const first = tracked[0];
    const last = tracked.at(-1);
    results.push({
      clip: clip.label,
      camera: r.camera,
      wallMs: Math.round(ms),
      realTimeRatio: round(ms / 1000 / SECONDS, 2),
      ffmpegPeakMiB: childPeakMiB,
      mp4KiB: Math.round(r.mp4.length / 1024),
      previewKiB: Math.round(r.preview.length / 1024),
      probe: {
        ok,
        codec: v?.codec_name,
        pixFmt: v?.pix_fmt,
        size: `${v?.width}x${v?.height}`,
        fps: v?.r_frame_rate,
        duration,
        audio,
      },
      markerTrackedFrames: tracked.length,
      markerTravelPx: first && last ? round(Math.hypot(last.x - first.x, last.y - first.y), 1) : undefined,
      jitter: /^(transition|montage)/.test(clip.label) ? undefined : jitter(path_),
      warnings: r.warnings.map((w) => w.code),
    });
    rows.push({ label: `${clip.label} · ${Math.round(ms)} ms`, cells: [await filmstrip(file, 240)] });
  }
  const worst = Math.max(...results.map((r) => r.realTimeRatio));
  const vsBaseline = round(worst / baseline, 1);
  if (vsBaseline > MAX_VS_BASELINE) {
    failures.push(`slowest clip ${vsBaseline}× the baseline encode > ${MAX_VS_BASELINE}× (${worst}× real time)`);
  }
  return {
    clip: { width: W, height: H, fps: FPS, seconds: SECONDS },
    baseline: { what: 'testsrc2, same size, rate, length and x264 settings, no filters', realTimeRatio: baseline },
    worstRealTimeRatio: worst,
    worstVsBaseline: vsBaseline,
    maxVsBaseline: MAX_VS_BASELINE,
    goalRealTimeRatio: GOAL_RATIO,
    meetsGoal: worst <= GOAL_RATIO,
    clips: results,
    contactSheet: await contactSheet(rows, path.join(RESULTS, 'video-frames.png')),
  };
}

/** A scene's true layers as rasters at `size` (the source size the engine framed from). */
async function trueLayers(layers: NonNullable<SceneResult['layers']>, size: { width: number; height: number }) {
  const plate = await sharp(layers.plate)
    .resize(size.width, size.height, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  const product = await sharp(layers.product)
    .resize(size.width, size.height, { fit: 'fill' })
    .ensureAlpha()
    .raw()
    .toBuffer();
  // The mask: the product layer in white, its alpha kept.
  const white = Buffer.from(product);
  for (let i = 0; i < white.length; i += 4) white.fill(255, i, i + 3);
  const raster = (data: Buffer, channels: 3 | 4): Raster => ({ data, ...size, channels });
  return { plate: raster(plate, 3), white: raster(white, 4) };
}

/** Renders a still's layers as a clip (what the engine does, without the preview and audio). */
async function renderStill(layers: StillLayer[], still: StartStill, out: Clip, file: string): Promise<void> {
  const frames = Math.round(out.seconds * out.fps);
  const args = renderArgs({
    width: out.width,
    height: out.height,
    fps: out.fps,
    frames,
    segments: [{ kind: 'still', layers, plan: still.plan, frames }],
    crossfadeFrames: 0,
    output: file,
  });
  const r = await runProcess(ffmpegPath(), args, {
    timeoutMs: 300_000,
    maxStdoutBytes: 1 << 20,
    label: 'bench render',
  });
  if (r.exitCode !== 0) throw new Error(`bench render failed: ${r.stderr.slice(-400)}`);
}

interface Clip {
  width: number;
  height: number;
  fps: number;
  seconds: number;
}

/**
 * The reference and the mask of a clip's still: the same layers and camera with the scene's true
 * clean plate and no product (reference), and black with the true product layer in white (mask).
 */
async function referenceClips(still: StartStill, scene: SceneResult, out: Clip, dir: string, name: string) {
  const truth = await trueLayers(scene.layers!, still.source);
  const backdrop = still.layers[0] as StillLayer;
  const meta = await sharp(backdrop.path).metadata();
  const extent = { left: backdrop.origin.x, top: backdrop.origin.y, width: meta.width ?? 0, height: meta.height ?? 0 };
  const plate = await plateIn(truth.plate, still.fit, extent, extensionReach(out.width, out.height));
  const platePng = path.join(dir, `${name}-true-plate.png`);
  await sharp(plate, { raw: { width: extent.width, height: extent.height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toFile(platePng);
  const blackPng = path.join(dir, `${name}-black.png`);
  await sharp({ create: { width: extent.width, height: extent.height, channels: 3, background: '#000' } })
    .png()
    .toFile(blackPng);
  const product = still.layers.find((l) => l.depth === 1 && l.alpha && !l.ramp);
  // A flat still (no parallax) moves the product with the backdrop: its mask is a depth-0 layer over the frame.
  const frame = { left: 0, top: 0, width: out.width, height: out.height };
  const maskGeometry = product ?? { ...backdrop, depth: 0, origin: { x: 0, y: 0 }, window: frame, place: frame };
  const white = await layerIn(
    truth.white,
    still.fit,
    maskGeometry.window,
    Buffer.alloc(extent.width * extent.height * 3),
    extent,
  );
  const whitePng = path.join(dir, `${name}-white.png`);
  await sharp(white, { raw: { width: maskGeometry.window.width, height: maskGeometry.window.height, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toFile(whitePng);
  const plates = (file: string) =>
    still.layers.filter((l) => l.path === backdrop.path).map((l) => ({ ...l, path: file }));
  const reference = path.join(dir, `${name}-reference.mp4`);
  const mask = path.join(dir, `${name}-mask.mp4`);
  await renderStill(plates(platePng), still, out, reference);
  await renderStill(
    [
      ...plates(blackPng),
      {
        ...maskGeometry,
        path: whitePng,
        alpha: true,
        origin: { x: maskGeometry.window.left, y: maskGeometry.window.top },
      },
    ],
    still,
    out,
    mask,
  );
  return { reference, mask, truePlate: truth.plate };
}

/** Every `step`-th frame of a clip as grey bytes. */
async function greyFrames(file: string, out: Clip, step: number): Promise<Buffer[]> {
  const bytes = await decode(file, `select='not(mod(n\\,${step}))'`, 'gray');
  const size = out.width * out.height;
  const frames: Buffer[] = [];
  for (let o = 0; o + size <= bytes.length; o += size) frames.push(bytes.subarray(o, o + size));
  return frames;
}

/** A square dilation of a 0/1 mask by `r` px (an integral image). */
function dilateSquare(mask: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const sum = new Int32Array((width + 1) * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += mask[y * width + x] as number;
      sum[(y + 1) * (width + 1) + x + 1] = (sum[y * (width + 1) + x + 1] as number) + row;
    }
  }
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(height, y + r + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(width, x + r + 1);
      const s =
        (sum[y1 * (width + 1) + x1] as number) -
        (sum[y0 * (width + 1) + x1] as number) -
        (sum[y1 * (width + 1) + x0] as number) +
        (sum[y0 * (width + 1) + x0] as number);
      out[y * width + x] = s > 0 ? 1 : 0;
    }
  }
  return out;
}

/** The band around the product in a mask frame: within `r` px of it (alpha ≥ 50%), clear of every trace of its layer. */
function band(mask: Buffer, width: number, height: number, r: number): Uint8Array {
  const solid = new Uint8Array(width * height);
  const trace = new Uint8Array(width * height);
  for (let i = 0; i < solid.length; i++) {
    solid[i] = (mask[i] as number) >= 128 ? 1 : 0;
    trace[i] = (mask[i] as number) > 20 ? 1 : 0;
  }
  const near = dilateSquare(solid, width, height, r);
  const touched = dilateSquare(trace, width, height, 2);
  for (let i = 0; i < near.length; i++) if (touched[i]) near[i] = 0;
  return near;
}

/** The plate's grain (σ, levels) over a band: robust, from neighbour differences of luma. */
function grain(plate: Raster, bandAtSource: Uint8Array): number {
  const d: number[] = [];
  const { width, data, channels } = plate;
  const luma = (i: number) =>
    0.299 * (data[i * channels] as number) +
    0.587 * (data[i * channels + 1] as number) +
    0.114 * (data[i * channels + 2] as number);
  for (let i = 0; i < bandAtSource.length - 1; i++) {
    if (!bandAtSource[i] || !bandAtSource[i + 1] || (i + 1) % width === 0) continue;
    d.push(Math.abs(luma(i) - luma(i + 1)));
  }
  d.sort((a, b) => a - b);
  return ((d[d.length >> 1] ?? 0) * 1.4826) / Math.SQRT2;
}

/** The clip's smear in the band against the reference (RMS, levels) and the product's box per frame. */
async function measure(clip: string, refs: { reference: string; mask: string }, out: Clip) {
  const step = 2;
  const [frames, references, masks] = await Promise.all([
    greyFrames(clip, out, step),
    greyFrames(refs.reference, out, step),
    greyFrames(refs.mask, out, step),
  ]);
  const r = Math.round(0.03 * Math.min(out.width, out.height));
  let sq = 0;
  let count = 0;
  let worst = 0;
  let inside = true;
  for (let f = 0; f < Math.min(frames.length, references.length, masks.length); f++) {
    const m = masks[f] as Buffer;
    const b = band(m, out.width, out.height, r);
    let fsq = 0;
    let fc = 0;
    for (let i = 0; i < b.length; i++) {
      if (!b[i]) continue;
      const d = ((frames[f] as Buffer)[i] as number) - ((references[f] as Buffer)[i] as number);
      fsq += d * d;
      fc++;
    }
    sq += fsq;
    count += fc;
    if (fc) worst = Math.max(worst, Math.sqrt(fsq / fc));
    inside &&= boxInside(m, out.width, out.height);
  }
  return {
    smearRms: round(Math.sqrt(sq / Math.max(1, count)), 2),
    worstFrameRms: round(worst, 2),
    productInside: inside,
  };
}

/** The product (mask ≥ 50%) is clear of the frame's edges. */
function boxInside(mask: Buffer, width: number, height: number): boolean {
  for (let x = 0; x < width; x++) {
    if ((mask[x] as number) >= 128 || (mask[(height - 1) * width + x] as number) >= 128) return false;
  }
  for (let y = 0; y < height; y++) {
    if ((mask[y * width] as number) >= 128 || (mask[y * width + width - 1] as number) >= 128) return false;
  }
  return true;
}

/** Frames at the given fractions of a clip, `cell` px on their long side. */
async function framesAt(file: string, out: Clip, at: number[], cell: number): Promise<Buffer[]> {
  const total = Math.round(out.seconds * out.fps);
  const picks = at.map((u) => Math.min(total - 1, Math.round(u * (total - 1))));
  const w = out.width >= out.height ? cell : Math.round((cell * out.width) / out.height / 2) * 2;
  return pngs(
    await decode(file, `select='${picks.map((n) => `eq(n\\,${n})`).join('+')}',scale=${w}:-2:flags=area`, 'png'),
  );
}

/** A close-up (2×) of the product's surroundings in the last frame. */
async function closeUp(file: string, out: Clip, box: { left: number; top: number; width: number; height: number }) {
  const [last] = await framesAt(file, out, [1], Math.max(out.width, out.height));
  const pad = Math.round(0.06 * out.height);
  const left = Math.max(0, Math.round(box.left - pad));
  const top = Math.max(0, Math.round(box.top - pad));
  const width = Math.min(out.width - left, Math.round(box.width + 2 * pad));
  const height = Math.min(out.height - top, Math.round(box.height + 2 * pad));
  return sharp(last as Buffer)
    .extract({ left, top, width, height })
    .resize({ height: 180 })
    .png()
    .toBuffer();
}

/** A clip of the scene with the move (the layers or the matte, by `extra`), its still's reference and mask clips. */
async function film(
  sc: SceneResult,
  out: Clip,
  move: CameraMove,
  extra: Partial<VideoRequest>,
  tmp: string,
  name: string,
) {
  let shown: { still: StartStill; refs: Awaited<ReturnType<typeof referenceClips>> } | undefined;
  const engine = createLocalVideoEngine({
    onStill: async (still) => {
      shown = { still, refs: await referenceClips(still, sc, out, tmp, name) };
    },
  });
  const r = await engine.generate({
    prompt: move === 'static' ? 'static shot' : move.replace('-', ' '),
    width: out.width,
    height: out.height,
    durationSeconds: out.seconds,
    fps: out.fps,
    seed: 3,
    startFrame: sc.png,
    ...extra,
  });
  const file = path.join(tmp, `${name}.mp4`);
  fs.writeFileSync(file, r.mp4);
  if (!shown) throw new Error('no still was shown');
  return { r, file, ...shown };
}

/** Part 2: smear per camera move, after (layers) and before (matte). */
async function smear(fixture: (name: string) => Buffer, tmp: string, failures: string[]) {
  const out: Clip = { width: 960, height: 540, fps: 30, seconds: 2 };
  const sc = await scene(fixture('solidus_mug_set'), '#e6ddd0', '#cbbfae', 11);
  if (!sc.layers) throw new Error('the scene engine returned no layers');
  const rows: { label: string; cells: Buffer[] }[] = [];
  const moves = [];
  for (const move of CAMERA_MOVES) {
    const result: Record<string, unknown> = { move };
    const cells: Buffer[] = [];
    for (const [path_, extra] of [
      ['after', { startFrameLayers: sc.layers }],
      ['before', {}],
    ] as const) {
      const name = `${move}-${path_}`;
      const { r, file, refs, still } = await film(sc, out, move, extra, tmp, name);
      const m = await measure(file, refs, out);
      // The band's natural noise: the true plate's grain around the product, in the scene.
      const truth = await trueLayers(sc.layers, still.source);
      const alpha = new Uint8Array(still.source.width * still.source.height);
      const product = await sharp(sc.layers.product)
        .resize(still.source.width, still.source.height, { fit: 'fill' })
        .ensureAlpha()
        .raw()
        .toBuffer();
      for (let i = 0; i < alpha.length; i++) alpha[i] = product[i * 4 + 3] as number;
      const noise = round(
        grain(
          truth.plate,
          band(Buffer.from(alpha), still.source.width, still.source.height, Math.round(0.03 * still.source.height)),
        ),
        2,
      );
      result[path_] = {
        ...m,
        noise,
        clean: m.smearRms < noise,
        warnings: r.warnings.map((w) => w.code),
        camera: r.camera?.move,
      };
      if (path_ === 'after' && !(m.smearRms < noise))
        failures.push(`${move}: smear ${m.smearRms} ≥ noise ${noise} from the layers`);
      if (!m.productInside) failures.push(`${move} (${path_}): the product left the frame`);
      cells.push(...(await framesAt(file, out, path_ === 'after' ? [0, 0.5, 1] : [0.5], 320)));
      // The close-up: around the product where the last frame shows it (the scene's box, framed and moved).
      const masks = await greyFrames(refs.mask, out, 1);
      const last = masks.at(-1) as Buffer;
      let [x0, y0, x1, y1] = [out.width, out.height, 0, 0];
      for (let i = 0; i < last.length; i++) {
        if ((last[i] as number) < 128) continue;
        const x = i % out.width;
        const y = (i - x) / out.width;
        [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
      }
      cells.push(await closeUp(file, out, { left: x0, top: y0, width: x1 - x0, height: y1 - y0 }));
    }
    moves.push(result);
    const a = result.after as { smearRms: number; noise: number };
    const b = result.before as { smearRms: number };
    rows.push({
      label: `${move}: after (layers) smear ${a.smearRms} · before (matte) smear ${b.smearRms} · band noise ${a.noise} — after: frames 0, ½, 1, close-up at 1 | before: frame ½, close-up at 1`,
      cells,
    });
  }
  return {
    clip: out,
    moves,
    contactSheets: [
      await contactSheet(rows.slice(0, 5), path.join(RESULTS, 'video-moves-1.png')),
      await contactSheet(rows.slice(5), path.join(RESULTS, 'video-moves-2.png')),
    ],
  };
}

const ASPECTS: AspectRatio[] = ['1:1', '4:3', '16:9', '9:16', '21:9'];

/** Part 3: the cap's box inside every frame for every pair of aspect ratios. */
async function framing(fixture: (name: string) => Buffer, tmp: string, failures: string[]) {
  const cap = fixture('solidus_cap_black_1');
  const scenes = new Map<AspectRatio, SceneResult>();
  for (const a of ASPECTS) scenes.set(a, await scene(cap, '#dfe6ea', '#c3ccd2', 5, a, 768));
  const rows: { label: string; cells: Buffer[] }[] = [];
  const pairs = [];
  for (const from of ASPECTS) {
    for (const to of ASPECTS) {
      if (from === to) continue;
      const sc = scenes.get(from)!;
      const size = outputSize(to, 640);
      const out: Clip = { ...size, fps: 30, seconds: 1 };
      const cells: Buffer[] = [];
      const result: Record<string, unknown> = { from, to };
      for (const [label, move, extra] of [
        ['push-in', 'push-in', { startFrameLayers: sc.layers }],
        ['pan', 'pan-right', { startFrameLayers: sc.layers }],
        ['push-in (matte)', 'push-in', {}],
      ] as const) {
        const name = `${from}-${to}-${label}`.replace(/[^\w-]/g, '_');
        const { r, file, refs } = await film(sc, out, move, extra, tmp, name);
        const masks = await greyFrames(refs.mask, out, 1);
        const inside = masks.every((m) => boxInside(m, out.width, out.height));
        if (!inside) failures.push(`${from} → ${to} ${label}: the product left the frame`);
        result[label] = { productInside: inside, warnings: r.warnings.map((w) => w.code) };
        cells.push(...(await framesAt(file, out, label === 'push-in (matte)' ? [1] : [0, 1], 150)));
      }
      pairs.push(result);
      rows.push({ label: `${from} → ${to}: push-in 0/1 · pan 0/1 · matte push-in 1`, cells });
    }
  }
  const half = Math.ceil(rows.length / 2);
  return {
    pairs,
    contactSheets: [
      await contactSheet(rows.slice(0, half), path.join(RESULTS, 'video-framing-1.png')),
      await contactSheet(rows.slice(half), path.join(RESULTS, 'video-framing-2.png')),
    ],
  };
}

async function main() {
  const byName = (n: string) => path.join(FIXTURES, `${n}.png`);
  const names = ['solidus_bottles_1', 'solidus_cap_black_1', 'solidus_canvas_tote', 'solidus_mug_set'];
  if (!names.every((n) => fs.existsSync(byName(n)))) {
    process.stdout.write(`${JSON.stringify({ skipped: `no fixtures at ${FIXTURES}` })}\n`);
    return;
  }
  const fixture = (n: string) => fs.readFileSync(byName(n));
  fs.mkdirSync(RESULTS, { recursive: true });
  const failures: string[] = [];
  const tmp = fs.mkdtempSync(path.join(RESULTS, '.video-'));
  const out: Record<string, unknown> = { bench: 'video', cores: (await import('node:os')).availableParallelism() };
  try {
    if (PARTS.has('1')) out.speed = await speed(fixture, tmp, failures);
    if (PARTS.has('2')) out.smear = await smear(fixture, tmp, failures);
    if (PARTS.has('3')) out.framing = await framing(fixture, tmp, failures);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  out.benchProcessPeakMiB = round(process.resourceUsage().maxRSS / 1024, 1);
  out.failures = failures;
  process.stdout.write(`${JSON.stringify(out)}\n`);
  if (failures.length) process.exitCode = 1;
}

await main();

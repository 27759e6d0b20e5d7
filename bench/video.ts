/**
 * Local video engine benchmark: 5 s 1280×720 30 fps clips from a start frame (a fixture product
 * from FIXTURES composited by the local scene engine; a plain composite when that fails), one per
 * camera move (push-in with the audio bed, pan, orbit with parallax — the product layer from the
 * scene engine's productMask, and again from the video engine's own matte) and a transition clip
 * (start → intermediate → end frame, crossfaded) and a reference montage as video-model-8 makes
 * (three pictures and, when the shared fixture is there, a video clip cut to length).
 *
 * For each clip: wall time against real time (the goal is ≤ 1× on a 2-core machine), the peak RSS
 * of the ffmpeg child (sampled from /proc) and of this process, the ffprobe check (h264, yuv420p,
 * 1280×720, 30/1, 5 s ± 0.1, audio only when asked), and a smoothness measure: a marker disc
 * painted on the backdrop is tracked frame by frame (its centroid, at 640×360) and the largest
 * and RMS second difference of its path, in output px, are reported (`jitter`; a smooth eased
 * move is near 0 plus coding noise; zoompan's whole-pixel stepping without supersampling shows
 * as max ≥ 1, RMS ≥ 0.5).
 *
 * Writes a labelled contact sheet, 8 frames across each clip, to bench/results/video-frames.png.
 * Prints JSON; exits 1 when a clip fails its ffprobe check or the slowest clip takes over
 * BENCH_VIDEO_MAX_RATIO (default 1.5) × real time. Skips (exit 0) when the fixtures are not there.
 *
 *   npm run bench -- video
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { runProcess } from '../src/adapters/media/run-process.ts';
import { ffmpegPath, ffprobePath } from '../src/adapters/media/video.ts';
import { createLocalSceneEngine } from '../src/engines/image/local/local-scene-engine.ts';
import { createLocalVideoEngine } from '../src/engines/video/local/local-video-engine.ts';
import type { VideoRequest } from '../src/engines/video/video-engine.ts';

const FIXTURES = process.env.BENCH_VIDEO_FIXTURES ?? '/work/shared/fixtures/product-images';
const REFERENCE_CLIP = path.join(FIXTURES, '../video/big-buck-bunny-480p-30s.mp4');
const MAX_RATIO = Number(process.env.BENCH_VIDEO_MAX_RATIO ?? 1.5);
const GOAL_RATIO = 1;
const W = 1280;
const H = 720;
const FPS = 30;
const SECONDS = 5;
const RESULTS = path.join(import.meta.dirname, 'results');
const MARKER = { r: 200, g: 60, b: 40 };

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** A backdrop with a floor, a soft light and a marker disc (for tracking), as PNG. */
function backdropSvg(wall: string, floor: string): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs><radialGradient id="l" cx="0.7" cy="0.3" r="0.7"><stop offset="0" stop-color="#fff" stop-opacity="0.35"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
  <rect width="${W}" height="${H}" fill="${wall}"/><rect y="${H * 0.68}" width="${W}" height="${H * 0.32}" fill="${floor}"/>
  <rect width="${W}" height="${H}" fill="url(#l)"/>
  <circle cx="${W * 0.2}" cy="${H * 0.3}" r="${H * 0.07}" fill="rgb(${MARKER.r},${MARKER.g},${MARKER.b})"/>
</svg>`);
}

/** A start frame: the product placed on the backdrop by the local scene engine (a plain composite if that fails). */
async function startFrame(
  product: Buffer,
  wall: string,
  floor: string,
  seed: number,
): Promise<{ png: Buffer; mask?: { data: Buffer; width: number; height: number } }> {
  const backdrop = await sharp(backdropSvg(wall, floor)).png().toBuffer();
  try {
    const scene = await createLocalSceneEngine().generate({
      prompt: 'product on a table',
      aspectRatio: '16:9',
      width: W,
      height: H,
      variationIndex: 0,
      seed,
      products: [{ bytes: product }],
      backdrop,
      palette: ['#c8102e', '#1d1d1f'],
    });
    return { png: scene.png, ...(scene.productMask ? { mask: { data: scene.productMask, width: W, height: H } } : {}) };
  } catch (err) {
    process.stderr.write(`scene engine failed (${(err as Error).message}); plain composite\n`);
    const p = await sharp(product)
      .resize(Math.round(W * 0.3), Math.round(H * 0.6), { fit: 'inside' })
      .png()
      .toBuffer();
    const m = await sharp(p).metadata();
    const png = await sharp(backdrop)
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

/** The marker's centroid per frame (output px), undefined where it is not visible. */
async function markerPath(file: string): Promise<({ x: number; y: number } | undefined)[]> {
  const w = 640;
  const h = 360;
  const r = await runProcess(
    ffmpegPath(),
    ['-v', 'error', '-i', file, '-vf', `scale=${w}:${h}:flags=area`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
    { timeoutMs: 60_000, maxStdoutBytes: 200 * 1024 * 1024, label: 'ffmpeg frames' },
  );
  const frameBytes = w * h * 3;
  const out: ({ x: number; y: number } | undefined)[] = [];
  for (let f = 0; f + frameBytes <= r.stdout.length; f += frameBytes) {
    let sx = 0;
    let sy = 0;
    let sw = 0;
    for (let i = 0; i < w * h; i++) {
      const p = f + i * 3;
      const d =
        Math.abs((r.stdout[p] as number) - MARKER.r) +
        Math.abs((r.stdout[p + 1] as number) - MARKER.g) +
        Math.abs((r.stdout[p + 2] as number) - MARKER.b);
      const wt = Math.max(0, 1 - d / 90); // soft membership: edge pixels count partly (subpixel centroid)
      if (wt > 0) {
        sx += (i % w) * wt;
        sy += Math.floor(i / w) * wt;
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
  const r = await runProcess(
    ffmpegPath(),
    [
      '-v',
      'error',
      '-i',
      file,
      '-vf',
      `select='not(mod(n\\,${every}))',scale=${cell}:-2:flags=area,tile=8x1:padding=4:color=white`,
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      'pipe:1',
    ],
    { timeoutMs: 60_000, maxStdoutBytes: 64 * 1024 * 1024, label: 'ffmpeg filmstrip' },
  );
  return r.stdout;
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

async function main() {
  const byName = (n: string) => path.join(FIXTURES, `${n}.png`);
  const names = ['solidus_bottles_1', 'solidus_cap_black_1', 'solidus_canvas_tote'];
  if (!names.every((n) => fs.existsSync(byName(n)))) {
    process.stdout.write(`${JSON.stringify({ skipped: `no fixtures at ${FIXTURES}` })}\n`);
    return;
  }
  const [p1, p2, p3] = names.map((n) => fs.readFileSync(byName(n)));
  const start = await startFrame(p1 as Buffer, '#e9e4dc', '#d6cdbf', 1);
  const middle = await startFrame(p2 as Buffer, '#dfe6ea', '#c3ccd2', 2);
  const end = await startFrame(p3 as Buffer, '#2d3640', '#1f262d', 3);
  fs.mkdirSync(RESULTS, { recursive: true });

  const engine = createLocalVideoEngine();
  const base = { width: W, height: H, durationSeconds: SECONDS, fps: FPS, seed: 7, startFrame: start.png };
  const withMask = start.mask ? { startFrameMask: start.mask } : {};
  const clips: { label: string; req: VideoRequest }[] = [
    {
      label: 'push-in (+audio)',
      req: { ...base, ...withMask, prompt: 'slow push in on the bottles', enableAudio: true },
    },
    { label: 'pan right', req: { ...base, ...withMask, prompt: 'pan right across the table' } },
    { label: 'orbit (parallax, scene mask)', req: { ...base, ...withMask, prompt: 'orbit around the product' } },
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

  const rows: { label: string; strip: Buffer }[] = [];
  const results = [];
  const failures: string[] = [];
  const tmp = fs.mkdtempSync(path.join(RESULTS, '.video-'));
  try {
    for (const clip of clips) {
      const t0 = performance.now();
      const { value: r, childPeakMiB } = await withChildPeak(() => engine.generate(clip.req));
      const ms = performance.now() - t0;
      const file = path.join(tmp, `${rows.length}.mp4`);
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
      rows.push({ label: `${clip.label} · ${Math.round(ms)} ms`, strip: await filmstrip(file, 240) });
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  // Contact sheet: a label bar and a strip per clip.
  const labelH = 26;
  const metas = await Promise.all(rows.map((r) => sharp(r.strip).metadata()));
  const sheetW = Math.max(...metas.map((m) => m.width ?? 0));
  const layers: OverlayOptions[] = [];
  let top = 0;
  for (const [i, row] of rows.entries()) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${sheetW}" height="${labelH}"><rect width="${sheetW}" height="${labelH}" fill="#111"/><text x="8" y="18" font-family="DejaVu Sans, sans-serif" font-size="14" fill="#eee">${escapeXml(row.label)}</text></svg>`;
    layers.push({ input: Buffer.from(svg), left: 0, top });
    layers.push({ input: row.strip, left: 0, top: top + labelH });
    top += labelH + (metas[i]?.height ?? 0);
  }
  const sheet = path.join(RESULTS, 'video-frames.png');
  await sharp({ create: { width: sheetW, height: top, channels: 3, background: '#ffffff' } })
    .composite(layers)
    .png()
    .toFile(sheet);

  const worst = Math.max(...results.map((r) => r.realTimeRatio));
  if (worst > MAX_RATIO) failures.push(`slowest clip ${worst}× real time > ${MAX_RATIO}×`);
  const out = {
    bench: 'video',
    clip: { width: W, height: H, fps: FPS, seconds: SECONDS },
    cores: (await import('node:os')).availableParallelism(),
    worstRealTimeRatio: worst,
    goalRealTimeRatio: GOAL_RATIO,
    meetsGoal: worst <= GOAL_RATIO,
    benchProcessPeakMiB: round(process.resourceUsage().maxRSS / 1024, 1),
    clips: results,
    contactSheet: path.relative(process.cwd(), sheet),
    failures,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  if (failures.length) process.exitCode = 1;
}

await main();

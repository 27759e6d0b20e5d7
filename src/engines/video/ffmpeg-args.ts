/**
 * Pure ffmpeg argument builders for the local video engine. One ffmpeg run renders a clip: a
 * chain of segments (stills moved by a camera plan, or reference videos), crossfaded into each
 * other, an optional synthesized audio bed, the H.264 master and a small preview, all from one
 * filter graph.
 *
 * Works with the ffmpeg shipped by @ffmpeg-installer (a 2018 build: no `xfade`, `crop`/`scale`
 * sizes cannot change per frame), so:
 * - camera motion is `zoompan` over a still scaled (lanczos, once) to K× the output size (K ≈ 2.9 at 720p;
 *   see `supersample`), in 4:4:4 (in 4:2:0 zoompan aligns its window to 2 px for the chroma):
 *   zoompan places its window in whole input pixels, so at K× the steps are 1/K output px and
 *   the motion reads smooth; its window is resampled (bicubic) to the output.
 * - depth: a still is a stack of layers (framing.ts): the backdrop over the whole frame, floor
 *   bands and the product (RGBA) each over only the part of the frame they reach, from the part
 *   of their PNG they show (a floor band's alpha by row from a one-pixel-wide ramp PNG). Each has
 *   its own zoompan following the plan at its depth, overlaid at its place: every layer moves
 *   with subpixel precision at its own speed, and a small layer costs what its area does.
 * - crossfades are `fade=alpha=1` on the incoming segment overlaid on the outgoing one (what
 *   xfade=fade does).
 *
 * Every input is opened as `file:<absolute path>` with only the file protocol allowed and its
 * demuxer forced (`png_pipe` for stills, `mov` for videos), as in src/adapters/media/video-args.ts.
 */
import { inputUrl } from '../../adapters/media/video-args.ts';
import type { CameraPlan } from './camera.ts';
import { layerKeys, type Rect } from './framing.ts';

/** Numbers for expressions: fixed, no exponent, trailing zeros dropped. */
export function num(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  const s = n.toFixed(6).replace(/\.?0+$/, '');
  return s === '-0' ? '0' : s;
}

/**
 * The supersampling factor of the stills zoompan reads: the canvas is about 8 MP (≈ 2.9× at
 * 1280×720, 2× at 1080p), between 1× and 4×. zoompan steps in whole canvas pixels, so the motion
 * moves in 1/K output px steps (0.35 px at 720p: smooth to the eye; 4:2:0 at 2× moved in visible
 * 1 px steps). zoompan's cost grows with the canvas: 8 MP keeps a 720p clip under real time.
 */
export function supersample(width: number, height: number): number {
  return Math.max(1, Math.min(4, Math.sqrt(8_000_000 / (width * height))));
}

/** ffmpeg expression of the eased progress for `u` (an expression in 0..1). */
export function easeExpr(easing: CameraPlan['easing'], u: string): string {
  const c = `clip(${u},0,1)`;
  return easing === 'linear' ? c : `(0.5-0.5*cos(PI*${c}))`;
}

/**
 * An expression of one member of a plan's keys over `u` (0..1): eased interpolation between
 * consecutive keys, nested `if(lt(u,at),…)` when there are more than two.
 */
export function keyExpr<K extends { at: number }>(
  plan: { easing: CameraPlan['easing']; keys: readonly K[] },
  pick: (k: K) => number,
  u: string,
): string {
  const keys = plan.keys;
  if (keys.length === 0) throw new RangeError('a camera plan needs keys');
  const values = keys.map(pick);
  if (values.every((v) => v === values[0])) return num(values[0] as number);
  const segment = (i: number): string => {
    const a = keys[i] as K;
    const b = keys[i + 1] as K;
    const va = pick(a);
    const vb = pick(b);
    if (va === vb) return num(va);
    const local = `((${u}-${num(a.at)})/${num(Math.max(1e-6, b.at - a.at))})`;
    return `(${num(va)}+${num(vb - va)}*${easeExpr(plan.easing, local)})`;
  };
  let expr = segment(keys.length - 2);
  for (let i = keys.length - 3; i >= 0; i--) expr = `if(lt(${u},${num((keys[i + 1] as K).at)}),${segment(i)},${expr})`;
  return expr;
}

/**
 * One layer of a still segment: part of a PNG moved by the camera plan at the layer's depth
 * (framing.ts): `window` (picture px, inside the PNG) is what it reads over the clip, `place`
 * (frame px) where its stream is overlaid; the two have the same aspect ratio.
 */
export interface StillLayer {
  /** A PNG: RGB, or RGBA when `alpha`. */
  path: string;
  alpha: boolean;
  /** 0 moves with the camera (the backdrop), 1 with the product (see framing.ts layerKeys). */
  depth: number;
  /** The picture px the PNG's top-left pixel shows (a PNG may extend past the frame). */
  origin: { x: number; y: number };
  window: Rect;
  place: Rect;
  /** A grey PNG one pixel wide and `window.height` tall: the layer's alpha by row (floor bands). */
  ramp?: string;
}

/** A layer showing a whole frame-sized PNG (a key frame, a reference, a flat still). */
export function frameLayer(filePath: string, width: number, height: number): StillLayer {
  const whole = { left: 0, top: 0, width, height };
  return { path: filePath, alpha: false, depth: 0, origin: { x: 0, y: 0 }, window: whole, place: whole };
}

/** Layers with alpha are supersampled at most this much (their edges are soft anyway). */
export const FOREGROUND_MAX_SUPERSAMPLE = 2.2;

/** The canvas zoompan reads for a layer: its window scaled K× (K from the output size, capped for alpha layers). */
export function layerCanvas(
  width: number,
  height: number,
  layer: Pick<StillLayer, 'alpha' | 'window'>,
): { k: number; width: number; height: number } {
  const k = Math.min(supersample(width, height), layer.alpha ? FOREGROUND_MAX_SUPERSAMPLE : 4);
  return {
    k,
    width: Math.max(2, Math.round(layer.window.width * k)),
    height: Math.max(2, Math.round(layer.window.height * k)),
  };
}

type Out = { width: number; height: number; fps: number; frames: number };

/**
 * The zoompan filter of one layer: `frames` output frames of its place's size at `fps`, the
 * window following the layer's view (framing.ts layerKeys): zoom = window/place × the layer's
 * zoom, the window's corner where the place's corner falls in the picture.
 */
export function zoompanFilter(
  plan: CameraPlan,
  layer: Pick<StillLayer, 'depth' | 'window' | 'place'>,
  out: Out,
  /** Spare frames past `frames` (the last pose held). */
  extraFrames = 0,
): string {
  const u = out.frames > 1 ? `(on/${out.frames - 1})` : '0';
  const lp = { easing: plan.easing, keys: layerKeys(plan, layer.depth, out.width, out.height) };
  const { window: w, place: p } = layer;
  const zoom = keyExpr(lp, (k) => k.zoom, u);
  const cx = keyExpr(lp, (k) => k.cx, u);
  const cy = keyExpr(lp, (k) => k.cy, u);
  // zoompan's `zoom` is the layer's zoom × window / place.
  return (
    `zoompan=z='${num(w.width / p.width)}*${zoom}'` +
    `:x='(${cx}+${num(p.left - out.width / 2)}*${num(w.width / p.width)}/zoom+${num(-w.left)})*iw/${num(w.width)}'` +
    `:y='(${cy}+${num(p.top - out.height / 2)}*${num(w.width / p.width)}/zoom+${num(-w.top)})*ih/${num(w.height)}'` +
    `:d=${out.frames + extraFrames}:s=${p.width}x${p.height}:fps=${num(out.fps)}`
  );
}

/**
 * The filters after a layer's input (and alpha ramp): 4:4:4 (with alpha for an alpha layer)
 * cropped to its window, lanczos up to K×, zoompan (+1 spare frame), fps, trimmed. With a ramp,
 * `[ramp]` names the ramp stream and the crop ends in `[crop]`, merged there.
 */
export function layerFilters(
  plan: CameraPlan,
  layer: Pick<StillLayer, 'alpha' | 'depth' | 'origin' | 'window' | 'place'>,
  out: Out,
): { crop: string; move: string } {
  const { window: w } = layer;
  const canvas = layerCanvas(out.width, out.height, layer);
  const x = Math.round(w.left - layer.origin.x);
  const y = Math.round(w.top - layer.origin.y);
  // fps= after zoompan sets the link's frame rate (without it tpad clones at the wrong rate);
  // this ffmpeg's fps filter drops the last frame at EOF, so zoompan makes one spare.
  return {
    crop: `crop=${w.width}:${w.height}:${x}:${y},format=${layer.alpha ? 'yuva444p' : 'yuv444p'}`,
    move:
      `scale=${canvas.width}:${canvas.height}:flags=lanczos,` +
      `${zoompanFilter(plan, layer, out, 1)},fps=${num(out.fps)},trim=end_frame=${out.frames},setsar=1`,
  };
}

export type Segment =
  | { kind: 'still'; layers: StillLayer[]; plan: CameraPlan; frames: number }
  | { kind: 'video'; path: string; frames: number; startSeconds?: number };

/**
 * Where a reference clip's cut starts: the middle `segmentSeconds` of a longer clip (clips often
 * open on a fade from black or a title), the start of one no longer than the cut (it loops).
 */
export function clipWindowStart(clipSeconds: number | undefined, segmentSeconds: number): number {
  if (!(typeof clipSeconds === 'number' && Number.isFinite(clipSeconds)) || clipSeconds <= segmentSeconds) return 0;
  return Math.round(((clipSeconds - segmentSeconds) / 2) * 1000) / 1000;
}

export interface AudioBed {
  seed: number;
}

export interface RenderSpec {
  width: number;
  height: number;
  fps: number;
  /** Exact frame count of the clip (durationSeconds × fps, rounded). */
  frames: number;
  /** Played back to back; each overlaps the previous one by `crossfadeFrames`. */
  segments: Segment[];
  crossfadeFrames: number;
  audio?: AudioBed;
  output: string;
  preview?: { output: string; width: number; maxSeconds: number; fps: number };
  /** libx264 preset (default veryfast) and CRF (default 20). */
  preset?: string;
  crf?: number;
  /** Encoder threads (default 0 = ffmpeg decides). */
  threads?: number;
}

/** Frames each of `count` segments gets so that, overlapped by `overlap`, they fill `total` exactly. */
export function segmentFrames(total: number, count: number, overlap: number): number[] {
  if (count <= 0) return [];
  if (count === 1) return [total];
  const sum = total + overlap * (count - 1);
  const base = Math.floor(sum / count);
  const out = Array.from({ length: count }, () => base);
  for (let i = 0; i < sum - base * count; i++) out[i] = (out[i] as number) + 1;
  return out;
}

/** Where segment i starts (frame index): the previous ones' lengths less the overlaps. */
export function segmentStarts(frames: number[], overlap: number): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const f of frames) {
    starts.push(at);
    at += f - overlap;
  }
  return starts;
}

/** A video reference: scaled to cover the frame, centre-cropped, at the clip's fps, exactly `frames` long. */
export function videoSegmentFilter(
  input: number,
  frames: number,
  out: { width: number; height: number; fps: number },
): string {
  return (
    `[${input}:v:0]scale=${out.width}:${out.height}:force_original_aspect_ratio=increase:flags=bicubic,` +
    `crop=${out.width}:${out.height},setsar=1,fps=${num(out.fps)},` +
    `tpad=stop_mode=clone:stop=${frames},trim=end_frame=${frames},setpts=PTS-STARTPTS`
  );
}

/**
 * Crossfade chain: segment i's stream `[s<i>]` enters at its start frame with an alpha fade of
 * `overlap` frames over what is below. The first is held (cloned) to the end so the chain never
 * runs dry. Ends in `[vcat]`, exactly `total` frames.
 */
export function crossfadeFilters(starts: number[], overlap: number, fps: number, total: number): string[] {
  if (starts.length === 0) throw new RangeError('no segments');
  if (starts.length === 1) return [`[s0]trim=end_frame=${total},setpts=PTS-STARTPTS[vcat]`];
  const parts = [`[s0]tpad=stop_mode=clone:stop=${total},trim=end_frame=${total}[c0]`];
  const fadeSeconds = num(overlap / fps);
  for (let i = 1; i < starts.length; i++) {
    const offset = num((starts[i] as number) / fps);
    parts.push(
      `[s${i}]format=yuva420p,fade=t=in:st=0:d=${fadeSeconds}:alpha=1,setpts=PTS-STARTPTS+${offset}/TB[f${i}]`,
      `[c${i - 1}][f${i}]overlay=x=0:y=0:eof_action=repeat:format=yuv420[c${i}]`,
    );
  }
  parts.push(`[c${starts.length - 1}]trim=end_frame=${total},setpts=PTS-STARTPTS[vcat]`);
  return parts;
}

/** A stable pseudo-random 0..1 from a seed and a salt (mulberry32). */
export function seeded(seed: number, salt: number): number {
  let t = ((seed >>> 0) + Math.imul(salt + 1, 0x9e3779b9)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/**
 * A soft pad: a chord (root, fifth, octave, tenth) of slowly swelling sines, the two channels a
 * little detuned, with a breath of low-passed pink noise; faded in and out; ends in `[aout]`.
 * The root is chosen from the seed (A2..E3).
 */
export function audioBedFilters(seed: number, seconds: number): string[] {
  const roots = [110, 116.54, 123.47, 130.81, 138.59, 146.83, 155.56, 164.81];
  const root = roots[Math.floor(seeded(seed, 7) * roots.length)] as number;
  const partials: [number, number][] = [
    [1, 0.32],
    [1.5, 0.2],
    [2, 0.16],
    [2.5, 0.08],
  ];
  const channel = (detune: number) =>
    partials
      .map(([ratio, amp], i) => {
        const swell = num(0.05 + 0.04 * i + 0.03 * seeded(seed, i));
        return `${num(amp)}*(0.7+0.3*sin(2*PI*${swell}*t))*sin(2*PI*${num(root * ratio * detune)}*t)`;
      })
      .join('+');
  const d = num(seconds);
  const fadeIn = num(Math.min(1.2, seconds / 3));
  const fadeOut = num(Math.min(1.5, seconds / 3));
  const outStart = num(Math.max(0, seconds - Math.min(1.5, seconds / 3)));
  return [
    `aevalsrc='${channel(1)}|${channel(1.003)}':s=48000:d=${d}:c=stereo[apad]`,
    `anoisesrc=d=${d}:c=pink:r=48000:a=0.05:seed=${(seed >>> 0) % 2147483647},lowpass=f=900,aformat=channel_layouts=stereo[anoise]`,
    '[apad][anoise]amix=inputs=2:duration=first:dropout_transition=0,lowpass=f=2400,' +
      `volume=0.8,afade=t=in:st=0:d=${fadeIn},afade=t=out:st=${outStart}:d=${fadeOut},` +
      `atrim=0:${d},aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[aout]`,
  ];
}

/** The preview branch: the whole clip sped up to at most `maxSeconds`, `fps`, `width` px wide. Ends in `[vprev]`. */
export function previewFilter(
  clipSeconds: number,
  preview: NonNullable<RenderSpec['preview']>,
  height: number,
  width: number,
): string {
  const speed = clipSeconds > preview.maxSeconds ? preview.maxSeconds / clipSeconds : 1;
  const w = Math.max(2, Math.round(preview.width / 2) * 2);
  const h = Math.max(2, Math.round((w * height) / width / 2) * 2);
  return `[vprev0]setpts=${num(speed)}*PTS,fps=${num(preview.fps)},scale=${w}:${h}:flags=area,format=yuv420p[vprev]`;
}

const STILL_INPUT = ['-protocol_whitelist', 'file', '-f', 'png_pipe'];
const VIDEO_INPUT = ['-protocol_whitelist', 'file', '-f', 'mov'];

/** The whole ffmpeg argument list of a render (see the file's comment). */
export function renderArgs(spec: RenderSpec): string[] {
  const { width, height, fps, frames } = spec;
  if (width % 2 || height % 2 || width < 2 || height < 2) throw new RangeError(`size must be even: ${width}x${height}`);
  if (!(fps > 0) || !Number.isInteger(frames) || frames < 1) throw new RangeError('bad fps or frame count');
  if (spec.segments.length === 0) throw new RangeError('no segments');
  const out = { width, height, fps };
  const args = ['-hide_banner', '-nostdin', '-v', 'error', '-y'];
  const filters: string[] = [];
  let input = 0;
  spec.segments.forEach((seg, i) => {
    if (seg.kind === 'video') {
      const seek = seg.startSeconds ? ['-ss', num(seg.startSeconds)] : [];
      args.push('-stream_loop', '-1', ...seek, ...VIDEO_INPUT, '-i', inputUrl(seg.path));
      filters.push(`${videoSegmentFilter(input, seg.frames, out)},format=yuv420p[s${i}]`);
      input++;
      return;
    }
    const labels: string[] = [];
    seg.layers.forEach((layer, j) => {
      const f = layerFilters(seg.plan, layer, { ...out, frames: seg.frames });
      const label = `l${i}_${j}`;
      args.push(...STILL_INPUT, '-i', inputUrl(layer.path));
      const image = input++;
      if (layer.ramp) {
        args.push(...STILL_INPUT, '-i', inputUrl(layer.ramp));
        const ramp = input++;
        filters.push(
          `[${ramp}:v:0]scale=${layer.window.width}:${layer.window.height}:flags=bilinear,format=gray[r${label}]`,
          `[${image}:v:0]${f.crop}[c${label}]`,
          `[c${label}][r${label}]alphamerge,${f.move}[${label}]`,
        );
      } else {
        filters.push(`[${image}:v:0]${f.crop},${f.move}[${label}]`);
      }
      labels.push(`[${label}]`);
    });
    const first = seg.layers[0] as StillLayer;
    const full =
      first.place.left === 0 && first.place.top === 0 && first.place.width === width && first.place.height === height;
    if (!full || first.alpha) throw new RangeError('the first layer of a still must cover the frame, opaque');
    if (labels.length === 1) filters.push(`${labels[0]}format=yuv420p[s${i}]`);
    else {
      let below = labels[0] as string;
      for (let j = 1; j < labels.length; j++) {
        const next = j === labels.length - 1 ? `[s${i}p]` : `[m${i}_${j}]`;
        const { left, top } = (seg.layers[j] as StillLayer).place;
        filters.push(`${below}${labels[j]}overlay=x=${left}:y=${top}:format=yuv444:eof_action=repeat${next}`);
        below = next;
      }
      filters.push(`[s${i}p]format=yuv420p[s${i}]`);
    }
  });
  const lengths = spec.segments.map((s) => s.frames);
  filters.push(...crossfadeFilters(segmentStarts(lengths, spec.crossfadeFrames), spec.crossfadeFrames, fps, frames));
  if (spec.preview) {
    filters.push('[vcat]split=2[vmain][vprev0]', previewFilter(frames / fps, spec.preview, height, width));
  } else {
    filters.push('[vcat]null[vmain]');
  }
  if (spec.audio) filters.push(...audioBedFilters(spec.audio.seed, frames / fps));
  args.push('-filter_complex', filters.join(';'));
  args.push('-map', '[vmain]');
  if (spec.audio) args.push('-map', '[aout]');
  args.push(...encodeArgs(spec));
  if (spec.preview) args.push(...previewEncodeArgs(spec.preview));
  return args;
}

/**
 * The master's output options: H.264 yuv420p at the exact fps, faststart; AAC when there is audio.
 * The frame count and the audio length are exact in the graph (trim / d=); no `-frames:v` here:
 * it closes the whole file when the video reaches it, cutting an audio track that lags behind.
 */
export function encodeArgs(spec: RenderSpec): string[] {
  return [
    '-c:v',
    'libx264',
    '-preset',
    spec.preset ?? 'veryfast',
    '-crf',
    String(spec.crf ?? 20),
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-r',
    num(spec.fps),
    ...(spec.threads ? ['-threads', String(spec.threads)] : []),
    ...(spec.audio ? ['-c:a', 'aac', '-b:a', '128k', '-ar', '48000'] : ['-an']),
    '-sn',
    '-dn',
    '-map_metadata',
    '-1',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    inputUrl(spec.output),
  ];
}

/** The preview's output options: small, low-bitrate H.264, no audio. */
export function previewEncodeArgs(preview: NonNullable<RenderSpec['preview']>): string[] {
  return [
    '-map',
    '[vprev]',
    '-an',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '30',
    '-maxrate',
    '250k',
    '-bufsize',
    '500k',
    '-pix_fmt',
    'yuv420p',
    '-r',
    num(preview.fps),
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    inputUrl(preview.output),
  ];
}

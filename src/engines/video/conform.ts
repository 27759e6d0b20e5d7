/**
 * Turns a provider's clip into the VideoResult the port promises: exactly width × height (scaled
 * to cover, centre-cropped), the requested fps, exactly durationSeconds (trimmed; a shorter clip
 * holds its last frame with `tpad=stop_mode=clone`), H.264 yuv420p +faststart, the provider's
 * audio kept (padded/trimmed to the length) only when `enableAudio`, plus the same kind of preview
 * the local engine makes (≤ 3 s, 320 px wide MP4, no audio). One ffmpeg run makes both.
 *
 * The input is opened as `file:<path>` with only the file protocol and the MP4/QuickTime demuxer
 * (as everywhere in src/adapters/media), so a hostile download cannot make ffmpeg open anything
 * else. Works with the bundled 2018 ffmpeg (no xfade needed).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MediaError } from '../../adapters/media/media-error.ts';
import { lastStderrLine, runProcess } from '../../adapters/media/run-process.ts';
import { ffmpegPath, probeVideo } from '../../adapters/media/video.ts';
import type { VideoProbe } from '../../adapters/media/video-args.ts';
import { type EngineWarning, GenerationError } from '../image/scene-engine.ts';
import { inputUrl } from '../../adapters/media/video-args.ts';
import { encodeArgs, num, previewEncodeArgs, previewFilter, type RenderSpec } from './ffmpeg-args.ts';
import type { VideoRequest, VideoResult } from './video-engine.ts';

export const PREVIEW = { width: 320, maxSeconds: 3, fps: 15 } as const;

export interface ConformSpec {
  input: string;
  output: string;
  preview: string;
  /** The provider clip's displayed size (after rotation; ffmpeg autorotates). */
  source: { width: number; height: number };
  width: number;
  height: number;
  fps: number;
  /** Exact frame count of the result. */
  frames: number;
  /** Keep the input's first audio track (padded with silence / trimmed to the length). */
  audio: boolean;
  preset?: string;
  crf?: number;
}

const evenUp = (n: number) => Math.ceil(n / 2) * 2;

/** The size the source is scaled to before the centre crop: covers width × height, even, never short. */
export function coverSize(
  source: { width: number; height: number },
  width: number,
  height: number,
): { width: number; height: number } {
  const scale = Math.max(width / source.width, height / source.height);
  return {
    width: Math.max(width, evenUp(Math.round(source.width * scale))),
    height: Math.max(height, evenUp(Math.round(source.height * scale))),
  };
}

/** The whole ffmpeg argument list of a conform run (pure). */
export function conformArgs(spec: ConformSpec): string[] {
  const { width, height, fps, frames } = spec;
  if (width % 2 || height % 2 || width < 2 || height < 2) throw new RangeError(`size must be even: ${width}x${height}`);
  if (!(fps > 0) || !Number.isInteger(frames) || frames < 1) throw new RangeError('bad fps or frame count');
  const cover = coverSize(spec.source, width, height);
  const seconds = frames / fps;
  const preview = { output: spec.preview, ...PREVIEW };
  const filters = [
    `[0:v:0]scale=${cover.width}:${cover.height}:flags=bicubic,crop=${width}:${height},setsar=1,` +
      `fps=${num(fps)},tpad=stop_mode=clone:stop=${frames},trim=end_frame=${frames},setpts=PTS-STARTPTS,` +
      'format=yuv420p,split=2[vmain][vprev0]',
    previewFilter(seconds, preview, height, width),
  ];
  if (spec.audio) filters.push(`[0:a:0]apad,atrim=0:${num(seconds)},asetpts=PTS-STARTPTS[aout]`);
  const render: RenderSpec = {
    width,
    height,
    fps,
    frames,
    segments: [],
    crossfadeFrames: 0,
    output: spec.output,
    ...(spec.audio ? { audio: { seed: 0 } } : {}),
    ...(spec.preset ? { preset: spec.preset } : {}),
    ...(spec.crf !== undefined ? { crf: spec.crf } : {}),
  };
  return [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-protocol_whitelist',
    'file',
    '-f',
    'mov',
    '-i',
    inputUrl(spec.input),
    '-filter_complex',
    filters.join(';'),
    '-map',
    '[vmain]',
    ...(spec.audio ? ['-map', '[aout]'] : []),
    ...encodeArgs(render),
    ...previewEncodeArgs(preview),
  ];
}

export interface ConformOptions {
  /** The result's `engine` (`runway:gen4_turbo`...). */
  engine: string;
  /** Warnings the adapter already has (inputs not sent...). */
  warnings?: EngineWarning[];
  /** Largest output side accepted in a request. Default 3840. */
  maxSide?: number;
  /** Longest requested clip. Default 60 s. */
  maxSeconds?: number;
  /** Largest provider clip frame (pixels). Default 4096 × 4096. */
  maxSourcePixels?: number;
  /** Longest provider clip. Default 300 s. */
  maxSourceSeconds?: number;
  /** ffmpeg's time bound: this many ms per second of clip, at least 60 s. Default 12000. */
  msPerSecond?: number;
  preset?: string;
}

const fail = (message: string, cause?: unknown) => new GenerationError(message, false, cause ? { cause } : undefined);

/**
 * The end of a video engine's ffmpeg run: the MP4 at `output` probed (a size other than
 * `width`×`height` throws `wrongSize`'s error; a duration more than 0.1 s off `seconds` adds a
 * DURATION_DRIFT warning to `warnings`), then read with its MP4 preview, as the result's media.
 */
export async function readClip(
  files: { output: string; preview: string },
  clip: { width: number; height: number; seconds: number; fps: number },
  warnings: EngineWarning[],
  wrongSize: (probe: VideoProbe) => GenerationError,
): Promise<Pick<VideoResult, 'mp4' | 'preview' | 'previewFormat' | 'width' | 'height' | 'durationSeconds' | 'fps'>> {
  const probe = await probeVideo(files.output, 30_000);
  if (probe.width !== clip.width || probe.height !== clip.height) throw wrongSize(probe);
  if (probe.durationSeconds !== undefined && Math.abs(probe.durationSeconds - clip.seconds) > 0.1) {
    warnings.push({
      code: 'DURATION_DRIFT',
      message: `The clip lasts ${probe.durationSeconds} s instead of ${clip.seconds} s.`,
      severity: 'warning',
    });
  }
  const [mp4, preview] = await Promise.all([fs.readFile(files.output), fs.readFile(files.preview)]);
  return {
    mp4,
    preview,
    previewFormat: 'mp4',
    width: clip.width,
    height: clip.height,
    durationSeconds: clip.seconds,
    fps: clip.fps,
  };
}

/** Size, fps and frame count of a request, or a non-retryable GenerationError. */
export function requestShape(
  req: Pick<VideoRequest, 'width' | 'height' | 'durationSeconds' | 'fps'>,
  o: { maxSide?: number; maxSeconds?: number } = {},
): { width: number; height: number; fps: number; frames: number; seconds: number } {
  const { width, height, durationSeconds } = req;
  const fps = req.fps ?? 30;
  const maxSide = o.maxSide ?? 3840;
  const maxSeconds = o.maxSeconds ?? 60;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 16 || height < 16) {
    throw fail(`The video size ${width}×${height} is not valid (whole pixels, at least 16).`);
  }
  if (width % 2 || height % 2) throw fail(`The video size ${width}×${height} must be even on both sides (H.264).`);
  if (Math.max(width, height) > maxSide) throw fail(`The video's longest side may be at most ${maxSide} px.`);
  if (!(fps >= 1 && fps <= 60)) throw fail(`The frame rate ${fps} is not between 1 and 60.`);
  if (!(durationSeconds > 0 && durationSeconds <= maxSeconds)) {
    throw fail(`The duration ${durationSeconds} s is not between 0 and ${maxSeconds} s.`);
  }
  const frames = Math.max(1, Math.round(durationSeconds * fps));
  return { width, height, fps, frames, seconds: frames / fps };
}

/** What conforming this source to the request changes, for the record. */
export function conformWarnings(
  probe: Pick<VideoProbe, 'width' | 'height' | 'durationSeconds' | 'audioCodec'>,
  want: { width: number; height: number; seconds: number; audio: boolean },
): EngineWarning[] {
  const out: EngineWarning[] = [];
  const { width: sw, height: sh } = probe;
  if (Math.abs(Math.log(sw / sh) - Math.log(want.width / want.height)) > 0.01) {
    out.push({
      code: 'PROVIDER_ASPECT_CROPPED',
      severity: 'info',
      message: `The provider made a ${sw}×${sh} clip; it was cropped to the requested ${want.width}×${want.height}`,
    });
  }
  const scale = Math.max(want.width / sw, want.height / sh);
  if (scale > 1.05) {
    out.push({
      code: 'PROVIDER_UPSCALED',
      severity: 'warning',
      message: `The provider's clip was enlarged ${Math.round(scale * 100) / 100}× to reach ${want.width}×${want.height}`,
    });
  }
  const d = probe.durationSeconds;
  if (d !== undefined && d < want.seconds - 0.05) {
    out.push({
      code: 'DURATION_PADDED',
      severity: 'warning',
      message: `The provider's clip lasts ${num(d)} s; its last frame is held for the remaining ${num(want.seconds - d)} s`,
    });
  } else if (d !== undefined && d > want.seconds + 0.5) {
    out.push({
      code: 'DURATION_TRIMMED',
      severity: 'info',
      message: `The provider's ${num(d)} s clip was cut to ${num(want.seconds)} s`,
    });
  }
  if (want.audio && !probe.audioCodec) {
    out.push({
      code: 'AUDIO_MISSING',
      severity: 'warning',
      message: 'Audio was asked for but the provider returned a clip without sound; the video has no audio track',
    });
  }
  return out;
}

/**
 * The VideoResult for a provider's downloaded clip (bytes already size-bounded by the download).
 * Throws a non-retryable GenerationError when the bytes are not a readable video, and an abort
 * (the signal's reason) when `req.signal` aborts during the run.
 */
export async function conformProviderVideo(bytes: Buffer, req: VideoRequest, o: ConformOptions): Promise<VideoResult> {
  const shape = requestShape(req, o);
  const { width, height, fps, frames, seconds } = shape;
  const signal = req.signal;
  if (signal?.aborted) throw signal.reason;
  if (bytes.length === 0) throw new GenerationError('The provider returned an empty video', true);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-conform-'));
  try {
    const input = path.join(dir, 'source.mp4');
    await fs.writeFile(input, bytes);
    let probe: VideoProbe;
    try {
      probe = await probeVideo(input, 30_000);
    } catch (err) {
      const why = err instanceof MediaError ? `: ${err.message}` : '';
      throw fail(`The provider's result is not a video that can be read${why}`, err);
    }
    if (probe.width * probe.height > (o.maxSourcePixels ?? 4096 * 4096)) {
      throw fail(`The provider's clip is ${probe.width}×${probe.height}, larger than allowed`);
    }
    if ((probe.durationSeconds ?? 0) > (o.maxSourceSeconds ?? 300)) {
      throw fail(`The provider's clip lasts ${probe.durationSeconds} s, longer than allowed`);
    }
    const audio = !!req.enableAudio && !!probe.audioCodec;
    const warnings = [
      ...(o.warnings ?? []),
      ...conformWarnings(probe, { width, height, seconds, audio: !!req.enableAudio }),
    ];
    const spec: ConformSpec = {
      input,
      output: path.join(dir, 'out.mp4'),
      preview: path.join(dir, 'preview.mp4'),
      source: { width: probe.width, height: probe.height },
      width,
      height,
      fps,
      frames,
      audio,
      ...(o.preset ? { preset: o.preset } : {}),
    };
    const timeoutMs = Math.max(
      60_000,
      Math.ceil(Math.max(seconds, probe.durationSeconds ?? 0) * (o.msPerSecond ?? 12_000)),
    );
    const run = await runProcess(ffmpegPath(), conformArgs(spec), {
      timeoutMs,
      maxStdoutBytes: 1024 * 1024,
      label: 'Conforming the provider video',
      ...(signal ? { signal } : {}),
    }).catch((err: unknown) => {
      if (signal?.aborted) throw signal.reason;
      throw fail(`The provider video could not be converted: ${(err as Error).message}`, err);
    });
    if (run.exitCode !== 0) {
      throw fail(
        `The provider video could not be converted (ffmpeg: ${lastStderrLine(run.stderr) || `exit ${run.exitCode}`})`,
      );
    }
    const clip = await readClip(spec, { width, height, seconds, fps }, warnings, (out) =>
      fail(`The converted video is ${out.width}×${out.height}, not ${width}×${height}`),
    );
    return { ...clip, warnings, engine: o.engine };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

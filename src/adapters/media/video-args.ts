import path from 'node:path';
import { MediaError } from './media-error.ts';

/**
 * Pure parts of video processing: ffprobe/ffmpeg argument lists and the reading of ffprobe's JSON.
 * Every input is opened as `file:<absolute path>` with only the file protocol allowed and the
 * MP4/QuickTime demuxer forced, so a crafted file can never make ffmpeg open a URL, another local
 * file (HLS/concat playlists) or probe itself as some other format.
 */
export const inputUrl = (filePath: string): string => `file:${path.resolve(filePath)}`;

const INPUT_GUARD = ['-protocol_whitelist', 'file', '-f', 'mov'];

export function ffprobeArgs(filePath: string): string[] {
  return ['-v', 'error', ...INPUT_GUARD, '-print_format', 'json', '-show_format', '-show_streams', inputUrl(filePath)];
}

/** One frame at `atSeconds` (fast seek), autorotated, scaled to fit `size`×`size` (never enlarged), as PNG on stdout. */
export function posterArgs(filePath: string, atSeconds: number, size: number): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    ...INPUT_GUARD,
    '-ss',
    atSeconds.toFixed(3),
    '-i',
    inputUrl(filePath),
    '-map',
    '0:v:0',
    '-frames:v',
    '1',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    `scale=w=min(${size}\\,iw):h=min(${size}\\,ih):force_original_aspect_ratio=decrease`,
    '-f',
    'image2pipe',
    '-c:v',
    'png',
    'pipe:1',
  ];
}

/** Where the poster frame is taken: 10% into the video, kept inside it; 0 when the duration is unknown. */
export function posterTime(durationSeconds: number | undefined): number {
  if (!durationSeconds || !Number.isFinite(durationSeconds) || durationSeconds <= 0) return 0;
  return Math.max(0, Math.min(durationSeconds * 0.1, durationSeconds - 0.05));
}

/** "30000/1001" → 29.97; undefined for "0/0", garbage or non-positive rates. */
export function parseFrameRate(rate: unknown): number | undefined {
  if (typeof rate !== 'string') return undefined;
  const [num, den = '1'] = rate.split('/');
  const value = Number(num) / Number(den);
  return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) / 1000 : undefined;
}

/** A plain object; typed loosely so ffprobe's optional members can be read after the check. */
const isObject = (v: unknown): v is Record<string, never> => typeof v === 'object' && v !== null && !Array.isArray(v);

const positive = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

/**
 * Clockwise degrees (0, 90, 180, 270) to turn the coded picture upright. ffprobe reports the
 * display matrix as a counter-clockwise `rotation` in side data; older files carry a clockwise
 * `rotate` tag.
 */
export function rotationOf(stream: ProbeStream): 0 | 90 | 180 | 270 {
  const sideData = Array.isArray(stream.side_data_list) ? stream.side_data_list : [];
  const side = sideData.find((s) => isObject(s) && typeof s.rotation === 'number');
  const clockwise = side ? -Number(side.rotation) : Number((isObject(stream.tags) && stream.tags.rotate) || 0);
  if (!Number.isFinite(clockwise)) return 0;
  const r = (((Math.round(clockwise / 90) * 90) % 360) + 360) % 360;
  return r as 0 | 90 | 180 | 270;
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  nb_frames?: string;
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
  disposition?: { attached_pic?: number };
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { duration?: string; bit_rate?: string; format_name?: string };
}

export interface VideoProbe {
  /** Seconds; undefined when the container does not say. */
  durationSeconds?: number;
  /** Average frames per second. */
  fps?: number;
  /** Displayed size (after rotation). */
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
  videoCodec: string;
  audioCodec?: string;
  bitRate?: number;
  frameCount?: number;
}

/**
 * Reads ffprobe's `-show_format -show_streams` JSON. CORRUPT when no track can be read;
 * UNSUPPORTED when there are tracks but none is video (an audio-only MP4).
 */
export function parseProbe(raw: string): VideoProbe {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MediaError('CORRUPT', 'The video could not be read (no stream information).');
  }
  const out: ProbeOutput = isObject(parsed) ? parsed : {};
  const streams = (Array.isArray(out.streams) ? out.streams : []).filter(isObject) as ProbeStream[];
  if (streams.length === 0) throw new MediaError('CORRUPT', 'The video is damaged: no track could be read.');
  // Cover art is stored as a video stream with attached_pic; it is not the video.
  const video = streams.find(
    (s) => s.codec_type === 'video' && !(isObject(s.disposition) && s.disposition.attached_pic),
  );
  if (!video) throw new MediaError('UNSUPPORTED', 'The file has no video track.');
  const codedWidth = positive(video.width);
  const codedHeight = positive(video.height);
  if (!codedWidth || !codedHeight) throw new MediaError('CORRUPT', 'The video track has no picture size.');
  const rotation = rotationOf(video);
  const swap = rotation === 90 || rotation === 270;
  const audio = streams.find((s) => s.codec_type === 'audio');
  const format = isObject(out.format) ? out.format : {};
  const duration = positive(format.duration) ?? positive(video.duration);
  const fps = parseFrameRate(video.avg_frame_rate) ?? parseFrameRate(video.r_frame_rate);
  const bitRate = positive(format.bit_rate);
  const frameCount = positive(video.nb_frames);
  return {
    ...(duration !== undefined ? { durationSeconds: Math.round(duration * 1000) / 1000 } : {}),
    ...(fps !== undefined ? { fps } : {}),
    width: swap ? codedHeight : codedWidth,
    height: swap ? codedWidth : codedHeight,
    rotation,
    videoCodec: typeof video.codec_name === 'string' ? video.codec_name : 'unknown',
    ...(typeof audio?.codec_name === 'string' ? { audioCodec: audio.codec_name } : {}),
    ...(bitRate !== undefined ? { bitRate } : {}),
    ...(frameCount !== undefined ? { frameCount } : {}),
  };
}

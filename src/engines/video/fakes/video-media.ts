import fs from 'node:fs/promises';
import path from 'node:path';
import { runProcess } from '../../../adapters/media/run-process.ts';
import { ffmpegPath, ffprobePath } from '../../../adapters/media/video.ts';
import { type FakeServer, sendBytes, sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';

/**
 * Test plumbing shared by the fake video providers: a real tiny MP4 made with the bundled ffmpeg
 * (`testsrc2`, optionally with a sine tone), bytes that are not a video, and a server standing
 * for a provider's CDN (another origin than the API; no auth) that serves the clip at
 * `/videos/{id}.mp4`. Nothing here is used outside tests; nothing is downloaded.
 */

export interface TestClip {
  seconds: number;
  width: number;
  height: number;
  fps: number;
  audio?: boolean;
}

/** Writes a testsrc2 clip (H.264 yuv420p MP4) into `dir` and returns its path. */
export async function makeTestMp4(dir: string, clip: TestClip, name = 'clip.mp4'): Promise<string> {
  const file = path.join(dir, name);
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${clip.width}x${clip.height}:rate=${clip.fps}:duration=${clip.seconds}`,
    ...(clip.audio ? ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${clip.seconds}`] : []),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    ...(clip.audio ? ['-c:a', 'aac', '-b:a', '64k'] : ['-an']),
    '-movflags',
    '+faststart',
    file,
  ];
  const r = await runProcess(ffmpegPath(), args, { timeoutMs: 30_000, maxStdoutBytes: 1 << 20, label: 'ffmpeg' });
  if (r.exitCode !== 0) throw new Error(`could not make the test clip: ${r.stderr}`);
  return file;
}

/** Bytes served as a video that are not one. */
export const NOT_A_VIDEO = Buffer.from('<html><body>Sorry, this is not a video</body></html>');

/** Failure modes every fake video provider simulates. */
export type VideoFakeMode =
  /** Success after `pendingPolls` pending polls. */
  | 'ok'
  /** The first submission answers 429 (Retry-After: 1), the second succeeds. */
  | 'rate-limit-then-ok'
  /** Every submission answers 5xx. */
  | 'server-error'
  /** The submission is refused (HTTP 400) with the provider's reason. */
  | 'bad-request'
  /** The job runs, then fails with a reason. */
  | 'failed'
  /** The job never leaves the queue. */
  | 'stuck'
  /** The result URL serves bytes that are not a video. */
  | 'not-a-video'
  /** The result URL serves an MP4 that is broken after its first box. */
  | 'broken-video'
  /** The answer's job URLs point to another origin (fal, Replicate: must be ignored). */
  | 'foreign-urls';

export interface VideoCdn extends FakeServer {
  url(id: string): string;
}

/** The CDN: `/videos/{id}.mp4` serves `mp4` (or NOT_A_VIDEO / a broken file per `mode()`). */
export async function startVideoCdn(mp4: Buffer, mode: () => VideoFakeMode): Promise<VideoCdn> {
  const cdn = await startFakeServer((req, res) => {
    if (!/^\/videos\/[\w-]+\.mp4$/.test(req.url.pathname)) return sendJson(res, 404, { error: 'Not found' });
    if (mode() === 'not-a-video') return sendBytes(res, NOT_A_VIDEO, 'video/mp4');
    if (mode() === 'broken-video') return sendBytes(res, mp4.subarray(0, 64), 'video/mp4');
    return sendBytes(res, mp4, 'video/mp4');
  });
  return { ...cdn, url: (id) => `${cdn.origin}/videos/${id}.mp4` };
}

export interface ClipInfo {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  /** r_frame_rate as a number. */
  fps: number;
  seconds: number;
  frames: number;
  audio?: string;
}

/** What ffprobe says about MP4 bytes (written to `dir`). */
export async function probeClip(
  dir: string,
  bytes: Buffer,
  name = `probe-${Date.now()}-${Math.random()}.mp4`,
): Promise<ClipInfo> {
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes);
  const r = await runProcess(
    ffprobePath(),
    ['-v', 'error', '-count_frames', '-print_format', 'json', '-show_format', '-show_streams', file],
    { timeoutMs: 30_000, maxStdoutBytes: 1 << 20, label: 'ffprobe' },
  );
  await fs.rm(file, { force: true });
  const j = JSON.parse(r.stdout.toString('utf8')) as {
    streams: Record<string, string | number | undefined>[];
    format: { duration: string };
  };
  const v = j.streams.find((s) => s.codec_type === 'video');
  const a = j.streams.find((s) => s.codec_type === 'audio');
  if (!v) throw new Error('no video stream');
  const [n, d] = String(v.r_frame_rate).split('/').map(Number);
  return {
    codec: String(v.codec_name),
    pixFmt: String(v.pix_fmt),
    width: Number(v.width),
    height: Number(v.height),
    fps: (n as number) / (d || 1),
    seconds: Number(j.format.duration),
    frames: Number(v.nb_read_frames),
    ...(a ? { audio: String(a.codec_name) } : {}),
  } satisfies ClipInfo;
}

/** What every fake video provider exposes: the API server, its CDN and the switches tests flip. */
export interface VideoProviderFake extends FakeServer {
  mode: VideoFakeMode;
  pendingPolls: number;
  cdn: VideoCdn;
  /** Ids of the jobs the adapter asked to cancel. */
  cancelled: string[];
}

/** A fake provider's mutable state: `rateLimited` counts 429s given in this mode, `next` numbers jobs. */
export interface VideoFakeState {
  mode: VideoFakeMode;
  pendingPolls: number;
  rateLimited: number;
  next: number;
}

export interface VideoFakeParts {
  state: VideoFakeState;
  cdn: VideoCdn;
  cancelled: string[];
}

/** What every fake video provider starts with: its state (mode `ok`, 2 pending polls), its CDN, no cancels. */
export async function startVideoFakeParts(mp4: Buffer): Promise<VideoFakeParts> {
  const state: VideoFakeState = { mode: 'ok', pendingPolls: 2, rateLimited: 0, next: 0 };
  return { state, cdn: await startVideoCdn(mp4, () => state.mode), cancelled: [] };
}

/**
 * The fake's handle: `api` and `extra` members, `mode` (setting it resets the 429 count) and
 * `pendingPolls` backed by `state`, and a close() that stops the API and the CDN.
 */
export function videoProviderFake<E extends object>(
  api: FakeServer,
  parts: VideoFakeParts,
  extra: E,
): VideoProviderFake & E {
  const { state, cdn, cancelled } = parts;
  return {
    ...api,
    cdn,
    cancelled,
    ...extra,
    get mode() {
      return state.mode;
    },
    set mode(m: VideoFakeMode) {
      state.mode = m;
      state.rateLimited = 0;
    },
    get pendingPolls() {
      return state.pendingPolls;
    },
    set pendingPolls(n: number) {
      state.pendingPolls = n;
    },
    close: async () => {
      await Promise.all([api.close(), cdn.close()]);
    },
  };
}

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GenerationError } from '../image/scene-engine.ts';
import { makeTestMp4, NOT_A_VIDEO, probeClip } from './fakes/video-media.ts';
import { conformArgs, conformProviderVideo, conformWarnings, coverSize, requestShape } from './conform.ts';
import { nearestDuration } from './provider-video.ts';

const spec = {
  input: '/tmp/x/source.mp4',
  output: '/tmp/x/out.mp4',
  preview: '/tmp/x/preview.mp4',
  source: { width: 1280, height: 720 },
  width: 1080,
  height: 1920,
  fps: 30,
  frames: 150,
  audio: false,
};

const graph = (args: string[]) => args[args.indexOf('-filter_complex') + 1] as string;

describe('conformArgs (pure)', () => {
  it('opens the input as a guarded file, covers + centre-crops, sets fps, holds the last frame, trims', () => {
    const args = conformArgs(spec);
    expect(args.slice(args.indexOf('-protocol_whitelist'), args.indexOf('-i') + 2)).toEqual([
      '-protocol_whitelist',
      'file',
      '-f',
      'mov',
      '-i',
      'file:/tmp/x/source.mp4',
    ]);
    const g = graph(args);
    expect(g).toContain('[0:v:0]scale=3414:1920:flags=bicubic,crop=1080:1920,setsar=1,fps=30,');
    expect(g).toContain('tpad=stop_mode=clone:stop=150,trim=end_frame=150,setpts=PTS-STARTPTS');
    expect(g).toContain('split=2[vmain][vprev0]');
    // Preview: 5 s sped up to 3 s, 320 px wide, no audio.
    expect(g).toContain('[vprev0]setpts=0.6*PTS,fps=15,scale=320:568:flags=area,format=yuv420p[vprev]');
    expect(g).not.toContain('xfade');
    expect(g).not.toContain('[0:a');
    const master = args.slice(0, args.indexOf('file:/tmp/x/out.mp4') + 1);
    expect(master).toEqual(
      expect.arrayContaining(['-map', '[vmain]', '-an', '-c:v', 'libx264', '-pix_fmt', 'yuv420p']),
    );
    expect(master.join(' ')).toContain('-movflags +faststart -f mp4 file:/tmp/x/out.mp4');
    expect(master.join(' ')).toContain('-r 30');
    const preview = args.slice(args.indexOf('file:/tmp/x/out.mp4') + 1);
    expect(preview.join(' ')).toMatch(/^-map \[vprev\] -an .* file:\/tmp\/x\/preview\.mp4$/);
  });

  it('keeps the audio padded/trimmed to the exact length when asked', () => {
    const args = conformArgs({ ...spec, audio: true, frames: 75, fps: 25 });
    expect(graph(args)).toContain('[0:a:0]apad,atrim=0:3,asetpts=PTS-STARTPTS[aout]');
    expect(args.join(' ')).toContain('-map [vmain] -map [aout]');
    expect(args.join(' ')).toContain('-c:a aac');
    expect(args.join(' ')).not.toContain('-an -sn');
  });

  it('refuses odd sizes and bad frame counts', () => {
    expect(() => conformArgs({ ...spec, width: 1081 })).toThrow(RangeError);
    expect(() => conformArgs({ ...spec, frames: 0 })).toThrow(RangeError);
  });

  it('coverSize covers exactly, even, never short', () => {
    expect(coverSize({ width: 1280, height: 720 }, 1280, 720)).toEqual({ width: 1280, height: 720 });
    expect(coverSize({ width: 320, height: 240 }, 320, 180)).toEqual({ width: 320, height: 240 });
    expect(coverSize({ width: 1000, height: 563 }, 1280, 720)).toEqual({ width: 1280, height: 722 });
    const odd = coverSize({ width: 333, height: 777 }, 1080, 1920);
    expect(odd.width >= 1080 && odd.height >= 1920 && odd.width % 2 === 0 && odd.height % 2 === 0).toBe(true);
  });

  it('warnings: crop, upscale, padding, trimming, missing audio', () => {
    const codes = (p: Parameters<typeof conformWarnings>[0], audio = false) =>
      conformWarnings(p, { width: 1280, height: 720, seconds: 5, audio }).map((w) => w.code);
    expect(codes({ width: 1280, height: 720, durationSeconds: 5, audioCodec: 'aac' }, true)).toEqual([]);
    expect(codes({ width: 960, height: 960, durationSeconds: 4 })).toEqual([
      'PROVIDER_ASPECT_CROPPED',
      'PROVIDER_UPSCALED',
      'DURATION_PADDED',
    ]);
    expect(codes({ width: 1920, height: 1080, durationSeconds: 10 }, true)).toEqual([
      'DURATION_TRIMMED',
      'AUDIO_MISSING',
    ]);
  });

  it('requestShape and nearestDuration', () => {
    expect(requestShape({ width: 320, height: 180, durationSeconds: 2.5 })).toMatchObject({ fps: 30, frames: 75 });
    expect(() => requestShape({ width: 321, height: 180, durationSeconds: 2 })).toThrow(GenerationError);
    expect(() => requestShape({ width: 320, height: 180, durationSeconds: 0 })).toThrow(/duration/);
    expect(nearestDuration([5, 10], 7.5)).toBe(10);
    expect(nearestDuration([5, 10], 7)).toBe(5);
    expect(nearestDuration([5, 9], 2)).toBe(5);
    expect(nearestDuration([5, 9], 60)).toBe(9);
  });
});

describe('conformProviderVideo (ffmpeg)', () => {
  let dir: string;
  let long: Buffer;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'conform-test-'));
    long = await fs.readFile(await makeTestMp4(dir, { seconds: 3, width: 240, height: 320, fps: 30, audio: true }));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('trims a longer clip, drops audio unless asked, makes the preview', async () => {
    const r = await conformProviderVideo(
      long,
      { prompt: '', width: 160, height: 160, durationSeconds: 1, fps: 12, seed: 1 },
      { engine: 'test:x' },
    );
    const info = await probeClip(dir, r.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 160, height: 160, fps: 12, frames: 12 });
    expect(info.audio).toBeUndefined();
    expect(r.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_TRIMMED']);
    const preview = await probeClip(dir, r.preview);
    expect([preview.width, preview.height, preview.audio]).toEqual([320, 320, undefined]);

    const withAudio = await conformProviderVideo(
      long,
      { prompt: '', width: 160, height: 160, durationSeconds: 4, fps: 12, seed: 1, enableAudio: true },
      { engine: 'test:x' },
    );
    const a = await probeClip(dir, withAudio.mp4);
    expect([a.audio, a.frames]).toEqual(['aac', 48]);
    expect(Math.abs(a.seconds - 4)).toBeLessThanOrEqual(0.1);
  });

  it('bytes that are not a video: non-retryable GenerationError', async () => {
    const err = await conformProviderVideo(
      NOT_A_VIDEO,
      { prompt: '', width: 160, height: 160, durationSeconds: 1, seed: 1 },
      { engine: 'test:x' },
    ).catch((e: unknown) => e as GenerationError);
    expect(err).toBeInstanceOf(GenerationError);
    expect((err as GenerationError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/not a video that can be read/);
  });

  it('an aborted signal stops it', async () => {
    const ctl = new AbortController();
    ctl.abort();
    await expect(
      conformProviderVideo(
        long,
        { prompt: '', width: 160, height: 160, durationSeconds: 1, seed: 1, signal: ctl.signal },
        { engine: 'test:x' },
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});

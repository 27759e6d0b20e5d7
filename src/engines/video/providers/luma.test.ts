import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GenerationError } from '../../image/scene-engine.ts';
import { type LumaFake, startLumaFake } from '../fakes/luma-fake.ts';
import { makeTestMp4, probeClip } from '../fakes/video-media.ts';
import type { VideoRequest } from '../video-engine.ts';
import { createLumaVideoEngine, type FrameUrl, type LumaSettings } from './luma.ts';

const KEY = 'luma-test-key-0123456789';
let dir: string;
let fake: LumaFake;
let frame: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'luma-test-'));
  const mp4 = await fs.readFile(await makeTestMp4(dir, { seconds: 2, width: 320, height: 240, fps: 25 }));
  fake = await startLumaFake(mp4, KEY);
  frame = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#a0c080' } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await fake.close();
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.pendingPolls = 2;
  fake.requests.length = 0;
  fake.cdn.requests.length = 0;
  fake.cancelled.length = 0;
  waits.length = 0;
});

const engine = (over: Partial<LumaSettings> = {}, o: { sleeper?: typeof sleep | null; frameUrl?: FrameUrl } = {}) =>
  createLumaVideoEngine(
    { baseUrl: fake.baseUrl, apiKey: KEY, timeoutMs: 20_000, retryBaseMs: 5, pollIntervalMs: 100, ...over },
    {
      fetcher: fake.fetcher,
      downloadFetcher: fake.cdn.fetcher,
      ...(o.sleeper === null ? {} : { sleep: o.sleeper ?? sleep }),
      ...(o.frameUrl ? { frameUrl: o.frameUrl } : {}),
    },
  );

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'A bottle on a beach at dawn, gentle waves',
  width: 256,
  height: 144,
  durationSeconds: 1.2,
  fps: 30,
  startFrame: frame,
  seed: 3,
  ...over,
});

async function failure(p: Promise<unknown>): Promise<GenerationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GenerationError);
  expect((err as Error).message).not.toContain(KEY);
  return err as GenerationError;
}

const posted = () => fake.requests.find((r) => r.method === 'POST')?.json;

describe('luma video engine', () => {
  it('creates a generation with keyframes, polls to completed, downloads without the key, conforms', async () => {
    const given: string[] = [];
    const frameUrl: FrameUrl = async (png, which) => {
      given.push(`${which}:${(await sharp(png).metadata()).format}`);
      return which === 'start' ? 'https://frames.example.test/start.png' : undefined;
    };
    const result = await engine({}, { frameUrl }).generate(request({ endFrame: frame, enableAudio: true }));
    expect(result.engine).toBe('luma:ray-2');
    const info = await probeClip(dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 256, height: 144, fps: 30, frames: 36 });
    expect(Math.abs(info.seconds - 1.2)).toBeLessThanOrEqual(0.1);
    expect(info.audio).toBeUndefined();
    expect(result.warnings.map((w) => w.code)).toEqual([
      'PROVIDER_ASPECT_CROPPED',
      'DURATION_TRIMMED',
      'AUDIO_MISSING',
    ]);

    expect(given).toEqual(['start:png', 'end:png']);
    const body = posted();
    expect(body).toMatchObject({
      prompt: 'A bottle on a beach at dawn, gentle waves',
      model: 'ray-2',
      aspect_ratio: '16:9',
      resolution: '720p',
      duration: '5s',
      keyframes: { frame0: { type: 'image', url: 'https://frames.example.test/start.png' } },
    });
    expect(body.keyframes.frame1.url).toMatch(/^data:image\/png;base64,/);
    expect(body.seed).toBeUndefined();
    const id = fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /dream-machine/v1/generations',
      `GET /dream-machine/v1/generations/${id}`,
      `GET /dream-machine/v1/generations/${id}`,
      `GET /dream-machine/v1/generations/${id}`,
    ]);
    for (const r of fake.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.cdn.requests).toHaveLength(1);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('text only: no keyframes; ratio and duration mapping', async () => {
    fake.mode = 'bad-request';
    const cases: [number, number, number, string, string][] = [
      [1080, 1920, 6, '9:16', '5s'],
      [2520, 1080, 7, '21:9', '9s'],
      [1200, 900, 12, '4:3', '9s'],
    ];
    for (const [width, height, durationSeconds, ratio, duration] of cases) {
      fake.requests.length = 0;
      await failure(engine().generate(request({ width, height, durationSeconds, startFrame: undefined })));
      expect(posted().keyframes).toBeUndefined();
      expect([posted().aspect_ratio, posted().duration]).toEqual([ratio, duration]);
    }
  });

  it('a failed generation carries failure_reason, non-retryable', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/Luma reported the generation failed: The keyframe image could not be processed/);
    expect(err.retryable).toBe(false);
  });

  it('429 then success; 500s retried then retryable; 400 not retried', async () => {
    fake.mode = 'rate-limit-then-ok';
    fake.pendingPolls = 0;
    await engine().generate(request());
    expect(waits[0]).toBe(1000);
    fake.mode = 'server-error';
    fake.requests.length = 0;
    const e500 = await failure(engine({ maxRetries: 1 }).generate(request()));
    expect(e500.retryable).toBe(true);
    expect(fake.requests).toHaveLength(2);
    fake.mode = 'bad-request';
    fake.requests.length = 0;
    const e400 = await failure(engine().generate(request()));
    expect(e400.message).toMatch(/HTTP 400.*prompt is too long/);
    expect(e400.retryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('not a video', async () => {
    fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an MP4 video/);
  });

  it('a stuck generation times out and is deleted; an abort deletes it too', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, { sleeper: null }).generate(request()));
    expect(err.message).toMatch(/did not finish the video within 0.3 s/);
    expect(fake.cancelled).toHaveLength(1);

    const ctl = new AbortController();
    const abortErr = await engine({}, { sleeper: async () => ctl.abort() })
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(abortErr?.name).toBe('AbortError');
    expect(fake.cancelled).toHaveLength(2);
  });

  it('refuses references without a start frame', async () => {
    const err = await failure(
      engine().generate(request({ startFrame: undefined, references: [{ kind: 'image', bytes: frame }] })),
    );
    expect(err.message).toMatch(/no reference-to-video mode/);
    expect(fake.requests).toHaveLength(0);
  });
});

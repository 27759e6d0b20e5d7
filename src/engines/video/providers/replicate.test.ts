import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GenerationError } from '../../image/scene-engine.ts';
import { type ReplicateVideoFake, startReplicateVideoFake } from '../fakes/replicate-video-fake.ts';
import { makeTestMp4, probeClip } from '../fakes/video-media.ts';
import type { VideoRequest } from '../video-engine.ts';
import { createReplicateVideoEngine, type ReplicateVideoSettings } from './replicate.ts';

const KEY = 'r8_video_test_0123456789abcdef';
let dir: string;
let fake: ReplicateVideoFake;
let frame: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'replicate-video-test-'));
  const mp4 = await fs.readFile(await makeTestMp4(dir, { seconds: 2, width: 320, height: 240, fps: 25, audio: true }));
  fake = await startReplicateVideoFake(mp4, KEY);
  frame = await sharp({ create: { width: 320, height: 180, channels: 3, background: '#705030' } })
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
  fake.files.length = 0;
  waits.length = 0;
});

const engine = (over: Partial<ReplicateVideoSettings> = {}, sleeper: typeof sleep | null = sleep) =>
  createReplicateVideoEngine(
    { baseUrl: fake.origin, apiKey: KEY, timeoutMs: 20_000, retryBaseMs: 5, pollIntervalMs: 100, ...over },
    { fetcher: fake.fetcher, downloadFetcher: fake.cdn.fetcher, ...(sleeper ? { sleep: sleeper } : {}) },
  );

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'Steam rises from the cup',
  width: 320,
  height: 180,
  durationSeconds: 2.5,
  startFrame: frame,
  seed: -1,
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

describe('replicate video engine', () => {
  it('creates the prediction on the official model route, polls urls.get, keeps audio when asked, conforms', async () => {
    const result = await engine().generate(request({ enableAudio: true, endFrame: frame }));
    expect(result.engine).toBe('replicate:kwaivgi/kling-v2.1');
    const info = await probeClip(dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 320, height: 180, fps: 30, frames: 75, audio: 'aac' });
    expect(Math.abs(info.seconds - 2.5)).toBeLessThanOrEqual(0.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_PADDED']);
    const preview = await probeClip(dir, result.preview);
    expect(preview.audio).toBeUndefined();

    const id = fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /v1/models/kwaivgi/kling-v2.1/predictions',
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
    ]);
    for (const r of fake.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    const input = posted().input;
    expect(input).toMatchObject({
      prompt: 'Steam rises from the cup',
      duration: 5,
      aspect_ratio: '16:9',
      seed: 4294967295,
    });
    expect(input.start_image).toMatch(/^data:image\/png;base64,/);
    expect(input.end_image).toMatch(/^data:image\/png;base64,/);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('version route, Prefer: wait, custom image field, large frames uploaded through /v1/files', async () => {
    const version = 'a'.repeat(64);
    await engine({
      model: `owner/model:${version}`,
      waitSeconds: 60,
      imageInput: 'image',
      dataUriMaxBytes: 10,
    }).generate(request({ endFrame: undefined }));
    const create = fake.requests.find((r) => r.url.pathname === '/v1/predictions');
    expect(create?.headers.prefer).toBe('wait=60');
    expect(create?.json.version).toBe(version);
    expect(create?.json.input.image).toBe(`${fake.origin}/v1/files/file-1`);
    expect(fake.files).toHaveLength(1);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(0);
  });

  it('ignores urls.get / urls.cancel on another origin', async () => {
    fake.mode = 'foreign-urls';
    await engine().generate(request());
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
  });

  it('a failed prediction carries its error, non-retryable', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /The Replicate prediction failed: Prediction failed: start_image must be at least 300px/,
    );
    expect(err.retryable).toBe(false);
  });

  it('422 not retried; 429 then success; 500s retryable; not a video', async () => {
    fake.mode = 'bad-request';
    const e422 = await failure(engine().generate(request()));
    expect(e422.message).toMatch(/HTTP 422.*prompt is too long/);
    expect(e422.retryable).toBe(false);
    fake.mode = 'rate-limit-then-ok';
    fake.pendingPolls = 0;
    await engine().generate(request());
    expect(waits).toContain(1000);
    fake.mode = 'server-error';
    expect((await failure(engine().generate(request()))).retryable).toBe(true);
    fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an MP4 video/);
  });

  it('timeout and abort cancel the prediction through urls.cancel', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, null).generate(request()));
    expect(err.message).toMatch(/did not finish the video/);
    expect(fake.cancelled).toHaveLength(1);
    const ctl = new AbortController();
    const e = await engine({}, async () => ctl.abort())
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (x: unknown) => x as Error,
      );
    expect(e?.name).toBe('AbortError');
    expect(fake.cancelled).toHaveLength(2);
  });
});

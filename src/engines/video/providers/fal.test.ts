import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GenerationError } from '../../image/scene-engine.ts';
import { type FalVideoFake, startFalVideoFake } from '../fakes/fal-video-fake.ts';
import { makeTestMp4, probeClip } from '../fakes/video-media.ts';
import type { VideoRequest } from '../video-engine.ts';
import { createFalVideoEngine, type FalVideoSettings } from './fal.ts';

const KEY = 'fal-test-key-0123456789';
const MODEL = 'fal-ai/kling-video/v2.1/standard/image-to-video';
let dir: string;
let fake: FalVideoFake;
let frame: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fal-video-test-'));
  const mp4 = await fs.readFile(await makeTestMp4(dir, { seconds: 2, width: 320, height: 240, fps: 25 }));
  fake = await startFalVideoFake(mp4, KEY);
  frame = await sharp({ create: { width: 360, height: 640, channels: 3, background: '#305070' } })
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

const engine = (over: Partial<FalVideoSettings> = {}, sleeper: typeof sleep | null = sleep) =>
  createFalVideoEngine(
    { baseUrl: fake.origin, apiKey: KEY, timeoutMs: 20_000, retryBaseMs: 5, pollIntervalMs: 100, ...over },
    { fetcher: fake.fetcher, downloadFetcher: fake.cdn.fetcher, ...(sleeper ? { sleep: sleeper } : {}) },
  );

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'The camera orbits the sneaker',
  width: 180,
  height: 320,
  durationSeconds: 2,
  fps: 25,
  startFrame: frame,
  seed: 11,
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

describe('fal video engine', () => {
  it('submits, follows the queue, fetches video.url from the CDN without the key, conforms (portrait)', async () => {
    const result = await engine().generate(request({ endFrame: frame }));
    expect(result.engine).toBe(`fal:${MODEL}`);
    const info = await probeClip(dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 180, height: 320, fps: 25, frames: 50 });
    expect(Math.abs(info.seconds - 2)).toBeLessThanOrEqual(0.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'PROVIDER_UPSCALED']);

    const id = /requests\/([\w-]+)\/status/.exec(fake.requests[1]?.url.pathname ?? '')?.[1];
    const job = `/fal-ai/kling-video/requests/${id}`;
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      `POST /${MODEL}`,
      `GET ${job}/status`,
      `GET ${job}/status`,
      `GET ${job}/status`,
      `GET ${job}`,
    ]);
    for (const r of fake.requests) expect(r.headers.authorization).toBe(`Key ${KEY}`);
    const input = posted();
    expect(input).toMatchObject({ prompt: 'The camera orbits the sneaker', duration: '5', aspect_ratio: '9:16' });
    expect(input.image_url).toMatch(/^data:image\/png;base64,/);
    expect(input.tail_image_url).toMatch(/^data:image\/png;base64,/);
    expect(fake.cdn.requests).toHaveLength(1);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('ignores job URLs on another origin (rebuilt from the app id)', async () => {
    fake.mode = 'foreign-urls';
    fake.pendingPolls = 0;
    const result = await engine().generate(request());
    expect(result.width).toBe(180);
    expect(fake.requests.filter((r) => r.url.pathname.endsWith('/status'))).toHaveLength(1);
  });

  it('maps durations and ratios; a text-only request to an image-to-video model is refused', async () => {
    fake.mode = 'bad-request';
    await failure(engine().generate(request({ width: 640, height: 640, durationSeconds: 8 })));
    expect([posted().aspect_ratio, posted().duration]).toEqual(['1:1', '10']);
    fake.requests.length = 0;
    const err = await failure(engine().generate(request({ startFrame: undefined })));
    expect(err.message).toMatch(/makes videos from a start frame/);
    expect(fake.requests).toHaveLength(0);
  });

  it('a job failed on fal (error in the status) is non-retryable with the reason', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/fal\.ai reported the job failed: Kling task failed: image resolution too low/);
    expect(err.retryable).toBe(false);
  });

  it('422 is not retried; 429 then success; 503 retryable', async () => {
    fake.mode = 'bad-request';
    const e422 = await failure(engine().generate(request()));
    expect(e422.message).toMatch(/HTTP 422.*Image dimensions are too small/);
    expect(e422.retryable).toBe(false);
    fake.mode = 'rate-limit-then-ok';
    fake.pendingPolls = 0;
    fake.requests.length = 0;
    await engine().generate(request());
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    fake.mode = 'server-error';
    const e503 = await failure(engine().generate(request()));
    expect(e503.retryable).toBe(true);
  });

  it('not a video', async () => {
    fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).retryable).toBe(false);
  });

  it('timeout and abort cancel the request', async () => {
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

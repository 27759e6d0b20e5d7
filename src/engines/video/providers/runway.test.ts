import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GenerationError } from '../../image/scene-engine.ts';
import { type RunwayFake, startRunwayFake } from '../fakes/runway-fake.ts';
import { makeTestMp4, probeClip } from '../fakes/video-media.ts';
import type { VideoRequest } from '../video-engine.ts';
import { createRunwayVideoEngine, type RunwaySettings } from './runway.ts';

const KEY = 'rw_test_key_0123456789abcdef';
let dir: string;
let fake: RunwayFake;
let frame: Buffer;
let endFrame: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'runway-test-'));
  const mp4 = await fs.readFile(await makeTestMp4(dir, { seconds: 2, width: 320, height: 240, fps: 25 }));
  fake = await startRunwayFake(mp4, KEY);
  frame = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#80a0c0' } })
    .png()
    .toBuffer();
  endFrame = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#c0a080' } })
    .jpeg()
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

const engine = (over: Partial<RunwaySettings> = {}, sleeper: typeof sleep | undefined = sleep) =>
  createRunwayVideoEngine(
    { baseUrl: fake.origin, apiKey: KEY, timeoutMs: 20_000, retryBaseMs: 5, pollIntervalMs: 100, ...over },
    { fetcher: fake.fetcher, downloadFetcher: fake.cdn.fetcher, ...(sleeper ? { sleep: sleeper } : {}) },
  );

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'Slow push-in on the bottle',
  width: 320,
  height: 180,
  durationSeconds: 3,
  fps: 24,
  startFrame: frame,
  seed: 7,
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

describe('runway video engine: success', () => {
  it('creates the task, polls until SUCCEEDED, downloads without the key and conforms the clip', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('runway:gen4_turbo');
    expect([result.width, result.height, result.fps, result.durationSeconds]).toEqual([320, 180, 24, 3]);
    const info = await probeClip(dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', pixFmt: 'yuv420p', width: 320, height: 180, frames: 72 });
    expect(info.fps).toBe(24);
    expect(Math.abs(info.seconds - 3)).toBeLessThanOrEqual(0.1);
    expect(info.audio).toBeUndefined();
    const preview = await probeClip(dir, result.preview);
    expect([preview.codec, preview.width, preview.audio]).toEqual(['h264', 320, undefined]);
    expect(preview.seconds).toBeLessThanOrEqual(3.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_PADDED']);

    const id = fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /v1/image_to_video',
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
    ]);
    for (const r of fake.requests) {
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.headers['x-runway-version']).toBe('2024-11-06');
    }
    const body = posted();
    expect(body).toMatchObject({
      model: 'gen4_turbo',
      promptText: 'Slow push-in on the bottle',
      ratio: '1280:720',
      duration: 5,
      seed: 7,
    });
    expect(body.promptImage).toMatch(/^data:image\/png;base64,/);
    expect(waits).toEqual([100, 150]);
    expect(fake.cdn.requests).toHaveLength(1);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
    expect(fake.cdn.requests[0]?.headers['x-runway-version']).toBeUndefined();
    expect(fake.cancelled).toEqual([]);
  });

  it('sends the end frame as promptImage [{first}, {last}]', async () => {
    fake.pendingPolls = 0;
    await engine()
      .generate(request({ endFrame, intermediateFrames: [frame] }))
      .then((r) => {
        expect(r.warnings.map((w) => w.code)).toContain('INPUT_NOT_SENT');
      });
    const image = posted().promptImage;
    expect(image.map((i: { position: string }) => i.position)).toEqual(['first', 'last']);
    for (const i of image) expect(i.uri).toMatch(/^data:image\/png;base64,/);
  });

  it('maps the size to the nearest allowed ratio and the duration to the nearest allowed one', async () => {
    fake.mode = 'bad-request';
    const cases: [number, number, number, string, number][] = [
      [1080, 1920, 8, '720:1280', 10],
      [1000, 1000, 7, '960:960', 5],
      [2100, 900, 7.5, '1584:672', 10],
      [1200, 900, 3, '1104:832', 5],
    ];
    for (const [width, height, durationSeconds, ratio, duration] of cases) {
      fake.requests.length = 0;
      await failure(engine().generate(request({ width, height, durationSeconds })));
      expect([posted().ratio, posted().duration]).toEqual([ratio, duration]);
    }
  });

  it('retries a 429 after Retry-After', async () => {
    fake.mode = 'rate-limit-then-ok';
    fake.pendingPolls = 0;
    await engine().generate(request());
    expect(waits[0]).toBe(1000);
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });
});

describe('runway video engine: failures', () => {
  it('a FAILED task is a non-retryable error with Runway reason', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /Runway reported the task failed \(INTERNAL\.BAD_OUTPUT\.CODE01\): An unexpected error occurred/,
    );
    expect(err.retryable).toBe(false);
  });

  it('a 400 is not retried and carries the reason', async () => {
    fake.mode = 'bad-request';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/rejected the request \(HTTP 400\).*Invalid asset aspect ratio/);
    expect(err.retryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('5xx is retried, then retryable', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 502 while creating the task, after 3 attempts/);
    expect(err.retryable).toBe(true);
  });

  it('a wrong key', async () => {
    const err = await failure(engine({ apiKey: 'rw_wrong_key_999999999' }).generate(request()));
    expect(err.message).toMatch(/refused the API key \(HTTP 401\)/);
  });

  it('a result that is not a video', async () => {
    fake.mode = 'not-a-video';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/not an MP4 video/);
    expect(err.retryable).toBe(false);
  });

  it('a broken MP4 fails the probe (non-retryable)', async () => {
    fake.mode = 'broken-video';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/not a video that can be read/);
    expect(err.retryable).toBe(false);
  });

  it('a stuck task times out and is deleted', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, undefined).generate(request()));
    expect(err.message).toMatch(/did not finish the video within 0.3 s/);
    expect(err.retryable).toBe(true);
    expect(fake.cancelled).toHaveLength(1);
    expect(fake.requests.at(-1)?.method).toBe('DELETE');
  });

  it('an abort stops polling and deletes the task', async () => {
    const ctl = new AbortController();
    const aborting = async () => ctl.abort();
    const err = await engine({}, aborting)
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).name).toBe('AbortError');
    expect(fake.cancelled).toHaveLength(1);
    expect(fake.cdn.requests).toHaveLength(0);
  });

  it('refuses requests without a start frame before any call', async () => {
    const text = await failure(engine().generate(request({ startFrame: undefined })));
    expect(text.message).toMatch(/start frame/);
    const refs = await failure(
      engine().generate(request({ startFrame: undefined, references: [{ kind: 'image', bytes: frame }] })),
    );
    expect(refs.message).toMatch(/no reference-to-video mode/);
    expect(refs.retryable).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });
});

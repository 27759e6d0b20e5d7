import { beforeAll, describe, expect, it } from 'vitest';
import type { Sleep } from '../../image/provider-http.ts';
import { rejection, solidImage, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { startRunwayFake } from '../fakes/runway-fake.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createRunwayVideoEngine, type RunwaySettings } from './runway.ts';

const KEY = 'rw_test_key_0123456789abcdef';
const kit = useProviderTestKit({
  name: 'runway-test',
  apiKey: KEY,
  start: startRunwayFake,
  frame: { width: 640, height: 360, background: '#80a0c0' },
  request: { prompt: 'Slow push-in on the bottle', width: 320, height: 180, durationSeconds: 3, fps: 24, seed: 7 },
});
const { request, failure, posted } = kit;
let endFrame: Buffer;
beforeAll(async () => {
  endFrame = await solidImage(640, 360, '#c0a080', 'jpeg');
});

const engine = (over: Partial<RunwaySettings> = {}, sleeper?: Sleep | null) =>
  createRunwayVideoEngine(kit.settings(over), kit.deps(sleeper));

describe('runway video engine: success', () => {
  it('creates the task, polls until SUCCEEDED, downloads without the key and conforms the clip', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('runway:gen4_turbo');
    expect([result.width, result.height, result.fps, result.durationSeconds]).toEqual([320, 180, 24, 3]);
    const info = await probeClip(kit.dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', pixFmt: 'yuv420p', width: 320, height: 180, frames: 72 });
    expect(info.fps).toBe(24);
    expect(Math.abs(info.seconds - 3)).toBeLessThanOrEqual(0.1);
    expect(info.audio).toBeUndefined();
    const preview = await probeClip(kit.dir, result.preview);
    expect([preview.codec, preview.width, preview.audio]).toEqual(['h264', 320, undefined]);
    expect(preview.seconds).toBeLessThanOrEqual(3.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_PADDED']);

    const id = kit.fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /v1/image_to_video',
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
    ]);
    for (const r of kit.fake.requests) {
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
    expect(kit.waits).toEqual([100, 150]);
    expect(kit.fake.cdn.requests).toHaveLength(1);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
    expect(kit.fake.cdn.requests[0]?.headers['x-runway-version']).toBeUndefined();
    expect(kit.fake.cancelled).toEqual([]);
  });

  it('sends the end frame as promptImage [{first}, {last}]', async () => {
    kit.fake.pendingPolls = 0;
    await engine()
      .generate(request({ endFrame, intermediateFrames: [kit.frame] }))
      .then((r) => {
        expect(r.warnings.map((w) => w.code)).toContain('INPUT_NOT_SENT');
      });
    const image = posted().promptImage;
    expect(image.map((i: { position: string }) => i.position)).toEqual(['first', 'last']);
    for (const i of image) expect(i.uri).toMatch(/^data:image\/png;base64,/);
  });

  it('maps the size to the nearest allowed ratio and the duration to the nearest allowed one', async () => {
    kit.fake.mode = 'bad-request';
    const cases: [number, number, number, string, number][] = [
      [1080, 1920, 8, '720:1280', 10],
      [1000, 1000, 7, '960:960', 5],
      [2100, 900, 7.5, '1584:672', 10],
      [1200, 900, 3, '1104:832', 5],
    ];
    for (const [width, height, durationSeconds, ratio, duration] of cases) {
      kit.fake.requests.length = 0;
      await failure(engine().generate(request({ width, height, durationSeconds })));
      expect([posted().ratio, posted().duration]).toEqual([ratio, duration]);
    }
  });

  it('retries a 429 after Retry-After', async () => {
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    await engine().generate(request());
    expect(kit.waits[0]).toBe(1000);
    expect(kit.fake.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });
});

describe('runway video engine: failures', () => {
  it('a FAILED task is a non-retryable error with Runway reason', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /Runway reported the task failed \(INTERNAL\.BAD_OUTPUT\.CODE01\): An unexpected error occurred/,
    );
    expect(err.retryable).toBe(false);
  });

  it('a 400 is not retried and carries the reason', async () => {
    kit.fake.mode = 'bad-request';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/rejected the request \(HTTP 400\).*Invalid asset aspect ratio/);
    expect(err.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(1);
  });

  it('5xx is retried, then retryable', async () => {
    kit.fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 502 while creating the task, after 3 attempts/);
    expect(err.retryable).toBe(true);
  });

  it('a wrong key', async () => {
    const err = await failure(engine({ apiKey: 'rw_wrong_key_999999999' }).generate(request()));
    expect(err.message).toMatch(/refused the API key \(HTTP 401\)/);
  });

  it('a result that is not a video', async () => {
    kit.fake.mode = 'not-a-video';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/not an MP4 video/);
    expect(err.retryable).toBe(false);
  });

  it('a broken MP4 fails the probe (non-retryable)', async () => {
    kit.fake.mode = 'broken-video';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/not a video that can be read/);
    expect(err.retryable).toBe(false);
  });

  it('a stuck task times out and is deleted', async () => {
    kit.fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, undefined).generate(request()));
    expect(err.message).toMatch(/did not finish the video within 0.3 s/);
    expect(err.retryable).toBe(true);
    expect(kit.fake.cancelled).toHaveLength(1);
    expect(kit.fake.requests.at(-1)?.method).toBe('DELETE');
  });

  it('an abort stops polling and deletes the task', async () => {
    const ctl = new AbortController();
    const aborting = async () => ctl.abort();
    const err = await rejection(engine({}, aborting).generate(request({ signal: ctl.signal })));
    expect((err as Error).name).toBe('AbortError');
    expect(kit.fake.cancelled).toHaveLength(1);
    expect(kit.fake.cdn.requests).toHaveLength(0);
  });

  it('refuses requests without a start frame before any call', async () => {
    const text = await failure(engine().generate(request({ startFrame: undefined })));
    expect(text.message).toMatch(/start frame/);
    const refs = await failure(
      engine().generate(request({ startFrame: undefined, references: [{ kind: 'image', bytes: kit.frame }] })),
    );
    expect(refs.message).toMatch(/no reference-to-video mode/);
    expect(refs.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(0);
  });
});

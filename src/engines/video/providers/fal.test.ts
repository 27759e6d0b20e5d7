import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../image/provider-http.ts';
import { startFalVideoFake } from '../fakes/fal-video-fake.ts';
import { rejection, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createFalVideoEngine, type FalVideoSettings } from './fal.ts';

const KEY = 'fal-test-key-0123456789';
const MODEL = 'fal-ai/kling-video/v2.1/standard/image-to-video';
const kit = useProviderTestKit({
  name: 'fal-video-test',
  apiKey: KEY,
  start: startFalVideoFake,
  frame: { width: 360, height: 640, background: '#305070' },
  request: { prompt: 'The camera orbits the sneaker', width: 180, height: 320, durationSeconds: 2, fps: 25, seed: 11 },
});
const { request, failure, posted } = kit;

const engine = (over: Partial<FalVideoSettings> = {}, sleeper?: Sleep | null) =>
  createFalVideoEngine(kit.settings(over), kit.deps(sleeper));

describe('fal video engine', () => {
  it('submits, follows the queue, fetches video.url from the CDN without the key, conforms (portrait)', async () => {
    const result = await engine().generate(request({ endFrame: kit.frame }));
    expect(result.engine).toBe(`fal:${MODEL}`);
    const info = await probeClip(kit.dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 180, height: 320, fps: 25, frames: 50 });
    expect(Math.abs(info.seconds - 2)).toBeLessThanOrEqual(0.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'PROVIDER_UPSCALED']);

    const id = /requests\/([\w-]+)\/status/.exec(kit.fake.requests[1]?.url.pathname ?? '')?.[1];
    const job = `/fal-ai/kling-video/requests/${id}`;
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      `POST /${MODEL}`,
      `GET ${job}/status`,
      `GET ${job}/status`,
      `GET ${job}/status`,
      `GET ${job}`,
    ]);
    for (const r of kit.fake.requests) expect(r.headers.authorization).toBe(`Key ${KEY}`);
    const input = posted();
    expect(input).toMatchObject({ prompt: 'The camera orbits the sneaker', duration: '5', aspect_ratio: '9:16' });
    expect(input.image_url).toMatch(/^data:image\/png;base64,/);
    expect(input.tail_image_url).toMatch(/^data:image\/png;base64,/);
    expect(kit.fake.cdn.requests).toHaveLength(1);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('ignores job URLs on another origin (rebuilt from the app id)', async () => {
    kit.fake.mode = 'foreign-urls';
    kit.fake.pendingPolls = 0;
    const result = await engine().generate(request());
    expect(result.width).toBe(180);
    expect(kit.fake.requests.filter((r) => r.url.pathname.endsWith('/status'))).toHaveLength(1);
  });

  it('maps durations and ratios; a text-only request to an image-to-video model is refused', async () => {
    kit.fake.mode = 'bad-request';
    await failure(engine().generate(request({ width: 640, height: 640, durationSeconds: 8 })));
    expect([posted().aspect_ratio, posted().duration]).toEqual(['1:1', '10']);
    kit.fake.requests.length = 0;
    const err = await failure(engine().generate(request({ startFrame: undefined })));
    expect(err.message).toMatch(/makes videos from a start frame/);
    expect(kit.fake.requests).toHaveLength(0);
  });

  it('a job failed on fal (error in the status) is non-retryable with the reason', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/fal\.ai reported the job failed: Kling task failed: image resolution too low/);
    expect(err.retryable).toBe(false);
  });

  it('422 is not retried; 429 then success; 503 retryable', async () => {
    kit.fake.mode = 'bad-request';
    const e422 = await failure(engine().generate(request()));
    expect(e422.message).toMatch(/HTTP 422.*Image dimensions are too small/);
    expect(e422.retryable).toBe(false);
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    kit.fake.requests.length = 0;
    await engine().generate(request());
    expect(kit.fake.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    kit.fake.mode = 'server-error';
    const e503 = await failure(engine().generate(request()));
    expect(e503.retryable).toBe(true);
  });

  it('not a video', async () => {
    kit.fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).retryable).toBe(false);
  });

  it('timeout and abort cancel the request', async () => {
    kit.fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, null).generate(request()));
    expect(err.message).toMatch(/did not finish the video/);
    expect(kit.fake.cancelled).toHaveLength(1);
    const ctl = new AbortController();
    const e = await rejection(engine({}, async () => ctl.abort()).generate(request({ signal: ctl.signal })));
    expect((e as Error).name).toBe('AbortError');
    expect(kit.fake.cancelled).toHaveLength(2);
  });
});

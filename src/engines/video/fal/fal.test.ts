import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../image/provider-http.ts';
import { type FalVideoFake, startFalVideoFake } from '../fakes/fal-video-fake.ts';
import { rejection, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createFalVideoEngine, type FalVideoSettings } from './fal.ts';

const KEY = 'fal-test-key-0123456789';
const MODEL = 'fal-ai/kling-video/v2.1/standard/image-to-video';
const PRO = 'fal-ai/kling-video/v2.1/pro/image-to-video';
const kit = useProviderTestKit<FalVideoFake>({
  name: 'fal-video-test',
  apiKey: KEY,
  start: startFalVideoFake,
  frame: { width: 360, height: 640, background: '#305070' },
  request: { prompt: 'The camera orbits the sneaker', width: 180, height: 320, durationSeconds: 2, fps: 25, seed: 11 },
  reset: (fake) => fake.resetFal(),
});
const { request, failure, posted } = kit;

const engine = (over: Partial<FalVideoSettings> = {}, sleeper?: Sleep | null) =>
  createFalVideoEngine(kit.settings({ storageBaseUrl: kit.fake.rest.origin, ...over }), kit.deps(sleeper));

const submits = () => kit.fake.requests.filter((r) => r.method === 'POST');
const resultGets = () =>
  kit.fake.requests.filter((r) => r.method === 'GET' && /\/requests\/[\w-]+$/.test(r.url.pathname));
const codes = (r: { warnings: { code: string }[] }) => r.warnings.map((w) => w.code);

describe('fal video engine', () => {
  it('submits, follows the queue, fetches video.url from the CDN without the key, conforms (portrait)', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe(`fal:${MODEL}`);
    const info = await probeClip(kit.dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 180, height: 320, fps: 25, frames: 50 });
    expect(Math.abs(info.seconds - 2)).toBeLessThanOrEqual(0.1);
    expect(codes(result)).toEqual(['PROVIDER_ASPECT_CROPPED', 'PROVIDER_UPSCALED']);

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
    // Kling v2.1 standard: { prompt, image_url, duration, negative_prompt, cfg_scale } — no aspect_ratio.
    expect(Object.keys(posted()).sort()).toEqual(['duration', 'image_url', 'prompt']);
    expect(posted()).toMatchObject({ prompt: 'The camera orbits the sneaker', duration: '5' });
    const downloads = kit.fake.cdn.requests.filter((r) => r.url.pathname.startsWith('/videos/'));
    expect(downloads).toHaveLength(1);
    expect(downloads[0]?.headers.authorization).toBeUndefined();
  });

  it('frames go to fal storage (initiate with the key, PUT without it) and the model gets file_url, never a data URI', async () => {
    await engine().generate(request());
    expect(kit.fake.rest.requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'POST /storage/upload/initiate?storage_type=fal-cdn-v3',
    ]);
    expect(kit.fake.rest.requests[0]?.headers.authorization).toBe(`Key ${KEY}`);
    expect(kit.fake.rest.requests[0]?.json).toEqual({ content_type: 'image/png', file_name: 'start-frame.png' });
    const put = kit.fake.cdn.requests.find((r) => r.method === 'PUT');
    expect(put?.headers.authorization).toBeUndefined();
    const up = kit.fake.uploads[0];
    expect(up?.bytes?.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(posted().image_url).toBe(`${kit.fake.cdn.origin}/files/${up?.token}/start-frame.png`);
  });

  it('an end frame on the standard model goes to v2.1 pro as tail_image_url (END_FRAME_MODEL)', async () => {
    const result = await engine().generate(request({ endFrame: kit.frame }));
    expect(submits().map((r) => r.url.pathname)).toEqual([`/${PRO}`]);
    expect(Object.keys(posted()).sort()).toEqual(['duration', 'image_url', 'prompt', 'tail_image_url']);
    expect(posted().tail_image_url).toMatch(/\/files\/[\w-]+\/end-frame\.png$/);
    expect(result.engine).toBe(`fal:${PRO}`);
    const w = result.warnings.find((x) => x.code === 'END_FRAME_MODEL');
    expect(w).toMatchObject({ severity: 'info' });
    expect(w?.message).toContain(MODEL);
    expect(w?.message).toContain(PRO);
    expect(kit.fake.requests[1]?.url.pathname).toMatch(/^\/fal-ai\/kling-video\/requests\/[\w-]+\/status$/);
  });

  it('endFrameModel names another model, or none drops the end frame (END_FRAME_UNSUPPORTED)', async () => {
    const turbo = 'fal-ai/kling-video/v2.5-turbo/pro/image-to-video';
    await engine({ endFrameModel: turbo }).generate(request({ endFrame: kit.frame }));
    expect(submits().map((r) => r.url.pathname)).toEqual([`/${turbo}`]);
    expect(posted().tail_image_url).toBeDefined();

    kit.fake.requests.length = 0;
    const dropped = await engine({ endFrameModel: 'none' }).generate(request({ endFrame: kit.frame }));
    expect(submits().map((r) => r.url.pathname)).toEqual([`/${MODEL}`]);
    expect(posted().tail_image_url).toBeUndefined();
    const w = dropped.warnings.find((x) => x.code === 'END_FRAME_UNSUPPORTED');
    expect(w).toMatchObject({ severity: 'warning' });
    expect(w?.message).toContain(MODEL);
  });

  it('the pro model takes the end frame itself', async () => {
    const result = await engine({ model: PRO }).generate(request({ endFrame: kit.frame }));
    expect(submits().map((r) => r.url.pathname)).toEqual([`/${PRO}`]);
    expect(posted().tail_image_url).toBeDefined();
    expect(codes(result)).not.toContain('END_FRAME_MODEL');
  });

  it('ignores job URLs on another origin (rebuilt from the app id)', async () => {
    kit.fake.mode = 'foreign-urls';
    kit.fake.pendingPolls = 0;
    const result = await engine().generate(request());
    expect(result.width).toBe(180);
    expect(kit.fake.requests.filter((r) => r.url.pathname.endsWith('/status'))).toHaveLength(1);
  });

  it('a namespaced app id without job URLs in the answer: status and result under comfy/owner/alias', async () => {
    kit.fake.falMode = 'no-urls';
    await engine({ model: 'comfy/acme/orbit-video/run' }).generate(request());
    const paths = kit.fake.requests.map((r) => r.url.pathname);
    expect(paths[0]).toBe('/comfy/acme/orbit-video/run');
    expect(paths.slice(1).every((p) => p.startsWith('/comfy/acme/orbit-video/requests/'))).toBe(true);
  });

  it('maps durations; aspect_ratio only for models that take one; a text-only request to an image-to-video model is refused', async () => {
    await engine().generate(request({ width: 640, height: 640, durationSeconds: 8 }));
    expect([posted().aspect_ratio, posted().duration]).toEqual([undefined, '10']);
    kit.fake.requests.length = 0;
    await engine({ model: 'fal-ai/some-video/text-to-video' }).generate(
      request({ width: 640, height: 640, startFrame: undefined }),
    );
    expect(posted()).toMatchObject({ aspect_ratio: '1:1', duration: '5' });
    expect(posted().image_url).toBeUndefined();
    kit.fake.requests.length = 0;
    const err = await failure(engine().generate(request({ startFrame: undefined })));
    expect(err.message).toMatch(/makes videos from a start frame/);
    expect(kit.fake.requests).toHaveLength(0);
  });

  it('a COMPLETED status with an error (as fal-py reads it) is non-retryable with the reason', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/fal\.ai reported the job failed: Kling task failed: image resolution too low/);
    expect(err.retryable).toBe(false);
  });

  it('a 422 from the result call is not retried; 429 then success; 503 retryable', async () => {
    kit.fake.mode = 'bad-request';
    const e422 = await failure(engine().generate(request()));
    expect(e422.message).toMatch(/HTTP 422\) while fetching the result: image_url: Image dimensions are too small/);
    expect(e422.retryable).toBe(false);
    expect(resultGets()).toHaveLength(1);
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    kit.fake.requests.length = 0;
    await engine().generate(request());
    expect(submits()).toHaveLength(2);
    kit.fake.mode = 'server-error';
    const e503 = await failure(engine().generate(request()));
    expect(e503.retryable).toBe(true);
  });

  it('a request error from the result call is read once: runner_disconnected, request_timeout', async () => {
    kit.fake.falMode = 'result-503';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /reported the job failed \(HTTP 503, runner_disconnected[^)]*\) while fetching the result: Runner disconnected/,
    );
    expect(err.retryable).toBe(true);
    expect(resultGets()).toHaveLength(1);
    kit.fake.requests.length = 0;
    kit.fake.falMode = 'result-504';
    const e504 = await failure(engine().generate(request()));
    expect(e504.message).toMatch(/HTTP 504, request_timeout.*: Request timed out/);
    expect(resultGets()).toHaveLength(1);
  });

  it('a submission answered 500 or cut off is not sent again', async () => {
    kit.fake.falMode = 'submit-500-once';
    await failure(engine().generate(request()));
    expect(submits()).toHaveLength(1);
    kit.fake.requests.length = 0;
    kit.fake.falMode = 'submit-drop';
    await failure(engine().generate(request()));
    expect(submits()).toHaveLength(1);
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
    expect(kit.fake.requests.filter((r) => r.method === 'PUT').map((r) => r.url.pathname)).toEqual(
      kit.fake.cancelled.map((id) => `/fal-ai/kling-video/requests/${id}/cancel`),
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { FakeRequest } from '../../image/fakes/fake-http.ts';
import type { Sleep } from '../../image/provider-http.ts';
import type { InputHost } from '../../image/provider-inputs.ts';
import { rejection, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { startReplicateVideoFake } from '../fakes/replicate-video-fake.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createReplicateVideoEngine, type ReplicateVideoSettings } from './replicate.ts';

const KEY = 'r8_video_test_0123456789abcdef';
const kit = useProviderTestKit({
  name: 'replicate-video-test',
  apiKey: KEY,
  start: startReplicateVideoFake,
  audio: true,
  frame: { width: 320, height: 180, background: '#705030' },
  request: { prompt: 'Steam rises from the cup', width: 320, height: 180, durationSeconds: 2.5, seed: -1 },
  reset: (fake) => {
    fake.fault = undefined;
    fake.files.length = 0;
    fake.uploads.length = 0;
    fake.ignoredInputs.length = 0;
  },
});
const { request, failure } = kit;

const engine = (over: Partial<ReplicateVideoSettings> = {}, sleeper?: Sleep | null, inputHost?: InputHost) =>
  createReplicateVideoEngine(kit.settings(over), { ...kit.deps(sleeper), ...(inputHost ? { inputHost } : {}) });

const isCreate = (r: FakeRequest) => r.method === 'POST' && r.url.pathname.endsWith('/predictions');
const creates = () => kit.fake.requests.filter(isCreate);
// biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field in tests
const input = (): any => creates()[0]?.json.input;
const fileUrl = (n: number) => expect.stringMatching(new RegExp(`^${kit.fake.origin}/v1/files/file${n}x`));

describe('replicate video engine: kwaivgi/kling-v2.1', () => {
  it('uploads the start frame, sends only what the model declares (no aspect_ratio, no seed), polls urls.get, conforms', async () => {
    const result = await engine().generate(request({ enableAudio: true }));
    expect(result.engine).toBe('replicate:kwaivgi/kling-v2.1');
    const info = await probeClip(kit.dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 320, height: 180, fps: 30, frames: 75, audio: 'aac' });
    expect(Math.abs(info.seconds - 2.5)).toBeLessThanOrEqual(0.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_PADDED']);
    const preview = await probeClip(kit.dir, result.preview);
    expect(preview.audio).toBeUndefined();

    const id = kit.fake.requests.at(-1)?.url.pathname.split('/').at(-1);
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /v1/files',
      'POST /v1/models/kwaivgi/kling-v2.1/predictions',
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
    ]);
    for (const r of kit.fake.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(input()).toEqual({ prompt: 'Steam rises from the cup', duration: 5, start_image: fileUrl(1) });
    expect(kit.fake.ignoredInputs).toEqual([]);
    expect(kit.fake.uploads).toEqual([{ name: 'start-frame.png', type: 'image/png' }]);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('an end frame runs the model in pro mode (end_image requires it), with an END_FRAME_MODEL info', async () => {
    const result = await engine({ extraInput: { mode: 'standard', negative_prompt: 'blur' } }).generate(
      request({ endFrame: kit.frame }),
    );
    expect(input()).toEqual({
      prompt: 'Steam rises from the cup',
      duration: 5,
      start_image: fileUrl(1),
      end_image: fileUrl(2),
      mode: 'pro',
      negative_prompt: 'blur',
    });
    expect(kit.fake.ignoredInputs).toEqual([]);
    expect(result.warnings).toContainEqual({
      code: 'END_FRAME_MODEL',
      severity: 'info',
      message: expect.stringMatching(/kling-v2\.1 takes an end frame only in mode "pro".*billed at the pro rate/),
    });
    const id = creates()[0] && kit.fake.requests.at(-1)?.url.pathname.split('/').at(-1);
    expect(kit.fake.predictions.get(id as string)?.end?.status).toBe('succeeded');
  });

  it('VIDEO_END_FRAME_MODEL=none drops the end frame (END_FRAME_UNSUPPORTED) and keeps standard mode', async () => {
    const result = await engine({ endFrameModel: 'none' }).generate(request({ endFrame: kit.frame }));
    expect(input()).toEqual({ prompt: 'Steam rises from the cup', duration: 5, start_image: fileUrl(1) });
    expect(kit.fake.files).toHaveLength(1);
    expect(result.warnings).toContainEqual({
      code: 'END_FRAME_UNSUPPORTED',
      severity: 'warning',
      message: expect.stringMatching(/not sent to kwaivgi\/kling-v2\.1/),
    });
  });

  it('VIDEO_END_FRAME_MODEL naming another model: requests with an end frame go there', async () => {
    const result = await engine({ endFrameModel: 'kwaivgi/kling-v1.6-pro' }).generate(request({ endFrame: kit.frame }));
    expect(result.engine).toBe('replicate:kwaivgi/kling-v1.6-pro');
    expect(creates()[0]?.url.pathname).toBe('/v1/models/kwaivgi/kling-v1.6-pro/predictions');
    expect(input()).toMatchObject({ start_image: fileUrl(1), end_image: fileUrl(2) });
    expect(input().mode).toBeUndefined();
    expect(result.warnings.map((w) => w.code)).toContain('END_FRAME_MODEL');
    // Without an end frame the configured model runs.
    kit.fake.requests.length = 0;
    expect((await engine({ endFrameModel: 'kwaivgi/kling-v1.6-pro' }).generate(request())).engine).toBe(
      'replicate:kwaivgi/kling-v2.1',
    );
  });

  it('a prompt-only request is refused before any call (start_image is required)', async () => {
    const err = await failure(engine().generate(request({ startFrame: undefined })));
    expect(err.message).toMatch(/start frame/);
    expect(err.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(0);
  });

  it('the fake, like the model, fails a prediction whose end_image comes without mode pro', async () => {
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const res = await fetch(`${kit.fake.origin}/v1/models/kwaivgi/kling-v2.1/predictions`, {
      method: 'POST',
      headers: { ...headers, prefer: 'wait=5' },
      body: JSON.stringify({
        input: { prompt: 'x', start_image: 'https://a.test/s.png', end_image: 'https://a.test/e.png', seed: 3 },
      }),
    });
    const p = (await res.json()) as { status: string; error: string };
    expect([res.status, p.status, p.error]).toEqual([201, 'failed', 'end_image is only supported on mode: pro']);
    expect(kit.fake.ignoredInputs).toEqual(['kwaivgi/kling-v2.1:seed']);
    const bad = await fetch(`${kit.fake.origin}/v1/models/kwaivgi/kling-v2.1/predictions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input: { prompt: 'x' } }),
    });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(await bad.json()).toEqual({
      type: 'about:blank',
      title: 'Input validation failed',
      status: 422,
      detail: '- input: start_image is required',
    });
  });
});

describe('replicate video engine: protocol', () => {
  it('version route, Prefer: wait, an unknown model with its settings (custom image field, aspect_ratio, seed)', async () => {
    const version = 'a'.repeat(64);
    await engine({ model: `owner/model:${version}`, waitSeconds: 60, imageInput: 'image' }).generate(
      request({ endFrame: undefined }),
    );
    const create = creates()[0];
    expect(create?.url.pathname).toBe('/v1/predictions');
    expect(create?.headers.prefer).toBe('wait=60');
    expect(create?.json.version).toBe(version);
    expect(input()).toEqual({
      prompt: 'Steam rises from the cup',
      duration: 5,
      aspect_ratio: '16:9',
      seed: 4294967295,
      image: fileUrl(1),
    });
    expect(kit.fake.requests.filter((r) => r.method === 'GET')).toHaveLength(0);
  });

  it('an unknown model may take a prompt-only request', async () => {
    await engine({ model: 'owner/text-video' }).generate(request({ startFrame: undefined }));
    expect(input().start_image).toBeUndefined();
    expect(kit.fake.files).toHaveLength(0);
  });

  it('frames go by our public link when this server has one (no upload)', async () => {
    const host: InputHost = { publish: async () => 'https://media.example.test/in/frame.png' };
    await engine({}, undefined, host).generate(request());
    expect(input().start_image).toBe('https://media.example.test/in/frame.png');
    expect(kit.fake.files).toHaveLength(0);
  });

  it('Prefer: wait that runs out goes on polling', async () => {
    kit.fake.fault = 'wait-expired';
    await engine({ waitSeconds: 10 }).generate(request());
    expect(kit.fake.requests.filter((r) => r.method === 'GET').length).toBeGreaterThan(0);
  });

  it('ignores urls.get / urls.cancel on another origin', async () => {
    kit.fake.mode = 'foreign-urls';
    await engine().generate(request());
    expect(kit.fake.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
  });

  it('a failed prediction carries its error, non-retryable', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /The Replicate prediction failed: Prediction failed: start_image must be at least 300px/,
    );
    expect(err.retryable).toBe(false);
  });

  it('an aborted prediction (never started, not charged) is retryable', async () => {
    kit.fake.fault = 'aborted';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/aborted before it started/);
    expect(err.retryable).toBe(true);
  });

  it('422 not retried; 429 then success; 5xx on create not re-sent; not a video', async () => {
    kit.fake.mode = 'bad-request';
    const e422 = await failure(engine().generate(request()));
    expect(e422.message).toMatch(/HTTP 422.*prompt is too long/);
    expect(e422.retryable).toBe(false);
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    kit.fake.requests.length = 0;
    await engine().generate(request());
    expect(kit.waits).toContain(1000);
    expect(creates()).toHaveLength(2);
    kit.fake.mode = 'server-error';
    kit.fake.requests.length = 0;
    expect((await failure(engine().generate(request()))).retryable).toBe(true);
    expect(creates()).toHaveLength(1);
    kit.fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an MP4 video/);
  });

  it('a create that was accepted but answered 500, or cut off, is never sent again', async () => {
    kit.fake.fault = 'created-then-5xx';
    const e500 = await failure(engine({ maxRetries: 3 }).generate(request()));
    expect(e500.message).toMatch(/HTTP 500 while creating the prediction/);
    expect(creates()).toHaveLength(1);
    expect(kit.fake.predictions.size).toBeGreaterThan(0);
    kit.fake.fault = 'reset-after-accept';
    kit.fake.requests.length = 0;
    const eReset = await failure(engine({ maxRetries: 3 }).generate(request()));
    expect(eReset.message).toMatch(/could not be reached while creating the prediction/);
    expect(creates()).toHaveLength(1);
  });

  it('an upload answered 5xx is retried (a duplicate upload is harmless)', async () => {
    kit.fake.fault = 'files-5xx-then-ok';
    await engine().generate(request());
    expect(kit.fake.requests.filter((r) => r.url.pathname === '/v1/files')).toHaveLength(2);
    expect(input().start_image).toEqual(fileUrl(1));
  });

  it('timeout and abort cancel the prediction through urls.cancel', async () => {
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

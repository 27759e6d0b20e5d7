import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../image/provider-http.ts';
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
    fake.files.length = 0;
  },
});
const { request, failure, posted } = kit;

const engine = (over: Partial<ReplicateVideoSettings> = {}, sleeper?: Sleep | null) =>
  createReplicateVideoEngine(kit.settings(over), kit.deps(sleeper));

describe('replicate video engine', () => {
  it('creates the prediction on the official model route, polls urls.get, keeps audio when asked, conforms', async () => {
    const result = await engine().generate(request({ enableAudio: true, endFrame: kit.frame }));
    expect(result.engine).toBe('replicate:kwaivgi/kling-v2.1');
    const info = await probeClip(kit.dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', width: 320, height: 180, fps: 30, frames: 75, audio: 'aac' });
    expect(Math.abs(info.seconds - 2.5)).toBeLessThanOrEqual(0.1);
    expect(result.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_PADDED']);
    const preview = await probeClip(kit.dir, result.preview);
    expect(preview.audio).toBeUndefined();

    const id = kit.fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /v1/models/kwaivgi/kling-v2.1/predictions',
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
    ]);
    for (const r of kit.fake.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    const input = posted().input;
    expect(input).toMatchObject({
      prompt: 'Steam rises from the cup',
      duration: 5,
      aspect_ratio: '16:9',
      seed: 4294967295,
    });
    expect(input.start_image).toMatch(/^data:image\/png;base64,/);
    expect(input.end_image).toMatch(/^data:image\/png;base64,/);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('version route, Prefer: wait, custom image field, large frames uploaded through /v1/files', async () => {
    const version = 'a'.repeat(64);
    await engine({
      model: `owner/model:${version}`,
      waitSeconds: 60,
      imageInput: 'image',
      dataUriMaxBytes: 10,
    }).generate(request({ endFrame: undefined }));
    const create = kit.fake.requests.find((r) => r.url.pathname === '/v1/predictions');
    expect(create?.headers.prefer).toBe('wait=60');
    expect(create?.json.version).toBe(version);
    expect(create?.json.input.image).toBe(`${kit.fake.origin}/v1/files/file-1`);
    expect(kit.fake.files).toHaveLength(1);
    expect(kit.fake.requests.filter((r) => r.method === 'GET')).toHaveLength(0);
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

  it('422 not retried; 429 then success; 500s retryable; not a video', async () => {
    kit.fake.mode = 'bad-request';
    const e422 = await failure(engine().generate(request()));
    expect(e422.message).toMatch(/HTTP 422.*prompt is too long/);
    expect(e422.retryable).toBe(false);
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    await engine().generate(request());
    expect(kit.waits).toContain(1000);
    kit.fake.mode = 'server-error';
    expect((await failure(engine().generate(request()))).retryable).toBe(true);
    kit.fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an MP4 video/);
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

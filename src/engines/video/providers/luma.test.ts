import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../image/provider-http.ts';
import { startLumaFake } from '../fakes/luma-fake.ts';
import { rejection, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createLumaVideoEngine, type FrameUrl, type LumaSettings } from './luma.ts';

const KEY = 'luma-test-key-0123456789';
const kit = useProviderTestKit({
  name: 'luma-test',
  apiKey: KEY,
  start: startLumaFake,
  frame: { width: 400, height: 300, background: '#a0c080' },
  request: {
    prompt: 'A bottle on a beach at dawn, gentle waves',
    width: 256,
    height: 144,
    durationSeconds: 1.2,
    fps: 30,
    seed: 3,
  },
});
const { request, failure, posted } = kit;

const engine = (over: Partial<LumaSettings> = {}, o: { sleeper?: Sleep | null; frameUrl?: FrameUrl } = {}) =>
  createLumaVideoEngine(kit.settings({ baseUrl: kit.fake.baseUrl, ...over }), {
    ...kit.deps(o.sleeper),
    ...(o.frameUrl ? { frameUrl: o.frameUrl } : {}),
  });

describe('luma video engine', () => {
  it('creates a generation with keyframes, polls to completed, downloads without the key, conforms', async () => {
    const given: string[] = [];
    const frameUrl: FrameUrl = async (png, which) => {
      given.push(`${which}:${(await sharp(png).metadata()).format}`);
      return which === 'start' ? 'https://frames.example.test/start.png' : undefined;
    };
    const result = await engine({}, { frameUrl }).generate(request({ endFrame: kit.frame, enableAudio: true }));
    expect(result.engine).toBe('luma:ray-2');
    const info = await probeClip(kit.dir, result.mp4);
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
    const id = kit.fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /dream-machine/v1/generations',
      `GET /dream-machine/v1/generations/${id}`,
      `GET /dream-machine/v1/generations/${id}`,
      `GET /dream-machine/v1/generations/${id}`,
    ]);
    for (const r of kit.fake.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(kit.fake.cdn.requests).toHaveLength(1);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('text only: no keyframes; ratio and duration mapping', async () => {
    kit.fake.mode = 'bad-request';
    const cases: [number, number, number, string, string][] = [
      [1080, 1920, 6, '9:16', '5s'],
      [2520, 1080, 7, '21:9', '9s'],
      [1200, 900, 12, '4:3', '9s'],
    ];
    for (const [width, height, durationSeconds, ratio, duration] of cases) {
      kit.fake.requests.length = 0;
      await failure(engine().generate(request({ width, height, durationSeconds, startFrame: undefined })));
      expect(posted().keyframes).toBeUndefined();
      expect([posted().aspect_ratio, posted().duration]).toEqual([ratio, duration]);
    }
  });

  it('a failed generation carries failure_reason, non-retryable', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/Luma reported the generation failed: The keyframe image could not be processed/);
    expect(err.retryable).toBe(false);
  });

  it('429 then success; 500s retried then retryable; 400 not retried', async () => {
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    await engine().generate(request());
    expect(kit.waits[0]).toBe(1000);
    kit.fake.mode = 'server-error';
    kit.fake.requests.length = 0;
    const e500 = await failure(engine({ maxRetries: 1 }).generate(request()));
    expect(e500.retryable).toBe(true);
    expect(kit.fake.requests).toHaveLength(2);
    kit.fake.mode = 'bad-request';
    kit.fake.requests.length = 0;
    const e400 = await failure(engine().generate(request()));
    expect(e400.message).toMatch(/HTTP 400.*prompt is too long/);
    expect(e400.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(1);
  });

  it('not a video', async () => {
    kit.fake.mode = 'not-a-video';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an MP4 video/);
  });

  it('a stuck generation times out and is deleted; an abort deletes it too', async () => {
    kit.fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, { sleeper: null }).generate(request()));
    expect(err.message).toMatch(/did not finish the video within 0.3 s/);
    expect(kit.fake.cancelled).toHaveLength(1);

    const ctl = new AbortController();
    const abortErr = await rejection(
      engine({}, { sleeper: async () => ctl.abort() }).generate(request({ signal: ctl.signal })),
    );
    expect((abortErr as Error).name).toBe('AbortError');
    expect(kit.fake.cancelled).toHaveLength(2);
  });

  it('refuses references without a start frame', async () => {
    const err = await failure(
      engine().generate(request({ startFrame: undefined, references: [{ kind: 'image', bytes: kit.frame }] })),
    );
    expect(err.message).toMatch(/no reference-to-video mode/);
    expect(kit.fake.requests).toHaveLength(0);
  });
});

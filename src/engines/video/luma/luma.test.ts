import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, NOT_AN_IMAGE, sendBytes, sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import type { Sleep } from '../../image/provider-http.ts';
import type { InputHost } from '../../image/provider-inputs.ts';
import { startLumaFake } from '../fakes/luma-fake.ts';
import { rejection, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createLumaVideoEngine, type LumaSettings } from './luma.ts';

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
  reset: (fake) => {
    fake.refuseRetry = false;
    fake.states.length = 0;
    fake.keyframeFetches.length = 0;
  },
});
const { request, failure, posted } = kit;

/**
 * Our side: an InputHost publishing bytes on a small local server (standing for this server's
 * public address), which the fake Luma fetches keyframes from.
 */
let inputs: FakeServer;
const files = new Map<string, { bytes: Buffer; contentType: string }>();
const published: { url: string; contentType: string; ttlSeconds: number; bytes: Buffer }[] = [];
const inputHost: InputHost = {
  publish: async (bytes, o) => {
    const path = `/inputs/${published.length + 1}.png`;
    files.set(path, { bytes, contentType: o.contentType });
    const url = `${inputs.origin}${path}`;
    published.push({ url, bytes, ...o });
    return url;
  },
};
beforeAll(async () => {
  inputs = await startFakeServer((req, res) => {
    const f = files.get(req.url.pathname);
    if (req.url.pathname === '/not-an-image.png') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
    return f ? sendBytes(res, f.bytes, f.contentType) : sendJson(res, 404, { error: 'Not found' });
  });
});
afterAll(() => inputs.close());

const engine = (over: Partial<LumaSettings> = {}, o: { sleeper?: Sleep | null; host?: InputHost | null } = {}) => {
  const host = o.host === undefined ? inputHost : o.host;
  return createLumaVideoEngine(kit.settings({ baseUrl: kit.fake.baseUrl, ...over }), {
    ...kit.deps(o.sleeper),
    ...(host ? { inputHost: host } : {}),
  });
};

/** A create sent straight to the fake (its own rules, whatever the adapter does). */
const create = (body: unknown, path = '/generations/video') =>
  fetch(`${kit.fake.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('luma video engine', () => {
  it('creates at POST /generations/video with both keyframes as links of ours, polls to completed, downloads without the key, conforms', async () => {
    const result = await engine().generate(request({ endFrame: kit.frame, enableAudio: true }));
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

    // Both frames published as PNG under our links, and sent as frame0 / frame1.
    const links = published.slice(-2);
    expect(links.map((l) => [l.contentType, l.ttlSeconds])).toEqual([
      ['image/png', 6 * 3600],
      ['image/png', 6 * 3600],
    ]);
    for (const l of links) expect((await sharp(l.bytes).metadata()).format).toBe('png');
    const body = posted();
    expect(body).toEqual({
      prompt: 'A bottle on a beach at dawn, gentle waves',
      model: 'ray-2',
      aspect_ratio: '16:9',
      resolution: '720p',
      duration: '5s',
      keyframes: {
        frame0: { type: 'image', url: links[0]?.url },
        frame1: { type: 'image', url: links[1]?.url },
      },
    });
    for (const f of Object.values(body.keyframes) as { url: string }[]) {
      expect(f.url.startsWith(`${inputs.origin}/inputs/`)).toBe(true);
    }
    // The fake fetched both, like Luma would, and found PNGs.
    expect(kit.fake.keyframeFetches.map((f) => [f.url, f.status, f.format])).toEqual([
      [links[0]?.url, 200, 'png'],
      [links[1]?.url, 200, 'png'],
    ]);
    expect(kit.fake.states).toEqual(['queued', 'dreaming', 'completed']);
    const id = kit.fake.requests[1]?.url.pathname.split('/').at(-1);
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /dream-machine/v1/generations/video',
      `GET /dream-machine/v1/generations/${id}`,
      `GET /dream-machine/v1/generations/${id}`,
      `GET /dream-machine/v1/generations/${id}`,
    ]);
    for (const r of kit.fake.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(kit.fake.cdn.requests).toHaveLength(1);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('without a public link for the frames: a clear non-retryable error and no call to Luma', async () => {
    const none: InputHost = { publish: async () => undefined };
    for (const host of [null, none]) {
      const err = await failure(engine({}, { host }).generate(request({ endFrame: kit.frame })));
      expect(err.message).toMatch(/Luma takes the start frame by URL.*ATELIER_PUBLIC_URL/);
      expect(err.retryable).toBe(false);
    }
    expect(kit.fake.requests).toHaveLength(0);
  });

  it('the fake, as Luma: create only at /generations/video; keyframes must be fetchable image URLs', async () => {
    const ok = { model: 'ray-2', prompt: 'x' };
    const legacy = await create(ok, '/generations');
    expect(legacy.status).toBe(405);
    expect(await legacy.json()).toEqual({ detail: 'Method Not Allowed' });
    expect((await create(ok)).status).toBe(201);

    const frame = (url: string) => ({ ...ok, keyframes: { frame0: { type: 'image', url } } });
    const refused = async (body: unknown) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      return ((await res.json()) as { detail: string }).detail;
    };
    expect(await refused(frame(`data:image/png;base64,${kit.frame.toString('base64')}`))).toMatch(
      /frame0.url must be a public http\(s\) URL/,
    );
    expect(await refused(frame(`${inputs.origin}/not-an-image.png`))).toMatch(/could not be fetched as an image/);
    expect(await refused(frame(`${inputs.origin}/missing.png`))).toMatch(/could not be fetched as an image/);
    expect(kit.fake.keyframeFetches.map((f) => f.status)).toEqual([200, 404]);
    expect(await refused({ ...ok, model: 'ray-1-6' })).toBe('Invalid model ray-1-6');
    expect(await refused({ prompt: 'x' })).toBe('model is required');
    expect(await refused({ ...ok, seed: 3 })).toBe('Unknown field(s): seed');
  });

  it('model table: ray-flash-2; resolutions checked at creation; an unknown model is sent as given', async () => {
    kit.fake.pendingPolls = 0;
    const flash = await engine({ model: 'ray-flash-2', resolution: '1080p' }).generate(request());
    expect(flash.engine).toBe('luma:ray-flash-2');
    expect(posted()).toMatchObject({ model: 'ray-flash-2', resolution: '1080p', duration: '5s' });

    expect(() => engine({ resolution: '8k' })).toThrow(/resolution "8k" is not one of ray-2's/);
    expect(() => engine({ durations: [] })).toThrow(/durations/);
    kit.fake.requests.length = 0;
    const noRes = await engine({ resolution: null }).generate(request());
    expect(noRes.engine).toBe('luma:ray-2');
    expect(posted().resolution).toBeUndefined();

    // Not in the table: accepted with ray-2's row; Luma refuses it (non-retryable, its reason shown).
    kit.fake.requests.length = 0;
    const err = await failure(engine({ model: 'ray-1-6', resolution: '8k' }).generate(request()));
    expect(err.message).toMatch(/HTTP 400.*Invalid model ray-1-6/);
    expect(err.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(1);
  });

  it('extraInput adds members but may not set model, keyframes or prompt', async () => {
    expect(() => engine({ extraInput: { model: 'ray-flash-2' } })).toThrow(/may not set model/);
    expect(() => engine({ extraInput: { keyframes: {}, prompt: 'y' } })).toThrow(/may not set keyframes, prompt/);
    kit.fake.pendingPolls = 0;
    await engine({ extraInput: { loop: true, resolution: '540p' } }).generate(request());
    expect(posted()).toMatchObject({ model: 'ray-2', loop: true, resolution: '540p' });
    expect(posted().keyframes.frame0.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/inputs\//);
  });

  it('a model without end frames: routed to VIDEO_END_FRAME_MODEL (default ray-2), or dropped with "none"', async () => {
    kit.fake.pendingPolls = 0;
    const routed = await engine({ model: 'ray-flash-2', endFrame: false }).generate(request({ endFrame: kit.frame }));
    expect(posted().model).toBe('ray-2');
    expect(Object.keys(posted().keyframes)).toEqual(['frame0', 'frame1']);
    expect(routed.engine).toBe('luma:ray-2');
    expect(routed.warnings).toContainEqual(expect.objectContaining({ code: 'END_FRAME_MODEL', severity: 'info' }));

    kit.fake.requests.length = 0;
    const dropped = await engine({ model: 'ray-flash-2', endFrame: false, endFrameModel: 'none' }).generate(
      request({ endFrame: kit.frame }),
    );
    expect(posted().model).toBe('ray-flash-2');
    expect(Object.keys(posted().keyframes)).toEqual(['frame0']);
    const w = dropped.warnings.find((x) => x.code === 'END_FRAME_UNSUPPORTED');
    expect(w).toMatchObject({ severity: 'warning' });
    expect(w?.message).toMatch(/ray-flash-2/);

    expect(() => engine({ model: 'ray-flash-2', endFrame: false, endFrameModel: 'ray-flash-2' })).toThrow(
      /end-frame model must be another one/,
    );
    kit.fake.requests.length = 0;
    const ray2 = await engine({ endFrame: false }).generate(request({ endFrame: kit.frame }));
    expect(Object.keys(posted().keyframes)).toEqual(['frame0']);
    expect(ray2.warnings.map((x) => x.code)).toContain('END_FRAME_UNSUPPORTED');
  });

  it('the prompt is sent whole (no limit in the spec)', async () => {
    kit.fake.mode = 'bad-request';
    const prompt = `${'a slow dolly over the dunes, '.repeat(300)}🌅`;
    await failure(engine().generate(request({ prompt })));
    expect(posted().prompt).toBe(prompt);
  });

  it('text only: no keyframes, no link; ratio and duration mapping', async () => {
    kit.fake.mode = 'bad-request';
    const before = published.length;
    const cases: [number, number, number, string, string][] = [
      [1080, 1920, 6, '9:16', '5s'],
      [2520, 1080, 7, '21:9', '9s'],
      [1200, 900, 12, '4:3', '9s'],
    ];
    for (const [width, height, durationSeconds, ratio, duration] of cases) {
      kit.fake.requests.length = 0;
      await failure(
        engine({}, { host: null }).generate(request({ width, height, durationSeconds, startFrame: undefined })),
      );
      expect(posted().keyframes).toBeUndefined();
      expect([posted().aspect_ratio, posted().duration]).toEqual([ratio, duration]);
    }
    expect(published.length).toBe(before);
  });

  it('a failed generation carries failure_reason, non-retryable', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/Luma reported the generation failed: The keyframe image could not be processed/);
    expect(err.retryable).toBe(false);
    expect(kit.fake.states).toEqual(['queued', 'dreaming', 'failed']);
  });

  it('retries as Luma’s SDK: 429 then success; 500s retried then retryable; 400 not retried', async () => {
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

  it('x-should-retry: false on a 500: one POST only', async () => {
    kit.fake.refuseRetry = true;
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/HTTP 500/);
    expect(kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /dream-machine/v1/generations/video',
    ]);
    expect(kit.waits).toEqual([]);
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
    expect(kit.fake.states.slice(0, 2)).toEqual(['queued', 'dreaming']);

    const ctl = new AbortController();
    const abortErr = await rejection(
      engine({}, { sleeper: async () => ctl.abort() }).generate(request({ signal: ctl.signal })),
    );
    expect((abortErr as Error).name).toBe('AbortError');
    expect(kit.fake.cancelled).toHaveLength(2);
    const deletes = kit.fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.url.pathname);
    expect(deletes).toEqual(kit.fake.cancelled.map((id) => `/dream-machine/v1/generations/${id}`));
  });

  it('refuses references without a start frame', async () => {
    const err = await failure(
      engine().generate(request({ startFrame: undefined, references: [{ kind: 'image', bytes: kit.frame }] })),
    );
    expect(err.message).toMatch(/no reference-to-video mode/);
    expect(kit.fake.requests).toHaveLength(0);
  });
});

import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProviderDeps, Sleep } from '../../image/provider-http.ts';
import { ContentPolicyError } from '../../image/provider-http.ts';
import type { InputHost } from '../../image/provider-inputs.ts';
import { rejection, solidImage, useProviderTestKit } from '../fakes/provider-test-kit.ts';
import { type RunwayFake, startRunwayFake } from '../fakes/runway-fake.ts';
import { probeClip } from '../fakes/video-media.ts';
import { createRunwayVideoEngine, type RunwaySettings } from './runway.ts';

const KEY = 'rw_test_key_0123456789abcdef';
const kit = useProviderTestKit<RunwayFake>({
  name: 'runway-test',
  apiKey: KEY,
  start: startRunwayFake,
  frame: { width: 640, height: 360, background: '#80a0c0' },
  request: { prompt: 'Slow push-in on the bottle', width: 320, height: 180, durationSeconds: 3, fps: 24, seed: 7 },
  reset: (fake) => fake.reset(),
});
const { request, failure } = kit;
let endFrame: Buffer;
let noisy: Buffer;
beforeAll(async () => {
  endFrame = await solidImage(640, 360, '#c0a080', 'jpeg');
  // Gaussian noise does not compress: a 2048×1152 PNG of ~7 MB (a data URI of ~9 MB).
  noisy = await sharp({
    create: {
      width: 2048,
      height: 1152,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
});

const engine = (over: Partial<RunwaySettings> = {}, sleeper?: Sleep | null, more: Partial<ProviderDeps> = {}) =>
  createRunwayVideoEngine(kit.settings(over), {
    ...kit.deps(sleeper),
    // The CDN and the presigned upload storage: other origins than the API.
    downloadFetcher: kit.fake.publicFetcher,
    ...more,
  });

/** The body of the (first) create call. */
// biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field in tests
const created = (): any =>
  kit.fake.requests.find((r) => r.method === 'POST' && r.url.pathname === '/v1/image_to_video')?.json;
const calls = () => kit.fake.requests.map((r) => `${r.method} ${r.url.pathname}`);
const codes = (r: { warnings: { code: string }[] }) => r.warnings.map((w) => w.code);
const dataUriImage = (uri: string) => Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
const size = async (bytes: Buffer) => {
  const m = await sharp(bytes).metadata();
  return [m.width, m.height];
};

/** An InputHost whose links the fake "fetches" (as Runway would). */
const linkHost = (base = 'https://inputs.atelier.test'): InputHost & { published: number } => {
  const host = {
    published: 0,
    async publish(bytes: Buffer) {
      const url = `${base}/provider-inputs/${++host.published}.png`;
      kit.fake.links.set(url, bytes);
      return url;
    },
  };
  return host;
};

describe('runway video engine: success', () => {
  it('uploads the frame, creates the task, polls PENDING → THROTTLED → RUNNING → SUCCEEDED and conforms the clip', async () => {
    kit.fake.pendingPolls = 3;
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
    expect(codes(result)).toEqual(['PROVIDER_ASPECT_CROPPED', 'DURATION_PADDED']);

    const id = kit.fake.requests.at(-1)?.url.pathname.split('/').at(-1);
    expect(calls()).toEqual([
      'POST /v1/uploads',
      'POST /v1/image_to_video',
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
      `GET /v1/tasks/${id}`,
    ]);
    for (const r of kit.fake.requests) {
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.headers['x-runway-version']).toBe('2024-11-06');
    }
    expect(kit.fake.requests[0]?.json).toEqual({ filename: 'start-frame.png', type: 'ephemeral' });
    // The presigned storage got the PNG without our key.
    expect(kit.fake.storage.requests).toHaveLength(1);
    const put = kit.fake.storage.requests[0];
    expect(put?.headers.authorization).toBeUndefined();
    expect(put?.headers['x-runway-version']).toBeUndefined();
    expect([...(put?.form?.keys() ?? [])]).toEqual(['key', 'policy', 'x-amz-signature', 'file']);

    const body = created();
    expect(body).toEqual({
      model: 'gen4_turbo',
      promptImage: 'runway://ephemeral/u1',
      promptText: 'Slow push-in on the bottle',
      ratio: '1280:720',
      duration: 3,
      seed: 7,
    });
    expect(await size(kit.fake.uploads.get('runway://ephemeral/u1') as Buffer)).toEqual([640, 360]);
    expect(kit.waits).toEqual([100, 150, 225]);
    expect(kit.fake.cdn.requests).toHaveLength(1);
    expect(kit.fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
    expect(kit.fake.cdn.requests[0]?.headers['x-runway-version']).toBeUndefined();
    expect(kit.fake.cancelled).toEqual([]);
  });

  it('gen4_turbo takes no end frame: sent with the start frame only, END_FRAME_UNSUPPORTED', async () => {
    kit.fake.pendingPolls = 0;
    const r = await engine().generate(request({ endFrame, intermediateFrames: [kit.frame] }));
    expect(r.engine).toBe('runway:gen4_turbo');
    expect(codes(r)).toEqual(expect.arrayContaining(['END_FRAME_UNSUPPORTED', 'INPUT_NOT_SENT']));
    const w = r.warnings.find((x) => x.code === 'END_FRAME_UNSUPPORTED');
    expect(w?.severity).toBe('warning');
    expect(w?.message).toMatch(/gen4_turbo takes only a first frame.*VIDEO_END_FRAME_MODEL=veo3\.1/);
    const body = created();
    expect(body.model).toBe('gen4_turbo');
    expect(body.promptImage).toBe('runway://ephemeral/u1');
    expect(JSON.stringify(body)).not.toContain('"last"');
    expect(kit.fake.uploads.size).toBe(1);
  });

  it('with endFrameModel veo3.1 the start and end frames go to veo3.1, with its ratio and duration, no seed', async () => {
    kit.fake.pendingPolls = 0;
    const r = await engine({ endFrameModel: 'veo3.1' }).generate(request({ endFrame }));
    expect(r.engine).toBe('runway:veo3.1');
    expect(codes(r)).toEqual(expect.arrayContaining(['END_FRAME_MODEL', 'SEED_NOT_SUPPORTED']));
    expect(codes(r)).not.toContain('END_FRAME_UNSUPPORTED');
    expect(r.warnings.find((x) => x.code === 'END_FRAME_MODEL')?.severity).toBe('info');
    expect(created()).toEqual({
      model: 'veo3.1',
      promptImage: [
        { uri: 'runway://ephemeral/u1', position: 'first' },
        { uri: 'runway://ephemeral/u2', position: 'last' },
      ],
      promptText: 'Slow push-in on the bottle',
      ratio: '1920:1080', // 16:9 both; the larger of equal ratios
      duration: 4,
      audio: false,
    });
    expect(await size(kit.fake.uploads.get('runway://ephemeral/u2') as Buffer)).toEqual([640, 360]);
  });

  it('a model that takes a last frame gets it directly; endFrameModel none drops it', async () => {
    kit.fake.pendingPolls = 0;
    const direct = await engine({ model: 'veo3.1_fast', endFrameModel: 'none' }).generate(request({ endFrame }));
    expect(codes(direct)).not.toContain('END_FRAME_UNSUPPORTED');
    expect(created().promptImage.map((i: { position: string }) => i.position)).toEqual(['first', 'last']);
    expect(created().model).toBe('veo3.1_fast');

    kit.fake.requests.length = 0;
    const none = await engine({ endFrameModel: 'none' }).generate(request({ endFrame }));
    expect(codes(none)).toContain('END_FRAME_UNSUPPORTED');
    expect(none.warnings.find((x) => x.code === 'END_FRAME_UNSUPPORTED')?.message).not.toMatch(/VIDEO_END_FRAME_MODEL/);
    expect(typeof created().promptImage).toBe('string');
  });

  it('an endFrameModel that takes no end frame either is a configuration error', () => {
    expect(() => engine({ endFrameModel: 'gen4.5' })).toThrow(/"gen4\.5" takes no end frame either; use veo3\.1/);
  });

  it("maps the size to the model's nearest ratio and the duration to its nearest allowed one", async () => {
    kit.fake.mode = 'bad-request'; // a valid body is still refused: only the create call is made
    const cases: [Partial<RunwaySettings>, number, number, number, string, number][] = [
      [{}, 1080, 1920, 8, '720:1280', 8],
      [{}, 1000, 1000, 7, '960:960', 7],
      [{}, 2100, 900, 7.5, '1584:672', 8],
      [{}, 1200, 900, 3, '1104:832', 3],
      [{}, 320, 180, 1, '1280:720', 2],
      [{}, 320, 180, 14, '1280:720', 10],
      [{ model: 'gen4.5' }, 832, 1104, 6, '832:1104', 6],
      [{ model: 'veo3' }, 1080, 1920, 3, '1080:1920', 8],
      [{ model: 'veo3.1' }, 1920, 1080, 5, '1920:1080', 6],
      [{ model: 'gemini_omni_flash' }, 1000, 1000, 2, '1280:720', 3],
    ];
    for (const [over, width, height, durationSeconds, ratio, duration] of cases) {
      kit.fake.requests.length = 0;
      kit.fake.rejected.length = 0;
      await failure(engine({ uploads: false, ...over }).generate(request({ width, height, durationSeconds })));
      expect([created().model, created().ratio, created().duration]).toEqual([
        over.model ?? 'gen4_turbo',
        ratio,
        duration,
      ]);
      // The fake found the body valid for that model.
      expect(kit.fake.rejected).toEqual([
        'Invalid asset aspect ratio. width / height ratio must be between 0.5 and 2.',
      ]);
    }
  });

  it('seed only for models that take it; audio as asked for veo3.1; gen4.5 needs a prompt', async () => {
    kit.fake.mode = 'bad-request';
    await failure(engine({ model: 'veo3', uploads: false }).generate(request()));
    expect(created()).not.toHaveProperty('seed');
    kit.fake.requests.length = 0;
    await failure(engine({ model: 'veo3.1', uploads: false }).generate(request({ enableAudio: true })));
    expect(created()).toMatchObject({ audio: true });
    expect(created()).not.toHaveProperty('seed');
    kit.fake.requests.length = 0;
    await failure(engine({ model: 'gen4.5', uploads: false }).generate(request({ seed: -1 })));
    expect(created()).toMatchObject({ seed: 4294967295, promptText: 'Slow push-in on the bottle', duration: 3 });

    kit.fake.requests.length = 0;
    const blank = await failure(engine({ model: 'gen4.5' }).generate(request({ prompt: '   ' })));
    expect(blank.message).toMatch(/gen4\.5 needs a prompt/);
    expect(blank.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(0);
  });

  it('extraInput cannot override the members the adapter sets, and is not sent to the end-frame model', async () => {
    kit.fake.pendingPolls = 0;
    const extraInput = { contentModeration: { publicFigureThreshold: 'low' }, model: 'gen3a_turbo', ratio: '1:1' };
    await engine({ extraInput, uploads: false }).generate(request());
    expect(created()).toMatchObject({
      model: 'gen4_turbo',
      ratio: '1280:720',
      contentModeration: { publicFigureThreshold: 'low' },
    });
    expect(kit.fake.rejected).toEqual([]);

    kit.fake.requests.length = 0;
    const routed = await engine({ extraInput, uploads: false, endFrameModel: 'veo3.1' }).generate(
      request({ endFrame }),
    );
    expect(created().model).toBe('veo3.1');
    expect(created()).not.toHaveProperty('contentModeration'); // veo3.1 takes none (the fake refuses it)
    expect(routed.warnings.find((w) => w.code === 'END_FRAME_MODEL')?.message).toMatch(/extra input .* not sent/);
    expect(kit.fake.rejected).toEqual([]);
  });

  it('a model this adapter does not know gets nothing it may not take (settings can widen that)', async () => {
    kit.fake.mode = 'bad-request';
    await failure(engine({ model: 'gen5_preview', uploads: false }).generate(request({ endFrame })));
    expect(created()).toMatchObject({ model: 'gen5_preview', ratio: '1280:720', duration: 5 });
    expect(created()).not.toHaveProperty('seed');
    expect(typeof created().promptImage).toBe('string');
    kit.fake.requests.length = 0;
    await failure(
      engine({ model: 'gen5_preview', uploads: false, capabilities: { seed: true, lastFrame: true } }).generate(
        request({ endFrame }),
      ),
    );
    expect(created()).toMatchObject({ seed: 7 });
    expect(created().promptImage).toHaveLength(2);
  });

  it('cuts the prompt to 1000 UTF-16 units without splitting a surrogate pair', async () => {
    kit.fake.pendingPolls = 0;
    const prompt = `${'a'.repeat(999)}😀 and more text after the emoji`;
    const r = await engine({ uploads: false }).generate(request({ prompt }));
    expect(created().promptText).toBe('a'.repeat(999));
    expect(codes(r)).toContain('PROMPT_TRUNCATED');
    expect(kit.fake.rejected).toEqual([]);
  });

  it('retries a 429 after Retry-After', async () => {
    kit.fake.mode = 'rate-limit-then-ok';
    kit.fake.pendingPolls = 0;
    await engine().generate(request());
    expect(kit.waits[0]).toBe(1000);
    expect(calls().filter((c) => c === 'POST /v1/image_to_video')).toHaveLength(2);
  });
});

describe('runway video engine: frames', () => {
  it('a noisy 2048×1152 frame goes by upload by default: never a data URI over 5 MB', async () => {
    kit.fake.pendingPolls = 0;
    await engine().generate(request({ startFrame: noisy }));
    expect(created().promptImage).toBe('runway://ephemeral/u1');
    const sent = kit.fake.uploads.get('runway://ephemeral/u1') as Buffer;
    expect(await size(sent)).toEqual([1280, 720]); // no larger than the output (1280:720)
    expect(kit.fake.rejected).toEqual([]);
  });

  it('without uploads: a PNG data URI when it fits, else a JPEG under 5 MB with INPUT_DEGRADED', async () => {
    kit.fake.pendingPolls = 0;
    const png = await engine({ uploads: false }).generate(request({ startFrame: noisy }));
    const uri = created().promptImage as string;
    expect(uri).toMatch(/^data:image\/png;base64,/);
    expect(uri.length).toBeLessThan(5 * 1024 * 1024);
    expect(codes(png)).not.toContain('INPUT_DEGRADED');

    kit.fake.requests.length = 0;
    // veo3.1 outputs 1920×1080: that PNG is ~6 MB, over the limit.
    const jpeg = await engine({ uploads: false, model: 'veo3.1' }).generate(request({ startFrame: noisy }));
    const big = created().promptImage as string;
    expect(big).toMatch(/^data:image\/jpeg;base64,/);
    expect(big.length).toBeLessThan(5 * 1024 * 1024);
    expect(await size(dataUriImage(big))).toEqual([1920, 1080]);
    const w = jpeg.warnings.find((x) => x.code === 'INPUT_DEGRADED');
    expect(w?.message).toMatch(/start frame was sent to Runway as a JPEG/);
    expect(kit.fake.rejected).toEqual([]);
    expect(kit.fake.storage.requests).toHaveLength(0);
  });

  it('with an inputHost the frames go by HTTPS link (no upload, no data URI)', async () => {
    kit.fake.pendingPolls = 0;
    const host = linkHost();
    await engine({ endFrameModel: 'veo3.1' }, undefined, { inputHost: host }).generate(request({ endFrame }));
    expect(created().promptImage).toEqual([
      { uri: 'https://inputs.atelier.test/provider-inputs/1.png', position: 'first' },
      { uri: 'https://inputs.atelier.test/provider-inputs/2.png', position: 'last' },
    ]);
    expect(calls()).not.toContain('POST /v1/uploads');
    expect(kit.fake.storage.requests).toHaveLength(0);
  });

  it('a link Runway cannot fetch (http, an IP address) is not sent: the upload is used', async () => {
    kit.fake.pendingPolls = 0;
    for (const base of ['http://inputs.atelier.test', 'https://203.0.113.9']) {
      kit.fake.requests.length = 0;
      kit.fake.uploads.clear();
      await engine({}, undefined, { inputHost: linkHost(base) }).generate(request());
      expect(created().promptImage).toMatch(/^runway:\/\//);
    }
  });

  it('a frame wider than 2:1 is cropped to 2:1 (Runway takes 0.5–2); a tall one to the ratio', async () => {
    kit.fake.pendingPolls = 0;
    const wide = await solidImage(1400, 600, '#406080'); // 2.33, as the 21:9 request
    await engine().generate(request({ startFrame: wide, width: 700, height: 300 }));
    expect(created().ratio).toBe('1584:672');
    expect(await size(kit.fake.uploads.get(created().promptImage) as Buffer)).toEqual([1200, 600]);
    expect(kit.fake.rejected).toEqual([]);

    kit.fake.requests.length = 0;
    const tall = await solidImage(400, 1000, '#406080');
    await engine().generate(request({ startFrame: tall, width: 180, height: 320 }));
    expect(created().ratio).toBe('720:1280');
    expect(await size(kit.fake.uploads.get(created().promptImage) as Buffer)).toEqual([400, 711]);
  });

  it('a frame under 512 bytes (the uploads minimum) goes as a data URI', async () => {
    kit.fake.pendingPolls = 0;
    const tiny = await sharp({ create: { width: 32, height: 18, channels: 3, background: '#000' } })
      .png({ palette: true })
      .toBuffer();
    expect(tiny.length).toBeLessThan(512);
    await engine().generate(request({ startFrame: tiny }));
    expect(created().promptImage).toMatch(/^data:image\/png;base64,/);
    expect(calls()).not.toContain('POST /v1/uploads');
  });
});

describe('runway video engine: failures', () => {
  it('a FAILED task with an INTERNAL.* code is retryable (Runway: "You may retry")', async () => {
    kit.fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /Runway reported the task failed \(INTERNAL\.BAD_OUTPUT\.CODE01\): An unexpected error occurred/,
    );
    expect(err.retryable).toBe(true);
  });

  it('a FAILED task with a SAFETY.* code is a content-policy refusal (not retryable)', async () => {
    kit.fake.mode = 'failed';
    kit.fake.variant = 'failed-safety';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/content policy.*flagged by our moderation/);
    expect(err.retryable).toBe(false);
  });

  it('a FAILED task without a failureCode is not retryable and says why', async () => {
    kit.fake.mode = 'failed';
    kit.fake.variant = 'failed-no-code';
    const err = await failure(engine().generate(request()));
    expect(err.message).toBe('Runway reported the task failed: The generation failed.');
    expect(err.retryable).toBe(false);
  });

  it('a 400 is not retried and carries the reason', async () => {
    kit.fake.mode = 'bad-request';
    const err = await failure(engine({ uploads: false }).generate(request()));
    expect(err.message).toMatch(/rejected the request \(HTTP 400\).*Invalid asset aspect ratio/);
    expect(err.retryable).toBe(false);
    expect(kit.fake.requests).toHaveLength(1);
  });

  it('5xx is retried, then retryable', async () => {
    kit.fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 502 while creating the task, after 3 attempts/);
    expect(err.retryable).toBe(true);
    expect(calls().filter((c) => c === 'POST /v1/image_to_video')).toHaveLength(3);
  });

  it('x-should-retry: false is obeyed: one create call', async () => {
    kit.fake.mode = 'server-error';
    kit.fake.variant = 'no-retry';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 502 while creating the task/);
    expect(err.message).not.toMatch(/attempts/);
    expect(calls().filter((c) => c === 'POST /v1/image_to_video')).toHaveLength(1);
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
    const err = await failure(engine({ timeoutMs: 600, pollIntervalMs: 20 }, undefined).generate(request()));
    expect(err.message).toMatch(/did not finish the video within 0.6 s/);
    expect(err.retryable).toBe(true);
    expect(kit.fake.cancelled).toHaveLength(1);
    expect(kit.fake.requests.at(-1)?.method).toBe('DELETE');
  });

  it('a task cancelled elsewhere (CANCELLED after a DELETE) fails without a retry', async () => {
    kit.fake.pendingPolls = 5;
    const deleteOnce: Sleep = async () => {
      if (kit.fake.cancelled.length) return;
      const id = kit.fake.requests.at(-1)?.url.pathname.split('/').at(-1);
      await kit.fake.fetcher.fetch(`${kit.fake.origin}/v1/tasks/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${KEY}`, 'x-runway-version': '2024-11-06' },
        throwOnHttpError: false,
      });
    };
    const err = await failure(engine({}, deleteOnce).generate(request()));
    expect(err.message).toMatch(/task was cancelled or deleted/);
    expect(err.retryable).toBe(false);
    expect(kit.fake.cdn.requests).toHaveLength(0);
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

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VIDEO_TEMPLATE } from '../../image/comfyui/comfy-client.ts';
import { type ComfyFake, startComfyUiFake } from '../../image/fakes/comfyui-fake.ts';
import type { ComfyWorkflow } from '../../image/index.ts';
import { GenerationError } from '../../image/scene-engine.ts';
import { rejection, solidImage } from '../fakes/provider-test-kit.ts';
import { makeTestMp4, probeClip } from '../fakes/video-media.ts';
import { createVideoEngine, VIDEO_PROVIDERS } from '../index.ts';
import type { VideoRequest } from '../video-engine.ts';
import { type ComfyUiVideoSettings, createComfyUiVideoEngine, frameCount, videoGenerationSize } from './comfyui.ts';

let dir: string;
let fake: ComfyFake;
let frame: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'comfyui-video-'));
  const mp4 = await fs.readFile(await makeTestMp4(dir, { seconds: 2, width: 320, height: 176, fps: 24 }));
  fake = await startComfyUiFake({ mp4 });
  frame = await solidImage(640, 360, '#80a0c0');
});
afterAll(async () => {
  await fake.close();
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.reset();
  waits.length = 0;
});

const engine = (over: Partial<ComfyUiVideoSettings> = {}, sleeper: ((ms: number) => Promise<void>) | null = sleep) =>
  createComfyUiVideoEngine(
    { baseUrl: fake.origin, timeoutMs: 20_000, retryBaseMs: 5, pollIntervalMs: 100, ...over },
    { fetcher: fake.fetcher, ...(sleeper ? { sleep: sleeper } : {}) },
  );

const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'Slow push-in on the bottle',
  width: 320,
  height: 180,
  durationSeconds: 3,
  fps: 24,
  seed: 7,
  startFrame: frame,
  ...over,
});

async function failure(p: Promise<unknown>): Promise<GenerationError> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(GenerationError);
  return err as GenerationError;
}

const calls = () => fake.requests.map((r) => `${r.method} ${r.url.pathname}`);
const promptBody = () => fake.requests.find((r) => r.url.pathname === '/prompt')?.json;

describe('comfyui video engine (shipped Wan 2.2 image-to-video template)', () => {
  it('uploads the start frame, fills size, frames and fps, reads the MP4 from images+animated and conforms it', async () => {
    const video = createVideoEngine(
      { provider: 'comfyui', baseUrl: fake.origin, pollIntervalMs: 100 },
      { fetcher: fake.fetcher, sleep },
    );
    expect(video.name).toBe('comfyui:image-to-video');
    const result = await video.generate(request());
    expect(result.engine).toBe('comfyui:image-to-video');
    expect([result.width, result.height, result.fps, result.durationSeconds]).toEqual([320, 180, 24, 3]);
    const info = await probeClip(dir, result.mp4);
    expect(info).toMatchObject({ codec: 'h264', pixFmt: 'yuv420p', width: 320, height: 180, frames: 72 });
    expect(result.warnings.map((w) => w.code)).toContain('DURATION_PADDED');

    expect(calls()).toEqual([
      'POST /upload/image',
      'POST /prompt',
      expect.stringMatching(/^GET \/history\//),
      expect.stringMatching(/^GET \/history\//),
      expect.stringMatching(/^GET \/history\//),
      'GET /view',
    ]);
    const start = fake.requests[0]?.form?.get('image') as File;
    expect(start.name).toMatch(/^atelier-start-[0-9a-f]{16}\.png$/);
    const body = promptBody();
    expect(body.prompt_id).toMatch(/^[0-9a-f-]{36}$/);
    const wf = body.prompt as ComfyWorkflow;
    expect(wf['4']?.inputs.image).toBe(start.name);
    // 16:9 at Wan 2.2 5B's 1280×704 budget, multiples of 32; 3 s at 24 fps → 73 = 1 + 4·18 frames.
    expect(wf['8']?.inputs).toMatchObject({ width: 1280, height: 704, length: 73, batch_size: 1 });
    expect(wf['11']?.inputs.fps).toBe(24);
    expect(wf['9']?.inputs.seed).toBe(7);
    expect(wf['5']?.inputs.text).toBe('Slow push-in on the bottle');
    expect(wf['6']?.inputs.text).toMatch(/^static frame, blurry/);
    // SaveVideo: ComfyUI answers { images: [{ …mp4 }], animated: [true] } (comfy_api/latest/_ui.py:427-432).
    const id = body.prompt_id as string;
    expect(fake.history(id)?.outputs['12']).toEqual({
      images: [{ filename: expect.stringMatching(/^video_\d{5}_\.mp4$/), subfolder: 'atelier', type: 'output' }],
      animated: [true],
    });
    const view = fake.requests.at(-1)?.url.searchParams;
    expect([view?.get('subfolder'), view?.get('type')]).toEqual(['atelier', 'output']);
    expect(view?.get('filename')).toMatch(/\.mp4$/);
  });

  it('drops an end frame the workflow does not take, with END_FRAME_UNSUPPORTED', async () => {
    fake.runPolls = 1;
    const end = await solidImage(640, 360, '#c0a080');
    const result = await engine().generate(request({ endFrame: end }));
    const w = result.warnings.find((x) => x.code === 'END_FRAME_UNSUPPORTED');
    expect(w?.severity).toBe('warning');
    expect(w?.message).toMatch(/workflow image-to-video takes no end frame/);
    expect(calls().filter((c) => c === 'POST /upload/image')).toHaveLength(1);
  });

  it('uploads the end frame for a workflow with {{end_image}}', async () => {
    fake.runPolls = 1;
    const wf = JSON.parse(await fs.readFile(VIDEO_TEMPLATE, 'utf8')) as ComfyWorkflow;
    wf['20'] = { class_type: 'LoadImage', inputs: { image: '{{end_image}}' } };
    wf['21'] = { class_type: 'PreviewImage', inputs: { images: ['20', 0] } };
    const end = await solidImage(640, 360, '#c0a080');
    const result = await engine({ workflow: wf }).generate(request({ endFrame: end }));
    expect(result.warnings.map((x) => x.code)).not.toContain('END_FRAME_UNSUPPORTED');
    const names = fake.requests
      .filter((r) => r.url.pathname === '/upload/image')
      .map((r) => (r.form?.get('image') as File | undefined)?.name);
    expect(names).toEqual([expect.stringMatching(/^atelier-start-/), expect.stringMatching(/^atelier-end-/)]);
  });

  it('a workflow saving WEBM only: a clear error naming SaveVideo', async () => {
    const wf = JSON.parse(await fs.readFile(VIDEO_TEMPLATE, 'utf8')) as ComfyWorkflow;
    delete wf['11'];
    wf['12'] = {
      class_type: 'SaveWEBM',
      inputs: { images: ['10', 0], filename_prefix: 'atelier/clip', codec: 'vp9', fps: '{{fps}}', crf: 32 },
    };
    const err = await failure(engine({ workflow: wf }).generate(request()));
    expect(err.message).toMatch(/saved the video as \.webm; Atelier reads MP4: save it with SaveVideo/);
  });

  it('an abort while the prompt runs: queue delete, then interrupt with our prompt_id', async () => {
    const ctl = new AbortController();
    let n = 0;
    const err = await rejection(
      engine({}, async () => {
        if (++n === 2) ctl.abort();
      }).generate(request({ signal: ctl.signal })),
    );
    expect((err as Error).name).toBe('AbortError');
    const id = promptBody().prompt_id as string;
    expect(calls().slice(-3)).toEqual(['POST /queue', 'GET /queue', 'POST /interrupt']);
    expect(fake.requests.at(-1)?.json).toEqual({ prompt_id: id });
    expect(fake.interrupts).toEqual([{ promptId: id, interrupted: id }]);
  });

  it('an abort while pending behind another prompt: delete only', async () => {
    const other = fake.occupy();
    const ctl = new AbortController();
    await rejection(engine({}, async () => ctl.abort()).generate(request({ signal: ctl.signal })));
    const id = promptBody().prompt_id as string;
    expect(fake.removed).toEqual([id]);
    expect(calls()).not.toContain('POST /interrupt');
    expect(fake.queue().running).toEqual([other]);
  });

  it('a lost prompt fails fast instead of polling for 30 minutes', async () => {
    fake.mode = 'lost';
    const err = await failure(engine({ timeoutMs: undefined }).generate(request()));
    expect(err.message).toMatch(/ComfyUI lost the workflow/);
    expect(err.retryable).toBe(true);
    expect(waits).toEqual([100, 150]);
  });

  it('times out with the video wording and cancels', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, null).generate(request()));
    expect(err.message).toMatch(/ComfyUI did not finish the video within 0.3 s/);
    const id = promptBody().prompt_id as string;
    expect(fake.deleted).toEqual([id]);
    expect(fake.interrupts).toEqual([{ promptId: id, interrupted: id }]);
  });

  it('refuses a request without a start frame before any call, and a workflow without {{start_image}}', async () => {
    const err = await failure(engine().generate(request({ startFrame: undefined })));
    expect(err.message).toMatch(/start frame/);
    expect(fake.requests).toHaveLength(0);
    expect(() => engine({ workflow: { '1': { class_type: 'SaveVideo', inputs: {} } } })).toThrow(/\{\{start_image\}\}/);
  });
});

describe('comfyui video settings', () => {
  it('VIDEO_ENGINE=comfyui needs no key; COMFYUI_URL and COMFYUI_VIDEO_WORKFLOW_FILE are mapped', () => {
    expect(VIDEO_PROVIDERS.parse({ VIDEO_ENGINE: 'comfyui' })).toEqual({ provider: 'comfyui' });
    expect(
      VIDEO_PROVIDERS.parse({
        VIDEO_ENGINE: 'comfyui',
        COMFYUI_URL: 'http://gpu:8188',
        COMFYUI_VIDEO_WORKFLOW_FILE: '/w/i2v.json',
        VIDEO_API_KEY: 'proxy-token',
        VIDEO_TIMEOUT_SECONDS: '3600',
        VIDEO_MAX_RETRIES: '1',
        VIDEO_API_BASE_URL: 'http://ignored:1',
      }),
    ).toEqual({
      provider: 'comfyui',
      baseUrl: 'http://gpu:8188',
      workflow: '/w/i2v.json',
      apiKey: 'proxy-token',
      timeoutMs: 3_600_000,
      maxRetries: 1,
    });
    expect(VIDEO_TEMPLATE).toMatch(/config\/comfyui\/image-to-video\.json$/);
  });
});

describe('comfyui video sizes and frames', () => {
  it('frames are 1 + 4k for the duration at the model fps, at most maxFrames', () => {
    expect(frameCount(5, 24, 4, 121)).toBe(121);
    expect(frameCount(3, 24, 4, 121)).toBe(73);
    expect(frameCount(10, 24, 4, 121)).toBe(121);
    expect(frameCount(5, 16, 4, 81)).toBe(81);
    expect(frameCount(0.1, 24, 4, 121)).toBe(5);
  });

  it('the generation size keeps the aspect at the pixel budget, in multiples of 32', () => {
    expect(videoGenerationSize(1920, 1080, { maxPixels: 1280 * 704, multiple: 32 })).toEqual({
      width: 1280,
      height: 704,
    });
    expect(videoGenerationSize(1080, 1920, { maxPixels: 1280 * 704, multiple: 32 })).toEqual({
      width: 704,
      height: 1280,
    });
    expect(videoGenerationSize(1024, 1024, { maxPixels: 1280 * 704, multiple: 32 })).toEqual({
      width: 960,
      height: 960,
    });
  });
});

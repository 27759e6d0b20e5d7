import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ComfyFake, SAMPLE_WORKFLOW, startComfyUiFake } from '../fakes/comfyui-fake.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import {
  type ComfyUiSettings,
  type ComfyWorkflow,
  createComfyUiSceneEngine,
  loadWorkflow,
  substitute,
} from './comfyui-engine.ts';

let fake: ComfyFake;
let product: Buffer;
let tmp: string;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  fake = await startComfyUiFake();
  product = await sharp({ create: { width: 200, height: 320, channels: 4, background: '#a02060ff' } })
    .png()
    .toBuffer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-comfy-'));
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
  fake.prompts.length = 0;
  fake.deleted.length = 0;
  waits.length = 0;
});

const engine = (over: Partial<ComfyUiSettings> = {}, realSleep = false) =>
  createComfyUiSceneEngine(
    { baseUrl: fake.origin, workflow: SAMPLE_WORKFLOW, timeoutMs: 3000, retryBaseMs: 5, pollIntervalMs: 50, ...over },
    { fetcher: fake.fetcher, ...(realSleep ? {} : { sleep }) },
  );

function request(over: Partial<SceneRequest> = {}): SceneRequest {
  return {
    prompt: 'a ceramic mug on a sunny windowsill',
    aspectRatio: '16:9',
    ...outputSize('16:9', 1600),
    variationIndex: 3,
    seed: 123456789,
    products: [{ bytes: product }],
    palette: ['#a02060', '#ffffff'],
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<GenerationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GenerationError);
  return err as GenerationError;
}

describe('comfyui scene engine: happy paths', () => {
  it('uploads the product, queues the substituted workflow, polls history and views the output', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('comfyui:workflow');
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 900]);
    expect(result.warnings.map((w) => w.code)).toEqual(['PRODUCT_PLACEMENT_UNKNOWN']);

    const calls = fake.requests.map((r) => `${r.method} ${r.url.pathname}`);
    expect(calls).toEqual([
      'POST /upload/image',
      'POST /prompt',
      expect.stringMatching(/^GET \/history\/[\w-]+$/),
      expect.stringMatching(/^GET \/history\/[\w-]+$/),
      expect.stringMatching(/^GET \/history\/[\w-]+$/),
      'GET /view',
    ]);
    expect(waits).toEqual([50, 75]);

    const up = fake.requests[0];
    const file = up?.form?.get('image') as File;
    expect(file.name).toMatch(/^atelier-product-1-[0-9a-f]{16}\.png$/);
    expect(up?.form?.get('type')).toBe('input');
    expect(up?.form?.get('overwrite')).toBe('true');

    const body = fake.requests[1]?.json;
    expect(typeof body.client_id).toBe('string');
    const wf = body.prompt as ComfyWorkflow;
    expect(wf['3']?.inputs.seed).toBe(123456789);
    expect(wf['5']?.inputs).toEqual({ width: 1600, height: 900, batch_size: 1 });
    expect(wf['6']?.inputs.text).toBe(
      'product photo, a ceramic mug on a sunny windowsill, brand colours #a02060, #ffffff',
    );
    expect(wf['10']?.inputs.image).toBe(file.name);
    expect(wf['3']?.inputs.model).toEqual(['4', 0]);
    // The engine's copy is untouched.
    expect(SAMPLE_WORKFLOW['3']?.inputs.seed).toBe('{{seed}}');

    const view = fake.requests[5]?.url.searchParams;
    expect(view?.get('filename')).toBe('atelier_1600x900_00001_.png');
    expect(view?.get('subfolder')).toBe('');
    expect(view?.get('type')).toBe('output');
  });

  it('a workflow file with a fixed 1024×1024 size: cropped to the exact requested size', async () => {
    const fixed = structuredClone(SAMPLE_WORKFLOW);
    (fixed['5'] as { inputs: Record<string, unknown> }).inputs = { width: 1024, height: 1024, batch_size: 1 };
    (fixed['10'] as { inputs: Record<string, unknown> }).inputs = { image: '{{backdrop_image}}' };
    const file = path.join(tmp, 'square-scene.json');
    fs.writeFileSync(file, JSON.stringify(fixed));
    const backdrop = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#808080' } })
      .jpeg()
      .toBuffer();
    const size = outputSize('9:16', 1600);
    const result = await engine({ workflow: file }).generate(request({ aspectRatio: '9:16', ...size, backdrop }));
    expect(result.engine).toBe('comfyui:square-scene');
    const meta = await sharp(result.png).metadata();
    expect([meta.width, meta.height]).toEqual([size.width, size.height]);
    expect(result.warnings.map((w) => w.code)).toContain('PROVIDER_ASPECT_CROPPED');
    const uploaded = fake.requests[0]?.form?.get('image') as File;
    expect(uploaded.name).toMatch(/^atelier-backdrop-/);
  });

  it('Bearer auth for a proxy in front of ComfyUI; a wrong token is refused', async () => {
    const guarded = await startComfyUiFake('proxy-token-0123456789');
    try {
      const make = (apiKey: string) =>
        createComfyUiSceneEngine(
          { baseUrl: guarded.origin, workflow: SAMPLE_WORKFLOW, apiKey, pollIntervalMs: 10 },
          { fetcher: guarded.fetcher, sleep },
        );
      const ok = await make('proxy-token-0123456789').generate(request());
      expect(ok.width).toBe(1600);
      for (const r of guarded.requests) expect(r.headers.authorization).toBe('Bearer proxy-token-0123456789');
      const err = await failure(make('proxy-token-wrong-000').generate(request()));
      expect(err.message).toMatch(/ComfyUI refused the API key \(HTTP 401\) while uploading the product image 1/);
      expect(err.message).not.toContain('proxy-token');
    } finally {
      await guarded.close();
    }
  });
});

describe('comfyui workflow checks', () => {
  it('substitutes numbers alone and text inside strings, leaves node links alone', () => {
    expect(
      substitute({ a: '{{seed}}', b: 'x {{seed}} y', c: ['4', 0], d: '{{ prompt }}' }, { seed: 5, prompt: 'p' }),
    ).toEqual({
      a: 5,
      b: 'x 5 y',
      c: ['4', 0],
      d: 'p',
    });
  });

  it('refuses unknown placeholders, UI-format workflows and unreadable files at creation', () => {
    expect(() => loadWorkflow({ '1': { class_type: 'X', inputs: { t: '{{negative}}' } } })).toThrow(
      /unknown placeholders: \{\{negative\}\}/,
    );
    expect(() => loadWorkflow({ nodes: [], links: [] } as unknown as ComfyWorkflow)).toThrow(/API format/);
    expect(() => loadWorkflow({ '1': { inputs: {} } } as unknown as ComfyWorkflow)).toThrow(/class_type/);
    expect(() => loadWorkflow(path.join(tmp, 'missing.json'))).toThrow(/cannot be read/);
  });

  it('a request without the backdrop the workflow needs', async () => {
    const wf = structuredClone(SAMPLE_WORKFLOW);
    (wf['10'] as { inputs: Record<string, unknown> }).inputs = { image: '{{backdrop_image}}' };
    const err = await failure(engine({ workflow: wf }).generate(request()));
    expect(err.message).toMatch(/needs a backdrop/);
    expect(fake.requests).toHaveLength(0);
  });

  it('a request without the second product the workflow needs', async () => {
    const wf = structuredClone(SAMPLE_WORKFLOW);
    wf['11'] = { class_type: 'LoadImage', inputs: { image: '{{product_image_2}}' } };
    const err = await failure(engine({ workflow: wf }).generate(request()));
    expect(err.message).toMatch(/needs product image 2 .* has 1 product/);
  });
});

describe('comfyui scene engine: failures', () => {
  it('a workflow that does not validate (HTTP 400 with node_errors)', async () => {
    fake.mode = 'invalid-workflow';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /ComfyUI rejected the workflow: Prompt outputs failed validation; node 4 \(CheckpointLoaderSimple\): Value not in list: ckpt_name/,
    );
    expect(err.retryable).toBe(false);
  });

  it('an execution error reported in the history status', async () => {
    fake.mode = 'execution-error';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/ComfyUI failed in node 3 \(KSampler\): CUDA out of memory/);
  });

  it('a prompt that never finishes times out and is deleted from the queue', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, true).generate(request()));
    expect(err.message).toMatch(/ComfyUI did not finish the image within 0.3 s/);
    expect(fake.deleted).toHaveLength(1);
  });

  it('500 after retries', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 1 }).generate(request()));
    expect(err.message).toMatch(
      /ComfyUI failed with HTTP 500 while queueing the workflow, after 2 attempts: CUDA driver not found/,
    );
  });

  it('a slow server times out', async () => {
    fake.mode = 'slow';
    expect((await failure(engine({ timeoutMs: 300 }).generate(request()))).message).toMatch(/within 0.3 s/);
  });

  it('malformed history JSON', async () => {
    fake.mode = 'malformed-json';
    expect((await failure(engine().generate(request()))).message).toMatch(/not JSON while checking the workflow/);
  });

  it('a finished workflow without an image', async () => {
    fake.mode = 'no-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/without an image .*SaveImage/);
  });

  it('an output that is not an image', async () => {
    fake.mode = 'not-an-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an image/);
  });
});

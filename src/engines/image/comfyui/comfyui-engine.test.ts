import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ComfyFake, SAMPLE_WORKFLOW, startComfyUiFake, validatePrompt } from '../fakes/comfyui-fake.ts';
import { createSceneEngine, IMAGE_PROVIDERS } from '../index.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { placeholdersIn, SCENE_TEMPLATE, substitute as fill, VIDEO_TEMPLATE } from './comfy-client.ts';
import {
  type ComfyUiSettings,
  type ComfyWorkflow,
  createComfyUiSceneEngine,
  loadWorkflow,
  substitute,
} from './comfyui-engine.ts';

let fake: ComfyFake;
let product: Buffer;
let bottle: Buffer;
let tmp: string;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

/** A product photo with a transparent background: a bottle with a label and stripes. */
const BOTTLE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="480">
  <rect x="95" y="10" width="50" height="70" rx="8" fill="#203040"/>
  <rect x="40" y="70" width="160" height="400" rx="40" fill="#1f7a4d"/>
  <rect x="40" y="190" width="160" height="150" fill="#f4efe2"/>
  <rect x="40" y="205" width="160" height="14" fill="#c0392b"/>
  <circle cx="120" cy="270" r="36" fill="#2c3e50"/>
  <rect x="60" y="300" width="120" height="16" fill="#e67e22"/>
  <rect x="40" y="380" width="160" height="10" fill="#0b3d2a"/>
</svg>`;

beforeAll(async () => {
  fake = await startComfyUiFake();
  product = await sharp({ create: { width: 200, height: 320, channels: 4, background: '#a02060ff' } })
    .png()
    .toBuffer();
  bottle = await sharp(Buffer.from(BOTTLE_SVG)).png().toBuffer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-comfy-'));
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  fake.reset();
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

const calls = () => fake.requests.map((r) => `${r.method} ${r.url.pathname}`);
const promptBody = () => fake.requests.find((r) => r.url.pathname === '/prompt')?.json;

describe('comfyui scene engine: happy paths', () => {
  it('uploads the product, queues the workflow under its own prompt_id, polls history and views the output', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('comfyui:workflow');
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 900]);
    expect(result.warnings.map((w) => w.code)).toEqual(['PRODUCT_PLACEMENT_UNKNOWN']);

    expect(calls()).toEqual([
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

    const body = promptBody();
    expect(typeof body.client_id).toBe('string');
    // Our own id (server.py:692), the one polled.
    expect(body.prompt_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(fake.requests[2]?.url.pathname).toBe(`/history/${body.prompt_id}`);
    const wf = body.prompt as ComfyWorkflow;
    expect(wf['3']?.inputs.seed).toBe(123456789);
    // The generation size: the request's aspect in multiples of 8.
    expect(wf['5']?.inputs).toEqual({ width: 1600, height: 904, batch_size: 1 });
    expect(wf['6']?.inputs.text).toBe(
      'product photo, a ceramic mug on a sunny windowsill, brand colours #a02060, #ffffff',
    );
    expect(wf['10']?.inputs.image).toBe(file.name);
    expect(wf['3']?.inputs.model).toEqual(['4', 0]);
    expect(SAMPLE_WORKFLOW['3']?.inputs.seed).toBe('{{seed}}');

    const view = fake.requests[5]?.url.searchParams;
    expect(view?.get('filename')).toMatch(/^atelier_\d{5}_\.png$/);
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
    const guarded = await startComfyUiFake({ apiKey: 'proxy-token-0123456789' });
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

  it('reads the still image, not an animated output of another node (images + animated)', async () => {
    // SaveAnimatedWEBP puts its .webp under `images` with `animated: [true]` (nodes_images.py:161-162).
    const wf = structuredClone(SAMPLE_WORKFLOW);
    wf['1'] = {
      class_type: 'SaveAnimatedWEBP',
      inputs: { images: ['8', 0], filename_prefix: 'anim', fps: 6, lossless: false, quality: 80, method: 'default' },
    };
    await engine({ workflow: wf }).generate(request());
    const view = fake.requests.find((r) => r.url.pathname === '/view')?.url.searchParams;
    expect(view?.get('filename')).toMatch(/^atelier_\d{5}_\.png$/);
  });
});

describe('comfyui shipped templates', () => {
  it('IMAGE_ENGINE=comfyui without COMFYUI_WORKFLOW_FILE runs the shipped product-in-scene template', () => {
    expect(IMAGE_PROVIDERS.parse({ IMAGE_ENGINE: 'comfyui' })).toEqual({
      provider: 'comfyui',
      workflow: SCENE_TEMPLATE,
    });
    expect(SCENE_TEMPLATE).toMatch(/config\/comfyui\/product-in-scene\.json$/);
    expect(fs.existsSync(SCENE_TEMPLATE)).toBe(true);
  });

  it('load, use the documented placeholders and validate against the node signatures once filled', () => {
    const scene = loadWorkflow(SCENE_TEMPLATE);
    expect(scene.name).toBe('product-in-scene');
    expect([...placeholdersIn(scene.workflow)].sort()).toEqual([
      'negative_prompt',
      'product_canvas',
      'product_mask',
      'prompt',
      'seed',
    ]);
    const filled = fill(scene.workflow, {
      prompt: 'a mug',
      negative_prompt: 'blur',
      seed: 7,
      product_canvas: 'c.png',
      product_mask: 'm.png',
    }) as ComfyWorkflow;
    const models = fake.models;
    const v = validatePrompt(filled, { models, inputFiles: (n) => ['c.png', 'm.png'].includes(n) });
    expect(v).toEqual({ ok: true, goodOutputs: ['13'], nodeErrors: {} });
    // The real product pasted back by its mask after decoding.
    expect(filled['12']).toMatchObject({
      class_type: 'ImageCompositeMasked',
      inputs: { destination: ['10', 0], source: ['3', 0], mask: ['11', 0] },
    });

    const video = JSON.parse(fs.readFileSync(VIDEO_TEMPLATE, 'utf8')) as ComfyWorkflow;
    expect([...placeholdersIn(video)].sort()).toEqual([
      'fps',
      'frames',
      'height',
      'negative_prompt',
      'prompt',
      'seed',
      'start_image',
      'width',
    ]);
    const vf = fill(video, {
      prompt: 'push in',
      negative_prompt: 'blur',
      seed: 7,
      start_image: 's.png',
      width: 1280,
      height: 704,
      frames: 121,
      fps: 24,
    }) as ComfyWorkflow;
    expect(validatePrompt(vf, { models, inputFiles: (n) => n === 's.png' })).toEqual({
      ok: true,
      goodOutputs: ['12'],
      nodeErrors: {},
    });
  });

  it('a typo in a template fails validation (class, input name, link type, combo, bound)', () => {
    const scene = fill(loadWorkflow(SCENE_TEMPLATE).workflow, {
      prompt: 'p',
      negative_prompt: 'n',
      seed: 1,
      product_canvas: 'c.png',
      product_mask: 'm.png',
    }) as ComfyWorkflow;
    const check = (mutate: (w: ComfyWorkflow) => void) => {
      const w = structuredClone(scene);
      mutate(w);
      return validatePrompt(w, { models: fake.models, inputFiles: () => true });
    };
    expect(check((w) => ((w['12'] as { class_type: string }).class_type = 'ImageCompositeMask')).error?.message).toBe(
      'Cannot execute because node ImageCompositeMask does not exist.',
    );
    const missing = check((w) => delete (w['12'] as { inputs: Record<string, unknown> }).inputs.y);
    expect(missing.error?.type).toBe('prompt_outputs_failed_validation');
    expect(missing.nodeErrors['12']?.errors[0]).toMatchObject({ type: 'required_input_missing', details: 'y' });
    const link = check((w) => ((w['12'] as { inputs: Record<string, unknown> }).inputs.mask = ['3', 0]));
    expect(link.nodeErrors['12']?.errors[0]?.details).toBe('mask, received_type(IMAGE) mismatch input_type(MASK)');
    const combo = check((w) => ((w['9'] as { inputs: Record<string, unknown> }).inputs.sampler_name = 'dpm++2m'));
    expect(combo.nodeErrors['9']?.errors[0]?.type).toBe('value_not_in_list');
    const bound = check((w) => ((w['5'] as { inputs: Record<string, unknown> }).inputs.expand = 'four'));
    expect(bound.nodeErrors['5']?.errors[0]?.type).toBe('invalid_input_type');
    const model = check((w) => ((w['2'] as { inputs: Record<string, unknown> }).inputs.unet_name = 'sdxl.safetensors'));
    expect(model.nodeErrors['2']?.errors[0]?.details).toMatch(/^unet_name: 'sdxl.safetensors' not in/);
  });
});

describe('comfyui product-in-scene (shipped template)', () => {
  const sceneRequest = (over: Partial<SceneRequest> = {}) =>
    request({ products: [{ bytes: bottle }], ...outputSize('16:9', 1024), variationIndex: 0, ...over });

  it('uploads the product canvas and its mask, keeps the real product pixel-exact; the fidelity check finds it', async () => {
    const scene = createSceneEngine(
      { provider: 'comfyui', baseUrl: fake.origin, pollIntervalMs: 10, timeoutMs: 20_000 },
      { fetcher: fake.fetcher, sleep },
    );
    expect(scene.name).toBe('comfyui:product-in-scene');
    const result = await scene.generate(sceneRequest());
    expect(result.engine).toBe('comfyui:product-in-scene+fidelity');
    expect([result.width, result.height]).toEqual([1024, 576]);
    const codes = result.warnings.map((w) => w.code);
    expect(codes).toContain('PRODUCT_FIDELITY_CHECKED');
    expect(codes).not.toContain('PRODUCT_RECOMPOSITED');
    expect(codes).not.toContain('PRODUCT_PLACEMENT_UNKNOWN');

    expect(calls().slice(0, 3)).toEqual(['POST /upload/image', 'POST /upload/image', 'POST /prompt']);
    const [canvasFile, maskFile] = fake.requests.slice(0, 2).map((r) => r.form?.get('image') as File);
    expect(canvasFile?.name).toMatch(/^atelier-canvas-[0-9a-f]{16}\.png$/);
    expect(maskFile?.name).toMatch(/^atelier-mask-[0-9a-f]{16}\.png$/);
    const wf = promptBody().prompt as ComfyWorkflow;
    expect(wf['3']?.inputs.image).toBe(canvasFile?.name);
    expect(wf['4']?.inputs).toEqual({ image: maskFile?.name, channel: 'red' });
    expect(wf['7']?.inputs.text).toMatch(/^blurry, low quality/);
    expect(wf['9']?.inputs.seed).toBe(123456789);

    // The canvas: the request's size; the mask: white = generate, black = the product.
    const canvas = await sharp(fake.uploads.get(canvasFile?.name as string) as Buffer)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const maskPng = fake.uploads.get(maskFile?.name as string) as Buffer;
    const maskMeta = await sharp(maskPng).metadata();
    expect([maskMeta.width, maskMeta.height, maskMeta.channels]).toEqual([1024, 576, 1]);
    const mask = await sharp(maskPng).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    expect([canvas.info.width, canvas.info.height, canvas.info.channels]).toEqual([1024, 576, 3]);
    const kept = [...mask.data].filter((v) => v === 0).length;
    expect(kept / mask.data.length).toBeGreaterThan(0.05);
    expect(mask.data[0]).toBe(255);

    // What ComfyUI saved: the product where the mask keeps it, identical to the canvas.
    const view = fake.requests.find((r) => r.url.pathname === '/view')?.url.searchParams;
    expect(view?.get('subfolder')).toBe('atelier');
    const saved = fake.files.get(`output/atelier/${view?.get('filename')}`) as Buffer;
    const out = await sharp(saved).raw().toBuffer({ resolveWithObject: true });
    let differ = 0;
    for (let i = 0; i < mask.data.length; i++) {
      if (mask.data[i] !== 0) continue;
      for (let c = 0; c < 3; c++) if (out.data[i * 3 + c] !== canvas.data[i * 3 + c]) differ++;
    }
    expect(differ).toBe(0);

    // The box reported is where the canvas put the product, and the fidelity check agrees.
    const box = result.productBoxes[0] as { left: number; top: number; width: number; height: number };
    const rows = [...Array(576).keys()].filter((y) =>
      [...Array(1024).keys()].some((x) => mask.data[y * 1024 + x] === 0),
    );
    expect(Math.abs(box.top - (rows[0] as number))).toBeLessThanOrEqual(12);
    expect(result.productMask?.length).toBe(1024 * 576);
  });

  it('names what the template does not take: the backdrop (INPUT_NOT_SENT), products beyond the slots', async () => {
    const backdrop = await sharp({ create: { width: 64, height: 36, channels: 3, background: '#806040' } })
      .png()
      .toBuffer();
    const named = await engine({ workflow: SCENE_TEMPLATE }).generate(sceneRequest({ backdrop }));
    expect(named.warnings.filter((w) => w.code === 'INPUT_NOT_SENT').map((w) => w.severity)).toEqual(['warning']);
    // A backdrop the environment engine generated (it has hints): only an info.
    const made = await engine({ workflow: SCENE_TEMPLATE }).generate(
      sceneRequest({ backdrop, backdropHints: { horizon: 0.6, lightAngle: 90 } }),
    );
    expect(made.warnings.find((w) => w.code === 'INPUT_NOT_SENT')?.severity).toBe('info');
    const legacy = await engine().generate(request({ products: [{ bytes: product }, { bytes: product }] }));
    expect(legacy.warnings.find((w) => w.code === 'INPUT_NOT_SENT')?.message).toMatch(
      /takes 1 product image\(s\): 1 not sent/,
    );
  });

  it('the variation decides where the product stands (layout per variationIndex)', async () => {
    const left = await engine({ workflow: SCENE_TEMPLATE }).generate(sceneRequest({ variationIndex: 1 }));
    const right = await engine({ workflow: SCENE_TEMPLATE }).generate(sceneRequest({ variationIndex: 2 }));
    const cx = (r: typeof left) => (r.productBoxes[0]?.left ?? 0) + (r.productBoxes[0]?.width ?? 0) / 2;
    expect(cx(left)).toBeLessThan(1024 / 2);
    expect(cx(right)).toBeGreaterThan(1024 / 2);
    expect(left.warnings.map((w) => w.code)).not.toContain('PRODUCT_PLACEMENT_UNKNOWN');
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
    expect(() => loadWorkflow({ '1': { class_type: 'X', inputs: { t: '{{start_image}}' } } })).toThrow(
      /unknown placeholders/,
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

describe('comfyui scene engine: cancel', () => {
  it('an abort while the prompt runs deletes it from the queue, then interrupts it by our prompt_id', async () => {
    const ctl = new AbortController();
    let polls = 0;
    const abortAfterTwo = async () => {
      if (++polls === 2) ctl.abort();
    };
    const err = await createComfyUiSceneEngine(
      { baseUrl: fake.origin, workflow: SAMPLE_WORKFLOW, pollIntervalMs: 10 },
      { fetcher: fake.fetcher, sleep: abortAfterTwo },
    )
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).name).toBe('AbortError');
    const id = promptBody().prompt_id as string;
    expect(calls().slice(-3)).toEqual(['POST /queue', 'GET /queue', 'POST /interrupt']);
    expect(fake.requests.at(-3)?.json).toEqual({ delete: [id] });
    expect(fake.requests.at(-1)?.json).toEqual({ prompt_id: id });
    // The delete found nothing pending (it was running); the interrupt hit it.
    expect([fake.deleted, fake.removed]).toEqual([[id], []]);
    expect(fake.interrupts).toEqual([{ promptId: id, interrupted: id }]);
  });

  it('an abort while the prompt waits behind another client only deletes it (no interrupt)', async () => {
    const other = fake.occupy();
    const ctl = new AbortController();
    const err = await createComfyUiSceneEngine(
      { baseUrl: fake.origin, workflow: SAMPLE_WORKFLOW, pollIntervalMs: 10 },
      { fetcher: fake.fetcher, sleep: async () => ctl.abort() },
    )
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).name).toBe('AbortError');
    const id = promptBody().prompt_id as string;
    expect(fake.removed).toEqual([id]);
    expect(calls()).not.toContain('POST /interrupt');
    expect(fake.interrupts).toEqual([]);
    expect(fake.queue()).toEqual({ running: [other], pending: [] });
  });

  it('a prompt that never finishes times out, is deleted from the queue and interrupted', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, true).generate(request()));
    expect(err.message).toMatch(/ComfyUI did not finish the image within 0.3 s/);
    const id = promptBody().prompt_id as string;
    expect(fake.deleted).toEqual([id]);
    expect(fake.interrupts).toEqual([{ promptId: id, interrupted: id }]);
  });
});

describe('comfyui scene engine: failures', () => {
  it('a workflow that does not validate (HTTP 400 with node_errors); nothing to cancel', async () => {
    fake.mode = 'invalid-workflow';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /ComfyUI rejected the workflow: Prompt outputs failed validation.*node 4 \(CheckpointLoaderSimple\): Value not in list: ckpt_name: 'sd_xl_base_1.0.safetensors' not in \[\]/,
    );
    expect(err.retryable).toBe(false);
    expect(calls()).toEqual(['POST /upload/image', 'POST /prompt']);
  });

  it('a 200 whose node_errors dropped the result node fails at once and removes the queued prompt', async () => {
    const wf = structuredClone(SAMPLE_WORKFLOW);
    (wf['3'] as { inputs: Record<string, unknown> }).inputs.steps = 0;
    wf['11'] = { class_type: 'PreviewImage', inputs: { images: ['10', 0] } };
    const err = await failure(engine({ workflow: wf }).generate(request()));
    expect(err.message).toMatch(
      /ComfyUI accepted the workflow but dropped output node\(s\) 9 that failed validation: node 3 \(KSampler\): Value 0 smaller than min of 1: steps/,
    );
    expect(err.retryable).toBe(false);
    const id = promptBody().prompt_id as string;
    expect(calls()).not.toContain('GET /view');
    expect(fake.removed).toEqual([id]);
  });

  it('a 200 whose node_errors dropped another output: the result node is kept, with a warning', async () => {
    const wf = structuredClone(SAMPLE_WORKFLOW);
    wf['11'] = { class_type: 'SaveImage', inputs: { images: ['10', 0] } }; // no filename_prefix
    const result = await engine({ workflow: wf, outputNode: '9' }).generate(request());
    const note = result.warnings.find((w) => w.code === 'COMFYUI_OUTPUT_DROPPED');
    expect(note?.message).toMatch(
      /output node\(s\) 11 .*node 11 \(SaveImage\): Required input is missing: filename_prefix/,
    );
  });

  it('a prompt lost by the server (restart: not in the history, not in the queue) fails fast', async () => {
    fake.mode = 'lost';
    const err = await failure(engine({ timeoutMs: 60_000 }).generate(request()));
    expect(err.message).toMatch(/ComfyUI lost the workflow [\w-]+: it is neither queued, running nor in the history/);
    expect(err.retryable).toBe(true);
    expect(calls().filter((c) => c.startsWith('GET /history'))).toHaveLength(4);
    expect(calls().filter((c) => c === 'GET /queue')).toHaveLength(1);
    expect(waits).toHaveLength(2);
  });

  it('an execution error: the first line of the message; an OOM is retryable', async () => {
    fake.mode = 'execution-error';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/ComfyUI ran out of GPU memory in node 3 \(KSampler\): Allocation on device/);
    expect(err.message).not.toMatch(/TIPS/);
    expect(err.retryable).toBe(true);
  });

  it('a prompt interrupted on the server is a retryable failure', async () => {
    fake.mode = 'interrupted';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/ComfyUI interrupted the workflow in node 3 \(KSampler\)/);
    expect(err.retryable).toBe(true);
  });

  it('500 (a text page) after retries', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 1 }).generate(request()));
    expect(err.message).toMatch(
      /ComfyUI failed with HTTP 500 while queueing the workflow, after 2 attempts: 500 Internal Server Error/,
    );
    expect(err.retryable).toBe(true);
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

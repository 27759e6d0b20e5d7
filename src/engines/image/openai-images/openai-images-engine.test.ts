import type { AddressInfo } from 'node:net';
import net from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetcher } from '../../../adapters/fetch/fetcher.ts';
import { formFile } from '../fakes/fake-http.ts';
import { type OpenAiFake, startOpenAiImagesFake } from '../fakes/openai-images-fake.ts';
import { ContentPolicyError, encodeMultipart } from '../provider-http.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { createOpenAiImagesSceneEngine, type OpenAiImagesSettings } from './openai-images-engine.ts';

const KEY = 'sk-test-0123456789abcdef';
let fake: OpenAiFake;
let product: Buffer;
let backdrop: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  fake = await startOpenAiImagesFake(KEY);
  product = await sharp({ create: { width: 300, height: 500, channels: 3, background: '#c03030' } })
    .jpeg()
    .toBuffer();
  backdrop = await sharp({ create: { width: 800, height: 450, channels: 3, background: '#e0d0b0' } })
    .png()
    .toBuffer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
  waits.length = 0;
});

const engine = (over: Partial<OpenAiImagesSettings> = {}, sleeper = sleep) =>
  createOpenAiImagesSceneEngine(
    { baseUrl: fake.baseUrl, apiKey: KEY, model: 'gpt-image-1', timeoutMs: 3000, retryBaseMs: 5, ...over },
    { fetcher: fake.fetcher, sleep: sleeper },
  );

function request(over: Partial<SceneRequest> = {}): SceneRequest {
  const size = outputSize('16:9', 1600);
  return {
    prompt: 'A bottle of olive oil on a rustic kitchen table',
    aspectRatio: '16:9',
    ...size,
    variationIndex: 0,
    seed: 42,
    products: [{ bytes: product, description: 'olive oil bottle' }],
    backdrop,
    palette: ['#336699'],
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<GenerationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GenerationError);
  const message = (err as Error).message;
  expect(message).not.toContain(KEY);
  expect(message).not.toContain('sk-test');
  return err as GenerationError;
}

describe('openai-images scene engine: happy paths', () => {
  it('edits with the product and the backdrop, then crops to the exact non-native size', async () => {
    const result = await engine({ quality: 'high', inputFidelity: 'high' }).generate(request());
    expect(result.engine).toBe('openai-images:gpt-image-1');
    expect([result.width, result.height]).toEqual([1600, 900]);
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 900]);
    expect(result.productBoxes).toEqual([{ left: 0, top: 0, width: 1600, height: 900 }]);
    const codes = result.warnings.map((w) => w.code);
    expect(codes).toEqual(
      expect.arrayContaining(['SEED_NOT_SUPPORTED', 'PROVIDER_ASPECT_CROPPED', 'PRODUCT_PLACEMENT_UNKNOWN']),
    );

    const [call] = fake.calls();
    expect(call?.method).toBe('POST');
    expect(call?.url.pathname).toBe('/v1/images/edits');
    expect(call?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = call?.form;
    expect(form?.get('model')).toBe('gpt-image-1');
    expect(String(form?.get('prompt'))).toMatch(
      /^A bottle of olive oil on a rustic kitchen table\s+The first input image is the product.*backdrop/s,
    );
    expect(form?.get('size')).toBe('1536x1024');
    expect(form?.get('n')).toBe('1');
    expect(form?.get('quality')).toBe('high');
    expect(form?.get('input_fidelity')).toBe('high');
    expect(form?.get('response_format')).toBeNull();
    const images = await formFile(form, 'image[]');
    expect(images).toHaveLength(2);
    const metas = await Promise.all(images.map((b) => sharp(b).metadata()));
    expect(metas.map((m) => [m.format, m.width, m.height])).toEqual([
      ['png', 300, 500],
      ['png', 800, 450],
    ]);
    const files = form?.getAll('image[]').map((f) => (f as File).name);
    expect(files).toEqual(['product-1.png', 'backdrop.png']);
  });

  it('generates from text alone as JSON and picks the portrait size for 9:16', async () => {
    const size = outputSize('9:16', 1280);
    const result = await engine({ background: 'opaque' }).generate(
      request({ aspectRatio: '9:16', ...size, products: [], backdrop: undefined }),
    );
    expect([result.width, result.height]).toEqual([size.width, size.height]);
    const meta = await sharp(result.png).metadata();
    expect([meta.width, meta.height]).toEqual([size.width, size.height]);
    expect(result.productBoxes).toEqual([]);
    const [call] = fake.calls();
    expect(call?.url.pathname).toBe('/v1/images/generations');
    expect(call?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call?.json).toEqual({
      model: 'gpt-image-1',
      prompt: 'A bottle of olive oil on a rustic kitchen table',
      n: 1,
      size: '1024x1536',
      background: 'opaque',
    });
  });

  it('honours a configured size list (1:1 only) and downloads a data[0].url answer', async () => {
    fake.mode = 'url';
    const result = await engine({ sizes: ['1024x1024'], model: 'dall-e-2', responseFormat: 'url' }).generate(
      request({ products: [], backdrop: undefined }),
    );
    expect([result.width, result.height]).toEqual([1600, 900]);
    expect(fake.calls()[0]?.json.size).toBe('1024x1024');
    expect(fake.calls()[0]?.json.response_format).toBe('url');
    expect(fake.requests.map((r) => r.url.pathname)).toContain('/files/result-1024x1024.png');
    // The download went to the API origin: the same (allowed) fetcher.
  });

  it('retries a 429 after the Retry-After the provider asked for', async () => {
    fake.mode = 'rate-limit-then-ok';
    const result = await engine().generate(request());
    expect(result.width).toBe(1600);
    expect(fake.calls()).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });
});

describe('openai-images scene engine: failures', () => {
  it('401: the provider refused the API key, without repeating it', async () => {
    const err = await failure(engine({ apiKey: 'sk-wrong-key-0000000000' }).generate(request()));
    expect(err.message).toMatch(/refused the API key \(HTTP 401\)/);
    expect(err.message).not.toContain('sk-wrong');
    expect(err.retryable).toBe(false);
    expect(fake.calls()).toHaveLength(1);
  });

  it('429 every time: retried a bounded number of times, then a retryable error', async () => {
    fake.mode = 'always-429';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/rate limiting requests \(HTTP 429\).*after 3 attempts/);
    expect(err.retryable).toBe(true);
    expect(fake.calls()).toHaveLength(3);
  });

  it('500: retried with backoff, then reported with the provider message', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 1, retryBaseMs: 7 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 500 .*after 2 attempts: The server had an error/);
    expect(err.retryable).toBe(true);
    expect(waits).toEqual([7]);
  });

  it('a provider slower than the timeout', async () => {
    fake.mode = 'slow';
    const started = Date.now();
    const err = await failure(engine({ timeoutMs: 300 }).generate(request()));
    expect(err.message).toMatch(/did not finish the image within 0.3 s/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('malformed JSON', async () => {
    fake.mode = 'malformed-json';
    expect((await failure(engine().generate(request()))).message).toMatch(/not JSON/);
  });

  it('an answer without an image', async () => {
    fake.mode = 'missing-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/without an image/);
  });

  it('b64_json bytes that are not an image', async () => {
    fake.mode = 'not-an-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/result image that is not an image/);
  });

  it('a result URL serving something that is not an image', async () => {
    fake.mode = 'not-an-image-url';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an image/);
  });

  it('a moderation refusal is a ContentPolicyError, not retried', async () => {
    fake.mode = 'content-policy';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/refused the request under its content policy.*safety system/);
    expect(err.retryable).toBe(false);
    expect(fake.calls()).toHaveLength(1);
  });

  it('a 400 is reported with the provider message', async () => {
    fake.mode = 'bad-request';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/rejected the request \(HTTP 400\) while editing the images: Invalid value/);
    expect(err).not.toBeInstanceOf(ContentPolicyError);
  });

  it('an unreachable endpoint', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const e = createOpenAiImagesSceneEngine(
      { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, maxRetries: 1, retryBaseMs: 1 },
      { fetcher: createFetcher({ policy: (a, p) => a === '127.0.0.1' && p === port }), sleep },
    );
    const err = await failure(e.generate(request()));
    expect(err.message).toMatch(/could not be reached while editing the images: .*refused the connection/);
    expect(err.retryable).toBe(true);
  });

  it('a product that is not an image', async () => {
    const err = await failure(engine().generate(request({ products: [{ bytes: Buffer.from('nope') }] })));
    expect(err.message).toMatch(/product image 1 could not be read/);
    expect(fake.calls()).toHaveLength(0);
  });

  it("the caller's abort is passed through as the abort reason, not a GenerationError", async () => {
    fake.mode = 'slow';
    const controller = new AbortController();
    const reason = new Error('variation cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(engine().generate(request({ signal: controller.signal }))).rejects.toBe(reason);
  });
});

const textOnly = (over: Partial<SceneRequest> = {}) => request({ products: [], backdrop: undefined, ...over });
const codes = (r: { warnings: { code: string }[] }) => r.warnings.map((w) => w.code);

describe('openai-images: moderation is a generations parameter', () => {
  it('sends moderation on /images/generations and never on /images/edits', async () => {
    const e = engine({ moderation: 'low' });
    const edited = await e.generate(request());
    expect(edited.width).toBe(1600);
    const [edit] = fake.calls();
    expect(edit?.url.pathname).toBe('/v1/images/edits');
    expect(edit?.form?.get('moderation')).toBeNull();

    fake.requests.length = 0;
    await e.generate(textOnly());
    const [gen] = fake.calls();
    expect(gen?.url.pathname).toBe('/v1/images/generations');
    expect(gen?.json.moderation).toBe('low');
  });
});

describe('openai-images: what each model takes', () => {
  it('gpt-image models never get response_format: a configured one stops the engine at creation', () => {
    for (const model of ['gpt-image-1', 'gpt-image-1.5', 'gpt-image-1-mini']) {
      expect(() => engine({ model, responseFormat: 'b64_json' })).toThrow(/takes no response_format/);
    }
  });

  it('gpt-image-1-mini takes no input_fidelity; it still edits with the product', async () => {
    expect(() => engine({ model: 'gpt-image-1-mini', inputFidelity: 'high' })).toThrow(/takes no input_fidelity/);
    const result = await engine({ model: 'gpt-image-1-mini', quality: 'low' }).generate(request());
    expect(result.engine).toBe('openai-images:gpt-image-1-mini');
    const form = fake.calls()[0]?.form;
    expect(form?.get('input_fidelity')).toBeNull();
    expect(form?.getAll('image[]')).toHaveLength(2);
  });

  it('gpt-image-1.5 takes input_fidelity and background on edits', async () => {
    await engine({ model: 'gpt-image-1.5', inputFidelity: 'high', background: 'opaque' }).generate(request());
    const form = fake.calls()[0]?.form;
    expect(form?.get('model')).toBe('gpt-image-1.5');
    expect(form?.get('input_fidelity')).toBe('high');
    expect(form?.get('background')).toBe('opaque');
  });

  it('background, moderation and a quality a model does not take stop the engine at creation', () => {
    expect(() => engine({ model: 'dall-e-3', background: 'opaque' })).toThrow(/dall-e-3 takes no background/);
    expect(() => engine({ model: 'dall-e-2', moderation: 'low' })).toThrow(/dall-e-2 takes no moderation/);
    expect(() => engine({ model: 'gpt-image-1', quality: 'hd' })).toThrow(/IMAGE_QUALITY.*low, medium, high, auto/);
    expect(() => engine({ model: 'dall-e-2', quality: 'high' })).toThrow(/standard, auto/);
  });

  it('dall-e-3: its own sizes (1792x1024 for 16:9), hd quality, base64 asked for', async () => {
    const result = await engine({ model: 'dall-e-3', quality: 'hd' }).generate(textOnly());
    expect([result.width, result.height]).toEqual([1600, 900]);
    expect(fake.calls()[0]?.json).toEqual({
      model: 'dall-e-3',
      prompt: 'A bottle of olive oil on a rustic kitchen table',
      n: 1,
      size: '1792x1024',
      quality: 'hd',
      response_format: 'b64_json',
    });
    expect(fake.calls()).toHaveLength(1); // no download: base64 answer
  });

  it('dall-e-3 cannot edit: the scene is generated from the prompt, with a warning naming the inputs left out', async () => {
    const size = outputSize('9:16', 1280);
    const result = await engine({ model: 'dall-e-3' }).generate(request({ aspectRatio: '9:16', ...size }));
    expect([result.width, result.height]).toEqual([size.width, size.height]);
    const calls = fake.calls();
    expect(calls.map((c) => c.url.pathname)).toEqual(['/v1/images/generations']);
    expect(calls[0]?.json.size).toBe('1024x1792');
    const warning = result.warnings.find((w) => w.code === 'INPUT_NOT_SENT');
    expect(warning?.severity).toBe('warning');
    expect(warning?.message).toMatch(/dall-e-3 cannot edit images.*1 product image and the backdrop not sent/);
  });

  it('dall-e-2: squares only, and one square PNG (the product on transparency) as `image`', async () => {
    const result = await engine({ model: 'dall-e-2' }).generate(request());
    expect([result.width, result.height]).toEqual([1600, 900]);
    const form = fake.calls()[0]?.form;
    expect(fake.calls()[0]?.url.pathname).toBe('/v1/images/edits');
    expect(form?.get('size')).toBe('1024x1024');
    expect(form?.get('response_format')).toBe('b64_json');
    expect(form?.getAll('image[]')).toHaveLength(0);
    const [image] = await formFile(form, 'image');
    expect((form?.get('image') as File | undefined)?.name).toBe('product-1.png');
    const meta = await sharp(image).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 1024, 1024, true]);
    expect(image!.length).toBeLessThan(4 * 1024 * 1024);
    // The product sits inside the part the 16:9 crop keeps; the corners are transparent to paint.
    const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
    const alpha = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
    expect(alpha(0, 0)).toBe(0);
    expect(alpha(512, 512)).toBe(255);
    expect(alpha(512, 230)).toBe(0); // above the kept band (1024 × 576, centred)
    expect(String(form?.get('prompt'))).toBe('A bottle of olive oil on a rustic kitchen table');
    const warning = result.warnings.find((w) => w.code === 'INPUT_NOT_SENT');
    expect(warning?.message).toMatch(/dall-e-2 edits one image.*the backdrop not sent/);
  });

  it('dall-e-2: a prompt over 1000 characters is cut to fit, with a warning', async () => {
    const long = `${'a very detailed kitchen scene, '.repeat(40)}end`;
    const result = await engine({ model: 'dall-e-2' }).generate(textOnly({ prompt: long }));
    expect(String(fake.calls()[0]?.json.prompt)).toHaveLength(1000);
    expect(fake.calls()[0]?.json.size).toBe('1024x1024');
    expect(codes(result)).toContain('PROMPT_TRUNCATED');
  });

  it('a model not in the table (a compatible server) gets every configured parameter, as before', async () => {
    const e = engine({
      model: 'local-diffusion',
      quality: 'best',
      background: 'transparent',
      inputFidelity: 'high',
      moderation: 'low',
      responseFormat: 'b64_json',
    });
    const result = await e.generate(request());
    expect(result.engine).toBe('openai-images:local-diffusion');
    const form = fake.calls()[0]?.form;
    expect(form?.get('size')).toBe('1536x1024');
    expect([form?.get('quality'), form?.get('background'), form?.get('input_fidelity')]).toEqual([
      'best',
      'transparent',
      'high',
    ]);
    expect(form?.get('response_format')).toBe('b64_json');
    expect(form?.get('moderation')).toBeNull();
    fake.requests.length = 0;
    await e.generate(textOnly());
    expect(fake.calls()[0]?.json).toMatchObject({ moderation: 'low', response_format: 'b64_json', quality: 'best' });
  });

  it('capabilities override the table (a model the table does not know well yet)', async () => {
    await engine({ model: 'dall-e-2', capabilities: { sizes: ['512x512'] } }).generate(textOnly());
    expect(fake.calls()[0]?.json.size).toBe('512x512');
  });
});

describe('openai-images: retries as the OpenAI SDK, less a used-up quota', () => {
  it('x-should-retry: false is obeyed: one POST', async () => {
    fake.mode = 'server-error-no-retry';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 500/);
    expect(fake.calls()).toHaveLength(1);
  });

  it('a 429 insufficient_quota is a billing state: one POST, not retryable, said plainly', async () => {
    fake.mode = 'quota';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(fake.calls()).toHaveLength(1);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/quota is used up \(HTTP 429 insufficient_quota.*You exceeded your current quota/);
    expect(waits).toEqual([]);
  });

  it('the same on generations', async () => {
    fake.mode = 'quota';
    await failure(engine().generate(textOnly()));
    expect(fake.calls().map((c) => c.url.pathname)).toEqual(['/v1/images/generations']);
  });
});

describe('openai-images: the caller abort', () => {
  it('an aborted request is not sent again', async () => {
    fake.mode = 'slow';
    const controller = new AbortController();
    const reason = new Error('variation cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(engine({ maxRetries: 2 }).generate(request({ signal: controller.signal }))).rejects.toBe(reason);
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.calls()).toHaveLength(1);
  });

  it('an abort while waiting to retry a 429 ends it: no second POST', async () => {
    fake.mode = 'rate-limit-then-ok';
    const controller = new AbortController();
    const reason = new Error('variation cancelled');
    const abortingSleep = async (ms: number) => {
      waits.push(ms);
      controller.abort(reason);
    };
    await expect(engine({}, abortingSleep).generate(request({ signal: controller.signal }))).rejects.toBe(reason);
    expect(waits).toEqual([2000]);
    expect(fake.calls()).toHaveLength(1);
  });
});

describe('the fake speaks the API as the official sources describe it', () => {
  const post = async (
    path: string,
    init: { json?: unknown; form?: [string, Parameters<typeof encodeMultipart>[0][number][1]][] },
  ) => {
    let body: string | Uint8Array;
    const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
    if (init.form) {
      const m = await encodeMultipart(init.form);
      body = m.bytes;
      headers['content-type'] = m.contentType;
    } else {
      body = JSON.stringify(init.json);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${fake.baseUrl}${path}`, { method: 'POST', headers, body });
    return { status: res.status, json: (await res.json()) as { error?: Record<string, unknown>; data?: unknown[] } };
  };
  const png = () =>
    sharp({ create: { width: 64, height: 64, channels: 4, background: '#00000000' } })
      .png()
      .toBuffer();

  it('error bodies carry message, type, param and code (null when empty)', async () => {
    const notFound = await fetch(`${fake.origin}/v1/nothing`, { method: 'POST' });
    expect(((await notFound.json()) as { error: object }).error).toEqual({
      message: expect.any(String),
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
    fake.mode = 'server-error';
    const { status, json } = await post('/images/generations', { json: { model: 'gpt-image-1', prompt: 'x' } });
    expect(status).toBe(500);
    expect(Object.keys(json.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('refuses moderation on edits and response_format on gpt-image, as the API does', async () => {
    const image = await png();
    const edit = await post('/images/edits', {
      form: [
        ['model', 'gpt-image-1'],
        ['prompt', 'x'],
        ['image[]', { bytes: image, filename: 'a.png', contentType: 'image/png' }],
        ['moderation', 'low'],
      ],
    });
    expect(edit.status).toBe(400);
    expect(edit.json.error).toEqual({
      message: "Unknown parameter: 'moderation'.",
      type: 'invalid_request_error',
      param: 'moderation',
      code: 'unknown_parameter',
    });
    const gen = await post('/images/generations', {
      json: { model: 'gpt-image-1', prompt: 'x', response_format: 'b64_json' },
    });
    expect(gen.json.error).toMatchObject({ param: 'response_format', code: 'unknown_parameter' });
    const size = await post('/images/generations', { json: { model: 'dall-e-3', prompt: 'x', size: '1536x1024' } });
    expect(size.json.error).toMatchObject({ param: 'size', code: 'invalid_value' });
    const dalle3Edit = await post('/images/edits', {
      form: [
        ['model', 'dall-e-3'],
        ['prompt', 'x'],
        ['image', { bytes: image, filename: 'a.png', contentType: 'image/png' }],
      ],
    });
    expect(dalle3Edit.json.error).toMatchObject({ param: 'model' });
  });

  it('takes the edit image as `image` (one file) or `image[]` (an array), like openai-node sends them', async () => {
    const image = await png();
    for (const field of ['image', 'image[]']) {
      const res = await post('/images/edits', {
        form: [
          ['model', 'gpt-image-1'],
          ['prompt', 'x'],
          [field, { bytes: image, filename: 'a.png', contentType: 'image/png' }],
          ['size', '1024x1024'],
        ],
      });
      expect(res.status).toBe(200);
    }
  });
});

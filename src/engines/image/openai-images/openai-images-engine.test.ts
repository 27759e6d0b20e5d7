import type { AddressInfo } from 'node:net';
import net from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetcher } from '../../../adapters/fetch/fetcher.ts';
import { formFile } from '../fakes/fake-http.ts';
import { type OpenAiFake, startOpenAiImagesFake } from '../fakes/openai-images-fake.ts';
import { ContentPolicyError } from '../provider-http.ts';
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

const engine = (over: Partial<OpenAiImagesSettings> = {}) =>
  createOpenAiImagesSceneEngine(
    { baseUrl: fake.baseUrl, apiKey: KEY, model: 'gpt-image-1', timeoutMs: 3000, retryBaseMs: 5, ...over },
    { fetcher: fake.fetcher, sleep },
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

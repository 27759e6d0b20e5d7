import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FalFake, startFalFake } from '../fakes/fal-fake.ts';
import { ContentPolicyError } from '../provider-http.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { createFalSceneEngine, type FalSettings } from './fal-engine.ts';

const KEY = 'fal-test-key-0123456789';
let fake: FalFake;
let product: Buffer;
let backdrop: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  fake = await startFalFake(KEY);
  product = await sharp({ create: { width: 300, height: 500, channels: 4, background: '#30c03080' } })
    .png()
    .toBuffer();
  backdrop = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#e0d0b0' } })
    .jpeg()
    .toBuffer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
  fake.cdn.requests.length = 0;
  fake.cancelled.length = 0;
  waits.length = 0;
});

const engine = (over: Partial<FalSettings> = {}, realSleep = false) =>
  createFalSceneEngine(
    {
      baseUrl: fake.origin,
      apiKey: KEY,
      model: 'fal-ai/flux-pro/kontext',
      timeoutMs: 3000,
      retryBaseMs: 5,
      pollIntervalMs: 100,
      ...over,
    },
    { fetcher: fake.fetcher, downloadFetcher: fake.cdn.fetcher, ...(realSleep ? {} : { sleep }) },
  );

function request(over: Partial<SceneRequest> = {}): SceneRequest {
  return {
    prompt: 'A green bottle on wet pebbles at dawn',
    aspectRatio: '16:9',
    ...outputSize('16:9', 1600),
    variationIndex: 1,
    seed: 42,
    products: [{ bytes: product }],
    backdrop,
    palette: [],
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<GenerationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GenerationError);
  expect((err as Error).message).not.toContain(KEY);
  return err as GenerationError;
}

describe('fal scene engine: happy paths', () => {
  it('submits, follows IN_QUEUE → IN_PROGRESS → COMPLETED, downloads and crops to the exact size', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('fal:fal-ai/flux-pro/kontext');
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 900]);
    expect(result.productBoxes).toHaveLength(1);
    expect(result.warnings.map((w) => w.code)).toEqual(
      expect.arrayContaining(['INPUT_NOT_SENT', 'PROVIDER_UPSCALED', 'PRODUCT_PLACEMENT_UNKNOWN']),
    );

    const calls = fake.calls();
    const id = /requests\/([\w-]+)/.exec(calls[1]?.url.pathname ?? '')?.[1];
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /fal-ai/flux-pro/kontext',
      `GET /fal-ai/flux-pro/requests/${id}/status`,
      `GET /fal-ai/flux-pro/requests/${id}/status`,
      `GET /fal-ai/flux-pro/requests/${id}/status`,
      `GET /fal-ai/flux-pro/requests/${id}`,
    ]);
    for (const c of calls) expect(c.headers.authorization).toBe(`Key ${KEY}`);
    const input = calls[0]?.json;
    expect(input).toMatchObject({
      prompt: 'A green bottle on wet pebbles at dawn',
      seed: 42,
      num_images: 1,
      output_format: 'png',
      aspect_ratio: '16:9',
    });
    expect(input.image_url).toMatch(/^data:image\/png;base64,/);
    const sent = await sharp(Buffer.from(input.image_url.split(',')[1], 'base64')).metadata();
    expect([sent.format, sent.width, sent.height]).toEqual(['png', 300, 500]);
    // Poll backoff: 100 ms, then ×1.5.
    expect(waits).toEqual([100, 150]);
    // The CDN download carries no key.
    expect(fake.cdn.requests).toHaveLength(1);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('image_size and image_urls inputs (every product, then the backdrop), extra input merged', async () => {
    const size = outputSize('21:9', 1400);
    const result = await engine({
      model: 'fal-ai/some-model',
      sizeInput: 'image_size',
      imageInput: 'image_urls',
      extraInput: { guidance_scale: 3.5 },
    }).generate(request({ aspectRatio: '21:9', ...size, products: [{ bytes: product }, { bytes: product }] }));
    expect([result.width, result.height]).toEqual([size.width, size.height]);
    const input = fake.calls()[0]?.json;
    expect(input.image_size).toEqual(size);
    expect(input.aspect_ratio).toBeUndefined();
    expect(input.image_urls).toHaveLength(3);
    expect(input.guidance_scale).toBe(3.5);
    expect(result.warnings.map((w) => w.code)).not.toContain('INPUT_NOT_SENT');
  });

  it('ignores status and result URLs on another origin (the key stays with fal)', async () => {
    fake.mode = 'foreign-urls';
    const result = await engine().generate(request());
    expect(result.width).toBe(1600);
    expect(fake.calls().filter((c) => c.url.pathname.endsWith('/status'))).toHaveLength(3);
  });

  it('retries a 429 on submission after Retry-After', async () => {
    fake.mode = 'rate-limit-then-ok';
    await engine().generate(request());
    expect(waits[0]).toBe(1000);
    expect(fake.calls().filter((c) => c.method === 'POST')).toHaveLength(2);
  });
});

describe('fal scene engine: failures', () => {
  it('401', async () => {
    const err = await failure(engine({ apiKey: 'fal-wrong-key-999999999' }).generate(request()));
    expect(err.message).toMatch(/fal\.ai refused the API key \(HTTP 401\) while submitting the job/);
    expect(err.message).not.toContain('fal-wrong');
  });

  it('503 after retries', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 503 while submitting the job, after 3 attempts: Service temporarily/);
    expect(err.retryable).toBe(true);
  });

  it('a slow submission times out', async () => {
    fake.mode = 'slow';
    const err = await failure(engine({ timeoutMs: 300 }).generate(request()));
    expect(err.message).toMatch(/did not finish the image within 0.3 s/);
  });

  it('a job stuck IN_QUEUE times out and is cancelled', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, true).generate(request()));
    expect(err.message).toMatch(/did not finish the image within 0.3 s/);
    expect(err.retryable).toBe(true);
    const polled = fake.calls().find((c) => c.url.pathname.endsWith('/status'))?.url.pathname;
    expect(fake.cancelled).toHaveLength(1);
    expect(polled).toContain(`/requests/${fake.cancelled[0]}/status`);
  });

  it('malformed status JSON', async () => {
    fake.mode = 'malformed-json';
    expect((await failure(engine().generate(request()))).message).toMatch(/not JSON while checking the job status/);
  });

  it('a result without an image', async () => {
    fake.mode = 'missing-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/without an image/);
  });

  it('a result URL that is not an image', async () => {
    fake.mode = 'not-an-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an image/);
  });

  it('a content policy violation (422) is a ContentPolicyError', async () => {
    fake.mode = 'content-policy';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/content policy.*flagged by a content checker/);
  });

  it('an image flagged by the NSFW checker is a ContentPolicyError', async () => {
    fake.mode = 'nsfw-flag';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/NSFW/);
  });

  it('a job that failed on fal', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/fal\.ai reported the job failed: Runner disconnected/);
    expect(err).not.toBeInstanceOf(ContentPolicyError);
  });
});

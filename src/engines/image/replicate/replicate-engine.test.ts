import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fakes/fake-http.ts';
import { type ReplicateFake, startReplicateFake } from '../fakes/replicate-fake.ts';
import { ContentPolicyError, type ProviderDeps, type Sleep } from '../provider-http.ts';
import type { InputHost } from '../provider-inputs.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { createReplicateSceneEngine, type ReplicateSettings } from './replicate-engine.ts';

const KEY = 'r8_test_0123456789abcdef';
const VERSION = 'a'.repeat(64);
let fake: ReplicateFake;
let product: Buffer;
let backdrop: Buffer;
const waits: number[] = [];
const sleep: Sleep = async (ms) => {
  waits.push(ms);
};

beforeAll(async () => {
  fake = await startReplicateFake(KEY);
  product = await sharp({ create: { width: 240, height: 400, channels: 4, background: '#2040c0ff' } })
    .png()
    .toBuffer();
  backdrop = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#d0c0a0' } })
    .png()
    .toBuffer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  waits.length = 0;
});

const engine = (over: Partial<ReplicateSettings> = {}, deps: Partial<ProviderDeps> | 'real-sleep' = {}) =>
  createReplicateSceneEngine(
    {
      baseUrl: fake.origin,
      apiKey: KEY,
      model: 'black-forest-labs/flux-kontext-pro',
      timeoutMs: 3000,
      retryBaseMs: 5,
      pollIntervalMs: 100,
      ...over,
    },
    {
      fetcher: fake.fetcher,
      downloadFetcher: fake.cdn.fetcher,
      ...(deps === 'real-sleep' ? {} : { sleep, ...deps }),
    },
  );

function request(over: Partial<SceneRequest> = {}): SceneRequest {
  return {
    prompt: 'A blue perfume bottle on marble, soft window light',
    aspectRatio: '4:3',
    ...outputSize('4:3', 1200),
    variationIndex: 2,
    seed: 7,
    products: [{ bytes: product }],
    backdrop,
    palette: ['#2040c0'],
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

const isCreate = (r: FakeRequest) => r.method === 'POST' && r.url.pathname.endsWith('/predictions');
const creates = () => fake.requests.filter(isCreate);
const created = () => creates()[0];
const calls = () => fake.requests.map((r) => `${r.method} ${r.url.pathname}`);

describe('replicate scene engine: happy paths', () => {
  it('flux-kontext-pro: uploads the product through /v1/files, creates on the official route, polls urls.get, downloads the string output, crops', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('replicate:black-forest-labs/flux-kontext-pro');
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 900]);
    expect(result.warnings.map((w) => w.code)).toContain('INPUT_NOT_SENT');

    const id = fake.requests.at(-1)?.url.pathname.split('/').at(-1);
    expect(calls()).toEqual([
      'POST /v1/files',
      'POST /v1/models/black-forest-labs/flux-kontext-pro/predictions',
      `GET /v1/predictions/${id}`,
      `GET /v1/predictions/${id}`,
    ]);
    for (const c of fake.requests) expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
    const create = created();
    expect(create?.headers.prefer).toBeUndefined();
    expect(create?.json.version).toBeUndefined();
    expect(create?.json.input).toEqual({
      prompt: 'A blue perfume bottle on marble, soft window light',
      seed: 7,
      aspect_ratio: '4:3',
      output_format: 'png',
      input_image: expect.stringMatching(new RegExp(`^${fake.origin}/v1/files/file1x`)),
    });
    // Uploaded as the official client does: multipart part `content`, a PNG with a file name.
    expect(fake.uploads).toEqual([{ name: 'product-image-1.png', type: 'image/png' }]);
    expect((await sharp(fake.files[0]).metadata()).format).toBe('png');
    // Nothing the model does not declare (Replicate would drop it silently).
    expect(fake.ignoredInputs).toEqual([]);
    expect(fake.predictions.get(id as string)?.end?.output).toEqual(expect.any(String));
    expect(waits).toEqual([100]);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('never sends an input image as a data URI, however small', async () => {
    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    await engine().generate(request({ products: [{ bytes: tiny }], backdrop: undefined }));
    expect(created()?.json.input.input_image).not.toMatch(/^data:/);
    expect(fake.files).toHaveLength(1);
  });

  it('sends our public link instead of uploading when this server has one', async () => {
    const published: string[] = [];
    const inputHost: InputHost = {
      publish: async (_bytes, o) => {
        published.push(o.contentType);
        return `https://media.example.test/in/${published.length}.png`;
      },
    };
    await engine({}, { inputHost }).generate(request());
    expect(created()?.json.input.input_image).toBe('https://media.example.test/in/1.png');
    expect(published).toEqual(['image/png']);
    expect(fake.files).toHaveLength(0);
  });

  it('a version id, Prefer: wait answered finished, width/height, a backdrop input', async () => {
    const size = outputSize('3:2', 1500);
    const result = await engine({
      model: `someone/model:${VERSION}`,
      waitSeconds: 30,
      sizeInput: 'width_height',
      backdropInput: 'background_image',
    }).generate(request({ aspectRatio: '3:2', ...size }));
    expect([result.width, result.height]).toEqual([size.width, size.height]);
    expect(calls()).toEqual(['POST /v1/files', 'POST /v1/files', 'POST /v1/predictions']);
    const create = created();
    expect(create?.headers.prefer).toBe('wait=30');
    expect(create?.json.version).toBe(VERSION);
    expect(create?.json.input).toMatchObject({ width: size.width, height: size.height });
    expect(create?.json.input.aspect_ratio).toBeUndefined();
    expect(create?.json.input.background_image).toMatch(new RegExp(`^${fake.origin}/v1/files/file2x`));
    expect(result.warnings.map((w) => w.code)).not.toContain('INPUT_NOT_SENT');
  });

  it('Prefer: wait that runs out (an unfinished answer) goes on polling', async () => {
    fake.mode = 'wait-expired';
    await engine({ waitSeconds: 60 }).generate(request());
    expect(created()?.headers.prefer).toBe('wait=60');
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('accepts an array output (models such as flux-schnell)', async () => {
    fake.mode = 'array-output';
    const result = await engine().generate(request());
    expect(result.width).toBe(1200);
  });

  it('retries a throttled creation after Retry-After', async () => {
    fake.mode = 'rate-limit-then-ok';
    await engine({ timeoutMs: 10_000 }).generate(request());
    expect(waits[0]).toBe(3000);
    expect(creates()).toHaveLength(2);
  });

  it('fails at once when Retry-After would pass the deadline', async () => {
    fake.mode = 'rate-limit-then-ok';
    const err = await failure(engine({ timeoutMs: 2000 }).generate(request()));
    expect(err.message).toMatch(/rate limiting requests \(HTTP 429\).*a retry in 3 s would pass the deadline/);
    expect(err.retryable).toBe(true);
    expect(waits).toEqual([]);
  });

  it('retries a poll answered 5xx, and an upload answered 5xx (a duplicate upload is harmless)', async () => {
    fake.mode = 'poll-5xx-then-ok';
    await engine().generate(request());
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
    fake.reset();
    fake.mode = 'files-5xx-then-ok';
    await engine().generate(request());
    expect(calls().filter((c) => c === 'POST /v1/files')).toHaveLength(2);
    expect(creates()).toHaveLength(1);
  });
});

describe('replicate scene engine: failures', () => {
  it('401', async () => {
    const err = await failure(engine({ apiKey: 'r8_wrong_00000000000000' }).generate(request()));
    expect(err.message).toMatch(/Replicate refused the API key \(HTTP 401\) while uploading the input image/);
    expect(err.message).not.toContain('r8_wrong');
  });

  it('a creation answered 5xx is not sent again (it may have started a billed prediction)', async () => {
    fake.mode = 'created-then-5xx';
    const err = await failure(engine({ maxRetries: 3 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 500 while creating the prediction: An unexpected error occurred/);
    expect(creates()).toHaveLength(1);
    expect(fake.predictions.size).toBeGreaterThan(0);
    fake.reset();
    fake.mode = 'server-error';
    const e502 = await failure(engine({ maxRetries: 3 }).generate(request()));
    expect(e502.message).toMatch(/HTTP 502 while creating the prediction: upstream error/);
    expect(e502.retryable).toBe(true);
    expect(creates()).toHaveLength(1);
  });

  it('a creation whose connection broke after it was accepted is not sent again', async () => {
    fake.mode = 'reset-after-accept';
    const err = await failure(engine({ maxRetries: 3 }).generate(request()));
    expect(err.message).toMatch(/could not be reached while creating the prediction/);
    expect(creates()).toHaveLength(1);
  });

  it('a slow creation times out', async () => {
    fake.mode = 'slow';
    expect((await failure(engine({ timeoutMs: 300 }).generate(request()))).message).toMatch(/within 0.3 s/);
  });

  it('a prediction that never finishes times out and is cancelled', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, 'real-sleep').generate(request()));
    expect(err.message).toMatch(/Replicate did not finish the image within 0.3 s/);
    expect(fake.cancelled).toHaveLength(1);
    expect(fake.requests.at(-1)?.url.pathname).toBe(`/v1/predictions/${fake.cancelled[0]}/cancel`);
  });

  it("the caller's abort cancels the prediction too", async () => {
    fake.mode = 'stuck';
    const ctl = new AbortController();
    const err = await engine({}, { sleep: async () => ctl.abort() })
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).name).toBe('AbortError');
    expect(fake.cancelled).toHaveLength(1);
    expect(fake.predictions.get(fake.cancelled[0] as string)?.end?.status).toBe('canceled');
  });

  it('malformed JSON while polling', async () => {
    fake.mode = 'malformed-json';
    expect((await failure(engine().generate(request()))).message).toMatch(/not JSON while checking the prediction/);
  });

  it('a succeeded prediction without output', async () => {
    fake.mode = 'missing-output';
    expect((await failure(engine().generate(request()))).message).toMatch(/without an image URL/);
  });

  it('an output that is not an image', async () => {
    fake.mode = 'not-an-image';
    expect((await failure(engine().generate(request()))).message).toMatch(/not an image/);
  });

  it('a failed prediction', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/The Replicate prediction failed: CUDA out of memory/);
    expect(err.retryable).toBe(false);
    expect(err).not.toBeInstanceOf(ContentPolicyError);
  });

  it('an NSFW refusal is a ContentPolicyError', async () => {
    fake.mode = 'nsfw';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/content policy.*NSFW content detected/);
  });

  it('a canceled prediction is not retryable', async () => {
    fake.mode = 'canceled';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/prediction was canceled/);
    expect(err.retryable).toBe(false);
  });

  it('an aborted prediction (never started, not charged) is retryable', async () => {
    fake.mode = 'aborted';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/prediction was aborted before it started \(not charged\)/);
    expect(err.retryable).toBe(true);
  });

  it('an input the model refuses (422 problem details)', async () => {
    fake.mode = 'invalid-input';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /rejected the request \(HTTP 422\) while creating the prediction: .*aspect_ratio must be/,
    );
    expect(err.retryable).toBe(false);
    expect(creates()).toHaveLength(1);
  });

  it('flux-kontext-pro: safety_tolerance above 2 with an input image is sent as 2 (INPUT_NOT_SENT)', async () => {
    const result = await engine({ extraInput: { safety_tolerance: 5 } }).generate(request());
    expect(created()?.json.input.safety_tolerance).toBe(2);
    expect(result.warnings).toContainEqual(
      expect.objectContaining({
        code: 'INPUT_NOT_SENT',
        message: expect.stringMatching(/safety_tolerance 5 not sent/),
      }),
    );
    // Without an input image the model takes up to 6.
    fake.reset();
    await engine({ extraInput: { safety_tolerance: 5 }, imageInput: null }).generate(request());
    expect(created()?.json.input.safety_tolerance).toBe(5);
    expect(created()?.json.input.input_image).toBeUndefined();
  });

  it('refuses a malformed model id at construction', () => {
    expect(() => engine({ model: 'not a model' })).toThrow(/owner\/name/);
  });
});

import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ReplicateFake, startReplicateFake } from '../fakes/replicate-fake.ts';
import { ContentPolicyError } from '../provider-http.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { createReplicateSceneEngine, type ReplicateSettings } from './replicate-engine.ts';

const KEY = 'r8_test_0123456789abcdef';
const VERSION = 'a'.repeat(64);
let fake: ReplicateFake;
let product: Buffer;
let backdrop: Buffer;
const waits: number[] = [];
const sleep = async (ms: number) => {
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
  fake.mode = 'ok';
  fake.requests.length = 0;
  fake.cdn.requests.length = 0;
  fake.cancelled.length = 0;
  fake.files.length = 0;
  waits.length = 0;
});

const engine = (over: Partial<ReplicateSettings> = {}, realSleep = false) =>
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
    { fetcher: fake.fetcher, downloadFetcher: fake.cdn.fetcher, ...(realSleep ? {} : { sleep }) },
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

describe('replicate scene engine: happy paths', () => {
  it('creates a prediction on an official model, polls urls.get, downloads and crops to the exact size', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('replicate:black-forest-labs/flux-kontext-pro');
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 900]);
    expect(result.warnings.map((w) => w.code)).toContain('INPUT_NOT_SENT');

    const calls = fake.requests;
    const [create, ...polls] = calls;
    expect(create?.method).toBe('POST');
    expect(create?.url.pathname).toBe('/v1/models/black-forest-labs/flux-kontext-pro/predictions');
    expect(create?.headers.prefer).toBeUndefined();
    for (const c of calls) expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
    const input = create?.json.input;
    expect(create?.json.version).toBeUndefined();
    expect(input).toMatchObject({
      prompt: 'A blue perfume bottle on marble, soft window light',
      seed: 7,
      aspect_ratio: '4:3',
      output_format: 'png',
    });
    expect(input.input_image).toMatch(/^data:image\/png;base64,/);
    expect(polls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      expect.stringMatching(/^GET \/v1\/predictions\/pred\d+x$/),
      expect.stringMatching(/^GET \/v1\/predictions\/pred\d+x$/),
    ]);
    expect(waits).toEqual([100]);
    expect(fake.cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('a version id, Prefer: wait answered at once, width/height, a backdrop input and a string output', async () => {
    fake.mode = 'sync';
    const size = outputSize('3:2', 1500);
    const result = await engine({
      model: `someone/model:${VERSION}`,
      waitSeconds: 30,
      sizeInput: 'width_height',
      backdropInput: 'background_image',
    }).generate(request({ aspectRatio: '3:2', ...size }));
    expect([result.width, result.height]).toEqual([size.width, size.height]);
    expect(fake.requests).toHaveLength(1);
    const [create] = fake.requests;
    expect(create?.url.pathname).toBe('/v1/predictions');
    expect(create?.headers.prefer).toBe('wait=30');
    expect(create?.json.version).toBe(VERSION);
    expect(create?.json.input).toMatchObject({ width: size.width, height: size.height });
    expect(create?.json.input.aspect_ratio).toBeUndefined();
    expect(create?.json.input.background_image).toMatch(/^data:image\/png;base64,/);
    expect(result.warnings.map((w) => w.code)).not.toContain('INPUT_NOT_SENT');
  });

  it('accepts a single URL as output', async () => {
    fake.mode = 'string-output';
    const result = await engine().generate(request());
    expect(result.width).toBe(1200);
  });

  it('uploads input images larger than the data-URI limit through /v1/files', async () => {
    await engine({ dataUriMaxBytes: 100 }).generate(request());
    expect(fake.files).toHaveLength(1);
    expect((await sharp(fake.files[0]).metadata()).format).toBe('png');
    const create = fake.requests.find((r) => r.url.pathname.endsWith('/predictions'));
    expect(create?.json.input.input_image).toBe(`${fake.origin}/v1/files/file-1`);
  });

  it('retries a throttled creation after Retry-After', async () => {
    fake.mode = 'rate-limit-then-ok';
    await engine({ timeoutMs: 10_000 }).generate(request());
    expect(waits[0]).toBe(3000);
  });

  it('fails at once when Retry-After would pass the deadline', async () => {
    fake.mode = 'rate-limit-then-ok';
    const err = await failure(engine({ timeoutMs: 2000 }).generate(request()));
    expect(err.message).toMatch(/rate limiting requests \(HTTP 429\).*a retry in 3 s would pass the deadline/);
    expect(err.retryable).toBe(true);
    expect(waits).toEqual([]);
  });
});

describe('replicate scene engine: failures', () => {
  it('401', async () => {
    const err = await failure(engine({ apiKey: 'r8_wrong_00000000000000' }).generate(request()));
    expect(err.message).toMatch(/Replicate refused the API key \(HTTP 401\) while creating the prediction/);
    expect(err.message).not.toContain('r8_wrong');
  });

  it('502 after retries', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 1 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 502 while creating the prediction, after 2 attempts: upstream error/);
    expect(err.retryable).toBe(true);
  });

  it('a slow creation times out', async () => {
    fake.mode = 'slow';
    expect((await failure(engine({ timeoutMs: 300 }).generate(request()))).message).toMatch(/within 0.3 s/);
  });

  it('a prediction that never finishes times out and is cancelled', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, true).generate(request()));
    expect(err.message).toMatch(/Replicate did not finish the image within 0.3 s/);
    expect(fake.cancelled).toHaveLength(1);
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
    expect(err).not.toBeInstanceOf(ContentPolicyError);
  });

  it('an NSFW refusal is a ContentPolicyError', async () => {
    fake.mode = 'nsfw';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/content policy.*NSFW content detected/);
  });

  it('a canceled prediction', async () => {
    fake.mode = 'canceled';
    expect((await failure(engine().generate(request()))).message).toMatch(/prediction was canceled/);
  });

  it('an input the model refuses (422)', async () => {
    fake.mode = 'invalid-input';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /rejected the request \(HTTP 422\) while creating the prediction: .*aspect_ratio must be/,
    );
    expect(err.retryable).toBe(false);
  });

  it('refuses a malformed model id at construction', () => {
    expect(() => engine({ model: 'not a model' })).toThrow(/owner\/name/);
  });
});

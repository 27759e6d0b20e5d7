import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FalFake, startFalFake } from '../fakes/fal-fake.ts';
import { ContentPolicyError, type ProviderDeps } from '../provider-http.ts';
import type { InputHost } from '../provider-inputs.ts';
import { GenerationError, outputSize, type SceneRequest } from '../scene-engine.ts';
import { createFalSceneEngine, type FalSettings } from './fal-engine.ts';
import { falAppId, falEndpointId, falRetry, readFalError } from './fal-queue.ts';

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
  fake.reset();
  waits.length = 0;
});

const engine = (over: Partial<FalSettings> = {}, depsOver: Partial<ProviderDeps> = {}, realSleep = false) =>
  createFalSceneEngine(
    {
      baseUrl: fake.origin,
      storageBaseUrl: fake.rest.origin,
      apiKey: KEY,
      model: 'fal-ai/flux-pro/kontext',
      timeoutMs: 3000,
      retryBaseMs: 5,
      pollIntervalMs: 100,
      ...over,
    },
    { fetcher: fake.fetcher, downloadFetcher: fake.cdn.fetcher, ...(realSleep ? {} : { sleep }), ...depsOver },
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

const submits = () => fake.calls().filter((c) => c.method === 'POST');
const resultGets = () => fake.calls().filter((c) => c.method === 'GET' && /\/requests\/[\w-]+$/.test(c.url.pathname));
const posted = () => submits()[0]?.json;
/** Every string in a value (to check no data URI went anywhere). */
const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];

describe('fal scene engine: the queue', () => {
  it('submits, follows IN_QUEUE → IN_PROGRESS → COMPLETED, downloads and crops to the exact size', async () => {
    const result = await engine().generate(request());
    expect(result.engine).toBe('fal:fal-ai/flux-pro/kontext');
    const meta = await sharp(result.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 900]);
    expect(result.productBoxes).toHaveLength(1);
    expect(result.warnings.map((w) => w.code)).toEqual(
      expect.arrayContaining(['INPUT_NOT_SENT', 'PROVIDER_UPSCALED', 'PRODUCT_PLACEMENT_UNKNOWN']),
    );
    expect(result.warnings.find((w) => w.code === 'INPUT_NOT_SENT')?.message).toMatch(
      /takes one input image: backdrop image not sent \(fal-ai\/flux-pro\/kontext\/multi takes several\)/,
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
    expect(posted()).toMatchObject({
      prompt: 'A green bottle on wet pebbles at dawn',
      seed: 42,
      num_images: 1,
      output_format: 'png',
      aspect_ratio: '16:9',
    });
    // Poll backoff: 100 ms, then ×1.5.
    expect(waits).toEqual([100, 150]);
    // The result download carries no key.
    const downloads = fake.cdn.requests.filter((r) => r.url.pathname.startsWith('/results/'));
    expect(downloads).toHaveLength(1);
    expect(downloads[0]?.headers.authorization).toBeUndefined();
  });

  it('input images go to fal storage (initiate with the key on the REST origin, PUT without it), never as data URIs', async () => {
    await engine().generate(request());
    const initiate = fake.rest.requests;
    expect(initiate.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'POST /storage/upload/initiate?storage_type=fal-cdn-v3',
    ]);
    expect(initiate[0]?.headers.authorization).toBe(`Key ${KEY}`);
    expect(initiate[0]?.json).toEqual({ content_type: 'image/png', file_name: 'product-image-1.png' });
    const puts = fake.cdn.requests.filter((r) => r.method === 'PUT');
    expect(puts).toHaveLength(1);
    expect(puts[0]?.headers.authorization).toBeUndefined();
    expect(puts[0]?.headers['content-type']).toBe('image/png');
    const up = fake.uploads[0];
    expect(posted().image_url).toBe(`${fake.cdn.origin}/files/${up?.token}/product-image-1.png`);
    const sent = await sharp(up?.bytes).metadata();
    expect([sent.format, sent.width, sent.height]).toEqual(['png', 300, 500]);
    expect(strings(posted()).some((s) => s.startsWith('data:'))).toBe(false);
  });

  it('a link to our own storage is used first (no upload)', async () => {
    const published: string[] = [];
    const inputHost: InputHost = {
      publish: async (bytes, o) => {
        published.push(`${o.contentType} ${bytes.length}`);
        return 'https://links.atelier.test/in/abc123.png';
      },
    };
    await engine({}, { inputHost }).generate(request({ backdrop: undefined }));
    expect(published).toHaveLength(1);
    expect(posted().image_url).toBe('https://links.atelier.test/in/abc123.png');
    expect(fake.rest.requests).toHaveLength(0);
  });

  it('a prompt-only request goes to fal-ai/flux-pro/kontext/text-to-image (kontext requires image_url)', async () => {
    const result = await engine().generate(request({ products: [], backdrop: undefined }));
    expect(result.engine).toBe('fal:fal-ai/flux-pro/kontext/text-to-image');
    expect(submits().map((c) => c.url.pathname)).toEqual(['/fal-ai/flux-pro/kontext/text-to-image']);
    expect(posted().image_url).toBeUndefined();
    expect(fake.calls()[1]?.url.pathname).toMatch(/^\/fal-ai\/flux-pro\/requests\/[\w-]+\/status$/);
    expect(result.warnings.map((w) => w.code)).not.toContain('INPUT_NOT_SENT');
  });

  it('a backdrop alone goes as image_url', async () => {
    await engine().generate(request({ products: [] }));
    expect(submits().map((c) => c.url.pathname)).toEqual(['/fal-ai/flux-pro/kontext']);
    expect(posted().image_url).toMatch(/\/files\/[\w-]+\/backdrop-image\.png$/);
  });

  it('image_urls only for the /multi model: refused for kontext at creation, sent for kontext/multi', async () => {
    expect(() => engine({ imageInput: 'image_urls' })).toThrow(
      /takes its input image as image_url, not image_urls \(for several images use fal-ai\/flux-pro\/kontext\/multi\)/,
    );
    expect(() => engine({ sizeInput: 'image_size' })).toThrow(/takes the size as aspect_ratio/);
    const result = await engine({ model: 'fal-ai/flux-pro/kontext/multi' }).generate(
      request({ products: [{ bytes: product }, { bytes: product }] }),
    );
    expect(posted().image_urls).toHaveLength(3);
    expect(posted().image_url).toBeUndefined();
    expect(result.warnings.map((w) => w.code)).not.toContain('INPUT_NOT_SENT');
  });

  it('safety_tolerance is sent as the string enum "1".."6" (a number is converted; a bad value stops creation)', async () => {
    await engine({ extraInput: { safety_tolerance: 5, guidance_scale: 4 } }).generate(request());
    expect(posted()).toMatchObject({ safety_tolerance: '5', guidance_scale: 4 });
    expect(() => engine({ extraInput: { safety_tolerance: 9 } })).toThrow(/safety_tolerance as "1" to "6"/);
  });

  it('a model not in the table: image_size and image_urls as set, extra input merged', async () => {
    const size = outputSize('21:9', 1400);
    const result = await engine({
      model: 'fal-ai/some-model',
      sizeInput: 'image_size',
      imageInput: 'image_urls',
      extraInput: { guidance_scale: 3.5 },
    }).generate(request({ aspectRatio: '21:9', ...size, products: [{ bytes: product }, { bytes: product }] }));
    expect([result.width, result.height]).toEqual([size.width, size.height]);
    const input = posted();
    expect(input.image_size).toEqual(size);
    expect(input.aspect_ratio).toBeUndefined();
    expect(input.image_urls).toHaveLength(3);
    expect(input.guidance_scale).toBe(3.5);
    expect(fake.uploads.filter((u) => u.bytes)).toHaveLength(3);
  });

  it('ignores status and result URLs on another origin (the key stays with fal)', async () => {
    fake.mode = 'foreign-urls';
    const result = await engine().generate(request());
    expect(result.width).toBe(1600);
    expect(fake.calls().filter((c) => c.url.pathname.endsWith('/status'))).toHaveLength(3);
  });

  it('builds job URLs by fal app-id rule: workflows/ and comfy/ keep their namespace, 123-app is 123/app', async () => {
    expect(falAppId('fal-ai/kling-video/v2.1/standard/image-to-video')).toBe('fal-ai/kling-video');
    expect(falAppId('workflows/acme/product-shot/v2')).toBe('workflows/acme/product-shot');
    expect(falAppId('comfy/acme/flow')).toBe('comfy/acme/flow');
    expect(falEndpointId('123-my-app')).toBe('123/my-app');
    expect(() => falEndpointId('workflows/acme')).toThrow(/not an endpoint id/);

    fake.mode = 'no-urls';
    for (const model of ['workflows/acme/product-shot', 'comfy/acme/flow/edit', '123-my-app']) {
      fake.reset();
      fake.mode = 'no-urls';
      await engine({ model }).generate(request());
      const app = falAppId(falEndpointId(model));
      const paths = fake.calls().map((c) => c.url.pathname);
      expect(paths[0]).toBe(`/${falEndpointId(model)}`);
      expect(paths.slice(1).every((p) => p.startsWith(`/${app}/requests/`))).toBe(true);
    }
  });
});

describe('fal scene engine: retries (fal-js QUEUE_RETRY_CONFIG)', () => {
  it('the policy: creates only on 429/502/503/504, never after a lost connection; a user 504 never', () => {
    const url = 'https://queue.fal.run/x/y';
    const post = (status?: number, network?: 'connection' | 'timeout') =>
      falRetry({ method: 'POST', url, status, network });
    expect([429, 502, 503, 504].map((s) => post(s))).toEqual([true, true, true, true]);
    expect([400, 408, 409, 422, 500].map((s) => post(s))).toEqual([false, false, false, false, false]);
    expect(post(undefined, 'connection')).toBe(false);
    expect(post(undefined, 'timeout')).toBe(false);
    expect(falRetry({ method: 'GET', url, status: 500 })).toBe(true);
    expect(falRetry({ method: 'GET', url, network: 'connection' })).toBe(true);
    const user = { 'x-fal-request-timeout-type': 'user' };
    expect(falRetry({ method: 'POST', url, status: 504, headers: user })).toBe(false);
    expect(falRetry({ method: 'GET', url, status: 504, headers: user })).toBe(false);
  });

  it('retries a 429 on submission', async () => {
    fake.mode = 'rate-limit-then-ok';
    await engine().generate(request());
    expect(waits[0]).toBe(5);
    expect(submits()).toHaveLength(2);
  });

  it('retries a 502 on submission', async () => {
    fake.mode = 'submit-502-once';
    await engine().generate(request());
    expect(submits()).toHaveLength(2);
  });

  it('a submission answered 500 is not sent again (the job may exist: a second would be billed)', async () => {
    fake.mode = 'submit-500-once';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/fal\.ai failed with HTTP 500 while submitting the job: Internal Server Error/);
    expect(submits()).toHaveLength(1);
    expect(fake.jobs.size).toBe(1);
  });

  it('a submission whose connection was lost is not sent again', async () => {
    fake.mode = 'submit-drop';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/could not be reached while submitting the job/);
    expect(submits()).toHaveLength(1);
  });

  it('a 504 with x-fal-request-timeout-type: user is not retried', async () => {
    fake.mode = 'submit-504-user';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/HTTP 504 while submitting the job/);
    expect(submits()).toHaveLength(1);
  });

  it('a status 500 is read again', async () => {
    fake.mode = 'status-500-once';
    await engine().generate(request());
    expect(fake.calls().filter((c) => c.url.pathname.endsWith('/status'))).toHaveLength(4);
  });

  it('503 on submission, after retries', async () => {
    fake.mode = 'server-error';
    const err = await failure(engine({ maxRetries: 2 }).generate(request()));
    expect(err.message).toMatch(/failed with HTTP 503 while submitting the job, after 3 attempts: Service temporarily/);
    expect(err.retryable).toBe(true);
  });
});

describe('fal scene engine: failures', () => {
  it('401', async () => {
    const err = await failure(engine({ apiKey: 'fal-wrong-key-999999999' }).generate(request()));
    expect(err.message).toMatch(/fal\.ai refused the API key \(HTTP 401\) while uploading the product image 1/);
    expect(err.message).not.toContain('fal-wrong');
  });

  it('a slow submission times out', async () => {
    fake.mode = 'slow';
    const err = await failure(engine({ timeoutMs: 300 }).generate(request()));
    expect(err.message).toMatch(/did not finish the image within 0.3 s/);
  });

  it('a job stuck IN_QUEUE times out and is cancelled', async () => {
    fake.mode = 'stuck';
    const err = await failure(engine({ timeoutMs: 300, pollIntervalMs: 20 }, {}, true).generate(request()));
    expect(err.message).toMatch(/did not finish the image within 0.3 s/);
    expect(err.retryable).toBe(true);
    const polled = fake.calls().find((c) => c.url.pathname.endsWith('/status'))?.url.pathname;
    expect(fake.cancelled).toHaveLength(1);
    expect(polled).toContain(`/requests/${fake.cancelled[0]}/status`);
    expect(fake.calls().at(-1)).toMatchObject({ method: 'PUT' });
    expect(fake.calls().at(-1)?.url.pathname).toBe(`/fal-ai/flux-pro/requests/${fake.cancelled[0]}/cancel`);
  });

  it("the caller's abort cancels the job too", async () => {
    fake.mode = 'stuck';
    const ctl = new AbortController();
    const abortingSleep = async () => ctl.abort();
    const err = await engine({}, { sleep: abortingSleep })
      .generate(request({ signal: ctl.signal }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).name).toBe('AbortError');
    expect(fake.cancelled).toHaveLength(1);
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

  it('a content policy violation (422 from the result call) is a ContentPolicyError', async () => {
    fake.mode = 'content-policy';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/content policy.*prompt: The content was flagged by a content checker/);
    expect(resultGets()).toHaveLength(1);
  });

  it('a model error (422 detail[] from the result call) names the member and the type, not retried', async () => {
    fake.mode = 'bad-request';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /fal\.ai rejected the model input \(HTTP 422\) while fetching the result: image_url: Image dimensions are too small: minimum 300x300 \(image_too_small\)/,
    );
    expect(err.retryable).toBe(false);
    expect(resultGets()).toHaveLength(1);
  });

  it('a request error (503 {detail, error_type} from the result call) is read once with its type', async () => {
    fake.mode = 'result-503';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /fal\.ai reported the job failed \(HTTP 503, runner_disconnected: the runner disconnected during processing\) while fetching the result: Runner disconnected/,
    );
    expect(err.retryable).toBe(true);
    expect(resultGets()).toHaveLength(1);
  });

  it('a request timeout (504 from the result call)', async () => {
    fake.mode = 'result-504';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(
      /HTTP 504, request_timeout: the request exceeded its allowed processing time.*Request timed out/,
    );
    expect(resultGets()).toHaveLength(1);
  });

  it('error bodies: detail[] with loc, flat detail with error_type, the X-Fal-Error-Type header alone', () => {
    expect(
      readFalError(
        JSON.stringify({
          detail: [{ loc: ['body', 'tail_image_url'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
        }),
      ),
    ).toMatchObject({
      message: 'tail_image_url: Extra inputs are not permitted (extra_forbidden)',
      code: 'extra_forbidden',
    });
    expect(readFalError('{"detail":"Request timed out","error_type":"request_timeout"}')).toMatchObject({
      message: 'Request timed out',
      code: 'request_timeout',
    });
    expect(readFalError('{"detail":"No runner"}', { 'x-fal-error-type': 'runner_scheduling_failure' })).toMatchObject({
      message: 'No runner',
      code: 'runner_scheduling_failure',
    });
  });

  it('an image flagged by the NSFW checker is a ContentPolicyError', async () => {
    fake.mode = 'nsfw-flag';
    const err = await failure(engine().generate(request()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(err.message).toMatch(/NSFW/);
  });

  it('a COMPLETED status with an error (as fal-py reads it) fails the job', async () => {
    fake.mode = 'failed';
    const err = await failure(engine().generate(request()));
    expect(err.message).toMatch(/fal\.ai reported the job failed: Runner disconnected/);
    expect(err).not.toBeInstanceOf(ContentPolicyError);
    expect(err.retryable).toBe(true);
    expect(resultGets()).toHaveLength(0);
  });
});

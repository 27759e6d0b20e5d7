import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetcher } from '../../adapters/fetch/fetcher.ts';
import { type FakeServer, makePng, sendBytes, sendJson, startFakeServer } from './fakes/fake-http.ts';
import {
  ContentPolicyError,
  createProviderHttp,
  encodeMultipart,
  fitToRequest,
  isContentPolicy,
  nearestSize,
  providerError,
  redact,
} from './provider-http.ts';
import { GenerationError } from './scene-engine.ts';

const KEY = 'sk-provider-secret-123456';
let api: FakeServer;
let other: FakeServer;
let png: Buffer;
const behaviour: { flaky: number; retryAfter?: string } = { flaky: 0 };
const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

beforeAll(async () => {
  png = await makePng(64, 48);
  other = await startFakeServer((req, res) => {
    if (req.url.pathname === '/big.png') return sendBytes(res, Buffer.alloc(5000, 1));
    return sendBytes(res, png);
  });
  api = await startFakeServer((req, res) => {
    switch (req.url.pathname) {
      case '/flaky':
        if (behaviour.flaky-- > 0) {
          return sendJson(
            res,
            503,
            { error: { message: 'overloaded' } },
            behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {},
          );
        }
        return sendJson(res, 200, { ok: true });
      case '/echo-key':
        return sendJson(res, 400, { error: { message: `bad request for key ${KEY}` } });
      case '/image.png':
        return sendBytes(res, png);
      case '/redirect-away':
        return res.writeHead(302, { location: `${other.origin}/img.png` }).end();
      default:
        return sendJson(res, 404, { detail: 'Not Found' });
    }
  });
});
afterAll(async () => {
  await api.close();
  await other.close();
});
beforeEach(() => {
  behaviour.flaky = 0;
  delete behaviour.retryAfter;
  waits.length = 0;
  api.requests.length = 0;
  other.requests.length = 0;
});

const client = (over: Parameters<typeof createProviderHttp>[0] extends infer C ? Partial<C> : never = {}) =>
  createProviderHttp(
    {
      label: 'TestProvider',
      apiOrigin: api.origin,
      headers: { authorization: `Bearer ${KEY}` },
      secrets: [KEY],
      retryBaseMs: 10,
      timeoutMs: 3000,
      ...over,
    },
    { fetcher: api.fetcher, downloadFetcher: other.fetcher, sleep },
  );

async function failure(p: Promise<unknown>): Promise<GenerationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GenerationError);
  expect((err as Error).message).not.toContain(KEY);
  return err as GenerationError;
}

describe('provider-http: retries', () => {
  it('retries 5xx with exponential backoff and succeeds', async () => {
    behaviour.flaky = 2;
    const res = await client().session().json(`${api.origin}/flaky`);
    expect(res.json).toEqual({ ok: true });
    expect(waits).toEqual([10, 20]);
  });

  it('honours Retry-After (seconds) over the backoff', async () => {
    behaviour.flaky = 1;
    behaviour.retryAfter = '1.5';
    await client().session().json(`${api.origin}/flaky`);
    expect(waits).toEqual([1500]);
  });

  it('a Retry-After longer than allowed fails at once, retryable', async () => {
    behaviour.flaky = 1;
    behaviour.retryAfter = '120';
    const err = await failure(client({ maxRetryDelayMs: 5000 }).session().json(`${api.origin}/flaky`));
    expect(err.message).toMatch(/asked to wait 120 s before trying again \(HTTP 503\), longer than the 5 s allowed/);
    expect(err.retryable).toBe(true);
    expect(waits).toEqual([]);
  });

  it('maxRetries 0: one attempt', async () => {
    behaviour.flaky = 5;
    const err = await failure(client({ maxRetries: 0 }).session().json(`${api.origin}/flaky`));
    expect(err.message).toMatch(/TestProvider failed with HTTP 503 while calling \/flaky: overloaded/);
    expect(api.requests).toHaveLength(1);
  });

  it('never repeats the key, even when the provider echoes it', async () => {
    const err = await failure(client().session().json(`${api.origin}/echo-key`));
    expect(err.message).toMatch(
      /rejected the request \(HTTP 400\) while calling \/echo-key: bad request for key \[redacted\]/,
    );
  });
});

describe('provider-http: downloads', () => {
  it('downloads from the API origin with the auth header, and from another origin without it', async () => {
    const s = client().session();
    expect((await s.downloadImage(`${api.origin}/image.png`)).equals(png)).toBe(true);
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect((await s.downloadImage(`${other.origin}/img.png`)).equals(png)).toBe(true);
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('a redirect off the API origin drops the key (fetcher rule) and stays bounded', async () => {
    const s = createProviderHttp(
      { label: 'TestProvider', apiOrigin: api.origin, headers: { authorization: `Bearer ${KEY}` }, secrets: [KEY] },
      {
        fetcher: createFetcher({ policy: (a, p) => a === '127.0.0.1' && (p === api.port || p === other.port) }),
        sleep,
      },
    ).session();
    await s.downloadImage(`${api.origin}/redirect-away`);
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('result URLs on other origins go through the public-only download fetcher by default', async () => {
    const s = createProviderHttp(
      { label: 'TestProvider', apiOrigin: api.origin, maxRetries: 0 },
      { fetcher: api.fetcher, downloadFetcher: createFetcher(), sleep },
    ).session();
    const err = await failure(s.downloadImage(`${other.origin}/img.png`));
    expect(err.message).toMatch(
      /could not be reached while downloading the result image: .*not a public internet address/,
    );
    expect(other.requests).toHaveLength(0);
  });

  it('decodes data: URIs and bounds the image size', async () => {
    const s = client({ maxImageBytes: 4000 }).session();
    expect((await s.downloadImage(`data:image/png;base64,${png.toString('base64')}`)).equals(png)).toBe(true);
    const err = await failure(s.downloadImage(`${other.origin}/big.png`));
    expect(err.message).toMatch(/larger than allowed/);
    const err2 = await failure(s.decodeBase64Image(Buffer.alloc(5000).toString('base64')));
    expect(err2.message).toMatch(/larger than 4000 bytes/);
  });

  it('rejects bytes that are not an image, and empty bytes', async () => {
    const s = client().session();
    expect((await failure(s.decodeBase64Image(Buffer.from('GIF89a-no').toString('base64')))).message).toMatch(
      /not an image/,
    );
    expect((await failure(s.decodeBase64Image(''))).message).toMatch(/empty result image/);
    expect((await failure(s.downloadImage('not a url'))).message).toMatch(/invalid result image URL/);
  });
});

describe('provider-http: reading errors', () => {
  it('reads the usual error shapes', () => {
    expect(providerError(Buffer.from('{"error":{"message":"m","code":"c"}}'))).toEqual({ message: 'm', code: 'c' });
    expect(providerError(Buffer.from('{"detail":[{"msg":"a","type":"t"},{"msg":"b"}]}'))).toEqual({
      message: 'a; b',
      code: 't',
    });
    expect(providerError(Buffer.from('{"title":"Unauthenticated","detail":"no token","status":401}')).message).toBe(
      'no token',
    );
    expect(providerError(Buffer.from('{"error":{"type":"x","message":"Prompt failed","details":"node 4"}}'))).toEqual({
      message: 'Prompt failed: node 4',
      code: 'x',
    });
    expect(providerError(Buffer.from('<html>502</html>'))).toEqual({});
    expect(providerError(Buffer.from('plain text'))).toEqual({ message: 'plain text' });
  });

  it('tells content-policy refusals from other errors', () => {
    expect(isContentPolicy({ code: 'moderation_blocked' })).toBe(true);
    expect(isContentPolicy({ code: 'content_policy_violation' })).toBe(true);
    expect(isContentPolicy({ message: 'NSFW content detected. Try again.' })).toBe(true);
    expect(isContentPolicy({ message: 'Your request was rejected by the safety system.' })).toBe(true);
    expect(isContentPolicy({ message: 'safety_tolerance must be at most 6' })).toBe(false);
    expect(isContentPolicy({ message: 'CUDA out of memory', code: 'torch.OutOfMemoryError' })).toBe(false);
    expect(new ContentPolicyError('x')).toBeInstanceOf(GenerationError);
  });

  it('redacts secrets and token-looking strings', () => {
    expect(redact(`key ${KEY} here`, [KEY])).toBe('key [redacted] here');
    expect(redact('Incorrect API key provided: sk-abcd1234*****wxyz')).toBe('Incorrect API key provided: [redacted]');
    expect(redact('Authorization: Bearer abcd1234efgh')).toBe('Authorization: Bearer [redacted]');
    expect(redact('x'.repeat(500)).length).toBe(300);
  });
});

describe('provider-http: sizes and bytes', () => {
  it('picks the supported size nearest the aspect ratio', () => {
    const sizes = [
      { width: 1024, height: 1024 },
      { width: 1536, height: 1024 },
      { width: 1024, height: 1536 },
    ];
    expect(nearestSize(sizes, 1600, 900)).toEqual({ width: 1536, height: 1024 });
    expect(nearestSize(sizes, 900, 1600)).toEqual({ width: 1024, height: 1536 });
    expect(nearestSize(sizes, 1200, 1100)).toEqual({ width: 1024, height: 1024 });
    expect(nearestSize(sizes, 2100, 900)).toEqual({ width: 1536, height: 1024 });
  });

  it('cover-crops to exactly the requested size', async () => {
    const out = await fitToRequest(await makePng(1536, 1024), 1344, 576);
    const meta = await sharp(out.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1344, 576]);
    expect(out.warnings.map((w) => w.code)).toEqual(['PROVIDER_ASPECT_CROPPED']);
  });

  it('encodes multipart that a server parses back', async () => {
    const { bytes, contentType } = await encodeMultipart([
      ['model', 'm'],
      ['image[]', { bytes: png, filename: 'a.png', contentType: 'image/png' }],
      ['image[]', { bytes: png, filename: 'b.png', contentType: 'image/png' }],
    ]);
    const form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
    expect(form.get('model')).toBe('m');
    const files = form.getAll('image[]') as File[];
    expect(files.map((f) => [f.name, f.type, f.size])).toEqual([
      ['a.png', 'image/png', png.length],
      ['b.png', 'image/png', png.length],
    ]);
  });
});

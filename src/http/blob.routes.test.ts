import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, tmpDir } from '../../test/helpers/app.ts';

/** The error member of a standard error body. */
const errorOf = async (r: Response) =>
  ((await r.json()) as { error: { code: string; message: string; details?: unknown } }).error;

// The blob routes touch no database, so they run on SQLite only.

/** Path and query of a link, for app.inject. */
const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('local blob routes through app.inject', () => {
  let t: TestApp;
  let offset = 0;
  const bytes = Buffer.from('0123456789abcdefghij');

  beforeAll(async () => {
    t = await createTestApp('sqlite', { clock: () => new Date(Date.now() + offset) });
  });
  afterAll(async () => t?.close());

  const uploadLink = (key: string, contentLength = bytes.length, contentType = 'image/png') =>
    t.deps.storage.createUploadLink(key, { contentLength, contentType, expiresInSeconds: 900 });

  it('builds links on the public URL under /v1/blobs/<key>', async () => {
    const link = await uploadLink('orgs/o/assets/a/original');
    expect(link.url).toMatch(
      /^http:\/\/localhost:8080\/v1\/blobs\/orgs\/o\/assets\/a\/original\?expires=\d+&length=20&type=image%2Fpng&signature=[\w-]{43}$/,
    );
  });

  it('stores an upload sent without an API key and serves it with safe headers', async () => {
    const link = await uploadLink('inj/obj');
    const put = await t.request({ method: 'PUT', url: local(link.url), headers: link.headers, payload: bytes });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.body).toBe('');
    expect(put.headers['access-control-allow-origin']).toBe('*');

    const url = local(await t.deps.storage.createDownloadLink('inj/obj', { expiresInSeconds: 600, fileName: 'a.png' }));
    const get = await t.request({ method: 'GET', url });
    expect(get.statusCode).toBe(200);
    expect(get.rawPayload).toEqual(bytes);
    expect(get.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': '20',
      'content-disposition': `inline; filename="a.png"; filename*=UTF-8''a.png`,
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'access-control-allow-origin': '*',
    });
    const maxAge = Number(/max-age=(\d+)/.exec(String(get.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(600);
    expect(maxAge).toBeLessThanOrEqual(900);

    const head = await t.request({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('20');
    expect(head.body).toBe('');
  });

  it('serves one byte range, and refuses one past the end with 416', async () => {
    await t.deps.storage.put('inj/range', bytes, { contentType: 'text/plain' });
    const url = local(await t.deps.storage.createDownloadLink('inj/range', { expiresInSeconds: 60 }));
    const cases: [string, number, string | undefined, string][] = [
      ['bytes=0-3', 206, 'bytes 0-3/20', '0123'],
      ['bytes=15-', 206, 'bytes 15-19/20', 'fghij'],
      ['bytes=-2', 206, 'bytes 18-19/20', 'ij'],
      ['bytes=18-500', 206, 'bytes 18-19/20', 'ij'],
      ['bytes=0-1,4-5', 200, undefined, bytes.toString()],
      ['lines=1-2', 200, undefined, bytes.toString()],
    ];
    for (const [range, status, contentRange, body] of cases) {
      const res = await t.request({ method: 'GET', url, headers: { range } });
      expect(res.statusCode, range).toBe(status);
      expect(res.headers['content-range'], range).toBe(contentRange);
      expect(res.body, range).toBe(body);
      expect(res.headers['content-length'], range).toBe(String(body.length));
    }
    const ifRange = await t.request({ method: 'GET', url, headers: { range: 'bytes=0-3', 'if-range': '"x"' } });
    expect(ifRange.statusCode).toBe(200);
    const past = await t.request({ method: 'GET', url, headers: { range: 'bytes=20-' } });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */20');
    expect(past.json().error.code).toBe('RANGE_NOT_SATISFIABLE');
  });

  it('answers expired, altered and traversing links with the standard 403 body', async () => {
    await t.deps.storage.put('inj/secret', bytes, { contentType: 'text/plain' });
    offset = -3600_000;
    const expired = local(await t.deps.storage.createDownloadLink('inj/secret', { expiresInSeconds: 60 }));
    offset = 0;
    const res = await t.request({ method: 'GET', url: expired });
    expect(res.statusCode).toBe(403);
    const body = res.json();
    expect(body.requestId).toMatch(UUID);
    expect(body.error).toEqual({
      code: 'FORBIDDEN',
      message: 'This link has expired; ask the API for a new one',
      details: { reason: 'link_expired' },
    });

    const good = local(await t.deps.storage.createDownloadLink('inj/secret', { expiresInSeconds: 60 }));
    const query = good.slice(good.indexOf('?'));
    for (const url of [
      good.replace(/signature=[\w-]{4}/, 'signature=AAAA'),
      `/v1/blobs/..%2Fsigning.key${query}`,
      `/v1/blobs/%2e%2e/%2e%2e/signing.key${query}`,
      `/v1/blobs/inj/..%2Fsigning.key${query}`,
      `/v1/blobs/.tmp/x${query}`,
      `/v1/blobs/inj/secret~meta${query}`,
      '/v1/blobs/inj/secret',
      `/v1/blobs/inj/secret${query}&expires=1`,
    ]) {
      const r = await t.request({ method: 'GET', url });
      expect([400, 403, 404], url).toContain(r.statusCode);
      expect(r.json().error.code, url).toMatch(/^(FORBIDDEN|INVALID_REQUEST|NOT_FOUND)$/);
      expect(r.body).not.toContain(bytes.toString());
    }
  });

  it('answers 404 when the object behind a valid link is gone', async () => {
    const url = local(await t.deps.storage.createDownloadLink('inj/never', { expiresInSeconds: 60 }));
    const res = await t.request({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });

  it('refuses uploads of another size or type than signed, before storing anything', async () => {
    const link = await uploadLink('inj/strict', 10, 'image/png');
    const url = local(link.url);
    const big = await t.request({ method: 'PUT', url, headers: link.headers, payload: Buffer.alloc(11) });
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { expectedBytes: 10 } });
    expect(big.headers.connection).toBe('close');
    const small = await t.request({ method: 'PUT', url, headers: link.headers, payload: Buffer.alloc(9) });
    expect(small.statusCode).toBe(400);
    expect(small.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { expectedBytes: 10, receivedBytes: 9 },
    });
    for (const headers of [{ 'content-type': 'image/jpeg' }, { 'content-type': 'application/json' }, {}]) {
      const r = await t.request({ method: 'PUT', url, headers, payload: Buffer.alloc(10) });
      expect(r.statusCode, JSON.stringify(headers)).toBe(403);
      expect(r.json().error.details).toEqual({ reason: 'content_type_mismatch', expectedContentType: 'image/png' });
    }
    expect(await t.deps.storage.head('inj/strict')).toBeUndefined();
    // A JSON body is not parsed either: it is stored as the bytes it is.
    const json = await uploadLink('inj/json', 9, 'application/json');
    const r = await t.request({ method: 'PUT', url: local(json.url), headers: json.headers, payload: '{"a":"b"}' });
    expect(r.statusCode).toBe(200);
    expect((await t.deps.storage.readRange('inj/json', 0, 100)).toString()).toBe('{"a":"b"}');
  });

  it('answers CORS preflights for browser uploads', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/v1/blobs/any/key',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, PUT');
    expect(res.headers['access-control-allow-headers']).toBe('content-type');
  });
});

describe('local blob links across restarts and secrets', () => {
  const dataDir = tmpDir();
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the generated secret in signing.key (0600), so links outlive a restart', async () => {
    const first = await createTestApp('sqlite', { env: { ATELIER_DATA_DIR: dataDir } });
    await first.deps.storage.put('r/obj', Buffer.from('kept'), { contentType: 'text/plain' });
    const url = local(await first.deps.storage.createDownloadLink('r/obj', { expiresInSeconds: 600 }));
    await first.close();
    expect(fs.statSync(path.join(dataDir, 'signing.key')).mode & 0o777).toBe(0o600);

    const second = await createTestApp('sqlite', { env: { ATELIER_DATA_DIR: dataDir } });
    const res = await second.request({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('kept');
    await second.close();

    // ATELIER_SIGNING_SECRET wins over the file: links signed with the other secret are refused.
    const third = await createTestApp('sqlite', {
      env: { ATELIER_DATA_DIR: dataDir, ATELIER_SIGNING_SECRET: 's'.repeat(40) },
    });
    expect((await third.request({ method: 'GET', url })).statusCode).toBe(403);
    const own = local(await third.deps.storage.createDownloadLink('r/obj', { expiresInSeconds: 600 }));
    expect((await third.request({ method: 'GET', url: own })).statusCode).toBe(200);
    await third.close();
  });

  it('registers no blob routes when storage is S3', async () => {
    const t = await createTestApp('sqlite', {
      env: {
        S3_BUCKET: 'atelier-x',
        S3_ENDPOINT: 'http://127.0.0.1:9',
        S3_ACCESS_KEY_ID: 'a',
        S3_SECRET_ACCESS_KEY: 'b',
      },
    });
    expect(t.deps.storage.kind).toBe('s3');
    expect((await t.request({ method: 'GET', url: '/v1/blobs/a/b?expires=1&signature=x' })).statusCode).toBe(404);
    await t.close();
  });
});

describe('local blob routes on a listening server', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    // A keep-alive connection whose last response is still finishing is not "idle" when close()
    // looks, and would then hold close() for the keep-alive timeout (72 s).
    t?.app.server.closeAllConnections();
    await t?.close();
  });

  const onServer = (url: string) => new URL(local(url), base);
  const blobDir = () => path.join(t.config.dataDir, 'blobs');

  /** A body of `size` bytes sent chunked (no Content-Length), so the server cannot tell its size up front. */
  function chunked(size: number, chunk = 256 * 1024): ReadableStream<Uint8Array> & { pulled(): number } {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= size) return controller.close();
        const n = Math.min(chunk, size - sent);
        controller.enqueue(new Uint8Array(n).fill(sent % 251));
        sent += n;
      },
    });
    return Object.assign(stream, { pulled: () => sent });
  }
  const expectedBytes = (size: number, chunk = 256 * 1024) => {
    const b = Buffer.alloc(size);
    for (let at = 0; at < size; at += chunk) b.fill(at % 251, at, Math.min(size, at + chunk));
    return b;
  };

  it('streams several MB in and out, past the JSON body limit, without buffering them', async () => {
    const size = 6 * 1024 * 1024 + 123;
    expect(size).toBeGreaterThan(t.config.bodyLimit);
    const link = await t.deps.storage.createUploadLink('big/obj', {
      contentLength: size,
      contentType: 'video/mp4',
      expiresInSeconds: 60,
    });
    const put = await fetch(onServer(link.url), {
      method: 'PUT',
      headers: link.headers,
      body: chunked(size),
      duplex: 'half',
    } as RequestInit);
    expect(put.status, await put.text()).toBe(200);

    const res = await fetch(onServer(await t.deps.storage.createDownloadLink('big/obj', { expiresInSeconds: 60 })));
    expect(res.headers.get('content-length')).toBe(String(size));
    const got = Buffer.from(await res.arrayBuffer());
    const want = expectedBytes(size);
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(want).digest('hex'));
    expect(fs.readdirSync(path.join(blobDir(), '.tmp'))).toEqual([]);
  });

  it('stops reading a chunked upload once it passes the signed size, and keeps nothing', async () => {
    const link = await t.deps.storage.createUploadLink('big/over', {
      contentLength: 1024 * 1024,
      contentType: 'video/mp4',
      expiresInSeconds: 60,
    });
    const body = chunked(64 * 1024 * 1024);
    const outcome = await fetch(onServer(link.url), {
      method: 'PUT',
      headers: link.headers,
      body,
      duplex: 'half',
    } as RequestInit).then(
      async (r) => ({ status: r.status, code: (await errorOf(r)).code }),
      (err: unknown) => ({ error: err }),
    );
    // The server answers 413 and closes the connection; a client still sending may see the close first.
    if ('status' in outcome) expect(outcome).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    // The server stopped reading: most of the 64 MB was never even pulled from the client's stream.
    expect(body.pulled()).toBeLessThan(32 * 1024 * 1024);
    expect(await t.deps.storage.head('big/over')).toBeUndefined();
    await expect.poll(() => fs.readdirSync(path.join(blobDir(), '.tmp'))).toEqual([]);
  });

  it('refuses a declared Content-Length above the signed size before reading the body', async () => {
    const link = await t.deps.storage.createUploadLink('big/declared', {
      contentLength: 10,
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    const res = await fetch(onServer(link.url), {
      method: 'PUT',
      headers: link.headers,
      body: Buffer.alloc(4 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.headers.get('connection')).toBe('close');
    expect(await t.deps.storage.head('big/declared')).toBeUndefined();
  });

  it('closes the connection after refusing an expired upload link, without reading the body', async () => {
    const link = await t.deps.storage.createUploadLink('big/expired', {
      contentLength: 64 * 1024 * 1024,
      contentType: 'video/mp4',
      expiresInSeconds: 60,
    });
    const url = onServer(link.url);
    url.searchParams.set('expires', '1');
    const body = chunked(64 * 1024 * 1024);
    const res = await fetch(url, { method: 'PUT', headers: link.headers, body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(403);
    expect(res.headers.get('connection')).toBe('close');
    expect(body.pulled()).toBeLessThan(32 * 1024 * 1024);
  });

  it('cleans up when the client disconnects mid-upload', async () => {
    const link = await t.deps.storage.createUploadLink('big/aborted', {
      contentLength: 4 * 1024 * 1024,
      contentType: 'video/mp4',
      expiresInSeconds: 60,
    });
    const abort = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 64 * 1024;
        if (sent > 1024 * 1024) abort.abort();
        else controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    await expect(
      fetch(onServer(link.url), {
        method: 'PUT',
        headers: link.headers,
        body,
        duplex: 'half',
        signal: abort.signal,
      } as RequestInit),
    ).rejects.toThrow();
    await expect.poll(() => fs.readdirSync(path.join(blobDir(), '.tmp'))).toEqual([]);
    expect(await t.deps.storage.head('big/aborted')).toBeUndefined();
  });

  it('answers 400 to a chunked upload that ends early', async () => {
    const link = await t.deps.storage.createUploadLink('big/short', {
      contentLength: 1024 * 1024,
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    const res = await fetch(onServer(link.url), {
      method: 'PUT',
      headers: link.headers,
      body: chunked(1000),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toEqual({ expectedBytes: 1024 * 1024 });
    expect(await t.deps.storage.head('big/short')).toBeUndefined();
  });
});

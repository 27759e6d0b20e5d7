import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps, type Deps } from '../src/deps.ts';
import { createTestApp, type TestApp, tmpDir } from './helpers/app.ts';

/**
 * HTTP edges: requests Node's parser refuses before routing still get the one error body with a
 * requestId and `x-request-id` (raw socket), and X-Forwarded-* headers count only from the
 * proxies the operator lists (ATELIER_TRUST_PROXY).
 */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = any;

/** Sends raw bytes and returns what the server wrote until it closed the connection. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => {
      out += d.toString('latin1');
    });
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', (err) => (out ? resolve(out) : reject(err)));
    socket.write(request);
  });
}

function parse(response: string): { status: number; headers: Record<string, string>; body: Json } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

describe('requests the HTTP parser refuses (raw socket)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['a 20,000-character query string', `GET /v1/brands?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, 431],
    ['an oversized header', `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`, 431],
    [
      'two Content-Length headers',
      'POST /v1/brands HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      400,
    ],
    [
      'Content-Length with chunked',
      'POST /v1/brands HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    [
      'a bad chunk size',
      'POST /v1/brands HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
    ],
    ['a NUL in a header', 'GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: b\u0000c\r\n\r\n', 400],
    ['a folded header', 'GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: b\r\n  c\r\n\r\n', 400],
    ['a garbage request line', 'HELLO THERE\r\n\r\n', 400],
  ])('%s → %i in the error body with a requestId', async (_name, request, status) => {
    const res = parse(await raw(port, request));
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(status === 431 ? 'HEADERS_TOO_LARGE' : 'INVALID_REQUEST');
    expect(res.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-request-id']).toBe(res.body.requestId);
    expect(res.headers.connection).toBe('close');
  });

  it('still serves well-formed requests on the same server', async () => {
    const res = parse(await raw(port, 'GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'));
    expect(res.status).toBe(200);
  });
});

describe('slow clients (ATELIER_HEADERS_TIMEOUT_SECONDS)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { ATELIER_HEADERS_TIMEOUT_SECONDS: '1' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 408 in the error body and closes a connection whose headers never finish', async () => {
    const t0 = Date.now();
    const res = parse(await raw(port, 'GET /healthz HTTP/1.1\r\nHost: a\r\nX-Slow: '));
    expect(res.status).toBe(408);
    expect(res.body.error.code).toBe('REQUEST_TIMEOUT');
    expect(res.headers['x-request-id']).toBe(res.body.requestId);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('slow and unread bodies (ATELIER_BODY_TIMEOUT_SECONDS)', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { ATELIER_BODY_TIMEOUT_SECONDS: '1' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    key = (await t.bootstrap()).apiKey;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sends the head and the first bytes of a 100,000-byte body, then one byte every 200 ms until closed. */
  function trickle(head: string): Promise<{ out: string; ms: number }> {
    return new Promise((resolve) => {
      const t0 = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      let out = '';
      const drip = setInterval(() => socket.writable && socket.write(' '), 200);
      const done = () => {
        clearInterval(drip);
        resolve({ out, ms: Date.now() - t0 });
      };
      socket.on('data', (d) => {
        out += d.toString('latin1');
      });
      socket.on('close', done);
      socket.on('error', () => undefined);
      socket.write(`${head}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":`);
    });
  }

  it('closes the connection after an early refusal instead of reading the rest of the body', async () => {
    const { out, ms } = await trickle('POST /v1/brands HTTP/1.1\r\nHost: a\r\n');
    const res = parse(out);
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
    expect(ms).toBeLessThan(3000);
  });

  it('answers 408 and closes when a JSON body has not arrived within the bound', async () => {
    const { out, ms } = await trickle(`POST /v1/brands HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${key}\r\n`);
    const res = parse(out);
    expect(res.status).toBe(408);
    expect(res.body.error.code).toBe('REQUEST_TIMEOUT');
    expect(res.headers['x-request-id']).toBe(res.body.requestId);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(5000);
  });

  it('still takes a body that arrives in time, and names every bad field at once', async () => {
    const res = await t.request({ method: 'POST', url: '/v1/brands', key, payload: { name: 'On time', tone: 7 } });
    expect(res.statusCode).toBe(400);
    const fields = (res.json() as Json).error.details.fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['body.industry', 'body.description', 'body.tone']));
    expect((res.json() as Json).error.message).toMatch(/and \d+ more problems/);
  });
});

describe('X-Forwarded-* headers (ATELIER_TRUST_PROXY)', () => {
  const opened: Deps[] = [];
  async function appWith(env: Record<string, string>) {
    const config = loadConfig({ LOG_LEVEL: 'silent', ATELIER_DATA_DIR: tmpDir(), ...env });
    const deps = await createDeps(config);
    opened.push(deps);
    const app = await buildApp(deps);
    app.get('/echo', { config: { auth: false } }, async (request) => ({
      ip: request.ip,
      protocol: request.protocol,
      host: request.host,
    }));
    await app.ready();
    return app;
  }
  afterAll(async () => {
    for (const d of opened) await d.close();
  });
  const forwarded = {
    'x-forwarded-for': '203.0.113.9',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'evil.example',
  };

  it('are ignored by default', async () => {
    const app = await appWith({});
    const res = (
      await app.inject({ url: '/echo', headers: { host: 'api.local', ...forwarded }, remoteAddress: '198.51.100.7' })
    ).json();
    expect(res).toEqual({ ip: '198.51.100.7', protocol: 'http', host: 'api.local' });
    await app.close();
  });

  it('count only from the listed proxies', async () => {
    const app = await appWith({ ATELIER_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });
    const viaProxy = (
      await app.inject({ url: '/echo', headers: { host: 'api.local', ...forwarded }, remoteAddress: '10.1.2.3' })
    ).json();
    expect(viaProxy).toEqual({ ip: '203.0.113.9', protocol: 'https', host: 'evil.example' });
    const direct = (
      await app.inject({ url: '/echo', headers: { host: 'api.local', ...forwarded }, remoteAddress: '198.51.100.7' })
    ).json();
    expect(direct.ip).toBe('198.51.100.7');
    await app.close();
  });
});

describe('a request that arrives while the server closes (raw socket)', () => {
  it('is answered 503 SERVICE_UNAVAILABLE in the error body with Retry-After, and the close completes', async () => {
    const t = await createTestApp('sqlite');
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      // A connection whose request has begun (so the close does not reap it as idle) ...
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let out = '';
      socket.on('data', (d) => {
        out += d.toString('latin1');
      });
      const ended = new Promise((resolve) => socket.once('close', resolve));
      socket.write('GET /v1/brands HTTP/1.1\r\nHost: a\r\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // ... finishes it after the close has started.
      const closed = t.app.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.write('\r\n');
      await ended;
      await closed;
      const res = parse(out);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers.connection).toBe('close');
      expect(res.headers['x-request-id']).toBe(res.body.requestId);
      expect(res.body.error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The server is shutting down; send the request again',
        details: { retryAfterSeconds: 1 },
      });
    } finally {
      await t.close();
    }
  });
});

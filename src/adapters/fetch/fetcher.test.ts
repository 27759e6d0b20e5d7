import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from './address-policy.ts';
import {
  type AddressPolicy,
  createFetcher,
  FetchError,
  type FetchErrorCode,
  type LookupFn,
  systemLookup,
} from './fetcher.ts';

// ---------------------------------------------------------------------------------------------
// Test seams. Production fetchers use the system resolver and the public-address policy; here
// a `lookup` answers made-up names (evil.test ...) and `onlyPort(p)` lets exactly one local
// server, 127.0.0.1:p, through while every other non-public address stays refused. That is how
// a test gets an "allowed" first hop whose redirects are still checked by the real policy.
// ---------------------------------------------------------------------------------------------

const onlyPort =
  (port: number): AddressPolicy =>
  (address, p) =>
    (address === '127.0.0.1' && p === port) || isPublicAddress(address);

type RecordingLookup = LookupFn & { calls: string[] };
/** Answers from a table; a function value answers differently on each call (rebinding). */
function tableLookup(table: Record<string, string[] | ((call: number) => string[])>): RecordingLookup {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const answers = typeof entry === 'function' ? entry(calls.filter((h) => h === hostname).length) : entry;
    return answers.map((address) => ({ address, family: net.isIP(address) as 4 | 6 }));
  };
  return Object.assign(fn, { calls });
}

interface TestServer {
  port: number;
  origin: string;
  hits: http.IncomingMessage[];
}
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function listen(server: http.Server | https.Server, host: string, port: number, scheme: string) {
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const actual = (server.address() as AddressInfo).port;
  return { port: actual, origin: `${scheme}://${host}:${actual}` };
}

async function serve(handler: http.RequestListener, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const hits: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req);
    handler(req, res);
  });
  return { ...(await listen(server, host, port, 'http')), hits };
}

const text =
  (body: string, headers: http.OutgoingHttpHeaders = {}): http.RequestListener =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(body);
  };
const redirectTo =
  (location: string, status = 302): http.RequestListener =>
  (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
/** Sends one byte every `everyMs` forever (until the client goes away). */
const trickle =
  (everyMs: number): http.RequestListener =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), everyMs);
    res.on('close', () => clearInterval(timer));
  };

async function failure(promise: Promise<unknown>, code: FetchErrorCode): Promise<FetchError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  expect((err as FetchError).code, (err as Error).message).toBe(code);
  return err as FetchError;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('fetcher: refusals that need no network', () => {
  const lookup = tableLookup({
    'evil.test': ['10.0.0.5'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'ula.test': ['fd00::1'],
    'sixtofour.test': ['2002:7f00:1::1'],
    'empty.test': [],
    'garbage.test': ['not-an-address'],
  });
  const fetcher = createFetcher({ lookup });
  const permissive = createFetcher({ lookup, allowPrivate: true });
  afterEach(() => {
    lookup.calls.length = 0;
  });

  it.each([
    'file:///etc/passwd',
    'ftp://example.com/file',
    'gopher://example.com/',
    'data:text/plain,hello',
    'javascript:alert(1)',
    'ws://example.com/',
    'mailto:someone@example.com',
  ])('refuses the scheme of %s, also with allowPrivate', async (url) => {
    const err = await failure(fetcher.fetch(url), 'BAD_SCHEME');
    expect(err.message).toMatch(/only http and https/i);
    await failure(permissive.fetch(url), 'BAD_SCHEME');
    expect(lookup.calls).toEqual([]);
  });

  it.each(['not a url', 'http://', '', '//example.com/'])('refuses the unparseable %j', async (url) => {
    await failure(fetcher.fetch(url), 'BAD_URL');
  });

  it.each(['http://alice:s3cret@example.com/', 'https://alice@example.com/', 'http://:s3cret@example.com/'])(
    'refuses credentials in %s without repeating them, also with allowPrivate',
    async (url) => {
      const err = await failure(fetcher.fetch(url), 'CREDENTIALS_IN_URL');
      expect(err.message).not.toContain('s3cret');
      expect(err.message).not.toContain('alice');
      await failure(permissive.fetch(url), 'CREDENTIALS_IN_URL');
      expect(lookup.calls).toEqual([]);
    },
  );

  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.1/', 'short loopback'],
    ['http://2130706433/', 'decimal loopback'],
    ['http://0x7f.1/', 'hex loopback'],
    ['http://0x7f000001/', 'hex loopback, one part'],
    ['http://017700000001/', 'octal loopback'],
    ['http://0177.0.0.1/', 'octal first part'],
    ['http://0/', '0.0.0.0'],
    ['http://10.1.2.3:8080/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://0xc0.0xa8.0.1/', 'hex private'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://100.64.0.1/', 'CGNAT'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://192.0.2.1/', 'documentation'],
    ['http://[::1]/', 'IPv6 loopback'],
    ['http://[::]/', 'IPv6 unspecified'],
    ['http://[fe80::1]/', 'IPv6 link-local'],
    ['http://[fd12:3456::1]/', 'IPv6 unique-local'],
    ['http://[ff02::1]/', 'IPv6 multicast'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['http://[::ffff:a00:1]/', 'IPv4-mapped private, hex'],
    ['http://[::127.0.0.1]/', 'IPv4-compatible'],
    ['http://[64:ff9b::a00:1]/', 'NAT64 of private'],
    ['http://[2002:c0a8:101::1]/', '6to4 of private'],
    ['http://[2001:db8::1]/', 'IPv6 documentation'],
  ])('refuses the literal %s (%s) without DNS', async (url) => {
    const err = await failure(fetcher.fetch(url), 'BLOCKED_ADDRESS');
    expect(err.message).toMatch(/is not a public internet address/);
    expect(lookup.calls).toEqual([]);
  });

  it.each(['http://localhost/', 'http://LOCALHOST./', 'http://api.localhost:8080/'])(
    'refuses the loopback name %s without DNS',
    async (url) => {
      await failure(fetcher.fetch(url), 'BLOCKED_ADDRESS');
      expect(lookup.calls).toEqual([]);
    },
  );

  it.each(['evil.test', 'metadata.test', 'mixed.test', 'mapped.test', 'ula.test', 'sixtofour.test'])(
    'refuses %s, whose DNS answers include a non-public address, and names no address',
    async (host) => {
      const err = await failure(fetcher.fetch(`https://${host}/page`), 'BLOCKED_ADDRESS');
      expect(err.message).toBe(
        `${host} does not resolve to a public internet address; only public addresses can be fetched`,
      );
      expect(err.url).toBe(`https://${host}/page`);
      expect(lookup.calls).toEqual([host]);
    },
  );

  it.each(['unknown.test', 'empty.test', 'garbage.test'])('reports %s as a DNS failure', async (host) => {
    const err = await failure(fetcher.fetch(`http://${host}/`), 'DNS_FAILURE');
    expect(err.message).toBe(`The host name ${host} could not be resolved`);
  });

  it('resolves with the system resolver by default (localhost from /etc/hosts)', async () => {
    const answers = await systemLookup('localhost');
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((a) => net.isIP(a.address) === a.family)).toBe(true);
    expect(answers.some((a) => a.address === '127.0.0.1' || a.address === '::1')).toBe(true);
  });
});

describe('fetcher: local servers with allowPrivate', () => {
  const fetcher = createFetcher({ allowPrivate: true, userAgent: 'AtelierTest/1' });

  it('fetches a page: body, status, headers, content type, final URL', async () => {
    const s = await serve(text('héllo', { 'x-extra': 'yes' }));
    const res = await fetcher.fetch(`${s.origin}/page?q=1#fragment`, { accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe('héllo');
    expect(res.contentType).toBe('text/plain');
    expect(res.headers['x-extra']).toBe('yes');
    expect(res.url).toBe(`${s.origin}/page?q=1#fragment`);
    expect(res.redirects).toEqual([]);
    const req = s.hits[0]!;
    expect(req.url).toBe('/page?q=1');
    expect(req.headers['user-agent']).toBe('AtelierTest/1');
    expect(req.headers.accept).toBe('text/html');
    expect(req.headers.host).toBe(`127.0.0.1:${s.port}`);
    expect(req.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('fetches through the name localhost and keeps it as the Host header', async () => {
    const s = await serve(text('ok'));
    const res = await fetcher.fetch(`http://localhost:${s.port}/`);
    expect(res.body.toString()).toBe('ok');
    expect(s.hits[0]!.headers.host).toBe(`localhost:${s.port}`);
  });

  it('sends a method, headers and a body, but never a caller Host or Accept-Encoding', async () => {
    const s = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => res.end(JSON.stringify({ method: req.method, body, headers: req.headers })));
    });
    const res = await fetcher.fetch(`${s.origin}/api`, {
      method: 'post',
      headers: {
        'Content-Type': 'application/json',
        Authorization: 'Bearer k',
        Host: 'evil.test',
        'Accept-Encoding': 'x',
      },
      body: '{"a":1}',
    });
    const echo = JSON.parse(res.body.toString());
    expect(echo.method).toBe('POST');
    expect(echo.body).toBe('{"a":1}');
    expect(echo.headers['content-type']).toBe('application/json');
    expect(echo.headers.authorization).toBe('Bearer k');
    expect(echo.headers.host).toBe(`127.0.0.1:${s.port}`);
    expect(echo.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('follows relative and absolute redirects and lists them', async () => {
    const b = await serve(text('final'));
    const a = await serve((req, res) => {
      if (req.url === '/start') return redirectTo('/middle', 301)(req, res);
      if (req.url === '/middle') return redirectTo(`${b.origin}/end`, 308)(req, res);
      res.writeHead(404).end();
    });
    const res = await fetcher.fetch(`${a.origin}/start`);
    expect(res.body.toString()).toBe('final');
    expect(res.url).toBe(`${b.origin}/end`);
    expect(res.redirects).toEqual([`${a.origin}/middle`, `${b.origin}/end`]);
  });

  it('turns a POST into a GET on 303 and keeps method and body on 307', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/see-other') return redirectTo('/echo', 303)(req, res);
      if (req.url === '/temporary') return redirectTo('/echo', 307)(req, res);
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => res.end(`${req.method} ${body} ${req.headers['content-type'] ?? '-'}`));
    });
    const opts = { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } };
    expect((await fetcher.fetch(`${s.origin}/see-other`, opts)).body.toString()).toBe('GET  -');
    expect((await fetcher.fetch(`${s.origin}/temporary`, opts)).body.toString()).toBe('POST payload text/plain');
  });

  it('drops Authorization and Cookie when a redirect leaves the origin, keeps them within it', async () => {
    const who: http.RequestListener = (req, res) => res.end(`${req.headers.authorization}|${req.headers.cookie}`);
    const b = await serve(who);
    const a = await serve((req, res) => {
      if (req.url === '/away') return redirectTo(`${b.origin}/who`)(req, res);
      if (req.url === '/stay') return redirectTo('/who')(req, res);
      who(req, res);
    });
    const headers = { authorization: 'Bearer secret', cookie: 'sid=1' };
    expect((await fetcher.fetch(`${a.origin}/away`, { headers })).body.toString()).toBe('undefined|undefined');
    expect((await fetcher.fetch(`${a.origin}/stay`, { headers })).body.toString()).toBe('Bearer secret|sid=1');
  });

  it('follows at most maxRedirects redirects (default 5)', async () => {
    const s = await serve((req, res) => {
      const n = Number(req.url?.split('/')[2]);
      if (n > 0) return redirectTo(`/r/${n - 1}`)(req, res);
      res.end('landed');
    });
    const ok = await fetcher.fetch(`${s.origin}/r/5`);
    expect(ok.redirects).toHaveLength(5);
    const err = await failure(fetcher.fetch(`${s.origin}/r/6`), 'TOO_MANY_REDIRECTS');
    expect(err.message).toBe('The page redirected more than 5 times');
    await failure(fetcher.fetch(`${s.origin}/r/2`, { maxRedirects: 1 }), 'TOO_MANY_REDIRECTS');
    await failure(fetcher.fetch(`${s.origin}/r/1`, { maxRedirects: 0 }), 'TOO_MANY_REDIRECTS');
  });

  it('stops a redirect loop', async () => {
    const s = await serve(redirectTo('/loop'));
    await failure(fetcher.fetch(`${s.origin}/loop`, { maxRedirects: 3 }), 'TOO_MANY_REDIRECTS');
    expect(s.hits).toHaveLength(4);
  });

  it('refuses a redirect to a non-http scheme, to credentials or to an invalid URL', async () => {
    const s = await serve((req, res) => {
      const to: Record<string, string> = {
        '/file': 'file:///etc/passwd',
        '/gopher': 'gopher://127.0.0.1:6379/_FLUSHALL',
        '/creds': 'http://admin:pw@127.0.0.1/',
        '/invalid': 'http://[::1/',
      };
      redirectTo(to[req.url ?? ''] ?? '/')(req, res);
    });
    expect((await failure(fetcher.fetch(`${s.origin}/file`), 'BAD_SCHEME')).message).toBe(
      'The page redirected to a file: URL; only http and https URLs can be fetched',
    );
    await failure(fetcher.fetch(`${s.origin}/gopher`), 'BAD_SCHEME');
    expect((await failure(fetcher.fetch(`${s.origin}/creds`), 'CREDENTIALS_IN_URL')).message).not.toContain('pw');
    await failure(fetcher.fetch(`${s.origin}/invalid`), 'BAD_URL');
  });

  it('answers HTTP_ERROR for a final status >= 400, or returns it when asked', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"nope"}');
    });
    const err = await failure(fetcher.fetch(`${s.origin}/missing`), 'HTTP_ERROR');
    expect(err.status).toBe(404);
    expect(err.message).toBe(`127.0.0.1:${s.port} answered with HTTP status 404`);
    const res = await fetcher.fetch(`${s.origin}/missing`, { throwOnHttpError: false });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toEqual({ error: 'nope' });
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    const err = await failure(fetcher.fetch(`http://127.0.0.1:${port}/`), 'CONNECTION_FAILED');
    expect(err.message).toBe(`127.0.0.1:${port} refused the connection`);
  });
});

describe('fetcher: size bounds', () => {
  const fetcher = createFetcher({ allowPrivate: true, defaults: { maxBytes: 1000 } });
  let bomb: Buffer;
  let brotliBomb: Buffer;
  beforeAll(() => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    bomb = zlib.gzipSync(zeros);
    brotliBomb = zlib.brotliCompressSync(zeros, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
  });

  it('accepts a body of exactly maxBytes', async () => {
    const s = await serve(text('x'.repeat(1000)));
    expect((await fetcher.fetch(s.origin)).body).toHaveLength(1000);
  });

  it('refuses a Content-Length above maxBytes before reading the body', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': 5_000_000 });
      res.write('x'.repeat(10)); // and never the rest: the fetcher must not wait for it
    });
    const err = await failure(fetcher.fetch(s.origin), 'TOO_LARGE');
    expect(err.message).toBe(`The response from 127.0.0.1:${s.port} is larger than 1000 bytes`);
  });

  it('refuses a chunked body that grows past maxBytes, including an endless one', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // no length: chunked
      if (req.url === '/1001') return res.end('x'.repeat(1001));
      const timer = setInterval(() => res.write('x'.repeat(100)), 5);
      res.on('close', () => clearInterval(timer));
    });
    await failure(fetcher.fetch(`${s.origin}/1001`), 'TOO_LARGE');
    await failure(fetcher.fetch(`${s.origin}/endless`, { timeoutMs: 10_000 }), 'TOO_LARGE');
  });

  it('decodes gzip, deflate (zlib and raw) and brotli bodies', async () => {
    const body = Buffer.from('<html>brand colours #ff0066</html>');
    const encoded: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', zlib.gzipSync(body)],
      '/deflate': ['deflate', zlib.deflateSync(body)],
      '/raw-deflate': ['deflate', zlib.deflateRawSync(body)],
      '/br': ['br', zlib.brotliCompressSync(body)],
      '/double': ['deflate, gzip', zlib.gzipSync(zlib.deflateSync(body))],
    };
    const s = await serve((req, res) => {
      const [encoding, bytes] = encoded[req.url ?? '']!;
      res.writeHead(200, { 'content-encoding': encoding, 'content-type': 'text/html' });
      res.end(bytes);
    });
    for (const p of Object.keys(encoded)) {
      expect((await fetcher.fetch(`${s.origin}${p}`)).body.toString(), p).toBe(body.toString());
    }
  });

  it('refuses a gzip or brotli bomb whose decoded size passes maxBytes', async () => {
    const s = await serve((req, res) => {
      const [encoding, bytes] = req.url === '/br' ? ['br', brotliBomb] : ['gzip', bomb];
      res.writeHead(200, { 'content-encoding': encoding });
      res.end(bytes);
    });
    const big = { maxBytes: 1024 * 1024 }; // the compressed bombs fit, their 20 MiB of output does not
    expect(bomb.length).toBeLessThan(big.maxBytes);
    const err = await failure(fetcher.fetch(`${s.origin}/gzip`, big), 'TOO_LARGE');
    expect(err.message).toBe(`The response from 127.0.0.1:${s.port} decompresses to more than 1048576 bytes`);
    await failure(fetcher.fetch(`${s.origin}/br`, big), 'TOO_LARGE');
  });

  it('refuses corrupt, unknown or piled-up encodings', async () => {
    const s = await serve((req, res) => {
      const encoding = { '/corrupt': 'gzip', '/unknown': 'compress', '/piled': 'gzip, gzip, gzip' }[req.url ?? ''];
      res.writeHead(200, { 'content-encoding': encoding ?? '' });
      res.end('definitely not gzip');
    });
    await failure(fetcher.fetch(`${s.origin}/corrupt`), 'BAD_RESPONSE');
    await failure(fetcher.fetch(`${s.origin}/unknown`), 'BAD_RESPONSE');
    await failure(fetcher.fetch(`${s.origin}/piled`), 'BAD_RESPONSE');
  });

  it('refuses response headers above maxHeaderBytes', async () => {
    const s = await serve(text('ok', { 'x-big': 'y'.repeat(40 * 1024) }));
    const err = await failure(fetcher.fetch(s.origin), 'TOO_LARGE');
    expect(err.message).toBe(`The response headers from 127.0.0.1:${s.port} exceed 32768 bytes`);
    expect((await fetcher.fetch(s.origin, { maxHeaderBytes: 64 * 1024 })).body.toString()).toBe('ok');
  });
});

describe('fetcher: time bounds', () => {
  const fetcher = createFetcher({ allowPrivate: true });
  const silent: http.RequestListener = () => {}; // accepts the request, never answers

  it('gives up when the headers never come (idle timeout)', async () => {
    const s = await serve(silent);
    const err = await failure(fetcher.fetch(s.origin, { idleTimeoutMs: 200 }), 'TIMEOUT');
    expect(err.message).toBe(`127.0.0.1:${s.port} did not answer within 0.2 s`);
  });

  it('gives up when the headers never come (total timeout)', async () => {
    const s = await serve(silent);
    const err = await failure(fetcher.fetch(s.origin, { timeoutMs: 300 }), 'TIMEOUT');
    expect(err.message).toBe(`The fetch of 127.0.0.1:${s.port} did not finish within 0.3 s`);
  });

  it('gives up on a body that stalls (idle timeout)', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200);
      res.write('some');
    });
    const err = await failure(fetcher.fetch(s.origin, { idleTimeoutMs: 200 }), 'TIMEOUT');
    expect(err.message).toBe(`127.0.0.1:${s.port} sent nothing for 0.2 s`);
  });

  it('gives up on a body that trickles forever (total timeout)', async () => {
    const s = await serve(trickle(20));
    const err = await failure(fetcher.fetch(s.origin, { timeoutMs: 400, maxBytes: 1_000_000 }), 'TIMEOUT');
    expect(err.message).toBe(`The fetch of 127.0.0.1:${s.port} did not finish within 0.4 s`);
  });

  it("stops when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const s = await serve(() => controller.abort());
    const err = await failure(fetcher.fetch(s.origin, { signal: controller.signal }), 'ABORTED');
    expect(err.message).toBe(`The fetch of 127.0.0.1:${s.port} was cancelled`);
  });
});

describe('fetcher: address checks on every hop, pinned connections', () => {
  it('refuses the same local server that allowPrivate reaches', async () => {
    const s = await serve(text('internal'));
    await failure(createFetcher().fetch(s.origin), 'BLOCKED_ADDRESS');
    await failure(createFetcher().fetch(`http://localhost:${s.port}/`), 'BLOCKED_ADDRESS');
    expect(s.hits).toHaveLength(0);
    expect((await createFetcher({ allowPrivate: true }).fetch(s.origin)).body.toString()).toBe('internal');
  });

  it('refuses every redirect from an allowed server to a non-public address', async () => {
    const internal = await serve(text('secret'));
    const q = internal.port;
    let target = '';
    const entry = await serve((req, res) => redirectTo(target)(req, res));
    const lookup = tableLookup({ 'evil.test': ['127.0.0.1'], 'cloud.test': ['169.254.169.254'] });
    const fetcher = createFetcher({ policy: onlyPort(entry.port), lookup });
    const targets = [
      `http://127.0.0.1:${q}/`,
      `http://localhost:${entry.port}/`, // the allowed port, but localhost also means ::1
      `http://[::1]:${q}/`,
      `http://[::ffff:127.0.0.1]:${entry.port}/`,
      `http://2130706433:${q}/`,
      `http://0x7f.1:${q}/`,
      `http://evil.test:${q}/`,
      'http://cloud.test/latest/meta-data/',
      'http://10.0.0.5/',
    ];
    for (const t of targets) {
      target = t;
      const err = await failure(fetcher.fetch(`${entry.origin}/go`), 'BLOCKED_ADDRESS');
      expect(err.message, t).toMatch(/^The page redirected to .+, which (is not|does not resolve to) a public/);
    }
    expect(internal.hits).toHaveLength(0);
    expect(entry.hits).toHaveLength(targets.length);
  });

  it('connects to the address it checked, never to a second DNS answer (rebinding)', async () => {
    const pub = await serve(text('public'), '127.0.0.1');
    const priv = await serve(text('secret'), '127.0.0.2', pub.port);
    // The first answer is the allowed one; any later query would answer the internal server.
    const lookup = tableLookup({ 'rebind.test': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const fetcher = createFetcher({ policy: onlyPort(pub.port), lookup });
    const res = await fetcher.fetch(`http://rebind.test:${pub.port}/`);
    expect(res.body.toString()).toBe('public');
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(pub.hits[0]!.headers.host).toBe(`rebind.test:${pub.port}`);
    expect(priv.hits).toHaveLength(0);
  });

  it('resolves and checks again on the next hop, even for the same host', async () => {
    const pub = await serve(redirectTo('/again'), '127.0.0.1');
    const priv = await serve(text('secret'), '127.0.0.2', pub.port);
    const lookup = tableLookup({ 'rebind.test': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const fetcher = createFetcher({ policy: onlyPort(pub.port), lookup });
    await failure(fetcher.fetch(`http://rebind.test:${pub.port}/`), 'BLOCKED_ADDRESS');
    expect(lookup.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(priv.hits).toHaveLength(0);
  });

  it('refuses a name with one public and one private answer without connecting', async () => {
    const s = await serve(text('internal'));
    const lookup = tableLookup({ 'split.test': ['127.0.0.1', '10.0.0.5'] });
    const fetcher = createFetcher({ policy: onlyPort(s.port), lookup });
    await failure(fetcher.fetch(`http://split.test:${s.port}/`), 'BLOCKED_ADDRESS');
    expect(s.hits).toHaveLength(0);
  });
});

describe('fetcher: https to a pinned address', () => {
  const fixtures = path.join(import.meta.dirname, 'fixtures');
  const cert = fs.readFileSync(path.join(fixtures, 'shop-test.cert.pem'));
  const key = fs.readFileSync(path.join(fixtures, 'shop-test.key.pem'));

  async function serveTls() {
    const hits: { servername: string | false | null; host: string | undefined }[] = [];
    const server = https.createServer({ cert, key }, (req, res) => {
      hits.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
      res.end('secure');
    });
    return { ...(await listen(server, '127.0.0.1', 0, 'https')), hits };
  }

  it('sends SNI and checks the certificate for the original host name', async () => {
    const s = await serveTls();
    const lookup = tableLookup({ 'shop.test': ['127.0.0.1'] });
    const fetcher = createFetcher({ policy: onlyPort(s.port), lookup, ca: cert });
    const res = await fetcher.fetch(`https://shop.test:${s.port}/`);
    expect(res.body.toString()).toBe('secure');
    expect(s.hits).toEqual([{ servername: 'shop.test', host: `shop.test:${s.port}` }]);
  });

  it('refuses a certificate that does not match, or that nobody trusts', async () => {
    const s = await serveTls();
    const wrongName = createFetcher({ allowPrivate: true, ca: cert });
    const err = await failure(wrongName.fetch(`https://127.0.0.1:${s.port}/`), 'CONNECTION_FAILED');
    expect(err.message).toBe(`No secure connection to 127.0.0.1:${s.port}: its TLS certificate could not be verified`);
    const untrusted = createFetcher({ allowPrivate: true, lookup: tableLookup({ 'shop.test': ['127.0.0.1'] }) });
    await failure(untrusted.fetch(`https://shop.test:${s.port}/`), 'CONNECTION_FAILED');
    expect(s.hits).toHaveLength(0);
  });
});

import dns from 'node:dns';
import net from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import { isPublicAddress } from './address-policy.ts';

/**
 * The one outbound HTTP client (URL extraction, Brand DNA from URLs, provider calls). Every hop:
 * http(s) only, no credentials in the URL, the host resolved ONCE and every answer checked by the
 * address policy, then the connection pinned to those checked answers (undici Agent whose socket
 * `lookup` only returns them, so no second DNS query can rebind), SNI and Host left as the
 * original hostname. Redirects are followed by hand, bounded, each target re-checked. Bytes, time,
 * header size and decoded (decompressed) size are bounded. See docs/decisions/storage-media-fetch.md "Outbound fetches".
 */

export type FetchErrorCode =
  | 'BAD_URL'
  | 'BAD_SCHEME'
  | 'CREDENTIALS_IN_URL'
  | 'BLOCKED_ADDRESS'
  | 'DNS_FAILURE'
  | 'CONNECTION_FAILED'
  | 'TIMEOUT'
  | 'TOO_LARGE'
  | 'TOO_MANY_REDIRECTS'
  | 'HTTP_ERROR'
  | 'BAD_RESPONSE'
  | 'ABORTED';

/**
 * A refused or failed fetch. `message` is for people and never names an address the fetcher
 * resolved (only what the caller or a redirect gave). `cause` may: keep it to server logs.
 */
export class FetchError extends Error {
  readonly code: FetchErrorCode;
  /** The URL of the hop that failed (without credentials), when there is one. */
  readonly url?: string;
  /** The HTTP status, for HTTP_ERROR. */
  readonly status?: number;

  constructor(code: FetchErrorCode, message: string, url?: string, status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.url = url;
    this.status = status;
    this.name = 'FetchError';
  }
}

export interface LookupAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to every address it has (tests inject their own). */
export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;
/** May the fetcher connect to this IP address on this port? */
export type AddressPolicy = (address: string, port: number) => boolean;

export interface FetchLimits {
  /** Largest body, both as received and after decompression. */
  maxBytes: number;
  /** The whole fetch, every hop and DNS included. */
  timeoutMs: number;
  /** Longest wait for a connection, for the response headers, or between two body reads. */
  idleTimeoutMs: number;
  maxRedirects: number;
  /** Largest response header block. */
  maxHeaderBytes: number;
}

export const DEFAULT_LIMITS: FetchLimits = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 15_000,
  idleTimeoutMs: 10_000,
  maxRedirects: 5,
  maxHeaderBytes: 32 * 1024,
};

const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; Atelier/0.1)';

export interface FetcherOptions {
  /** ATELIER_ALLOW_PRIVATE_FETCH: lifts the address check only; every other bound stays. */
  allowPrivate?: boolean;
  lookup?: LookupFn;
  /** Replaces the public-address check (tests: allow 127.0.0.1 on one port). Ignored with allowPrivate. */
  policy?: AddressPolicy;
  userAgent?: string;
  defaults?: Partial<FetchLimits>;
  /** Trusted CA certificates for https; replaces Node's default trust store when given. */
  ca?: string | Buffer;
}

export interface FetchOptions extends Partial<FetchLimits> {
  method?: string;
  headers?: Record<string, string>;
  /** Kept for 307/308 redirects; dropped when a redirect turns the request into a GET. */
  body?: string | Uint8Array;
  /** The Accept header (default `*\/*`). */
  accept?: string;
  signal?: AbortSignal;
  /** Default true: a final status >= 400 is a FetchError HTTP_ERROR; false returns it. */
  throwOnHttpError?: boolean;
}

export interface FetchResult {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** As received (lower-case names, repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** Decoded: Content-Encoding (gzip, deflate, br) already undone. */
  body: Buffer;
  /** The media type without parameters, lower case (`text/html`), when the server sent one. */
  contentType: string | undefined;
  /** Every URL redirected to, in order (the last one is `url`). */
  redirects: string[];
}

export interface Fetcher {
  fetch(url: string | URL, options?: FetchOptions): Promise<FetchResult>;
}

/** The operating system's resolver (getaddrinfo: /etc/hosts, then DNS), every answer in its order. */
export const systemLookup: LookupFn = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Request headers the fetcher owns; a caller's values are dropped. */
const OWNED_HEADERS = new Set(['host', 'accept-encoding', 'content-length', 'connection', 'transfer-encoding']);
/** Dropped when a redirect leaves the origin. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const MAX_CODINGS = 2;

type Decoder = (buf: Buffer, o: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Buffer>;
const gunzip: Decoder = promisify(zlib.gunzip);
const inflate: Decoder = promisify(zlib.inflate);
const inflateRaw: Decoder = promisify(zlib.inflateRaw);
const DECODERS: Record<string, Decoder> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  // Some servers send raw DEFLATE for "deflate"; accept both.
  deflate: (buf, o) =>
    inflate(buf, o).catch((err) => (err?.code === 'Z_DATA_ERROR' ? inflateRaw(buf, o) : Promise.reject(err))),
  br: promisify(zlib.brotliDecompress),
};

const secs = (ms: number) => `${ms / 1000} s`;
const defaultPort = (url: URL) => (url.protocol === 'https:' ? 443 : 80);

/** Parses and checks what never depends on DNS: scheme and credentials (`base`: a redirect). */
function parseTarget(input: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new FetchError('BAD_URL', base ? 'The page redirected to an invalid URL' : 'The URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(
      'BAD_SCHEME',
      base
        ? `The page redirected to a ${url.protocol} URL; only http and https URLs can be fetched`
        : `Only http and https URLs can be fetched (got "${url.protocol}")`,
    );
  }
  if (url.username || url.password) {
    throw new FetchError(
      'CREDENTIALS_IN_URL',
      base
        ? 'The page redirected to a URL with a user name or password; such URLs are not accepted'
        : 'URLs with a user name or password are not accepted',
    );
  }
  return url;
}

/** RFC 6761: localhost names are loopback without asking DNS. */
function isLocalhostName(host: string): boolean {
  const name = host.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A socket `lookup` that only ever answers the addresses checked for this fetch. */
function pinnedLookup(pinned: Map<string, LookupAddress[]>): net.LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const answers = (pinned.get(hostname) ?? []).filter((a) => !family || a.family === family);
    const first = answers[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error(`No checked address for ${hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
    } else if (options.all) callback(null, answers);
    else callback(null, first.address, first.family);
  };
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

const tooLarge = (url: URL, maxBytes: number, what = 'is larger than') =>
  new FetchError('TOO_LARGE', `The response from ${url.host} ${what} ${maxBytes} bytes`, url.href);

async function readBounded(body: Dispatcher.ResponseData['body'], maxBytes: number, url: URL): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      discard(body);
      throw tooLarge(url, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Undoes Content-Encoding; each step's output is capped at maxBytes (a gzip bomb stops there). */
async function decode(raw: Buffer, encoding: string | undefined, maxBytes: number, url: URL): Promise<Buffer> {
  const bad = (message: string, cause?: unknown) =>
    new FetchError('BAD_RESPONSE', `The response from ${url.host} ${message}`, url.href, undefined, { cause });
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw bad('is encoded too many times');
  }
  let out = raw;
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding];
    if (!decoder) throw bad('uses an unsupported encoding');
    if (out.length === 0) break;
    try {
      out = await decoder(out, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooLarge(url, maxBytes, 'decompresses to more than');
      }
      throw bad('could not be decompressed', err);
    }
  }
  return out;
}

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS/;

/** Maps whatever went wrong on a hop to a FetchError (never with the resolved address in it). */
function toFetchError(
  err: unknown,
  url: URL,
  limits: FetchLimits,
  signals: { deadline: AbortSignal; caller?: AbortSignal },
): unknown {
  if (err instanceof FetchError) return err;
  const host = url.host;
  const fail = (code: FetchErrorCode, message: string) =>
    new FetchError(code, message, url.href, undefined, { cause: err });
  if (signals.caller?.aborted) return fail('ABORTED', `The fetch of ${host} was cancelled`);
  if (signals.deadline.aborted)
    return fail('TIMEOUT', `The fetch of ${host} did not finish within ${secs(limits.timeoutMs)}`);
  const code = String((err as { code?: unknown } | undefined)?.code ?? '');
  switch (code) {
    case 'UND_ERR_INVALID_ARG':
      return err; // a programming error in the caller's options, not a network outcome
    case 'UND_ERR_CONNECT_TIMEOUT':
      return fail('TIMEOUT', `Connecting to ${host} took longer than ${secs(limits.idleTimeoutMs)}`);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return fail('TIMEOUT', `${host} did not answer within ${secs(limits.idleTimeoutMs)}`);
    case 'UND_ERR_BODY_TIMEOUT':
      return fail('TIMEOUT', `${host} sent nothing for ${secs(limits.idleTimeoutMs)}`);
    case 'UND_ERR_HEADERS_OVERFLOW':
      return fail('TOO_LARGE', `The response headers from ${host} exceed ${limits.maxHeaderBytes} bytes`);
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return fail('BAD_RESPONSE', `The response from ${host} ended before its announced length`);
    case 'ECONNREFUSED':
      return fail('CONNECTION_FAILED', `${host} refused the connection`);
  }
  if (code.startsWith('HPE_')) return fail('BAD_RESPONSE', `${host} sent a malformed HTTP response`);
  if (TLS_CODES.test(code)) {
    return fail('CONNECTION_FAILED', `No secure connection to ${host}: its TLS certificate could not be verified`);
  }
  return fail('CONNECTION_FAILED', `The connection to ${host} failed`);
}

export function createFetcher(options: FetcherOptions = {}): Fetcher {
  const lookup = options.lookup ?? systemLookup;
  const allowed: AddressPolicy = options.allowPrivate ? () => true : (options.policy ?? isPublicAddress);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const baseLimits: FetchLimits = { ...DEFAULT_LIMITS, ...options.defaults };

  /** Resolves the hop's host once, checks every answer, and pins the connection to them. */
  async function checkDestination(url: URL, pinned: Map<string, LookupAddress[]>, signal: AbortSignal, hop: number) {
    const port = Number(url.port) || defaultPort(url);
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const isLiteral = net.isIP(literal) !== 0;
    const blocked = () =>
      new FetchError(
        'BLOCKED_ADDRESS',
        `${hop > 0 ? 'The page redirected to ' : ''}${url.hostname}${hop > 0 ? ', which' : ''} ${
          isLiteral ? 'is not' : 'does not resolve to'
        } a public internet address; only public addresses can be fetched`,
        url.href,
      );
    if (isLiteral) {
      if (!allowed(literal, port)) throw blocked();
      return;
    }
    let answers: LookupAddress[];
    if (isLocalhostName(url.hostname)) {
      answers = [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    } else {
      const unresolved = (cause?: unknown) =>
        new FetchError('DNS_FAILURE', `The host name ${url.hostname} could not be resolved`, url.href, undefined, {
          cause,
        });
      try {
        answers = (await untilAborted(lookup(url.hostname), signal)).map((a) => ({
          address: a.address,
          family: net.isIP(a.address) as 4 | 6,
        }));
      } catch (err) {
        if (signal.aborted) throw err;
        throw unresolved(err);
      }
      if (answers.length === 0 || answers.some((a) => !a.family)) throw unresolved();
    }
    // One non-public answer refuses the whole name: a name that mixes public and private
    // addresses is either misconfigured or an attack, and refusing keeps the outcome predictable.
    if (answers.some((a) => !allowed(a.address, port))) throw blocked();
    pinned.set(url.hostname, answers);
  }

  return {
    async fetch(input, o = {}) {
      const limits: FetchLimits = { ...baseLimits };
      for (const k of Object.keys(DEFAULT_LIMITS) as (keyof FetchLimits)[]) {
        const v = o[k];
        if (v !== undefined) limits[k] = v;
      }
      let url = parseTarget(input);
      const deadline = AbortSignal.timeout(limits.timeoutMs);
      const signal = o.signal ? AbortSignal.any([deadline, o.signal]) : deadline;
      const pinned = new Map<string, LookupAddress[]>();
      const agent = new Agent({
        connect: {
          lookup: pinnedLookup(pinned),
          timeout: limits.idleTimeoutMs,
          ...(options.ca ? { ca: options.ca } : {}),
        },
        headersTimeout: limits.idleTimeoutMs,
        bodyTimeout: limits.idleTimeoutMs,
        maxHeaderSize: limits.maxHeaderBytes,
      });

      let method = (o.method ?? 'GET').toUpperCase();
      let body = o.body;
      const headers: Record<string, string> = { 'user-agent': userAgent, accept: '*/*' };
      for (const [k, v] of Object.entries(o.headers ?? {})) {
        if (!OWNED_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
      }
      if (o.accept) headers.accept = o.accept;
      headers['accept-encoding'] = Object.keys(DECODERS)
        .filter((c) => c !== 'x-gzip')
        .join(', ');
      const redirects: string[] = [];

      try {
        for (;;) {
          await checkDestination(url, pinned, signal, redirects.length);
          const res = await agent.request({
            origin: url.origin,
            path: url.pathname + url.search,
            method: method as Dispatcher.HttpMethod,
            headers,
            body,
            signal,
          });
          const resHeaders = flattenHeaders(res.headers);
          const location = REDIRECTS.has(res.statusCode) ? resHeaders.location : undefined;
          if (location !== undefined) {
            discard(res.body);
            if (redirects.length >= limits.maxRedirects) {
              throw new FetchError(
                'TOO_MANY_REDIRECTS',
                `The page redirected more than ${limits.maxRedirects} times`,
                url.href,
              );
            }
            const next = parseTarget(location, url);
            if (
              (res.statusCode === 303 && method !== 'HEAD') ||
              ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
            ) {
              method = 'GET';
              body = undefined;
              delete headers['content-type'];
            }
            if (next.origin !== url.origin) for (const h of ORIGIN_BOUND_HEADERS) delete headers[h];
            redirects.push(next.href);
            url = next;
            continue;
          }

          if (res.statusCode >= 400 && o.throwOnHttpError !== false) {
            discard(res.body);
            throw new FetchError(
              'HTTP_ERROR',
              `${url.host} answered with HTTP status ${res.statusCode}`,
              url.href,
              res.statusCode,
            );
          }
          const declared = Number(resHeaders['content-length']);
          if (Number.isFinite(declared) && declared > limits.maxBytes) {
            discard(res.body);
            throw tooLarge(url, limits.maxBytes);
          }
          const raw = await readBounded(res.body, limits.maxBytes, url);
          const decoded = await decode(raw, resHeaders['content-encoding'], limits.maxBytes, url);
          signal.throwIfAborted();
          const type = resHeaders['content-type']?.split(';')[0]?.trim().toLowerCase();
          return {
            url: url.href,
            status: res.statusCode,
            headers: resHeaders,
            body: decoded,
            contentType: type || undefined,
            redirects,
          };
        }
      } catch (err) {
        throw toFetchError(err, url, limits, { deadline, caller: o.signal });
      } finally {
        await agent.destroy().catch(() => undefined);
      }
    },
  };
}

/**
 * Drops a response body we will not read. undici reports a destroyed body as an 'error' event
 * (AbortError); without a listener that event would be an uncaught exception in the process.
 */
function discard(body: NodeJS.ReadableStream & { destroy(): unknown }): void {
  body.on('error', () => {});
  body.destroy();
}

import { AtelierError, ConnectionError, errorFor } from './errors.ts';

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  fetch?: FetchLike | undefined;
  /** Retries after the first attempt (default 3). */
  retries?: number | undefined;
  /** Per-attempt timeout (default 60 s). */
  timeoutMs?: number | undefined;
  /** First backoff step (default 500 ms); doubles per attempt, with jitter. */
  retryBaseMs?: number | undefined;
  /** Longest wait between attempts (default 30 s); a longer Retry-After is not waited out. */
  maxRetryDelayMs?: number | undefined;
  userAgent?: string | undefined;
  /**
   * Send an `Idempotency-Key` (a new UUID per call, the same on each retry) with every POST, and
   * retry POSTs on 5xx and lost answers like idempotent calls. Only against a server that honours
   * the header (it replays the first answer); elsewhere a retried POST could run twice. Default false.
   */
  idempotencyKeys?: boolean | undefined;
  /**
   * Cookie auth (browsers): sent as fetch `credentials` on authenticated calls, e.g. `same-origin`.
   * Signed links (auth: false) never get it.
   */
  credentials?: RequestInit['credentials'] | undefined;
  /** Extra headers per authenticated call (e.g. a CSRF token on non-GET requests); the call's own headers win. */
  headers?: ((req: { method: string; url: string }) => Record<string, string> | undefined) | undefined;
}

export interface HttpRequest {
  method: string;
  /** Path under the base URL (`/v1/...`) or an absolute URL (signed links). */
  url: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  /** Raw bytes instead of JSON (uploads). */
  bytes?: Uint8Array | undefined;
  headers?: Record<string, string> | undefined;
  /** false: no Authorization header (signed links authorize themselves). */
  auth?: boolean;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  retries?: number | undefined;
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** Errors that prove the request never reached a server (safe to resend even a POST). */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The retry rule (one place):
 *  - 429: always retried (the server refused before doing anything), after Retry-After when sent.
 *  - 500, 502, 503, 504 and answers lost mid-flight (reset, timeout): retried only for idempotent
 *    methods (GET, HEAD, PUT, DELETE). A POST or PATCH may have been acted on, so it is not
 *    resent: resending would create a second brand, forge or video and use quota twice.
 *  - Connection failures that prove nothing was sent (refused, DNS, unreachable, connect
 *    timeout): retried for every method.
 *  - A POST carrying an `Idempotency-Key` (client option `idempotencyKeys`, or the caller's own
 *    header) counts as idempotent: the server replays the first answer for a repeated key, so it
 *    is retried like a GET, and a 409 `IDEMPOTENCY_KEY_IN_USE` (the first is still running) is
 *    retried after its Retry-After.
 * Waits grow exponentially from retryBaseMs with full jitter (between half and all of the step),
 * capped at maxRetryDelayMs; a Retry-After (seconds or HTTP date) replaces the computed wait, and
 * one longer than maxRetryDelayMs ends the retries at once (the error carries retryAfterMs).
 */
export function retryDecision(
  method: string,
  outcome: { status?: number; errorCode?: string; apiCode?: string },
  keyed = false,
): boolean {
  const idempotent = IDEMPOTENT.has(method) || (keyed && method === 'POST');
  if (outcome.status === 429) return true;
  if (outcome.status === 409) return keyed && outcome.apiCode === 'IDEMPOTENCY_KEY_IN_USE';
  if (outcome.status !== undefined) return [500, 502, 503, 504].includes(outcome.status) && idempotent;
  if (outcome.errorCode && NOT_SENT.has(outcome.errorCode)) return true;
  return idempotent;
}

/** Retry-After (delta seconds or HTTP date) in ms, or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first (no listener left behind). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A random UUID; crypto.randomUUID exists only in secure contexts (browsers on plain http lack it). */
export function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export class Transport {
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: FetchLike;
  readonly retries: number;
  readonly timeoutMs: number;
  readonly #base: number;
  readonly #max: number;
  readonly #userAgent: string;
  readonly #idempotencyKeys: boolean;
  readonly #credentials: RequestInit['credentials'] | undefined;
  readonly #headers: TransportOptions['headers'];

  constructor(o: TransportOptions) {
    if (!o.baseUrl) throw new TypeError('Atelier: baseUrl is required (e.g. http://localhost:8080)');
    // Accept the API root with or without /v1: paths carry /v1 themselves.
    this.baseUrl = o.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.#apiKey = o.apiKey;
    this.#fetch = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.retries = o.retries ?? 3;
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.#base = o.retryBaseMs ?? 500;
    this.#max = o.maxRetryDelayMs ?? 30_000;
    this.#userAgent = o.userAgent ?? 'atelier-sdk/0.1';
    this.#idempotencyKeys = o.idempotencyKeys ?? true;
    this.#credentials = o.credentials;
    this.#headers = o.headers;
  }

  url(path: string, query?: Record<string, unknown>): string {
    const u = new URL(/^https?:\/\//.test(path) ? path : `${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(item));
    }
    return u.toString();
  }

  /** Sends with retries; resolves for 2xx/304, throws an AtelierError subclass otherwise. */
  async send<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>> {
    const method = req.method.toUpperCase();
    const url = this.url(req.url, req.query);
    // One request id for every attempt, so the server's logs tie the retries together.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#userAgent,
      'x-request-id': uuid(),
    };
    if (req.auth !== false && this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    let body: RequestInit['body'] | undefined;
    if (req.bytes) body = req.bytes as RequestInit['body'];
    else if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    if (this.#idempotencyKeys && method === 'POST' && req.auth !== false) {
      headers['idempotency-key'] = uuid();
    }
    if (req.auth !== false && this.#headers) {
      for (const [k, v] of Object.entries(this.#headers({ method, url }) ?? {})) headers[k.toLowerCase()] = v;
    }
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    const keyed = method === 'POST' && headers['idempotency-key'] !== undefined;
    const retries = req.retries ?? this.retries;
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const signals = [AbortSignal.timeout(timeoutMs), ...(req.signal ? [req.signal] : [])];
      let res: Response;
      try {
        const init: RequestInit = { method, headers, body: body ?? null, signal: AbortSignal.any(signals) };
        if (this.#credentials && req.auth !== false) init.credentials = this.#credentials;
        res = await this.#fetch(url, init);
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason ?? err;
        const timedOut = (err as Error)?.name === 'TimeoutError';
        const code = timedOut ? 'TIMEOUT' : (causeCode(err) ?? 'NETWORK_ERROR');
        if (attempt < retries && retryDecision(method, { errorCode: code }, keyed)) {
          await sleep(this.#backoff(attempt), req.signal);
          continue;
        }
        throw new ConnectionError({
          status: 0,
          code,
          message: timedOut
            ? `${method} ${url}: no answer within ${timeoutMs} ms`
            : `${method} ${url}: ${(err as Error)?.message ?? String(err)}${code !== 'NETWORK_ERROR' ? ` (${code})` : ''}`,
          method,
          url,
          cause: err,
        });
      }
      if (res.ok || res.status === 304) {
        return { status: res.status, headers: res.headers, data: (await readBody(res)) as T };
      }
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      const errorBody = await readBody(res).catch(() => undefined);
      const canRetry =
        attempt < retries &&
        retryDecision(method, { status: res.status, apiCode: apiCode(errorBody) }, keyed) &&
        (retryAfterMs === undefined || retryAfterMs <= this.#max);
      if (canRetry) {
        await sleep(retryAfterMs ?? this.#backoff(attempt), req.signal);
        continue;
      }
      throw errorFor(res.status, errorBody, {
        method,
        url,
        retryAfterMs,
        requestId: res.headers.get('x-request-id') ?? undefined,
      });
    }
  }

  /** Exponential backoff with full jitter: between half and all of base·2^attempt, capped. */
  #backoff(attempt: number): number {
    const step = Math.min(this.#max, this.#base * 2 ** attempt);
    return Math.round(step / 2 + Math.random() * (step / 2));
  }

  /** GET a signed link (no key), as bytes. */
  async download(url: string, opts: { signal?: AbortSignal | undefined } = {}): Promise<Uint8Array> {
    const u = this.url(url);
    const headers = { 'user-agent': this.#userAgent };
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(u, {
          headers,
          signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs * 5), ...(opts.signal ? [opts.signal] : [])]),
        });
      } catch (err) {
        if (attempt < this.retries && !opts.signal?.aborted) {
          await sleep(this.#backoff(attempt), opts.signal);
          continue;
        }
        throw new ConnectionError({ status: 0, code: causeCode(err) ?? 'NETWORK_ERROR', message: String(err), url: u });
      }
      if (res.ok) return new Uint8Array(await res.arrayBuffer());
      if (attempt < this.retries && retryDecision('GET', { status: res.status })) {
        await sleep(parseRetryAfter(res.headers.get('retry-after')) ?? this.#backoff(attempt), opts.signal);
        continue;
      }
      throw errorFor(res.status, await readBody(res).catch(() => undefined), { method: 'GET', url: u });
    }
  }
}

const apiCode = (body: unknown) => {
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
};

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204 || res.status === 304) {
    await res.body?.cancel();
    return undefined;
  }
  const text = await res.text();
  if (!text) return undefined;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export { AtelierError };

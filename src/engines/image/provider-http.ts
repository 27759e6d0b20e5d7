import { createHash } from 'node:crypto';
import sharp, { type Metadata } from 'sharp';
import { createFetcher, FetchError, type Fetcher, type FetchResult } from '../../adapters/fetch/fetcher.ts';
import type { InputHost } from './provider-inputs.ts';
import {
  type EngineWarning,
  GenerationError,
  type SceneEngine,
  type SceneRequest,
  type SceneResult,
} from './scene-engine.ts';

/**
 * What the provider adapters (openai-images, fal, replicate, comfyui) share: JSON and multipart
 * calls over the one Fetcher with a per-generation deadline, bounded retries with backoff under
 * each provider's own policy (RetryPolicy; Retry-After honoured), bounded result downloads checked
 * to be images, and the final cover-crop to the exact requested size. Every failure leaves as a GenerationError
 * whose message a person can read and which never contains the API key.
 *
 * Trust: the provider's API origin gets the auth headers and the API fetcher (which may reach
 * private addresses: the operator chose the endpoint). A URL the provider hands back on another
 * origin (a CDN result URL) is fetched WITHOUT credentials, through `downloadFetcher` when given
 * (keep that one on the public-address policy), so a provider answer cannot steer an
 * authenticated or private request.
 */

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What every provider engine is constructed with. */
export interface ProviderDeps {
  /** Calls to the provider's API. */
  fetcher: Fetcher;
  /** Downloads of result URLs on another origin than the API's. Default: `fetcher`. */
  downloadFetcher?: Fetcher;
  /** Waits between retries and polls (tests pass one that returns at once). */
  sleep?: Sleep;
  /** Milliseconds clock for deadlines. Default Date.now. */
  now?: () => number;
  /**
   * Short-lived public links to input images in our own storage (provider-inputs.ts), for
   * providers that take images by URL; absent or answering undefined: the provider's upload API
   * or a data URI where it documents them.
   */
  inputHost?: InputHost;
}

/**
 * The deps a provider engine is made with, the fetchers defaulted. Provider endpoints are
 * configured by the operator, not sent by clients, so API calls go through a fetcher that may
 * reach private addresses (a ComfyUI or an OpenAI-compatible server on the same network is
 * common); results a provider links to on another origin (CDNs) are downloaded through a
 * public-only fetcher, without credentials. Every other bound of the one fetcher (time, size,
 * redirects, schemes) applies to both.
 */
export function withDefaultFetchers(deps: Partial<ProviderDeps>): ProviderDeps {
  return {
    fetcher: deps.fetcher ?? createFetcher({ allowPrivate: true }),
    downloadFetcher: deps.downloadFetcher ?? createFetcher(),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.inputHost ? { inputHost: deps.inputHost } : {}),
  };
}

/** Retry and bound knobs every provider's settings accept. */
export interface ProviderLimits {
  /** The whole generation (every call, poll and download). */
  timeoutMs?: number;
  /** Extra attempts after a failure the provider's retry policy retries (429, 5xx...). Default 2. */
  maxRetries?: number;
  /** First backoff delay; doubled each attempt. Default 500 ms. */
  retryBaseMs?: number;
  /** Longest wait between two attempts, Retry-After included (a longer Retry-After fails at once). Default 30 s. */
  maxRetryDelayMs?: number;
  /** Largest result image. Default 40 MiB. */
  maxImageBytes?: number;
}

export interface ProviderHttpConfig extends ProviderLimits {
  /** How messages name the provider ("fal.ai", "Replicate"...). */
  label: string;
  /** The API origin (`https://queue.fal.run`): URLs on it get `headers`; others none. */
  apiOrigin: string;
  /** Sent with every call to `apiOrigin` (authorization). */
  headers?: Record<string, string>;
  /** Strings never to appear in a message (the API key). */
  secrets?: (string | undefined)[];
  /** Largest JSON answer. Default 8 MiB (OpenAI's b64_json answers need more: see its adapter). */
  maxJsonBytes?: number;
  /** Default timeout when a generation does not give one. Default 120 s. */
  defaultTimeoutMs?: number;
  /**
   * Which failed attempts are tried again: the provider's own client's policy (see RetryPolicy).
   * Default `stainlessRetry` (the policy of the OpenAI, Runway and Luma SDKs).
   */
  retry?: RetryPolicy;
}

/**
 * One failed attempt, as a retry policy sees it: an HTTP answer (`status`, `headers`, `body`) or
 * a failure to get one (`network`: the connection failed or broke; `timeout`: no answer in time).
 */
export interface FailedAttempt {
  method: string;
  url: string;
  status?: number;
  headers?: Record<string, string>;
  body?: Buffer;
  network?: 'connection' | 'timeout';
}

/** Whether a failed attempt is tried again (within `maxRetries` and the deadline). */
export type RetryPolicy = (a: FailedAttempt) => boolean;

/**
 * The policy of the Stainless-generated SDKs (openai-node src/client.ts `shouldRetry`,
 * runwayml/sdk-node src/client.ts:705-726, lumaai-node src/core.ts:572-591): the server's
 * `x-should-retry: true|false` decides first; else 408, 409, 429 and every 5xx, and connection
 * failures, are retried, whatever the method. One departure, on purpose: a POST that got no
 * answer in time is not sent again (the provider may have accepted it and none of these three
 * honours an idempotency key, so a second one could start a second billed job).
 */
export const stainlessRetry: RetryPolicy = (a) => {
  const told = a.headers?.['x-should-retry'];
  if (told === 'true') return true;
  if (told === 'false') return false;
  if (a.network === 'timeout') return a.method === 'GET' || a.method === 'HEAD';
  if (a.network) return true;
  const st = a.status ?? 0;
  return st === 408 || st === 409 || st === 429 || st >= 500;
};

/**
 * A policy for providers whose own client retries a job's creation only on some statuses (fal:
 * 429, 502, 503, 504; Replicate: 429) because a created job is billed: POSTs are retried on
 * `postStatuses` alone (never after a lost connection or a timeout, when the job may exist);
 * reads (GET, HEAD) on 408, 429 and 5xx and on network failures.
 */
export const retryCreatesOnlyOn =
  (postStatuses: readonly number[]): RetryPolicy =>
  (a) => {
    if (a.method !== 'GET' && a.method !== 'HEAD') return a.status !== undefined && postStatuses.includes(a.status);
    if (a.network) return true;
    const st = a.status ?? 0;
    return st === 408 || st === 429 || st >= 500;
  };

/** A refusal under the provider's content policy (moderation, NSFW or safety filters). Never retryable. */
export class ContentPolicyError extends GenerationError {
  readonly reason = 'content_policy';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, false, options);
    this.name = 'ContentPolicyError';
  }
}

export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;

// ---------------------------------------------------------------------------------------------
// Reading provider errors
// ---------------------------------------------------------------------------------------------

const POLICY_CODES = /content[_ ]?policy|moderation|safety|nsfw|content[_ ]?filter|responsible ?ai/i;
const POLICY_TEXT =
  /\bnsfw\b|content[ _-]?polic|safety[ _-]?(system|checker|filter)|\bflagged\b|moderation|sensitive content|responsibleaipolicy/i;

/** The code/type and message a provider put in an error body, whatever its shape. */
export function providerError(body: Buffer | string | unknown): { message?: string; code?: string } {
  let j: unknown = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    const text = body.toString().trim();
    try {
      j = JSON.parse(text);
    } catch {
      // Plain text (or an HTML error page from a proxy: nothing worth repeating).
      return text && !text.startsWith('<') ? { message: text } : {};
    }
  }
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  if (typeof j === 'string') return { message: j };
  if (Array.isArray(j)) return providerError({ detail: j });
  if (!j || typeof j !== 'object') return {};
  const o = j as Record<string, unknown>;
  // OpenAI: { error: { message, code, type } }; ComfyUI: { error: { type, message, details } }.
  if (o.error && typeof o.error === 'object') {
    const e = o.error as Record<string, unknown>;
    const message = [str(e.message), str(e.details)].filter(Boolean).join(': ') || undefined;
    return { message, code: str(e.code) ?? str(e.type) };
  }
  // fal: { detail: [{ msg, type, loc }] } or { detail: "..." }; Replicate: { title, detail }.
  if (Array.isArray(o.detail)) {
    const first = o.detail.find((d) => d && typeof d === 'object') as Record<string, unknown> | undefined;
    const messages = o.detail
      .map((d) => (d && typeof d === 'object' ? str((d as Record<string, unknown>).msg) : str(d)))
      .filter(Boolean);
    return { message: messages.join('; ') || undefined, code: str(first?.type) };
  }
  return {
    message: str(o.detail) ?? str(o.error) ?? str(o.message) ?? str(o.title),
    code: str(o.code) ?? str(o.error_type) ?? str(o.type),
  };
}

export function isContentPolicy(e: { message?: string; code?: string }): boolean {
  return (!!e.code && POLICY_CODES.test(e.code)) || (!!e.message && POLICY_TEXT.test(e.message));
}

/** Removes secrets (and token-looking strings) from text meant for people, and bounds it. */
export function redact(text: string, secrets: (string | undefined)[] = [], max = 300): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  out = out
    .replace(/\b(Bearer|Key|Token)\s+(?=[^\s"',;]*\d)[^\s"',;]{8,}/g, '$1 [redacted]')
    .replace(/\b(sk|r8|fal|key)[-_][A-Za-z0-9*._:-]{8,}/g, '[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

// ---------------------------------------------------------------------------------------------
// Sessions: one per generation, with its deadline and the caller's signal
// ---------------------------------------------------------------------------------------------

export interface RequestOptions {
  method?: string;
  /** Serialized as JSON with content-type application/json. */
  json?: unknown;
  /** A ready body (multipart). */
  body?: { bytes: Uint8Array; contentType: string };
  headers?: Record<string, string>;
  accept?: string;
  /** Largest answer. Default: the config's maxJsonBytes. */
  maxBytes?: number;
  /** What the call does, for messages ("submitting the job"). Retries follow the config's RetryPolicy. */
  what?: string;
  /** Per-provider reading of an HTTP error (ComfyUI's node_errors...); undefined → the default. */
  onHttpError?: (status: number, body: Buffer, headers: Record<string, string>) => GenerationError | undefined;
}

export interface JsonAnswer<T = unknown> {
  status: number;
  headers: Record<string, string>;
  url: string;
  json: T;
}

export interface ProviderHttp {
  readonly label: string;
  /** A session for one generation: `timeoutMs` (else the configured one) from now. */
  session(o?: { signal?: AbortSignal; timeoutMs?: number }): ProviderSession;
}

export interface ProviderSession {
  /** A call whose 2xx answer is JSON. */
  json<T = unknown>(url: string, o?: RequestOptions): Promise<JsonAnswer<T>>;
  /** A call returning raw bytes (2xx only). */
  raw(url: string, o?: RequestOptions): Promise<FetchResult>;
  /** Downloads (or decodes a `data:` URI) and checks that the bytes are an image. */
  downloadImage(url: string, what?: string): Promise<Buffer>;
  /** Decodes base64 image bytes and checks them. */
  decodeBase64Image(b64: string, what?: string): Promise<Buffer>;
  /**
   * Calls `step` until it returns a value, waiting `intervalMs` (×1.5 each time, up to
   * `maxIntervalMs`) between calls; the deadline ends it with a timeout GenerationError.
   */
  poll<T>(step: () => Promise<T | undefined>, o: { intervalMs: number; maxIntervalMs?: number }): Promise<T>;
  /** Milliseconds left before the deadline. */
  remainingMs(): number;
  /** The GenerationError for "the provider did not finish in time". */
  timeoutError(): GenerationError;
  /**
   * Best effort, after the generation gave up (timeout): asks the provider to cancel the job.
   * Only for URLs on the API origin; waits at most 2 s and never throws.
   */
  cancel(url: string, method?: string, json?: unknown): Promise<void>;
  /** A GenerationError with the secrets removed from `message`. */
  fail(message: string, retryable?: boolean, cause?: unknown): GenerationError;
  /** The right error for a provider-reported failure text (content policy or not). */
  failed(detail: { message?: string; code?: string }, prefix: string): GenerationError;
}

/** `Authorization: <scheme> <apiKey>`, or no header without a key. */
export const authorization = (scheme: string, apiKey: string | undefined): Record<string, string> =>
  apiKey ? { authorization: `${scheme} ${apiKey}` } : {};

/**
 * The provider's HTTP helpers for an adapter whose API key is `settings.apiKey` (kept out of
 * messages), `settings` giving the limits: answers a function opening the session of one
 * request (aborted by its signal).
 */
export function providerSessions(
  settings: ProviderLimits & { apiKey?: string | undefined },
  deps: ProviderDeps,
  o: Omit<ProviderHttpConfig, keyof ProviderLimits | 'secrets'>,
): (req: { signal?: AbortSignal | undefined }) => ProviderSession {
  const http = createProviderHttp({ ...settings, ...o, secrets: [settings.apiKey] }, deps);
  return (req) => http.session({ ...(req.signal ? { signal: req.signal } : {}) });
}

/**
 * A provider's SceneEngine: each generation opens its session (`sessions`, from providerSessions)
 * and runs `generate` in it (as the video providers' providerEngine).
 */
export function providerSceneEngine(
  name: string,
  sessions: (req: SceneRequest) => ProviderSession,
  generate: (req: SceneRequest, s: ProviderSession) => Promise<SceneResult>,
): SceneEngine {
  return { name, generate: async (req) => generate(req, sessions(req)) };
}

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'webp', 'gif', 'avif', 'tiff', 'heif']);

export function createProviderHttp(cfg: ProviderHttpConfig, deps: ProviderDeps): ProviderHttp {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? defaultSleep;
  const secrets = cfg.secrets ?? [];
  const maxRetries = Math.max(0, cfg.maxRetries ?? 2);
  const retry = cfg.retry ?? stainlessRetry;
  const retryBaseMs = cfg.retryBaseMs ?? 500;
  const maxRetryDelayMs = cfg.maxRetryDelayMs ?? 30_000;
  const maxJsonBytes = cfg.maxJsonBytes ?? 8 * 1024 * 1024;
  const maxImageBytes = cfg.maxImageBytes ?? 40 * 1024 * 1024;
  const apiOrigin = new URL(cfg.apiOrigin).origin;
  const label = cfg.label;

  return {
    label,
    session(o = {}) {
      const timeoutMs = o.timeoutMs ?? cfg.timeoutMs ?? cfg.defaultTimeoutMs ?? 120_000;
      const deadline = now() + timeoutMs;
      const signal = o.signal;
      const remainingMs = () => deadline - now();
      const fail = (message: string, retryable = false, cause?: unknown) =>
        new GenerationError(redact(message, secrets, 600), retryable, cause === undefined ? undefined : { cause });
      const timeoutError = () => fail(`${label} did not finish the image within ${secs(timeoutMs)}`, true);
      const failed = (detail: { message?: string; code?: string }, prefix: string) => {
        const text = detail.message ? redact(detail.message, secrets) : '';
        if (isContentPolicy(detail)) {
          return new ContentPolicyError(
            `${label} refused the request under its content policy (moderation or safety filter)${text ? `: ${text}` : ''}`,
          );
        }
        return fail(`${prefix}${text ? `: ${text}` : ''}`);
      };

      const httpError = (status: number, body: Buffer, what: string, attempts: number): GenerationError => {
        const detail = providerError(body);
        const tries = attempts > 1 ? `, after ${attempts} attempts` : '';
        if (status === 401 || status === 403) {
          // The provider's text is not repeated: some echo part of the key.
          return fail(`${label} refused the API key (HTTP ${status}) while ${what}`);
        }
        if (isContentPolicy(detail)) return failed(detail, '');
        if (status === 429) return fail(`${label} is rate limiting requests (HTTP 429) while ${what}${tries}`, true);
        if (status >= 500) {
          const e = failed(detail, `${label} failed with HTTP ${status} while ${what}${tries}`);
          return new GenerationError(e.message, true);
        }
        return failed(detail, `${label} rejected the request (HTTP ${status}) while ${what}`);
      };

      const backoff = (attempt: number) => Math.min(maxRetryDelayMs, retryBaseMs * 2 ** attempt);

      const retryAfter = (headers: Record<string, string>): number | undefined => {
        const ms = Number(headers['retry-after-ms']);
        if (headers['retry-after-ms'] && Number.isFinite(ms) && ms >= 0) return ms;
        const v = headers['retry-after']?.trim();
        if (!v) return undefined;
        if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
        const at = Date.parse(v);
        return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
      };

      const abortIfCancelled = () => {
        if (signal?.aborted) throw signal.reason;
      };

      /** Waits `ms` before another attempt, or throws `last` when that would pass the deadline. */
      const waitBeforeRetry = async (ms: number, last: GenerationError) => {
        if (ms >= remainingMs()) {
          throw new GenerationError(`${last.message} (a retry in ${secs(ms)} would pass the deadline)`, true);
        }
        await sleep(ms, signal);
        abortIfCancelled();
      };

      const raw = async (url: string, ro: RequestOptions = {}): Promise<FetchResult> => {
        const method = (ro.method ?? (ro.json !== undefined || ro.body ? 'POST' : 'GET')).toUpperCase();
        const what = ro.what ?? `calling ${new URL(url).pathname}`;
        const sameOrigin = new URL(url).origin === apiOrigin;
        const fetcher = sameOrigin ? deps.fetcher : (deps.downloadFetcher ?? deps.fetcher);
        const headers: Record<string, string> = { ...(sameOrigin ? cfg.headers : {}), ...ro.headers };
        let body: string | Uint8Array | undefined;
        if (ro.json !== undefined) {
          body = JSON.stringify(ro.json);
          headers['content-type'] = 'application/json';
        } else if (ro.body) {
          body = ro.body.bytes;
          headers['content-type'] = ro.body.contentType;
        }
        for (let attempt = 0; ; attempt++) {
          abortIfCancelled();
          const left = remainingMs();
          if (left <= 0) throw timeoutError();
          let res: FetchResult;
          try {
            res = await fetcher.fetch(url, {
              method,
              headers,
              ...(body !== undefined ? { body } : {}),
              accept: ro.accept ?? 'application/json',
              timeoutMs: left,
              idleTimeoutMs: left,
              maxBytes: ro.maxBytes ?? maxJsonBytes,
              throwOnHttpError: false,
              ...(signal ? { signal } : {}),
            });
          } catch (err) {
            abortIfCancelled();
            if (!(err instanceof FetchError)) throw fail(`${label} could not be called while ${what}`, false, err);
            if (err.code === 'TIMEOUT' && remainingMs() <= 50) throw timeoutError();
            if (err.code === 'TOO_LARGE') {
              throw fail(`${label} sent an answer larger than allowed while ${what}`, false, err);
            }
            const network = err.code === 'TIMEOUT' ? 'timeout' : 'connection';
            const transient =
              err.code === 'TIMEOUT' ||
              err.code === 'CONNECTION_FAILED' ||
              err.code === 'BAD_RESPONSE' ||
              err.code === 'DNS_FAILURE';
            const again = transient && retry({ method, url, network });
            const e = fail(`${label} could not be reached while ${what}: ${err.message}`, transient, err);
            if (!again || attempt >= maxRetries) throw e;
            await waitBeforeRetry(backoff(attempt), e);
            continue;
          }
          if (res.status >= 400) {
            const custom = ro.onHttpError?.(res.status, res.body, res.headers);
            if (custom) throw custom;
            const e = httpError(res.status, res.body, what, attempt + 1);
            const again = retry({ method, url, status: res.status, headers: res.headers, body: res.body });
            if (!again || e instanceof ContentPolicyError || attempt >= maxRetries) throw e;
            const delay = retryAfter(res.headers) ?? backoff(attempt);
            if (delay > maxRetryDelayMs) {
              throw fail(
                `${label} asked to wait ${secs(delay)} before trying again (HTTP ${res.status}), longer than the ${secs(maxRetryDelayMs)} allowed`,
                true,
              );
            }
            await waitBeforeRetry(delay, e);
            continue;
          }
          return res;
        }
      };

      const json = async <T>(url: string, ro: RequestOptions = {}): Promise<JsonAnswer<T>> => {
        const res = await raw(url, ro);
        let parsed: unknown;
        try {
          parsed = JSON.parse(res.body.toString('utf8'));
        } catch {
          throw fail(`${label} answered something that is not JSON while ${ro.what ?? 'calling it'}`, true);
        }
        return { status: res.status, headers: res.headers, url: res.url, json: parsed as T };
      };

      const checkImage = async (bytes: Buffer, what: string): Promise<Buffer> => {
        if (bytes.length === 0) throw fail(`${label} returned an empty ${what}`, true);
        if (bytes.length > maxImageBytes) throw fail(`${label} returned a ${what} larger than ${maxImageBytes} bytes`);
        let meta: Metadata;
        try {
          meta = await sharp(bytes, { limitInputPixels: 100_000_000 }).metadata();
        } catch (err) {
          throw fail(`${label} returned a ${what} that is not an image`, true, err);
        }
        if (!meta.format || !IMAGE_FORMATS.has(meta.format) || !meta.width || !meta.height) {
          throw fail(`${label} returned a ${what} that is not an image`, true);
        }
        return bytes;
      };

      const decodeBase64Image = async (b64: string, what = 'result image') => {
        if (b64.length > Math.ceil((maxImageBytes * 4) / 3) + 4) {
          throw fail(`${label} returned a ${what} larger than ${maxImageBytes} bytes`);
        }
        return checkImage(Buffer.from(b64, 'base64'), what);
      };

      const downloadImage = async (url: string, what = 'result image') => {
        const data = /^data:([^;,]*)(;base64)?,/i.exec(url);
        if (data) {
          const payload = url.slice(data[0].length);
          return data[2]
            ? decodeBase64Image(payload, what)
            : checkImage(Buffer.from(decodeURIComponent(payload), 'latin1'), what);
        }
        let parsed: URL;
        try {
          parsed = new URL(url);
        } catch {
          throw fail(`${label} returned an invalid ${what} URL`, true);
        }
        const res = await raw(parsed.href, {
          what: `downloading the ${what}`,
          accept: 'image/*',
          maxBytes: maxImageBytes,
        });
        return checkImage(res.body, what);
      };

      const poll = async <T>(
        step: () => Promise<T | undefined>,
        po: { intervalMs: number; maxIntervalMs?: number },
      ): Promise<T> => {
        let interval = po.intervalMs;
        for (;;) {
          const v = await step();
          if (v !== undefined) return v;
          const left = remainingMs();
          if (left <= 0) throw timeoutError();
          await sleep(Math.min(interval, left), signal);
          abortIfCancelled();
          if (remainingMs() <= 0) throw timeoutError();
          interval = Math.min(po.maxIntervalMs ?? interval * 4, Math.round(interval * 1.5));
        }
      };

      const cancel = async (url: string, method = 'POST', body?: unknown) => {
        try {
          if (new URL(url).origin !== apiOrigin) return;
          await deps.fetcher.fetch(url, {
            method,
            headers: { ...cfg.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
            timeoutMs: 2000,
            idleTimeoutMs: 2000,
            maxBytes: 64 * 1024,
            throwOnHttpError: false,
          });
        } catch {
          // Best effort: the job may already be gone.
        }
      };

      return { json, raw, downloadImage, decodeBase64Image, poll, remainingMs, timeoutError, cancel, fail, failed };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Inputs and outputs
// ---------------------------------------------------------------------------------------------

/** Short stable name for uploaded bytes (same bytes, same name). */
export const contentName = (bytes: Buffer, prefix: string, ext = 'png') =>
  `${prefix}-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.${ext}`;

export type MultipartField = string | { bytes: Buffer; filename: string; contentType: string };

/** multipart/form-data bytes and content type (boundary included), via the platform's FormData. */
export async function encodeMultipart(
  fields: [name: string, value: MultipartField][],
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of fields) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([new Uint8Array(value.bytes)], { type: value.contentType }), value.filename);
  }
  const res = new Response(form);
  const contentType = res.headers.get('content-type');
  if (!contentType) throw new Error('FormData did not give a content type');
  return { bytes: new Uint8Array(await res.arrayBuffer()), contentType };
}

/** The candidate whose ratio is nearest `width/height` (log distance; ties: the larger area). */
export function nearestSize<T extends { width: number; height: number }>(
  candidates: readonly T[],
  width: number,
  height: number,
): T {
  const target = Math.log(width / height);
  let best: T | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = Math.abs(Math.log(c.width / c.height) - target);
    if (d < bestD - 1e-9 || (Math.abs(d - bestD) <= 1e-9 && best && c.width * c.height > best.width * best.height)) {
      best = c;
      bestD = d;
    }
  }
  if (!best) throw new Error('nearestSize: no candidates');
  return best;
}

/** `"1536x1024"` → `{ width, height }`; undefined when it is not that shape. */
export function parseSize(s: string): { width: number; height: number } | undefined {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(s.trim());
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
}

/** `"16:9"` → `{ width: 16, height: 9 }`. */
export function parseRatio(s: string): { width: number; height: number } | undefined {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(s.trim());
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
}

/** The provider's image cover-cropped and resized to exactly width × height (PNG), with warnings. */
export async function fitToRequest(
  image: Buffer,
  width: number,
  height: number,
): Promise<{ png: Buffer; warnings: EngineWarning[]; source: { width: number; height: number } }> {
  const img = sharp(image, { limitInputPixels: 100_000_000 }).rotate();
  const meta = await img.metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const sw = (swap ? meta.height : meta.width) ?? width;
  const sh = (swap ? meta.width : meta.height) ?? height;
  const warnings: EngineWarning[] = [];
  if (Math.abs(Math.log(sw / sh) - Math.log(width / height)) > 0.01) {
    warnings.push({
      code: 'PROVIDER_ASPECT_CROPPED',
      severity: 'info',
      message: `The provider made a ${sw}×${sh} image; it was cropped to the requested ${width}×${height}`,
    });
  }
  const scale = Math.max(width / sw, height / sh);
  if (scale > 1.05) {
    warnings.push({
      code: 'PROVIDER_UPSCALED',
      severity: 'warning',
      message: `The provider's image was enlarged ${Math.round(scale * 100) / 100}× to reach ${width}×${height}`,
    });
  }
  const png = await img.resize(width, height, { fit: 'cover', position: 'centre' }).png().toBuffer();
  return { png, warnings, source: { width: sw, height: sh } };
}

/** fitToRequest for a request: an image that cannot be read or resized is a (final) GenerationError. */
export async function fitProviderImage(
  image: Buffer,
  req: { width: number; height: number },
): ReturnType<typeof fitToRequest> {
  try {
    return await fitToRequest(image, req.width, req.height);
  } catch (err) {
    throw new GenerationError('The provider image could not be resized to the requested size', false, { cause: err });
  }
}

/**
 * The SceneResult for a provider's image. Providers do not say where the product ended up, so
 * each product's box is the whole frame, with a warning saying so.
 */
export async function providerSceneResult(
  req: SceneRequest,
  image: Buffer,
  engine: string,
  warnings: EngineWarning[] = [],
): Promise<SceneResult> {
  const fitted = await fitProviderImage(image, req);
  const all = [...warnings, ...fitted.warnings];
  if (req.products.length > 0) {
    all.push({
      code: 'PRODUCT_PLACEMENT_UNKNOWN',
      severity: 'info',
      message: 'The provider does not report where the product is; its box is the whole image',
    });
  }
  return {
    png: fitted.png,
    width: req.width,
    height: req.height,
    productBoxes: req.products.map(() => ({ left: 0, top: 0, width: req.width, height: req.height })),
    warnings: all,
    engine,
  };
}

/**
 * `text` cut to at most `max` UTF-16 code units (the unit providers count in) without splitting a
 * surrogate pair: a cut that would leave a lone high surrogate drops it too.
 */
export function truncateUtf16(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * Runs the provider part of a generation; when it ends by the deadline or by the caller's abort,
 * asks the provider to cancel the job (best effort, see ProviderSession.cancel) before rethrowing.
 */
export async function cancelOnGiveUp<T>(
  s: ProviderSession,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
  cancel: () => Promise<void>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (signal?.aborted || s.remainingMs() <= 0) await cancel();
    throw err;
  }
}

/** Trims trailing slashes. */
export const trimBase = (url: string) => url.replace(/\/+$/, '');

/** The aspect ratios a model accepts (`16:9`...), parsed once; a bad one stops the engine's creation. */
export function parseRatios(list: readonly string[], label: string): { width: number; height: number; text: string }[] {
  return list.map((r) => {
    const p = parseRatio(r);
    if (!p) throw new Error(`${label}: "${r}" is not an aspect ratio like 16:9`);
    return { ...p, text: r };
  });
}

/**
 * A URL a provider's answer gave, when it is on the configured API origin; else `fallback` (built
 * from ids), so the API key is never sent to an origin the operator did not configure.
 */
export const onOrigin = (origin: string) => (given: unknown, fallback: string) =>
  typeof given === 'string' && URL.canParse(given) && new URL(given).origin === origin ? given : fallback;

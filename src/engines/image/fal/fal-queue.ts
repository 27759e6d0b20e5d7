import type { EngineWarning } from '../scene-engine.ts';
import {
  cancelOnGiveUp,
  ContentPolicyError,
  createProviderHttp,
  onOrigin,
  type ProviderDeps,
  type ProviderLimits,
  type ProviderSession,
  type RetryPolicy,
  retryCreatesOnlyOn,
  trimBase,
} from '../provider-http.ts';
import { imageInput, type InputRoute } from '../provider-inputs.ts';

/**
 * fal.ai's queue protocol, written once for the image and the video adapter (sources: fal-ai/fal-js
 * @381105e, libs/client/src/…; fal-ai/fal @c6f0afa, projects/fal_client/src/fal_client/client.py):
 *
 * 1. `POST {queue}/{endpoint id}` with the model's input as JSON, `Authorization: Key <key>`
 *    (request.ts:62-68, queue.ts:332-351) answers `request_id`, `status_url`, `response_url`,
 *    `cancel_url` (types/common.ts:82-93);
 * 2. `GET {queue}/{app}/requests/{id}/status` (queue.ts:357-372) is polled while `IN_QUEUE` /
 *    `IN_PROGRESS`, until `COMPLETED` (fal-js stops at COMPLETED, queue.ts:494; fal-py also reads
 *    `error` / `error_type` on a COMPLETED status, client.py:700-716, so we do too);
 * 3. `GET {queue}/{app}/requests/{id}` (queue.ts:512-528) is the model's output, or the job's
 *    failure as an HTTP error: a 422 `{detail:[{loc,msg,type,…}]}` (model errors, response.ts:89-99,
 *    https://fal.ai/docs/documentation/model-apis/errors.md) or a flat `{detail, error_type}` with
 *    an `X-Fal-Error-Type` header (request errors, https://fal.ai/docs/documentation/model-apis/request-errors.md;
 *    fal-py client.py:628-655);
 * 4. `PUT {queue}/{app}/requests/{id}/cancel` (queue.ts:533-549) when we give up (timeout or the
 *    caller's abort; fal-js cancels on its own timeout, queue.ts:474-482).
 *
 * `{app}` is the endpoint id's owner/alias, with its namespace for `workflows/` and `comfy/` ids
 * (utils.ts:15-42): see falAppId. The job URLs the submit answer gives are used when they are on
 * the configured queue origin; else they are built by that rule, so an answer cannot send the key
 * elsewhere.
 *
 * Input images go by URL, never as data URIs (fal documents those for "some models" only; URLs are
 * "the universal format", https://fal.ai/docs/documentation/model-apis/fal-cdn.md): a short-lived
 * link to our own storage when we have one, else fal storage (storage.ts:194-220, 343-369):
 * `POST {rest}/storage/upload/initiate?storage_type=fal-cdn-v3` `{content_type, file_name}` with
 * the key → `{upload_url, file_url}`, then `PUT upload_url` with the bytes and no key, and the model
 * gets `file_url`. The REST root (https://rest.fal.ai, config.ts:204-205) is another origin than
 * the queue's, so it has its own HTTP client with the key (the operator's configured endpoint).
 */

export const FAL_QUEUE_URL = 'https://queue.fal.run';
export const FAL_REST_URL = 'https://rest.fal.ai';
export const FAL_LABEL = 'fal.ai';

/** What both fal adapters' settings take for the queue. */
export interface FalQueueSettings extends ProviderLimits {
  /** The queue's root. Default `https://queue.fal.run`. */
  baseUrl?: string;
  /** Sent as `Authorization: Key <apiKey>` to the queue and to the storage API. */
  apiKey?: string;
  /** fal's REST API root, where input images are uploaded (fal storage). Default `https://rest.fal.ai`. */
  storageBaseUrl?: string;
  /** First wait between status polls (×1.5 each time). */
  pollIntervalMs?: number;
  /** Longest wait between status polls. */
  maxPollIntervalMs?: number;
}

/**
 * fal-js's policy: a job's creation (and the storage initiate, a POST) is retried only on 429,
 * 502, 503 and 504 (queue.ts:209-215, retry.ts:16), never on 500 nor after a lost connection or
 * a timeout, when the job may exist (a second one would be billed); reads on 408, 429, 5xx and
 * network failures (status: queue.ts:217-223 adds 500). A 504 whose `x-fal-request-timeout-type`
 * is `user` is never retried (response.ts:44-46, retry.ts:105-110).
 */
const createsOnly = retryCreatesOnlyOn([429, 502, 503, 504]);
export const falRetry: RetryPolicy = (a) => {
  if (a.status === 504 && a.headers?.['x-fal-request-timeout-type']?.toLowerCase() === 'user') return false;
  return createsOnly(a);
};

const SEGMENT = /^[\w.~-]+$/;
/** Namespaces whose app id has three parts (utils.ts:15). */
const NAMESPACES = new Set(['workflows', 'comfy']);

/**
 * The endpoint id as fal's client sends it: slashes trimmed, the short `123-my-app` form turned
 * into `123/my-app` (utils.ts:1-13). Throws an Error (a configuration mistake) when it is not
 * `owner/alias[/path]` (`namespace/owner/alias[/path]`).
 */
export function falEndpointId(model: string): string {
  let id = model.trim().replace(/^\/+|\/+$/g, '');
  if (!id.includes('/')) {
    const short = /^([0-9]+)-([a-zA-Z0-9-]+)$/.exec(id);
    if (short) id = `${short[1]}/${short[2]}`;
  }
  const parts = id.split('/');
  const need = NAMESPACES.has(parts[0] ?? '') ? 3 : 2;
  if (parts.length < need || !parts.every((p) => SEGMENT.test(p))) {
    throw new Error(`fal: "${model}" is not an endpoint id like owner/app or owner/app/path`);
  }
  return id;
}

/**
 * The app part of an endpoint id, which status, result and cancel URLs use: `owner/alias`, or
 * `namespace/owner/alias` for `workflows/…` and `comfy/…` (parseEndpointId, utils.ts:26-42, and
 * the `${prefix}${owner}/${alias}` of queue.ts:358-362, 513-517, 536-540; fal-py client.py:718-760).
 */
export function falAppId(endpointId: string): string {
  const parts = falEndpointId(endpointId).split('/');
  return parts.slice(0, NAMESPACES.has(parts[0] ?? '') ? 3 : 2).join('/');
}

/** What the documented request error types mean (https://fal.ai/docs/documentation/model-apis/request-errors.md). */
const REQUEST_ERRORS: Record<string, string> = {
  request_timeout: 'the request exceeded its allowed processing time',
  startup_timeout: 'no runner started in time',
  runner_scheduling_failure: 'no runner could be allocated',
  runner_connection_timeout: 'the connection to the runner timed out',
  runner_disconnected: 'the runner disconnected during processing',
  runner_connection_refused: 'the runner refused the connection',
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * A fal error body as `{ message, code }`: model errors `{detail:[{loc,msg,type}]}` read as
 * `image_url: msg (type)` (types/common.ts:119-123; `loc` starts with "body"), request errors
 * `{detail, error_type}` (or the X-Fal-Error-Type header), a bare string `detail` as fal-js's
 * ValidationError does (response.ts:59-72).
 */
export function readFalError(body: Buffer | string, headers: Record<string, string> = {}) {
  let j: unknown;
  const raw = body.toString().trim();
  try {
    j = JSON.parse(raw);
  } catch {
    j = raw && !raw.startsWith('<') ? { detail: raw } : {};
  }
  const o = (j && typeof j === 'object' && !Array.isArray(j) ? j : { detail: j }) as Record<string, unknown>;
  const headerType = text(headers['x-fal-error-type']);
  if (Array.isArray(o.detail)) {
    const items = o.detail.filter((d): d is Record<string, unknown> => !!d && typeof d === 'object');
    const parts = items.slice(0, 5).map((d) => {
      const loc = Array.isArray(d.loc) ? d.loc.filter((l, i) => !(i === 0 && l === 'body')).join('.') : '';
      const type = text(d.type);
      return `${loc ? `${loc}: ` : ''}${text(d.msg) ?? 'invalid'}${type ? ` (${type})` : ''}`;
    });
    if (items.length > 5) parts.push(`and ${items.length - 5} more`);
    return { message: parts.join('; ') || undefined, code: text(items[0]?.type) ?? headerType, model: true };
  }
  return {
    message: text(o.detail) ?? text(o.message) ?? text(o.error),
    code: text(o.error_type) ?? headerType,
    model: false,
  };
}

/** A request error type as words, for messages. */
const errorTypeText = (code: string | undefined) =>
  code ? `${code}${REQUEST_ERRORS[code] ? `: ${REQUEST_ERRORS[code]}` : ''}` : undefined;

/**
 * The reading of fal's HTTP errors for every queue and storage call: 401/403 and transient
 * answers (429 and 5xx without an `error_type`: fal's ingress) are left to the shared handling
 * (retried by falRetry); the rest is the job's own outcome, reported once with fal's words: a
 * stored failure is not fetched again (fal's queue already retried it, up to 10 times:
 * https://fal.ai/docs/documentation/serverless/reliability/retries.md).
 */
export function falHttpError(s: ProviderSession, what: string) {
  return (status: number, body: Buffer, headers: Record<string, string>) => {
    if (status === 401 || status === 403) return undefined;
    const e = readFalError(body, headers);
    if ((status === 429 || status >= 500) && !e.code) return undefined;
    const prefix =
      status === 422 || e.model
        ? `${FAL_LABEL} rejected the model input (HTTP ${status}) while ${what}`
        : status >= 500 || e.code
          ? `${FAL_LABEL} reported the job failed (HTTP ${status}${e.code ? `, ${errorTypeText(e.code)}` : ''}) while ${what}`
          : `${FAL_LABEL} rejected the request (HTTP ${status}) while ${what}`;
    const err = s.failed(e, prefix);
    if (err instanceof ContentPolicyError || (status < 500 && status !== 429)) return err;
    return s.fail(err.message, true);
  };
}

interface Submitted {
  request_id?: unknown;
  status_url?: unknown;
  response_url?: unknown;
  cancel_url?: unknown;
}
interface QueueStatus {
  status?: unknown;
  error?: unknown;
  error_type?: unknown;
}
interface Initiated {
  upload_url?: unknown;
  file_url?: unknown;
}

const PENDING = new Set(['IN_QUEUE', 'IN_PROGRESS']);

export interface FalSession {
  /** The generation's session on the queue origin (downloads of results go through it). */
  readonly http: ProviderSession;
  /** An input image (any format) as the URL the model gets: our link, else fal storage. */
  input(bytes: Buffer, what: string, warnings: EngineWarning[]): Promise<string>;
  /** Submits `input` to `endpointId`, waits for it and answers the model's output. */
  run<T>(endpointId: string, input: Record<string, unknown>): Promise<T>;
}

export interface FalQueue {
  /** A session for one generation (its deadline, the caller's signal). */
  session(signal?: AbortSignal): FalSession;
}

export function createFalQueue(
  settings: FalQueueSettings,
  deps: ProviderDeps,
  o: { defaultTimeoutMs: number; poll: { intervalMs: number; maxIntervalMs: number } },
): FalQueue {
  const baseUrl = trimBase(settings.baseUrl ?? FAL_QUEUE_URL);
  const restUrl = trimBase(settings.storageBaseUrl ?? FAL_REST_URL);
  const headers: Record<string, string> = settings.apiKey ? { authorization: `Key ${settings.apiKey}` } : {};
  const common = {
    ...settings,
    label: FAL_LABEL,
    headers,
    secrets: [settings.apiKey],
    defaultTimeoutMs: o.defaultTimeoutMs,
    retry: falRetry,
  };
  const queue = createProviderHttp({ ...common, apiOrigin: baseUrl }, deps);
  // The storage API is another origin: its own client, so the key goes there and nowhere else.
  const storage = createProviderHttp({ ...common, apiOrigin: restUrl }, deps);
  const own = onOrigin(new URL(baseUrl).origin);
  const poll = {
    intervalMs: settings.pollIntervalMs ?? o.poll.intervalMs,
    maxIntervalMs: settings.maxPollIntervalMs ?? o.poll.maxIntervalMs,
  };

  return {
    session(signal) {
      const s = queue.session(signal ? { signal } : {});

      /** fal storage (storage.ts:194-220, 343-369); bytes under fal-js's 90 MB multipart threshold (storage.ts:347). */
      const upload = async (bytes: Buffer, file: { name: string; contentType: string }): Promise<string> => {
        const st = storage.session({ ...(signal ? { signal } : {}), timeoutMs: Math.max(1, s.remainingMs()) });
        const what = `uploading the ${file.name.replace(/\.\w+$/, '').replace(/-/g, ' ')} to fal storage`;
        const init = (
          await st.json<Initiated>(`${restUrl}/storage/upload/initiate?storage_type=fal-cdn-v3`, {
            json: { content_type: file.contentType, file_name: file.name },
            what,
            onHttpError: falHttpError(st, what),
          })
        ).json;
        const uploadUrl = text(init?.upload_url);
        const fileUrl = text(init?.file_url);
        if (!uploadUrl || !fileUrl || !isHttpUrl(uploadUrl) || !isHttpUrl(fileUrl)) {
          throw st.fail(`${FAL_LABEL} storage answered without an upload_url and a file_url`, true);
        }
        // Without the key: another origin than the storage API's, so the session sends none (storage.ts:360-366).
        await st.raw(uploadUrl, { method: 'PUT', body: { bytes, contentType: file.contentType }, what });
        return fileUrl;
      };
      const route: InputRoute = { label: FAL_LABEL, host: deps.inputHost, upload };

      const run = async <T>(endpointId: string, input: Record<string, unknown>): Promise<T> => {
        const id = falEndpointId(endpointId);
        const submitted = (
          await s.json<Submitted>(`${baseUrl}/${id}`, {
            json: input,
            what: 'submitting the job',
            onHttpError: falHttpError(s, 'submitting the job'),
          })
        ).json;
        const requestId = submitted?.request_id;
        if (typeof requestId !== 'string' || !/^[\w.-]{1,128}$/.test(requestId)) {
          throw s.fail(`${FAL_LABEL} answered the submission without a valid request_id`, true);
        }
        const requestBase = `${baseUrl}/${falAppId(id)}/requests/${requestId}`;
        const statusUrl = own(submitted.status_url, `${requestBase}/status`);
        const responseUrl = own(submitted.response_url, requestBase);
        const cancelUrl = own(submitted.cancel_url, `${requestBase}/cancel`);

        await cancelOnGiveUp(
          s,
          signal,
          () =>
            s.poll(async () => {
              const what = 'checking the job status';
              const st = (await s.json<QueueStatus>(statusUrl, { what, onHttpError: falHttpError(s, what) })).json;
              const status = text(st?.status);
              if (!status) throw s.fail(`${FAL_LABEL} answered a status without a status`, true);
              if (PENDING.has(status)) return undefined;
              if (status !== 'COMPLETED') throw s.fail(`${FAL_LABEL} answered an unknown job status "${status}"`, true);
              const error = text(st.error);
              if (error) {
                const code = text(st.error_type);
                const err = s.failed(
                  { message: error, ...(code ? { code } : {}) },
                  `${FAL_LABEL} reported the job failed`,
                );
                // A request error (runner, timeout) is worth another job; a model's own failure is not.
                throw code && REQUEST_ERRORS[code] && !(err instanceof ContentPolicyError)
                  ? s.fail(err.message, true)
                  : err;
              }
              return true;
            }, poll),
          () => s.cancel(cancelUrl, 'PUT'),
        );

        const what = 'fetching the result';
        return (await s.json<T>(responseUrl, { what, onHttpError: falHttpError(s, what) })).json;
      };

      return {
        http: s,
        input: (bytes, what, warnings) => imageInput(bytes, what, route, warnings),
        run,
      };
    },
  };
}

const isHttpUrl = (u: string) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol);

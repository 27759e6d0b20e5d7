import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { createFetcher, type Fetcher } from '../../../adapters/fetch/fetcher.ts';
import { type FakeRequest, type FakeServer, later, sendJson, startFakeServer } from './fake-http.ts';

/**
 * The core both fake fal.ai servers share (image: ./fal-fake.ts, video:
 * ../../video/fakes/fal-video-fake.ts): three servers on 127.0.0.1 standing for fal's three
 * origins, speaking what fal's clients and docs say (fal-ai/fal-js @381105e libs/client/src/…,
 * fal-ai/fal @c6f0afa projects/fal_client/src/fal_client/client.py, fal.ai/docs):
 *
 * - `api`, the queue (queue.fal.run): `POST /{endpoint id}` enqueues (the input is checked
 *   against the model's schema, below; a bad one is enqueued too and its 422 is the RESULT's
 *   answer), `GET /{app}/requests/{id}/status`, `GET /{app}/requests/{id}`,
 *   `PUT /{app}/requests/{id}/cancel`, each only on fal's app path (see appOf);
 * - `rest`, fal's REST API (rest.fal.ai): `POST /storage/upload/initiate?storage_type=…`;
 * - `cdn`, fal's CDN: `PUT /upload/{token}` (the pre-signed upload, no key) and
 *   `GET /files/{token}/{name}`, plus whatever the wrapper serves (result files) via `cdnFiles`.
 *
 * `state.mode` picks a failure (FalQueueMode, or the wrapper's own); jobs are IN_QUEUE, then
 * IN_PROGRESS for `pendingPolls - 1` more polls, then COMPLETED.
 */

export type FalQueueMode =
  | 'ok'
  /** The first submission answers 429, the next ones go through. */
  | 'rate-limit-then-ok'
  /** Every submission answers 503 from fal's ingress (no error_type). */
  | 'server-error'
  /** The first submission answers 500 although the job WAS enqueued (a retry would enqueue a second). */
  | 'submit-500-once'
  /** The first submission answers 502 (ingress), the next ones go through. */
  | 'submit-502-once'
  /** The first submission answers 504 with `x-fal-request-timeout-type: user`. */
  | 'submit-504-user'
  /** The first submission's connection is cut after the job was enqueued. */
  | 'submit-drop'
  /** Submissions answer after 3 s. */
  | 'slow'
  /** Jobs never leave IN_QUEUE. */
  | 'stuck'
  /** Status answers are not JSON. */
  | 'malformed-json'
  /** The first status poll answers 500, the next ones as usual. */
  | 'status-500-once'
  /** COMPLETED with `error` / `error_type` on the status (fal-py reads them, client.py:700-716). */
  | 'failed'
  /** The result call answers a 422 content_policy_violation. */
  | 'content-policy'
  /** The result call answers a 422 model error (image_too_small). */
  | 'bad-request'
  /** The result call answers a 503 request error (runner_disconnected). */
  | 'result-503'
  /** The result call answers a 504 request error (request_timeout). */
  | 'result-504'
  /** The submission answers job URLs on another origin (not to be followed). */
  | 'foreign-urls'
  /** The submission answers `request_id` only (the URLs must be built by fal's rule). */
  | 'no-urls';

export interface FalQueueState {
  mode: string;
  pendingPolls: number;
  /** How many times the current mode's one-off failure was given. */
  rateLimited: number;
  next: number;
}

/** One member's type in a model's input schema. */
type Field = 'string' | 'number' | 'integer' | 'boolean' | 'url' | 'urls' | readonly string[];
export interface FalSchema {
  required: readonly string[];
  members: Readonly<Record<string, Field>>;
}

const KONTEXT_RATIOS = ['21:9', '16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16', '9:21'] as const;
const KONTEXT_COMMON = {
  prompt: 'string',
  aspect_ratio: KONTEXT_RATIOS,
  enhance_prompt: 'boolean',
  guidance_scale: 'number',
  num_images: 'integer',
  output_format: ['jpeg', 'png'],
  safety_tolerance: ['1', '2', '3', '4', '5', '6'],
  seed: 'integer',
  sync_mode: 'boolean',
} as const;
const KLING_I2V = {
  prompt: 'string',
  image_url: 'url',
  duration: ['5', '10'],
  negative_prompt: 'string',
  cfg_scale: 'number',
} as const;

/**
 * The input schemas of the models the adapters know, from fal-js libs/client/src/types/endpoints.ts:
 * FluxKontextInput (14133-14185), FluxKontextMultiInput (14186-14238),
 * FluxProKontextTextToImageInput (14792-14836), KlingVideoV2MasterImageToVideoInput (27880-27902,
 * the v2.1 standard and master input, 71398-71406), KlingVideoV21ProImageToVideoInput (27774-27800).
 * Models not listed take anything.
 */
export const FAL_SCHEMAS: Readonly<Record<string, FalSchema>> = Object.fromEntries([
  ...['fal-ai/flux-pro/kontext', 'fal-ai/flux-pro/kontext/max'].flatMap((base) => [
    [base, { required: ['prompt', 'image_url'], members: { ...KONTEXT_COMMON, image_url: 'url' } }],
    [`${base}/multi`, { required: ['prompt', 'image_urls'], members: { ...KONTEXT_COMMON, image_urls: 'urls' } }],
    [`${base}/text-to-image`, { required: ['prompt'], members: KONTEXT_COMMON }],
  ]),
  ...['standard', 'master'].map((tier) => [
    `fal-ai/kling-video/v2.1/${tier}/image-to-video`,
    { required: ['prompt', 'image_url'], members: KLING_I2V },
  ]),
  ...['fal-ai/kling-video/v2.1/pro/image-to-video', 'fal-ai/kling-video/v2.5-turbo/pro/image-to-video'].map((id) => [
    id,
    { required: ['prompt', 'image_url'], members: { ...KLING_I2V, tail_image_url: 'url' } },
  ]),
] as [string, FalSchema][]);

/** A Pydantic-style error item, as fal's model errors carry them (types/common.ts:119-123; errors.md). */
interface ErrorItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  url?: string;
  ctx?: Record<string, unknown>;
  input?: unknown;
}

type ErrorSink = (loc: string | (string | number)[], msg: string, type: string, extra?: Partial<ErrorItem>) => void;

export interface FalFakeJob {
  id: string;
  /** The endpoint id submitted to. */
  endpoint: string;
  /** Its app path (appOf). */
  app: string;
  // biome-ignore lint/suspicious/noExplicitAny: model input is read field by field
  input: any;
  polls: number;
  /** The model error its input earned, answered by the result call. */
  invalid?: ErrorItem[];
  cancelled?: boolean;
}

export interface FalUpload {
  token: string;
  contentType: string;
  fileName: string;
  storageType: string | null;
  /** Set once the bytes were PUT. */
  bytes?: Buffer;
  /** The PUT carried an Authorization header (it must not). */
  putWithAuth?: boolean;
}

export interface FalQueueCore {
  api: FakeServer;
  rest: FakeServer;
  cdn: FakeServer;
  /** Reaches `api` and `rest` (the adapter's API fetcher). */
  apiFetcher: Fetcher;
  jobs: Map<string, FalFakeJob>;
  uploads: FalUpload[];
  cancelled: string[];
  /** Clears jobs, uploads, cancels and every server's recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export interface FalQueueCoreOptions {
  apiKey: string;
  state: FalQueueState;
  /** The model's output for a finished job (the result call's 200 body). */
  output(job: FalFakeJob, cdnOrigin: string): unknown | Promise<unknown>;
  /** Serves the wrapper's files on the CDN (result images, videos); false: not one of them. */
  cdnFiles?(req: FakeRequest, res: http.ServerResponse): boolean | Promise<boolean>;
  /** The `error` and `error_type` of the `failed` mode's COMPLETED status. */
  failed?: { error: string; error_type: string };
}

const NAMESPACES = ['workflows', 'comfy'];

/**
 * The app path of an endpoint id: `owner/alias`, or `namespace/owner/alias` for `workflows/…`
 * and `comfy/…` (fal-js utils.ts:15, 26-42; queue.ts:358-362, 513-517, 536-540).
 */
export function appOf(endpoint: string): string {
  const parts = endpoint.split('/');
  return parts.slice(0, NAMESPACES.includes(parts[0] ?? '') ? 3 : 2).join('/');
}

const DOCS = 'https://docs.fal.ai/errors';

export async function startFalQueueCore(o: FalQueueCoreOptions): Promise<FalQueueCore> {
  const { state, apiKey } = o;
  const jobs = new Map<string, FalFakeJob>();
  const uploads: FalUpload[] = [];
  const cancelled: string[] = [];
  const authorized = (req: FakeRequest) => req.headers.authorization === `Key ${apiKey}`; // request.ts:62-64
  const unauthorized = (res: http.ServerResponse) =>
    sendJson(res, 401, { detail: 'Invalid API key provided, check your credentials.' });
  /** The mode's one-off failure, given once. */
  const once = (mode: string) => state.mode === mode && state.rateLimited++ === 0;

  // --- fal's CDN: pre-signed uploads and the files (storage.ts:354-368) ---------------------------
  const cdn = await startFakeServer(async (req, res) => {
    const put = /^\/upload\/([\w-]+)$/.exec(req.url.pathname);
    if (put && req.method === 'PUT') {
      const up = uploads.find((u) => u.token === put[1]);
      if (!up || req.url.searchParams.get('signature') !== up.token) {
        return sendJson(res, 403, { error: 'SignatureDoesNotMatch' });
      }
      // The upload URL is pre-signed; fal-js sends it no Authorization (storage.ts:360-366).
      if (req.headers.authorization) {
        up.putWithAuth = true;
        return sendJson(res, 400, { error: 'The upload URL is signed: an Authorization header is not allowed' });
      }
      if ((req.headers['content-type'] ?? '') !== up.contentType) {
        return sendJson(res, 403, { error: `Content-Type must be ${up.contentType}, as initiated` });
      }
      up.bytes = req.raw;
      return res.writeHead(200).end();
    }
    const file = /^\/files\/([\w-]+)\/[^/]+$/.exec(req.url.pathname);
    if (file && req.method === 'GET') {
      const up = uploads.find((u) => u.token === file[1] && u.bytes);
      if (!up?.bytes) return sendJson(res, 404, { error: 'Not found' });
      return res.writeHead(200, { 'content-type': up.contentType }).end(up.bytes);
    }
    if (await o.cdnFiles?.(req, res)) return;
    return sendJson(res, 404, { error: 'Not found' });
  });

  // --- rest.fal.ai: storage initiate (storage.ts:194-220) ----------------------------------------
  const rest = await startFakeServer((req, res) => {
    if (!authorized(req)) return unauthorized(res);
    if (req.method !== 'POST' || req.url.pathname !== '/storage/upload/initiate') {
      return sendJson(res, 404, { detail: 'Not Found' });
    }
    const body = req.json;
    if (!body || typeof body.file_name !== 'string' || !body.file_name) {
      return sendJson(res, 422, {
        detail: [{ loc: ['body', 'file_name'], msg: 'Field required', type: 'missing' }],
      });
    }
    const token = randomUUID().replace(/-/g, '');
    const contentType = typeof body.content_type === 'string' ? body.content_type : 'application/octet-stream';
    const fileName = String(body.file_name).replace(/[^\w.-]/g, '_');
    uploads.push({ token, contentType, fileName, storageType: req.url.searchParams.get('storage_type') });
    // { upload_url, file_url } (storage.ts:168-171).
    return sendJson(res, 200, {
      upload_url: `${cdn.origin}/upload/${token}?signature=${token}`,
      file_url: `${cdn.origin}/files/${token}/${fileName}`,
    });
  });

  /** The model errors of an input: fal validates it against the model's schema (errors.md). */
  const validate = (endpoint: string, input: Record<string, unknown>): ErrorItem[] => {
    const schema = FAL_SCHEMAS[endpoint];
    if (!schema) return [];
    const errors: ErrorItem[] = [];
    const err: ErrorSink = (loc, msg, type, extra = {}) =>
      errors.push({ loc: ['body', ...(Array.isArray(loc) ? loc : [loc])], msg, type, ...extra });
    for (const f of schema.required) if (input[f] === undefined) err(f, 'Field required', 'missing');
    for (const [f, v] of Object.entries(input)) {
      const t = schema.members[f];
      // A strict stand-in for "this model has no such input": the real service may ignore it,
      // which is worse (lost silently), so the fake refuses it where a test sees it.
      if (!t) err(f, 'Extra inputs are not permitted', 'extra_forbidden', { input: v });
      else if (Array.isArray(t)) {
        if (typeof v !== 'string' || !t.includes(v)) {
          err(f, `Input should be ${t.map((x) => `'${x}'`).join(', ')}`, 'literal_error', { input: v });
        }
      } else if (t === 'string' && typeof v !== 'string') err(f, 'Input should be a valid string', 'string_type');
      else if (t === 'number' && typeof v !== 'number') err(f, 'Input should be a valid number', 'float_type');
      else if (t === 'integer' && !Number.isInteger(v)) err(f, 'Input should be a valid integer', 'int_type');
      else if (t === 'boolean' && typeof v !== 'boolean') err(f, 'Input should be a valid boolean', 'bool_type');
      else if (t === 'url') checkUrl(f, v, err);
      else if (t === 'urls') {
        if (!Array.isArray(v) || v.length === 0) err(f, 'Input should be a non-empty list', 'list_type');
        else for (const [i, u] of v.entries()) checkUrl([f, i], u, err);
      }
    }
    return errors;
  };
  /**
   * An input URL: http(s) (data URIs are accepted by "some models" only, fal-cdn.md; the fake
   * takes none), and a file on the CDN must have been uploaded.
   */
  const checkUrl = (f: string | (string | number)[], v: unknown, err: ErrorSink) => {
    if (typeof v !== 'string' || !URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) {
      err(f, "URL scheme should be 'http' or 'https'", 'url_scheme', {
        input: typeof v === 'string' ? v.slice(0, 40) : v,
      });
      return;
    }
    const u = new URL(v);
    if (u.origin !== cdn.origin) return; // another host's link: the fake cannot fetch it
    const m = /^\/files\/([\w-]+)\//.exec(u.pathname);
    if (!m || !uploads.some((x) => x.token === m[1] && x.bytes)) {
      err(f, 'Failed to download the file. Please check if the URL is accessible', 'file_download_error', {
        url: `${DOCS}#file_download_error`,
        input: v,
      });
    }
  };

  // --- queue.fal.run -----------------------------------------------------------------------------
  const api = await startFakeServer(async (req, res) => {
    if (!authorized(req)) return unauthorized(res);
    const path = decodeURIComponent(req.url.pathname);
    const m = /^\/(.+)\/requests\/([\w.-]+)(\/status|\/cancel)?$/.exec(path);
    if (m) {
      const [, app, id, tail] = m as unknown as [string, string, string, string | undefined];
      const job = jobs.get(id);
      // Status, result and cancel live under the app path only (fal's rule).
      if (!job || job.app !== app) return sendJson(res, 404, { detail: 'Request not found' });
      const urls = jobUrls(api.origin, job);
      if (req.method === 'PUT' && tail === '/cancel') {
        // queue.ts:538-543; answers per https://fal.ai/docs/inference-api/queue/cancel
        cancelled.push(id);
        if (job.polls > state.pendingPolls && state.mode !== 'stuck') {
          return sendJson(res, 400, { status: 'ALREADY_COMPLETED' });
        }
        job.cancelled = true;
        return sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
      }
      if (req.method === 'GET' && tail === '/status') return status(req, res, job, urls);
      if (req.method === 'GET' && !tail) return result(res, job);
      return sendJson(res, 405, { detail: 'Method Not Allowed' });
    }
    if (req.method !== 'POST') return sendJson(res, 405, { detail: 'Method Not Allowed' });
    return submit(req, res, path.slice(1));
  });

  const jobUrls = (origin: string, job: FalFakeJob) => {
    const base = `${origin}/${job.app}/requests/${job.id}`;
    return { response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
  };

  const submit = async (req: FakeRequest, res: http.ServerResponse, endpoint: string) => {
    if (once('rate-limit-then-ok')) return sendJson(res, 429, { detail: 'Too many requests' });
    if (state.mode === 'server-error') return sendJson(res, 503, { detail: 'Service temporarily unavailable' });
    if (once('submit-502-once')) return sendJson(res, 502, { detail: 'Bad Gateway' });
    if (once('submit-504-user')) {
      // A user-set start timeout ran out (headers.ts:15; response.ts:44-46): not to be retried.
      return sendJson(res, 504, { detail: 'Request timed out' }, { 'x-fal-request-timeout-type': 'user' });
    }
    if (state.mode === 'slow') return later(res, 3000, () => sendJson(res, 500, { detail: 'too late' }));
    const input = req.json;
    if (!input || typeof input !== 'object' || Array.isArray(input)) {
      return sendJson(res, 422, { detail: [{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }] });
    }
    const id = randomUUID();
    const job: FalFakeJob = { id, endpoint, app: appOf(endpoint), input, polls: 0 };
    const invalid = validate(endpoint, input);
    if (invalid.length > 0) job.invalid = invalid;
    jobs.set(id, job);
    if (once('submit-500-once')) return sendJson(res, 500, { detail: 'Internal Server Error' });
    if (once('submit-drop')) {
      res.socket?.destroy();
      return;
    }
    const urls = jobUrls(api.origin, job);
    const answer =
      state.mode === 'no-urls'
        ? { request_id: id }
        : state.mode === 'foreign-urls'
          ? {
              status: 'IN_QUEUE',
              request_id: id,
              ...jobUrls('http://evil.test', job),
              queue_position: 0,
            }
          : { status: 'IN_QUEUE', request_id: id, ...urls, queue_position: 0 }; // types/common.ts:82-93
    return sendJson(res, 200, answer, { 'x-fal-request-id': id });
  };

  const status = (req: FakeRequest, res: http.ServerResponse, job: FalFakeJob, urls: ReturnType<typeof jobUrls>) => {
    if (state.mode === 'malformed-json')
      return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status": IN_');
    if (once('status-500-once')) return sendJson(res, 500, { detail: 'Internal Server Error' });
    job.polls++;
    const logs =
      req.url.searchParams.get('logs') === '1'
        ? [{ message: 'step 3/28', level: 'INFO', source: 'USER', timestamp: new Date().toISOString() }]
        : [];
    const common = { request_id: job.id, ...urls };
    // 202 while queued or running, 200 when complete (https://fal.ai/docs/api-reference/inference-api);
    // the variants of types/common.ts:82-109.
    if (state.mode === 'stuck' || job.polls <= state.pendingPolls) {
      return job.polls === 1 || state.mode === 'stuck'
        ? sendJson(res, 202, { status: 'IN_QUEUE', ...common, queue_position: 2 })
        : sendJson(res, 202, { status: 'IN_PROGRESS', ...common, logs });
    }
    const done = { status: 'COMPLETED', ...common, logs, metrics: { inference_time: 4.2 } };
    if (state.mode === 'failed') {
      return sendJson(res, 200, {
        ...done,
        ...(o.failed ?? {
          error: 'Runner disconnected while processing the request',
          error_type: 'runner_disconnected',
        }),
      });
    }
    return sendJson(res, 200, done);
  };

  const result = async (res: http.ServerResponse, job: FalFakeJob) => {
    if (job.polls <= state.pendingPolls || state.mode === 'stuck') {
      return sendJson(res, 400, { detail: 'Request is still in progress' });
    }
    const h = { 'x-fal-request-id': job.id };
    // Model errors: 422 { detail: [ErrorItem] } (errors.md); request errors: { detail, error_type }
    // and X-Fal-Error-Type (request-errors.md). fal-js throws them from the result call (response.ts:89-99).
    if (state.mode === 'content-policy') {
      return sendJson(
        res,
        422,
        {
          detail: [
            {
              loc: ['body', 'prompt'],
              msg: 'The content was flagged by a content checker.',
              type: 'content_policy_violation',
              url: `${DOCS}#content_policy_violation`,
              input: job.input.prompt,
            },
          ],
        },
        h,
      );
    }
    if (state.mode === 'bad-request') {
      return sendJson(
        res,
        422,
        {
          detail: [
            {
              loc: ['body', 'image_url'],
              msg: 'Image dimensions are too small: minimum 300x300',
              type: 'image_too_small',
              url: `${DOCS}#image_too_small`,
              ctx: { min_height: 300, min_width: 300 },
              input: job.input.image_url,
            },
          ],
        },
        h,
      );
    }
    if (job.invalid) return sendJson(res, 422, { detail: job.invalid }, h);
    if (state.mode === 'result-503') {
      return sendJson(
        res,
        503,
        { detail: 'Runner disconnected', error_type: 'runner_disconnected' },
        { ...h, 'x-fal-error-type': 'runner_disconnected' },
      );
    }
    if (state.mode === 'result-504') {
      return sendJson(
        res,
        504,
        { detail: 'Request timed out', error_type: 'request_timeout' },
        { ...h, 'x-fal-error-type': 'request_timeout' },
      );
    }
    return sendJson(res, 200, await o.output(job, cdn.origin), h); // response.ts:121-128
  };

  const apiFetcher = createFetcher({
    policy: (addr, port) => addr === '127.0.0.1' && (port === api.port || port === rest.port),
  });

  return {
    api,
    rest,
    cdn,
    apiFetcher,
    jobs,
    uploads,
    cancelled,
    reset() {
      jobs.clear();
      uploads.length = 0;
      cancelled.length = 0;
      for (const s of [api, rest, cdn]) s.requests.length = 0;
    },
    close: async () => {
      await Promise.all([api.close(), rest.close(), cdn.close()]);
    },
  };
}

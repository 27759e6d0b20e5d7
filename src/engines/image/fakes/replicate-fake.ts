import { createHash } from 'node:crypto';
import type http from 'node:http';
import { type AspectRatio, outputSize } from '../scene-engine.ts';
import {
  type FakeRequest,
  type FakeServer,
  later,
  makePng,
  NOT_AN_IMAGE,
  sendBytes,
  sendJson,
  startFakeServer,
} from './fake-http.ts';

/**
 * A fake Replicate API, in two parts: `startReplicateCore` speaks the predictions protocol and is
 * shared with the video fake (src/engines/video/fakes/replicate-video-fake.ts); `startReplicateFake`
 * is the image fake on top of it (outputs are PNGs served by a second server standing for
 * replicate.delivery). Sources: replicate/replicate-javascript (JS), replicate/replicate-python-beta
 * (PYB, generated from Replicate's OpenAPI spec), replicate/replicate-python (PYL), and the models'
 * API pages on replicate.com (cited where a model's schema is used).
 */

/** What the fake does, beside the normal flow. Each fault happens on the first such call only where noted. */
export type ReplicateMode =
  /** starting → processing (for `pendingPolls` polls) → succeeded, `output` one URL string. */
  | 'ok'
  /** `output` is an array of URLs (models such as flux-schnell answer one). */
  | 'array-output'
  /** The first create is answered 429 with Retry-After (3 s for the image fake, 1 s for the video one). */
  | 'rate-limit-then-ok'
  /** Every create is answered 5xx before anything is created. */
  | 'server-error'
  /** The create stores the prediction, then answers 500 (the answer was lost: the prediction runs). */
  | 'created-then-5xx'
  /** The create stores the prediction, then the connection is destroyed without an answer. */
  | 'reset-after-accept'
  /** The first `POST /v1/files` is answered 503; the next ones work. */
  | 'files-5xx-then-ok'
  /** The first poll of each prediction is answered 503; the next ones work. */
  | 'poll-5xx-then-ok'
  /** The create answers after 3 s. */
  | 'slow'
  /** The prediction never leaves `starting` / `processing`. */
  | 'stuck'
  /** `Prefer: wait` runs out: the create answers `processing` and the prediction must be polled. */
  | 'wait-expired'
  | 'malformed-json'
  /** `succeeded` with `output: null`. */
  | 'missing-output'
  /** The CDN serves bytes that are not an image (image fake) / not a video (video fake). */
  | 'not-an-image'
  | 'not-a-video'
  | 'broken-video'
  /** The prediction fails (`error`: the fake's failure text). */
  | 'failed'
  | 'nsfw'
  /** The prediction ends `canceled` (someone else cancelled it). */
  | 'canceled'
  /** The prediction ends `aborted`: it never started (deadline passed). */
  | 'aborted'
  /** The create is refused 422 (`invalid-input`, the video fake's `bad-request`). */
  | 'invalid-input'
  | 'bad-request'
  /** `urls.get` / `urls.cancel` name another origin (not to be followed). */
  | 'foreign-urls';

/** One input of a model's schema (the API page's "Input schema"). */
export interface InputRule {
  type: 'string' | 'uri' | 'integer' | 'boolean';
  required?: boolean;
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
}

/** A model the fake knows: its inputs, and the refusals its own code makes while running. */
export interface FakeModel {
  inputs: Record<string, InputRule>;
  /** The error a running prediction fails with for this input (the model's own checks), if any. */
  run?: (input: Record<string, unknown>) => string | undefined;
}

/**
 * black-forest-labs/flux-kontext-pro, from its API page
 * (replicate.com/black-forest-labs/flux-kontext-pro/versions/0a138193…/api).
 */
export const FLUX_KONTEXT_PRO: FakeModel = {
  inputs: {
    prompt: { type: 'string', required: true },
    input_image: { type: 'uri' },
    aspect_ratio: {
      type: 'string',
      enum: [
        'match_input_image',
        '1:1',
        '16:9',
        '9:16',
        '4:3',
        '3:4',
        '3:2',
        '2:3',
        '4:5',
        '5:4',
        '21:9',
        '9:21',
        '2:1',
        '1:2',
      ],
    },
    prompt_upsampling: { type: 'boolean' },
    seed: { type: 'integer' },
    output_format: { type: 'string', enum: ['jpg', 'png'] },
    safety_tolerance: { type: 'integer', minimum: 0, maximum: 6 },
  },
  // safety_tolerance: "2 is currently the maximum allowed when input images are used". The schema
  // allows 0..6, so this is the model's run-time refusal (the exact wording is not published).
  run: (input) =>
    input.input_image !== undefined && typeof input.safety_tolerance === 'number' && input.safety_tolerance > 2
      ? 'safety_tolerance must be at most 2 when an input image is used'
      : undefined,
};

/**
 * kwaivgi/kling-v2.1, from its API page (replicate.com/kwaivgi/kling-v2.1/versions/daad218f…/api):
 * no aspect_ratio and no seed.
 */
export const KLING_V2_1: FakeModel = {
  inputs: {
    prompt: { type: 'string', required: true },
    // "You must use a start image with kling-v2.1."
    start_image: { type: 'uri', required: true },
    // "Last frame of the video (pro mode is required when this parameter is set)".
    end_image: { type: 'uri' },
    mode: { type: 'string', enum: ['standard', 'pro'] },
    duration: { type: 'integer', enum: [5, 10] },
    negative_prompt: { type: 'string' },
  },
  // The model's readme: "end_image is only supported on mode: pro" (the exact error text is not published).
  run: (input) =>
    input.end_image !== undefined && input.mode !== 'pro' ? 'end_image is only supported on mode: pro' : undefined,
};

export interface FakePrediction {
  id: string;
  /** `owner/name` (or `generic`). */
  model: string;
  version?: string;
  input: Record<string, unknown>;
  polls: number;
  /** Set once the prediction has ended. */
  end?: { status: 'succeeded' | 'failed' | 'canceled' | 'aborted'; output: unknown; error: string | null };
}

export interface ReplicateCoreOptions {
  apiKey: string;
  /** Known models by `owner/name`; any other model takes any input (nothing recorded as ignored). */
  models: Record<string, FakeModel>;
  /** Version ids of known models. */
  versions?: Record<string, string>;
  /** The fake's mode and its counters (a fault that happens once uses `rateLimited`). */
  state: { mode: ReplicateMode; pendingPolls: number; rateLimited: number; next: number };
  /** Prediction id prefix. */
  idPrefix: string;
  /** The URL of a succeeded prediction's output. */
  output(p: FakePrediction): string;
  /** Retry-After of the 429. */
  retryAfter: string;
  /** `error` of a prediction in mode `failed`. */
  failure: string;
  /** `detail` of the 422 in modes `invalid-input` / `bad-request`. */
  invalidDetail: string;
}

export interface ReplicateCore {
  api: FakeServer;
  /** Ids of the predictions cancelled through the API. */
  cancelled: string[];
  /** Bytes received by POST /v1/files. */
  files: Buffer[];
  /** Name and type of each uploaded `content` part. */
  uploads: { name: string; type: string }[];
  /** Inputs a known model does not declare, as `model:input` (the real API drops them silently). */
  ignoredInputs: string[];
  predictions: Map<string, FakePrediction>;
}

/** RFC 7807 problem details, as Replicate answers errors (PYL replicate/exceptions.py:23-57: type, title, status, detail). */
function problem(res: http.ServerResponse, status: number, title: string, detail: string, headers = {}) {
  sendJson(
    res,
    status,
    { type: 'about:blank', title, status, detail },
    { ...headers, 'content-type': 'application/problem+json' },
  );
}

const isHttpUrl = (v: string) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);

/** The 422 `detail` for an input that breaks `rule`, or undefined (JSON-schema style, as Replicate's input validation). */
function checkInput(key: string, value: unknown, rule: InputRule): string | undefined {
  const given = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  switch (rule.type) {
    case 'string':
      if (typeof value !== 'string') return `- input.${key}: Invalid type. Expected: string, given: ${given}`;
      break;
    case 'uri':
      if (typeof value !== 'string') return `- input.${key}: Invalid type. Expected: string, given: ${given}`;
      if (!isHttpUrl(value) && !value.startsWith('data:')) return `- input.${key}: Does not match format 'uri'`;
      break;
    case 'integer':
      if (!Number.isInteger(value)) return `- input.${key}: Invalid type. Expected: integer, given: ${given}`;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return `- input.${key}: Invalid type. Expected: boolean, given: ${given}`;
      break;
  }
  if (rule.enum && !rule.enum.includes(value as string | number)) {
    return `- input.${key}: ${key} must be one of the following: ${rule.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  }
  if (rule.minimum !== undefined && (value as number) < rule.minimum) {
    return `- input.${key}: Must be greater than or equal to ${rule.minimum}`;
  }
  if (rule.maximum !== undefined && (value as number) > rule.maximum) {
    return `- input.${key}: Must be less than or equal to ${rule.maximum}`;
  }
  return undefined;
}

/** The predictions API and the Files API, as the official sources describe them. */
export async function startReplicateCore(o: ReplicateCoreOptions): Promise<ReplicateCore> {
  const { state } = o;
  const predictions = new Map<string, FakePrediction>();
  const cancelled: string[] = [];
  const files: Buffer[] = [];
  const uploads: { name: string; type: string }[] = [];
  const fileIds = new Set<string>();
  const ignoredInputs: string[] = [];
  const pollFaults = new Set<string>();

  const api: FakeServer = await startFakeServer(async (req, res) => {
    // Bearer token (JS index.js:255-256).
    if (req.headers.authorization !== `Bearer ${o.apiKey}`) {
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    const path = req.url.pathname;

    const get = /^\/v1\/predictions\/([\w.-]+)$/.exec(path);
    if (req.method === 'GET' && get) {
      const p = predictions.get(get[1] as string);
      if (!p) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (state.mode === 'malformed-json') return sendBytes(res, '{"id": "x", "status": "proc', 'application/json');
      if (state.mode === 'poll-5xx-then-ok' && !pollFaults.has(p.id)) {
        pollFaults.add(p.id);
        return problem(res, 503, 'Service Unavailable', 'Please try again.');
      }
      p.polls++;
      return sendJson(res, 200, view(p));
    }

    // POST /v1/predictions/{id}/cancel, no body; answers the prediction, canceled (JS lib/predictions.js:100-104, README.md:767-786).
    const cancel = /^\/v1\/predictions\/([\w.-]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      const p = predictions.get(cancel[1] as string);
      if (!p) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      cancelled.push(p.id);
      p.end ??= { status: 'canceled', output: null, error: null };
      return sendJson(res, 200, view(p));
    }

    if (req.method === 'POST' && path === '/v1/files') return createFile(req, res);

    const official = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/.exec(path);
    if (req.method !== 'POST' || (!official && path !== '/v1/predictions')) {
      return problem(res, 404, 'Not found', 'The requested resource could not be found.');
    }
    return createPrediction(req, res, official ? `${official[1]}/${official[2]}` : undefined);
  });

  const urlsOf = (id: string) => {
    const origin = state.mode === 'foreign-urls' ? 'http://evil.test' : api.origin;
    return {
      get: `${origin}/v1/predictions/${id}`,
      cancel: `${origin}/v1/predictions/${id}/cancel`,
      stream: `https://stream.replicate.test/v1/streams/${id}`,
      web: `https://replicate.test/p/${id}`,
    };
  };

  /** The prediction object (JS index.d.ts:93-121), advanced by one step per poll. */
  function view(p: FakePrediction) {
    if (!p.end && state.mode !== 'stuck' && p.polls > state.pendingPolls) p.end = finish(p);
    const base = {
      id: p.id,
      model: p.model,
      version: p.version ?? 'hidden',
      input: p.input,
      logs: '',
      data_removed: false,
      source: 'api',
      created_at: '2025-01-01T00:00:00.000Z',
      urls: urlsOf(p.id),
    };
    if (p.end) {
      return {
        ...base,
        status: p.end.status,
        output: p.end.output,
        error: p.end.error,
        // aborted: never started (replicate.com/docs/topics/predictions/lifecycle).
        started_at: p.end.status === 'aborted' ? null : '2025-01-01T00:00:01.000Z',
        completed_at: '2025-01-01T00:00:09.000Z',
        ...(p.end.status === 'succeeded' ? { metrics: { predict_time: 8.1, total_time: 9 } } : {}),
      };
    }
    // Statuses: JS index.d.ts:2. No `queued`.
    return {
      ...base,
      status: p.polls === 0 ? 'starting' : 'processing',
      output: null,
      error: null,
      started_at: p.polls === 0 ? null : '2025-01-01T00:00:01.000Z',
    };
  }

  function finish(p: FakePrediction): NonNullable<FakePrediction['end']> {
    if (state.mode === 'aborted') return { status: 'aborted', output: null, error: null };
    if (state.mode === 'canceled') return { status: 'canceled', output: null, error: null };
    // Files given as input must exist: a file URL is only readable by its owner's predictions (JS README.md:1147-1149).
    for (const [key, value] of Object.entries(p.input)) {
      if (typeof value === 'string' && value.startsWith(`${api.origin}/v1/files/`)) {
        if (!fileIds.has(value.slice(`${api.origin}/v1/files/`.length))) {
          return { status: 'failed', output: null, error: `could not download ${key}: file not found` };
        }
      }
    }
    const refusal = o.models[p.model]?.run?.(p.input);
    if (refusal) return { status: 'failed', output: null, error: refusal };
    if (state.mode === 'failed') return { status: 'failed', output: null, error: o.failure };
    if (state.mode === 'nsfw') {
      return {
        status: 'failed',
        output: null,
        error: 'NSFW content detected. Try running it again, or try a different prompt.',
      };
    }
    if (state.mode === 'missing-output') return { status: 'succeeded', output: null, error: null };
    // flux-kontext-pro and kling-v2.1: output `{'format': 'uri', 'type': 'string'}` (their API pages).
    const url = o.output(p);
    return { status: 'succeeded', output: state.mode === 'array-output' ? [url] : url, error: null };
  }

  async function createPrediction(req: FakeRequest, res: http.ServerResponse, route: string | undefined) {
    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return problem(res, 429, 'Request was throttled', 'Request was throttled. Your rate limit resets in ~3s.', {
        'retry-after': o.retryAfter,
      });
    }
    if (state.mode === 'server-error') return problem(res, 502, 'Bad Gateway', 'upstream error');
    if (state.mode === 'slow') return later(res, 3000, () => problem(res, 500, 'Internal Server Error', 'too late'));
    // Prefer: `wait` or `wait=N` (JS lib/predictions.js:29-35), N up to 60 (JS README.md:654).
    const prefer = req.headers.prefer;
    const wait = prefer === undefined ? undefined : /^wait(?:=(\d+))?$/.exec(String(prefer).trim());
    if (
      prefer !== undefined &&
      (!wait || (wait[1] !== undefined && !(Number(wait[1]) >= 1 && Number(wait[1]) <= 60)))
    ) {
      return problem(res, 400, 'Invalid Prefer header', `Prefer must be "wait" or "wait=N" with N from 1 to 60`);
    }
    const body = req.json;
    if (!body || typeof body !== 'object' || !body.input || typeof body.input !== 'object') {
      return problem(res, 422, 'Input validation failed', '- input: input is required');
    }
    // /v1/predictions takes `version` (owner/name:id or an id, PYB types/prediction_create_params.py:98-113);
    // the model route takes none (JS lib/predictions.js:54-67).
    let model = route;
    let version: string | undefined;
    if (!route) {
      const v = /^(?:([\w.-]+\/[\w.-]+):)?([0-9a-f]{64})$/i.exec(String(body.version ?? ''));
      if (!v) return problem(res, 422, 'Input validation failed', '- version: version is required');
      version = v[2] as string;
      model = v[1] ?? o.versions?.[version] ?? 'generic';
    }
    if (state.mode === 'invalid-input' || state.mode === 'bad-request') {
      return problem(res, 422, 'Input validation failed', o.invalidDetail);
    }
    const schema = o.models[model as string];
    const input: Record<string, unknown> = { ...body.input };
    if (schema) {
      for (const key of Object.keys(input)) {
        // Unknown inputs are dropped without an error (cog PR #2943: the API "has historically ignored unknown inputs").
        if (!schema.inputs[key]) {
          ignoredInputs.push(`${model}:${key}`);
          delete input[key];
        }
      }
      const errors = Object.entries(schema.inputs).flatMap(([key, rule]) =>
        input[key] === undefined
          ? rule.required
            ? [`- input: ${key} is required`]
            : []
          : [checkInput(key, input[key], rule)].filter((e): e is string => !!e),
      );
      if (errors.length > 0) return problem(res, 422, 'Input validation failed', errors.join('\n'));
    }
    const id = `${o.idPrefix}${++state.next}x`;
    const p: FakePrediction = { id, model: model as string, input, polls: 0, ...(version ? { version } : {}) };
    predictions.set(id, p);
    if (state.mode === 'created-then-5xx' && state.rateLimited++ === 0) {
      return problem(res, 500, 'Internal Server Error', 'An unexpected error occurred.');
    }
    if (state.mode === 'reset-after-accept' && state.rateLimited++ === 0) {
      res.socket?.destroy();
      return;
    }
    // With Prefer: wait the call is held until the prediction is done (the fake: done at once), or
    // answers an unfinished one when the wait runs out (PYB resources/predictions.py:92-94).
    if (wait && state.mode !== 'stuck') {
      if (state.mode === 'wait-expired') p.polls = 1;
      else p.polls = state.pendingPolls + 1;
    }
    return sendJson(res, 201, view(p));
  }

  /** POST /v1/files: multipart, the bytes in `content` (JS lib/files.js:29-33; PYB resources/files.py:84-91). */
  async function createFile(req: FakeRequest, res: http.ServerResponse) {
    if (state.mode === 'files-5xx-then-ok' && state.rateLimited++ === 0) {
      return problem(res, 503, 'Service Unavailable', 'Please try again.');
    }
    const content = req.form?.get('content');
    if (!content || typeof content === 'string') {
      return problem(res, 422, 'Input validation failed', '- content: content is required');
    }
    // "filename: The filename (required, ≤ 255 bytes, valid UTF-8)" (PYB resources/files.py:89).
    if (!content.name || Buffer.byteLength(content.name) > 255) {
      return problem(res, 422, 'Input validation failed', '- filename: filename is required');
    }
    const bytes = Buffer.from(await content.arrayBuffer());
    files.push(bytes);
    const type = content.type || 'application/octet-stream';
    uploads.push({ name: content.name, type });
    const id = `file${files.length}x${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
    fileIds.add(id);
    // The file object (JS README.md:1119-1137); files expire after 24 hours (:1140).
    return sendJson(res, 201, {
      id,
      name: content.name,
      content_type: type,
      size: bytes.length,
      etag: createHash('md5').update(bytes).digest('hex'),
      checksums: {
        sha256: createHash('sha256').update(bytes).digest('hex'),
        md5: createHash('md5').update(bytes).digest('hex'),
      },
      metadata: {},
      created_at: '2025-01-01T00:00:00.000Z',
      expires_at: '2025-01-02T00:00:00.000Z',
      urls: { get: `${api.origin}/v1/files/${id}` },
    });
  }

  return { api, cancelled, files, uploads, ignoredInputs, predictions };
}

// ---------------------------------------------------------------------------------------------
// The image fake
// ---------------------------------------------------------------------------------------------

export type ReplicateFakeMode = ReplicateMode;

export interface ReplicateFake extends FakeServer {
  mode: ReplicateFakeMode;
  /** Polls answered pending before the end. Default 1 (starting → processing → succeeded over two polls). */
  pendingPolls: number;
  cdn: FakeServer;
  cancelled: string[];
  files: Buffer[];
  uploads: { name: string; type: string }[];
  ignoredInputs: string[];
  predictions: Map<string, FakePrediction>;
  /** Clears what the tests read (requests, cancels, files, ignored inputs) and sets mode `ok`. */
  reset(): void;
}

export async function startReplicateFake(apiKey = 'r8_test_0123456789abcdef'): Promise<ReplicateFake> {
  const state = { mode: 'ok' as ReplicateMode, pendingPolls: 1, rateLimited: 0, next: 0 };

  // replicate.delivery: no auth (JS lib/stream.js:143 fetches outputs without a key).
  const cdn = await startFakeServer(async (req, res) => {
    const m = /^\/pbxt\/(\d+)x(\d+)\/out-0\.png$/.exec(req.url.pathname);
    if (!m) return sendJson(res, 404, { detail: 'Not found' });
    if (state.mode === 'not-an-image') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
    return sendBytes(res, await makePng(Number(m[1]), Number(m[2])));
  });

  const core = await startReplicateCore({
    apiKey,
    models: { 'black-forest-labs/flux-kontext-pro': FLUX_KONTEXT_PRO },
    state,
    idPrefix: 'pred',
    retryAfter: '3',
    failure: 'CUDA out of memory. Tried to allocate 2.00 GiB',
    invalidDetail: '- input.aspect_ratio: aspect_ratio must be one of the following: "1:1", "16:9"',
    output: (p) => {
      let { width, height } = { width: 1024, height: 1024 };
      const ratio = p.input.aspect_ratio;
      if (typeof ratio === 'string' && /^\d+:\d+$/.test(ratio))
        ({ width, height } = outputSize(ratio as AspectRatio, 1024));
      if (typeof p.input.width === 'number' && typeof p.input.height === 'number') {
        ({ width, height } = p.input as { width: number; height: number });
      }
      return `${cdn.origin}/pbxt/${width}x${height}/out-0.png`;
    },
  });
  const { api } = core;

  return {
    ...api,
    cdn,
    cancelled: core.cancelled,
    files: core.files,
    uploads: core.uploads,
    ignoredInputs: core.ignoredInputs,
    predictions: core.predictions,
    get mode() {
      return state.mode;
    },
    set mode(m: ReplicateFakeMode) {
      state.mode = m;
      state.rateLimited = 0;
    },
    get pendingPolls() {
      return state.pendingPolls;
    },
    set pendingPolls(n: number) {
      state.pendingPolls = n;
    },
    reset() {
      state.mode = 'ok';
      state.rateLimited = 0;
      state.pendingPolls = 1;
      api.requests.length = 0;
      cdn.requests.length = 0;
      core.cancelled.length = 0;
      core.files.length = 0;
      core.uploads.length = 0;
      core.ignoredInputs.length = 0;
    },
    close: async () => {
      await Promise.all([api.close(), cdn.close()]);
    },
  };
}

import {
  cancelOnGiveUp,
  encodeMultipart,
  onOrigin,
  type ProviderDeps,
  type ProviderSession,
  type RetryPolicy,
  retryCreatesOnlyOn,
  trimBase,
} from '../provider-http.ts';
import type { InputRoute } from '../provider-inputs.ts';

/**
 * Replicate's HTTP predictions protocol, written once for the image adapter (./replicate-engine.ts)
 * and the video adapter (src/engines/video/replicate/replicate.ts). Sources: the official client
 * replicate/replicate-javascript (JS), and replicate/replicate-python-beta (PYB, generated from
 * Replicate's OpenAPI spec).
 *
 * - Create: an official model `owner/name` → `POST /v1/models/{owner}/{name}/predictions` with
 *   `{ input }` (JS lib/predictions.js:54-67); `owner/name:version` or a bare 64-hex version id →
 *   `POST /v1/predictions` with `{ version, input }` (JS lib/predictions.js:39-53).
 *   `Prefer: wait=N` (N 1..60) holds the call until the prediction is done (JS
 *   lib/predictions.js:29-35, README.md:654 "Wait up to 60s"); when the wait runs out the answer
 *   is an unfinished prediction (PYB resources/predictions.py:92-94), so polling goes on.
 * - Poll: `GET` the prediction's `urls.get` (JS index.d.ts:115-120; followed only on the configured
 *   origin, else rebuilt as `/v1/predictions/{id}`, JS lib/predictions.js:84) while `starting` or
 *   `processing`. Statuses (JS index.d.ts:2): starting, processing, succeeded, failed, canceled,
 *   aborted. `aborted` = the prediction never started and is not charged (replicate.com/docs/topics/
 *   predictions/lifecycle, changelog 2025-10-16): a retryable failure. `failed` carries `error`
 *   (PYB types/prediction.py:54-55); `canceled` and `failed` are not retried.
 * - Cancel: `POST` `urls.cancel` (`/v1/predictions/{id}/cancel`, no body; JS lib/predictions.js:100-104)
 *   when the generation gives up: on timeout and on the caller's abort (as JS index.js:193-195).
 * - Files: `POST /v1/files`, multipart, the bytes in the part `content` (JS lib/files.js:29-33;
 *   PYB resources/files.py:84-91); the answer's `urls.get` is the input value (JS README.md:1142-1145,
 *   "opaque"; only readable by the account's own predictions, so never downloaded here).
 * - Retries (replicateRetry): as the JS client (index.js:280-283): a POST only on 429, GETs on
 *   429 and 5xx (and lost connections). A create answered 5xx or cut off is never sent again: no
 *   Replicate client sends an idempotency key (PYB _base_client.py:387), so a second POST could
 *   start (and bill) a second prediction. The one exception is `POST /v1/files`: a duplicate upload
 *   is harmless (it expires in 24 h, JS README.md:1140), so it is retried on 429, 5xx and network
 *   failures like PYB _base_client.py:748-781 does.
 */

export const LABEL = 'Replicate';
export const DEFAULT_BASE_URL = 'https://api.replicate.com';

/** JS index.d.ts:2 (`aborted`: JS PR #355). */
export type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted';

/** Statuses polled again. (`queued` is not a Replicate status.) */
export const PENDING: ReadonlySet<string> = new Set<PredictionStatus>(['starting', 'processing']);

/** The members of a prediction read here (JS index.d.ts:93-121). */
export interface Prediction {
  id?: unknown;
  status?: unknown;
  output?: unknown;
  error?: unknown;
  urls?: { get?: unknown; cancel?: unknown };
}

/** Where a configured model's predictions are created. */
export interface ReplicateModel {
  /** As configured (`owner/name`, `owner/name:version` or a version id). */
  model: string;
  /** `owner/name` lower-cased, to look the model up in a capability table; undefined for a bare version id. */
  key?: string;
  version?: string;
  createUrl: string;
}

/**
 * A POST is retried on 429 only, except an upload to `/v1/files` (also 5xx and network failures);
 * GETs on 408, 429, 5xx and network failures. See the module comment.
 */
export const replicateRetry: RetryPolicy = (a) => {
  if (a.method === 'POST' && isFilesUrl(a.url)) {
    return a.network !== undefined || a.status === 429 || (a.status ?? 0) >= 500;
  }
  return retryCreatesOnlyOn([429])(a);
};

const isFilesUrl = (url: string) => URL.canParse(url) && /\/v1\/files$/.test(new URL(url).pathname);

/** The shared knobs of both adapters' settings. */
export interface PredictionSettings {
  /** API root. Default `https://api.replicate.com`. */
  baseUrl?: string;
  /** `Prefer: wait=N` (1..60 s): the creation call may answer the finished prediction. Not sent when unset or 0. */
  waitSeconds?: number;
}

export interface RunOptions {
  /** The caller's signal: its abort cancels the prediction. */
  signal?: AbortSignal | undefined;
  intervals: { intervalMs: number; maxIntervalMs: number };
  /** What the output is, for messages. */
  output: 'image' | 'video';
}

export interface Predictions {
  baseUrl: string;
  /** Where `model` runs; throws an Error (at engine creation) when it is not a Replicate model reference. */
  model(model: string): ReplicateModel;
  /**
   * How input images reach Replicate (provider-inputs.ts): our public link when there is one,
   * else the Files API. No data URIs: the upload always works, and the docs recommend data URIs
   * only under 1 MB (replicate.com/docs/topics/predictions/input-files).
   */
  inputRoute(s: ProviderSession): InputRoute;
  /**
   * Creates the prediction, polls it to its end (cancelling it when the generation gives up) and
   * answers the URL of its output (the first one when `output` is an array), or throws the
   * GenerationError its status means.
   */
  run(s: ProviderSession, target: ReplicateModel, input: Record<string, unknown>, o: RunOptions): Promise<string>;
}

export function createPredictions(settings: PredictionSettings, deps: ProviderDeps): Predictions {
  const baseUrl = trimBase(settings.baseUrl ?? DEFAULT_BASE_URL);
  const own = onOrigin(new URL(baseUrl).origin);
  const wait = Math.min(60, Math.max(0, Math.ceil(settings.waitSeconds ?? 0)));

  const model = (ref: string): ReplicateModel => {
    const m = /^(?:([\w.-]+)\/([\w.-]+))?(?::?([0-9a-f]{64}))?$/i.exec(ref.trim());
    if (!m || (!m[1] && !m[3])) {
      throw new Error(`replicate: "${ref}" is not owner/name, owner/name:version or a version id`);
    }
    const [, owner, name, version] = m;
    return {
      model: ref.trim(),
      ...(owner && name ? { key: `${owner}/${name}`.toLowerCase() } : {}),
      ...(version ? { version } : {}),
      createUrl: version ? `${baseUrl}/v1/predictions` : `${baseUrl}/v1/models/${owner}/${name}/predictions`,
    };
  };

  const upload = (s: ProviderSession) => async (png: Buffer, file: { name: string; contentType: string }) => {
    const body = await encodeMultipart([
      ['content', { bytes: png, filename: file.name, contentType: file.contentType }],
    ]);
    const answer = (
      await s.json<{ urls?: { get?: unknown } }>(`${baseUrl}/v1/files`, {
        body,
        what: `uploading the input image ${file.name}`,
      })
    ).json;
    const url = answer?.urls?.get;
    if (typeof url !== 'string' || !URL.canParse(url)) {
      throw s.fail(`${LABEL} answered the upload without a file URL`, true);
    }
    return url;
  };

  const statusOf = (s: ProviderSession, p: Prediction | undefined): string => {
    const st = p?.status;
    if (typeof st !== 'string' || !st) throw s.fail(`${LABEL} answered a prediction without a status`, true);
    return st;
  };

  const run: Predictions['run'] = async (s, target, input, o) => {
    const created = (
      await s.json<Prediction>(target.createUrl, {
        json: target.version ? { version: target.version, input } : { input },
        ...(wait > 0 ? { headers: { prefer: `wait=${wait}` } } : {}),
        what: 'creating the prediction',
      })
    ).json;
    const id = created?.id;
    if (typeof id !== 'string' || !/^[\w.-]{1,128}$/.test(id)) {
      throw s.fail(`${LABEL} answered the prediction without a valid id`, true);
    }
    const getUrl = own(created.urls?.get, `${baseUrl}/v1/predictions/${id}`);
    const cancelUrl = own(created.urls?.cancel, `${baseUrl}/v1/predictions/${id}/cancel`);

    const p = await cancelOnGiveUp(
      s,
      o.signal,
      async () => {
        if (!PENDING.has(statusOf(s, created))) return created;
        return s.poll(async () => {
          const next = (await s.json<Prediction>(getUrl, { what: 'checking the prediction' })).json;
          return PENDING.has(statusOf(s, next)) ? undefined : next;
        }, o.intervals);
      },
      () => s.cancel(cancelUrl, 'POST'),
    );

    const status = statusOf(s, p);
    const error = typeof p.error === 'string' ? p.error : p.error ? JSON.stringify(p.error) : undefined;
    if (status === 'aborted') {
      // Never started, not charged (lifecycle docs; changelog 2025-10-16): trying again is cheap.
      throw s.fail(
        `The ${LABEL} prediction was aborted before it started (not charged); it can be tried again${error ? `: ${error}` : ''}`,
        true,
      );
    }
    if (status !== 'succeeded') {
      throw s.failed(
        { message: error },
        `The ${LABEL} prediction ${status === 'canceled' ? 'was canceled' : status === 'failed' ? 'failed' : `ended as "${status}"`}`,
      );
    }
    const out = p.output;
    const url = typeof out === 'string' ? out : Array.isArray(out) ? out.find((v) => typeof v === 'string') : undefined;
    if (typeof url !== 'string' || !url) {
      throw s.fail(
        `${LABEL} finished the prediction without ${o.output === 'image' ? 'an image URL in its output' : 'a video URL'}`,
        true,
      );
    }
    return url;
  };

  return {
    baseUrl,
    model,
    inputRoute: (s) => ({ label: LABEL, host: deps.inputHost, upload: upload(s) }),
    run,
  };
}

import { type AspectRatio, outputSize } from '../scene-engine.ts';
import { type FakeServer, later, makePng, NOT_AN_IMAGE, sendBytes, sendJson, startFakeServer } from './fake-http.ts';

/**
 * A fake fal.ai queue (`POST /{model}`, `GET /{owner}/{app}/requests/{id}/status`,
 * `GET /{owner}/{app}/requests/{id}`, `PUT …/cancel`) with `Authorization: Key <key>`, and a
 * second server standing for fal's CDN that serves the result PNGs (no auth there). Each request
 * goes IN_QUEUE → IN_PROGRESS → COMPLETED over three status polls. `mode` picks a failure.
 */
export type FalFakeMode =
  | 'ok'
  | 'rate-limit-then-ok'
  | 'server-error'
  | 'slow'
  | 'stuck'
  | 'malformed-json'
  | 'missing-image'
  | 'not-an-image'
  | 'content-policy'
  | 'nsfw-flag'
  | 'failed'
  | 'foreign-urls';

export interface FalFake extends FakeServer {
  mode: FalFakeMode;
  /** The CDN serving result images. */
  cdn: FakeServer;
  /** Queue API calls (not CDN downloads). */
  calls(): FakeServer['requests'];
  cancelled: string[];
}

export async function startFalFake(apiKey = 'fal-test-key-0123456789'): Promise<FalFake> {
  const state = { mode: 'ok' as FalFakeMode, rateLimited: 0, next: 0 };
  const jobs = new Map<string, { polls: number; width: number; height: number; model: string }>();
  const cancelled: string[] = [];

  const cdn = await startFakeServer(async (req, res) => {
    const m = /^\/files\/(\d+)x(\d+)\/[\w-]+\.png$/.exec(req.url.pathname);
    if (!m) return sendJson(res, 404, { detail: 'Not Found' });
    if (state.mode === 'not-an-image') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
    return sendBytes(res, await makePng(Number(m[1]), Number(m[2])));
  });

  const api = await startFakeServer(async (req, res) => {
    if (req.headers.authorization !== `Key ${apiKey}`) {
      return sendJson(res, 401, { detail: 'Invalid API key provided, check your credentials.' });
    }
    const path = req.url.pathname;
    const status = /^\/([\w.-]+\/[\w.-]+)\/requests\/([\w-]+)\/status$/.exec(path);
    const result = /^\/([\w.-]+\/[\w.-]+)\/requests\/([\w-]+)$/.exec(path);
    const cancel = /^\/([\w.-]+\/[\w.-]+)\/requests\/([\w-]+)\/cancel$/.exec(path);

    if (req.method === 'PUT' && cancel) {
      cancelled.push(cancel[2] as string);
      return sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
    }
    if (req.method === 'GET' && status) {
      const job = jobs.get(status[2] as string);
      if (!job) return sendJson(res, 404, { detail: 'Request not found' });
      if (state.mode === 'malformed-json') return sendBytes(res, '{"status": IN_', 'application/json');
      job.polls++;
      const base = `${api.origin}/${status[1]}/requests/${status[2]}`;
      if (state.mode === 'stuck' || job.polls === 1) {
        return sendJson(res, 202, {
          status: 'IN_QUEUE',
          queue_position: 2,
          request_id: status[2],
          response_url: base,
          status_url: `${base}/status`,
        });
      }
      if (job.polls === 2) {
        return sendJson(res, 202, { status: 'IN_PROGRESS', request_id: status[2], logs: [{ message: 'step 3/28' }] });
      }
      if (state.mode === 'failed') {
        return sendJson(res, 200, {
          status: 'COMPLETED',
          request_id: status[2],
          error: 'Runner disconnected while processing the request',
          error_type: 'runner_disconnected',
        });
      }
      return sendJson(res, 200, { status: 'COMPLETED', request_id: status[2], response_url: base, logs: null });
    }
    if (req.method === 'GET' && result) {
      const job = jobs.get(result[2] as string);
      if (!job) return sendJson(res, 404, { detail: 'Request not found' });
      if (job.polls < 3) return sendJson(res, 400, { detail: 'Request is still in progress' });
      if (state.mode === 'content-policy') {
        return sendJson(res, 422, {
          detail: [
            {
              loc: ['body', 'prompt'],
              msg: 'The content was flagged by a content checker.',
              type: 'content_policy_violation',
              url: 'https://docs.fal.ai/errors#content_policy_violation',
            },
          ],
        });
      }
      if (state.mode === 'missing-image') return sendJson(res, 200, { images: [], seed: 1 });
      const url = `${cdn.origin}/files/${job.width}x${job.height}/${result[2]}.png`;
      return sendJson(res, 200, {
        images: [{ url, width: job.width, height: job.height, content_type: 'image/png' }],
        seed: 42,
        has_nsfw_concepts: [state.mode === 'nsfw-flag'],
        prompt: 'echo',
      });
    }
    if (req.method !== 'POST') return sendJson(res, 405, { detail: 'Method Not Allowed' });

    // Submission: POST /{model id}
    const model = path.slice(1);
    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' });
    }
    if (state.mode === 'server-error') return sendJson(res, 503, { detail: 'Service temporarily unavailable' });
    if (state.mode === 'slow') return later(res, 3000, () => sendJson(res, 500, { detail: 'too late' }));
    const input = req.json ?? {};
    let width = 1024;
    let height = 1024;
    if (typeof input.aspect_ratio === 'string')
      ({ width, height } = outputSize(input.aspect_ratio as AspectRatio, 1024));
    if (input.image_size && typeof input.image_size === 'object') ({ width, height } = input.image_size);
    const id = `req-${++state.next}`;
    jobs.set(id, { polls: 0, width, height, model });
    const app = model.split('/').slice(0, 2).join('/');
    const base =
      state.mode === 'foreign-urls' ? `http://evil.test/${app}/requests/${id}` : `${api.origin}/${app}/requests/${id}`;
    return sendJson(res, 200, {
      request_id: id,
      response_url: base,
      status_url: `${base}/status`,
      cancel_url: `${base}/cancel`,
      queue_position: 0,
    });
  });

  return {
    ...api,
    cdn,
    cancelled,
    calls: () => api.requests,
    get mode() {
      return state.mode;
    },
    set mode(m: FalFakeMode) {
      state.mode = m;
      state.rateLimited = 0;
    },
    close: async () => {
      await Promise.all([api.close(), cdn.close()]);
    },
  };
}

import { type AspectRatio, outputSize } from '../scene-engine.ts';
import { type FakeServer, later, makePng, NOT_AN_IMAGE, sendBytes, sendJson, startFakeServer } from './fake-http.ts';

/**
 * A fake Replicate API: `POST /v1/models/{owner}/{name}/predictions`, `POST /v1/predictions`
 * (`version`), `GET /v1/predictions/{id}`, `POST /v1/predictions/{id}/cancel`, `POST /v1/files`,
 * Bearer auth; a prediction goes starting → processing → succeeded over two polls (or at once
 * with `Prefer: wait` in mode `sync`). Output files are served by a second server standing for
 * replicate.delivery. `mode` picks a failure.
 */
export type ReplicateFakeMode =
  | 'ok'
  | 'sync'
  | 'string-output'
  | 'rate-limit-then-ok'
  | 'server-error'
  | 'slow'
  | 'stuck'
  | 'malformed-json'
  | 'missing-output'
  | 'not-an-image'
  | 'failed'
  | 'nsfw'
  | 'canceled'
  | 'invalid-input';

export interface ReplicateFake extends FakeServer {
  mode: ReplicateFakeMode;
  cdn: FakeServer;
  cancelled: string[];
  /** Bytes received by POST /v1/files. */
  files: Buffer[];
}

export async function startReplicateFake(apiKey = 'r8_test_0123456789abcdef'): Promise<ReplicateFake> {
  const state = { mode: 'ok' as ReplicateFakeMode, rateLimited: 0, next: 0 };
  const predictions = new Map<string, { polls: number; width: number; height: number; version?: string }>();
  const cancelled: string[] = [];
  const files: Buffer[] = [];

  const cdn = await startFakeServer(async (req, res) => {
    const m = /^\/pbxt\/(\d+)x(\d+)\/out-0\.png$/.exec(req.url.pathname);
    if (!m) return sendJson(res, 404, { detail: 'Not found' });
    if (state.mode === 'not-an-image') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
    return sendBytes(res, await makePng(Number(m[1]), Number(m[2])));
  });

  const api = await startFakeServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, {
        title: 'Unauthenticated',
        detail: 'You did not pass a valid authentication token',
        status: 401,
      });
    }
    const path = req.url.pathname;
    const view = (id: string) => {
      const p = predictions.get(id);
      if (!p) return undefined;
      const urls = {
        get: `${api.origin}/v1/predictions/${id}`,
        cancel: `${api.origin}/v1/predictions/${id}/cancel`,
        stream: `https://stream.replicate.test/v1/streams/${id}`,
      };
      const base = {
        id,
        model: 'owner/model',
        version: p.version ?? 'hidden',
        urls,
        created_at: '2025-01-01T00:00:00Z',
        logs: '',
      };
      const outputUrl = `${cdn.origin}/pbxt/${p.width}x${p.height}/out-0.png`;
      if (state.mode === 'stuck' || p.polls === 0) return { ...base, status: 'starting', output: null, error: null };
      if (p.polls === 1) return { ...base, status: 'processing', output: null, error: null };
      switch (state.mode) {
        case 'failed':
          return { ...base, status: 'failed', output: null, error: 'CUDA out of memory. Tried to allocate 2.00 GiB' };
        case 'nsfw':
          return {
            ...base,
            status: 'failed',
            output: null,
            error: 'NSFW content detected. Try running it again, or try a different prompt.',
          };
        case 'canceled':
          return { ...base, status: 'canceled', output: null, error: null };
        case 'missing-output':
          return { ...base, status: 'succeeded', output: null, error: null };
        case 'string-output':
          return { ...base, status: 'succeeded', output: outputUrl, error: null };
        default:
          return { ...base, status: 'succeeded', output: [outputUrl], error: null, metrics: { predict_time: 1.2 } };
      }
    };

    const get = /^\/v1\/predictions\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && get) {
      const p = predictions.get(get[1] as string);
      if (!p) return sendJson(res, 404, { title: 'Not found', detail: 'Prediction not found', status: 404 });
      if (state.mode === 'malformed-json') return sendBytes(res, '{"id": "x", "status": "proc', 'application/json');
      p.polls++;
      return sendJson(res, 200, view(get[1] as string));
    }
    const cancel = /^\/v1\/predictions\/([\w-]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      cancelled.push(cancel[1] as string);
      return sendJson(res, 200, { id: cancel[1], status: 'canceled' });
    }
    if (req.method === 'POST' && path === '/v1/files') {
      const content = req.form?.get('content');
      if (!content || typeof content === 'string') return sendJson(res, 400, { detail: 'content is required' });
      const bytes = Buffer.from(await content.arrayBuffer());
      files.push(bytes);
      const id = `file-${files.length}`;
      return sendJson(res, 201, {
        id,
        name: content.name,
        content_type: content.type,
        size: bytes.length,
        urls: { get: `${api.origin}/v1/files/${id}` },
      });
    }
    const official = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/.exec(path);
    if (req.method !== 'POST' || (!official && path !== '/v1/predictions')) {
      return sendJson(res, 404, { title: 'Not found', detail: 'Not found', status: 404 });
    }

    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(
        res,
        429,
        {
          title: 'Request was throttled',
          detail: 'Request was throttled. Your rate limit resets in ~3s.',
          status: 429,
        },
        { 'retry-after': '3' },
      );
    }
    if (state.mode === 'server-error')
      return sendJson(res, 502, { title: 'Bad gateway', detail: 'upstream error', status: 502 });
    if (state.mode === 'slow') return later(res, 3000, () => sendJson(res, 500, { detail: 'too late' }));
    if (state.mode === 'invalid-input') {
      return sendJson(res, 422, {
        title: 'Input validation failed',
        detail: '- input.aspect_ratio: aspect_ratio must be one of the following: "1:1", "16:9"',
        status: 422,
        invalid_fields: [{ type: 'enum', field: 'input.aspect_ratio', description: 'aspect_ratio must be one of …' }],
      });
    }
    const input = req.json?.input ?? {};
    let width = 1024;
    let height = 1024;
    if (typeof input.aspect_ratio === 'string')
      ({ width, height } = outputSize(input.aspect_ratio as AspectRatio, 1024));
    if (typeof input.width === 'number' && typeof input.height === 'number') ({ width, height } = input);
    const id = `pred${++state.next}x`;
    predictions.set(id, { polls: 0, width, height, ...(req.json?.version ? { version: req.json.version } : {}) });
    if (state.mode === 'sync' && /wait/.test(String(req.headers.prefer))) predictions.get(id)!.polls = 2;
    return sendJson(res, 201, view(id));
  });

  return {
    ...api,
    cdn,
    cancelled,
    files,
    get mode() {
      return state.mode;
    },
    set mode(m: ReplicateFakeMode) {
      state.mode = m;
      state.rateLimited = 0;
    },
    close: async () => {
      await Promise.all([api.close(), cdn.close()]);
    },
  };
}

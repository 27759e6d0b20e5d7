import { sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import { startVideoFakeParts, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake Replicate API for video models: `POST /v1/models/{owner}/{name}/predictions` and
 * `POST /v1/predictions` (Bearer key; `duration` 5/10 and `aspect_ratio` validated), `GET
 * /v1/predictions/{id}` (starting, then processing for `pendingPolls` polls, then succeeded with
 * `output` a URL on the CDN), `POST /v1/predictions/{id}/cancel`, `POST /v1/files`. With
 * `Prefer: wait` the creation answers the finished prediction. `mode` picks a failure;
 * `foreign-urls` answers `urls.get` / `urls.cancel` on another origin (not to be followed).
 */
export interface ReplicateVideoFake extends VideoProviderFake {
  files: Buffer[];
}

export async function startReplicateVideoFake(mp4: Buffer, apiKey: string): Promise<ReplicateVideoFake> {
  const { state, cdn, cancelled } = await startVideoFakeParts(mp4);
  const predictions = new Map<string, { polls: number }>();
  const files: Buffer[] = [];

  const api = await startFakeServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token' });
    }
    const path = req.url.pathname;
    const view = (id: string) => {
      const p = predictions.get(id) as { polls: number };
      const origin = state.mode === 'foreign-urls' ? 'http://evil.test' : api.origin;
      const base = {
        id,
        urls: { get: `${origin}/v1/predictions/${id}`, cancel: `${origin}/v1/predictions/${id}/cancel` },
        logs: '',
      };
      if (state.mode === 'stuck' || p.polls <= state.pendingPolls) {
        return { ...base, status: p.polls === 0 ? 'starting' : 'processing', output: null, error: null };
      }
      if (state.mode === 'failed') {
        return {
          ...base,
          status: 'failed',
          output: null,
          error: 'Prediction failed: start_image must be at least 300px',
        };
      }
      return { ...base, status: 'succeeded', output: cdn.url(id), error: null };
    };

    const get = /^\/v1\/predictions\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && get) {
      const p = predictions.get(get[1] as string);
      if (!p) return sendJson(res, 404, { title: 'Not found', detail: 'Prediction not found' });
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
      files.push(Buffer.from(await content.arrayBuffer()));
      return sendJson(res, 201, {
        id: `file-${files.length}`,
        urls: { get: `${api.origin}/v1/files/file-${files.length}` },
      });
    }
    const official = /^\/v1\/models\/([\w.-]+)\/([\w.-]+)\/predictions$/.exec(path);
    if (req.method !== 'POST' || (!official && path !== '/v1/predictions')) {
      return sendJson(res, 404, { title: 'Not found', detail: 'Not found' });
    }
    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(
        res,
        429,
        { title: 'Request was throttled', detail: 'Request was throttled.' },
        { 'retry-after': '1' },
      );
    }
    if (state.mode === 'server-error') return sendJson(res, 500, { title: 'Internal server error', detail: 'oops' });
    const input = req.json?.input ?? {};
    const invalid = (detail: string) => sendJson(res, 422, { title: 'Input validation failed', detail, status: 422 });
    if (state.mode === 'bad-request') return invalid('- input.prompt: prompt is too long');
    if (input.duration !== undefined && input.duration !== 5 && input.duration !== 10) {
      return invalid('- input.duration: duration must be one of the following: 5, 10');
    }
    if (input.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(input.aspect_ratio)) {
      return invalid('- input.aspect_ratio: aspect_ratio must be one of the following: "16:9", "9:16", "1:1"');
    }
    const id = `vid${++state.next}x`;
    predictions.set(id, { polls: 0 });
    if (/wait/.test(String(req.headers.prefer ?? '')))
      (predictions.get(id) as { polls: number }).polls = state.pendingPolls + 1;
    return sendJson(res, 201, view(id));
  });

  return videoProviderFake(api, { state, cdn, cancelled }, { files });
}

import { sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import { startVideoFakeParts, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake Runway API: `POST /v1/image_to_video` (Bearer key and `X-Runway-Version: 2024-11-06`
 * required; `promptImage`, `ratio` and `duration` validated as Runway does), `GET /v1/tasks/{id}`
 * (PENDING, then RUNNING for `pendingPolls` polls, then SUCCEEDED with `output: [<cdn url>]`) and
 * `DELETE /v1/tasks/{id}`. The clip is served by a second server (the CDN). `mode` picks a failure.
 */
export type RunwayFake = VideoProviderFake;

const RATIOS = new Set(['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672']);

export async function startRunwayFake(mp4: Buffer, apiKey: string): Promise<RunwayFake> {
  const { state, cdn, cancelled } = await startVideoFakeParts(mp4);
  const tasks = new Map<string, { polls: number }>();

  const api = await startFakeServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { error: 'Unauthorized' });
    if (req.headers['x-runway-version'] !== '2024-11-06') {
      return sendJson(res, 400, { error: 'The X-Runway-Version header is missing or invalid' });
    }
    const path = req.url.pathname;
    const task = /^\/v1\/tasks\/([\w-]+)$/.exec(path);
    if (task && req.method === 'DELETE') {
      cancelled.push(task[1] as string);
      return res.writeHead(204).end();
    }
    if (task && req.method === 'GET') {
      const id = task[1] as string;
      const t = tasks.get(id);
      if (!t) return sendJson(res, 404, { error: 'Task not found' });
      t.polls++;
      const base = { id, createdAt: '2025-01-01T00:00:00.000Z' };
      if (state.mode === 'stuck' || t.polls <= state.pendingPolls) {
        return sendJson(res, 200, { ...base, status: t.polls === 1 ? 'PENDING' : 'RUNNING', progress: 0.5 });
      }
      if (state.mode === 'failed') {
        return sendJson(res, 200, {
          ...base,
          status: 'FAILED',
          failure: 'An unexpected error occurred while generating the video.',
          failureCode: 'INTERNAL.BAD_OUTPUT.CODE01',
        });
      }
      return sendJson(res, 200, { ...base, status: 'SUCCEEDED', output: [cdn.url(id)] });
    }
    if (req.method !== 'POST' || path !== '/v1/image_to_video') return sendJson(res, 404, { error: 'Not found' });

    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(res, 429, { error: 'You have exceeded the rate limit' }, { 'retry-after': '1' });
    }
    if (state.mode === 'server-error') return sendJson(res, 502, { error: 'Bad gateway' });
    if (state.mode === 'bad-request') {
      return sendJson(res, 400, {
        error: 'Invalid asset aspect ratio. width / height ratio must be between 0.5 and 2.',
      });
    }
    const body = req.json ?? {};
    const image = body.promptImage;
    const imageOk =
      typeof image === 'string' ||
      (Array.isArray(image) && image.every((i) => typeof i?.uri === 'string' && /^(first|last)$/.test(i.position)));
    if (!imageOk) return sendJson(res, 400, { error: 'promptImage: Required' });
    if (!RATIOS.has(body.ratio)) return sendJson(res, 400, { error: `ratio: Invalid enum value "${body.ratio}"` });
    if (body.duration !== 5 && body.duration !== 10) return sendJson(res, 400, { error: 'duration: must be 5 or 10' });
    const id = `00000000-0000-4000-8000-${String(++state.next).padStart(12, '0')}`;
    tasks.set(id, { polls: 0 });
    return sendJson(res, 200, { id });
  });

  return videoProviderFake(api, { state, cdn, cancelled }, {});
}

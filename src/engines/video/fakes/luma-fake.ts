import { sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import { startVideoFakeParts, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake Luma Dream Machine API under `/dream-machine/v1`: `POST /generations` (Bearer key;
 * `aspect_ratio`, `resolution`, `duration` and `keyframes` validated as Luma does),
 * `GET /generations/{id}` (queued, then dreaming for `pendingPolls` polls, then completed with
 * `assets.video` on the CDN) and `DELETE /generations/{id}`. `mode` picks a failure.
 */
export interface LumaFake extends VideoProviderFake {
  /** `${origin}/dream-machine/v1`. */
  baseUrl: string;
}

const RATIOS = new Set(['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21']);
const RESOLUTIONS = new Set(['540p', '720p', '1080p', '4k']);
const ROOT = '/dream-machine/v1';

export async function startLumaFake(mp4: Buffer, apiKey: string): Promise<LumaFake> {
  const { state, cdn, cancelled } = await startVideoFakeParts(mp4);
  const gens = new Map<string, { polls: number; request: Record<string, unknown> }>();

  const api = await startFakeServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { detail: 'Invalid API key' });
    const path = req.url.pathname;
    const one = new RegExp(`^${ROOT}/generations/([\\w-]+)$`).exec(path);
    const view = (id: string, state_: string, extra: Record<string, unknown> = {}) => ({
      id,
      generation_type: 'video',
      state: state_,
      failure_reason: null,
      created_at: '2025-01-01T00:00:00.000Z',
      assets: null,
      model: gens.get(id)?.request.model,
      request: gens.get(id)?.request,
      ...extra,
    });
    if (one && req.method === 'DELETE') {
      cancelled.push(one[1] as string);
      return res.writeHead(204).end();
    }
    if (one && req.method === 'GET') {
      const id = one[1] as string;
      const g = gens.get(id);
      if (!g) return sendJson(res, 404, { detail: 'Generation not found' });
      g.polls++;
      if (state.mode === 'stuck' || g.polls <= state.pendingPolls) {
        return sendJson(res, 200, view(id, g.polls === 1 ? 'queued' : 'dreaming'));
      }
      if (state.mode === 'failed') {
        return sendJson(res, 200, view(id, 'failed', { failure_reason: 'The keyframe image could not be processed' }));
      }
      return sendJson(
        res,
        200,
        view(id, 'completed', { assets: { video: cdn.url(id), image: `${cdn.origin}/thumbs/${id}.jpg` } }),
      );
    }
    if (req.method !== 'POST' || path !== `${ROOT}/generations`) return sendJson(res, 404, { detail: 'Not Found' });

    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' });
    }
    if (state.mode === 'server-error') return sendJson(res, 500, { detail: 'Internal Server Error' });
    const body = req.json ?? {};
    const bad = (detail: string) => sendJson(res, 400, { detail });
    if (state.mode === 'bad-request') return bad('Invalid request: prompt is too long');
    if (typeof body.prompt !== 'string') return bad('prompt is required');
    if (!RATIOS.has(body.aspect_ratio)) return bad(`Invalid aspect_ratio ${body.aspect_ratio}`);
    if (body.resolution !== undefined && !RESOLUTIONS.has(body.resolution)) return bad('Invalid resolution');
    if (!['5s', '9s'].includes(body.duration)) return bad('Invalid duration');
    for (const f of Object.values(body.keyframes ?? {}) as { type?: string; url?: string }[]) {
      if (f?.type !== 'image' || typeof f.url !== 'string') return bad('Invalid keyframe');
    }
    const id = `0000aaaa-0000-4000-8000-${String(++state.next).padStart(12, '0')}`;
    gens.set(id, { polls: 0, request: body });
    return sendJson(res, 201, view(id, 'queued'));
  });

  return videoProviderFake(api, { state, cdn, cancelled }, { baseUrl: `${api.origin}${ROOT}` });
}

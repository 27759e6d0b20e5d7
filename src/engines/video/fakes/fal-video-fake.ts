import { sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import { startVideoFakeParts, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake fal.ai queue for video models: `POST /{model}` (`Authorization: Key <key>`; Kling's
 * `image_url`, `duration` "5"/"10" and `aspect_ratio` validated), `GET /{owner}/{app}/requests/{id}/status`
 * (IN_QUEUE, then IN_PROGRESS for `pendingPolls` polls, then COMPLETED), `GET …/requests/{id}`
 * (`video.url` on the CDN) and `PUT …/cancel`. `mode` picks a failure; `foreign-urls` answers
 * job URLs on another origin (they must not be followed).
 */
export type FalVideoFake = VideoProviderFake;

export async function startFalVideoFake(mp4: Buffer, apiKey: string): Promise<FalVideoFake> {
  const { state, cdn, cancelled } = await startVideoFakeParts(mp4);
  const jobs = new Map<string, { polls: number }>();

  const api = await startFakeServer((req, res) => {
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
      const id = status[2] as string;
      const job = jobs.get(id);
      if (!job) return sendJson(res, 404, { detail: 'Request not found' });
      job.polls++;
      if (state.mode === 'stuck' || job.polls <= state.pendingPolls) {
        return sendJson(res, 202, { status: job.polls === 1 ? 'IN_QUEUE' : 'IN_PROGRESS', request_id: id });
      }
      if (state.mode === 'failed') {
        return sendJson(res, 200, {
          status: 'COMPLETED',
          request_id: id,
          error: 'Kling task failed: image resolution too low',
          error_type: 'generation_failed',
        });
      }
      return sendJson(res, 200, { status: 'COMPLETED', request_id: id });
    }
    if (req.method === 'GET' && result) {
      const id = result[2] as string;
      const job = jobs.get(id);
      if (!job) return sendJson(res, 404, { detail: 'Request not found' });
      if (job.polls <= state.pendingPolls) return sendJson(res, 400, { detail: 'Request is still in progress' });
      return sendJson(res, 200, {
        video: { url: cdn.url(id), content_type: 'video/mp4', file_name: 'output.mp4', file_size: 1234 },
      });
    }
    if (req.method !== 'POST') return sendJson(res, 405, { detail: 'Method Not Allowed' });

    const model = path.slice(1);
    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' });
    }
    if (state.mode === 'server-error') return sendJson(res, 503, { detail: 'Service temporarily unavailable' });
    const input = req.json ?? {};
    const invalid = (loc: string, msg: string) =>
      sendJson(res, 422, { detail: [{ loc: ['body', loc], msg, type: 'value_error' }] });
    if (state.mode === 'bad-request') return invalid('image_url', 'Image dimensions are too small: minimum 300x300');
    if (model.endsWith('image-to-video') && typeof input.image_url !== 'string') {
      return invalid('image_url', 'field required');
    }
    if (input.duration !== undefined && !['5', '10'].includes(input.duration)) {
      return invalid('duration', "value is not a valid enumeration member; permitted: '5', '10'");
    }
    if (input.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(input.aspect_ratio)) {
      return invalid('aspect_ratio', 'value is not a valid enumeration member');
    }
    const id = `req-${++state.next}`;
    jobs.set(id, { polls: 0 });
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

  return videoProviderFake(api, { state, cdn, cancelled }, {});
}

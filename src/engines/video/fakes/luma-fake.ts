import sharp from 'sharp';
import { sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import { startVideoFakeParts, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake Luma Dream Machine API under `/dream-machine/v1`, speaking what Luma's OpenAPI spec
 * (lumalabs/lumaai-api openapi.yaml) and SDK (lumalabs/lumaai-node) say:
 *
 * - `POST /generations/video` (Bearer key) creates a generation (201). The body is checked against
 *   the spec's GenerationRequest: known members only, `model` required and one the SDK accepts,
 *   `aspect_ratio`, `resolution`, `duration` and `keyframes` as listed there. An image keyframe's
 *   `url` must be an http(s) URL, which the fake FETCHES (loopback hosts only: tests never reach
 *   the internet) and checks is an image, as the real service must to use it.
 * - `POST /generations` is not a create any more (list only, GET): 405 `{ detail }`.
 * - `GET /generations/{id}`: `queued`, then `dreaming` for `pendingPolls` polls, then `completed`
 *   with `assets.video` on the CDN (or `failed` with `failure_reason`).
 * - `DELETE /generations/{id}`: 204.
 *
 * `mode` picks a failure; `refuseRetry` makes every create a 500 with `x-should-retry: false`.
 * `states` lists the states answered to polls, `keyframeFetches` what the keyframe URLs served.
 */
export interface LumaFake extends VideoProviderFake {
  /** `${origin}/dream-machine/v1`. */
  baseUrl: string;
  /** Every create answers 500 with `x-should-retry: false`. */
  refuseRetry: boolean;
  /** The states answered to GET /generations/{id}, in order. */
  states: string[];
  /** The keyframe URLs fetched, with what they served. */
  keyframeFetches: KeyframeFetch[];
}

export interface KeyframeFetch {
  url: string;
  status: number;
  contentType?: string;
  /** sharp's format of the bytes (`png`...), when they are an image. */
  format?: string;
}

const ROOT = '/dream-machine/v1';
// openapi.yaml:162-174 AspectRatio.
const RATIOS = new Set(['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21']);
// openapi.yaml:186-194 VideoModelOutputResolution (enum, or any string: the known ones only here).
const RESOLUTIONS = new Set(['540p', '720p', '1080p', '4k']);
// openapi.yaml:196-202 VideoModelOutputDuration (same).
const DURATIONS = new Set(['5s', '9s']);
// lumaai-node src/resources/generations/video.ts:77 `model: 'ray-2' | 'ray-flash-2'` (openapi.yaml:176-183
// still lists ray-1-6; the SDK dropped it in a3ac751).
const MODELS = new Set(['ray-2', 'ray-flash-2']);
// openapi.yaml:214-252 GenerationRequest properties.
const MEMBERS = new Set([
  'generation_type',
  'prompt',
  'aspect_ratio',
  'loop',
  'keyframes',
  'callback_url',
  'model',
  'resolution',
  'duration',
  'concepts',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const isHttpUrl = (v: unknown): v is string =>
  typeof v === 'string' && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);

/** What a keyframe URL serves: fetched only on loopback (a test's server), else an unreachable host. */
async function fetchKeyframe(url: string): Promise<{ fetched: KeyframeFetch; ok: boolean }> {
  if (!LOOPBACK.has(new URL(url).hostname)) return { fetched: { url, status: 0 }, ok: false };
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    const bytes = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type') ?? undefined;
    const fetched: KeyframeFetch = { url, status: res.status, ...(contentType ? { contentType } : {}) };
    if (!res.ok) return { fetched, ok: false };
    const meta = await sharp(bytes)
      .metadata()
      .catch(() => undefined);
    if (!meta?.format || !meta.width || !meta.height) return { fetched, ok: false };
    return { fetched: { ...fetched, format: meta.format }, ok: true };
  } catch {
    return { fetched: { url, status: 0 }, ok: false };
  }
}

export async function startLumaFake(mp4: Buffer, apiKey: string): Promise<LumaFake> {
  const { state, cdn, cancelled } = await startVideoFakeParts(mp4);
  const gens = new Map<string, { polls: number; request: Record<string, unknown> }>();
  const extra = { refuseRetry: false, states: [] as string[], keyframeFetches: [] as KeyframeFetch[] };

  // openapi.yaml:528-565 Generation.
  const view = (id: string, state_: string, more: Record<string, unknown> = {}) => ({
    id,
    generation_type: 'video',
    state: state_,
    failure_reason: null,
    created_at: '2025-01-01T00:00:00.000Z',
    assets: null,
    model: gens.get(id)?.request.model,
    request: gens.get(id)?.request,
    ...more,
  });

  /** The spec's GenerationRequest rules; a reason when the body breaks one. */
  const invalid = async (body: Record<string, unknown>): Promise<string | undefined> => {
    const unknown = Object.keys(body).filter((k) => !MEMBERS.has(k));
    if (unknown.length > 0) return `Unknown field(s): ${unknown.join(', ')}`;
    // openapi.yaml:253-254 `required: - model`.
    if (body.model === undefined) return 'model is required';
    if (!MODELS.has(body.model as string)) return `Invalid model ${String(body.model)}`;
    if (body.generation_type !== undefined && body.generation_type !== 'video') return 'Invalid generation_type';
    // openapi.yaml:223-225 prompt: type string, no length bounds.
    if (body.prompt !== undefined && typeof body.prompt !== 'string') return 'prompt must be a string';
    if (body.aspect_ratio !== undefined && !RATIOS.has(body.aspect_ratio as string)) {
      return `Invalid aspect_ratio ${String(body.aspect_ratio)}`;
    }
    if (body.resolution !== undefined && !RESOLUTIONS.has(body.resolution as string)) return 'Invalid resolution';
    if (body.duration !== undefined && !DURATIONS.has(body.duration as string)) return 'Invalid duration';
    // openapi.yaml:229-231 loop: boolean; 235-238 callback_url: uri; 248-252 concepts: [{ key }].
    if (body.loop !== undefined && typeof body.loop !== 'boolean') return 'loop must be a boolean';
    if (body.callback_url !== undefined && !isHttpUrl(body.callback_url)) return 'callback_url must be a URL';
    if (
      body.concepts !== undefined &&
      (!Array.isArray(body.concepts) ||
        body.concepts.some((c) => !c || typeof (c as { key?: unknown }).key !== 'string'))
    ) {
      return 'concepts must be a list of { key }';
    }
    if (body.keyframes === undefined) return undefined;
    // openapi.yaml:606-615 Keyframes: frame0, frame1 (either alone is legal: example 270-278).
    const kf = body.keyframes as Record<string, unknown>;
    if (!kf || typeof kf !== 'object' || Array.isArray(kf)) return 'keyframes must be an object';
    for (const [name, f] of Object.entries(kf)) {
      if (name !== 'frame0' && name !== 'frame1') return `Unknown keyframe ${name}`;
      const frame = (f ?? {}) as { type?: unknown; url?: unknown; id?: unknown };
      // openapi.yaml:586-594 Keyframe: oneOf discriminated on `type`.
      if (frame.type === 'generation') {
        // openapi.yaml:98-113 GenerationReference: id (uuid) of a generation.
        if (typeof frame.id !== 'string' || !UUID.test(frame.id) || !gens.has(frame.id)) {
          return `keyframes.${name}.id must be the id of a generation`;
        }
        continue;
      }
      if (frame.type !== 'image') return `Invalid keyframes.${name}.type`;
      // openapi.yaml:118-133 ImageReference: url (format: uri). Luma's docs (video-generation page):
      // "upload and use your own cdn image urls, currently this is the only way to pass an image":
      // no data URIs, no uploads. Wording ours (Luma's exact text unknown).
      if (!isHttpUrl(frame.url)) return `keyframes.${name}.url must be a public http(s) URL of the image`;
      const { fetched, ok } = await fetchKeyframe(frame.url);
      extra.keyframeFetches.push(fetched);
      if (!ok) return `keyframes.${name}.url could not be fetched as an image`;
    }
    return undefined;
  };

  const api = await startFakeServer(async (req, res) => {
    // openapi.yaml:25-28 BearerAuth; lumaai-node src/index.ts:159; Error body openapi.yaml:30-38.
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { detail: 'Invalid API key' });
    const path = req.url.pathname;
    const one = new RegExp(`^${ROOT}/generations/([\\w-]+)$`).exec(path);
    // openapi.yaml:900-915 delete: 204 "Generation deleted"; lumaai-node generations.ts:74-76.
    if (one && req.method === 'DELETE') {
      cancelled.push(one[1] as string);
      return res.writeHead(204).end();
    }
    // openapi.yaml:872-898 get; State enum queued, dreaming, completed, failed (40-47).
    if (one && req.method === 'GET') {
      const id = one[1] as string;
      const g = gens.get(id);
      if (!g) return sendJson(res, 404, { detail: 'Generation not found' });
      g.polls++;
      const answer = (s: string, more: Record<string, unknown> = {}) => {
        extra.states.push(s);
        return sendJson(res, 200, view(id, s, more));
      };
      if (state.mode === 'stuck' || g.polls <= state.pendingPolls) {
        // openapi.yaml:150-153 assets.progress_video: not the result.
        return g.polls === 1
          ? answer('queued')
          : answer('dreaming', { assets: { progress_video: `${cdn.origin}/progress/${id}.mp4` } });
      }
      if (state.mode === 'failed') {
        // openapi.yaml:543-545 failure_reason.
        return answer('failed', { failure_reason: 'The keyframe image could not be processed' });
      }
      // openapi.yaml:138-153 Assets.video.
      return answer('completed', { assets: { video: cdn.url(id), image: `${cdn.origin}/thumbs/${id}.jpg` } });
    }
    // openapi.yaml:838-839: `/generations` has only `get` since spec commit 848b3bc (create moved to
    // /generations/video); lumaai-node generations.ts:42 and video.ts:32 post '/generations/video'.
    if (req.method === 'POST' && path === `${ROOT}/generations`) {
      return sendJson(res, 405, { detail: 'Method Not Allowed' });
    }
    if (req.method !== 'POST' || path !== `${ROOT}/generations/video`) {
      return sendJson(res, 404, { detail: 'Not Found' });
    }

    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' });
    }
    // lumaai-node src/core.ts:574-578: x-should-retry decides first.
    if (extra.refuseRetry) {
      return sendJson(res, 500, { detail: 'Internal Server Error' }, { 'x-should-retry': 'false' });
    }
    if (state.mode === 'server-error') return sendJson(res, 500, { detail: 'Internal Server Error' });
    const bad = (detail: string) => sendJson(res, 400, { detail });
    if (state.mode === 'bad-request') return bad('Invalid request: prompt is too long');
    const body = req.json;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return bad('The body must be a JSON object');
    const reason = await invalid(body as Record<string, unknown>);
    if (reason) return bad(reason);
    const id = `0000aaaa-0000-4000-8000-${String(++state.next).padStart(12, '0')}`;
    gens.set(id, { polls: 0, request: body });
    // openapi.yaml:825 '201': Generation created.
    return sendJson(res, 201, view(id, 'queued'));
  });

  const fake = videoProviderFake(
    api,
    { state, cdn, cancelled },
    {
      baseUrl: `${api.origin}${ROOT}`,
      states: extra.states,
      keyframeFetches: extra.keyframeFetches,
    },
  );
  return Object.defineProperty(fake, 'refuseRetry', {
    get: () => extra.refuseRetry,
    set: (v: boolean) => {
      extra.refuseRetry = v;
    },
    enumerable: true,
  }) as LumaFake;
}

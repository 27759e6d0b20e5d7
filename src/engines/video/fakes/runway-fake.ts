import { isIP } from 'node:net';
import sharp, { type Metadata } from 'sharp';
import { createFetcher, type Fetcher } from '../../../adapters/fetch/fetcher.ts';
import { type FakeRequest, type FakeServer, sendJson, startFakeServer } from '../../image/fakes/fake-http.ts';
import { startVideoFakeParts, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake Runway API that checks what the real one checks, per model, as the official SDK and docs
 * describe it. Sources, cited at each rule: runwayml/sdk-node HEAD ecb7e33 (4.12.0) as `SDK <path>:<line>`
 * (older commits `SDK@<sha>`); docs.dev.runwayml.com pages by path; ComfyUI's Runway nodes
 * (Comfy-Org/ComfyUI comfy_api_nodes/nodes_runway.py @a125cd8) for the image geometry.
 *
 * - `POST /v1/image_to_video`: the body validated against the model's row (positions, ratio,
 *   duration, seed, promptText, audio, members), every image URI checked (data URI media type and
 *   length, `runway://` URIs of finished uploads, HTTPS links a test published in `links`) and
 *   decoded (width/height 0.5–2, sides ≤ 7999 px); 400 `{ error }` otherwise.
 * - `POST /v1/uploads` → `{ uploadUrl, fields, runwayUri }`; the upload URL is on a second server
 *   (`storage`, another port: another origin), which takes the presigned multipart POST (fields,
 *   then `file`) and refuses one carrying an Authorization header.
 * - `GET /v1/tasks/{id}`: PENDING, THROTTLED, then RUNNING (with `progress`) for `pendingPolls`
 *   polls, then SUCCEEDED with `output: [<cdn url>]` (or FAILED per `mode`/`variant`); CANCELLED
 *   after a DELETE.
 * - `DELETE /v1/tasks/{id}`: 204.
 *
 * `mode` picks a shared failure; `variant` a Runway-specific one.
 */
export type RunwayFakeVariant =
  /** Nothing special. */
  | 'none'
  /** With mode `server-error`: the 502 carries `x-should-retry: false`. */
  | 'no-retry'
  /** With mode `failed`: failureCode `SAFETY.INPUT.IMAGE` (moderation). */
  | 'failed-safety'
  /** With mode `failed`: a FAILED task without a failureCode (it is optional). */
  | 'failed-no-code';

export interface RunwayFake extends VideoProviderFake {
  /** The presigned-upload storage (another origin than the API). */
  storage: FakeServer;
  /** Reaches the CDN and the storage, not the API: the adapter's `downloadFetcher`. */
  publicFetcher: Fetcher;
  /** What Runway would fetch behind an HTTPS link (a test's InputHost publishes here). */
  links: Map<string, Buffer>;
  /** Finished uploads: `runway://` URI → bytes. */
  uploads: Map<string, Buffer>;
  /** Tasks created. */
  created(): number;
  /** Why each 400 was given, in order. */
  rejected: string[];
  variant: RunwayFakeVariant;
  /** Back to no variant, no tasks, links, uploads or rejections (the shared reset does the rest). */
  reset(): void;
}

// SDK src/resources/image-to-video.ts:119 (gen4_turbo), :67 (gen4.5).
const GEN4_RATIOS = ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'];
// SDK src/resources/image-to-video.ts:184 (veo3.1), :237 (veo3.1_fast), :620 (veo3).
const VEO_RATIOS = ['1280:720', '720:1280', '1080:1920', '1920:1080'];
const ints = (from: number, to: number) => (d: unknown) =>
  Number.isInteger(d) && (d as number) >= from && (d as number) <= to;

interface ModelRule {
  ratios: string[];
  ratioRequired: boolean;
  duration: (d: unknown) => boolean;
  durationText: string;
  durationRequired: boolean;
  positions: ('first' | 'last')[];
  seed: boolean;
  promptMax: number;
  promptRequired: boolean;
  audio: boolean;
  contentModeration: boolean;
  negativePrompt: boolean;
}

const MODELS: Record<string, ModelRule> = {
  // SDK src/resources/image-to-video.ts:108-169. ratio required (:119), duration optional `number`
  // (:129) that "must specify a duration of 2-10 seconds" (SDK@0df86ce image-to-video.ts:75-79),
  // promptText optional ≤ 1000 UTF-16 units (:131-135), seed (:142), position 'first' only (:151),
  // contentModeration (:124, :162-168).
  gen4_turbo: {
    ratios: GEN4_RATIOS,
    ratioRequired: true,
    duration: ints(2, 10),
    durationText: 'an integer from 2 to 10',
    durationRequired: false,
    positions: ['first'],
    seed: true,
    promptMax: 1000,
    promptRequired: false,
    audio: false,
    contentModeration: true,
    negativePrompt: false,
  },
  // SDK src/resources/image-to-video.ts:44-106: duration required, integer 2–10 (:46-49), promptText
  // required (:62), ratio (:67), contentModeration (:72), seed (:79), position 'first' only (:88).
  'gen4.5': {
    ratios: GEN4_RATIOS,
    ratioRequired: true,
    duration: ints(2, 10),
    durationText: 'an integer from 2 to 10',
    durationRequired: true,
    positions: ['first'],
    seed: true,
    promptMax: 1000,
    promptRequired: true,
    audio: false,
    contentModeration: true,
    negativePrompt: false,
  },
  // SDK src/resources/image-to-video.ts:171-222: ratio (:184), audio (:189), duration 4 | 6 | 8
  // (:194), negativePrompt (:199), promptText ≤ 1000 (:202-205), 'first' | 'last' (:215); no seed.
  'veo3.1': {
    ratios: VEO_RATIOS,
    ratioRequired: true,
    duration: (d) => d === 4 || d === 6 || d === 8,
    durationText: '4, 6 or 8',
    durationRequired: false,
    positions: ['first', 'last'],
    seed: false,
    promptMax: 1000,
    promptRequired: false,
    audio: true,
    contentModeration: false,
    negativePrompt: true,
  },
  // SDK src/resources/image-to-video.ts:224-275 (as veo3.1: :237, :242, :247, :252, :258, :268).
  'veo3.1_fast': {
    ratios: VEO_RATIOS,
    ratioRequired: true,
    duration: (d) => d === 4 || d === 6 || d === 8,
    durationText: '4, 6 or 8',
    durationRequired: false,
    positions: ['first', 'last'],
    seed: false,
    promptMax: 1000,
    promptRequired: false,
    audio: true,
    contentModeration: false,
    negativePrompt: true,
  },
  // SDK src/resources/image-to-video.ts:604-647: duration required and 8 (:608), ratio (:620),
  // negativePrompt (:625), promptText ≤ 1000 (:628-631), position 'first' only (:640).
  veo3: {
    ratios: VEO_RATIOS,
    ratioRequired: true,
    duration: (d) => d === 8,
    durationText: '8',
    durationRequired: true,
    positions: ['first'],
    seed: false,
    promptMax: 1000,
    promptRequired: false,
    audio: false,
    contentModeration: false,
    negativePrompt: true,
  },
  // SDK src/resources/image-to-video.ts:562-602: 'first' only (:595), duration a whole number 3–10
  // (:572), ratio optional 1280:720 | 720:1280 (:586). No promptText limit stated: 1000 kept.
  gemini_omni_flash: {
    ratios: ['1280:720', '720:1280'],
    ratioRequired: false,
    duration: ints(3, 10),
    durationText: 'a whole number from 3 to 10',
    durationRequired: false,
    positions: ['first'],
    seed: false,
    promptMax: 1000,
    promptRequired: false,
    audio: false,
    contentModeration: false,
    negativePrompt: false,
  },
};

/** A lone surrogate (what `String.prototype.isWellFormed` rejects; ES2024, not in this lib). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// docs.dev.runwayml.com/assets/inputs: "The length of the encoded data URI must be under 5MB
// (1024 × 1024 × 5 bytes)" and it "must include an appropriate content type string ... data:image/jpg;base64,".
const DATA_URI_MAX = 5 * 1024 * 1024;
// Image types: JPEG, PNG, WebP (runwayml/skills skills/rw-api-reference/SKILL.md, "Supported Formats").
const DATA_URI = /^data:image\/(png|jpeg|jpg|webp);base64,/;
// docs.dev.runwayml.com/assets/uploads: "The maximum uploadable file is 200MB. The minimum uploadable file is 512 bytes."
const UPLOAD_MIN = 512;
const UPLOAD_MAX = 200 * 1024 * 1024;

export async function startRunwayFake(mp4: Buffer, apiKey: string): Promise<RunwayFake> {
  const parts = await startVideoFakeParts(mp4);
  const { state, cdn, cancelled } = parts;
  const tasks = new Map<string, { polls: number; cancelled: boolean }>();
  const links = new Map<string, Buffer>();
  const uploads = new Map<string, Buffer>();
  const slots = new Map<string, { fields: Record<string, string>; runwayUri: string }>();
  const rejected: string[] = [];
  let fake: RunwayFake | undefined;
  let nextUpload = 0;

  const reject = (res: Parameters<typeof sendJson>[0], error: string) => {
    rejected.push(error);
    // docs.dev.runwayml.com/errors/errors: 400 "Expect a JSON response with an error member with a
    // human-readable explanation" (the exact texts are not published; these are ours).
    return sendJson(res, 400, { error });
  };

  // The presigned storage: SDK src/resources/uploads.ts:17-66. A plain multipart POST: every
  // `fields` entry (:26-28), then `file` (:32); no Authorization header (:38-42, `fetch` with the
  // form only); a non-2xx answer is an error (:43-51).
  const storage = await startFakeServer(async (req, res) => {
    const slot = /^\/upload\/([\w-]+)$/.exec(req.url.pathname);
    const s = slot ? slots.get(slot[1] as string) : undefined;
    if (req.method !== 'POST' || !s) return sendJson(res, 404, { error: 'Not found' });
    if (req.headers.authorization) return reject(res, 'The upload URL is presigned: no Authorization header');
    if (!req.form) return reject(res, 'Expected a multipart/form-data body');
    const entries = [...req.form.entries()];
    for (const [k, v] of Object.entries(s.fields)) {
      if (req.form.get(k) !== v) return reject(res, `Upload field "${k}" missing or changed`);
    }
    const last = entries.at(-1);
    if (last?.[0] !== 'file' || typeof last[1] === 'string') {
      return reject(res, 'The file must be the last field of the form, named "file"');
    }
    const bytes = Buffer.from(await last[1].arrayBuffer());
    if (bytes.length < UPLOAD_MIN || bytes.length > UPLOAD_MAX) {
      return reject(res, `Uploads must be ${UPLOAD_MIN} bytes to 200MB`);
    }
    uploads.set(s.runwayUri, bytes);
    slots.delete(slot?.[1] as string);
    return res.writeHead(204).end();
  });

  /** The image behind a promptImage URI, or why Runway would refuse it. */
  const image = async (uri: unknown): Promise<Buffer | string> => {
    if (typeof uri !== 'string' || !uri) return 'promptImage: uri must be a non-empty string';
    if (uri.startsWith('data:')) {
      if (!DATA_URI.test(uri)) return 'promptImage: the data URI must be base64 with an image content type';
      if (uri.length >= DATA_URI_MAX) return 'promptImage: the data URI must be under 5MB';
      return Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
    }
    if (uri.startsWith('runway://')) {
      // docs.dev.runwayml.com/assets/uploads: the runway:// URI "can be used anywhere that a URL or data URI can be used".
      return uploads.get(uri) ?? 'promptImage: unknown or unfinished upload';
    }
    // docs.dev.runwayml.com/assets/inputs, "Inputs using URLs": HTTPS, a domain name (not an IP
    // address), at most 2048 characters.
    if (!URL.canParse(uri)) return 'promptImage: invalid URL';
    const u = new URL(uri);
    if (u.protocol !== 'https:') return 'promptImage: URLs must be HTTPS';
    if (isIP(u.hostname.replace(/^\[|\]$/g, ''))) return 'promptImage: URLs must use a domain name, not an IP address';
    if (uri.length > 2048) return 'promptImage: URLs must not exceed 2048 characters';
    return links.get(uri) ?? 'promptImage: the URL could not be fetched';
  };

  /** Why Runway would refuse the decoded image, if it would. */
  const geometry = async (bytes: Buffer): Promise<string | undefined> => {
    let meta: Metadata;
    try {
      meta = await sharp(bytes).metadata();
    } catch {
      return 'promptImage: not a readable image';
    }
    if (!meta.width || !meta.height || !['png', 'jpeg', 'webp'].includes(meta.format ?? '')) {
      return 'promptImage: not a PNG, JPEG or WebP image';
    }
    // Comfy-Org/ComfyUI comfy_api_nodes/nodes_runway.py:241 (sides ≤ 7999) and :242 (0.5–2), with Runway's 400 text.
    if (meta.width > 7999 || meta.height > 7999) return 'Invalid asset dimensions. Sides must be at most 7999 pixels.';
    const aspect = meta.width / meta.height;
    if (aspect < 0.5 || aspect > 2) {
      return 'Invalid asset aspect ratio. width / height ratio must be between 0.5 and 2.';
    }
    return undefined;
  };

  // biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field
  const validate = async (body: any): Promise<string | undefined> => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return 'Expected a JSON object';
    // SDK src/resources/image-to-video.ts:31-41: a union discriminated by `model` (gen3a_turbo
    // removed in SDK@72f96f2).
    const rule = MODELS[body.model];
    if (!rule) return `model: Invalid discriminator value "${String(body.model)}"`;
    const allowed = new Set(['model', 'promptImage', 'ratio', 'duration', 'promptText']);
    if (rule.seed) allowed.add('seed');
    if (rule.audio) allowed.add('audio');
    if (rule.contentModeration) allowed.add('contentModeration');
    if (rule.negativePrompt) allowed.add('negativePrompt');
    // Strict on purpose: whether Runway ignores unknown members is not documented.
    for (const k of Object.keys(body)) if (!allowed.has(k)) return `${k}: not allowed for ${body.model}`;

    // promptImage: a URI, or [{ uri, position }] with the model's positions (gen4_turbo :151,
    // gen4.5 :88, veo3 :640, gemini_omni_flash :595: 'first' only; veo3.1 :215, veo3.1_fast :268:
    // 'first' | 'last', and "does not support generating with only a last frame", :176-178).
    const pi = body.promptImage;
    const items: { uri: unknown; position: unknown }[] =
      typeof pi === 'string' ? [{ uri: pi, position: 'first' }] : Array.isArray(pi) ? pi : [];
    if (items.length === 0) return 'promptImage: Required';
    const seen = new Set<unknown>();
    for (const it of items) {
      if (!it || typeof it !== 'object' || Object.keys(it).some((k) => k !== 'uri' && k !== 'position')) {
        return 'promptImage: each item is { uri, position }';
      }
      if (!(rule.positions as unknown[]).includes(it.position)) {
        return `promptImage.position: "${String(it.position)}" is not supported by ${body.model} (${rule.positions.join(' | ')})`;
      }
      if (seen.has(it.position)) return `promptImage: two images at position "${String(it.position)}"`;
      seen.add(it.position);
    }
    if (!seen.has('first')) return 'promptImage: a first frame is required';
    for (const it of items) {
      const bytes = await image(it.uri);
      if (typeof bytes === 'string') return bytes;
      const why = await geometry(bytes);
      if (why) return why;
    }

    // ratio: the model's set; required except gemini_omni_flash (:586 `ratio?`).
    if (body.ratio === undefined) {
      if (rule.ratioRequired) return 'ratio: Required';
    } else if (!rule.ratios.includes(body.ratio)) {
      return `ratio: Invalid enum value "${String(body.ratio)}" for ${body.model}`;
    }
    // duration: gen4.5 :46-49 and veo3 :608 required; the others optional.
    if (body.duration === undefined) {
      if (rule.durationRequired) return 'duration: Required';
    } else if (!rule.duration(body.duration)) {
      return `duration: must be ${rule.durationText} for ${body.model}`;
    }
    // promptText: "A non-empty string up to 1000 characters (measured in UTF-16 code units)" (:131-132);
    // required for gen4.5 (:62). A lone surrogate is not a well-formed string (JSON allows it).
    if (body.promptText === undefined) {
      if (rule.promptRequired) return 'promptText: Required';
    } else if (typeof body.promptText !== 'string' || body.promptText.length === 0) {
      return 'promptText: must be a non-empty string';
    } else if (body.promptText.length > rule.promptMax) {
      return `promptText: must be at most ${rule.promptMax} characters`;
    } else if (LONE_SURROGATE.test(body.promptText)) {
      return 'promptText: must be a well-formed string (a lone surrogate)';
    }
    // seed (gen4_turbo :142, gen4.5 :79): an integer; range 0..4294967295 as ComfyUI's node
    // (Comfy-Org/ComfyUI comfy_api_nodes/nodes_runway.py:213), which the SDK does not state.
    if (body.seed !== undefined && !(Number.isInteger(body.seed) && body.seed >= 0 && body.seed <= 4294967295)) {
      return 'seed: must be an integer from 0 to 4294967295';
    }
    if (body.audio !== undefined && typeof body.audio !== 'boolean') return 'audio: must be a boolean'; // :189
    if (body.negativePrompt !== undefined && typeof body.negativePrompt !== 'string') {
      return 'negativePrompt: must be a string'; // :199
    }
    // contentModeration: { publicFigureThreshold?: 'auto' | 'low' } (:162-168).
    if (body.contentModeration !== undefined) {
      const cm = body.contentModeration;
      if (
        !cm ||
        typeof cm !== 'object' ||
        Object.keys(cm).some((k) => k !== 'publicFigureThreshold') ||
        (cm.publicFigureThreshold !== undefined && !['auto', 'low'].includes(cm.publicFigureThreshold))
      ) {
        return 'contentModeration: only publicFigureThreshold "auto" | "low"';
      }
    }
    return undefined;
  };

  const api = await startFakeServer(async (req: FakeRequest, res) => {
    // SDK src/client.ts:381-383 (Authorization: Bearer), :834 and :291 (X-Runway-Version 2024-11-06).
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { error: 'Unauthorized' });
    if (req.headers['x-runway-version'] !== '2024-11-06') {
      return sendJson(res, 400, { error: 'The X-Runway-Version header is missing or invalid' });
    }
    const path = req.url.pathname;
    const task = /^\/v1\/tasks\/([\w-]+)$/.exec(path);
    const t = task ? tasks.get(task[1] as string) : undefined;
    // SDK src/resources/tasks.ts:33-37: DELETE, `void` (204); :26-27 cancels a running / pending /
    // throttled task (deletes others).
    if (task && req.method === 'DELETE') {
      if (!t) return sendJson(res, 404, { error: 'Task not found' });
      cancelled.push(task[1] as string);
      t.cancelled = true;
      return res.writeHead(204).end();
    }
    if (task && req.method === 'GET') {
      const id = task[1] as string;
      if (!t) return sendJson(res, 404, { error: 'Task not found' });
      t.polls++;
      // SDK src/resources/tasks.ts:44-175: every status has id and createdAt; only RUNNING has
      // `progress` (:118); FAILED has `failure` (:141) and an optional `failureCode` (:149);
      // SUCCEEDED has `output` (:171); CANCELLED is "A cancelled or deleted task" (:88).
      const base = { id, createdAt: '2025-01-01T00:00:00.000Z' };
      if (t.cancelled) return sendJson(res, 200, { ...base, status: 'CANCELLED' });
      if (state.mode === 'stuck' || t.polls <= state.pendingPolls) {
        const status = state.mode === 'stuck' ? 'RUNNING' : (['PENDING', 'THROTTLED'][t.polls - 1] ?? 'RUNNING');
        return sendJson(res, 200, { ...base, status, ...(status === 'RUNNING' ? { progress: 0.5 } : {}) });
      }
      if (state.mode === 'failed') {
        // docs.dev.runwayml.com/errors/task-failures/: SAFETY.INPUT.* (moderation, "You should not
        // retry"), INTERNAL.BAD_OUTPUT.* ("You may retry").
        const variant = fake?.variant;
        if (variant === 'failed-no-code') {
          return sendJson(res, 200, { ...base, status: 'FAILED', failure: 'The generation failed.' });
        }
        return sendJson(res, 200, {
          ...base,
          status: 'FAILED',
          ...(variant === 'failed-safety'
            ? { failure: 'The input image was flagged by our moderation system.', failureCode: 'SAFETY.INPUT.IMAGE' }
            : {
                failure: 'An unexpected error occurred while generating the video.',
                failureCode: 'INTERNAL.BAD_OUTPUT.CODE01',
              }),
        });
      }
      return sendJson(res, 200, { ...base, status: 'SUCCEEDED', output: [cdn.url(id)] });
    }
    if (req.method !== 'POST') return sendJson(res, 404, { error: 'Not found' });
    // The SDK sends JSON bodies (SDK src/client.ts:838 bodyHeaders).
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      return reject(res, 'Expected Content-Type: application/json');
    }

    if (path === '/v1/uploads') {
      // SDK src/resources/uploads.ts:90-93: `{ filename, type: 'ephemeral' }`; the answer
      // `{ runwayUri, uploadUrl, fields }` (:11-15).
      const b = req.json ?? {};
      if (typeof b.filename !== 'string' || !b.filename || b.type !== 'ephemeral' || Object.keys(b).length !== 2) {
        return reject(res, 'Expected { filename, type: "ephemeral" }');
      }
      const n = `u${++nextUpload}`;
      const fields = { key: `ephemeral/${n}/${b.filename}`, policy: `policy-${n}`, 'x-amz-signature': `sig-${n}` };
      const runwayUri = `runway://ephemeral/${n}`;
      slots.set(n, { fields, runwayUri });
      return sendJson(res, 200, { uploadUrl: `${storage.origin}/upload/${n}`, fields, runwayUri });
    }
    if (path !== '/v1/image_to_video') return sendJson(res, 404, { error: 'Not found' });

    // docs.dev.runwayml.com/errors/errors: 429 retry; 502/503 "Runway is shedding load" retry.
    if (state.mode === 'rate-limit-then-ok' && state.rateLimited++ === 0) {
      return sendJson(res, 429, { error: 'You have exceeded the rate limit' }, { 'retry-after': '1' });
    }
    if (state.mode === 'server-error') {
      // SDK src/client.ts:707-711: `x-should-retry: false` is obeyed before the status.
      const headers = fake?.variant === 'no-retry' ? { 'x-should-retry': 'false' } : {};
      return sendJson(res, 502, { error: 'Bad gateway' }, headers);
    }
    const why = await validate(req.json);
    if (why) return reject(res, why);
    // Mode `bad-request`: a valid body refused anyway (so tests can read what a valid body was).
    if (state.mode === 'bad-request') {
      return reject(res, 'Invalid asset aspect ratio. width / height ratio must be between 0.5 and 2.');
    }
    // SDK src/resources/image-to-video.ts:24-29: `{ id }`.
    const id = `00000000-0000-4000-8000-${String(++state.next).padStart(12, '0')}`;
    tasks.set(id, { polls: 0, cancelled: false });
    return sendJson(res, 200, { id });
  });

  const base = videoProviderFake(api, parts, {
    storage,
    publicFetcher: createFetcher({
      policy: (addr, p) => addr === '127.0.0.1' && (p === cdn.port || p === storage.port),
    }),
    links,
    uploads,
    created: () => tasks.size,
    rejected,
  });
  let variant: RunwayFakeVariant = 'none';
  const closeBase = base.close;
  fake = Object.defineProperties(base, {
    variant: {
      get: () => variant,
      set: (v: RunwayFakeVariant) => {
        variant = v;
      },
      enumerable: true,
    },
    close: {
      value: async () => {
        await Promise.all([closeBase(), storage.close()]);
      },
    },
    reset: {
      value: () => {
        variant = 'none';
        nextUpload = 0;
        for (const m of [tasks, links, uploads, slots]) m.clear();
        rejected.length = 0;
        storage.requests.length = 0;
      },
    },
  }) as RunwayFake;
  return fake;
}

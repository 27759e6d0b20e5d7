import type { Fetcher } from '../../../adapters/fetch/fetcher.ts';
import { type AspectRatio, outputSize } from '../scene-engine.ts';
import { type FakeServer, makePng, NOT_AN_IMAGE, sendBytes } from './fake-http.ts';
import { type FalFakeJob, type FalQueueMode, type FalUpload, startFalQueueCore } from './fal-queue-fake.ts';

/**
 * A fake fal.ai for image models: the shared queue, storage and CDN (./fal-queue-fake.ts), and
 * result images on the CDN at `/results/{w}x{h}/{id}.png` (no auth there). The output is
 * FluxKontextOutput's shape `{ images[], has_nsfw_concepts[], seed, prompt, timings }` (fal-js
 * libs/client/src/types/endpoints.ts:14239-14260); the image is 1024 px on its long side at the
 * requested `aspect_ratio` (or `image_size`), else square.
 */
export type FalFakeMode = FalQueueMode | 'missing-image' | 'not-an-image' | 'nsfw-flag';

export interface FalFake extends FakeServer {
  mode: FalFakeMode;
  pendingPolls: number;
  /** fal's CDN: uploads and result images (the adapter's download fetcher reaches it). */
  cdn: FakeServer;
  /** fal's REST API (storage initiate). */
  rest: FakeServer;
  /** Reaches the queue and the REST API: the adapter's API fetcher. */
  fetcher: Fetcher;
  /** Queue API calls (not storage, not CDN). */
  calls(): FakeServer['requests'];
  jobs: Map<string, FalFakeJob>;
  uploads: FalUpload[];
  cancelled: string[];
  /** Clears jobs, uploads, cancels and recorded requests; mode `ok`, 2 pending polls. */
  reset(): void;
}

export async function startFalFake(apiKey = 'fal-test-key-0123456789'): Promise<FalFake> {
  const state = { mode: 'ok' as string, pendingPolls: 2, rateLimited: 0, next: 0 };
  const core = await startFalQueueCore({
    apiKey,
    state,
    output(job, cdn) {
      if (state.mode === 'missing-image')
        return { images: [], seed: 1, has_nsfw_concepts: [], prompt: '', timings: {} };
      let { width, height } = { width: 1024, height: 1024 };
      if (typeof job.input.aspect_ratio === 'string') {
        ({ width, height } = outputSize(job.input.aspect_ratio as AspectRatio, 1024));
      }
      if (job.input.image_size && typeof job.input.image_size === 'object') ({ width, height } = job.input.image_size);
      return {
        images: [{ url: `${cdn}/results/${width}x${height}/${job.id}.png`, width, height, content_type: 'image/png' }],
        has_nsfw_concepts: [state.mode === 'nsfw-flag'],
        seed: typeof job.input.seed === 'number' ? job.input.seed : 42,
        prompt: job.input.prompt,
        timings: { inference: 1.2 },
      };
    },
    async cdnFiles(req, res) {
      const m = /^\/results\/(\d+)x(\d+)\/[\w-]+\.png$/.exec(req.url.pathname);
      if (!m || req.method !== 'GET') return false;
      if (state.mode === 'not-an-image') sendBytes(res, NOT_AN_IMAGE, 'image/png');
      else sendBytes(res, await makePng(Number(m[1]), Number(m[2])));
      return true;
    },
  });

  return {
    ...core.api,
    fetcher: core.apiFetcher,
    cdn: core.cdn,
    rest: core.rest,
    jobs: core.jobs,
    uploads: core.uploads,
    cancelled: core.cancelled,
    calls: () => core.api.requests,
    get mode() {
      return state.mode as FalFakeMode;
    },
    set mode(m: FalFakeMode) {
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
      core.reset();
      state.mode = 'ok';
      state.rateLimited = 0;
      state.pendingPolls = 2;
    },
    close: core.close,
  };
}

import type { FakeServer } from '../../image/fakes/fake-http.ts';
import { sendBytes } from '../../image/fakes/fake-http.ts';
import {
  type FalFakeJob,
  type FalQueueMode,
  type FalQueueState,
  type FalUpload,
  startFalQueueCore,
} from '../../image/fakes/fal-queue-fake.ts';
import {
  NOT_A_VIDEO,
  type VideoFakeMode,
  type VideoFakeState,
  type VideoProviderFake,
  videoProviderFake,
} from './video-media.ts';

/**
 * A fake fal.ai for video models: the shared queue, storage and CDN
 * (src/engines/image/fakes/fal-queue-fake.ts, where each model's input schema is checked: Kling
 * v2.1 standard takes no `tail_image_url` and no `aspect_ratio`, pro takes `tail_image_url`), and
 * the result video on the CDN at `/videos/{id}.mp4`. The output is I2VOutput `{ video: File }`
 * (fal-js libs/client/src/types/endpoints.ts:21837-21842). `mode` takes the failures every video
 * fake has; `falMode` any of fal's (FalQueueMode).
 */
export interface FalVideoFake extends VideoProviderFake {
  /** fal's REST API (storage initiate). */
  rest: FakeServer;
  jobs: Map<string, FalFakeJob>;
  uploads: FalUpload[];
  /** fal's own failure modes (sets the same state as `mode`). */
  falMode: FalQueueMode | VideoFakeMode;
  /** Clears jobs, uploads and the storage requests (the kit clears the rest). */
  resetFal(): void;
}

export async function startFalVideoFake(mp4: Buffer, apiKey: string): Promise<FalVideoFake> {
  const state: FalQueueState = { mode: 'ok', pendingPolls: 2, rateLimited: 0, next: 0 };
  const core = await startFalQueueCore({
    apiKey,
    state,
    failed: { error: 'Kling task failed: image resolution too low', error_type: 'generation_failed' },
    output: (job, cdn) => ({
      video: {
        url: `${cdn}/videos/${job.id}.mp4`,
        content_type: 'video/mp4',
        file_name: 'output.mp4',
        file_size: mp4.length,
      },
    }),
    cdnFiles(req, res) {
      if (req.method !== 'GET' || !/^\/videos\/[\w-]+\.mp4$/.test(req.url.pathname)) return false;
      if (state.mode === 'not-a-video') sendBytes(res, NOT_A_VIDEO, 'video/mp4');
      else if (state.mode === 'broken-video') sendBytes(res, mp4.subarray(0, 64), 'video/mp4');
      else sendBytes(res, mp4, 'video/mp4');
      return true;
    },
  });
  const cdn = { ...core.cdn, url: (id: string) => `${core.cdn.origin}/videos/${id}.mp4` };
  const fake = videoProviderFake(
    { ...core.api, fetcher: core.apiFetcher },
    { state: state as VideoFakeState, cdn, cancelled: core.cancelled },
    {
      rest: core.rest,
      jobs: core.jobs,
      uploads: core.uploads,
      resetFal: () => {
        core.jobs.clear();
        core.uploads.length = 0;
        core.rest.requests.length = 0;
      },
    },
  );
  Object.defineProperty(fake, 'falMode', {
    get: () => state.mode,
    set: (m: string) => {
      state.mode = m;
      state.rateLimited = 0;
    },
    enumerable: true,
  });
  fake.close = core.close;
  return fake as FalVideoFake;
}

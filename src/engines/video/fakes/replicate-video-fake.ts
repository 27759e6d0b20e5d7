import {
  type FakePrediction,
  KLING_V2_1,
  type ReplicateMode,
  startReplicateCore,
} from '../../image/fakes/replicate-fake.ts';
import { startVideoFakeParts, type VideoFakeMode, type VideoProviderFake, videoProviderFake } from './video-media.ts';

/**
 * A fake Replicate API for video models: the predictions and Files API of the shared core
 * (src/engines/image/fakes/replicate-fake.ts, with its citations) knowing kwaivgi/kling-v2.1's
 * schema (no aspect_ratio, no seed: such inputs are dropped and recorded in `ignoredInputs`;
 * start_image required, 422 without; end_image without `mode: "pro"` makes the prediction fail),
 * and the shared video CDN for outputs. `mode` takes the modes every video fake has; `fault` the
 * Replicate-only ones (aborted, created-then-5xx, reset-after-accept, …), and wins over `mode`.
 */
export type ReplicateVideoFault = Exclude<ReplicateMode, VideoFakeMode>;

export interface ReplicateVideoFake extends VideoProviderFake {
  /** A Replicate-only behaviour (setting it resets the once-only counter); undefined: `mode` decides. */
  fault: ReplicateVideoFault | undefined;
  files: Buffer[];
  uploads: { name: string; type: string }[];
  ignoredInputs: string[];
  predictions: Map<string, FakePrediction>;
}

export async function startReplicateVideoFake(mp4: Buffer, apiKey: string): Promise<ReplicateVideoFake> {
  const parts = await startVideoFakeParts(mp4);
  const { state, cdn } = parts;
  let fault: ReplicateVideoFault | undefined;
  const coreState = {
    get mode(): ReplicateMode {
      return fault ?? state.mode;
    },
    get pendingPolls() {
      return state.pendingPolls;
    },
    get rateLimited() {
      return state.rateLimited;
    },
    set rateLimited(n: number) {
      state.rateLimited = n;
    },
    get next() {
      return state.next;
    },
    set next(n: number) {
      state.next = n;
    },
  };
  const core = await startReplicateCore({
    apiKey,
    models: { 'kwaivgi/kling-v2.1': KLING_V2_1 },
    state: coreState,
    idPrefix: 'vid',
    retryAfter: '1',
    failure: 'Prediction failed: start_image must be at least 300px',
    invalidDetail: '- input.prompt: prompt is too long',
    output: (p) => cdn.url(p.id),
  });
  // The core answers cancels itself; the shared handle's `cancelled` is the core's list.
  const fake = videoProviderFake(
    core.api,
    { ...parts, cancelled: core.cancelled },
    {
      files: core.files,
      uploads: core.uploads,
      ignoredInputs: core.ignoredInputs,
      predictions: core.predictions,
    },
  );
  return Object.defineProperty(fake, 'fault', {
    get: () => fault,
    set: (f: ReplicateVideoFault | undefined) => {
      fault = f;
      state.rateLimited = 0;
    },
    enumerable: true,
  }) as ReplicateVideoFake;
}

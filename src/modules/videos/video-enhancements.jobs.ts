import { Type } from 'typebox';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { Clock } from '../../clock.ts';
import {
  type VideoAspectRatio,
  type VideoEnhancementInput,
  type VideoEnhancer,
  videoPromptMax,
} from '../../engines/text/video-enhancer.ts';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import { assetContext, brandContext } from '../generation/enhancement-input.ts';
import type { RunsRepo } from '../generation/runs.repo.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { VideoInputs } from './video-inputs.ts';
import { VIDEO_PROMPT_MAX_CHARS } from './video-models.ts';
import type { VideoPromptEnhancementsTable } from './videos.tables.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

const Payload = Type.Object({ promptEnhancementId: Uuid });

/** The job id is `enhancements.video.<id>`. */
export const videoEnhancementJobId = (id: string) => `enhancements.video.${id}`;
export const videoEnhancementJob: JobRef<typeof Payload> = { name: 'enhancements.video', payload: Payload };

/** What the video enhancer reads, from an enhancement's row and its captured inputs (pure). */
export function toVideoEnhancementInput(row: VideoPromptEnhancementsTable, maxChars: number): VideoEnhancementInput {
  const inputs = fromJson<VideoInputs>(row.context, null as never);
  const frame = (a: NonNullable<VideoInputs['start']>) => ({ ...assetContext(a), fileName: a.fileName });
  return {
    originalPrompt: row.original_prompt,
    aspectRatio: row.aspect_ratio as VideoAspectRatio,
    model: row.model,
    durationSeconds: row.duration,
    enableAudio: row.enable_audio === 1,
    maxChars,
    ...(inputs.start ? { start: frame(inputs.start) } : {}),
    ...(inputs.end ? { end: frame(inputs.end) } : {}),
    intermediate: inputs.intermediate.map(frame),
    referenceImages: inputs.referenceImages.map(frame),
    referenceVideos: inputs.referenceVideos.map((v) => ({ ...frame(v), durationSeconds: v.durationSeconds })),
    ...(inputs.dna ? { brand: brandContext(inputs.brand, inputs.dna) } : {}),
  };
}

export interface VideoEnhancementJobsDeps {
  repo: RunsRepo<'video_prompt_enhancements'>;
  enhancer: VideoEnhancer;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  clock: Clock;
  changes: ChangePublisher;
}

/**
 * How long an enhanced prompt may be: what generate-video takes as one prompt (1000 characters),
 * so the enhancement can be sent as is; a longer original (the enhancement accepts 2500, or 5000
 * for video-model-8) is kept whole, with nothing added past its own length.
 */
export function enhancedPromptBound(row: Pick<VideoPromptEnhancementsTable, 'model' | 'original_prompt'>): number {
  return Math.min(videoPromptMax(row.model), Math.max(VIDEO_PROMPT_MAX_CHARS, [...row.original_prompt].length));
}

/**
 * An image-to-video prompt enhancement: the enhancer (OpenAI-compatible chat when configured,
 * falling back to the local rule-based one) writes the prompt from the inputs captured at create;
 * the run is completed with enhancedPrompt, camera and warnings and its unit committed. A run that
 * still fails after the retries is `failed` with ENHANCEMENT_FAILED and its unit released.
 */
export function videoEnhancementJobs(deps: VideoEnhancementJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();
  /** Announces the run as it is now (long-poll, webhooks); after the transition committed. */
  const changed = (id: string) => publishChange(deps, 'video_prompt_enhancement', () => deps.repo.byId(id));
  return [
    defineJob({
      ...videoEnhancementJob,
      queue: 'generation',
      attempts: 3,
      backoffMs: 1000,
      timeoutMs: 120_000,
      async handler({ promptEnhancementId: id }, ctx) {
        if (!(await deps.repo.start(id, now()))) return;
        const row = await deps.repo.byId(id);
        if (!row) return;
        await publishChange(deps, 'video_prompt_enhancement', row);
        const result = await deps.enhancer.enhance(toVideoEnhancementInput(row, enhancedPromptBound(row)), {
          signal: ctx.signal,
        });
        const finished = await deps.repo.finish(
          id,
          'completed',
          {
            enhanced_prompt: result.enhancedPrompt,
            camera: result.camera,
            warnings: toJson(result.warnings),
            engine: result.engine,
          },
          now(),
        );
        if (finished && row.reservation_id) await deps.usage.commit(row.reservation_id);
        if (finished) await changed(id);
      },
      async onFailed({ promptEnhancementId: id }, error, ctx) {
        ctx.log.error({ promptEnhancementId: id, err: error.message }, 'video prompt enhancement failed after retries');
        const row = await deps.repo.byId(id);
        const failed = await deps.repo.finish(
          id,
          'failed',
          { error_code: 'ENHANCEMENT_FAILED', error_message: 'The prompt could not be enhanced; try again' },
          now(),
        );
        if (failed && row?.reservation_id) await deps.usage.release(row.reservation_id);
        if (failed) await changed(id);
      },
    }),
  ];
}

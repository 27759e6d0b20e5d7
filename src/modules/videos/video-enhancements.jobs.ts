import { fromJson, toJson } from '../../adapters/db/columns.ts';
import {
  type VideoAspectRatio,
  type VideoEnhancementInput,
  type VideoEnhancer,
  videoPromptMax,
} from '../../engines/text/video-enhancer.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import { assetContext, brandContext } from '../generation/enhancement-input.ts';
import { defineRunKind, type RunJobDeps, runJob } from '../generation/runs.ts';
import type { VideoInputs } from './video-inputs.ts';
import { VIDEO_PROMPT_MAX_CHARS } from './video-models.ts';
import type { VideoPromptEnhancementsTable } from './videos.tables.ts';

/** An image-to-video prompt enhancement run; its job id is `enhancements.video.<id>`. */
export const videoEnhancementRun = defineRunKind({
  table: 'video_prompt_enhancements',
  job: 'enhancements.video',
  idKey: 'promptEnhancementId',
  change: 'video_prompt_enhancement',
  pool: 'prompt_enhancements',
});

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

export interface VideoEnhancementJobsDeps extends RunJobDeps<'video_prompt_enhancements'> {
  enhancer: VideoEnhancer;
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
  return [
    runJob(videoEnhancementRun, deps, {
      backoffMs: 1000,
      timeoutMs: 120_000,
      async run(row, ctx) {
        const result = await deps.enhancer.enhance(toVideoEnhancementInput(row, enhancedPromptBound(row)), {
          signal: ctx.signal,
        });
        return {
          enhanced_prompt: result.enhancedPrompt,
          camera: result.camera,
          warnings: toJson(result.warnings),
          engine: result.engine,
        };
      },
      failure: () => ({ code: 'ENHANCEMENT_FAILED', message: 'The prompt could not be enhanced; try again' }),
      failedLog: 'video prompt enhancement failed after retries',
    }),
  ];
}

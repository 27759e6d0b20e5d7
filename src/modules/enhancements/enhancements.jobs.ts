import { toJson } from '../../adapters/db/columns.ts';
import type { SceneAspectRatio, SceneEnhancer, ScenePartner } from '../../engines/text/scene-enhancer.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import { toEnhancementInput } from '../generation/enhancement-input.ts';
import { storedInputs } from '../generation/inputs.ts';
import { defineRunKind, type RunJobDeps, runJob } from '../generation/runs.ts';

/** A scene prompt enhancement run; its job id is `enhancements.scene.<id>`. */
export const sceneEnhancementRun = defineRunKind({
  table: 'prompt_enhancements',
  job: 'enhancements.scene',
  idKey: 'promptEnhancementId',
  change: 'scene_prompt_enhancement',
  pool: 'prompt_enhancements',
});

export interface EnhancementJobsDeps extends RunJobDeps<'prompt_enhancements'> {
  enhancer: SceneEnhancer;
}

/**
 * A scene prompt enhancement: the enhancer (OpenAI-compatible chat when configured, falling back
 * to the local rule-based one) rewrites the prompt from the inputs captured at create; the run is
 * completed with optimizedPrompt, theme and warnings and its unit committed. A run that still
 * fails after the retries is `failed` with ENHANCEMENT_FAILED and its unit released.
 */
export function enhancementJobs(deps: EnhancementJobsDeps): JobDefinition[] {
  return [
    runJob(sceneEnhancementRun, deps, {
      backoffMs: 1000,
      timeoutMs: 120_000,
      async run(row, ctx) {
        const inputs = storedInputs(row.context);
        const result = await deps.enhancer.enhance(
          toEnhancementInput(
            row.original_prompt,
            inputs,
            row.partner as ScenePartner,
            (row.aspect_ratio ?? undefined) as SceneAspectRatio | undefined,
          ),
          { signal: ctx.signal },
        );
        return {
          optimized_prompt: result.optimizedPrompt,
          theme: result.theme,
          warnings: toJson(result.warnings),
          engine: result.engine,
        };
      },
      failure: () => ({ code: 'ENHANCEMENT_FAILED', message: 'The prompt could not be enhanced; try again' }),
      failedLog: 'prompt enhancement failed after retries',
    }),
  ];
}

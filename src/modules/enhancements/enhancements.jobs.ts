import { Type } from 'typebox';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { Clock } from '../../clock.ts';
import type { SceneAspectRatio, SceneEnhancer, ScenePartner } from '../../engines/text/scene-enhancer.ts';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import type { GenerationInputs } from '../generation/inputs.ts';
import type { RunsRepo } from '../generation/runs.repo.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { toEnhancementInput } from '../generation/enhancement-input.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

const Payload = Type.Object({ promptEnhancementId: Uuid });

/** The job id is `enhancements.scene.<id>`. */
export const sceneEnhancementJobId = (id: string) => `enhancements.scene.${id}`;
export const sceneEnhancementJob: JobRef<typeof Payload> = { name: 'enhancements.scene', payload: Payload };

export interface EnhancementJobsDeps {
  repo: RunsRepo<'prompt_enhancements'>;
  enhancer: SceneEnhancer;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  clock: Clock;
  changes: ChangePublisher;
}

/**
 * A scene prompt enhancement: the enhancer (OpenAI-compatible chat when configured, falling back
 * to the local rule-based one) rewrites the prompt from the inputs captured at create; the run is
 * completed with optimizedPrompt, theme and warnings and its unit committed. A run that still
 * fails after the retries is `failed` with ENHANCEMENT_FAILED and its unit released.
 */
export function enhancementJobs(deps: EnhancementJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();
  /** Announces the run as it is now (long-poll, webhooks); after the transition committed. */
  const changed = (id: string) => publishChange(deps, 'scene_prompt_enhancement', () => deps.repo.byId(id));
  return [
    defineJob({
      ...sceneEnhancementJob,
      queue: 'generation',
      attempts: 3,
      backoffMs: 1000,
      timeoutMs: 120_000,
      async handler({ promptEnhancementId: id }, ctx) {
        if (!(await deps.repo.start(id, now()))) return;
        const row = await deps.repo.byId(id);
        if (!row) return;
        await publishChange(deps, 'scene_prompt_enhancement', row);
        const inputs = fromJson<GenerationInputs>(row.context, null as never);
        const result = await deps.enhancer.enhance(
          toEnhancementInput(
            row.original_prompt,
            inputs,
            row.partner as ScenePartner,
            (row.aspect_ratio ?? undefined) as SceneAspectRatio | undefined,
          ),
          { signal: ctx.signal },
        );
        const finished = await deps.repo.finish(
          id,
          'completed',
          {
            optimized_prompt: result.optimizedPrompt,
            theme: result.theme,
            warnings: toJson(result.warnings),
            engine: result.engine,
          },
          now(),
        );
        if (finished && row.reservation_id) await deps.usage.commit(row.reservation_id);
        if (finished) await changed(id);
      },
      async onFailed({ promptEnhancementId: id }, error, ctx) {
        ctx.log.error({ promptEnhancementId: id, err: error.message }, 'prompt enhancement failed after retries');
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

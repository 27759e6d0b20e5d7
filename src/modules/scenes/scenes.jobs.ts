import { Type } from 'typebox';
import { toJson } from '../../adapters/db/columns.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import { type AspectRatio, GenerationError, outputSize, type SceneResult } from '../../engines/image/scene-engine.ts';
import sharp from 'sharp';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import { fromJson } from '../../adapters/db/columns.ts';
import type { GenerationInputs } from '../generation/inputs.ts';
import { readInput } from '../generation/inputs.ts';
import { scorePng } from '../generation/scoring.ts';
import type { ForgeRow, ScenesRepo, VariationRow } from './scenes.repo.ts';

const VariationPayload = Type.Object({ variationId: Uuid });

/** One job per variation; the job id is `scenes.variation.<variationId>`. */
export const sceneVariationJob: JobRef<typeof VariationPayload> = {
  name: 'scenes.variation',
  payload: VariationPayload,
};

export interface SceneJobsDeps {
  repo: ScenesRepo;
  storage: Pick<ObjectStorage, 'getStream'>;
  assets: Pick<AssetsService, 'storeGenerated' | 'readGenerated'>;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  engines: GenerationEngines;
  clock: Clock;
  /** Long side of generated images, px. */
  longSide: number;
}

/** A result read back from a stored image (no engine warnings, no mask: they were not kept). */
async function storedResult(png: Buffer): Promise<SceneResult> {
  const meta = await sharp(png).metadata();
  return { png, width: meta.width ?? 0, height: meta.height ?? 0, productBoxes: [], warnings: [], engine: 'stored' };
}

const FAILED_AFTER_RETRIES = 'The image could not be generated after several attempts; try again';

/**
 * A variation: load the forge's inputs → backdrop (the environment asset, or one the environment
 * engine makes from the prompt and palette) → scene engine → store the image as a `complete` asset
 * of the brand → score its pixels → mark the variation terminal and roll the forge up → commit
 * (or release) its image_generations unit. Idempotent: the asset id is fixed per variation
 * (storeGenerated returns the one stored by an earlier run) and a terminal variation is left as
 * it is. An engine's GenerationError fails the variation at once with its reason; any other error
 * is retried, and after the last attempt fails it with a generic reason.
 */
export function sceneJobs(deps: SceneJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();

  async function fail(variationId: string, message: string) {
    const done = await deps.repo.finish(
      variationId,
      'failed',
      { error_code: 'GENERATION_FAILED', error_message: message },
      now(),
    );
    if (done?.reservationId) await deps.usage.release(done.reservationId);
  }

  /** Backdrop (the environment asset, or one made from the prompt and palette), then the scene. */
  async function generate(
    v: VariationRow,
    forge: ForgeRow,
    inputs: GenerationInputs,
    o: { aspectRatio: AspectRatio; width: number; height: number; palette: string[] },
    signal: AbortSignal,
  ): Promise<SceneResult> {
    const products = [];
    for (const p of inputs.products) {
      products.push({
        bytes: await readInput(deps.storage, p),
        ...(p.description ? { description: p.description } : {}),
      });
    }
    let backdrop: Buffer;
    let backdropHints: { horizon: number; lightAngle: number } | undefined;
    if (inputs.environment) {
      backdrop = await readInput(deps.storage, inputs.environment);
    } else {
      const env = await deps.engines.environment.generate({
        prompt: forge.prompt,
        width: o.width,
        height: o.height,
        seed: v.seed,
        palette: o.palette,
        signal,
      });
      backdrop = env.png;
      backdropHints = { horizon: env.horizon, lightAngle: env.lightAngle };
    }
    signal.throwIfAborted();
    return deps.engines.scene.generate({
      prompt: forge.prompt,
      aspectRatio: o.aspectRatio,
      width: o.width,
      height: o.height,
      variationIndex: v.position,
      seed: v.seed,
      products,
      backdrop,
      ...(backdropHints ? { backdropHints } : {}),
      palette: o.palette,
      signal,
    });
  }

  const variation = defineJob({
    ...sceneVariationJob,
    queue: 'generation',
    attempts: 3,
    backoffMs: 2000,
    timeoutMs: 300_000,
    async handler({ variationId }, ctx) {
      if (!(await deps.repo.start(variationId, now()))) return;
      const v = await deps.repo.variationById(variationId);
      const forge = v && (await deps.repo.forgeById(v.scene_forge_id));
      if (!v || !forge) return;
      const inputs = fromJson<GenerationInputs>(forge.context, null as never);
      const aspectRatio = forge.aspect_ratio as AspectRatio;
      const { width, height } = outputSize(aspectRatio, deps.longSide);
      const palette = (inputs.dna?.palette ?? []).map((c) => c.hex);
      try {
        // A run after an earlier one stored the image (and died before finishing) scores that image.
        const stored = await deps.assets.readGenerated(v.asset_id);
        const result = stored
          ? await storedResult(stored)
          : await generate(v, forge, inputs, { aspectRatio, width, height, palette }, ctx.signal);
        ctx.signal.throwIfAborted();
        if (!stored) {
          await deps.assets.storeGenerated({
            orgId: v.organization_id,
            brandId: v.brand_id,
            assetId: v.asset_id,
            png: result.png,
            fileName: `scene-${forge.id.slice(0, 8)}-${v.label.slice(1)}.png`,
            type: 'image',
            description: forge.blending_prompt.slice(0, 500),
            tags: ['generated', 'scene'],
          });
        }
        const scores = await scorePng(result.png, { productMask: result.productMask, palette });
        const warnings: Warning[] = [...fromJson<Warning[]>(v.warnings, []), ...result.warnings];
        const done = await deps.repo.finish(
          variationId,
          'completed',
          {
            width: result.width,
            height: result.height,
            scores: toJson(scores),
            warnings: toJson(warnings),
            engine: result.engine,
          },
          now(),
        );
        if (done?.reservationId) await deps.usage.commit(done.reservationId);
      } catch (err) {
        if (err instanceof GenerationError && !err.retryable) return void (await fail(variationId, err.message));
        throw err;
      }
    },
    async onFailed({ variationId }, error, ctx) {
      ctx.log.error({ variationId, err: error.message }, 'scene variation failed after retries');
      await fail(variationId, error instanceof GenerationError ? error.message : FAILED_AFTER_RETRIES);
    },
  });
  return [variation];
}

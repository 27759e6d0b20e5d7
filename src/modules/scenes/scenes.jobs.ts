import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import {
  type AspectRatio,
  type BackdropHints,
  GenerationError,
  outputSize,
  type SceneResult,
  type SceneSteering,
} from '../../engines/image/scene-engine.ts';
import sharp from 'sharp';
import type { JobDefinition } from '../../jobs/types.ts';
import { layerKey } from '../assets/assets.keys.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { Scores, Warning } from '../generation/generation.schemas.ts';
import { type GenerationInputs, readInput, storedInputs } from '../generation/inputs.ts';
import { sceneProvenance } from '../generation/provenance.ts';
import { type ForgeRow, IMAGE_POOL, type RefinementRow, type ScenesRepo, type VariationRow } from './scenes.repo.ts';
import { buildCritique } from '../../engines/critique/critique.ts';
import type { ImageFeatures } from '../../engines/critique/features.ts';
import type { ScoreName } from '../../engines/critique/scores.ts';
import { defineRunKind } from '../generation/runs.ts';
import { type VariationJobDeps, variationJob } from '../generation/variations.ts';

/** A scene variation (of a forge or a refinement): one job each, `scenes.variation.<variationId>`; one image_generations unit. */
export const sceneVariationRun = defineRunKind({
  table: 'generated_images',
  job: 'scenes.variation',
  idKey: 'variationId',
  change: 'scene_forge',
  pool: IMAGE_POOL,
});

export interface SceneJobsDeps extends VariationJobDeps<ForgeRow, VariationRow> {
  repo: ScenesRepo;
  storage: Pick<ObjectStorage, 'getStream' | 'put'>;
  assets: Pick<AssetsService, 'storeGenerated' | 'readGenerated'>;
  engines: GenerationEngines;
  /** Long side of generated images, px. */
  longSide: number;
}

/** A result read back from a stored image (no engine warnings, no mask: they were not kept). */
async function storedResult(png: Buffer): Promise<SceneResult> {
  const meta = await sharp(png).metadata();
  return { png, width: meta.width ?? 0, height: meta.height ?? 0, productBoxes: [], warnings: [], engine: 'stored' };
}

/** Layouts of the local engine; a variation's position picks one, modulo this. */
export const LAYOUTS = 4;

/** Steering as stored with a refinement: the logo without its bytes (taken from the brand's logo asset). */
export type StoredSteering = Omit<SceneSteering, 'logo'> & { logo?: { placement?: 'corner' | 'backdrop' } };

/** Each score minus the source's, one decimal. */
export function scoreDeltas(scores: Scores, source: Scores): Scores {
  const d = (k: keyof Scores) => Math.round((scores[k] - source[k]) * 10) / 10;
  return {
    attention_potential: d('attention_potential'),
    conversion: d('conversion'),
    brand_awareness: d('brand_awareness'),
  };
}

const FAILED_AFTER_RETRIES = 'The image could not be generated after several attempts; try again';

/**
 * A variation: load the forge's inputs → backdrop (the environment asset, or one the environment
 * engine makes from the prompt and palette) → scene engine → store its layers (when the engine
 * gives them, for videos made from it) and the image as a `complete` asset of the brand → score
 * its pixels → mark the variation terminal and roll the forge up → commit (or release) its
 * image_generations unit. Idempotent: the asset id is fixed per variation (storeGenerated returns
 * the one stored by an earlier run; the layers are put under keys of that id, replaced, never
 * added to) and a terminal variation is left as it is. An engine's GenerationError fails the
 * variation at once with its reason; any other error is retried, and after the last attempt fails
 * it with a generic reason.
 */
export function sceneJobs(deps: SceneJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();

  /** Backdrop (the environment asset, or one made from the prompt and palette), then the scene. */
  async function generate(
    v: VariationRow,
    forge: ForgeRow,
    inputs: GenerationInputs,
    o: { aspectRatio: AspectRatio; width: number; height: number; palette: string[]; steering?: SceneSteering },
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
    let backdropHints: BackdropHints | undefined;
    let backdropWarnings: SceneResult['warnings'] = [];
    if (inputs.environment) {
      backdrop = await readInput(deps.storage, inputs.environment);
    } else {
      const env = await deps.engines.environment.generate({
        prompt: forge.prompt,
        width: o.width,
        height: o.height,
        seed: v.seed,
        palette: o.palette,
        // The set shot as the variation's layout will place the products (a refinement: its source's).
        variationIndex: o.steering?.baseLayout ?? v.position % LAYOUTS,
        signal,
      });
      backdrop = env.png;
      backdropHints = {
        horizon: env.horizon,
        lightAngle: env.lightAngle,
        ...(env.light ? { light: env.light } : {}),
        ...(env.camera !== undefined ? { camera: env.camera } : {}),
      };
      backdropWarnings = env.warnings;
    }
    signal.throwIfAborted();
    const result = await deps.engines.scene.generate({
      // A refinement's variations carry the prompt with the critique's patches.
      prompt: v.refinement_id ? v.blending_prompt : forge.prompt,
      aspectRatio: o.aspectRatio,
      width: o.width,
      height: o.height,
      variationIndex: v.position % LAYOUTS,
      ...(o.steering ? { steering: o.steering } : {}),
      seed: v.seed,
      products,
      backdrop,
      ...(backdropHints ? { backdropHints } : {}),
      palette: o.palette,
      signal,
    });
    // What the environment engine said of the set it made (a subject it could not draw...) is the
    // variation's to know when the local scene engine kept that set; a provider redraws the scene.
    if (result.engine !== 'local' || backdropWarnings.length === 0) return result;
    return { ...result, warnings: [...backdropWarnings, ...result.warnings] };
  }

  /** A scene's layers (the local engine's plate and product layer) next to its image, for videos made from it. */
  async function storeLayers(orgId: string, assetId: string, layers: NonNullable<SceneResult['layers']>) {
    const info = Buffer.from(JSON.stringify({ horizon: layers.horizon ?? null }));
    await deps.storage.put(layerKey(orgId, assetId, 'plate'), layers.plate, {
      contentType: 'image/png',
      contentLength: layers.plate.length,
    });
    await deps.storage.put(layerKey(orgId, assetId, 'product'), layers.product, {
      contentType: 'image/png',
      contentLength: layers.product.length,
    });
    await deps.storage.put(layerKey(orgId, assetId, 'info'), info, {
      contentType: 'application/json',
      contentLength: info.length,
    });
  }

  /** A refinement's stored levers, with the brand logo's bytes put back when they name it. */
  async function steeringOf(refinement: RefinementRow, inputs: GenerationInputs): Promise<SceneSteering> {
    const stored = fromJson<StoredSteering>(refinement.steering, {});
    const { logo, ...rest } = stored;
    if (!logo || !inputs.brand.logo) return rest;
    return {
      ...rest,
      logo: {
        bytes: await readInput(deps.storage, inputs.brand.logo),
        ...(logo.placement ? { placement: logo.placement } : {}),
      },
    };
  }

  /** The critique of a completed variation: `completed` with the object, or `failed` (logged). */
  function critiqueOf(
    features: ImageFeatures,
    scores: Scores,
    forge: ForgeRow,
    inputs: GenerationInputs,
    refinement: RefinementRow | undefined,
  ): { status: string; body: string | null } {
    try {
      const critique = buildCritique({
        features,
        scores,
        campaignId: forge.id,
        ...(refinement ? { objective: refinement.steer_objective as ScoreName } : {}),
        prompt: forge.prompt,
        createdAt: now(),
        palette: (inputs.dna?.palette ?? []).map((c) => c.hex),
        brandTone: inputs.dna?.tone ?? [],
      });
      return { status: 'completed', body: toJson(critique) };
    } catch {
      return { status: 'failed', body: null };
    }
  }

  const variation = variationJob(sceneVariationRun, deps, {
    timeoutMs: 300_000,
    async run(v, forge, ctx) {
      const inputs = storedInputs(forge.context);
      const aspectRatio = forge.aspect_ratio as AspectRatio;
      const { width, height } = outputSize(aspectRatio, deps.longSide);
      const palette = (inputs.dna?.palette ?? []).map((c) => c.hex);
      const refinement = v.refinement_id ? await deps.repo.refinementById(v.refinement_id) : undefined;
      const steering = refinement ? await steeringOf(refinement, inputs) : undefined;
      // A run after an earlier one stored the image (and died before finishing) scores that image.
      const stored = await deps.assets.readGenerated(v.asset_id);
      const result = stored
        ? await storedResult(stored)
        : await generate(
            v,
            forge,
            inputs,
            { aspectRatio, width, height, palette, ...(steering ? { steering } : {}) },
            ctx.signal,
          );
      ctx.signal.throwIfAborted();
      if (!stored) {
        // The layers first: a run that dies between the two stores them again (same keys), never
        // leaving an image without them.
        if (result.layers) await storeLayers(v.organization_id, v.asset_id, result.layers);
        await deps.assets.storeGenerated({
          orgId: v.organization_id,
          brandId: v.brand_id,
          assetId: v.asset_id,
          png: result.png,
          fileName: `scene-${forge.id.slice(0, 8)}-${v.label.slice(1)}.png`,
          type: 'image',
          description: forge.blending_prompt.slice(0, 500),
          tags: ['generated', 'scene'],
          provenance: sceneProvenance(
            result,
            inputs,
            v.refinement_id ? 'A refinement of a scene variation' : 'A scene variation of the product',
          ),
        });
      }
      const logoAsset = inputs.brand.logo
        ? await readInput(deps.storage, inputs.brand.logo).catch(() => undefined)
        : undefined;
      const { scores, features } = await deps.engines.analyze(result.png, {
        productMask: result.productMask,
        palette,
        ...(result.logoBoxes ? { logoBoxes: result.logoBoxes } : {}),
        logoAsset,
      });
      const sourceScores = refinement?.source_scores
        ? fromJson<Scores>(refinement.source_scores, null as never)
        : undefined;
      const critique = v.critique_status === null ? undefined : critiqueOf(features, scores, forge, inputs, refinement);
      const warnings: Warning[] = [...fromJson<Warning[]>(v.warnings, []), ...result.warnings];
      return {
        width: result.width,
        height: result.height,
        scores: toJson(scores),
        ...(sourceScores ? { score_deltas: toJson(scoreDeltas(scores, sourceScores)) } : {}),
        warnings: toJson(warnings),
        engine: result.engine,
        ...(critique ? { critique_status: critique.status, critique: critique.body } : {}),
      };
    },
    failedMessage: (error) => (error instanceof GenerationError ? error.message : FAILED_AFTER_RETRIES),
    failedLog: 'scene variation failed after retries',
  });
  return [variation];
}

import type { DigitalSourceType } from '../../adapters/provenance/manifest.ts';
import type { AssetInput } from './inputs.ts';

/**
 * What a generation says about the file it stores (Content Credentials, src/adapters/provenance):
 * the IPTC digital source type that is true of the engine that made it, and how its inputs went
 * into it. The choices (docs/decisions/generation.md, "Content Credentials"):
 * - the local scene and video engines composite the real product photo (and the backdrop or the
 *   start frame) with pixels computed without a trained model: `compositeSynthetic`, every input a
 *   `componentOf` ingredient with a `c2pa.placed` action;
 * - the local environment engine draws a procedural set: `algorithmicMedia`;
 * - a provider's model draws the whole picture: `trainedAlgorithmicMedia`, its inputs `inputTo`;
 *   when the fidelity check composited the real product back over it (PRODUCT_RECOMPOSITED):
 *   `compositeWithTrainedAlgorithmicMedia` and the products `componentOf`.
 */
export interface GeneratedProvenance {
  sourceType: DigitalSourceType;
  engine: string;
  model?: string;
  description: string;
  ingredients: { input: AssetInput; relationship: 'componentOf' | 'inputTo' }[];
}

/** The model part of an engine name (`openai-images:gpt-image-1+fidelity` → `gpt-image-1`). */
export function modelOf(engine: string): string | undefined {
  const base = engine.replace(/\+fidelity$/, '');
  const at = base.indexOf(':');
  return at > 0 ? base.slice(at + 1) : undefined;
}

const isLocal = (engine: string) => engine === 'local' || engine === 'stored';

/** A scene variation: the products (and the environment asset when one was given). */
export function sceneProvenance(
  result: { engine: string; warnings: { code: string }[] },
  inputs: { products: AssetInput[]; environment?: AssetInput | undefined },
  description: string,
): GeneratedProvenance {
  const model = modelOf(result.engine);
  const recomposited = result.warnings.some((w) => w.code === 'PRODUCT_RECOMPOSITED');
  const local = isLocal(result.engine);
  const productRel = local || recomposited ? 'componentOf' : 'inputTo';
  return {
    sourceType: local
      ? 'compositeSynthetic'
      : recomposited
        ? 'compositeWithTrainedAlgorithmicMedia'
        : 'trainedAlgorithmicMedia',
    engine: result.engine,
    ...(model ? { model } : {}),
    description,
    ingredients: [
      ...inputs.products.map((input) => ({ input, relationship: productRel }) as const),
      ...(inputs.environment
        ? [{ input: inputs.environment, relationship: local ? 'componentOf' : 'inputTo' } as const]
        : []),
    ],
  };
}

/** An environment: no inputs; procedural when local. */
export function environmentProvenance(engine: string, description: string): GeneratedProvenance {
  const model = modelOf(engine);
  return {
    sourceType: isLocal(engine) ? 'algorithmicMedia' : 'trainedAlgorithmicMedia',
    engine,
    ...(model ? { model } : {}),
    description,
    ingredients: [],
  };
}

/** A video: the start and end frames, intermediate frames and reference images. */
export function videoProvenance(
  engine: string,
  inputs: { start?: AssetInput; end?: AssetInput; intermediate: AssetInput[]; referenceImages: AssetInput[] },
  description: string,
): GeneratedProvenance {
  const model = modelOf(engine);
  const local = isLocal(engine);
  const frames = [inputs.start, inputs.end, ...inputs.intermediate].filter((x): x is AssetInput => x !== undefined);
  const rel = local ? 'componentOf' : 'inputTo';
  return {
    // The local engine moves a camera over its frames; with no frame at all it draws procedurally.
    sourceType: local ? (frames.length ? 'compositeSynthetic' : 'algorithmicMedia') : 'trainedAlgorithmicMedia',
    engine,
    ...(model ? { model } : {}),
    description,
    ingredients: [
      ...frames.map((input) => ({ input, relationship: rel }) as const),
      ...inputs.referenceImages.map((input) => ({ input, relationship: 'inputTo' }) as const),
    ],
  };
}

import type { SceneAspectRatio, SceneEnhancementInput, ScenePartner } from '../../engines/text/scene-enhancer.ts';
import type { AssetInput, GenerationInputs } from './inputs.ts';

const assetContext = (a: AssetInput) => ({
  ...(a.description ? { description: a.description } : {}),
  tags: a.tags,
  colors: a.colors,
});

/** What the scene enhancer reads, from a generation's resolved inputs (pure). */
export function toEnhancementInput(
  originalPrompt: string,
  inputs: GenerationInputs,
  partner: ScenePartner,
  aspectRatio?: SceneAspectRatio,
): SceneEnhancementInput {
  return {
    originalPrompt,
    ...(aspectRatio ? { aspectRatio } : {}),
    products: inputs.products.map((p) => ({ ...assetContext(p), fileName: p.fileName })),
    ...(inputs.environment ? { environment: assetContext(inputs.environment) } : {}),
    ...(inputs.dna
      ? {
          brand: {
            name: inputs.brand.name,
            industry: inputs.brand.industry,
            tone: inputs.dna.tone,
            palette: inputs.dna.palette,
            imageryStyle: inputs.dna.imageryStyle,
            wordsToAvoid: inputs.dna.wordsToAvoid,
          },
        }
      : {}),
    partner,
  };
}

import type {
  SceneAspectRatio,
  SceneBrandContext,
  SceneEnhancementInput,
  ScenePartner,
} from '../../engines/text/scene-enhancer.ts';
import type { AssetInput, DnaInput, GenerationInputs } from './inputs.ts';

/** What an enhancer reads of an input asset: its words and colours. */
export const assetContext = (a: AssetInput) => ({
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
    ...(inputs.dna ? { brand: brandContext(inputs.brand, inputs.dna) } : {}),
    partner,
  };
}

/** The brand as enhancers read it, from the brand and its active DNA. */
export function brandContext(brand: { name: string; industry: string }, dna: DnaInput): SceneBrandContext {
  return {
    name: brand.name,
    industry: brand.industry,
    tone: dna.tone,
    palette: dna.palette,
    imageryStyle: dna.imageryStyle,
    wordsToAvoid: dna.wordsToAvoid,
  };
}

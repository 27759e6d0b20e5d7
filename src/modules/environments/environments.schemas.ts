import { type Static, Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';
import { GenerationAssetRef, Lifecycle, Prompt } from '../generation/generation.schemas.ts';

export const CreateEnvironmentBody = Type.Object(
  { prompt: Prompt('The backdrop to generate: surface, setting, light, mood') },
  { additionalProperties: false },
);
export type CreateEnvironmentBody = Static<typeof CreateEnvironmentBody>;

export const EnvironmentGeneration = Type.Object(
  {
    environmentGenerationId: Uuid,
    brandId: Uuid,
    prompt: Type.String(),
    generatedAsset: Type.Optional({
      ...GenerationAssetRef,
      description: 'Once completed: a complete asset of type `environment`, usable as a forge’s environmentAssetId',
    }),
    ...Lifecycle,
  },
  { title: 'EnvironmentGeneration' },
);
export type EnvironmentGeneration = Static<typeof EnvironmentGeneration>;

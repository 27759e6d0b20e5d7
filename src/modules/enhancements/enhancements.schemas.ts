import { type Static, Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';
import { AspectRatio, Lifecycle, Partner, ProductAssetIds, Prompt, Warning } from '../generation/generation.schemas.ts';

export const CreateSceneEnhancementBody = Type.Object(
  {
    originalPrompt: Prompt('The prompt to enhance'),
    productAssetIds: Type.Optional(ProductAssetIds),
    environmentAssetId: Type.Optional(Type.Union([Uuid, Type.Null()])),
    useBrandDna: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description: 'Default true on plans with Brand DNA (false without it; true there is 403)',
      }),
    ),
    partner: Type.Optional(Partner),
    aspectRatio: Type.Optional(
      Type.Union([AspectRatio, Type.Null()], {
        description:
          'Atelier extension: the forge’s intended aspect ratio, so the enhancement can warn (HARDSPEC_ASPECT_MISMATCH) and word the composition for it',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSceneEnhancementBody = Static<typeof CreateSceneEnhancementBody>;

export const SceneEnhancement = Type.Object(
  {
    promptEnhancementId: Uuid,
    brandId: Uuid,
    originalPrompt: Type.String({ description: 'Kept so a client can undo' }),
    optimizedPrompt: Type.Optional(Type.String({ description: 'Once completed' })),
    theme: Type.Optional(Type.String({ description: 'Once completed: a short name for the creative direction' })),
    useBrandDna: Type.Boolean(),
    partner: Partner,
    warnings: Type.Array(Warning),
    ...Lifecycle,
  },
  { title: 'ScenePromptEnhancement' },
);
export type SceneEnhancement = Static<typeof SceneEnhancement>;

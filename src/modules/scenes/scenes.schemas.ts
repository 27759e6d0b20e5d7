import { sortValues } from '../../http/pagination.ts';
import { type Static, Type } from 'typebox';
import { Critique } from '../../engines/critique/critique.schema.ts';
import { StringEnum, Uuid } from '../../http/schemas.ts';
import {
  AspectRatio,
  DateTime,
  GenerationAssetRef,
  GenerationStatus,
  Lifecycle,
  ListPagination,
  PageQuery,
  Partner,
  PartnerFilter,
  ProductAssetIds,
  Prompt,
  ScoreDeltas,
  Scores,
  Timestamps,
  Warning,
} from '../generation/generation.schemas.ts';

export const THEME_MAX = 500;

export const CreateSceneForgeBody = Type.Object(
  {
    blendingPrompt: Prompt('What the scene should show'),
    promptIsEnhanced: Type.Boolean({
      description:
        'true only when blendingPrompt is exactly the optimizedPrompt of a completed scene prompt enhancement of this brand; ' +
        'undo and manual edits mean false. A true that matches no enhancement is treated as false (warning PROMPT_NOT_ENHANCED).',
    }),
    partner: Type.Optional(Partner),
    theme: Type.Optional(Type.Union([Type.String({ maxLength: THEME_MAX }), Type.Null()])),
    aspectRatio: Type.Optional(Type.Union([AspectRatio, Type.Null()], { description: 'Default 1:1' })),
    productAssetIds: Type.Optional(ProductAssetIds),
    environmentAssetId: Type.Optional(Type.Union([Uuid, Type.Null()])),
    useBrandDna: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description: 'Default true on plans with Brand DNA (false without it; true there is 403)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSceneForgeBody = Static<typeof CreateSceneForgeBody>;

export const Variation = Type.Object(
  {
    generatedImageId: Uuid,
    sceneForgeId: Uuid,
    sourceVariationId: Type.Optional(Uuid),
    refinementId: Type.Optional(Uuid),
    generation: Type.Integer({ minimum: 1 }),
    label: Type.String({ description: '#1, #2, ...' }),
    status: GenerationStatus,
    blendingPrompt: Type.String(),
    asset: Type.Optional(GenerationAssetRef),
    width: Type.Optional(Type.Integer()),
    height: Type.Optional(Type.Integer()),
    liked: Type.Boolean(),
    disliked: Type.Boolean(),
    scores: Type.Optional(Scores),
    scoreDeltas: Type.Optional(ScoreDeltas),
    errorCode: Type.Optional(Type.String()),
    errorMessage: Type.Optional(Type.String()),
    ...Timestamps,
    warnings: Type.Array(Warning),
    critiqueStatus: Type.Optional(Type.String()),
    critique: Type.Optional(Critique),
  },
  { title: 'Variation' },
);
export type Variation = Static<typeof Variation>;

export const Refinement = Type.Object(
  {
    refinementId: Uuid,
    generation: Type.Integer({ minimum: 2 }),
    steerObjective: Type.String(),
    sourceVariation: Type.Object({
      generatedImageId: Uuid,
      label: Type.String(),
      asset: Type.Optional(GenerationAssetRef),
      scores: Type.Optional(Scores),
      sourceDeleted: Type.Boolean(),
    }),
    steeringApplied: StringEnum(['applied', 'partial', 'none'] as const, {
      description:
        'applied: every lever the critique asked for; partial: some could not be (e.g. no brand logo); none: nothing to steer',
    }),
    levers: Type.Array(Type.String(), { description: 'What the engine was told to change' }),
    promptPatches: Type.Array(Type.String(), { description: 'Critique patches appended to the prompt' }),
    status: GenerationStatus,
    variations: Type.Array(Variation),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'Refinement' },
);
export type Refinement = Static<typeof Refinement>;

export const SceneForge = Type.Object(
  {
    sceneForgeId: Uuid,
    brandId: Uuid,
    partner: Partner,
    blendingPrompt: Type.String({ description: 'The prompt as submitted' }),
    prompt: Type.String({ description: 'The prompt the engine received' }),
    originalPrompt: Type.String(),
    promptIsEnhanced: Type.Boolean(),
    aspectRatio: AspectRatio,
    theme: Type.Optional(Type.String()),
    productAssets: Type.Array(GenerationAssetRef),
    environmentAsset: Type.Optional(GenerationAssetRef),
    assetSource: Type.Object({
      productAssets: Type.Array(GenerationAssetRef),
      environmentAsset: Type.Optional(GenerationAssetRef),
    }),
    variations: Type.Array(Variation, { description: 'The four variations of generation 1' }),
    refinedVariations: Type.Array(Refinement),
    useBrandDna: Type.Boolean(),
    ...Lifecycle,
  },
  { title: 'SceneForge' },
);
export type SceneForge = Static<typeof SceneForge>;

export const ListSceneForgesQuery = Type.Object({
  partner: PartnerFilter,
  ...PageQuery,
  sort: Type.Optional(
    StringEnum(sortValues(['createdAt', 'updatedAt'] as const), {
      description: 'The one sort vocabulary of lists (as GET /brands): `-updatedAt` = sortBy updatedAt, sortOrder desc',
    }),
  ),
  status: Type.Optional(GenerationStatus),
});
export type ListSceneForgesQuery = Static<typeof ListSceneForgesQuery>;

export const SceneForgeList = Type.Object(
  { data: Type.Array(SceneForge), pagination: ListPagination },
  { title: 'SceneForgeList' },
);

export const VariationParams = Type.Object({ id: Uuid, generatedImageId: Uuid });

export const ReactBody = Type.Object(
  {
    liked: Type.Optional(Type.Boolean()),
    disliked: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'liked and disliked exclude each other: setting one true clears the other; both true is 400',
  },
);
export type ReactBody = Static<typeof ReactBody>;

export const STEER_OBJECTIVES = ['attention_potential', 'conversion', 'brand_awareness'] as const;
export type SteerObjective = (typeof STEER_OBJECTIVES)[number];
export const MAX_REFINEMENT_VARIATIONS = 4;

export const RefineBody = Type.Object(
  {
    generatedImageId: Uuid,
    steerObjective: Type.Optional(
      StringEnum(STEER_OBJECTIVES, { default: 'attention_potential', description: 'The score to raise' }),
    ),
    variationCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REFINEMENT_VARIATIONS,
        default: 2,
        description: 'Variations to make (one image_generations unit each)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RefineBody = Static<typeof RefineBody>;

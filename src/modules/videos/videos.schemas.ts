import { sortValues } from '../../http/pagination.ts';
import { type Static, Type } from 'typebox';
import { StringEnum, Uuid } from '../../http/schemas.ts';
import {
  DateTime,
  GenerationAssetRef,
  GenerationStatus,
  Lifecycle,
  ListPagination,
  PageQuery,
  Partner,
  PartnerFilter,
  Timestamps,
  Warning,
} from '../generation/generation.schemas.ts';
import {
  MAX_INTERMEDIATE_FRAMES,
  MAX_REFERENCE_IMAGES,
  MAX_REFERENCE_VIDEOS,
  MAX_VIDEO_DURATION_SECONDS,
  MIN_INTERMEDIATE_FRAMES,
  VIDEO_MODELS,
  VIDEO_PROMPT_MAX_CHARS,
} from './video-models.ts';

/**
 * Schemas of video generation and image-to-video prompt enhancement. The JSON schema checks
 * shapes and absolute bounds; the per-model, per-tier and per-asset rules are video-rules.ts.
 */

export const VideoModel = StringEnum(VIDEO_MODELS, {
  description:
    'Video model (default video-model-7). video-model-1: start frame only, 5/10 s; -2: + end frame; -3: with audio, 4–8 s; ' +
    '-4: audio + end frame, 4–8 s; -5: end frame, 5/10 s; -6: audio, 6/10 s; -7: end frame, audio, up to 4K, 5–10 s; ' +
    '-8: from reference images/videos, no start frame, 6–30 s; -9: end frame, audio, up to 4K, 4–10 s; ' +
    'optimized: end frame and 1–5 intermediate frames, 5–30 s.',
});
export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16'] as const;
/** Most prompts any model takes (video-model-8: 2). */
export const MAX_USER_PROMPTS = 4;
/** Sides of `dimension` over every model (each model narrows them). */
export const DIMENSION_MIN = 256;
export const DIMENSION_MAX = 3840;
/** Image-to-video enhancement prompt, the schema's bound: 5000 (video-model-8); videoPromptMax narrows it per model. */
export const VIDEO_ENHANCEMENT_PROMPT_MAX_MODEL_8 = 5000;

const NullableId = (description: string) => Type.Optional(Type.Union([Uuid, Type.Null()], { description }));
const ReferenceImages = Type.Array(Uuid, {
  maxItems: MAX_REFERENCE_IMAGES,
  description: 'video-model-8 only: JPEG/PNG pictures (image, logo or environment), `uploaded` suffices; in order',
});
const ReferenceVideos = Type.Array(Uuid, {
  maxItems: MAX_REFERENCE_VIDEOS,
  description: 'video-model-8 only, top tiers: MP4/QuickTime 1.8–30.2 s each, ≤ 30 s combined, 23.8–60 FPS',
});
const IntermediateFrames = (description: string) =>
  Type.Array(Uuid, { minItems: MIN_INTERMEDIATE_FRAMES, maxItems: MAX_INTERMEDIATE_FRAMES, description });
const Duration = Type.Integer({
  minimum: 1,
  maximum: MAX_VIDEO_DURATION_SECONDS,
  description: 'Seconds; the model’s default when omitted (video-model-8: 6, 8, 10, 15, 20 or 30)',
});

export const GenerateVideoBody = Type.Object(
  {
    startImageAssetId: NullableId(
      'The first frame: required for every model but video-model-8 (rejected there); `complete`',
    ),
    endImageAssetId: NullableId('The last frame, for models that support it; rejected for video-model-8'),
    referenceImageAssetIds: Type.Optional(ReferenceImages),
    referenceVideoAssetIds: Type.Optional(ReferenceVideos),
    intermediateImageAssetIds: Type.Optional(
      IntermediateFrames('optimized only: frames in temporal order; how many depends on the duration'),
    ),
    userPrompts: Type.Array(Type.String({ minLength: 1, maxLength: VIDEO_PROMPT_MAX_CHARS }), {
      minItems: 1,
      maxItems: MAX_USER_PROMPTS,
      description: 'One variation per prompt (at most 4; video-model-8: 2)',
    }),
    dimension: Type.Object(
      {
        width: Type.Integer({ minimum: DIMENSION_MIN, maximum: DIMENSION_MAX }),
        height: Type.Integer({ minimum: DIMENSION_MIN, maximum: DIMENSION_MAX }),
      },
      { additionalProperties: false, description: 'Output size in px: even sides, 256..1920 (3840 for some models)' },
    ),
    enableAudio: Type.Optional(Type.Boolean({ description: 'Default false; rejected for models without audio' })),
    model: Type.Optional(VideoModel),
    duration: Type.Optional(Duration),
    promptIsEnhanced: Type.Optional(
      Type.Boolean({
        description:
          'Default false; true only when every prompt is exactly the enhancedPrompt of a completed image-to-video enhancement of this brand',
      }),
    ),
    useBrandDna: Type.Optional(Type.Boolean({ description: 'Default false' })),
    partner: Type.Optional(Partner),
  },
  { additionalProperties: false },
);
export type GenerateVideoBody = Static<typeof GenerateVideoBody>;

/** The Error object of a failed group or variation. */
export const VideoError = Type.Union(
  [Type.Object({ code: Type.String({ description: 'e.g. GENERATION_FAILED' }), message: Type.String() }), Type.Null()],
  { title: 'VideoError' },
);
export type VideoError = Static<typeof VideoError>;

export const GeneratedVideo = Type.Object(
  {
    generatedVideoId: Uuid,
    assetId: Type.String({ format: 'uuid', description: 'The `video` asset this variation becomes' }),
    status: GenerationStatus,
    prompt: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    enableAudio: Type.Boolean(),
    model: VideoModel,
    duration: Type.Integer(),
    asset: Type.Optional(GenerationAssetRef),
    previewUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'Signed link to a short low-resolution MP4 once completed; always null for video-model-8 groups',
    }),
    camera: Type.Optional(Type.String({ description: 'The camera move the engine chose' })),
    warnings: Type.Array(Warning),
    error: VideoError,
    createdAt: DateTime,
    updatedAt: DateTime,
    generatedAt: Type.Optional(DateTime),
    failedAt: Type.Optional(DateTime),
  },
  { title: 'GeneratedVideo' },
);
export type GeneratedVideo = Static<typeof GeneratedVideo>;

export const GeneratedVideosGroup = Type.Object(
  {
    generatedVideosGroupId: Uuid,
    brandId: Uuid,
    partner: Partner,
    sourceAsset: Type.Union([GenerationAssetRef, Type.Null()], {
      description: 'The start frame; null for reference-to-video (video-model-8) groups',
    }),
    endFrameAsset: Type.Union([GenerationAssetRef, Type.Null()]),
    intermediateFrameAssets: Type.Array(GenerationAssetRef),
    referenceImageAssets: Type.Array(GenerationAssetRef, { description: 'In the order sent' }),
    referenceVideoAssets: Type.Array(GenerationAssetRef, { description: 'In the order sent' }),
    status: GenerationStatus,
    prompt: Type.String({ description: 'The first prompt; each variation has its own' }),
    promptIsEnhanced: Type.Boolean(),
    dimension: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
    enableAudio: Type.Boolean(),
    useBrandDna: Type.Boolean(),
    model: VideoModel,
    duration: Type.Integer({ description: 'Seconds' }),
    variations: Type.Array(GeneratedVideo, { description: 'One per submitted prompt, in order' }),
    error: VideoError,
    ...Timestamps,
  },
  { title: 'GeneratedVideosGroup' },
);
export type GeneratedVideosGroup = Static<typeof GeneratedVideosGroup>;

export const GeneratedVideosGroupList = Type.Object(
  { data: Type.Array(GeneratedVideosGroup), pagination: ListPagination },
  { title: 'GeneratedVideosGroupList' },
);
export type GeneratedVideosGroupList = Static<typeof GeneratedVideosGroupList>;

export const ListVideoGroupsQuery = Type.Object({
  partner: PartnerFilter,
  page: PageQuery.page,
  limit: PageQuery.limit,
  sortBy: StringEnum(['createdAt'] as const, { default: 'createdAt' }),
  sortOrder: PageQuery.sortOrder,
  sort: Type.Optional(
    StringEnum(sortValues(['createdAt'] as const), {
      description:
        'The one sort vocabulary of lists (as GET /brands): `createdAt` oldest first, `-createdAt` newest first',
    }),
  ),
});
export type ListVideoGroupsQuery = Static<typeof ListVideoGroupsQuery>;

export const GroupParams = Type.Object({ generatedVideosGroupId: Uuid });

export const CreateVideoEnhancementBody = Type.Object(
  {
    startFrameAssetId: NullableId('Required except for video-model-8 (rejected there); `complete`'),
    endFrameAssetId: NullableId('Optional; rejected for video-model-8 and models without end frames'),
    referenceImageAssetIds: Type.Optional(ReferenceImages),
    referenceVideoAssetIds: Type.Optional(ReferenceVideos),
    intermediateFrameAssetIds: Type.Optional(IntermediateFrames('optimized only, in temporal order')),
    originalPrompt: Type.String({
      minLength: 1,
      maxLength: VIDEO_ENHANCEMENT_PROMPT_MAX_MODEL_8,
      description: '1..2500 characters, or up to 5000 for video-model-8',
    }),
    aspectRatio: StringEnum(VIDEO_ASPECT_RATIOS),
    model: VideoModel,
    duration: Type.Optional(Duration),
    enableAudio: Type.Optional(Type.Boolean({ description: 'Default false: the prompt then has no audio cues' })),
    useBrandDna: Type.Optional(Type.Boolean({ description: 'Default false' })),
  },
  { additionalProperties: false },
);
export type CreateVideoEnhancementBody = Static<typeof CreateVideoEnhancementBody>;

export const VideoEnhancement = Type.Object(
  {
    promptEnhancementId: Uuid,
    brandId: Uuid,
    startFrameAssetId: Type.Union([Uuid, Type.Null()]),
    endFrameAssetId: Type.Union([Uuid, Type.Null()]),
    referenceImageAssetIds: Type.Array(Uuid),
    referenceVideoAssetIds: Type.Array(Uuid),
    intermediateFrameAssetIds: Type.Array(Uuid),
    originalPrompt: Type.String({ description: 'Kept so a client can undo' }),
    aspectRatio: StringEnum(VIDEO_ASPECT_RATIOS),
    model: VideoModel,
    duration: Type.Integer({ description: 'Seconds (the model’s default when omitted)' }),
    enhancedPrompt: Type.Optional(Type.String({ description: 'Once completed' })),
    camera: Type.Optional(Type.String({ description: 'Once completed: the camera move the prompt names' })),
    warnings: Type.Array(Warning),
    enableAudio: Type.Boolean(),
    useBrandDna: Type.Boolean(),
    ...Lifecycle,
    errorCode: Type.Optional(Type.String({ description: 'e.g. ENHANCEMENT_FAILED' })),
  },
  { title: 'ImageToVideoPromptEnhancement' },
);
export type VideoEnhancement = Static<typeof VideoEnhancement>;

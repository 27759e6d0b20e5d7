import { type Static, Type } from 'typebox';
import { MAX_PAGE } from '../../http/pagination.ts';
import { StringEnum, Uuid } from '../../http/schemas.ts';
import { ASPECT_RATIOS } from '../../engines/image/scene-engine.ts';

/** Shared schemas of the generation resources (scene forges, environments, enhancements). */

export const GENERATION_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];
export const GenerationStatus = StringEnum(GENERATION_STATUSES);

export const PARTNERS = ['default', 'partner-1', 'partner-2', 'partner-3'] as const;
export type Partner = (typeof PARTNERS)[number];
export const Partner = StringEnum(PARTNERS, { description: 'Retail partner the creative is for' });

export const AspectRatio = StringEnum(ASPECT_RATIOS);

export const DateTime = Type.String({ format: 'date-time' });

/** The spec's prompt bounds for scene forges, environments and scene enhancements. */
export const PROMPT_MAX = 2500;
export const Prompt = (description: string) => Type.String({ minLength: 1, maxLength: PROMPT_MAX, description });
export const MAX_PRODUCT_ASSETS = 5;
export const ProductAssetIds = Type.Array(Uuid, {
  maxItems: MAX_PRODUCT_ASSETS,
  description: 'Product assets of your organization, `complete`; shown in request order',
});

export const WARNING_SEVERITIES = ['info', 'warning'] as const;
export const Warning = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    severity: StringEnum(WARNING_SEVERITIES),
    layerId: Type.Optional(Type.String()),
    field: Type.Optional(Type.String()),
  },
  { title: 'GenerationWarning' },
);
export type Warning = Static<typeof Warning>;

/** A referenced asset; generated results also carry fresh signed links. */
export const GenerationAssetRef = Type.Object(
  {
    assetId: Uuid,
    assetType: Type.String(),
    url: Type.Optional(Type.String({ description: 'Signed, short-lived download link' })),
    thumbnailUrl: Type.Optional(Type.String({ description: 'Signed, short-lived thumbnail link' })),
  },
  { title: 'GenerationAssetRef' },
);
export type GenerationAssetRef = Static<typeof GenerationAssetRef>;

export const Scores = Type.Object(
  {
    attention_potential: Type.Number({ minimum: 0, maximum: 100 }),
    conversion: Type.Number({ minimum: 0, maximum: 100 }),
    brand_awareness: Type.Number({ minimum: 0, maximum: 100 }),
  },
  { title: 'Scores', description: 'Pixel-model scores on a 0..100 scale; 50 is an ordinary product photo' },
);
export type Scores = Static<typeof Scores>;

export const ScoreDeltas = Type.Object(
  {
    attention_potential: Type.Number(),
    conversion: Type.Number(),
    brand_awareness: Type.Number(),
  },
  { title: 'ScoreDeltas', description: 'This variation minus its source variation, per score' },
);

/** The timestamps of a generation resource or variation (the terminal ones absent until set). */
export const Timestamps = {
  createdAt: DateTime,
  updatedAt: DateTime,
  completedAt: Type.Optional(DateTime),
  failedAt: Type.Optional(DateTime),
};

/** Terminal-state and timestamp members every generation resource has (absent until set). */
export const Lifecycle = {
  status: GenerationStatus,
  errorCode: Type.Optional(Type.String({ description: 'e.g. GENERATION_FAILED' })),
  errorMessage: Type.Optional(Type.String()),
  ...Timestamps,
};

/** The `partner` filter of the scene forge and video group lists. */
export const PartnerFilter = Type.Optional(
  StringEnum(['all', ...PARTNERS] as const, { description: 'Omitted: the default bucket only; all: every partner' }),
);

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  sortBy: StringEnum(['createdAt', 'updatedAt'] as const, { default: 'createdAt' }),
  sortOrder: StringEnum(['asc', 'desc'] as const, { default: 'desc' }),
};

/** The spec's list pagination for scene forges and video groups. */
export const ListPagination = Type.Object({
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
  totalItems: Type.Integer(),
  itemsPerPage: Type.Integer(),
});

export const BrandParams = Type.Object({ brandId: Uuid });
export const IdParams = Type.Object({ id: Uuid });
export const BrandIdParams = Type.Object({ brandId: Uuid, id: Uuid });

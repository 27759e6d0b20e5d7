import { type Static, type TSchema, Type } from 'typebox';
import { MAX_PAGE } from '../../http/pagination.ts';
import { Uuid } from '../../http/schemas.ts';
import { TONES } from '../../engines/text/text-engine.ts';

/** Brand field bounds (spec "Limits"); lengths count Unicode code points, as JSON Schema does. */
export const BRAND_LIMITS = {
  name: { min: 1, max: 100 },
  industry: { min: 1, max: 50 },
  description: { min: 10, max: 280 },
  mission: { max: 1000 },
  values: { items: 10, itemMax: 50 },
  tone: { items: 5 },
  voice: { items: 5, itemMax: 50 },
} as const;

/** Asset types a brand logo may have. */
export const LOGO_ASSET_TYPES: readonly string[] = ['logo', 'image'];

export const SORTS = ['name', '-name', 'createdAt', '-createdAt'] as const;
export type BrandSort = (typeof SORTS)[number];

const L = BRAND_LIMITS;
const TEXT_NOTE = 'Must not contain NUL characters or unpaired surrogates.';
const NOT_BLANK = 'Must contain a non-whitespace character.';

const fields = {
  name: Type.String({ minLength: L.name.min, maxLength: L.name.max, description: `${NOT_BLANK} ${TEXT_NOTE}` }),
  industry: Type.String({
    minLength: L.industry.min,
    maxLength: L.industry.max,
    description: `${NOT_BLANK} ${TEXT_NOTE}`,
  }),
  description: Type.String({
    minLength: L.description.min,
    maxLength: L.description.max,
    description: `${NOT_BLANK} ${TEXT_NOTE}`,
  }),
  mission: Type.String({ maxLength: L.mission.max, description: TEXT_NOTE }),
  values: Type.Array(Type.String({ maxLength: L.values.itemMax }), { maxItems: L.values.items }),
  tone: Type.Array(Type.Enum(TONES), { maxItems: L.tone.items, uniqueItems: true }),
  voice: Type.Array(Type.String({ maxLength: L.voice.itemMax }), { maxItems: L.voice.items }),
  logoAssetId: Type.Union([Uuid, Type.Null()], {
    description: 'An asset of type `logo` or `image` in your organization; null for none',
  }),
};

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

export const CreateBrandBody = Type.Object(
  {
    name: fields.name,
    industry: fields.industry,
    description: fields.description,
    mission: fields.mission,
    values: fields.values,
    tone: fields.tone,
    voice: fields.voice,
    logoAssetId: Type.Optional(fields.logoAssetId),
  },
  { additionalProperties: false, title: 'CreateBrand' },
);
export type CreateBrandInput = Static<typeof CreateBrandBody>;

/**
 * Every member optional and nullable. null on name, industry or description leaves them as they
 * are (they cannot be empty); null mission is ""; null values, tone or voice is []; null
 * logoAssetId removes the logo.
 */
export const UpdateBrandBody = Type.Object(
  {
    name: nullable(fields.name),
    industry: nullable(fields.industry),
    description: nullable(fields.description),
    mission: nullable(fields.mission),
    values: nullable(fields.values),
    tone: nullable(fields.tone),
    voice: nullable(fields.voice),
    logoAssetId: Type.Optional(fields.logoAssetId),
  },
  { additionalProperties: false, minProperties: 1, title: 'UpdateBrand' },
);
export type UpdateBrandInput = Static<typeof UpdateBrandBody>;

export const AssetRef = Type.Object({ assetId: Uuid, assetType: Type.String() }, { title: 'AssetRef' });
export type AssetRef = Static<typeof AssetRef>;

export const Brand = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    industry: Type.String(),
    description: Type.String(),
    mission: Type.String(),
    values: Type.Array(Type.String()),
    tone: Type.Array(Type.Enum(TONES)),
    voice: Type.Array(Type.String()),
    logoAsset: Type.Optional(AssetRef),
    organizationId: Uuid,
    organizationName: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    brandDnaStatus: Type.String({ description: '`none` while the brand has no Brand DNA' }),
  },
  { title: 'Brand' },
);
export type Brand = Static<typeof Brand>;

export const BrandParams = Type.Object({ brandId: Uuid });

export const ListBrandsQuery = Type.Object({
  all_organizations: Type.Boolean({ default: false, description: 'Platform admins only' }),
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  sort: Type.Enum(SORTS, { default: '-createdAt' }),
  industry: Type.Optional(
    Type.String({
      minLength: L.industry.min,
      maxLength: L.industry.max,
      description: 'Case-insensitive exact match on `industry`',
    }),
  ),
});
export type ListBrandsQuery = Static<typeof ListBrandsQuery>;

export const BrandList = Type.Object(
  {
    data: Type.Array(Brand),
    pagination: Type.Object({
      total: Type.Integer(),
      pages: Type.Integer(),
      currentPage: Type.Integer(),
      limit: Type.Integer(),
    }),
    links: Type.Object({
      self: Type.String({ format: 'uri' }),
      next: Type.Optional(Type.String({ format: 'uri', description: 'Absent on the last page' })),
      prev: Type.Optional(Type.String({ format: 'uri', description: 'Absent on the first page' })),
    }),
  },
  { title: 'BrandList' },
);
export type BrandList = Static<typeof BrandList>;

export const IfMatchHeaders = Type.Object({
  'if-match': Type.String({ minLength: 1, description: 'The ETag from an earlier get or update, or *' }),
});

/** Moved to the HTTP kernel (every module's text needs it); re-exported for existing imports. */

/** Folded form of a name or industry for sorting and case-insensitive matching. */
export const foldKey = (s: string): string => s.normalize('NFC').toLowerCase();

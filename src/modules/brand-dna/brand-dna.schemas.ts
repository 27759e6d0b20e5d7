import { type Static, type TSchema, Type } from 'typebox';
import { StringEnum, Uuid } from '../../http/schemas.ts';
import { TONES } from '../../engines/text/text-engine.ts';

/**
 * The Brand DNA payload (snake_case, schema_version 1) and the Brand DNA endpoints' bodies and
 * responses. Every extracted value carries `sources`: the ids of the version's sources it came
 * from, `brand` for the Brand resource itself, or `manual` for a value a person entered.
 */
export const PROVENANCE_PATTERN =
  '^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|brand|manual)$';

const Sources = Type.Array(Type.String({ pattern: PROVENANCE_PATTERN }), {
  maxItems: 60,
  description: 'Where the value came from: source ids of this version, `brand` (the Brand resource) or `manual`',
});

const TextValue = (max: number, description: string) =>
  Type.Object(
    { value: Type.String({ minLength: 1, maxLength: max }), sources: Sources },
    { additionalProperties: false, description },
  );
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Items = (max: number, maxItems: number, description: string) =>
  Type.Array(TextValue(max, 'One item'), { maxItems, description });

export const PALETTE_ROLES = ['primary', 'secondary', 'accent', 'neutral', 'background', 'text'] as const;
export type PaletteRole = (typeof PALETTE_ROLES)[number];
export const FORMALITY_LEVELS = ['formal', 'neutral', 'casual'] as const;

const FontEntry = Type.Object(
  {
    family: Type.String({ minLength: 1, maxLength: 80 }),
    weights: Type.Array(Type.Integer({ minimum: 100, maximum: 900, multipleOf: 100 }), { maxItems: 9 }),
    fallbacks: Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 8 }),
    sources: Sources,
  },
  { additionalProperties: false },
);

export const BrandDna = Type.Object(
  {
    schema_version: Type.Literal(1),
    identity: Type.Object(
      {
        brand_name: Nullable(
          TextValue(100, 'The brand name, as the brand states it unless several sources agree on another'),
        ),
        tagline: Nullable(TextValue(200, 'A short line the brand uses with its name')),
        mission: Nullable(TextValue(1000, 'Why the brand exists')),
        values: Items(50, 10, 'Values the brand states or stresses, strongest first'),
        industry: Nullable(
          TextValue(50, 'The industry, as the brand states it unless several sources agree on another'),
        ),
        audience: Nullable(
          Type.Object(
            {
              description: Type.String({ minLength: 1, maxLength: 300 }),
              segments: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 8 }),
              sources: Sources,
            },
            { additionalProperties: false, description: 'Who the brand speaks to' },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    voice: Type.Object(
      {
        tone: Type.Array(
          Type.Object(
            {
              tone: StringEnum(TONES),
              weight: Type.Number({ minimum: 0, maximum: 1 }),
              sources: Sources,
            },
            { additionalProperties: false },
          ),
          { maxItems: 8, description: 'Distinct tones, strongest first; weights sum to 1' },
        ),
        descriptors: Items(40, 10, 'Adjectives describing the voice'),
        formality: Nullable(
          Type.Object(
            {
              level: StringEnum(FORMALITY_LEVELS),
              score: Type.Number({ minimum: 0, maximum: 1, description: '0 casual .. 1 formal' }),
              sources: Sources,
            },
            { additionalProperties: false },
          ),
        ),
        words_to_use: Items(40, 20, 'Vocabulary the brand uses'),
        words_to_avoid: Items(40, 20, 'Words the brand avoids'),
      },
      { additionalProperties: false },
    ),
    visual: Type.Object(
      {
        palette: Type.Array(
          Type.Object(
            {
              hex: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
              role: StringEnum(PALETTE_ROLES),
              share: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the brand colour evidence, 0..1' }),
              name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
              pantone: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
              sources: Sources,
            },
            { additionalProperties: false },
          ),
          { maxItems: 12, description: 'Primary first, then secondary, accents and neutrals' },
        ),
        typography: Type.Object(
          { heading: Nullable(FontEntry), body: Nullable(FontEntry) },
          { additionalProperties: false },
        ),
        logos: Type.Array(
          Type.Object(
            {
              asset_id: Type.Optional(Uuid),
              url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
              sources: Sources,
            },
            {
              additionalProperties: false,
              description: 'An asset of your organization, or an image URL; at least one',
            },
          ),
          { maxItems: 10 },
        ),
        imagery: Type.Object(
          {
            style: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 12 }),
            subjects: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 12 }),
            sources: Sources,
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'BrandDna', description: 'The canonical Brand DNA payload (schema_version 1)' },
);
export type BrandDna = Static<typeof BrandDna>;
export type PaletteEntry = BrandDna['visual']['palette'][number];
export type FontEntry = Static<typeof FontEntry>;

// --------------------------------------------------------------------------------------------
// Versions

export const VERSION_STATUSES = ['pending', 'extracting', 'ready', 'failed'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];
export const SOURCE_TYPES = ['pdf', 'image', 'video', 'url', 'font', 'document'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const SOURCE_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export const LIMITS = { name: 200, assetIds: 20, urls: 20, url: 2048 } as const;

const SourceCounts = Type.Object({
  pdf: Type.Integer(),
  image: Type.Integer(),
  video: Type.Integer(),
  url: Type.Integer(),
  font: Type.Integer(),
  document: Type.Integer(),
});

export const Preview = Type.Object(
  {
    colorHexes: Type.Array(Type.String()),
    typographyShort: Type.String(),
    toneShort: Type.String(),
    topValues: Type.Array(Type.String()),
    sourceCounts: SourceCounts,
  },
  { title: 'BrandDnaPreview' },
);
export type Preview = Static<typeof Preview>;

const summaryFields = {
  versionId: Uuid,
  versionNumber: Type.Integer(),
  name: Type.Optional(Type.String()),
  isActive: Type.Boolean(),
  status: StringEnum(VERSION_STATUSES),
  confidenceScore: Type.Number({ minimum: 0, maximum: 1, description: 'Read-only' }),
  missingFields: Type.Array(Type.String(), { description: 'Read-only' }),
  preview: Preview,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time', description: 'The concurrency token for updates' }),
};

export const VersionSummary = Type.Object(summaryFields, { title: 'BrandDnaVersionSummary' });
export type VersionSummary = Static<typeof VersionSummary>;

export const Source = Type.Object(
  {
    id: Uuid,
    type: StringEnum(SOURCE_TYPES),
    label: Type.String(),
    assetId: Type.Optional(Uuid),
    url: Type.Optional(Type.String()),
    pageCount: Type.Optional(Type.Integer()),
    status: StringEnum(SOURCE_STATUSES),
    progressNote: Type.Optional(Type.String()),
    errorReason: Type.Optional(Type.String()),
  },
  { title: 'BrandDnaSource' },
);
export type Source = Static<typeof Source>;

export const VersionDetail = Type.Object(
  {
    ...summaryFields,
    sources: Type.Array(Source),
    dna: Type.Union([BrandDna, Type.Null()], { description: 'null while pending or extracting' }),
  },
  { title: 'BrandDnaVersion' },
);
export type VersionDetail = Static<typeof VersionDetail>;

const envelope = <T extends TSchema>(data: T, title: string) =>
  Type.Object({ status: Type.Literal('success'), data }, { title });

export const SummaryEnvelope = envelope(VersionSummary, 'BrandDnaVersionSummaryResponse');
export const DetailEnvelope = envelope(VersionDetail, 'BrandDnaVersionResponse');
export const ListEnvelope = envelope(Type.Array(VersionSummary), 'BrandDnaVersionListResponse');

export const LegacyDna = Type.Object(
  {
    brandId: Uuid,
    status: Type.String({ description: '`none` when the brand has no active Brand DNA, else its status' }),
    version: Type.Integer({ description: 'versionNumber of the active version; 0 when none' }),
    brandDna: Type.Union([BrandDna, Type.Object({}, { additionalProperties: false })], {
      description: 'The active version’s payload; {} when there is none yet',
    }),
    sourceAssetIds: Type.Array(Uuid),
  },
  { title: 'LegacyBrandDna' },
);
export const LegacyEnvelope = envelope(LegacyDna, 'LegacyBrandDnaResponse');

export const BrandParams = Type.Object({ brandId: Uuid });
export const VersionParams = Type.Object({ brandId: Uuid, versionId: Uuid });

const AssetIds = Type.Array(Uuid, { maxItems: LIMITS.assetIds, description: 'Complete assets of your organization' });
const Urls = Type.Array(Type.String({ format: 'uri', maxLength: LIMITS.url }), {
  maxItems: LIMITS.urls,
  description: 'Public http(s) pages',
});

export const CreateVersionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
    assetIds: Type.Optional(AssetIds),
    urls: Type.Optional(Urls),
  },
  { additionalProperties: false, title: 'CreateBrandDnaVersion' },
);
export type CreateVersionBody = Static<typeof CreateVersionBody>;

export const RerunBody = Type.Object(
  { assetIds: Type.Optional(AssetIds), urls: Type.Optional(Urls) },
  { additionalProperties: false, title: 'RerunBrandDnaVersion' },
);
export type RerunBody = Static<typeof RerunBody>;

export const UpdateVersionBody = Type.Object(
  {
    name: Type.Optional(
      Type.Union([Type.String({ maxLength: LIMITS.name }), Type.Null()], { description: 'null removes the label' }),
    ),
    dna: Type.Optional(BrandDna),
    updatedAt: Type.String({ format: 'date-time', description: 'The updatedAt last returned for this version' }),
  },
  { additionalProperties: false, title: 'UpdateBrandDnaVersion' },
);
export type UpdateVersionBody = Static<typeof UpdateVersionBody>;

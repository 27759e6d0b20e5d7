import { type Static, Type } from 'typebox';
import { StringEnum, Uuid } from '../../http/schemas.ts';

export const EXTRACTION_MEDIA = ['images', 'videos', 'both'] as const;
export const EXTRACTION_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

export const SubmitExtractionBody = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
      description: 'A public http(s) page',
    }),
    brandId: Uuid,
    purpose: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description:
          'Tunes ranking and how many candidates are kept (product, packshot, lifestyle, logo, hero, background, social, people, general...); other text is matched as free text',
      }),
    ),
    media: Type.Optional(
      StringEnum(EXTRACTION_MEDIA, {
        default: 'both',
        description: 'Video extraction is unavailable: `videos` completes with no candidates, `both` extracts images',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SubmitExtractionBody = Static<typeof SubmitExtractionBody>;

export const CandidateSchema = Type.Object(
  {
    candidateId: Uuid,
    mediaType: Type.Literal('image'),
    width: Type.Optional(Type.Integer()),
    height: Type.Optional(Type.Integer()),
    durationSeconds: Type.Optional(Type.Number({ description: 'Video candidates only (none yet)' })),
    fileType: Type.Optional(Type.String({ description: 'MIME type of the copy a commit makes into an asset' })),
    relevanceScore: Type.Number({ minimum: 0, maximum: 1 }),
    relevanceReason: Type.String(),
    rank: Type.Integer({ minimum: 1, description: '1 is the strongest match' }),
    kept: Type.Boolean(),
    looksLikeLogo: Type.Boolean({ description: 'Advisory guess only' }),
    committedAssetId: Type.Optional(Uuid),
    previewUrl: Type.Optional(
      Type.String({ description: 'Signed, short-lived link to the staged copy; fresh on every read' }),
    ),
    rejectionCode: Type.Optional(
      Type.String({
        description:
          'Rejected candidates only (includeRejected=true): tracking-pixel, sprite, too-small, too-large, unsupported-format, undecodable, duplicate, download-failed',
      }),
    ),
    rejectionReason: Type.Optional(Type.String({ description: 'Rejected candidates only: why, in one sentence' })),
  },
  { title: 'ExtractionCandidate' },
);
export type Candidate = Static<typeof CandidateSchema>;

export const ExtractionSchema = Type.Object(
  {
    extractionId: Uuid,
    brandId: Uuid,
    url: Type.String(),
    purpose: Type.Optional(Type.String()),
    media: StringEnum(EXTRACTION_MEDIA),
    status: StringEnum(EXTRACTION_STATUSES),
    errorCode: Type.Optional(Type.String()),
    errorMessage: Type.Optional(Type.String()),
    truncated: Type.Integer({ minimum: 0, description: 'Candidates dropped by the run limits' }),
    candidates: Type.Optional(Type.Array(CandidateSchema, { description: 'Present only once completed; best first' })),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Optional(Type.String({ format: 'date-time' })),
    failedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { title: 'Extraction' },
);
export type Extraction = Static<typeof ExtractionSchema>;

export const ExtractionIdParams = Type.Object({ extractionId: Uuid });

export const ReadExtractionQuery = Type.Object({
  includeRejected: Type.Boolean({ default: false, description: 'Also return rejected candidates with their reasons' }),
});

export const CommitBody = Type.Object(
  {
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            candidateId: Uuid,
            isLogo: Type.Optional(Type.Boolean({ description: 'Makes the asset a `logo`; first commit only' })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 200 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CommitBody = Static<typeof CommitBody>;

export const CommittedAsset = Type.Object({
  assetId: Uuid,
  assetType: Type.String(),
  candidateId: Uuid,
});
export type CommittedAsset = Static<typeof CommittedAsset>;

export const CommitResponse = Type.Object({ assets: Type.Array(CommittedAsset) });

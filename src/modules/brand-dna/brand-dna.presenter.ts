import { fromBool, fromJson } from '../../adapters/db/columns.ts';
import type { SourceRow, VersionRow } from './brand-dna.repo.ts';
import type {
  BrandDna,
  Preview,
  Source,
  SourceStatus,
  SourceType,
  VersionDetail,
  VersionStatus,
  VersionSummary,
} from './brand-dna.schemas.ts';
import { buildPreview } from './preview.ts';

/** Rows → API bodies: absent values omitted, JSON columns parsed. */
export function toSummary(row: VersionRow, sourceTypes: readonly string[]): VersionSummary {
  const stored = fromJson<Partial<Preview>>(row.preview, {});
  const preview = stored.sourceCounts ? (stored as Preview) : buildPreview(null, sourceTypes);
  return {
    versionId: row.id,
    versionNumber: Number(row.version_number),
    ...(row.name !== null ? { name: row.name } : {}),
    isActive: fromBool(row.is_active),
    status: row.status as VersionStatus,
    confidenceScore: Number(row.confidence_score),
    missingFields: fromJson<string[]>(row.missing_fields, []),
    preview,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toSource(s: SourceRow): Source {
  return {
    id: s.id,
    type: s.type as SourceType,
    label: s.label,
    ...(s.asset_id ? { assetId: s.asset_id } : {}),
    ...(s.url ? { url: s.url } : {}),
    ...(s.page_count !== null ? { pageCount: Number(s.page_count) } : {}),
    status: s.status as SourceStatus,
    ...(s.progress_note ? { progressNote: s.progress_note } : {}),
    ...(s.error_reason ? { errorReason: s.error_reason } : {}),
  };
}

export function toDetail(row: VersionRow, sources: SourceRow[]): VersionDetail {
  return {
    ...toSummary(
      row,
      sources.map((s) => s.type),
    ),
    sources: sources.map(toSource),
    dna: row.status === 'pending' || row.status === 'extracting' ? null : fromJson<BrandDna | null>(row.dna, null),
  };
}

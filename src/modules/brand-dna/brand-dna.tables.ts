/** Brand DNA versions and their sources (migration 0008). */
export interface BrandDnaVersionsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  /** 1, 2, 3... per brand, in creation order; kept by rerun. */
  version_number: number;
  name: string | null;
  /** pending, extracting, ready, failed */
  status: string;
  /** 0/1; at most one active version per brand (partial unique index). */
  is_active: number;
  /** Changes on every create and rerun; the extraction job carries it, so a superseded run stops. */
  run_id: string;
  /** Usage ledger reservation of the current run (brand_dna_extractions). */
  reservation_id: string | null;
  /** JSON: the canonical DNA payload; null until ready. */
  dna: string | null;
  /** JSON: the preview object. */
  preview: string;
  confidence_score: number;
  /** JSON array of dotted field paths. */
  missing_fields: string;
  created_at: string;
  /** The concurrency token: strictly increases on every change. */
  updated_at: string;
}

export interface BrandDnaSourcesTable {
  id: string;
  version_id: string;
  /** Order in the request: assets first, then URLs. */
  position: number;
  /** pdf, image, video, url, font, document */
  type: string;
  label: string;
  asset_id: string | null;
  url: string | null;
  page_count: number | null;
  /** queued, processing, completed, failed */
  status: string;
  progress_note: string | null;
  error_reason: string | null;
  /** Storage key of this source's findings (JSON) once completed. */
  findings_key: string | null;
  created_at: string;
  updated_at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    brand_dna_versions: BrandDnaVersionsTable;
    brand_dna_sources: BrandDnaSourcesTable;
  }
}

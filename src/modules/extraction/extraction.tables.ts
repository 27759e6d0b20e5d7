/** One URL extraction run (the spec's "URL extraction" resource). */
export interface ExtractionsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  /** The submitted page URL. */
  url: string;
  purpose: string | null;
  /** images, videos, both */
  media: string;
  /** pending, processing, completed, failed */
  status: string;
  error_code: string | null;
  error_message: string | null;
  /** Candidates dropped by the run's limits. */
  truncated: number;
  /** The attempt that owns the row while processing; only its writes land (a rerun takes over). */
  run_id: string | null;
  /** The page URL after redirects, once fetched. */
  page_url: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
}

/** A candidate found by a completed run, kept or rejected. */
export interface ExtractionCandidatesTable {
  id: string;
  extraction_id: string;
  /** 1 = best; rejected candidates follow the others. */
  rank: number;
  kept: number;
  looks_like_logo: number;
  media_type: string;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  /** MIME type of the staged copy (what a commit makes), when there is one. */
  file_type: string | null;
  /** Sniffed format of the staged copy (FormatName), when there is one. */
  detected_format: string | null;
  file_size: number | null;
  /** File name the committed asset gets. */
  file_name: string;
  relevance_score: number;
  relevance_reason: string;
  rejection_code: string | null;
  rejection_reason: string | null;
  /** Where it came from: an http(s) URL, or null for inline SVG and data URLs. */
  source_url: string | null;
  /** Staged copy in object storage (kept and rejected-but-decodable candidates). */
  staged_key: string | null;
  committed_asset_id: string | null;
  committed_asset_type: string | null;
  /** A commit in progress: who claimed the candidate and when (guards against two assets). */
  commit_token: string | null;
  commit_started_at: string | null;
  created_at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    extractions: ExtractionsTable;
    extraction_candidates: ExtractionCandidatesTable;
  }
}

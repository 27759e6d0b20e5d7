import type { LifecycleRow } from '../generation/lifecycle.ts';

/**
 * Scene prompt enhancements (migration 0009). JSON columns are text on both dialects; statuses:
 * pending, processing, completed, failed.
 */
export interface PromptEnhancementsTable extends LifecycleRow {
  id: string;
  organization_id: string;
  brand_id: string;
  /** scene (the video enhancements come later with their own kind). */
  kind: string;
  original_prompt: string;
  optimized_prompt: string | null;
  theme: string | null;
  status: string;
  use_brand_dna: number;
  partner: string;
  aspect_ratio: string | null;
  product_asset_ids: string;
  environment_asset_id: string | null;
  brand_dna_version_id: string | null;
  /** JSON: the inputs the enhancer reads (products, environment, brand), captured at create. */
  context: string;
  warnings: string;
  reservation_id: string | null;
  engine: string | null;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    prompt_enhancements: PromptEnhancementsTable;
  }
}

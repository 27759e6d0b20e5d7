import type { LifecycleRow } from '../generation/lifecycle.ts';

/**
 * Environment generations (migration 0009). JSON columns are text on both dialects; statuses:
 * pending, processing, completed, failed.
 */
export interface EnvironmentGenerationsTable extends LifecycleRow {
  id: string;
  organization_id: string;
  brand_id: string;
  prompt: string;
  /** JSON: palette and words captured at create. */
  context: string;
  seed: number;
  asset_id: string;
  status: string;
  reservation_id: string | null;
  engine: string | null;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    environment_generations: EnvironmentGenerationsTable;
  }
}

import type { Generated } from 'kysely';

export interface BrandsTable {
  id: string;
  organization_id: string;
  name: string;
  /** `name` folded for sorting (NFC, lower case); sorts identically on both databases. */
  name_key: string;
  industry: string;
  /** `industry` folded for the case-insensitive `industry` filter. */
  industry_key: string;
  description: string;
  mission: string;
  /** JSON arrays of strings. */
  values: string;
  tone: string;
  voice: string;
  logo_asset_id: string | null;
  /** The logo asset's type, copied at write time (an asset's type never changes). */
  logo_asset_type: string | null;
  /** `none` until a Brand DNA exists; the Brand DNA module moves it. */
  brand_dna_status: Generated<string>;
  /** Row version, bumped on every update: the compare-and-set token behind If-Match. */
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    brands: BrandsTable;
  }
}

import type { LifecycleRow } from '../generation/lifecycle.ts';

/**
 * Scene tables: scene forges and their variations (generated images), migration 0009, and
 * refinements, migration 0010. JSON columns are text on both dialects. Statuses of forges and
 * variations: pending, processing, completed, failed.
 */
export interface SceneForgesTable extends LifecycleRow {
  id: string;
  organization_id: string;
  brand_id: string;
  /** default, partner-1, partner-2, partner-3 */
  partner: string;
  /** The prompt as submitted. */
  blending_prompt: string;
  /** The prompt the engine received (the submitted one, enhanced unless it already was). */
  prompt: string;
  original_prompt: string;
  /** 0/1: the submitted prompt equals an accepted enhancement of this brand. */
  prompt_is_enhanced: number;
  aspect_ratio: string;
  theme: string | null;
  /** JSON array of asset ids, in request order. */
  product_asset_ids: string;
  environment_asset_id: string | null;
  use_brand_dna: number;
  /** The active Brand DNA version used, when one was. */
  brand_dna_version_id: string | null;
  /** JSON: what the engines need of the brand and DNA, captured at create (palette...). */
  context: string;
  status: string;
}

/** One variation of a forge (the spec's Variation); refinements add rows with generation > 1. */
export interface GeneratedImagesTable extends LifecycleRow {
  id: string;
  scene_forge_id: string;
  organization_id: string;
  brand_id: string;
  refinement_id: string | null;
  source_variation_id: string | null;
  generation: number;
  /** #1, #2, ... within the forge. */
  label: string;
  /** Order within its generation, from 0; also the engine's layout index. */
  position: number;
  status: string;
  blending_prompt: string;
  seed: number;
  /** Decided at create, so a job that runs twice makes one asset. */
  asset_id: string;
  width: number | null;
  height: number | null;
  liked: number;
  disliked: number;
  /** JSON {attention_potential, conversion, brand_awareness} once completed. */
  scores: string | null;
  score_deltas: string | null;
  /** JSON array of {code, message, severity, layerId?, field?}. */
  warnings: string;
  critique_status: string | null;
  critique: string | null;
  engine: string | null;
  /** Usage ledger reservation of this variation's image_generations unit. */
  reservation_id: string | null;
}

/** A refinement of a forge (migration 0010): its variations are generated_images rows with its id. */
export interface SceneRefinementsTable {
  id: string;
  scene_forge_id: string;
  organization_id: string;
  /** The source variation's generation + 1. */
  generation: number;
  /** attention_potential, conversion or brand_awareness. */
  steer_objective: string;
  source_variation_id: string;
  /** Kept so the refinement still names its source if the source goes away. */
  source_label: string;
  source_asset_id: string;
  /** JSON: the source's scores when the refinement was made. */
  source_scores: string | null;
  /** JSON: the engine levers (SceneSteering) the variations are made with. */
  steering: string;
  /** JSON array: human names of the levers applied. */
  levers: string;
  /** JSON array: the critique's prompt patches appended to the prompt. */
  prompt_patches: string;
  /** applied, partial or none (docs/decisions/generation.md). */
  steering_applied: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    scene_forges: SceneForgesTable;
    generated_images: GeneratedImagesTable;
    scene_refinements: SceneRefinementsTable;
  }
}

import type { LifecycleRow } from '../generation/lifecycle.ts';

/**
 * Video tables (migration 0011). JSON columns are text on both dialects; statuses of every row:
 * pending, processing, completed, failed.
 */
export interface VideoGroupsTable extends LifecycleRow {
  id: string;
  organization_id: string;
  brand_id: string;
  /** default, partner-1, partner-2, partner-3 */
  partner: string;
  model: string;
  /** Seconds. */
  duration: number;
  width: number;
  height: number;
  enable_audio: number;
  use_brand_dna: number;
  /** 0/1: every prompt equals a completed image-to-video enhancement of this brand. */
  prompt_is_enhanced: number;
  /** The first prompt (the group's `prompt`); each variation keeps its own. */
  prompt: string;
  start_asset_id: string | null;
  end_asset_id: string | null;
  /** JSON arrays of asset ids, in request order. */
  intermediate_asset_ids: string;
  reference_image_asset_ids: string;
  reference_video_asset_ids: string;
  brand_dna_version_id: string | null;
  /** JSON VideoInputs: the frames, references, brand and DNA captured at create. */
  context: string;
  status: string;
}

/** One variation of a group: one prompt, one `video` asset. */
export interface GeneratedVideosTable extends LifecycleRow {
  id: string;
  group_id: string;
  organization_id: string;
  brand_id: string;
  /** Order within the group (the prompt's index). */
  position: number;
  status: string;
  prompt: string;
  seed: number;
  /** Decided at create, so a job that runs twice makes one asset. */
  asset_id: string;
  /** Storage key of the preview clip, once made. */
  preview_key: string | null;
  width: number | null;
  height: number | null;
  /** The camera move the engine chose (local engine). */
  camera: string | null;
  /** JSON array of {code, message, severity}. */
  warnings: string;
  engine: string | null;
  /** Usage ledger reservation of this variation's `video_seconds`. */
  reservation_id: string | null;
}

export interface VideoPromptEnhancementsTable extends LifecycleRow {
  id: string;
  organization_id: string;
  brand_id: string;
  start_frame_asset_id: string | null;
  end_frame_asset_id: string | null;
  intermediate_frame_asset_ids: string;
  reference_image_asset_ids: string;
  reference_video_asset_ids: string;
  original_prompt: string;
  /** 16:9 or 9:16 */
  aspect_ratio: string;
  model: string;
  /** Seconds (the model's default when the request omitted it). */
  duration: number;
  enable_audio: number;
  use_brand_dna: number;
  brand_dna_version_id: string | null;
  /** JSON VideoInputs captured at create. */
  context: string;
  enhanced_prompt: string | null;
  camera: string | null;
  warnings: string;
  reservation_id: string | null;
  engine: string | null;
  status: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    video_groups: VideoGroupsTable;
    generated_videos: GeneratedVideosTable;
    video_prompt_enhancements: VideoPromptEnhancementsTable;
  }
}

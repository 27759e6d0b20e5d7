import type { Kysely } from 'kysely';

/**
 * Video generation: groups (one per generate-video call), their variations (one per prompt, each
 * a `video` asset once completed) and image-to-video prompt enhancements.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('video_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id').onDelete('cascade'))
    .addColumn('partner', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('enable_audio', 'integer', (c) => c.notNull())
    .addColumn('use_brand_dna', 'integer', (c) => c.notNull())
    .addColumn('prompt_is_enhanced', 'integer', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('start_asset_id', 'text')
    .addColumn('end_asset_id', 'text')
    .addColumn('intermediate_asset_ids', 'text', (c) => c.notNull())
    .addColumn('reference_image_asset_ids', 'text', (c) => c.notNull())
    .addColumn('reference_video_asset_ids', 'text', (c) => c.notNull())
    .addColumn('brand_dna_version_id', 'text')
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema
    .createIndex('video_groups_brand_idx')
    .on('video_groups')
    .columns(['organization_id', 'brand_id', 'partner', 'created_at'])
    .execute();

  await db.schema
    .createTable('generated_videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('group_id', 'text', (c) => c.notNull().references('video_groups.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('seed', 'integer', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('preview_key', 'text')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('camera', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('engine', 'text')
    .addColumn('reservation_id', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema.createIndex('generated_videos_group_idx').on('generated_videos').columns(['group_id']).execute();

  await db.schema
    .createTable('video_prompt_enhancements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id').onDelete('cascade'))
    .addColumn('start_frame_asset_id', 'text')
    .addColumn('end_frame_asset_id', 'text')
    .addColumn('intermediate_frame_asset_ids', 'text', (c) => c.notNull())
    .addColumn('reference_image_asset_ids', 'text', (c) => c.notNull())
    .addColumn('reference_video_asset_ids', 'text', (c) => c.notNull())
    .addColumn('original_prompt', 'text', (c) => c.notNull())
    .addColumn('aspect_ratio', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('enable_audio', 'integer', (c) => c.notNull())
    .addColumn('use_brand_dna', 'integer', (c) => c.notNull())
    .addColumn('brand_dna_version_id', 'text')
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('enhanced_prompt', 'text')
    .addColumn('camera', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('reservation_id', 'text')
    .addColumn('engine', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema
    .createIndex('video_prompt_enhancements_brand_idx')
    .on('video_prompt_enhancements')
    .columns(['brand_id', 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('video_prompt_enhancements').execute();
  await db.schema.dropTable('generated_videos').execute();
  await db.schema.dropTable('video_groups').execute();
}

import type { Kysely } from 'kysely';

/** Scene forges and their variations, environment generations, prompt enhancements. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scene_forges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id').onDelete('cascade'))
    .addColumn('partner', 'text', (c) => c.notNull())
    .addColumn('blending_prompt', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('original_prompt', 'text', (c) => c.notNull())
    .addColumn('prompt_is_enhanced', 'integer', (c) => c.notNull())
    .addColumn('aspect_ratio', 'text', (c) => c.notNull())
    .addColumn('theme', 'text')
    .addColumn('product_asset_ids', 'text', (c) => c.notNull())
    .addColumn('environment_asset_id', 'text')
    .addColumn('use_brand_dna', 'integer', (c) => c.notNull())
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
    .createIndex('scene_forges_list_idx')
    .on('scene_forges')
    .columns(['organization_id', 'brand_id', 'partner', 'created_at'])
    .execute();

  await db.schema
    .createTable('generated_images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scene_forge_id', 'text', (c) => c.notNull().references('scene_forges.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('refinement_id', 'text')
    .addColumn('source_variation_id', 'text')
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('blending_prompt', 'text', (c) => c.notNull())
    .addColumn('seed', 'integer', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('liked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disliked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('scores', 'text')
    .addColumn('score_deltas', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('critique_status', 'text')
    .addColumn('critique', 'text')
    .addColumn('engine', 'text')
    .addColumn('reservation_id', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema
    .createIndex('generated_images_forge_idx')
    .on('generated_images')
    .columns(['scene_forge_id', 'generation', 'position'])
    .execute();

  await db.schema
    .createTable('environment_generations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id').onDelete('cascade'))
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('seed', 'integer', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reservation_id', 'text')
    .addColumn('engine', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();

  await db.schema
    .createTable('prompt_enhancements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('original_prompt', 'text', (c) => c.notNull())
    .addColumn('optimized_prompt', 'text')
    .addColumn('theme', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('use_brand_dna', 'integer', (c) => c.notNull())
    .addColumn('partner', 'text', (c) => c.notNull())
    .addColumn('aspect_ratio', 'text')
    .addColumn('product_asset_ids', 'text', (c) => c.notNull())
    .addColumn('environment_asset_id', 'text')
    .addColumn('brand_dna_version_id', 'text')
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('reservation_id', 'text')
    .addColumn('engine', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema
    .createIndex('prompt_enhancements_brand_idx')
    .on('prompt_enhancements')
    .columns(['brand_id', 'kind', 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('prompt_enhancements').execute();
  await db.schema.dropTable('environment_generations').execute();
  await db.schema.dropTable('generated_images').execute();
  await db.schema.dropTable('scene_forges').execute();
}

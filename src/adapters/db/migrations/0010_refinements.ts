import type { Kysely } from 'kysely';

/** Refinements of scene forges: a new generation of variations steered from a source variation. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scene_refinements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scene_forge_id', 'text', (c) => c.notNull().references('scene_forges.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('steer_objective', 'text', (c) => c.notNull())
    .addColumn('source_variation_id', 'text', (c) => c.notNull())
    .addColumn('source_label', 'text', (c) => c.notNull())
    .addColumn('source_asset_id', 'text', (c) => c.notNull())
    .addColumn('source_scores', 'text')
    .addColumn('steering', 'text', (c) => c.notNull())
    .addColumn('levers', 'text', (c) => c.notNull())
    .addColumn('prompt_patches', 'text', (c) => c.notNull())
    .addColumn('steering_applied', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scene_refinements_forge_idx')
    .on('scene_refinements')
    .columns(['scene_forge_id', 'generation'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scene_refinements').execute();
}

import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('brand_dna_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id').onDelete('cascade'))
    .addColumn('version_number', 'integer', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('reservation_id', 'text')
    .addColumn('dna', 'text')
    .addColumn('preview', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('confidence_score', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('missing_fields', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('brand_dna_versions_number_uq', ['brand_id', 'version_number'])
    .execute();
  // At most one active version per brand, enforced by the database on both dialects.
  await db.schema
    .createIndex('brand_dna_versions_active_uq')
    .on('brand_dna_versions')
    .column('brand_id')
    .unique()
    .where(sql.ref('is_active'), '=', 1)
    .execute();
  await db.schema
    .createIndex('brand_dna_versions_org_brand_idx')
    .on('brand_dna_versions')
    .columns(['organization_id', 'brand_id'])
    .execute();

  await db.schema
    .createTable('brand_dna_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('version_id', 'text', (c) => c.notNull().references('brand_dna_versions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'text')
    .addColumn('url', 'text')
    .addColumn('page_count', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress_note', 'text')
    .addColumn('error_reason', 'text')
    .addColumn('findings_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('brand_dna_sources_version_idx')
    .on('brand_dna_sources')
    .columns(['version_id', 'position'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('brand_dna_sources').execute();
  await db.schema.dropTable('brand_dna_versions').execute();
}

import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('brands')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('industry', 'text', (c) => c.notNull())
    .addColumn('industry_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('mission', 'text', (c) => c.notNull())
    .addColumn('values', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('tone', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('voice', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('logo_asset_id', 'text')
    .addColumn('logo_asset_type', 'text')
    .addColumn('brand_dna_status', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('brands_org_created_idx')
    .on('brands')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('brands_org_name_idx')
    .on('brands')
    .columns(['organization_id', 'name_key', 'id'])
    .execute();
  await db.schema
    .createIndex('brands_org_industry_idx')
    .on('brands')
    .columns(['organization_id', 'industry_key'])
    .execute();
}

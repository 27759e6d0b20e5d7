import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('detected_format', 'text')
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('thumbnail_key', 'text')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('duration', 'real')
    .addColumn('description', 'text')
    .addColumn('extra', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('auto_tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('used_in_campaigns', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('quality_tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('quality_status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('assets_brand_created_idx')
    .on('assets')
    .columns(['brand_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('assets_org_idx').on('assets').column('organization_id').execute();

  await db.schema
    .createTable('asset_tags')
    .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_tags_pk', ['asset_id', 'kind', 'tag'])
    .execute();
  await db.schema.createIndex('asset_tags_tag_idx').on('asset_tags').columns(['tag', 'asset_id']).execute();

  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('declared_size', 'bigint', (c) => c.notNull())
    .addColumn('declared_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploads_status_expiry_idx').on('uploads').columns(['status', 'expires_at']).execute();
}

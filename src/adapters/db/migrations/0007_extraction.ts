import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('extractions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text')
    .addColumn('media', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('truncated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_id', 'text')
    .addColumn('page_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  // The per-organization cap counts running rows; the sweep finds stale running rows.
  await db.schema
    .createIndex('extractions_org_status_idx')
    .on('extractions')
    .columns(['organization_id', 'status'])
    .execute();
  await db.schema
    .createIndex('extractions_status_created_idx')
    .on('extractions')
    .columns(['status', 'created_at'])
    .execute();
  await db.schema.createIndex('extractions_created_idx').on('extractions').column('created_at').execute();

  await db.schema
    .createTable('extraction_candidates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('extraction_id', 'text', (c) => c.notNull().references('extractions.id').onDelete('cascade'))
    .addColumn('rank', 'integer', (c) => c.notNull())
    .addColumn('kept', 'integer', (c) => c.notNull())
    .addColumn('looks_like_logo', 'integer', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('duration_seconds', 'double precision')
    .addColumn('file_type', 'text')
    .addColumn('detected_format', 'text')
    .addColumn('file_size', 'bigint')
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('relevance_score', 'double precision', (c) => c.notNull())
    .addColumn('relevance_reason', 'text', (c) => c.notNull())
    .addColumn('rejection_code', 'text')
    .addColumn('rejection_reason', 'text')
    .addColumn('source_url', 'text')
    .addColumn('staged_key', 'text')
    .addColumn('committed_asset_id', 'text')
    .addColumn('committed_asset_type', 'text')
    .addColumn('commit_token', 'text')
    .addColumn('commit_started_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('extraction_candidates_run_rank_idx')
    .on('extraction_candidates')
    .columns(['extraction_id', 'rank'])
    .execute();
}

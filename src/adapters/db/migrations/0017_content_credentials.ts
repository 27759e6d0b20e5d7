import { type Kysely, sql } from 'kysely';

/**
 * Content Credentials (C2PA) per organization: 1 (the default) signs every generated file, 0 stores
 * them as the engines made them (`atelier admin org set-content-credentials <orgId> on|off`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('content_credentials', 'integer', (c) => c.notNull().defaultTo(sql`1`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('content_credentials').execute();
}

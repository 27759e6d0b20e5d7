import type { Kysely } from 'kysely';

/** The pending-work sweep's look-up (rows `pending` since before a time), one index per table it reads. */
const TABLES = [
  'generated_images',
  'generated_videos',
  'environment_generations',
  'prompt_enhancements',
  'video_prompt_enhancements',
  'brand_dna_versions',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.createIndex(`${table}_waiting_idx`).on(table).columns(['status', 'updated_at']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await db.schema.dropIndex(`${table}_waiting_idx`).execute();
}

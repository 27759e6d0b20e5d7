import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from './database.ts';
import type { DB } from './schema.ts';

/**
 * Every table the modules register in `DB` (declaration merging, see schema.ts). The type check
 * holds this list to `DB` (a table missing here, or one no module registers, is an error), and the
 * test below holds it to the migrations: a `*.tables.ts` left out of the program, or a table no
 * module declares, shows up here.
 */
const REGISTERED: Record<keyof DB, true> = {
  organizations: true,
  users: true,
  api_keys: true,
  usage_counters: true,
  usage_reservations: true,
  brands: true,
  jobs: true,
  assets: true,
  asset_tags: true,
  uploads: true,
  extractions: true,
  extraction_candidates: true,
  brand_dna_versions: true,
  brand_dna_sources: true,
  scene_forges: true,
  generated_images: true,
  scene_refinements: true,
  environment_generations: true,
  prompt_enhancements: true,
  video_groups: true,
  generated_videos: true,
  video_prompt_enhancements: true,
  idempotency_keys: true,
  webhook_endpoints: true,
  webhook_deliveries: true,
  user_credentials: true,
  user_invites: true,
  console_sessions: true,
  login_failures: true,
};

describe('the database type', () => {
  let db: Database | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('registers exactly the tables the migrations make', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-schema-'));
    db = await openDatabase({ dataDir: dir });
    await db.migrate();
    const rows = await sql<{ name: string }>`
      select name from sqlite_master
      where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'
    `.execute(db.kysely);
    expect(rows.rows.map((r) => r.name).sort()).toEqual(Object.keys(REGISTERED).sort());
  });
});

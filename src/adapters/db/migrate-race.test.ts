import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { dropSchema, TEST_PG_URL } from '../../../test/helpers/pg.ts';
import { droppedMeanwhile, openDatabase } from './database.ts';

describe('droppedMeanwhile', () => {
  it('is invalid_schema_name, or undefined_table in a named schema, for another schema than ours; nothing else', () => {
    const err = (message: string, code = '3F000') => Object.assign(new Error(message), { code });
    expect(droppedMeanwhile(err('schema "t_other" does not exist'), 't_mine')).toBe(true);
    expect(droppedMeanwhile(err('schema "t_other" does not exist'), undefined)).toBe(true);
    expect(droppedMeanwhile(err('schema "t_mine" does not exist'), 't_mine')).toBe(false);
    // Seen in the suite: a table of a schema dropped between Kysely's list of tables and its columns.
    expect(droppedMeanwhile(err('relation "t_other.organizations" does not exist', '42P01'), 't_mine')).toBe(true);
    expect(droppedMeanwhile(err('relation "t_other.organizations" does not exist', '42P01'), undefined)).toBe(true);
    expect(droppedMeanwhile(err('relation "t_mine.organizations" does not exist', '42P01'), 't_mine')).toBe(false);
    expect(droppedMeanwhile(err('relation "x" does not exist', '42P01'), 't_mine')).toBe(false);
    expect(droppedMeanwhile(err('relation "t_other.x" does not exist', '42703'), 't_mine')).toBe(false);
    expect(droppedMeanwhile(undefined, 't_mine')).toBe(false);
  });
});

/**
 * Kysely's migrator reads every schema's tables before it takes its lock; another client dropping
 * a schema meanwhile (seen in the suite: another test file's throwaway schema) must not fail the
 * migration. Schemas with tables are created and dropped without pause while databases migrate.
 */
describe.skipIf(!inject('postgres'))('migrating while other schemas are dropped (real PostgreSQL)', () => {
  it('every migration succeeds', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-race-'));
    const churn = new pg.Client({ connectionString: TEST_PG_URL });
    await churn.connect();
    let stop = false;
    const churning = (async () => {
      while (!stop) {
        const s = `t_churn_${randomBytes(4).toString('hex')}`;
        await churn.query(`CREATE SCHEMA ${s}`);
        for (let i = 0; i < 20; i++) await churn.query(`CREATE TABLE ${s}.t${i} (id int, note text)`);
        await churn.query(`DROP SCHEMA ${s} CASCADE`);
      }
    })();
    const schemas: string[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        schemas.push(schema);
        const db = await openDatabase({ databaseUrl: TEST_PG_URL, dataDir, pgSchema: schema, pgPoolSize: 2 });
        try {
          await expect(db.migrate()).resolves.toBeUndefined();
        } finally {
          await db.close();
        }
      }
    } finally {
      stop = true;
      await churning;
      await churn.end();
      for (const s of schemas) await dropSchema(s);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropSchema, TEST_PG_URL } from '../../../test/helpers/pg.ts';
import { type Database, openDatabase, pgSessionOptions } from './database.ts';

describe('pgSessionOptions', () => {
  it('sets the search path and the three time bounds', () => {
    expect(pgSessionOptions('t_x', { statementMs: 30_000, lockMs: 5_000, idleInTransactionMs: 30_000 })).toBe(
      '-c search_path=t_x -c statement_timeout=30000 -c lock_timeout=5000 -c idle_in_transaction_session_timeout=30000',
    );
    expect(pgSessionOptions(undefined, undefined)).toBeUndefined();
  });
});

/**
 * A process frozen while it holds a row lock in a transaction (SIGSTOP) must not stall the
 * others: a waiter gives up after lock_timeout, and PostgreSQL ends the idle transaction after
 * idle_in_transaction_session_timeout, releasing the lock.
 */
describe.skipIf(!inject('postgres'))('PostgreSQL session time bounds (real PostgreSQL)', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pgt-'));
  let db: Database;
  const timeouts = { statementMs: 5_000, lockMs: 300, idleInTransactionMs: 1_000 };
  beforeAll(async () => {
    db = await openDatabase({
      databaseUrl: TEST_PG_URL,
      dataDir,
      pgSchema: schema,
      pgPoolSize: 2,
      pgTimeouts: timeouts,
    });
  });
  afterAll(async () => {
    await db?.close();
    await dropSchema(schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a waiter gives up on a held lock, and an idle transaction is ended', async () => {
    // Another process of ours (the same session settings), frozen inside a transaction.
    const options = pgSessionOptions(schema, timeouts) as string;
    const holder = new pg.Client({ connectionString: TEST_PG_URL, options });
    await holder.connect();
    holder.on('error', () => {});
    try {
      await holder.query('CREATE TABLE rows (id int primary key)');
      await holder.query('INSERT INTO rows VALUES (1)');
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM rows WHERE id = 1 FOR UPDATE');
      const lock = () => sql`SELECT id FROM rows WHERE id = 1 FOR UPDATE`.execute(db.kysely);
      // The holder now sends nothing. A session of the pool waits at most lock_timeout…
      const t0 = Date.now();
      await expect(lock()).rejects.toThrow(/lock timeout/);
      expect(Date.now() - t0).toBeLessThan(3_000);
      // …and PostgreSQL ends the idle transaction, so the row is free again.
      await new Promise((r) => setTimeout(r, 1_500));
      expect((await lock()).rows).toEqual([{ id: 1 }]);
    } finally {
      await holder.end().catch(() => undefined);
    }
  });
});

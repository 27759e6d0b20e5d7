import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';

export type Dialect = 'sqlite' | 'postgres';

/** The one handle on the relational store. Same API on SQLite (embedded) and PostgreSQL (scaled). */
export interface Database {
  readonly kysely: Kysely<DB>;
  readonly dialect: Dialect;
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent the SQLite file `<dataDir>/atelier.db` is used. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves with one); created if missing. */
  pgSchema?: string;
  /** Largest number of pooled PostgreSQL connections. */
  pgPoolSize?: number;
}

// PostgreSQL returns BIGINT (count(*), sums) as strings by default; our counters fit in doubles.
pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts);
  return openSqlite(path.join(opts.dataDir, 'atelier.db'));
}

function openSqlite(file: string): Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const native = new BetterSqlite3(file);
  native.pragma('journal_mode = WAL');
  native.pragma('synchronous = NORMAL');
  native.pragma('busy_timeout = 5000');
  native.pragma('foreign_keys = ON');
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(native) }) });
  return wrap(kysely, 'sqlite');
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running the small
 * indexed queries of the hot paths. Statements are cached by SQL text (bounded, least recently
 * used evicted) and reused when not busy (an iterator still open on it).
 */
function withStatementCache(native: BetterSqlite3.Database, max = 500) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => native.close(),
    prepare(sqlText: string) {
      const hit = cache.get(sqlText);
      if (hit && !hit.busy) {
        cache.delete(sqlText);
        cache.set(sqlText, hit);
        return hit;
      }
      const stmt = native.prepare(sqlText);
      if (!hit) {
        cache.set(sqlText, stmt);
        if (cache.size > max) cache.delete(cache.keys().next().value as string);
      }
      return stmt;
    },
  };
}

async function openPostgres(url: string, opts: DatabaseOptions): Promise<Database> {
  const schema = opts.pgSchema;
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  if (schema) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.pgPoolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return wrap(kysely, 'postgres', schema);
}

function wrap(kysely: Kysely<DB>, dialect: Dialect, pgSchema?: string): Database {
  return {
    kysely,
    dialect,
    async migrate() {
      const migrator = new Migrator({
        db: kysely,
        provider: { getMigrations: async () => migrations },
        // Keep the migration bookkeeping inside the schema too, or Kysely sees another schema's.
        ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
      });
      const { error, results } = await migrator.migrateToLatest();
      const failed = results?.find((r) => r.status === 'Error');
      if (error || failed) {
        throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
      }
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      await kysely.destroy();
    },
  };
}

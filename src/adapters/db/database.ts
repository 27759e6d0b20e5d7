import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
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
  /**
   * SQLite: a token that changes whenever any committed write reached the database, from this
   * process or another (data_version + total_changes), so process-local read caches can be exact.
   * PostgreSQL: undefined (nothing is cached; many processes write).
   */
  generation(): string | undefined;
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
  /**
   * Bounds every PostgreSQL session sets (ms; 0 = none): a statement's run, a wait for a lock, and
   * a transaction left idle (a frozen process holding a row lock is cut off, so the others go on).
   */
  pgTimeouts?: { statementMs: number; lockMs: number; idleInTransactionMs: number };
}

/** The `options` startup parameter of a PostgreSQL connection: search path and time bounds. Pure. */
export function pgSessionOptions(schema: string | undefined, t: DatabaseOptions['pgTimeouts']): string | undefined {
  const parts = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(t
      ? [
          `-c statement_timeout=${Math.max(0, Math.round(t.statementMs))}`,
          `-c lock_timeout=${Math.max(0, Math.round(t.lockMs))}`,
          `-c idle_in_transaction_session_timeout=${Math.max(0, Math.round(t.idleInTransactionMs))}`,
        ]
      : []),
  ];
  return parts.length ? parts.join(' ') : undefined;
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
  const { database, state } = instrumented(native);
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: database as never }) });
  const dataVersion = native.prepare('PRAGMA data_version').pluck();
  // Other connections' commits (data_version) are read once per turn of the event loop, not at
  // every cached read (a request makes two: its key, then its resource): a commit by another
  // process is seen from the next turn on. This process's own writes count at once (state.writes).
  let version: number | undefined;
  const forget = () => {
    version = undefined;
  };
  const otherCommits = () => {
    if (version === undefined) {
      version = dataVersion.get() as number;
      setImmediate(forget);
    }
    return version;
  };
  // The token is built again only when one of its parts moved (a request asks for it twice).
  let token = '';
  let tokenVersion = -1;
  let tokenWrites = -1;
  const generation = () => {
    const v = otherCommits();
    if (v !== tokenVersion || state.writes !== tokenWrites) {
      tokenVersion = v;
      tokenWrites = state.writes;
      token = `${v}:${tokenWrites}`;
    }
    return token;
  };
  return wrap(kysely, 'sqlite', undefined, generation);
}

/**
 * What Kysely's SQLite driver sees of better-sqlite3, with two additions:
 * - statements are cached by SQL text (bounded, least recently used evicted) and reused when not
 *   busy: Kysely prepares every query anew, and preparing costs more than running the small
 *   indexed queries of the hot paths;
 * - every statement that can write bumps `writes`, which with SQLite's data_version (writes by
 *   other connections) makes the database generation read caches check.
 */
function instrumented(native: BetterSqlite3.Database, max = 500) {
  type Facade = Pick<BetterSqlite3.Statement, 'reader' | 'busy'> & {
    all(params: unknown[]): unknown[];
    run(params: unknown[]): BetterSqlite3.RunResult;
    iterate(params: unknown[]): IterableIterator<unknown>;
  };
  const cache = new Map<string, { stmt: BetterSqlite3.Statement; facade: Facade }>();
  const state = { writes: 0 };
  const facadeOf = (stmt: BetterSqlite3.Statement): Facade => {
    const writes = !stmt.readonly;
    return {
      reader: stmt.reader,
      get busy() {
        return stmt.busy;
      },
      all(params) {
        if (writes) state.writes++;
        return stmt.all(params);
      },
      run(params) {
        if (writes) state.writes++;
        return stmt.run(params);
      },
      iterate: (params) => stmt.iterate(params),
    };
  };
  const database = {
    close: () => native.close(),
    prepare(sqlText: string): Facade {
      const hit = cache.get(sqlText);
      if (hit && !hit.stmt.busy) {
        cache.delete(sqlText);
        cache.set(sqlText, hit);
        return hit.facade;
      }
      const stmt = native.prepare(sqlText);
      const entry = { stmt, facade: facadeOf(stmt) };
      if (!hit) {
        cache.set(sqlText, entry);
        if (cache.size > max) cache.delete(cache.keys().next().value as string);
      }
      return entry.facade;
    },
  };
  return { database, state };
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
  const options = pgSessionOptions(schema, opts.pgTimeouts);
  const pool = new pg.Pool({ connectionString: url, max: opts.pgPoolSize ?? 10, ...(options ? { options } : {}) });
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return wrap(kysely, 'postgres', schema);
}

/**
 * Another schema than ours dropped while the catalog was read: PostgreSQL's invalid_schema_name,
 * or undefined_table for a relation named in another schema (`relation "t_x.organizations"
 * does not exist`: its table went between the list of tables and the read of its columns).
 */
export function droppedMeanwhile(error: unknown, ours: string | undefined): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.message !== 'string') return false;
  if (e.code === '3F000') return ours === undefined || !e.message.includes(`"${ours}"`);
  if (e.code !== '42P01') return false;
  const schema = /^relation "([^".]+)\.[^"]+" does not exist/.exec(e.message)?.[1];
  return schema !== undefined && schema !== ours;
}

function wrap(
  kysely: Kysely<DB>,
  dialect: Dialect,
  pgSchema?: string,
  generation: () => string | undefined = () => undefined,
): Database {
  return {
    kysely,
    dialect,
    generation,
    async migrate() {
      const migrator = new Migrator({
        db: kysely,
        provider: { getMigrations: async () => migrations },
        // Keep the migration bookkeeping inside the schema too, or Kysely sees another schema's.
        ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
      });
      // Kysely's migrator reads every schema's tables from the catalog before it takes its lock;
      // a schema another client drops meanwhile (another install on the same server, a test's
      // throwaway schema) fails that read with invalid_schema_name. Nothing was migrated then:
      // read again, after a short pause that grows (a server busy dropping schemas, as a test
      // suite's is, can hit the window several times in a row).
      let { error, results } = await migrator.migrateToLatest();
      for (let retry = 1; retry <= 20 && droppedMeanwhile(error, pgSchema); retry++) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * retry)));
        ({ error, results } = await migrator.migrateToLatest());
      }
      const failed = results?.find((r) => r.status === 'Error');
      if (error || failed) {
        throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
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

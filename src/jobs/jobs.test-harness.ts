import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { type Database, openDatabase } from '../adapters/db/database.ts';
import { dropSchema, TEST_PG_URL, TEST_REDIS_URL } from '../../test/helpers/pg.ts';
import { createBullmqJobSystem } from './bullmq.driver.ts';
import { createLocalJobSystem, type LocalJobSystemOptions } from './local.driver.ts';
import type { JobLogger, JobSystem } from './types.ts';

/**
 * One backend (fresh SQLite file, PostgreSQL schema or Redis key prefix) per test, and as many
 * job-system instances on it as the test wants, as if each were its own process. Timings are
 * shrunk to milliseconds so the suites stay fast.
 */
export type DriverKind = 'local-sqlite' | 'local-postgres' | 'bullmq';

export type InstanceOptions = Omit<LocalJobSystemOptions, 'db'>;

const FAST: InstanceOptions = {
  leaseMs: 300,
  pollMs: 50,
  stopGraceMs: 2000,
  concurrency: 4,
};

export interface Backend {
  kind: DriverKind;
  /** Redis key prefix (bullmq). */
  prefix: string;
  /** A new instance on this backend (a separate database handle or Redis connection). */
  make(opts?: InstanceOptions): Promise<JobSystem>;
  /** A database handle on the backend (local drivers only). */
  db(): Promise<Database>;
  /** Stops every instance and removes the backend. */
  dispose(): Promise<void>;
}

export async function redisAvailable(): Promise<boolean> {
  const r = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export async function createBackend(kind: DriverKind): Promise<Backend> {
  const systems: JobSystem[] = [];
  const handles: Database[] = [];
  const id = randomBytes(5).toString('hex');
  const dataDir = kind === 'local-sqlite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-jobs-')) : undefined;
  const schema = kind === 'local-postgres' ? `jobs_${id}` : undefined;
  const prefix = `atelier-test-${id}`;

  async function db(): Promise<Database> {
    const handle = await openDatabase({
      databaseUrl: schema ? TEST_PG_URL : undefined,
      dataDir: dataDir ?? '',
      ...(schema ? { pgSchema: schema, pgPoolSize: 4 } : {}),
    });
    handles.push(handle);
    return handle;
  }
  if (kind !== 'bullmq') await (await db()).migrate();

  return {
    kind,
    prefix,
    db,
    async make(opts = {}) {
      const o = { ...FAST, ...opts };
      const system =
        kind === 'bullmq'
          ? createBullmqJobSystem({ ...o, redisUrl: TEST_REDIS_URL, prefix })
          : createLocalJobSystem({ ...o, db: await db() });
      systems.push(system);
      return system;
    },
    async dispose() {
      await Promise.all(systems.map((s) => s.stop()));
      await Promise.all(handles.map((h) => h.close()));
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
      if (kind === 'bullmq') await deleteKeys(`${prefix}:*`);
    },
  };
}

async function deleteKeys(pattern: string): Promise<void> {
  const r = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length) await r.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await r.quit();
  }
}

/** Polls until `cond` holds (or throws after `ms`). */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A logger that keeps every line with the bindings of its children (job, jobId, queue...). */
export function recordingLogger(): JobLogger & { lines: { level: string; msg: string; fields: object }[] } {
  const lines: { level: string; msg: string; fields: object }[] = [];
  const make = (bindings: Record<string, unknown>): JobLogger => {
    const at = (level: string) => (obj: object, msg?: string) =>
      void lines.push({ level, msg: msg ?? '', fields: { ...bindings, ...obj } });
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return Object.assign(make({}), { lines });
}

/**
 * The value of one sample in Prometheus text (`name{a="x",b="y"} 3`) whose labels include
 * `labels`; undefined when there is none.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.entries(labels).every(([k, v]) => (m[2] ?? '').split(',').includes(`${k}="${v}"`));
    if (has) return Number(m[3]);
  }
  return undefined;
}

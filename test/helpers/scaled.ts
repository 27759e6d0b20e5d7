import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { tmpDir } from './app.ts';
import { deleteRedisKeys, freePort } from './assets.ts';
import { TEST_PG_URL, TEST_REDIS_URL } from './pg.ts';
import { atelier, cleanEnv, healthy, kill, type Proc, run, workerReady } from './processes.ts';
import { startS3rver, type TestS3 } from './s3.ts';

export interface ScaledStack {
  /** http://127.0.0.1:<port> of the API process. */
  base: string;
  /** The processes' environment (PostgreSQL, Redis, S3 settings). */
  env: NodeJS.ProcessEnv;
  apiKey: string;
  organizationId: string;
  /** Bearer token of /metrics on the API port (ATELIER_METRICS_TOKEN). */
  metricsToken: string;
  /** The BullMQ key prefix of this stack. */
  prefix: string;
  s3: TestS3;
  /** `serve --no-workers`, and one `worker`. */
  api: Proc;
  worker: Proc;
  /** Starts another Atelier process on the stack; it is stopped with the rest. */
  start(args: string[]): Proc;
}

/**
 * The scaled mode as real processes for one test: a database of its own on the test PostgreSQL,
 * BullMQ under a prefix of its own on the test Redis, an s3rver, an organization with a key, an
 * API process without workers and one worker, both ready, with `settings` added to their
 * environment. Everything is stopped and removed afterwards, whatever `fn` did.
 */
export async function withScaledStack(
  name: string,
  fn: (s: ScaledStack) => Promise<void>,
  settings: Record<string, string> = {},
): Promise<void> {
  const suffix = randomBytes(4).toString('hex');
  const database = `atelier_${name}_${suffix}`;
  const prefix = `atelier-${name}-${suffix}`;
  const metricsToken = randomBytes(16).toString('hex');
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const dbUrl = new URL(TEST_PG_URL);
  dbUrl.pathname = `/${database}`;
  const dataDir = tmpDir(`atelier-${name}-`);
  const procs: Proc[] = [];
  let s3: TestS3 | undefined;
  try {
    s3 = await startS3rver(`atelier-${name}`);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = cleanEnv({
      ATELIER_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ATELIER_PUBLIC_URL: base,
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: TEST_REDIS_URL,
      ATELIER_QUEUE_PREFIX: prefix,
      ATELIER_METRICS_TOKEN: metricsToken,
      ...s3.env,
      ...settings,
    });
    const { apiKey, organizationId } = JSON.parse(await run(['admin', 'bootstrap', '--json'], env));
    const start = (args: string[]) => {
      const p = atelier(args, env);
      procs.push(p);
      return p;
    };
    const api = start(['serve', '--no-workers']);
    const worker = start(['worker']);
    await Promise.all([healthy(base, api), workerReady(worker)]);
    await fn({ base, env, apiKey, organizationId, metricsToken, prefix, s3, api, worker, start });
  } finally {
    for (const p of procs) await kill(p, 'SIGTERM');
    await s3?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(TEST_REDIS_URL, prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

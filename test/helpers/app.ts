import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createDeps, type Deps, type DepsOverrides } from '../../src/deps.ts';
import { dropSchema, TEST_PG_URL } from './pg.ts';

export type DbKind = 'sqlite' | 'postgres';

/** The databases the current run covers: SQLite always, PostgreSQL when reachable (always in CI). */
export function dbKinds(): DbKind[] {
  return inject('postgres') ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  config: Config;
  kind: DbKind;
  /** A new organization with an owner and a key (enterprise plan unless told otherwise). */
  bootstrap(opts?: {
    plan?: string;
    orgName?: string;
  }): Promise<{ organizationId: string; userId: string; apiKey: string }>;
  /** app.inject with `Authorization: Bearer <key>` added when a key is given. */
  request(opts: InjectOptions & { key?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions extends DepsOverrides {
  env?: Record<string, string>;
}

export function tmpDir(prefix = 'atelier-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A fully wired app on a fresh database (temp SQLite file, or a throwaway PostgreSQL schema). */
export async function createTestApp(kind: DbKind = 'sqlite', opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = tmpDir();
  const schema = kind === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ATELIER_DATA_DIR: dataDir,
    ATELIER_RATE_LIMIT_PER_SECOND: '100000',
    ATELIER_RATE_LIMIT_BURST: '100000',
    // Engines on the event loop unless a test asks for threads (test/engine-threads.test.ts does):
    // a thread per app would load the engines again in every test file.
    ATELIER_ENGINE_THREADS: '0',
    // Scenes and environments at 256 px, the smallest the setting allows (the default is 1024):
    // these apps test the API, its states and its rules; the engines' output at full size is the
    // engine tests' and the benches' work. A sixteenth of the pixels: the engines are most of the
    // suite's CPU (at 384 px the scene and refinement files took 30 % more).
    ATELIER_IMAGE_LONG_SIDE: '256',
    ...(kind === 'postgres' ? { DATABASE_URL: TEST_PG_URL } : {}),
    ...opts.env,
  });
  const { env: _env, ...overrides } = opts;
  // Console passwords hashed at scrypt N=2^10, not 2^15: the same code at a 32nd of the cost
  // (~100 ms of CPU a sign-in otherwise; the console tests sign in hundreds of times).
  const deps = await createDeps(config, {
    passwordCost: 2 ** 10,
    ...overrides,
    ...(schema ? { pgSchema: schema } : {}),
  });
  const app = await buildApp(deps);
  await app.ready();
  return {
    app,
    deps,
    config,
    kind,
    async bootstrap(o = {}) {
      const r = await deps.access.bootstrap({
        planSlug: o.plan ?? 'enterprise',
        ...(o.orgName ? { orgName: o.orgName } : {}),
      });
      return { organizationId: r.organizationId, userId: r.userId, apiKey: r.apiKey };
    },
    request({ key, ...o }) {
      const headers = { ...(o.headers ?? {}) } as Record<string, string>;
      if (key) headers.authorization = `Bearer ${key}`;
      return app.inject({ ...o, headers });
    },
    async close() {
      // Tests that listen leave keep-alive connections open in fetch's pool: close them too, or
      // app.close() waits out their keep-alive timeout.
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
      await deps.close();
      if (schema) await dropSchema(schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

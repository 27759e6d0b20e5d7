import { postgresAvailable, TEST_PG_URL } from './pg.ts';

/**
 * Decides once whether the PostgreSQL suites run. In CI they must: an unreachable database fails
 * the run instead of silently skipping half the suite. Elsewhere they are skipped with a notice.
 */
export default async function setup({ provide }: { provide: (key: string, value: unknown) => void }) {
  const ok = await postgresAvailable();
  if (!ok && process.env.CI) throw new Error(`CI: PostgreSQL is not reachable at ${TEST_PG_URL}`);
  if (!ok)
    process.stderr.write(`\n[atelier tests] PostgreSQL not reachable at ${TEST_PG_URL}: its suites are skipped.\n`);
  provide('postgres', ok);
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: boolean;
  }
}

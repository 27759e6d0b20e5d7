import pg from 'pg';

/** The PostgreSQL the scaled-mode tests use (CI and this machine: 127.0.0.1:5432, trust auth). */
export const TEST_PG_URL = process.env.ATELIER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.ATELIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

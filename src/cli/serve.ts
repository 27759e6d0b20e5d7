import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { buildApp } from '../app.ts';
import { createDeps } from '../deps.ts';

/** `atelier serve`: the API (and, unless --no-workers, the in-process job workers). */
export async function serve(config: Config, opts: { workers: boolean }): Promise<void> {
  const deps = await createDeps(config);
  // The bucket is there (or made, S3_CREATE_BUCKET) before anything is served or taken.
  await deps.storage.prepare({ createBucket: config.storage.s3?.createBucket ?? false }).catch(async (err) => {
    await deps.close();
    throw err;
  });
  const app = await buildApp(deps);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app.close();
    await deps.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  // The admin CLI makes links (console invites) with the running server's public URL.
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(serverInfoFile(config), JSON.stringify({ publicUrl: config.publicUrl }));
  } catch (err) {
    app.log.warn({ err }, 'could not record the public URL for the admin CLI');
  }
  if (opts.workers) await deps.startWorkers();
  const orgs = await deps.access.listOrganizations();
  // How the admin command is spelled where this runs (the container image sets `atelier`).
  const cli = process.env.ATELIER_CLI ?? 'npm run -s atelier --';
  const mode = config.databaseUrl ? 'scaled (PostgreSQL)' : `embedded (SQLite in ${config.dataDir})`;
  const lines = [
    '',
    `Atelier is running on ${config.publicUrl}/v1 — ${mode}, environment ${config.env}${opts.workers ? '' : ', API only (--no-workers)'}`,
    `API docs: ${config.publicUrl}/docs`,
    orgs.length === 0
      ? `No organization yet. Get an API key with:\n  ${cli} admin bootstrap`
      : `Get another API key with:\n  ${cli} admin bootstrap   (new organization)\n  ${cli} admin key create --user <userId>`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Where `serve` records what the admin CLI needs to know of it (its public URL). */
export const serverInfoFile = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'server.json');

/**
 * The public URL for links the admin CLI prints: ATELIER_PUBLIC_URL when this command has it,
 * else the one the server running on the same data folder recorded, else the default.
 */
export function linkBaseUrl(config: Pick<Config, 'dataDir' | 'publicUrl'>, env: NodeJS.ProcessEnv): string {
  if (env.ATELIER_PUBLIC_URL) return config.publicUrl;
  try {
    const info = JSON.parse(fs.readFileSync(serverInfoFile(config), 'utf8')) as { publicUrl?: unknown };
    return typeof info.publicUrl === 'string' ? info.publicUrl : config.publicUrl;
  } catch {
    return config.publicUrl;
  }
}

import type { Config } from '../config.ts';
import { buildApp } from '../app.ts';
import { createDeps } from '../deps.ts';

/** `atelier serve`: the API (and, unless --no-workers, the in-process job workers). */
export async function serve(config: Config, opts: { workers: boolean }): Promise<void> {
  const deps = await createDeps(config);
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
  if (opts.workers) await deps.startWorkers();
  const orgs = await deps.access.listOrganizations();
  const mode = config.databaseUrl ? 'scaled (PostgreSQL)' : `embedded (SQLite in ${config.dataDir})`;
  const lines = [
    '',
    `Atelier is running on ${config.publicUrl}/v1 — ${mode}, environment ${config.env}${opts.workers ? '' : ', API only (--no-workers)'}`,
    `API docs: ${config.publicUrl}/docs`,
    orgs.length === 0
      ? 'No organization yet. Get an API key with:\n  npm run -s atelier -- admin bootstrap'
      : 'Get another API key with:\n  npm run -s atelier -- admin bootstrap   (new organization)\n  npm run -s atelier -- admin key create --user <userId>',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

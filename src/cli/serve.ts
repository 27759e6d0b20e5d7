import type { Config } from '../config.ts';
import { buildApp } from '../app.ts';
import { metricsListenerOf, readyDeps } from './ready-deps.ts';
import { recordServerInfo } from './server-info.ts';
import { announce, type ServeStart, serveBanner, serveStartFields } from './start-line.ts';

/** `atelier serve`: the API (and, unless --no-workers, the in-process job workers). */
export async function serve(config: Config, opts: { workers: boolean }): Promise<void> {
  const deps = await readyDeps(config);
  const app = await buildApp(deps);
  const metrics = await metricsListenerOf(config, deps);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app.close();
    await metrics?.close();
    await deps.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host }).catch(async (err) => {
    await metrics?.close(); // or it keeps the process up
    throw err;
  });
  // The admin CLI makes links (console invites) with the running server's public URL.
  // …and the database it uses, so an admin command on another database is refused (server-info.ts).
  try {
    recordServerInfo(config);
  } catch (err) {
    app.log.warn({ err }, 'could not record the public URL and database for the admin CLI');
  }
  if (opts.workers) await deps.startWorkers();
  const orgs = await deps.access.listOrganizations();
  const start: ServeStart = {
    config,
    workers: opts.workers,
    organizations: orgs.length,
    // How the admin command is spelled where this runs (the container image sets `atelier`).
    cli: process.env.ATELIER_CLI ?? 'npm run -s atelier --',
  };
  announce(config, app.log, { msg: 'listening', fields: serveStartFields(start), banner: serveBanner(start) });
}

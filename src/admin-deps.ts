import { createFetcher, type Fetcher } from './adapters/fetch/fetcher.ts';
import type { Config } from './config.ts';
import { type CoreOverrides, openCore, openJobs } from './core-deps.ts';
import type { Deps } from './deps.ts';
import { createConsoleModule } from './modules/console/console.module.ts';
import { createWebhooksModule } from './modules/webhooks/webhooks.module.ts';

/** What `atelier admin` uses: organizations, users and keys, webhook endpoints, console invites. */
export type AdminDeps = Pick<Deps, 'config' | 'clock' | 'access' | 'webhooks' | 'console'> & {
  close(): Promise<void>;
};

/**
 * The admin commands' services, without the engines, storage, HTTP layer and the other modules a
 * server loads: a command starts in about half the time, and touches only the database (and the
 * job queue, where a webhook test delivery is recorded).
 */
export async function createAdminDeps(
  config: Config,
  o: CoreOverrides & { fetcher?: Fetcher } = {},
): Promise<AdminDeps> {
  const { clock, db, access } = await openCore(config, o);
  const jobs = openJobs(config, db, o);
  const fetcher = o.fetcher ?? createFetcher({ allowPrivate: config.allowPrivateFetch });
  const webhooks = createWebhooksModule({ db, clock, fetcher, jobs, config, access });
  jobs.register(...webhooks.jobs);
  const consoleModule = createConsoleModule({ db, clock, config });
  return {
    config,
    clock,
    access,
    webhooks: webhooks.service,
    console: consoleModule.service,
    async close() {
      await jobs.stop();
      await db.close();
    },
  };
}

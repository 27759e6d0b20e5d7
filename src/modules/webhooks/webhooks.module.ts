import type { Database } from '../../adapters/db/database.ts';
import type { Fetcher } from '../../adapters/fetch/fetcher.ts';
import type { Clock } from '../../clock.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { AccessService } from '../access/access.service.ts';
import { webhookJobs, DeliverWebhook } from './webhooks.jobs.ts';
import { createWebhooksRepo } from './webhooks.repo.ts';
import { createWebhooksService } from './webhooks.service.ts';
import { defineModule } from '../feature-module.ts';
import { webhooksRoutes } from './webhooks.routes.ts';

export interface WebhooksModuleDeps {
  db: Database;
  clock: Clock;
  fetcher: Fetcher;
  jobs: JobSystem;
  /** ATELIER_WEBHOOK_RETRY_SCHEDULE: delays between delivery attempts; the public URL (Location headers). */
  config: { webhooks: { retryScheduleMs: readonly number[] }; publicUrl: string };
  access: AccessService;
}

/**
 * Signed webhooks (docs/decisions/integrations.md "Webhooks"): an organization's endpoints, the change sink that
 * turns terminal transitions into deliveries, the delivery job and the routes. deps.ts registers the
 * jobs and adds `service.onChange` as a sink of `deps.changes`.
 */
export function createWebhooksModule(deps: WebhooksModuleDeps) {
  const repo = createWebhooksRepo(deps.db);
  const service = createWebhooksService({
    clock: deps.clock,
    fetcher: deps.fetcher,
    jobs: deps.jobs,
    repo,
    deliverJob: DeliverWebhook,
    retryScheduleMs: deps.config.webhooks.retryScheduleMs,
    orgExists: async (orgId) => (await deps.access.getOrganization(orgId)) !== undefined,
  });
  const routes = webhooksRoutes({ webhooks: service, config: deps.config });
  return defineModule({ name: 'webhooks', service, jobs: webhookJobs(service), routes });
}

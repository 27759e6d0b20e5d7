import type { AppDeps } from '../../app-deps.ts';
import { webhookJobs, DeliverWebhook } from './webhooks.jobs.ts';
import { createWebhooksRepo } from './webhooks.repo.ts';
import { createWebhooksService } from './webhooks.service.ts';

/**
 * Signed webhooks (docs/decisions.md "Webhooks"): an organization's endpoints, the change sink that
 * turns terminal transitions into deliveries, and the delivery job. deps.ts registers the jobs and
 * adds `service.onChange` as a sink of `deps.changes`.
 */
export function createWebhooksModule(deps: Pick<AppDeps, 'db' | 'clock' | 'fetcher' | 'jobs' | 'config' | 'access'>) {
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
  return { service, jobs: webhookJobs(service) };
}

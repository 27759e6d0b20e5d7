import { Type } from 'typebox';
import { defineJob, type JobRef } from '../../jobs/types.ts';
import type { WebhooksService } from './webhooks.service.ts';

/** Attempt `attempt` of delivery `deliveryId`; job id = the delivery id (attempt 1), `<id>.a<n>` after. */
const Payload = Type.Object({
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
  attempt: Type.Integer({ minimum: 1 }),
});
export const DeliverWebhook: JobRef<typeof Payload> = { name: 'webhooks.deliver', payload: Payload };

/**
 * The delivery job. The HTTP retry schedule is the service's (each attempt re-enqueues the next
 * with a delay); the job system's own retries only cover the handler failing outright (database
 * down), so they stay few and quick.
 */
export const webhookJobs = (service: Pick<WebhooksService, 'runAttempt' | 'giveUp'>) => [
  defineJob({
    ...DeliverWebhook,
    queue: 'webhooks',
    attempts: 3,
    backoffMs: 5_000,
    timeoutMs: 30_000,
    async handler(payload, ctx) {
      await service.runAttempt(payload, ctx.signal);
    },
    async onFailed(payload, error) {
      await service.giveUp(payload.deliveryId, error);
    },
  }),
];

import { createHash, randomBytes } from 'node:crypto';
import type { ResourceChange } from '../../events/changes.ts';

/**
 * What a webhook says. One event per terminal transition of a pollable resource, named
 * `<kind>.<status>` (`scene_forge.completed`, `video_group.failed`, `brand_dna_version.ready`);
 * the assets' `complete` is spelled `completed` (and `cancelled` `canceled`) so every family
 * reads the same. The body is the Standard Webhooks shape `{ type, timestamp, data }` with only
 * the resource's identity in `data`: the receiver GETs the resource for its details (the full
 * representation carries signed download links that expire, and a small payload stays cheap to
 * store, sign and retry). See docs/decisions/integrations.md "Webhooks".
 */

export const TEST_EVENT = 'webhook.test';

const STATUS_NAMES: Record<string, string> = { complete: 'completed', cancelled: 'canceled' };

export function eventType(change: Pick<ResourceChange, 'kind' | 'status'>): string {
  return `${change.kind}.${STATUS_NAMES[change.status] ?? change.status}`;
}

export interface WebhookPayload {
  type: string;
  /** When the transition happened (ISO 8601), not when it was sent. */
  timestamp: string;
  data: {
    id: string;
    kind: string;
    status: string;
    brandId?: string;
    organizationId: string;
  };
}

export function eventPayload(change: ResourceChange): WebhookPayload {
  return {
    type: eventType(change),
    timestamp: change.at,
    data: {
      id: change.id,
      kind: change.kind,
      status: change.status,
      ...(change.brandId ? { brandId: change.brandId } : {}),
      organizationId: change.orgId,
    },
  };
}

export function testPayload(orgId: string, endpointId: string, at: string): WebhookPayload {
  return {
    type: TEST_EVENT,
    timestamp: at,
    data: { id: endpointId, kind: 'webhook_endpoint', status: 'test', organizationId: orgId },
  };
}

/**
 * Whether an endpoint's filter takes an event type: `[]` takes everything; an entry is a type
 * (`scene_forge.completed`) or a family (`scene_forge.*`).
 */
export function matches(filter: readonly string[], type: string): boolean {
  if (filter.length === 0) return true;
  return filter.some((f) => f === type || (f.endsWith('.*') && type.startsWith(f.slice(0, -1))));
}

/** Event types are lower-case dotted words; a filter entry may end in `.*`. */
export const EVENT_FILTER_RE = /^[a-z][a-z0-9_]*\.(\*|[a-z][a-z0-9_]*)$/;

/**
 * The delivery id (= `webhook-id`) of an event for an endpoint: derived from both, so publishing
 * the same terminal change twice (a job run again, two processes) makes one delivery, not two.
 * `msg_` + 32 hex digits: a valid job id too.
 */
export function deliveryId(endpointId: string, type: string, resourceId: string): string {
  return `msg_${createHash('sha256').update(`${endpointId}\n${type}\n${resourceId}`).digest('hex').slice(0, 32)}`;
}

export function randomDeliveryId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

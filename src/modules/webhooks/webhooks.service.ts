import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../app-deps.ts';
import { FetchError } from '../../adapters/fetch/fetcher.ts';
import type { ResourceChange } from '../../events/changes.ts';
import type { JobRef } from '../../jobs/types.ts';
import { AccessError } from '../access/access.errors.ts';
import {
  deliveryId,
  EVENT_FILTER_RE,
  eventPayload,
  matches,
  randomDeliveryId,
  testPayload,
  TEST_EVENT,
} from './webhooks.events.ts';
import type { DeliveryRow, EndpointRow, WebhooksRepo } from './webhooks.repo.ts';
import { generateSecret, signedHeaders } from './webhooks.signature.ts';

export const USER_AGENT = 'Atelier-Webhooks/1';
/** One attempt's bound: connection, response headers and body together. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A receiver's answer is read up to this size (a larger one fails the attempt). */
const MAX_RESPONSE_BYTES = 256 * 1024;
const MAX_ERROR_CHARS = 500;

export interface WebhookEndpoint {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  /** Event types the endpoint takes (`[]`: every event). */
  events: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode?: number;
  error?: string;
  ms: number;
}

export interface DeliveryPayload {
  deliveryId: string;
  attempt: number;
}

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  organizationId: r.organization_id,
  url: r.url,
  description: r.description,
  events: JSON.parse(r.event_types) as string[],
  enabled: r.enabled === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventType: r.event_type,
  status: r.status as WebhookDelivery['status'],
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
});

/** Longest webhook URL accepted (characters). */
export const MAX_ENDPOINT_URL = 2048;

/** Checks an operator's URL: http(s), a host, no credentials, bounded. Its address is checked at delivery. */
export function checkEndpointUrl(raw: string): string {
  if (raw.length > MAX_ENDPOINT_URL)
    throw new AccessError(`webhook URLs may be at most ${MAX_ENDPOINT_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AccessError(`not a valid URL: "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AccessError(`webhook URLs must be http or https (got "${url.protocol}")`);
  }
  if (url.username || url.password) throw new AccessError('webhook URLs may not carry a user name or password');
  if (!url.hostname) throw new AccessError('the webhook URL has no host');
  if (url.href.length > MAX_ENDPOINT_URL) {
    throw new AccessError(`webhook URLs may be at most ${MAX_ENDPOINT_URL} characters`);
  }
  return url.href;
}

/** Attempt `n`'s delay (ms) after attempt `n - 1`: the schedule's entry, ±20 % jitter. */
export function retryDelay(scheduleMs: readonly number[], failedAttempt: number, random = Math.random): number {
  const base = scheduleMs[failedAttempt - 1] ?? 0;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The job id of attempt `n`: the delivery id itself for the first, `<id>.a<n>` after. */
export const attemptJobId = (id: string, attempt: number) => (attempt <= 1 ? id : `${id}.a${attempt}`);

export function createWebhooksService(
  deps: Pick<AppDeps, 'clock' | 'fetcher' | 'jobs'> & {
    repo: WebhooksRepo;
    deliverJob: JobRef;
    /** Delays between attempts; attempts = length + 1. */
    retryScheduleMs: readonly number[];
    orgExists(orgId: string): Promise<boolean>;
  },
) {
  const { repo, clock } = deps;
  const now = () => clock().toISOString();

  async function requireEndpoint(id: string): Promise<EndpointRow> {
    const row = await repo.getEndpoint(id);
    if (!row) throw new AccessError(`no webhook endpoint ${id}`);
    return row;
  }

  /** One POST of the stored body, signed for this attempt's time, through the SSRF-safe fetcher. */
  async function post(endpoint: EndpointRow, row: DeliveryRow, signal?: AbortSignal): Promise<AttemptOutcome> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const timestamp = Math.floor(clock().getTime() / 1000);
    try {
      const res = await deps.fetcher.fetch(endpoint.url, {
        method: 'POST',
        body: row.payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          ...signedHeaders(endpoint.secret, row.id, timestamp, row.payload),
        },
        accept: '*/*',
        maxRedirects: 0,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        idleTimeoutMs: DELIVERY_TIMEOUT_MS,
        maxBytes: MAX_RESPONSE_BYTES,
        throwOnHttpError: false,
        ...(signal ? { signal } : {}),
      });
      if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, ms: ms() };
      const error =
        res.status >= 300 && res.status < 400
          ? `the endpoint answered HTTP ${res.status}; redirects are not followed`
          : `the endpoint answered HTTP ${res.status}`;
      return { ok: false, statusCode: res.status, error, ms: ms() };
    } catch (err) {
      if (signal?.aborted) throw err; // the job timed out or is stopping: not this attempt's outcome
      if (err instanceof FetchError) {
        const error =
          err.code === 'TOO_MANY_REDIRECTS'
            ? 'the endpoint answered with a redirect; redirects are not followed'
            : `${err.code}: ${err.message}`;
        return { ok: false, error: error.slice(0, MAX_ERROR_CHARS), ms: ms() };
      }
      throw err;
    }
  }

  async function enqueueAttempt(id: string, attempt: number, delayMs: number): Promise<void> {
    await deps.jobs.enqueue(
      deps.deliverJob,
      { deliveryId: id, attempt },
      { jobId: attemptJobId(id, attempt), ...(delayMs > 0 ? { delayMs } : {}) },
    );
  }

  /**
   * Runs attempt `attempt` of a delivery (the delivery job). Idempotent: a duplicate run of an
   * attempt already recorded only makes sure the next one is queued.
   */
  async function runAttempt(payload: DeliveryPayload, signal?: AbortSignal): Promise<void> {
    const row = await repo.getDelivery(payload.deliveryId);
    if (row?.status !== 'pending') return;
    if (row.attempts >= payload.attempt) {
      const due = row.next_attempt_at ? Date.parse(row.next_attempt_at) - clock().getTime() : 0;
      await enqueueAttempt(row.id, row.attempts + 1, Math.max(0, due));
      return;
    }
    if (row.attempts !== payload.attempt - 1) return; // out of order: the queued attempt runs instead
    const endpoint = await repo.getEndpoint(row.endpoint_id);
    if (!endpoint) return; // removed (its log with it)
    if (endpoint.enabled !== 1) {
      await repo.abandon(row.id, 'the endpoint was disabled before this attempt; not sent');
      return;
    }
    const outcome = await post(endpoint, row, signal);
    const at = clock();
    if (outcome.ok) {
      await repo.recordAttempt(row.id, payload.attempt, {
        status: 'delivered',
        next_attempt_at: null,
        last_status_code: outcome.statusCode ?? null,
        last_error: null,
        delivered_at: at.toISOString(),
      });
      return;
    }
    const last = payload.attempt > deps.retryScheduleMs.length;
    const delay = last ? 0 : retryDelay(deps.retryScheduleMs, payload.attempt);
    const recorded = await repo.recordAttempt(row.id, payload.attempt, {
      status: last ? 'failed' : 'pending',
      next_attempt_at: last ? null : new Date(at.getTime() + delay).toISOString(),
      last_status_code: outcome.statusCode ?? null,
      last_error: outcome.error ?? null,
      delivered_at: null,
    });
    if (recorded && !last) await enqueueAttempt(row.id, payload.attempt + 1, delay);
  }

  return {
    runAttempt,

    /** The delivery job failed outright (not an HTTP outcome: e.g. the database): end it failed. */
    async giveUp(id: string, error: Error): Promise<void> {
      await repo.abandon(id, `delivery job failed: ${error.message}`.slice(0, MAX_ERROR_CHARS));
    },

    /** The sink of resource changes: one delivery per enabled matching endpoint of the org. */
    async onChange(change: ResourceChange): Promise<void> {
      if (!change.terminal) return;
      const endpoints = await repo.enabledEndpoints(change.orgId);
      if (endpoints.length === 0) return;
      const body = eventPayload(change);
      const payload = JSON.stringify(body);
      const createdAt = now();
      for (const ep of endpoints) {
        if (!matches(JSON.parse(ep.event_types) as string[], body.type)) continue;
        const id = deliveryId(ep.id, body.type, change.id);
        await repo.insertDelivery({
          id,
          endpoint_id: ep.id,
          organization_id: change.orgId,
          event_type: body.type,
          payload,
          status: 'pending',
          attempts: 0,
          next_attempt_at: createdAt,
          last_status_code: null,
          last_error: null,
          created_at: createdAt,
          delivered_at: null,
        });
        // Also when the row existed: the job id dedupes, and a lost enqueue gets a second chance.
        await enqueueAttempt(id, 1, 0);
      }
    },

    async addEndpoint(input: {
      orgId: string;
      url: string;
      events?: string[];
      description?: string | null;
    }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      const url = checkEndpointUrl(input.url);
      if (!(await deps.orgExists(input.orgId))) throw new AccessError(`no organization ${input.orgId}`);
      const events = [...new Set((input.events ?? []).map((e) => e.trim()).filter(Boolean))];
      if (input.events !== undefined && events.length === 0) {
        throw new AccessError('the event list names no event: name at least one, or leave it out for every event');
      }
      for (const e of events) {
        if (!EVENT_FILTER_RE.test(e)) {
          throw new AccessError(`"${e}" is not an event type (e.g. scene_forge.completed or scene_forge.*)`);
        }
      }
      const at = now();
      const secret = generateSecret();
      const row: EndpointRow = {
        id: `we_${randomUUID().replaceAll('-', '')}`,
        organization_id: input.orgId,
        url,
        secret,
        description: input.description ?? null,
        event_types: JSON.stringify(events),
        enabled: 1,
        created_at: at,
        updated_at: at,
      };
      await repo.insertEndpoint(row);
      return { endpoint: toEndpoint(row), secret };
    },

    async listEndpoints(
      orgId: string,
      recent = 5,
    ): Promise<(WebhookEndpoint & { recentDeliveries: WebhookDelivery[] })[]> {
      const rows = await repo.listEndpoints(orgId);
      return Promise.all(
        rows.map(async (r) => ({
          ...toEndpoint(r),
          recentDeliveries: (await repo.recentDeliveries(r.id, recent)).map(toDelivery),
        })),
      );
    },

    async getEndpoint(id: string): Promise<WebhookEndpoint> {
      return toEndpoint(await requireEndpoint(id));
    },

    async removeEndpoint(id: string): Promise<void> {
      if (!(await repo.deleteEndpoint(id))) throw new AccessError(`no webhook endpoint ${id}`);
    },

    async setEnabled(id: string, enabled: boolean): Promise<WebhookEndpoint> {
      if (!(await repo.setEnabled(id, enabled, now()))) throw new AccessError(`no webhook endpoint ${id}`);
      return toEndpoint(await requireEndpoint(id));
    },

    async deliveries(endpointId: string, limit = 50): Promise<WebhookDelivery[]> {
      return (await repo.recentDeliveries(endpointId, limit)).map(toDelivery);
    },

    /**
     * Sends a `webhook.test` event to the endpoint now, once (no retries), even when it is
     * disabled; the delivery is logged like any other. Returns the delivery and the attempt.
     */
    async sendTest(id: string): Promise<{ delivery: WebhookDelivery; outcome: AttemptOutcome }> {
      const endpoint = await requireEndpoint(id);
      const at = now();
      const row: DeliveryRow = {
        id: randomDeliveryId(),
        endpoint_id: endpoint.id,
        organization_id: endpoint.organization_id,
        event_type: TEST_EVENT,
        payload: JSON.stringify(testPayload(endpoint.organization_id, endpoint.id, at)),
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        last_status_code: null,
        last_error: null,
        created_at: at,
        delivered_at: null,
      };
      await repo.insertDelivery(row);
      const outcome = await post(endpoint, row);
      await repo.recordAttempt(row.id, 1, {
        status: outcome.ok ? 'delivered' : 'failed',
        next_attempt_at: null,
        last_status_code: outcome.statusCode ?? null,
        last_error: outcome.error ?? null,
        delivered_at: outcome.ok ? now() : null,
      });
      const stored = await repo.getDelivery(row.id);
      return { delivery: toDelivery(stored ?? row), outcome };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

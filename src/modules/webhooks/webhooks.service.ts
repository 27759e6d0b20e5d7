import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { FetchError, type Fetcher } from '../../adapters/fetch/fetcher.ts';
import { textProblem } from '../../http/schemas.ts';
import type { ResourceChange } from '../../events/changes.ts';
import type { JobRef, JobSystem } from '../../jobs/types.ts';
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
  /** Until then deliveries are also signed with the secret before the last rotation; null: not. */
  previousSecretExpiresAt: string | null;
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

const toEndpoint = (r: EndpointRow, now: Date): WebhookEndpoint => ({
  id: r.id,
  organizationId: r.organization_id,
  url: r.url,
  description: r.description,
  events: JSON.parse(r.event_types) as string[],
  enabled: r.enabled === 1,
  previousSecretExpiresAt: signingSecrets(r, now).length > 1 ? r.previous_secret_expires_at : null,
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
/** Longest rotation overlap: a week (default a day). */
export const MAX_OVERLAP_SECONDS = 7 * 86_400;
export const DEFAULT_OVERLAP_SECONDS = 86_400;

/** One input member that cannot be stored, and why (`must …`, read after the member's name). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** Input that cannot be stored: 400 naming the members over HTTP; the CLI prints the message. */
export class WebhookInputError extends AccessError {
  readonly problems: FieldProblem[];

  constructor(problems: FieldProblem[]) {
    super(problems.map((p) => `${p.field} ${p.message}`).join('; '));
    this.problems = problems;
  }
}

/** No such endpoint (in the caller's organization): 404 over HTTP. */
export class EndpointNotFoundError extends AccessError {
  constructor(id: string) {
    super(`no webhook endpoint ${id}`);
  }
}

/** Too many endpoints in the organization (API only): 409 over HTTP. */
export class EndpointLimitError extends AccessError {
  readonly limit: number;

  constructor(limit: number) {
    super(`an organization may have at most ${limit} webhook endpoints: remove one first`);
    this.limit = limit;
  }
}

type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** An endpoint URL as stored (its href), or why it cannot be one: http(s), a host, no credentials, bounded. */
export function parseEndpointUrl(raw: string): Checked<string> {
  const tooLong = { ok: false, problem: `must be at most ${MAX_ENDPOINT_URL} characters` } as const;
  if (raw.length > MAX_ENDPOINT_URL) return tooLong;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `must be a valid URL (got "${raw}")` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, problem: `must be http or https (got "${url.protocol}")` };
  }
  if (url.username || url.password) return { ok: false, problem: 'must not carry a user name or password' };
  if (!url.hostname) return { ok: false, problem: 'must have a host' };
  if (url.href.length > MAX_ENDPOINT_URL) return tooLong;
  return { ok: true, value: url.href };
}

/** Checks an endpoint URL (its address is checked at each delivery); WebhookInputError on `url`. */
export function checkEndpointUrl(raw: string): string {
  const r = parseEndpointUrl(raw);
  if (!r.ok) throw new WebhookInputError([{ field: 'url', message: r.problem }]);
  return r.value;
}

/**
 * An event filter as stored (trimmed, distinct), or the problems of its entries (`events.<i>`).
 * A list that names nothing is refused rather than read as "every event" (leave it out for that).
 */
export function parseEventFilter(
  raw: readonly string[],
): { ok: true; value: string[] } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  raw.forEach((e, i) => {
    const name = e.trim();
    if (name && !EVENT_FILTER_RE.test(name)) {
      problems.push({
        field: `events.${i}`,
        message: `"${e}" is not an event type (e.g. scene_forge.completed or scene_forge.*)`,
      });
    }
  });
  if (problems.length) return { ok: false, problems };
  const events = [...new Set(raw.map((e) => e.trim()).filter(Boolean))];
  if (events.length === 0) {
    const message = 'names no event: name at least one, or leave it out for every event';
    return { ok: false, problems: [{ field: 'events', message }] };
  }
  return { ok: true, value: events };
}

/** An endpoint's url, events and description checked together (every bad member at once). */
function checkInput(input: {
  url?: string | undefined;
  events?: readonly string[] | null | undefined;
  description?: string | null | undefined;
}) {
  const problems: FieldProblem[] = [];
  const url = input.url === undefined ? undefined : parseEndpointUrl(input.url);
  if (url && !url.ok) problems.push({ field: 'url', message: url.problem });
  const text = typeof input.description === 'string' ? textProblem(input.description) : undefined;
  if (text) problems.push({ field: 'description', message: text });
  const events = input.events === undefined || input.events === null ? undefined : parseEventFilter(input.events);
  if (events && !events.ok) problems.push(...events.problems);
  if (problems.length) throw new WebhookInputError(problems);
  return { url: url?.ok ? url.value : undefined, events: events?.ok ? events.value : undefined };
}

/**
 * The secrets a delivery attempt at `now` is signed with: the endpoint's, then the one before
 * its last rotation while that one's overlap lasts.
 */
export function signingSecrets(
  row: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const until = row.previous_secret_expires_at ? Date.parse(row.previous_secret_expires_at) : Number.NaN;
  return row.previous_secret && until > now.getTime() ? [row.secret, row.previous_secret] : [row.secret];
}

/** Attempt `n`'s delay (ms) after attempt `n - 1`: the schedule's entry, ±20 % jitter. */
export function retryDelay(scheduleMs: readonly number[], failedAttempt: number, random = Math.random): number {
  const base = scheduleMs[failedAttempt - 1] ?? 0;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The job id of attempt `n`: the delivery id itself for the first, `<id>.a<n>` after. */
export const attemptJobId = (id: string, attempt: number) => (attempt <= 1 ? id : `${id}.a${attempt}`);

export function createWebhooksService(deps: {
  clock: Clock;
  fetcher: Fetcher;
  jobs: JobSystem;
  repo: WebhooksRepo;
  deliverJob: JobRef;
  /** Delays between attempts; attempts = length + 1. */
  retryScheduleMs: readonly number[];
  orgExists(orgId: string): Promise<boolean>;
}) {
  const { repo, clock } = deps;
  const now = () => clock().toISOString();
  const present = (r: EndpointRow) => toEndpoint(r, clock());

  /** The endpoint; with `orgId`, only one of that organization (another's is as unknown). */
  async function requireEndpoint(id: string, orgId?: string): Promise<EndpointRow> {
    const row = await repo.getEndpoint(id);
    if (!row || (orgId !== undefined && row.organization_id !== orgId)) throw new EndpointNotFoundError(id);
    return row;
  }

  /** One POST of the stored body, signed for this attempt's time, through the SSRF-safe fetcher. */
  async function post(endpoint: EndpointRow, row: DeliveryRow, signal?: AbortSignal): Promise<AttemptOutcome> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const at = clock();
    const timestamp = Math.floor(at.getTime() / 1000);
    try {
      const res = await deps.fetcher.fetch(endpoint.url, {
        method: 'POST',
        body: row.payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          ...signedHeaders(signingSecrets(endpoint, at), row.id, timestamp, row.payload),
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

  /**
   * Changes the members given: `events: null` takes every event again, `description: null`
   * clears it. Pending deliveries use the new URL from their next attempt.
   */
  async function updateEndpoint(
    id: string,
    patch: {
      url?: string | undefined;
      events?: readonly string[] | null | undefined;
      description?: string | null | undefined;
      enabled?: boolean | undefined;
    },
    orgId?: string,
  ): Promise<WebhookEndpoint> {
    const checked = checkInput(patch);
    await requireEndpoint(id, orgId);
    await repo.updateEndpoint(id, {
      ...(checked.url !== undefined ? { url: checked.url } : {}),
      ...(patch.events !== undefined ? { event_types: JSON.stringify(checked.events ?? []) } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0 } : {}),
      updated_at: now(),
    });
    return present(await requireEndpoint(id));
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

    /** A new endpoint and its secret (shown once). `maxPerOrg` bounds the organization's count. */
    async addEndpoint(input: {
      orgId: string;
      url: string;
      events?: readonly string[] | null | undefined;
      description?: string | null | undefined;
      maxPerOrg?: number;
    }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      const checked = checkInput(input);
      if (!(await deps.orgExists(input.orgId))) throw new AccessError(`no organization ${input.orgId}`);
      if (input.maxPerOrg !== undefined && (await repo.countEndpoints(input.orgId)) >= input.maxPerOrg) {
        throw new EndpointLimitError(input.maxPerOrg);
      }
      const at = now();
      const secret = generateSecret();
      const row: EndpointRow = {
        id: `we_${randomUUID().replaceAll('-', '')}`,
        organization_id: input.orgId,
        url: checked.url ?? input.url,
        secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        description: input.description ?? null,
        event_types: JSON.stringify(checked.events ?? []),
        enabled: 1,
        created_at: at,
        updated_at: at,
      };
      await repo.insertEndpoint(row);
      return { endpoint: present(row), secret };
    },

    async listEndpoints(
      orgId: string,
      recent = 5,
    ): Promise<(WebhookEndpoint & { recentDeliveries: WebhookDelivery[] })[]> {
      const rows = await repo.listEndpoints(orgId);
      return Promise.all(
        rows.map(async (r) => ({
          ...present(r),
          recentDeliveries: (await repo.deliveries(r.id, { limit: recent })).map(toDelivery),
        })),
      );
    },

    /** One page of the organization's endpoints and how many it has. */
    async pageEndpoints(
      orgId: string,
      o: { offset: number; limit: number; newestFirst: boolean },
    ): Promise<{ data: WebhookEndpoint[]; total: number }> {
      const [rows, total] = await Promise.all([repo.pageEndpoints(orgId, o), repo.countEndpoints(orgId)]);
      return { data: rows.map(present), total };
    },

    updateEndpoint,

    async getEndpoint(id: string, orgId?: string): Promise<WebhookEndpoint> {
      return present(await requireEndpoint(id, orgId));
    },

    async setEnabled(id: string, enabled: boolean): Promise<WebhookEndpoint> {
      return updateEndpoint(id, { enabled });
    },

    async removeEndpoint(id: string, orgId?: string): Promise<void> {
      await requireEndpoint(id, orgId);
      if (!(await repo.deleteEndpoint(id))) throw new EndpointNotFoundError(id);
    },

    /**
     * A new secret for the endpoint (shown once). For `overlapSeconds` (0..MAX_OVERLAP_SECONDS)
     * deliveries carry a signature with each secret, so receivers can switch in their own time;
     * then only the new one. Rotating again during an overlap drops the oldest secret at once.
     */
    async rotateSecret(
      id: string,
      overlapSeconds: number = DEFAULT_OVERLAP_SECONDS,
      orgId?: string,
    ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_OVERLAP_SECONDS) {
        throw new WebhookInputError([
          { field: 'overlapSeconds', message: `must be a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS}` },
        ]);
      }
      await requireEndpoint(id, orgId);
      const at = clock();
      const secret = generateSecret();
      const until = overlapSeconds > 0 ? new Date(at.getTime() + overlapSeconds * 1000).toISOString() : null;
      if (!(await repo.rotateSecret(id, secret, until, at.toISOString()))) throw new EndpointNotFoundError(id);
      return { endpoint: present(await requireEndpoint(id)), secret };
    },

    /** The endpoint's delivery log, newest first. */
    async deliveries(
      endpointId: string,
      o: { limit?: number; offset?: number; status?: WebhookDelivery['status'] } = {},
    ): Promise<WebhookDelivery[]> {
      return (await repo.deliveries(endpointId, { ...o, limit: o.limit ?? 50 })).map(toDelivery);
    },

    /** One page of an endpoint's delivery log (of the organization's endpoint) and its size. */
    async pageDeliveries(
      endpointId: string,
      o: { offset: number; limit: number; status?: WebhookDelivery['status'] | undefined },
      orgId?: string,
    ): Promise<{ data: WebhookDelivery[]; total: number }> {
      await requireEndpoint(endpointId, orgId);
      const status = o.status === undefined ? {} : { status: o.status };
      const [rows, total] = await Promise.all([
        repo.deliveries(endpointId, { limit: o.limit, offset: o.offset, ...status }),
        repo.countDeliveries(endpointId, o.status),
      ]);
      return { data: rows.map(toDelivery), total };
    },

    /**
     * Sends a `webhook.test` event to the endpoint now, once (no retries), even when it is
     * disabled; the delivery is logged like any other. Returns the delivery and the attempt.
     */
    async sendTest(id: string, orgId?: string): Promise<{ delivery: WebhookDelivery; outcome: AttemptOutcome }> {
      const endpoint = await requireEndpoint(id, orgId);
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

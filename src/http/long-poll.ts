import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import type { Changes, ResourceKind } from '../events/changes.ts';
import { isTerminalStatus } from '../events/publish.ts';
import type { Metrics } from './metrics.ts';

/**
 * Long-poll on the pollable GETs (RFC 7240 `Prefer: wait=N`): a route that declares
 * `config.longPoll` reads the resource as usual; when the client asked to wait and the resource is
 * not terminal, the answer is held until a change of that resource is heard (src/events/changes.ts:
 * in process, or over Redis from a worker) or N seconds pass, then the resource is read again and
 * answered, always 200 with the current body. The route's own handler does both reads, so
 * authorization, 404s and presentation stay the route's.
 *
 * Bounded: at most `max` requests held per process and `perKey` per API key; a request over
 * either cap is answered at once, without Preference-Applied. A client that goes away frees its
 * slot, and closing the app answers every held request at once with the current state.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** A pollable GET that honours `Prefer: wait=N` (src/http/long-poll.ts). */
    longPoll?: LongPollRoute;
  }
  interface FastifyInstance {
    /** `METHOD /url` of every route that honours `Prefer: wait` (tests, docs). */
    longPollRoutes: string[];
  }
}

export interface LongPollRoute {
  kind: ResourceKind;
  /** The route parameter with the id clients poll (the id changes are published under). */
  param: string;
  /** The resource's status in the handler's answer; default `body.status`. */
  status?: (body: unknown) => string | undefined;
}

/** The longest wait honoured; a larger N is served as this (RFC 7240 leaves the cap to the server). */
export const MAX_WAIT_SECONDS = 60;
/** Held requests per API key (the process cap is ATELIER_LONG_POLL_MAX). */
export const LONG_POLL_PER_KEY = 50;

/**
 * N of the first `wait` preference (RFC 7240 §2: a preference given twice counts once, the first),
 * capped at 60 s; undefined when there is none or it is not a whole number of seconds ≥ 1. Accepts
 * several Prefer headers or comma-separated preferences, any case, a quoted value, and parameters
 * after `;`.
 */
export function parsePreferWait(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.length > 4096) return undefined;
  for (const item of text.split(',')) {
    const pref = item.split(';')[0]!.trim();
    const eq = pref.indexOf('=');
    const name = (eq < 0 ? pref : pref.slice(0, eq)).trim().toLowerCase();
    if (name !== 'wait') continue;
    if (eq < 0) return undefined;
    let value = pref.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!/^\d{1,12}$/.test(value)) return undefined;
    const n = Number(value);
    return n >= 1 ? Math.min(n, MAX_WAIT_SECONDS) : undefined;
  }
  return undefined;
}

export type WaitOutcome = 'changed' | 'timeout' | 'closed' | 'aborted';

export interface Waiter {
  /** Resolves on the first change of the resource since `acquire`, after `ms`, on close or abort. */
  wait(ms: number, signal?: AbortSignal): Promise<WaitOutcome>;
  /** Frees the slot (idempotent). */
  release(): void;
}

export interface WaitHub {
  /** A slot waiting for changes of `key` (`<kind>:<id>`) for `owner`; undefined over a cap or while closing. */
  acquire(key: string, owner: string): Waiter | undefined;
  /** Requests held now. */
  held(): number;
  /** Ends every wait ('closed') and refuses new ones: the app is closing. */
  closeAll(): void;
  /** Stops listening to changes. */
  dispose(): void;
}

interface Entry {
  outcome?: WaitOutcome;
  settle?: (o: WaitOutcome) => void;
}

export function createWaitHub(
  changes: Pick<Changes, 'listen'>,
  o: { max: number; perKey: number; metrics?: Pick<Metrics, 'longPollHeld' | 'longPollRefused'> },
): WaitHub {
  const byKey = new Map<string, Set<Entry>>();
  const perOwner = new Map<string, number>();
  let held = 0;
  let closing = false;
  const fire = (e: Entry, outcome: WaitOutcome) => {
    if (e.outcome) return;
    e.outcome = outcome;
    e.settle?.(outcome);
  };
  // One listener for the process, whatever the number of waiters: a change costs one map lookup.
  const unlisten = changes.listen((change) => {
    const set = byKey.get(`${change.kind}:${change.id}`);
    if (set) for (const e of set) fire(e, 'changed');
  });
  const gauge = () => o.metrics?.longPollHeld.set(held);

  return {
    acquire(key, owner) {
      const mine = perOwner.get(owner) ?? 0;
      const refused = closing ? 'closing' : held >= o.max ? 'process' : mine >= o.perKey ? 'key' : undefined;
      if (refused) {
        o.metrics?.longPollRefused.inc({ reason: refused });
        return undefined;
      }
      const entry: Entry = {};
      const set = byKey.get(key) ?? new Set<Entry>();
      byKey.set(key, set);
      set.add(entry);
      perOwner.set(owner, mine + 1);
      held++;
      gauge();
      let released = false;
      return {
        wait(ms, signal) {
          if (entry.outcome) return Promise.resolve(entry.outcome);
          if (signal?.aborted) return Promise.resolve('aborted');
          return new Promise<WaitOutcome>((resolve) => {
            const timer = setTimeout(() => fire(entry, 'timeout'), ms);
            const onAbort = () => fire(entry, 'aborted');
            signal?.addEventListener('abort', onAbort, { once: true });
            entry.settle = (outcome) => {
              clearTimeout(timer);
              signal?.removeEventListener('abort', onAbort);
              resolve(outcome);
            };
          });
        },
        release() {
          if (released) return;
          released = true;
          fire(entry, 'closed'); // a wait still pending (it should not be) ends
          const s = byKey.get(key);
          s?.delete(entry);
          if (s?.size === 0) byKey.delete(key);
          const n = (perOwner.get(owner) ?? 1) - 1;
          if (n > 0) perOwner.set(owner, n);
          else perOwner.delete(owner);
          held--;
          gauge();
        },
      };
    },
    held: () => held,
    closeAll() {
      closing = true;
      for (const set of byKey.values()) for (const e of set) fire(e, 'closed');
    },
    dispose() {
      unlisten();
    },
  };
}

const defaultStatus = (body: unknown): string | undefined => {
  const s = (body as { status?: unknown } | null | undefined)?.status;
  return typeof s === 'string' ? s : undefined;
};

/** Aborts when the client goes away before the answer is written. */
function clientGone(request: FastifyRequest, reply: FastifyReply): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) ac.abort();
  };
  reply.raw.on('close', onClose);
  if (request.raw.socket?.destroyed) ac.abort();
  return { signal: ac.signal, dispose: () => reply.raw.off('close', onClose) };
}

/** The route's handler, wrapped: the wait around two calls of it. */
export function withLongPoll(handler: RouteHandlerMethod, spec: LongPollRoute, hub: WaitHub): RouteHandlerMethod {
  const statusOf = spec.status ?? defaultStatus;
  return async function longPoll(this: FastifyInstance, request, reply) {
    const seconds = parsePreferWait(request.headers.prefer);
    if (seconds === undefined) return handler.call(this, request, reply);
    const id = String((request.params as Record<string, unknown>)[spec.param] ?? '').toLowerCase();
    const owner = request.principal?.apiKeyId ?? `ip:${request.ip}`;
    // Taken before the first read, so a change between that read and the wait is not missed.
    const waiter = hub.acquire(`${spec.kind}:${id}`, owner);
    if (!waiter) return handler.call(this, request, reply);
    const gone = clientGone(request, reply);
    try {
      const first = await handler.call(this, request, reply);
      if (reply.sent) return first;
      reply.header('preference-applied', `wait=${seconds}`);
      reply.header('vary', 'Prefer');
      if (isTerminalStatus(statusOf(first))) return first;
      const outcome = await waiter.wait(seconds * 1000, gone.signal);
      // Nobody to answer: send what was read (nothing more to read for a closed connection).
      if (outcome === 'aborted') return first;
      waiter.release();
      return await handler.call(this, request, reply);
    } finally {
      gone.dispose();
      waiter.release();
    }
  };
}

/**
 * Wraps every route registered after it whose config has `longPoll`, answers held requests when
 * the app closes, and keeps the held count in the metrics.
 */
export function installLongPoll(
  app: FastifyInstance,
  deps: { changes: Pick<Changes, 'listen'>; max: number; perKey?: number; metrics?: Metrics },
): WaitHub {
  const hub = createWaitHub(deps.changes, {
    max: deps.max,
    perKey: Math.min(deps.perKey ?? LONG_POLL_PER_KEY, deps.max),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  const wrapped = new WeakSet<RouteHandlerMethod>();
  app.decorate('longPollRoutes', [] as string[]);
  app.addHook('onRoute', (route: RouteOptions) => {
    const spec = route.config?.longPoll;
    if (!spec) return;
    app.longPollRoutes.push(`${[route.method].flat().join(',')} ${route.url}`);
    // The HEAD route Fastify derives from a GET may arrive with the GET's handler already wrapped.
    if (wrapped.has(route.handler)) return;
    route.handler = withLongPoll(route.handler, spec, hub);
    wrapped.add(route.handler);
  });
  // First thing on close: held requests answer now with the current state (the database is still open).
  app.addHook('preClose', async () => hub.closeAll());
  app.addHook('onClose', async () => hub.dispose());
  return hub;
}

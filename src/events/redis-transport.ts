import { Redis } from 'ioredis';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { type ChangeTransport, RESOURCE_KINDS, type ResourceChange } from './changes.ts';

/** What a message must look like before a listener sees it (another process, or anyone with the Redis). */
const Message = Type.Object({
  kind: Type.Union(RESOURCE_KINDS.map((k) => Type.Literal(k))),
  id: Type.String({ minLength: 1, maxLength: 200 }),
  orgId: Type.String({ minLength: 1, maxLength: 200 }),
  brandId: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.String({ minLength: 1, maxLength: 64 }),
  terminal: Type.Boolean(),
  at: Type.String({ maxLength: 64 }),
});
const checkMessage = Compile(Message);

/** The parsed change, or undefined when the text is not one (not JSON, wrong shape). */
export function parseChangeMessage(text: string): ResourceChange | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!checkMessage.Check(value)) return undefined;
  const v = value as ResourceChange;
  // Only the known members travel on (a newer process may add some).
  return {
    kind: v.kind,
    id: v.id,
    orgId: v.orgId,
    ...(v.brandId !== undefined ? { brandId: v.brandId } : {}),
    status: v.status,
    terminal: v.terminal,
    at: v.at,
  };
}

export interface RedisTransportOptions {
  /** The deployment's key prefix (ATELIER_QUEUE_PREFIX): the channel is `<prefix>:changes`. */
  prefix: string;
  /** A publish that Redis has not acknowledged by then fails (best effort: polling still works). */
  commandTimeoutMs?: number;
  log?: { warn(obj: object, msg?: string): void };
}

/**
 * Changes over Redis pub/sub (the scaled mode): every process publishes on one channel and
 * subscribes to it, so a variation finishing on a worker wakes the API node that holds the
 * long-poll. One connection publishes, one subscribes (a subscribed connection can do nothing
 * else); ioredis reconnects both and subscribes again by itself. Pub/sub is at most once: a
 * message sent while a subscriber is reconnecting is lost, which costs that waiter its early
 * answer only (it still answers when its wait ends).
 */
export function redisTransport(
  url: string,
  o: RedisTransportOptions,
): ChangeTransport & { /** Resolves once the channel is subscribed. */ ready(): Promise<void> } {
  const channel = `${o.prefix}:changes`;
  const publisher = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: o.commandTimeoutMs ?? 1000,
    connectionName: `${o.prefix}:changes-pub`,
  });
  const subscriber = new Redis(url, { maxRetriesPerRequest: null, connectionName: `${o.prefix}:changes-sub` });
  let lastError = '';
  const onError = (err: Error) => {
    // ioredis retries on its own; log each distinct error once rather than at every retry.
    if (err.message === lastError) return;
    lastError = err.message;
    o.log?.warn({ err: err.message }, 'changes: Redis connection error');
  };
  publisher.on('error', onError);
  subscriber.on('error', onError);
  subscriber.on('ready', () => {
    lastError = '';
  });
  const handlers: ((change: ResourceChange) => void)[] = [];
  subscriber.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    const change = parseChangeMessage(text);
    if (!change) {
      o.log?.warn({ channel }, 'changes: ignored a message that is not a resource change');
      return;
    }
    for (const h of handlers) h(change);
  });
  // Subscribed once; ioredis subscribes again after every reconnect (autoResubscribe).
  const subscribed = subscriber.subscribe(channel).catch((err: unknown) => {
    o.log?.warn({ err: (err as Error).message }, 'changes: could not subscribe (ioredis retries)');
  });
  let closed = false;
  return {
    async ready() {
      await subscribed;
    },
    async broadcast(change) {
      if (closed) return;
      await publisher.publish(channel, JSON.stringify(change));
    },
    onMessage(handler) {
      handlers.push(handler);
    },
    async close() {
      if (closed) return;
      closed = true;
      handlers.length = 0;
      // QUIT when connected (replies in flight are read first); a connection still retrying is dropped.
      const end = async (r: Redis) => {
        if (r.status === 'ready') await r.quit().catch(() => undefined);
        r.disconnect();
      };
      await Promise.all([end(subscriber), end(publisher)]);
    },
  };
}

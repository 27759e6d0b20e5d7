import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ObjectStorage } from './storage/storage.port.ts';

/**
 * What a node needs to serve, each checked by `/readyz` (src/http/ops.routes.ts): the database,
 * Redis when the scaled mode uses it, and the object store (the bucket reachable and writable:
 * a small probe object is written and removed). Each check has a time bound.
 */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export const READINESS_TIMEOUT_MS = 2000;

/** Runs the checks at once; `ok` or the reason each failed. */
export async function runReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<Record<string, string>> {
  const results = await Promise.all(
    checks.map(async (c) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          c.check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return [c.name, 'ok'] as const;
      } catch (err) {
        return [c.name, err instanceof Error ? err.message : String(err)] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return Object.fromEntries(results);
}

/** Redis answers PING (a client of its own that fails fast instead of queueing). */
export function redisCheck(url: string): ReadinessCheck & { close(): Promise<void> } {
  let client: Redis | undefined;
  return {
    name: 'redis',
    async check() {
      client ??= new Redis(url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: READINESS_TIMEOUT_MS,
        retryStrategy: () => 1000,
      });
      client.on('error', () => {});
      if (client.status === 'wait' || client.status === 'end') await client.connect().catch(() => undefined);
      const pong = await client.ping();
      if (pong !== 'PONG') throw new Error(`unexpected answer ${pong}`);
    },
    async close() {
      client?.disconnect();
    },
  };
}

/**
 * The object store takes a write: a probe object under `readyz/` is put and deleted. The last
 * success is kept for `cacheMs`, so frequent probes do not each write to the store.
 */
export function storageCheck(storage: ObjectStorage, cacheMs = 10_000): ReadinessCheck {
  let okUntil = 0;
  const node = randomUUID();
  return {
    name: 'storage',
    async check() {
      if (Date.now() < okUntil) return;
      const key = `readyz/${node}`;
      await storage.put(key, Buffer.from('ok'), { contentType: 'text/plain', contentLength: 2 });
      await storage.delete(key);
      okUntil = Date.now() + cacheMs;
    },
  };
}

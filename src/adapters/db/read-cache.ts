import type { Database } from './database.ts';

/**
 * A process-local cache of hot reads (API key lookups, resources polled by id) that is never
 * stale: each entry remembers the database generation it was read at, and any committed write —
 * from this process or another one sharing the SQLite file (the admin CLI revoking a key) —
 * changes the generation, so the next read goes to the database again (another process's commit
 * from the next turn of the event loop: database.ts looks for them once a turn). On PostgreSQL there is no
 * generation and every read goes to the database.
 *
 * Values are shared between callers: they must be treated as read-only.
 */
export interface ReadCache {
  /** The value: at once from the cache when it is fresh (no promise on the hot path), else loaded. */
  get<T>(key: string, load: () => Promise<T>): T | Promise<T>;
}

export function createReadCache(db: Pick<Database, 'generation'>, max = 10_000): ReadCache {
  const entries = new Map<string, { gen: string; value: unknown }>();
  return {
    get<T>(key: string, load: () => Promise<T>): T | Promise<T> {
      const gen = db.generation();
      if (gen === undefined) return load();
      const hit = entries.get(key);
      if (hit && hit.gen === gen) return hit.value as T;
      // Read after taking the generation: a write landing in between bumps the generation, so
      // this entry (stored under the older one) is simply never served.
      return load().then((value) => {
        if (value !== undefined) {
          entries.delete(key);
          entries.set(key, { gen, value });
          if (entries.size > max) entries.delete(entries.keys().next().value as string);
        } else {
          entries.delete(key);
        }
        return value;
      });
    },
  };
}

/** A ReadCache that never caches. */
export const noCache: ReadCache = { get: (_key, load) => load() };

import type { Clock } from '../../clock.ts';
import type { AccessRepo } from './access.repo.ts';

/**
 * Records each key's `lastUsedAt` without a write on the request path: uses are collected in
 * memory and written in one batch every few seconds (and at close).
 */
export function createKeyUsageTracker(repo: Pick<AccessRepo, 'touchKeys'>, clock: Clock, flushMs = 5000) {
  let pending = new Map<string, Date>();
  let flushing: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (pending.size === 0) return flushing;
    const batch = [...pending].map(([id, at]) => ({ id, at: at.toISOString() }));
    pending = new Map();
    flushing = flushing.then(() => repo.touchKeys(batch)).catch(() => {});
    return flushing;
  };
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();
  return {
    touch(apiKeyId: string) {
      pending.set(apiKeyId, clock());
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type KeyUsageTracker = ReturnType<typeof createKeyUsageTracker>;

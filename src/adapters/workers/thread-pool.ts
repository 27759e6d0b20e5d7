import { Piscina } from 'piscina';

/**
 * A pool of worker threads for CPU-heavy work (piscina), so it does not run on the event loop
 * that answers HTTP. Threads start on demand and end after `idleMs` without work. The worker file
 * exports one function taking `{ task, payload }`; payloads and results are structured-cloned (a
 * Buffer arrives as a Uint8Array: see `asBuffers`). Aborting a task's signal ends its thread.
 */
export interface ThreadPool {
  run<T>(task: string, payload: unknown, signal?: AbortSignal): Promise<T>;
  readonly threads: number;
  close(): Promise<void>;
}

export function createThreadPool(o: { file: URL; threads: number; idleMs?: number }): ThreadPool {
  const pool = new Piscina({
    filename: o.file.href,
    minThreads: 0,
    maxThreads: o.threads,
    idleTimeout: o.idleMs ?? 60_000,
    // One task per thread at a time: the work is CPU-bound.
    concurrentTasksPerWorker: 1,
  });
  return {
    threads: o.threads,
    run: (task, payload, signal) => pool.run({ task, payload }, signal ? { signal } : {}),
    close: () => pool.destroy(),
  };
}

/**
 * A structured-cloned value with its byte arrays as Buffers again (the engines' ports speak
 * Buffer). Plain objects and arrays are walked; other values are kept as they are.
 */
export function asBuffers<T>(value: T): T {
  if (value instanceof Uint8Array) {
    return (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)) as T;
  }
  if (Array.isArray(value)) return value.map(asBuffers) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = asBuffers(v);
    return out as T;
  }
  return value;
}

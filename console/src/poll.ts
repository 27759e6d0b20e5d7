/** Follows a resource until it reaches a terminal status, long-polling with `Prefer: wait`. */

export interface PollOptions<T> {
  /** One read; `headers` carries the Prefer: wait header. */
  read: (o: { headers: Record<string, string>; signal: AbortSignal; timeoutMs: number }) => Promise<T>;
  done: (value: T) => boolean;
  onUpdate?: (value: T) => void;
  signal: AbortSignal;
  /** Seconds the server may hold each read (≤ 60; default 20). */
  waitSeconds?: number;
  /** Least time between two reads, in case the server answers at once (default 1000 ms). */
  minIntervalMs?: number;
  /** Give up after this long (default 15 min). */
  timeoutMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** Reads until `done` (returns the last value); throws when aborted or after timeoutMs. */
export async function pollUntil<T>(o: PollOptions<T>): Promise<T> {
  const wait = Math.max(1, Math.min(60, o.waitSeconds ?? 20));
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? defaultSleep;
  const started = now();
  const limit = o.timeoutMs ?? 15 * 60_000;
  for (let first = true; ; first = false) {
    const began = now();
    // The first read answers at once (the state as it is); later ones wait for a change.
    const headers: Record<string, string> = first ? {} : { prefer: `wait=${wait}` };
    const value = await o.read({ headers, signal: o.signal, timeoutMs: (wait + 15) * 1000 });
    o.onUpdate?.(value);
    if (o.done(value)) return value;
    if (now() - started > limit) throw new Error('Still running after a long time: reload the page later.');
    const spent = now() - began;
    const min = o.minIntervalMs ?? 1000;
    if (spent < min) await sleep(min - spent, o.signal);
  }
}

export const isTerminal = (status: string | undefined) =>
  status === 'completed' || status === 'failed' || status === 'complete' || status === 'canceled' || status === 'ready';

/** Shared async state helpers. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { parseRoute, type Route } from './router.ts';
import { pollUntil } from './poll.ts';

let unauthorized: () => void = () => {};
/** The app registers what a 401 from any call does (back to sign-in). */
export const onUnauthorized = (fn: () => void) => {
  unauthorized = fn;
};
const check = (err: unknown) => {
  if ((err as { status?: number })?.status === 401) unauthorized();
};

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (fn: (old: T | undefined) => T | undefined) => void;
}

/** Loads `fn()` now and whenever `deps` change; `reload` loads again (keeping the old data meanwhile). */
export function useAsync<T>(fn: (signal: AbortSignal) => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ac = new AbortController();
    setLoading(true);
    fn(ac.signal).then(
      (v) => {
        if (ac.signal.aborted) return;
        setDataState(() => v);
        setError(undefined);
        setLoading(false);
      },
      (err) => {
        if (ac.signal.aborted) return;
        check(err);
        setError(err);
        setLoading(false);
      },
    );
    return () => ac.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const setData = useCallback((f: (old: T | undefined) => T | undefined) => setDataState((old) => f(old)), []);
  return { data, error, loading, reload, setData };
}

/** An action with busy and error state: `run(fn)` resolves to fn's value, or undefined on failure. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn();
    } catch (err) {
      check(err);
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

/**
 * Follows a resource while it is not terminal (long-poll) and hands each new state to `onUpdate`.
 * Starts again when `id` changes; stops on unmount.
 */
export function useFollow<T>(
  id: string | undefined,
  active: boolean,
  read: (o: { headers: Record<string, string>; signal: AbortSignal; timeoutMs: number }) => Promise<T>,
  done: (v: T) => boolean,
  onUpdate: (v: T) => void,
) {
  const cb = useRef({ read, done, onUpdate });
  cb.current = { read, done, onUpdate };
  useEffect(() => {
    if (!id || !active) return;
    const ac = new AbortController();
    pollUntil({
      read: (o) => cb.current.read(o),
      done: (v) => cb.current.done(v),
      onUpdate: (v) => {
        if (!ac.signal.aborted) cb.current.onUpdate(v);
      },
      signal: ac.signal,
    }).catch((err) => {
      if (!ac.signal.aborted) check(err);
    });
    return () => ac.abort();
  }, [id, active]);
}

/** The current hash route. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export const navigate = (hash: string) => {
  if (location.hash !== hash) location.hash = hash;
};

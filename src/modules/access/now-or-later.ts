/**
 * `f(value)`: at once when the value is at hand, else once it arrives. The embedded mode's key
 * reads (the read cache) and limits (in memory) answer at once, so an authenticated request there
 * makes no promise and waits for no microtask (bench/http).
 */
export function andThen<T, R>(value: T | Promise<T>, f: (v: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so `{a,b}` and `{b,a}` hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same" for an idempotency key: method, path and query, and body. */
export function requestHash(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${url}\n`)
    .update(canonicalJson(body ?? null))
    .digest('hex');
}

/** A valid Idempotency-Key: 1..255 visible ASCII characters. */
export const isValidIdempotencyKey = (key: string): boolean => /^[\x21-\x7e]{1,255}$/.test(key);

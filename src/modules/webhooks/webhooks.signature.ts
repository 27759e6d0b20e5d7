import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, spec/standard-webhooks.md):
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")>`,
 * where the key is the base64-decoded part of the `whsec_…` secret and the timestamp is integer
 * Unix seconds. Any Standard Webhooks library (npm `standardwebhooks`, Svix's) verifies these.
 */

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (the spec allows 24..64). */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret (with or without the `whsec_` prefix). */
export function secretKey(secret: string): Buffer {
  const raw = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(raw, 'base64');
  if (key.length === 0) throw new Error('empty webhook secret');
  return key;
}

/** The `webhook-signature` value (one `v1,` signature) of a message. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers of one delivery attempt, with one space-separated `v1,`
 * signature per secret (during a rotation's overlap: the new secret's, then the old one's).
 */
export function signedHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string) {
  if (secrets.length === 0) throw new Error('no webhook secret to sign with');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' '),
  };
}

export type VerifyFailure =
  | 'MISSING_HEADERS'
  | 'BAD_TIMESTAMP'
  | 'TIMESTAMP_OUT_OF_TOLERANCE'
  | 'NO_MATCHING_SIGNATURE';

/**
 * Receiver side, as the spec describes it (tests, docs): all three headers, a timestamp within
 * `toleranceSeconds` of `now`, and one of the space-separated `v1,` signatures equal, compared in
 * constant time. Returns undefined when valid, else why not.
 */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  opts: { nowSeconds?: number; toleranceSeconds?: number } = {},
): VerifyFailure | undefined {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const sigs = one('webhook-signature');
  if (!id || !ts || !sigs) return 'MISSING_HEADERS';
  if (!/^\d+$/.test(ts)) return 'BAD_TIMESTAMP';
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (opts.toleranceSeconds ?? 300)) return 'TIMESTAMP_OUT_OF_TOLERANCE';
  const expected = Buffer.from(sign(secret, id, Number(ts), body).slice(3), 'base64');
  for (const entry of sigs.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const got = Buffer.from(value, 'base64');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return undefined;
  }
  return 'NO_MATCHING_SIGNATURE';
}

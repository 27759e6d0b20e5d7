import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Links of the local storage adapter: `<publicUrl>/v1/blobs/<key>?<claims>&signature=<mac>`, where
 * the signature is HMAC-SHA256 over the method, the key and every claim, so changing any of them
 * (or the expiry) invalidates the link. The key is the URL path itself (keys are URL-safe).
 */
export interface LinkClaims {
  method: 'GET' | 'PUT';
  key: string;
  /** Unix seconds after which the link is refused. */
  expires: number;
  /** PUT: the exact size of the upload. */
  length?: number;
  /** PUT: the Content-Type the upload must carry. GET: the Content-Type to answer with. */
  type?: string;
  /** GET: the Content-Disposition value to answer with. */
  disposition?: string;
}

export type LinkCheck = { ok: true; claims: LinkClaims } | { ok: false; reason: 'invalid' | 'expired' };

const VERSION = 'atelier-blob-v1';
const SIGNATURE_RE = /^[A-Za-z0-9_-]{43}$/;
const QUERY_NAMES = ['expires', 'length', 'type', 'disposition'] as const;

function mac(secret: Buffer, c: LinkClaims): Buffer {
  // JSON of a fixed-order array: unambiguous whatever the values contain.
  const canonical = JSON.stringify([
    VERSION,
    c.method,
    c.key,
    c.expires,
    c.length ?? null,
    c.type ?? null,
    c.disposition ?? null,
  ]);
  return createHmac('sha256', secret).update(canonical).digest();
}

export interface LinkSigner {
  /** The query string (without `?`) that authorizes `claims`. */
  sign(claims: LinkClaims): string;
  /** Checks a request's method, key and query against its signature, then the expiry. */
  verify(method: 'GET' | 'PUT', key: string, query: Record<string, unknown>, now: Date): LinkCheck;
}

export function createLinkSigner(secret: string | Buffer): LinkSigner {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  return {
    sign(claims) {
      const q = new URLSearchParams();
      q.set('expires', String(claims.expires));
      if (claims.length !== undefined) q.set('length', String(claims.length));
      if (claims.type !== undefined) q.set('type', claims.type);
      if (claims.disposition !== undefined) q.set('disposition', claims.disposition);
      q.set('signature', mac(key, claims).toString('base64url'));
      return q.toString();
    },
    verify(method, objectKey, query, now) {
      const get = (n: string) => (typeof query[n] === 'string' ? (query[n] as string) : undefined);
      const expires = get('expires');
      const length = get('length');
      const signature = get('signature');
      if (!expires || !/^\d{1,12}$/.test(expires) || !signature || !SIGNATURE_RE.test(signature)) {
        return { ok: false, reason: 'invalid' };
      }
      if (length !== undefined && !/^\d{1,16}$/.test(length)) return { ok: false, reason: 'invalid' };
      if (QUERY_NAMES.some((n) => query[n] !== undefined && typeof query[n] !== 'string')) {
        return { ok: false, reason: 'invalid' };
      }
      const claims: LinkClaims = { method, key: objectKey, expires: Number(expires) };
      if (length !== undefined) claims.length = Number(length);
      const type = get('type');
      if (type !== undefined) claims.type = type;
      const disposition = get('disposition');
      if (disposition !== undefined) claims.disposition = disposition;
      const given = Buffer.from(signature, 'base64url');
      if (!timingSafeEqual(given, mac(key, claims))) return { ok: false, reason: 'invalid' };
      if (now.getTime() >= claims.expires * 1000) return { ok: false, reason: 'expired' };
      return { ok: true, claims };
    },
  };
}

const MIN_SECRET_LENGTH = 32;

/**
 * The signing secret when ATELIER_SIGNING_SECRET is not set: generated once (256 random bits) and
 * kept in `<dataDir>/signing.key` (mode 0600), so links survive a restart.
 */
export function loadOrCreateSigningSecret(dataDir: string): string {
  const file = path.join(dataDir, 'signing.key');
  if (!fs.existsSync(file)) {
    // Written whole to a temp file, then linked into place: a concurrent start never reads half a
    // key, and the first one to link wins.
    fs.mkdirSync(dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${file} holds a signing secret shorter than ${MIN_SECRET_LENGTH} characters; delete it to get a new one`,
    );
  }
  return secret;
}

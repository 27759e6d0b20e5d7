import { hash, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * API key tokens: `atl_<env>_<keyId>.<secret>`.
 * - `<env>` is the environment the key was minted for (dev, staging, prod).
 * - `<keyId>` is a public, stored identifier (16 base62 characters).
 * - `<secret>` is 43 base62 characters (256 bits from the CSPRNG). Only its SHA-256 is stored:
 *   a secret this long needs no slow KDF, and a fast hash keeps authentication off the hot path.
 */
const KEY_PREFIX = 'atl';

/** The environment a server runs as (ATELIER_ENV) and mints keys for: a key works only on its own. */
export type AtelierEnv = 'dev' | 'staging' | 'prod';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_RE = /^atl_(dev|staging|prod)_([0-9A-Za-z]{16})\.([0-9A-Za-z]{43})$/;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export interface ParsedToken {
  env: string;
  keyId: string;
  secret: string;
}

export function mintKeyId(): string {
  return randomBase62(16);
}

export function mintSecret(): string {
  return randomBase62(43);
}

export function formatToken(env: string, keyId: string, secret: string): string {
  return `${KEY_PREFIX}_${env}_${keyId}.${secret}`;
}

/** Parses a bearer token; null when it is not of the key form at all. */
export function parseToken(token: string): ParsedToken | null {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  return { env: m[1] as string, keyId: m[2] as string, secret: m[3] as string };
}

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * The check of presented secrets against one stored hash, in constant time. It remembers the last
 * secret that matched and compares the next ones with it first: SHA-256 through OpenSSL costs
 * 2–9 µs even for 43 bytes, on every request with the key (bench/http). A secret that does not
 * match the remembered one is always hashed, so the timing tells nothing about a wrong one. The
 * remembered secret lives as long as the check (the key's cached row; access.service.ts).
 */
export function secretCheck(storedHash: string): (secret: string) => boolean {
  const stored = Buffer.from(storedHash, 'hex');
  let verified: Buffer | undefined;
  return (secret) => {
    const presented = Buffer.from(secret, 'utf8');
    if (verified && verified.length === presented.length && timingSafeEqual(verified, presented)) return true;
    const digest = hash('sha256', presented, 'buffer');
    const matches = digest.length === stored.length && timingSafeEqual(digest, stored);
    if (matches) verified = presented;
    return matches;
  };
}

/** Extracts the token from an `Authorization: Bearer …` header value. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? (m[1] as string) : null;
}

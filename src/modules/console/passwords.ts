import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

/**
 * Password hashes for console sign-in: scrypt (N=2^15, r=8, p=1, 16-byte random salt, 32-byte
 * key), stored as `scrypt$N$r$p$<salt>$<hash>` with base64url salt and hash, compared in constant
 * time. The parameters live in the string, so they can be raised later without a migration.
 */
export const PASSWORD_COST = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** Node's default scrypt memory cap (32 MiB) is exactly 128·N·r: leave headroom. */
const MAX_MEM = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number, len: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFC'), salt, len, { N: n, r, p, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Hashes with scrypt's cost N (new hashes only: a stored hash is verified with the N it carries). */
async function hashWith(n: number, password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, n, R, P, KEY_LENGTH);
  return `scrypt$${n}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `stored`; false (never a throw) for a malformed stored value. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((x) => Number.isInteger(x) && x > 0) || n > 2 ** 20) return false;
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const expected = Buffer.from(parts[5] as string, 'base64url');
  if (salt.length < 8 || expected.length < 16) return false;
  const actual = await scrypt(password, salt, n, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

export interface Passwords {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** A stored hash of a password nobody knows: unknown emails are verified against it (same timing). */
  dummy(): Promise<string>;
}

/**
 * Hashing at cost `n` (PASSWORD_COST unless told: the test apps pass a cheaper one, as scrypt at
 * 2^15 takes ~100 ms of CPU a sign-in and the suite signs in hundreds of times).
 */
export function createPasswords(n = PASSWORD_COST): Passwords {
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hashWith(n, password),
    verify: verifyPassword,
    dummy() {
      dummy ??= hashWith(n, randomBytes(32).toString('base64url'));
      return dummy;
    },
  };
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

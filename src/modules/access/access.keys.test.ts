import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerToken, formatToken, hashSecret, mintKeyId, mintSecret, parseToken, secretCheck } from './access.keys.ts';

describe('API key tokens', () => {
  it('mints atl_<env>_<keyId>.<secret> tokens that parse back', () => {
    for (const env of ['dev', 'staging', 'prod']) {
      const keyId = mintKeyId();
      const secret = mintSecret();
      const token = formatToken(env, keyId, secret);
      expect(token).toMatch(new RegExp(`^atl_${env}_[0-9A-Za-z]{16}\\.[0-9A-Za-z]{43}$`));
      expect(parseToken(token)).toEqual({ env, keyId, secret });
    }
  });

  it('mints secrets with 256 bits of randomness (no repeats, every base62 character used)', () => {
    const secrets = Array.from({ length: 200 }, mintSecret);
    expect(new Set(secrets).size).toBe(200);
    expect(new Set(secrets.join('')).size).toBe(62);
  });

  it('rejects anything that is not exactly of the key form', () => {
    const good = formatToken('dev', mintKeyId(), mintSecret());
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        if (s !== good) expect(parseToken(s)).toBeNull();
      }),
    );
    for (const bad of [
      `${good} `,
      ` ${good}`,
      good.replace('atl_', 'ATL_'),
      good.replace('_dev_', '_test_'),
      good.replace('.', ''),
      `${good}A`,
      good.slice(0, -1),
      good.replace(/.$/, '-'),
    ]) {
      expect(parseToken(bad), bad).toBeNull();
    }
  });

  it('extracts the token of a Bearer header only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Bearer   abc  ')).toBe('abc');
    for (const bad of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'Bearerabc', 'abc']) {
      expect(bearerToken(bad), String(bad)).toBeNull();
    }
  });
});

describe('secret hashing', () => {
  it('stores SHA-256 hex and matches only the same secret', () => {
    const secret = mintSecret();
    const stored = hashSecret(secret);
    expect(stored).toBe(createHash('sha256').update(secret).digest('hex'));
    const matches = secretCheck(stored);
    expect(matches(secret)).toBe(true);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), (other) => {
        if (other !== secret) expect(matches(other)).toBe(false);
      }),
    );
  });

  it('remembers only a secret that matched: wrong ones before and after the right one are refused', () => {
    const secret = mintSecret();
    const matches = secretCheck(hashSecret(secret));
    const near = `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`;
    expect(matches(near)).toBe(false);
    expect(matches(near)).toBe(false);
    expect(matches(secret)).toBe(true);
    expect(matches(secret)).toBe(true);
    expect(matches(near)).toBe(false);
    expect(matches(`${secret}x`)).toBe(false);
    expect(matches(secret.slice(0, -1))).toBe(false);
    expect(matches('')).toBe(false);
    expect(matches(secret)).toBe(true);
  });

  it('refuses (without throwing) a stored hash of another length or not hex', () => {
    const secret = mintSecret();
    const stored = hashSecret(secret);
    for (const bad of ['', stored.slice(0, 62), `${stored}00`, 'zz'.repeat(32), secret]) {
      expect(secretCheck(bad)(secret)).toBe(false);
    }
  });
});

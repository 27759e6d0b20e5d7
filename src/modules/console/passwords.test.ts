import { describe, expect, it } from 'vitest';
import { createPasswords, PASSWORD_COST, passwordProblem, verifyPassword } from './passwords.ts';

describe('console passwords (scrypt)', () => {
  it('hashes at N=2^15 by default, with a fresh salt each time, and verifies only the right password', async () => {
    const passwords = createPasswords();
    const [a, b] = [await passwords.hash('correct horse battery'), await passwords.hash('correct horse battery')];
    expect(a).toMatch(new RegExp(`^scrypt\\$${PASSWORD_COST}\\$8\\$1\\$[\\w-]{22}\\$[\\w-]{43}$`));
    expect(PASSWORD_COST).toBe(2 ** 15);
    expect(a).not.toBe(b);
    expect(await passwords.verify('correct horse battery', a)).toBe(true);
    expect(await passwords.verify('correct horse batterY', a)).toBe(false);
  });

  it('keeps the cost in the hash: one made at another cost verifies with it', async () => {
    const cheap = await createPasswords(2 ** 10).hash('p\u00e9ter piper picked');
    expect(cheap.split('$')[1]).toBe('1024');
    // NFC: the same word typed with a combining accent matches.
    expect(await verifyPassword('pe\u0301ter piper picked', cheap)).toBe(true);
    expect(await createPasswords().verify('p\u00e9ter piper picked', cheap)).toBe(true);
  });

  it('answers false, never throws, for a malformed or oversized stored value', async () => {
    for (const stored of [
      '',
      'bcrypt$x',
      'scrypt$0$8$1$abc$def',
      'scrypt$2097152$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAA',
      'scrypt$1024$8$1$AA$AAAA',
    ]) {
      expect(await verifyPassword('anything at all', stored)).toBe(false);
    }
  });

  it('has a dummy hash per hasher (unknown emails take the same time), made once', async () => {
    const passwords = createPasswords(2 ** 10);
    const d = await passwords.dummy();
    expect(await passwords.dummy()).toBe(d);
    expect(d.split('$')[1]).toBe('1024');
  });

  it('refuses passwords out of bounds', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('x'.repeat(257))).toMatch(/at most 256/);
    expect(passwordProblem('a fine long password')).toBeUndefined();
  });
});

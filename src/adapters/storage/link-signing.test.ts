import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../../../test/helpers/app.ts';
import { createLinkSigner, type LinkClaims, loadOrCreateSigningSecret } from './link-signing.ts';

const secret = 'k'.repeat(43);
const signer = createLinkSigner(secret);
const now = new Date('2030-01-01T00:00:00Z');
const future = now.getTime() / 1000 + 600;
const query = (q: string) => Object.fromEntries(new URLSearchParams(q));

describe('link signing', () => {
  const put: LinkClaims = { method: 'PUT', key: 'orgs/o/a', expires: future, length: 10, type: 'image/png' };

  it('verifies what it signed, and returns the claims', () => {
    const q = query(signer.sign(put));
    expect(signer.verify('PUT', put.key, q, now)).toEqual({ ok: true, claims: put });
    const get: LinkClaims = { method: 'GET', key: 'a', expires: future, disposition: 'inline; filename="x"' };
    expect(signer.verify('GET', 'a', query(signer.sign(get)), now)).toEqual({ ok: true, claims: get });
  });

  it('refuses a link once expired (at the expiry second)', () => {
    const q = query(signer.sign(put));
    expect(signer.verify('PUT', put.key, q, new Date(future * 1000 - 1))).toMatchObject({ ok: true });
    expect(signer.verify('PUT', put.key, q, new Date(future * 1000))).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses any change of method, key, claim or signature', () => {
    const q = query(signer.sign(put));
    expect(signer.verify('GET', put.key, q, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(signer.verify('PUT', 'orgs/o/b', q, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(createLinkSigner('z'.repeat(43)).verify('PUT', put.key, q, now)).toEqual({ ok: false, reason: 'invalid' });
    fc.assert(
      fc.property(
        fc.constantFrom('expires', 'length', 'type', 'disposition', 'signature'),
        fc.oneof(fc.string({ maxLength: 50 }), fc.constant(undefined), fc.array(fc.string(), { maxLength: 2 })),
        (name, value) => {
          if (q[name] === value) return;
          const changed: Record<string, unknown> = { ...q, [name]: value };
          if (value === undefined) delete changed[name];
          expect(signer.verify('PUT', put.key, changed, now).ok).toBe(false);
        },
      ),
    );
  });

  it('is not fooled by moving text between claims', () => {
    const a = query(signer.sign({ method: 'GET', key: 'k', expires: future, type: 'a/b', disposition: 'c' }));
    expect(signer.verify('GET', 'k', { ...a, type: 'a/bc', disposition: '' }, now).ok).toBe(false);
  });
});

describe('loadOrCreateSigningSecret', () => {
  const dir = tmpDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates a 256-bit secret once, mode 0600, and returns the same one after', () => {
    const first = loadOrCreateSigningSecret(dir);
    expect(first).toMatch(/^[\w-]{43}$/);
    const file = path.join(dir, 'signing.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSigningSecret(dir)).toBe(first);
    expect(fs.readdirSync(dir)).toEqual(['signing.key']);
  });

  it('refuses a file holding too short a secret', () => {
    const other = tmpDir();
    fs.writeFileSync(path.join(other, 'signing.key'), 'short\n');
    expect(() => loadOrCreateSigningSecret(other)).toThrow(/shorter than 32/);
    fs.rmSync(other, { recursive: true, force: true });
  });
});

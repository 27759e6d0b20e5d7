import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../adapters/db/database.ts';
import { loadPlanCatalog } from '../usage/plans.ts';
import { createAccessRepo } from './access.repo.ts';
import { AccessError } from './access.errors.ts';
import { createAccessService } from './access.service.ts';
import { createKeyUsageTracker } from './key-usage.ts';

const plans = loadPlanCatalog(path.join(import.meta.dirname, '..', '..', '..', 'config', 'plans.json'));

describe('access service (SQLite)', () => {
  let dir: string;
  let db: Database;
  let now = new Date('2030-01-01T00:00:00.000Z');
  const clock = () => now;
  let access: ReturnType<typeof createAccessService>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-access-'));
    db = await openDatabase({ dataDir: dir });
    await db.migrate();
    access = createAccessService({ repo: createAccessRepo(db), clock, plans, env: 'dev' });
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('bootstraps an owner without operator powers; those are a separate grant', async () => {
    const first = await access.bootstrap({});
    const second = await access.bootstrap({ orgName: 'Second', planSlug: 'free' });
    const users = await access.listUsers();
    expect(users.find((u) => u.id === first.userId)).toMatchObject({ role: 'owner', platformAdmin: false });
    expect((await access.getOrganization(second.organizationId))?.planSlug).toBe('free');
    expect(await access.setOperator(first.userId, true)).toMatchObject({ platformAdmin: true });
    const token = first.apiKey;
    expect((await access.authenticate(token))?.platformAdmin).toBe(true);
    expect(await access.setOperator(first.userId, false)).toMatchObject({ platformAdmin: false });
  });

  it('refuses bad input with an AccessError that says what is wrong', async () => {
    const { organizationId, userId } = await access.bootstrap({});
    const cases: [() => Promise<unknown>, RegExp][] = [
      [
        () => access.createOrganization({ name: 'X', planSlug: 'platinum' }),
        /unknown plan "platinum"; known plans: free/,
      ],
      [() => access.createOrganization({ name: '   ', planSlug: 'free' }), /name must be 1\.\.200/],
      [() => access.addUser({ organizationId, name: 'A', role: 'root' }), /unknown role "root"/],
      [() => access.addUser({ organizationId: 'nope', name: 'A', role: 'member' }), /no organization nope/],
      [() => access.setRole(userId, 'superuser'), /unknown role/],
      [() => access.setRole('nope', 'viewer'), /no user nope/],
      [() => access.setPlan(organizationId, 'gold'), /unknown plan/],
      [() => access.setOverrides(organizationId, { pools: { image_generations: -1 } }), /invalid overrides/],
      [() => access.setOverrides(organizationId, { colour: 'red' }), /invalid overrides/],
      [() => access.createKey({ userId, name: '' }), /key name/],
      [() => access.createKey({ userId: 'nope', name: 'k' }), /no user nope/],
      [() => access.createKey({ userId, name: 'k', expiresAt: now }), /expiry must be in the future/],
      [() => access.revokeKey('AAAAAAAAAAAAAAAA'), /no API key/],
      [() => access.removeUser('nope'), /no user/],
    ];
    for (const [run, message] of cases) {
      const err = await run().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, String(message)).toBeInstanceOf(AccessError);
      expect((err as Error).message).toMatch(message);
    }
  });

  it('revokes idempotently and refuses to regenerate a revoked key', async () => {
    const { userId } = await access.bootstrap({});
    const { key } = await access.createKey({ userId, name: 'k' });
    const revoked = await access.revokeKey(key.keyId);
    expect(revoked.revokedAt).toBe(now.toISOString());
    now = new Date(now.getTime() + 60_000);
    expect((await access.revokeKey(key.keyId)).revokedAt).toBe(revoked.revokedAt);
    await expect(access.regenerateKey(key.keyId)).rejects.toThrow(/is revoked/);
  });

  it('sets and validates plan overrides', async () => {
    const { organizationId } = await access.bootstrap({ planSlug: 'free' });
    const org = await access.setOverrides(organizationId, { pools: { image_generations: 500 } });
    expect(org.overrides).toEqual({ pools: { image_generations: 500 } });
  });

  it('writes lastUsedAt (the latest use of each key) only at flush and at close', async () => {
    const repo = createAccessRepo(db);
    const { userId } = await access.bootstrap({});
    const a = await access.createKey({ userId, name: 'a' });
    const b = await access.createKey({ userId, name: 'b' });
    const idOf = async (keyId: string) => (await repo.getKeyByKeyId(keyId))?.id as string;
    const lastUsed = async (keyId: string) => (await repo.getKeyByKeyId(keyId))?.last_used_at;
    const tracker = createKeyUsageTracker(repo, clock, 3_600_000);
    tracker.touch(await idOf(a.key.keyId));
    now = new Date(now.getTime() + 1000);
    tracker.touch(await idOf(a.key.keyId));
    expect(await lastUsed(a.key.keyId)).toBeNull();
    await tracker.flush();
    expect(await lastUsed(a.key.keyId)).toBe(now.toISOString());
    expect(await lastUsed(b.key.keyId)).toBeNull();
    tracker.touch(await idOf(b.key.keyId));
    await tracker.close();
    expect(await lastUsed(b.key.keyId)).toBe(now.toISOString());
  });
});

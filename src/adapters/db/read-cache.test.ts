import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from './database.ts';
import { createReadCache } from './read-cache.ts';

describe('read cache over SQLite generations', () => {
  const open: Database[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.close();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  async function twoHandles() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cache-'));
    dirs.push(dataDir);
    const a = await openDatabase({ dataDir });
    await a.migrate();
    const b = await openDatabase({ dataDir });
    open.push(a, b);
    const t = new Date().toISOString();
    await a.kysely
      .insertInto('organizations')
      .values({
        id: 'o1',
        name: 'first',
        plan_slug: 'free',
        overrides: '{}',
        content_credentials: 1,
        created_at: t,
        updated_at: t,
      })
      .execute();
    return { a, b };
  }
  const nameOf = (db: Database) => async () =>
    (await db.kysely.selectFrom('organizations').select('name').where('id', '=', 'o1').executeTakeFirst())?.name;

  it('serves a repeated read from memory while nothing was written', async () => {
    const { a } = await twoHandles();
    const cache = createReadCache(a);
    let loads = 0;
    const load = async () => {
      loads++;
      return nameOf(a)();
    };
    expect(await cache.get('k', load)).toBe('first');
    expect(await cache.get('k', load)).toBe('first');
    expect(loads).toBe(1);
  });

  it('reads again after a write on the same connection', async () => {
    const { a } = await twoHandles();
    const cache = createReadCache(a);
    expect(await cache.get('k', nameOf(a))).toBe('first');
    await a.kysely.updateTable('organizations').set({ name: 'second' }).where('id', '=', 'o1').execute();
    expect(await cache.get('k', nameOf(a))).toBe('second');
  });

  it('reads again after a write by another connection (another process, e.g. the admin CLI), from the next turn of the event loop', async () => {
    const { a, b } = await twoHandles();
    const cache = createReadCache(a);
    expect(await cache.get('k', nameOf(a))).toBe('first');
    await b.kysely.updateTable('organizations').set({ name: 'other' }).where('id', '=', 'o1').execute();
    // Another connection's commits are looked for once per turn (a request's reads share one look).
    expect(await cache.get('k', nameOf(a))).toBe('first');
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('k', nameOf(a))).toBe('other');
  });

  it('never caches on PostgreSQL-like databases without a generation', async () => {
    let loads = 0;
    const cache = createReadCache({ generation: () => undefined });
    await cache.get('k', async () => ++loads);
    await cache.get('k', async () => ++loads);
    expect(loads).toBe(2);
  });
});

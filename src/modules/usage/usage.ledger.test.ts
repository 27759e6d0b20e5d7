import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openDatabase } from '../../adapters/db/database.ts';
import { AppError } from '../../http/errors.ts';
import { createAccessRepo } from '../access/access.repo.ts';
import { createAccessService } from '../access/access.service.ts';
import { dropSchema, TEST_PG_URL } from '../../../test/helpers/pg.ts';
import { loadPlanCatalog } from './plans.ts';
import { createUsageLedger, type UsageLedger } from './usage.ledger.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const plans = loadPlanCatalog(path.join(ROOT, 'config/plans.json'));

/** The ledger over a real database, the way deps.ts wires it, with a clock the test moves. */
function wire(db: Database, clock: () => Date) {
  const access = createAccessService({ repo: createAccessRepo(db), clock, plans, env: 'dev' });
  return { access, ledger: createUsageLedger({ db, clock, plans, orgs: access }) };
}

// Not test/helpers/app.ts: this suite needs the database and the ledger only, not the HTTP app.
const KINDS = inject('postgres') ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

/** true when the reservation was granted, false when refused for quota; anything else fails the test. */
async function wasGranted(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return true;
  } catch (err) {
    if ((err as AppError).code !== 'QUOTA_EXCEEDED') throw err;
    return false;
  }
}

async function quotaError(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe.each(KINDS)('usage ledger (%s)', (kind) => {
  let now = new Date('2031-05-20T10:00:00.000Z');
  const clock = () => now;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ledger-'));
  const schema = kind === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  let db: Database;
  let access: ReturnType<typeof wire>['access'];
  let ledger: UsageLedger;

  beforeAll(async () => {
    // A pool of several connections, so concurrent reserves really run in parallel on PostgreSQL.
    db = await openDatabase({
      dataDir,
      ...(kind === 'postgres' ? { databaseUrl: TEST_PG_URL, pgSchema: schema, pgPoolSize: 8 } : {}),
    });
    await db.migrate();
    ({ access, ledger } = wire(db, clock));
  });
  afterAll(async () => {
    await db?.close();
    if (schema) await dropSchema(schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function org(planSlug = 'free', pools?: Record<string, number | null>) {
    const o = await access.createOrganization({ name: 'Org', planSlug });
    if (pools) await access.setOverrides(o.id, { pools });
    return o.id;
  }
  const used = async (orgId: string, pool: 'image_generations' | 'video_seconds' = 'image_generations') =>
    (await ledger.periodUsage(orgId)).used[pool];
  const states = async (orgId: string) =>
    (
      await db.kysely
        .selectFrom('usage_reservations')
        .select(['state', 'amount'])
        .where('organization_id', '=', orgId)
        .execute()
    ).map((r) => `${r.state}:${Number(r.amount)}`);

  it('counts reservations and refuses the one that would pass the cap, naming pool, cap, usage and reset', async () => {
    const id = await org('free'); // image_generations cap 40
    await ledger.reserve(id, 'image_generations', 30, { reference: 'job-1' });
    await ledger.reserve(id, 'image_generations', 10);
    expect(await used(id)).toBe(40);
    const err = await quotaError(ledger.reserve(id, 'image_generations', 1));
    expect(err.statusCode).toBe(403);
    expect(err.code).toBe('QUOTA_EXCEEDED');
    expect(err.message).toContain('image_generations');
    expect(err.details).toEqual({
      pool: 'image_generations',
      cap: 40,
      usage: 40,
      remaining: 0,
      requested: 1,
      resetsAt: '2031-06-01T00:00:00.000Z',
    });
    // A refusal writes nothing: neither usage nor a reservation.
    expect(await used(id)).toBe(40);
    expect(await states(id)).toHaveLength(2);
    const row = await db.kysely.selectFrom('usage_reservations').selectAll().where('reference', '=', 'job-1').execute();
    expect(row).toHaveLength(1);
    expect(row[0]).toMatchObject({ organization_id: id, pool: 'image_generations', state: 'reserved' });
  });

  it('refuses a single reservation larger than what is left, and keeps the rest available', async () => {
    const id = await org('free', { image_generations: 10 });
    await ledger.reserve(id, 'image_generations', 7);
    const err = await quotaError(ledger.reserve(id, 'image_generations', 4));
    expect(err.details).toMatchObject({ cap: 10, usage: 7, remaining: 3, requested: 4 });
    await ledger.reserve(id, 'image_generations', 3);
    expect(await used(id)).toBe(10);
  });

  it('refuses every reservation on a pool capped at 0', async () => {
    const id = await org('free'); // brand_dna_extractions cap 0
    const err = await quotaError(ledger.reserve(id, 'brand_dna_extractions', 1));
    expect(err.details).toMatchObject({ pool: 'brand_dna_extractions', cap: 0, usage: 0, remaining: 0 });
  });

  it('never refuses an unlimited pool but still counts it', async () => {
    const id = await org('enterprise');
    for (const n of [1_000_000, 2_000_000, 1]) await ledger.reserve(id, 'video_seconds', n);
    expect(await used(id, 'video_seconds')).toBe(3_000_001);
  });

  it('gives a released reservation back exactly once, even when released twice or concurrently', async () => {
    const id = await org('free', { image_generations: 5 });
    const a = await ledger.reserve(id, 'image_generations', 3);
    const b = await ledger.reserve(id, 'image_generations', 2);
    await quotaError(ledger.reserve(id, 'image_generations', 1));
    expect(await ledger.release(a)).toBe('released');
    expect(await ledger.release(a)).toBe('released');
    expect(await used(id)).toBe(2);
    expect(await Promise.all(Array.from({ length: 10 }, () => ledger.release(b)))).toEqual(Array(10).fill('released'));
    expect(await used(id)).toBe(0);
    // Release then reserve: the freed units are available again, and no more than that.
    await ledger.reserve(id, 'image_generations', 5);
    await quotaError(ledger.reserve(id, 'image_generations', 1));
    expect(await states(id)).toEqual(expect.arrayContaining(['released:3', 'released:2', 'reserved:5']));
  });

  it('commits idempotently; a committed reservation is not released and a released one not committed', async () => {
    const id = await org('free', { image_generations: 4 });
    const a = await ledger.reserve(id, 'image_generations', 2);
    expect(await ledger.commit(a)).toBe('committed');
    expect(await ledger.commit(a)).toBe('committed');
    expect(await ledger.release(a)).toBe('committed');
    expect(await used(id)).toBe(2);
    const b = await ledger.reserve(id, 'image_generations', 2);
    expect(await ledger.release(b)).toBe('released');
    expect(await ledger.commit(b)).toBe('released');
    expect(await used(id)).toBe(2);
  });

  it('rejects unknown reservations, pools, organizations and amounts that are not positive whole numbers', async () => {
    const id = await org('free');
    await expect(ledger.commit('00000000-0000-4000-8000-000000000000')).rejects.toThrow(/unknown usage reservation/);
    await expect(ledger.release('nope')).rejects.toThrow(/unknown usage reservation/);
    await expect(ledger.reserve(id, 'bogus' as 'video_seconds', 1)).rejects.toThrow(RangeError);
    for (const n of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      await expect(ledger.reserve(id, 'video_seconds', n), String(n)).rejects.toThrow(RangeError);
    }
    await expect(ledger.reserve('00000000-0000-4000-8000-000000000000', 'video_seconds', 1)).rejects.toThrow(
      /unknown organization/,
    );
    expect(await used(id, 'video_seconds')).toBe(0);
  });

  it('starts every calendar month (UTC) from zero and releases into the period a reservation came from', async () => {
    const id = await org('free', { image_generations: 3 });
    now = new Date('2031-05-31T23:59:59.999Z');
    const may = await ledger.reserve(id, 'image_generations', 3);
    await quotaError(ledger.reserve(id, 'image_generations', 1));
    now = new Date('2031-06-01T00:00:00.000Z');
    expect((await ledger.periodUsage(id)).period).toEqual({
      start: '2031-06-01T00:00:00.000Z',
      end: '2031-07-01T00:00:00.000Z',
    });
    expect(await used(id)).toBe(0);
    await ledger.reserve(id, 'image_generations', 2);
    // Releasing May's reservation in June gives May back its units, not June extra room.
    expect(await ledger.release(may)).toBe('released');
    expect(await used(id)).toBe(2);
    await ledger.reserve(id, 'image_generations', 1);
    const err = await quotaError(ledger.reserve(id, 'image_generations', 1));
    expect(err.details).toMatchObject({ usage: 3, resetsAt: '2031-07-01T00:00:00.000Z' });
    now = new Date('2031-05-15T00:00:00.000Z');
    expect(await used(id)).toBe(0);
    now = new Date('2031-05-20T10:00:00.000Z');
  });

  it('reads caps live: overrides raise, lower and lift them, and a plan change applies at once', async () => {
    const id = await org('free');
    await ledger.reserve(id, 'image_generations', 40);
    await quotaError(ledger.reserve(id, 'image_generations', 1));
    await access.setOverrides(id, { pools: { image_generations: 45 } });
    await ledger.reserve(id, 'image_generations', 5);
    await access.setOverrides(id, { pools: { image_generations: 10 } });
    const err = await quotaError(ledger.reserve(id, 'image_generations', 1));
    expect(err.details).toMatchObject({ cap: 10, usage: 45, remaining: 0 });
    await access.setOverrides(id, { pools: { image_generations: null } });
    await ledger.reserve(id, 'image_generations', 1000);
    await access.setOverrides(id, {});
    await access.setPlan(id, 'pro'); // image_generations 500
    await quotaError(ledger.reserve(id, 'image_generations', 1));
    await access.setPlan(id, 'business');
    await ledger.reserve(id, 'image_generations', 1);
    expect(await used(id)).toBe(1046);
  });

  it('keeps organizations and pools apart', async () => {
    const a = await org('free', { image_generations: 2, video_seconds: 2 });
    const b = await org('free', { image_generations: 2 });
    await ledger.reserve(a, 'image_generations', 2);
    await ledger.reserve(a, 'video_seconds', 2);
    await ledger.reserve(b, 'image_generations', 2);
    expect((await ledger.periodUsage(a)).used).toEqual({
      image_generations: 2,
      environment_generations: 0,
      prompt_enhancements: 0,
      video_seconds: 2,
      brand_dna_extractions: 0,
    });
    expect(await used(b)).toBe(2);
  });

  it('grants exactly the cap to 50 concurrent reserves of 1 against a cap of 10', async () => {
    const id = await org('free', { image_generations: 10 });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => ledger.reserve(id, 'image_generations', 1, { reference: `r${i}` })),
    );
    const granted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(granted).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect((r.reason as AppError).code).toBe('QUOTA_EXCEEDED');
    expect(await used(id)).toBe(10);
    expect(await states(id)).toHaveLength(10);
  });

  it('gives units back exactly once under concurrent release and reserve', async () => {
    const id = await org('free', { image_generations: 10 });
    const ids = await Promise.all(Array.from({ length: 10 }, () => ledger.reserve(id, 'image_generations', 1)));
    // Every reservation released three times at once, while 30 new reserves race for the freed units.
    const outcomes = await Promise.allSettled([
      ...ids.flatMap((r) => [ledger.release(r), ledger.release(r), ledger.release(r)]),
      ...Array.from({ length: 30 }, () => ledger.reserve(id, 'image_generations', 1)),
    ]);
    const granted = outcomes.slice(30).filter((r) => r.status === 'fulfilled').length;
    expect(outcomes.slice(0, 30).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(granted).toBeLessThanOrEqual(10);
    expect(await used(id)).toBe(granted);
    const rows = await states(id);
    expect(rows.filter((s) => s === 'released:1')).toHaveLength(10);
    expect(rows.filter((s) => s === 'reserved:1')).toHaveLength(granted);
  });

  it.runIf(kind === 'postgres')('holds the cap across two separate connection pools', async () => {
    const id = await org('free', { image_generations: 10 });
    const other = await openDatabase({ dataDir, databaseUrl: TEST_PG_URL, pgSchema: schema, pgPoolSize: 4 });
    try {
      const second = wire(other, clock).ledger;
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? ledger : second).reserve(id, 'image_generations', 1)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
      expect(await used(id)).toBe(10);
    } finally {
      await other.close();
    }
  });

  it.runIf(kind === 'sqlite')('holds the cap across two processes on the same database file', async () => {
    const id = await org('free', { image_generations: 60 });
    // A second process with its own handle on the same file. Once it is ready both sides start at
    // the same instant and try 100 reserves each, one after another, so their writes interleave.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', CHILD_SCRIPT, ROOT, dataDir, now.toISOString(), id, '100'],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('ready\n')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await Promise.race([ready, exited]);
    const startAt = Date.now() + 100;
    child.stdin.end(`${startAt}\n`);
    await new Promise((r) => setTimeout(r, startAt - Date.now()));
    const mine: boolean[] = [];
    for (let i = 0; i < 100; i++) mine.push(await wasGranted(ledger.reserve(id, 'image_generations', 1)));
    expect(await exited).toBe(0);
    const theirs = JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as { granted: number; refused: number };
    expect(mine.filter(Boolean).length + theirs.granted).toBe(60);
    expect(theirs.granted + theirs.refused).toBe(100);
    expect(await used(id)).toBe(60);
    expect(await states(id)).toHaveLength(60);
  });
});

/** Runs in the second process: `argv` = root, dataDir, clock instant, orgId, attempts. */
const CHILD_SCRIPT = `
const [root, dataDir, at, orgId, attempts] = process.argv.slice(1);
const { openDatabase } = await import(root + '/src/adapters/db/database.ts');
const { createAccessRepo } = await import(root + '/src/modules/access/access.repo.ts');
const { createAccessService } = await import(root + '/src/modules/access/access.service.ts');
const { loadPlanCatalog } = await import(root + '/src/modules/usage/plans.ts');
const { createUsageLedger } = await import(root + '/src/modules/usage/usage.ledger.ts');
const db = await openDatabase({ dataDir });
const clock = () => new Date(at);
const plans = loadPlanCatalog(root + '/config/plans.json');
const access = createAccessService({ repo: createAccessRepo(db), clock, plans, env: 'dev' });
const ledger = createUsageLedger({ db, clock, plans, orgs: access });
process.stdout.write('ready\\n');
let line = '';
for await (const chunk of process.stdin) line += chunk;
await new Promise((r) => setTimeout(r, Math.max(0, Number(line) - Date.now())));
let granted = 0;
let refused = 0;
for (let i = 0; i < Number(attempts); i++) {
  try {
    await ledger.reserve(orgId, 'image_generations', 1);
    granted++;
  } catch (err) {
    if (err?.code !== 'QUOTA_EXCEEDED') throw err;
    refused++;
  }
}
process.stdout.write(JSON.stringify({ granted, refused }));
await db.close();
`;

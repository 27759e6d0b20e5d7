import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisAvailable } from '../jobs/jobs.test-harness.ts';
import { TEST_REDIS_URL } from '../../test/helpers/pg.ts';
import { createChanges, type ResourceChange } from './changes.ts';
import { parseChangeMessage, redisTransport } from './redis-transport.ts';

const redis = await redisAvailable();

const change = (id: string, status = 'completed'): ResourceChange => ({
  kind: 'environment_generation',
  id,
  orgId: 'org-1',
  brandId: 'brand-1',
  status,
  terminal: status === 'completed',
  at: new Date().toISOString(),
});

/** Resolves with the next `n` changes a listener hears. */
function collect(changes: ReturnType<typeof createChanges>, n: number, timeoutMs = 5000) {
  const got: ResourceChange[] = [];
  return new Promise<ResourceChange[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`heard ${got.length} of ${n} changes`)), timeoutMs);
    const stop = changes.listen((c) => {
      got.push(c);
      if (got.length === n) {
        clearTimeout(timer);
        stop();
        resolve(got);
      }
    });
  });
}

describe('parseChangeMessage', () => {
  it('takes a well-formed change and only its known members', () => {
    const c = change('a');
    expect(parseChangeMessage(JSON.stringify({ ...c, extra: 1 }))).toEqual(c);
  });
  it.each([
    ['not json'],
    ['null'],
    ['[]'],
    [JSON.stringify({ ...change('a'), kind: 'nope' })],
    [JSON.stringify({ ...change('a'), terminal: 'yes' })],
    [JSON.stringify({ ...change('a'), id: '' })],
    [JSON.stringify({ kind: 'asset', id: 'x' })],
  ])('refuses %s', (text) => {
    expect(parseChangeMessage(text)).toBeUndefined();
  });
});

describe.runIf(redis)('redisTransport (real Redis)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });
  const prefix = () => `atelier-test-changes-${randomBytes(4).toString('hex')}`;
  const open = async (p: string) => {
    const transport = redisTransport(TEST_REDIS_URL, { prefix: p });
    const changes = createChanges(transport);
    closers.push(() => changes.close());
    await transport.ready();
    return { transport, changes };
  };

  it('delivers a change published by one process to every process, itself included', async () => {
    const p = prefix();
    const api = await open(p);
    const worker = await open(p);
    const other = await open(prefix()); // another deployment (prefix) hears nothing
    const onApi = collect(api.changes, 1);
    const onWorker = collect(worker.changes, 1);
    let leaked = 0;
    other.changes.listen(() => leaked++);
    await worker.changes.publish(change('g1'));
    expect(await onApi).toEqual([change('g1')].map((c) => ({ ...c, at: expect.any(String) })));
    expect((await onWorker)[0]!.id).toBe('g1');
    await new Promise((r) => setTimeout(r, 100));
    expect(leaked).toBe(0);
  });

  it('ignores messages on the channel that are not changes', async () => {
    const p = prefix();
    const api = await open(p);
    const raw = new Redis(TEST_REDIS_URL);
    closers.push(async () => void (await raw.quit()));
    const heard = collect(api.changes, 1);
    await raw.publish(`${p}:changes`, 'garbage');
    await raw.publish(`${p}:changes`, JSON.stringify({ kind: 'asset' }));
    await raw.publish(`${p}:changes`, JSON.stringify(change('ok')));
    const got = await heard;
    expect(got.map((c) => c.id)).toEqual(['ok']);
  });

  it('subscribes again after its connection is killed', async () => {
    const p = prefix();
    const api = await open(p);
    const admin = new Redis(TEST_REDIS_URL);
    closers.push(async () => void (await admin.quit()));
    const list = (await admin.client('LIST')) as string;
    const sub = list.split('\n').find((l) => l.includes(`name=${p}:changes-sub`));
    expect(sub).toBeDefined();
    const id = /\bid=(\d+)/.exec(sub!)![1]!;
    await admin.client('KILL', 'ID', id);
    // Until ioredis is back and subscribed, messages are lost (pub/sub is at most once): publish until heard.
    const heard = collect(api.changes, 1, 10_000);
    let done = false;
    void heard.then(() => (done = true)).catch(() => undefined);
    for (let i = 0; i < 100 && !done; i++) {
      await admin.publish(`${p}:changes`, JSON.stringify(change('after-kill')));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await heard)[0]!.id).toBe('after-kill');
  });

  it('close() quits both connections', async () => {
    const p = prefix();
    const transport = redisTransport(TEST_REDIS_URL, { prefix: p });
    await transport.ready();
    const admin = new Redis(TEST_REDIS_URL);
    closers.push(async () => void (await admin.quit()));
    const names = async () =>
      ((await admin.client('LIST')) as string).split('\n').filter((l) => l.includes(`name=${p}:changes-`)).length;
    await transport.broadcast(change('x')); // the publisher connects on first use at the latest
    expect(await names()).toBe(2);
    await transport.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(await names()).toBe(0);
    await transport.broadcast(change('y')); // a no-op after close
  });
});

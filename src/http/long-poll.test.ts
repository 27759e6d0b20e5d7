import { describe, expect, it } from 'vitest';
import { createChanges, type ResourceChange } from '../events/changes.ts';
import { createMetrics } from './metrics.ts';
import { createWaitHub, MAX_WAIT_SECONDS, parsePreferWait } from './long-poll.ts';

const change = (id: string, status = 'processing'): ResourceChange => ({
  kind: 'scene_forge',
  id,
  orgId: 'org',
  status,
  terminal: false,
  at: new Date().toISOString(),
});

describe('parsePreferWait (RFC 7240 Prefer: wait)', () => {
  it.each([
    ['wait=5', 5],
    ['wait=1', 1],
    ['wait=60', 60],
    ['WAIT=7', 7],
    ['  wait = 9 ', 9],
    ['wait="12"', 12],
    ['respond-async, wait=10', 10],
    ['return=minimal; foo=bar, wait=3; x=y', 3],
    ['wait=61', MAX_WAIT_SECONDS],
    ['wait=100000', MAX_WAIT_SECONDS],
    ['wait=999999999999', MAX_WAIT_SECONDS],
    ['wait=4, wait=8', 4], // the first instance counts
  ])('%s → %s', (header, n) => {
    expect(parsePreferWait(header)).toBe(n);
  });

  it.each([
    [undefined],
    [''],
    ['respond-async'],
    ['wait'],
    ['wait='],
    ['wait=0'],
    ['wait=-1'],
    ['wait=1.5'],
    ['wait=abc'],
    ['wait=5s'],
    ['wait=1e3'],
    ['wait=9999999999999'],
    ['waiting=5'],
    ['x-wait=5'],
    ['wait="5'],
    [`wait=5${' '.repeat(5000)}`],
  ])('%j is ignored', (header) => {
    expect(parsePreferWait(header)).toBeUndefined();
  });

  it('reads several Prefer headers as one list', () => {
    expect(parsePreferWait(['respond-async', 'wait=20'])).toBe(20);
  });
});

describe('createWaitHub', () => {
  it('wakes the waiters of the changed resource only, and only once each', async () => {
    const changes = createChanges();
    const hub = createWaitHub(changes, { max: 10, perKey: 10 });
    const a = hub.acquire('scene_forge:a', 'k')!;
    const b = hub.acquire('scene_forge:b', 'k')!;
    const pa = a.wait(5000);
    const pb = b.wait(150);
    await changes.publish(change('a'));
    expect(await pa).toBe('changed');
    expect(await pb).toBe('timeout');
    a.release();
    b.release();
    expect(hub.held()).toBe(0);
    hub.dispose();
  });

  it('keeps a change heard between acquire and wait (nothing is missed while the first read runs)', async () => {
    const changes = createChanges();
    const hub = createWaitHub(changes, { max: 10, perKey: 10 });
    const w = hub.acquire('scene_forge:a', 'k')!;
    await changes.publish(change('a'));
    const t0 = Date.now();
    expect(await w.wait(5000)).toBe('changed');
    expect(Date.now() - t0).toBeLessThan(100);
    w.release();
  });

  it('caps the held waits per process and per owner, counts them, and frees slots on release', async () => {
    const metrics = createMetrics();
    const hub = createWaitHub(createChanges(), { max: 3, perKey: 2, metrics });
    const k1 = [hub.acquire('scene_forge:a', 'k1'), hub.acquire('scene_forge:a', 'k1')];
    expect(k1.every(Boolean)).toBe(true);
    expect(hub.acquire('scene_forge:a', 'k1')).toBeUndefined(); // per owner
    const k2 = hub.acquire('scene_forge:b', 'k2');
    expect(k2).toBeDefined();
    expect(hub.acquire('scene_forge:c', 'k3')).toBeUndefined(); // per process
    expect(hub.held()).toBe(3);
    expect((await metrics.longPollHeld.get()).values[0]?.value).toBe(3);
    const refused = (await metrics.longPollRefused.get()).values;
    expect(refused.find((v) => v.labels.reason === 'key')?.value).toBe(1);
    expect(refused.find((v) => v.labels.reason === 'process')?.value).toBe(1);
    k1[0]!.release();
    k1[0]!.release(); // idempotent
    expect(hub.held()).toBe(2);
    expect(hub.acquire('scene_forge:a', 'k1')).toBeDefined();
  });

  it('ends every wait on closeAll and refuses new ones', async () => {
    const hub = createWaitHub(createChanges(), { max: 10, perKey: 10 });
    const w = hub.acquire('scene_forge:a', 'k')!;
    const p = w.wait(30_000);
    hub.closeAll();
    expect(await p).toBe('closed');
    expect(hub.acquire('scene_forge:a', 'k')).toBeUndefined();
  });

  it('ends a wait when its signal aborts (the client went away)', async () => {
    const hub = createWaitHub(createChanges(), { max: 10, perKey: 10 });
    const w = hub.acquire('scene_forge:a', 'k')!;
    const ac = new AbortController();
    const p = w.wait(30_000, ac.signal);
    ac.abort();
    expect(await p).toBe('aborted');
    w.release();
    expect(hub.held()).toBe(0);
  });
});

import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceChange } from '../src/events/changes.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { productFixture } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * `Prefer: wait=N` on the pollable GETs (src/http/long-poll.ts): held until the resource changes
 * or N seconds pass, answered at once when terminal, capped per process and per key, freed when
 * the client goes away, and answered when the app closes.
 */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

const held = async (t: TestApp) => (await t.deps.metrics.longPollHeld.get()).values[0]?.value ?? 0;

const nudge = (t: TestApp, kind: ResourceChange['kind'], id: string, orgId: string) =>
  t.deps.changes.publish({ kind, id, orgId, status: 'processing', terminal: false, at: new Date().toISOString() });

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

describe.each(dbKinds())('long-poll with Prefer: wait (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let brandId: string;
  let envId: string; // an environment generation left pending (no workers yet)

  const get = (url: string, prefer?: string, k = key) =>
    t.request({ method: 'GET', url, key: k, ...(prefer ? { headers: { prefer } } : {}) });
  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const t0 = performance.now();
    const r = await fn();
    return [r, performance.now() - t0];
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    const a = await t.bootstrap();
    key = a.apiKey;
    orgId = a.organizationId;
    brandId = await createBrand(t, key, 'Solidus');
    const res = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/environment-generations`,
      key,
      payload: { prompt: 'A concrete floor against a white wall, soft light' },
    });
    expect(res.statusCode, res.body).toBe(202);
    envId = res.json().environmentGenerationId;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('answers at once without Prefer, and ignores a malformed one', async () => {
    for (const prefer of [undefined, 'wait=abc', 'wait=0', 'respond-async']) {
      const [res, ms] = await timed(() => get(`/v1/environment-generations/${envId}`, prefer));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().status).toBe('pending');
      expect(res.headers['preference-applied']).toBeUndefined();
      expect(ms).toBeLessThan(500);
    }
  });

  it('holds a pending resource for N seconds, then answers 200 with the pending state', async () => {
    const [res, ms] = await timed(() => get(`/v1/environment-generations/${envId}`, 'wait=1'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ environmentGenerationId: envId, status: 'pending' });
    expect(res.headers['preference-applied']).toBe('wait=1');
    expect(res.headers.vary).toMatch(/prefer/i);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(2500);
    expect(await held(t)).toBe(0);
  });

  it('HEAD waits once, like GET', async () => {
    const [res, ms] = await timed(() =>
      t.request({ method: 'HEAD', url: `/v1/environment-generations/${envId}`, key, headers: { prefer: 'wait=1' } }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['preference-applied']).toBe('wait=1');
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(1900);
  });

  it('answers as soon as a change of that resource is heard (and not on another resource’s)', async () => {
    const pending = get(`/v1/environment-generations/${envId.toUpperCase()}`, 'wait=20');
    await eventually(async () => ((await held(t)) === 1 ? true : undefined), 'the request to be held', 5000, 10);
    await nudge(t, 'environment_generation', '00000000-0000-4000-8000-000000000000', orgId);
    await nudge(t, 'scene_forge', envId, orgId); // same id, another kind
    await new Promise((r) => setTimeout(r, 200));
    expect(await held(t)).toBe(1);
    const t0 = performance.now();
    await nudge(t, 'environment_generation', envId, orgId);
    const res = await pending;
    expect(performance.now() - t0).toBeLessThan(500);
    expect(res.statusCode).toBe(200);
    expect(res.headers['preference-applied']).toBe('wait=20');
    expect(await held(t)).toBe(0);
  });

  it('a long-polling client sees the job finish well before N, in a few requests; then answers at once', async () => {
    const events: ResourceChange[] = [];
    const stop = t.deps.changes.listen((c) => {
      if (c.id === envId) events.push(c);
    });
    const first = get(`/v1/environment-generations/${envId}`, 'wait=30');
    await eventually(async () => ((await held(t)) === 1 ? true : undefined), 'the request to be held', 5000, 10);
    const t0 = performance.now();
    await t.deps.startWorkers();
    let body: Json = (await first).json();
    let requests = 1;
    while (!['completed', 'failed'].includes(body.status)) {
      const res = await get(`/v1/environment-generations/${envId}`, 'wait=30');
      expect(res.headers['preference-applied']).toBe('wait=30');
      body = res.json();
      requests++;
    }
    const elapsed = performance.now() - t0;
    await eventually(async () => (events.some((e) => e.terminal) ? true : undefined), 'the end', 5000, 10);
    stop();
    expect(body.status).toBe('completed');
    expect(elapsed).toBeLessThan(20_000);
    expect(requests).toBeLessThanOrEqual(3);
    // The job announced each transition after it committed, the last one terminal.
    expect(events.map((e) => e.status)).toEqual(['processing', 'completed']);
    expect(events.at(-1)).toMatchObject({
      kind: 'environment_generation',
      orgId,
      brandId,
      terminal: true,
    });

    const [again, ms] = await timed(() => get(`/v1/environment-generations/${envId}`, 'wait=30'));
    expect(again.json().status).toBe('completed');
    expect(again.headers['preference-applied']).toBe('wait=30');
    expect(ms).toBeLessThan(500);
  }, 60_000);

  it('a scene forge wakes its long-poll on each variation and ends completed', async () => {
    const [product] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
    ]);
    const events: ResourceChange[] = [];
    const stop = t.deps.changes.listen((c) => {
      if (c.kind === 'scene_forge') events.push(c);
    });
    const created = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/scene-forges`,
      key,
      payload: { blendingPrompt: 'The cap on a wooden table', promptIsEnhanced: false, productAssetIds: [product] },
    });
    expect(created.statusCode, created.body).toBe(202);
    const id = created.json().sceneForgeId;
    const t0 = performance.now();
    let body: Json = created.json();
    let requests = 0;
    while (!['completed', 'failed'].includes(body.status)) {
      const res = await get(`/v1/scene-forges/${id}`, 'wait=60');
      expect(res.statusCode, res.body).toBe(200);
      body = res.json();
      requests++;
    }
    expect(body.status).toBe('completed');
    expect(performance.now() - t0).toBeLessThan(55_000);
    await eventually(
      async () => (events.some((e) => e.id === id && e.terminal) ? true : undefined),
      'the end',
      5000,
      10,
    );
    stop();
    expect(requests).toBeLessThanOrEqual(10); // 4 variations: a start and an end each at most
    // Only the variation that ended the forge announces its end (two finishing together must not
    // both announce it); the announcements of other variations may arrive on either side of it.
    const ends = events.filter((e) => e.id === id && e.terminal);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ status: 'completed', orgId, brandId });
  }, 90_000);

  it('asset processing and a scene prompt enhancement announce their ends; both GETs long-poll', async () => {
    const events: ResourceChange[] = [];
    const stop = t.deps.changes.listen((c) => events.push(c));
    const [asset] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'mug.png', type: 'image/png', bytes: productFixture('solidus_mug_set.png') },
    ]);
    // As below: the asset may read complete before its job has announced the end.
    const ended = await eventually(
      async () => events.find((e) => e.kind === 'asset' && e.id === asset && e.terminal),
      'the asset to announce its end',
      5000,
      10,
    );
    expect(ended).toMatchObject({
      status: 'complete',
      terminal: true,
      orgId,
      brandId,
    });
    const done = await get(`/v1/assets/${asset}`, 'wait=30');
    expect(done.headers['preference-applied']).toBe('wait=30');

    const created = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/scene-forge-prompt-enhancements`,
      key,
      payload: { originalPrompt: 'the mug on a wooden table', productAssetIds: [asset] },
    });
    expect(created.statusCode, created.body).toBe(202);
    const id = created.json().promptEnhancementId;
    let body: Json = created.json();
    while (!['completed', 'failed'].includes(body.status)) {
      const res = await get(`/v1/brands/${brandId}/scene-forge-prompt-enhancements/${id}`, 'wait=30');
      expect(res.headers['preference-applied']).toBe('wait=30');
      body = res.json();
    }
    expect(body.status).toBe('completed');
    // The read may see the commit before the job announced it (it announces after its quota commit).
    await eventually(
      async () => (events.some((e) => e.id === id && e.terminal) ? true : undefined),
      'the end',
      5000,
      10,
    );
    stop();
    expect(events.filter((e) => e.id === id).map((e) => e.status)).toEqual(['processing', 'completed']);
  }, 60_000);

  it('a held request answers 404 when the resource is gone or another organization’s', async () => {
    const other = (await t.bootstrap({ orgName: 'Other' })).apiKey;
    const res = await get(`/v1/environment-generations/${envId}`, 'wait=5', other);
    expect(res.statusCode).toBe(404);
    expect(await held(t)).toBe(0);
  });
});

describe('long-poll caps, disconnects and shutdown (sqlite)', () => {
  let t: TestApp;
  let key: string;
  let key2: string;
  let orgId: string;
  let envId: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { ATELIER_LONG_POLL_MAX: '55' } });
    const a = await t.bootstrap();
    key = a.apiKey;
    orgId = a.organizationId;
    key2 = (await t.deps.access.createKey({ userId: a.userId, name: 'second' })).token;
    const brandId = await createBrand(t, key, 'Solidus');
    const res = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/environment-generations`,
      key,
      payload: { prompt: 'A concrete floor against a white wall' },
    });
    envId = res.json().environmentGenerationId;
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  const url = () => `/v1/environment-generations/${envId}`;

  it('wraps every pollable GET (and only those)', () => {
    const pollable = [
      '/v1/assets/:assetId',
      '/v1/assets/extract-from-url/:extractionId',
      '/v1/brands/:brandId/brand-dna/versions/:versionId',
      '/v1/scene-forges/:id',
      '/v1/environment-generations/:id',
      '/v1/brands/:brandId/scene-forge-prompt-enhancements/:id',
      '/v1/generated-videos-groups/:generatedVideosGroupId',
      '/v1/brands/:brandId/image-to-video-prompt-enhancements/:id',
    ];
    const gets = t.app.longPollRoutes.filter((r) => r.startsWith('GET ')).map((r) => r.slice(4));
    expect(gets.sort()).toEqual(pollable.sort());
  });

  it('holds at most 50 per key and ATELIER_LONG_POLL_MAX per process; over a cap, answers at once without Preference-Applied', async () => {
    const mine = Array.from({ length: 50 }, () =>
      t.request({ method: 'GET', url: url(), key, headers: { prefer: 'wait=30' } }),
    );
    await eventually(async () => ((await held(t)) === 50 ? true : undefined), '50 held', 10_000, 20);
    const overKey = await t.request({ method: 'GET', url: url(), key, headers: { prefer: 'wait=30' } });
    expect(overKey.statusCode).toBe(200);
    expect(overKey.headers['preference-applied']).toBeUndefined();

    const other = Array.from({ length: 5 }, () =>
      t.request({ method: 'GET', url: url(), key: key2, headers: { prefer: 'wait=30' } }),
    );
    await eventually(async () => ((await held(t)) === 55 ? true : undefined), '55 held', 10_000, 20);
    const overProcess = await t.request({ method: 'GET', url: url(), key: key2, headers: { prefer: 'wait=30' } });
    expect(overProcess.headers['preference-applied']).toBeUndefined();

    const metrics = await t.deps.metrics.registry.metrics();
    expect(metrics).toMatch(/atelier_long_poll_held 55/);
    expect(metrics).toMatch(/atelier_long_poll_refused_total\{reason="key"\} 1/);
    expect(metrics).toMatch(/atelier_long_poll_refused_total\{reason="process"\} 1/);

    await nudge(t, 'environment_generation', envId, orgId);
    const all = await Promise.all([...mine, ...other]);
    expect(all.every((r) => r.statusCode === 200 && r.headers['preference-applied'] === 'wait=30')).toBe(true);
    expect(await held(t)).toBe(0);
  });

  it('a client that disconnects frees its slot at once', async () => {
    const base = await listen(t);
    const ac = new AbortController();
    const req = fetch(`${base}${url()}`, {
      headers: { authorization: `Bearer ${key}`, prefer: 'wait=30' },
      signal: ac.signal,
    }).catch((err: Error) => err);
    await eventually(async () => ((await held(t)) === 1 ? true : undefined), 'the request to be held', 5000, 10);
    ac.abort();
    expect(await req).toBeInstanceOf(Error);
    await eventually(async () => ((await held(t)) === 0 ? true : undefined), 'the slot to be freed', 2000, 10);
  });

  it('closing the app answers every held request at once with the current state', async () => {
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const reqs = Array.from({ length: 3 }, () =>
      fetch(`${base}${url()}`, { headers: { authorization: `Bearer ${key}`, prefer: 'wait=60' } }),
    );
    await eventually(async () => ((await held(t)) === 3 ? true : undefined), 'the requests to be held', 5000, 10);
    const t0 = performance.now();
    await t.app.close();
    const answers = await Promise.all(reqs);
    expect(performance.now() - t0).toBeLessThan(3000);
    for (const r of answers) {
      expect(r.status).toBe(200);
      expect(((await r.json()) as Json).status).toBe('pending');
    }
    expect(await held(t)).toBe(0);
  });
});

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/adapters/fetch/address-policy.ts';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import type { ResourceChange } from '../src/events/changes.ts';
import { deliveryId } from '../src/modules/webhooks/webhooks.events.ts';
import { redisAvailable } from '../src/jobs/jobs.test-harness.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { verifiesWebhook } from './helpers/webhooks.ts';
import { productFixture, settledGeneration } from './helpers/generation.ts';
import { TEST_REDIS_URL } from './helpers/pg.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * Signed webhooks end to end: a real receiver (node:http) on 127.0.0.1 that checks every
 * Standard Webhooks signature with node:crypto on its own, the app's delivery jobs running, and
 * the SSRF-safe fetcher with a policy that lets exactly the receiver's port through.
 */
// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = any;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Json;
  /** Whether the signature verified against the endpoint secret registered for the path. */
  valid: boolean;
  at: number;
}

describe.each(dbKinds())('Signed webhooks (%s)', (kind) => {
  let t: TestApp;
  let receiver: http.Server;
  let base: string;
  let orgA: string;
  let orgB: string;
  let keyA: string;
  const received: Received[] = [];
  /** The secret of each receiver path, for its signature check. */
  const secrets = new Map<string, string>();
  /** Per path: how many 500s to answer before a 200 (Infinity: always 500). */
  const failures = new Map<string, number>();

  const at = (path: string) => received.filter((r) => r.path === path);
  let seq = 0;
  const change = (o: Partial<ResourceChange> = {}): ResourceChange => ({
    kind: 'video_group',
    id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    orgId: orgA,
    brandId: 'b-1',
    status: 'completed',
    terminal: true,
    at: new Date().toISOString(),
    ...o,
  });
  async function endpoint(path: string, o: { org?: string; events?: string[]; url?: string } = {}) {
    const { endpoint: e, secret } = await t.deps.webhooks.addEndpoint({
      orgId: o.org ?? orgA,
      url: o.url ?? `${base}${path}`,
      events: o.events ?? null,
      description: path,
    });
    secrets.set(path, secret);
    return e;
  }
  const settled = (endpointId: string, count = 1) =>
    eventually(
      async () => {
        const list = await t.deps.webhooks.deliveries(endpointId);
        return list.length >= count && list.every((d) => d.status !== 'pending') ? list : undefined;
      },
      `deliveries of ${endpointId} to settle`,
      20_000,
      25,
    );

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const body = Buffer.concat(chunks).toString('utf8');
        const secret = secrets.get(path) ?? '';
        let json: Json;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        received.push({
          path,
          headers: req.headers,
          body,
          json,
          valid: verifiesWebhook(secret, req.headers, body),
          at: Date.now(),
        });
        if (path === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
        const left = failures.get(path) ?? 0;
        if (left > 0) {
          failures.set(path, left - 1);
          return res.writeHead(500).end('not now');
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(kind, {
      fetcher: createFetcher({ policy: (a, p) => (a === '127.0.0.1' && p === port) || isPublicAddress(a) }),
      env: { ATELIER_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms' },
    });
    const a = await t.bootstrap({ orgName: 'Org A' });
    orgA = a.organizationId;
    keyA = a.apiKey;
    orgB = (await t.bootstrap({ orgName: 'Org B' })).organizationId;
    await t.deps.startWorkers();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('an environment generation and a scene forge completing are delivered, signed, once, to their org only', async () => {
    const mine = await endpoint('/a');
    const theirs = await endpoint('/b', { org: orgB });
    const brandId = await createBrand(t, keyA, 'Solidus');
    const [product] = await uploadCompleteAssets(t, keyA, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
    ]);
    const env = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/environment-generations`,
      key: keyA,
      payload: { prompt: 'White marble counter against a warm plaster wall, soft morning light' },
    });
    expect(env.statusCode, env.body).toBe(202);
    const envId = env.json().environmentGenerationId;
    const envDone = await settledGeneration(t, keyA, `/v1/environment-generations/${envId}`);
    expect(envDone.status).toBe('completed');
    const forge = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/scene-forges`,
      key: keyA,
      payload: {
        blendingPrompt: 'The cap on the counter',
        promptIsEnhanced: false,
        productAssetIds: [product],
        environmentAssetId: envDone.generatedAsset.assetId,
      },
    });
    expect(forge.statusCode, forge.body).toBe(202);
    const forgeId = forge.json().sceneForgeId;
    expect((await settledGeneration(t, keyA, `/v1/scene-forges/${forgeId}`)).status).toBe('completed');

    // The modules publish their terminal changes themselves: both arrive without help.
    const completions = () =>
      at('/a').filter((r) => ['environment_generation.completed', 'scene_forge.completed'].includes(r.json?.type));
    await eventually(
      async () => (completions().length >= 2 ? true : undefined),
      'both completions at the receiver',
      20_000,
      25,
    );
    // The same transitions published again (a job run twice) make no second delivery.
    for (const [k, id] of [
      ['environment_generation', envId],
      ['scene_forge', forgeId],
    ] as const) {
      await t.deps.changes.publish(change({ kind: k, id, brandId, status: 'completed' }));
    }
    await new Promise((r) => setTimeout(r, 300));
    const env1 = at('/a').filter((r) => r.json?.type === 'environment_generation.completed');
    const forge1 = at('/a').filter((r) => r.json?.type === 'scene_forge.completed');
    expect(env1).toHaveLength(1);
    expect(forge1).toHaveLength(1);
    for (const r of [...env1, ...forge1]) {
      expect(r.valid).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe('Atelier-Webhooks/1');
      expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Number(r.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    }
    expect(env1[0]!.json).toMatchObject({
      type: 'environment_generation.completed',
      data: { id: envId, kind: 'environment_generation', status: 'completed', brandId, organizationId: orgA },
    });
    expect(Object.keys(env1[0]!.json).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(forge1[0]!.json.data).toMatchObject({ id: forgeId, kind: 'scene_forge', organizationId: orgA });
    // The receiver GETs the resource the event names.
    const got = await t.request({ method: 'GET', url: `/v1/scene-forges/${forge1[0]!.json.data.id}`, key: keyA });
    expect(got.json().status).toBe('completed');
    // The log has them, delivered on the first attempt; the other org's endpoint got nothing.
    const log = await t.deps.webhooks.deliveries(mine.id);
    expect(log.filter((d) => d.eventType === 'scene_forge.completed')).toMatchObject([
      { status: 'delivered', attempts: 1, lastStatusCode: 204, id: forge1[0]!.headers['webhook-id'] },
    ]);
    // The product upload's asset completed too.
    expect(at('/a').some((r) => r.json?.type === 'asset.completed' && r.json.data.id === product)).toBe(true);
    expect(at('/b')).toHaveLength(0);
    expect(await t.deps.webhooks.deliveries(theirs.id)).toHaveLength(0);
  }, 180_000);

  it('retries with backoff after 500s, then delivers, with one webhook-id and a fresh signature each time', async () => {
    const e = await endpoint('/flaky');
    failures.set('/flaky', 2);
    const c = change({ status: 'failed' });
    await t.deps.changes.publish(c);
    const [d] = await settled(e.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 204, lastError: null });
    expect(d!.id).toBe(deliveryId(e.id, 'video_group.failed', c.id));
    const hits = at('/flaky');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([d!.id]));
    expect(hits.every((h) => h.valid && h.body === hits[0]!.body)).toBe(true);
    // 100 ms then 200 ms, each ±20 %.
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(75);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(155);
    // A job run again (a worker died after the POST) sends nothing more.
    await t.deps.webhooks.runAttempt({ deliveryId: d!.id, attempt: 1 });
    await t.deps.webhooks.runAttempt({ deliveryId: d!.id, attempt: 3 });
    expect(at('/flaky')).toHaveLength(3);
  });

  it('gives up after the schedule: failed, with the last status and reason in the log', async () => {
    const e = await endpoint('/down');
    failures.set('/down', Number.POSITIVE_INFINITY);
    await t.deps.changes.publish(change());
    const [d] = await settled(e.id);
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 4,
      lastStatusCode: 500,
      lastError: 'the endpoint answered HTTP 500',
      nextAttemptAt: null,
    });
    expect(at('/down')).toHaveLength(4);
  });

  it('refuses private addresses through the SSRF-safe fetcher: failed with the reason, nothing sent', async () => {
    const targets = [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.1:${Number(new URL(base).port) === 1 ? 2 : 1}/x`,
      'http://localhost/hook',
    ];
    for (const url of targets) {
      const e = await endpoint(`/ssrf-${targets.indexOf(url)}`, { url });
      await t.deps.changes.publish(change());
      const [d] = await settled(e.id);
      expect(d, url).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: null });
      expect(d!.lastError, url).toMatch(/^BLOCKED_ADDRESS: .*only public addresses can be fetched/);
    }
  });

  it('does not follow redirects', async () => {
    const e = await endpoint('/redirect');
    const before = at('/ok').length;
    await t.deps.changes.publish(change());
    const [d] = await settled(e.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 4 });
    expect(d!.lastError).toMatch(/redirect/);
    expect(at('/ok')).toHaveLength(before);
  });

  it('sends nothing to a disabled endpoint, to a filter that does not take the event, or for a non-terminal change', async () => {
    const off = await endpoint('/off');
    await t.deps.webhooks.setEnabled(off.id, false);
    const filtered = await endpoint('/filtered', { events: ['scene_forge.*', 'brand_dna_version.ready'] });
    const all = await endpoint('/all');
    await t.deps.changes.publish(change({ status: 'processing', terminal: false }));
    await t.deps.changes.publish(change({ kind: 'video_group', status: 'completed' }));
    await t.deps.changes.publish(change({ kind: 'brand_dna_version', status: 'ready' }));
    await t.deps.changes.publish(change({ kind: 'asset', status: 'complete' }));
    await t.deps.changes.publish(change({ orgId: orgB, kind: 'scene_forge' }));
    const log = await settled(all.id, 3);
    expect(log.map((d) => d.eventType).sort()).toEqual([
      'asset.completed',
      'brand_dna_version.ready',
      'video_group.completed',
    ]);
    const f = await settled(filtered.id, 1);
    expect(f.map((d) => d.eventType)).toEqual(['brand_dna_version.ready']);
    expect(at('/off')).toHaveLength(0);
    expect(await t.deps.webhooks.deliveries(off.id)).toHaveLength(0);
    // Enabled again, it hears what comes next.
    await t.deps.webhooks.setEnabled(off.id, true);
    await t.deps.changes.publish(change());
    expect((await settled(off.id))[0]).toMatchObject({ status: 'delivered' });
  });

  it('stops a pending delivery once its endpoint is disabled', async () => {
    const e = await endpoint('/stop');
    failures.set('/stop', Number.POSITIVE_INFINITY);
    await t.deps.changes.publish(change());
    await eventually(async () => (at('/stop').length >= 1 ? true : undefined), 'first attempt', 10_000, 10);
    await t.deps.webhooks.setEnabled(e.id, false);
    const [d] = await settled(e.id);
    expect(d!.status).toBe('failed');
    expect(d!.attempts).toBeLessThan(4);
    expect(d!.lastError).toMatch(/disabled/);
  });

  it('sends a webhook.test event now, and lists endpoints with their latest deliveries', async () => {
    const e = await endpoint('/test');
    const { delivery, outcome } = await t.deps.webhooks.sendTest(e.id);
    expect(outcome).toMatchObject({ ok: true, statusCode: 204 });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, eventType: 'webhook.test' });
    const [hit] = at('/test');
    expect(hit).toMatchObject({
      valid: true,
      json: { type: 'webhook.test', data: { id: e.id, organizationId: orgA } },
    });
    const listed = (await t.deps.webhooks.listEndpoints(orgA)).find((x) => x.id === e.id)!;
    expect(listed).toMatchObject({ url: `${base}/test`, enabled: true, events: [] });
    expect(listed).not.toHaveProperty('secret');
    expect(listed.recentDeliveries[0]).toMatchObject({ id: delivery.id, status: 'delivered' });
    await t.deps.webhooks.removeEndpoint(e.id);
    expect((await t.deps.webhooks.listEndpoints(orgA)).some((x) => x.id === e.id)).toBe(false);
    await expect(t.deps.webhooks.sendTest(e.id)).rejects.toThrow(/no webhook endpoint/);
  });
});

const redis = await redisAvailable();

describe.runIf(redis && dbKinds().includes('postgres'))(
  'Signed webhooks in the scaled mode (PostgreSQL, BullMQ)',
  () => {
    let t: TestApp;
    let receiver: http.Server;
    let base: string;
    let orgId: string;
    const hits: { headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
    let failuresLeft = 2;

    beforeAll(async () => {
      receiver = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          hits.push({ headers: req.headers, body, at: Date.now() });
          if (failuresLeft-- > 0) return res.writeHead(503).end();
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      const port = (receiver.address() as AddressInfo).port;
      base = `http://127.0.0.1:${port}`;
      t = await createTestApp('postgres', {
        env: { REDIS_URL: TEST_REDIS_URL, ATELIER_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms' },
        jobTuning: { prefix: `atelier-webhooks-test-${randomBytes(4).toString('hex')}`, stopGraceMs: 1000 },
        fetcher: createFetcher({ policy: (a, p) => (a === '127.0.0.1' && p === port) || isPublicAddress(a) }),
      });
      orgId = (await t.bootstrap()).organizationId;
      await t.deps.startWorkers();
    }, 120_000);

    afterAll(async () => {
      await t?.close();
      receiver?.closeAllConnections();
      await new Promise((r) => receiver?.close(r));
    });

    it('retries through BullMQ delayed jobs, then delivers once, signed', async () => {
      expect(t.deps.jobs.driver).toBe('bullmq');
      const { endpoint, secret } = await t.deps.webhooks.addEndpoint({ orgId, url: `${base}/hook` });
      const c: ResourceChange = {
        kind: 'extraction',
        id: '00000000-0000-4000-8000-00000000beef',
        orgId,
        status: 'completed',
        terminal: true,
        at: new Date().toISOString(),
      };
      await t.deps.changes.publish(c);
      await t.deps.changes.publish(c); // a duplicate: same delivery, same job id
      const [d, ...more] = await eventually(
        async () => {
          const list = await t.deps.webhooks.deliveries(endpoint.id);
          return list.length > 0 && list.every((x) => x.status !== 'pending') ? list : undefined;
        },
        'the delivery to settle',
        20_000,
        25,
      );
      expect(more).toHaveLength(0);
      expect(d).toMatchObject({
        status: 'delivered',
        attempts: 3,
        lastStatusCode: 200,
        eventType: 'extraction.completed',
      });
      expect(hits).toHaveLength(3);
      expect(hits.every((h) => h.headers['webhook-id'] === d!.id && verifiesWebhook(secret, h.headers, h.body))).toBe(
        true,
      );
      expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(75);
    });
  },
);

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { type OpenApiDoc, openApiChecker } from './helpers/openapi.ts';
import { verifiesWebhook } from './helpers/webhooks.ts';

/**
 * Webhook endpoints managed by organization admins over HTTP: CRUD, roles, organizations kept
 * apart, validation, Idempotency-Key, and secret rotation checked by a real receiver on
 * 127.0.0.1 (ATELIER_ALLOW_PRIVATE_FETCH) that verifies each signature on its own, with the app's
 * clock moved past the overlap. Every answer is checked against the route's OpenAPI entry.
 */
// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = any;

const MISSING = `we_${'0'.repeat(32)}`;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe.each(dbKinds())('Webhook endpoints API (%s)', (kind) => {
  let t: TestApp;
  let receiver: http.Server;
  let base: string;
  const received: Received[] = [];
  /** The app's clock runs this far ahead of the wall clock (moved to end an overlap). */
  let offsetMs = 0;
  const appNowSeconds = () => Math.floor((Date.now() + offsetMs) / 1000);
  let orgA: string;
  let owner: string;
  let admin: string;
  let member: string;
  let viewer: string;
  let other: string;

  let conforms: ReturnType<typeof openApiChecker>;
  /** The route of a request path, as OpenAPI names it. */
  const template = (path: string) => `/v1/webhook-endpoints${path.split('?')[0]!.replace(/^\/[^/]+/, '/{endpointId}')}`;
  async function api(key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
    const res = await t.request({
      method,
      url: `/v1/webhook-endpoints${url}`,
      key,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    conforms(method, url.startsWith('/') ? template(url) : '/v1/webhook-endpoints', res);
    return res;
  }
  async function create(key: string, body: Json): Promise<Json> {
    const r = await api(key, 'POST', '', body);
    expect(r.statusCode, r.body).toBe(201);
    return r.json();
  }
  const at = (path: string) => received.filter((r) => r.path === path);

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: (req.url ?? '/').split('?')[0]!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await createTestApp(kind, {
      env: { ATELIER_ALLOW_PRIVATE_FETCH: 'true', ATELIER_WEBHOOK_RETRY_SCHEDULE: '100ms' },
      clock: () => new Date(Date.now() + offsetMs),
    });
    const a = await t.bootstrap({ orgName: 'Org A' });
    orgA = a.organizationId;
    owner = a.apiKey;
    const keyOf = async (role: string) => {
      const user = await t.deps.access.addUser({ organizationId: orgA, name: role, role });
      return (await t.deps.access.createKey({ userId: user.id, name: role })).token;
    };
    admin = await keyOf('admin');
    member = await keyOf('member');
    viewer = await keyOf('viewer');
    other = (await t.bootstrap({ orgName: 'Org B' })).apiKey;
    conforms = openApiChecker((await t.request({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDoc);
    await t.deps.startWorkers();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('creates, reads, lists, updates and deletes; the secret is shown only at creation', async () => {
    const created = await create(owner, {
      url: `${base}/crud`,
      events: [' scene_forge.* ', 'video_group.completed', 'scene_forge.*'],
      description: 'CRUD receiver',
    });
    expect(created).toMatchObject({
      organizationId: orgA,
      url: `${base}/crud`,
      events: ['scene_forge.*', 'video_group.completed'],
      description: 'CRUD receiver',
      enabled: true,
      previousSecretExpiresAt: null,
    });
    expect(created.id).toMatch(/^we_[0-9a-f]{32}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.id;

    const got = await api(owner, 'GET', `/${id}`);
    expect(got.statusCode).toBe(200);
    const { secret, ...withoutSecret } = created;
    expect(got.json()).toEqual(withoutSecret);

    const patched = await api(admin, 'PATCH', `/${id}`, {
      url: `${base}/crud2`,
      events: null,
      description: null,
      enabled: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ url: `${base}/crud2`, events: [], description: null, enabled: false });
    expect(Date.parse(patched.json().updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    const events = await api(admin, 'PATCH', `/${id}`, { events: ['asset.failed'], enabled: true });
    expect(events.json()).toMatchObject({ url: `${base}/crud2`, events: ['asset.failed'], enabled: true });

    const list = await api(owner, 'GET', '?limit=100');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((e: Json) => e.id)).toContain(id);
    for (const answer of [got, patched, events, list]) {
      expect(answer.body).not.toContain(secret);
      expect(answer.body).not.toMatch(/whsec_|"secret"/);
    }

    const removed = await api(owner, 'DELETE', `/${id}`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await api(owner, 'GET', `/${id}`)).statusCode).toBe(404);
    expect((await api(owner, 'DELETE', `/${id}`)).json().error.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
  });

  it('pages the list like the other lists, newest first unless sorted by createdAt', async () => {
    const org = await t.bootstrap({ orgName: 'Paging' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      ids.push((await create(org.apiKey, { url: `${base}/page${n}` })).id);
      // Two made in the same millisecond tie on createdAt and are ordered by id (stable, but not
      // the order they were made in): each its own millisecond.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const first = (await api(org.apiKey, 'GET', '?limit=2')).json();
    expect(first.pagination).toEqual({ total: 3, pages: 2, currentPage: 1, limit: 2 });
    expect(first.data.map((e: Json) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.links.next).toMatch(/\/v1\/webhook-endpoints\?sort=-createdAt&page=2&limit=2$/);
    expect(first.links.prev).toBeUndefined();
    const second = (await api(org.apiKey, 'GET', '?limit=2&page=2')).json();
    expect(second.data.map((e: Json) => e.id)).toEqual([ids[0]]);
    expect(second.links.next).toBeUndefined();
    const oldest = (await api(org.apiKey, 'GET', '?sort=createdAt')).json();
    expect(oldest.data.map((e: Json) => e.id)).toEqual(ids);
    for (const bad of ['?limit=0', '?limit=101', '?page=0', '?sort=url']) {
      expect((await api(org.apiKey, 'GET', bad)).statusCode, bad).toBe(400);
    }
  });

  it('is for admins and owners: a member’s or viewer’s key gets 403 on every route', async () => {
    const { id } = await create(admin, { url: `${base}/roles` });
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?][] = [
      ['GET', ''],
      ['POST', '', { url: `${base}/x` }],
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { enabled: false }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/rotate-secret`, {}],
      ['POST', `/${id}/test`],
      ['GET', `/${id}/deliveries`],
    ];
    for (const key of [member, viewer]) {
      for (const [method, url, body] of routes) {
        const r = await api(key, method, url, body);
        expect(r.statusCode, `${method} ${url}`).toBe(403);
        expect(r.json().error).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'webhooks:manage' } });
      }
    }
    // Nothing changed, nothing was sent.
    expect((await api(admin, 'GET', `/${id}`)).json().enabled).toBe(true);
    expect(at('/roles')).toHaveLength(0);
    expect((await api(admin, 'GET', `/${id}/deliveries`)).json().data).toEqual([]);
  });

  it('keeps organizations apart: another organization’s endpoint is a 404 everywhere', async () => {
    const { id } = await create(owner, { url: `${base}/mine` });
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?][] = [
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { url: `${base}/stolen` }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/rotate-secret`, { overlapSeconds: 0 }],
      ['POST', `/${id}/test`],
      ['GET', `/${id}/deliveries`],
    ];
    for (const [method, url, body] of routes) {
      const r = await api(other, method, url, body);
      expect(r.statusCode, `${method} ${url}`).toBe(404);
      expect(r.json().error.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
      expect(r.json().requestId).toMatch(/^[0-9a-f-]{36}$/);
      // The same as an id that does not exist.
      expect((await api(other, method, url.replace(id, MISSING), body)).statusCode).toBe(404);
    }
    expect((await api(other, 'GET', '?limit=100')).json().data.map((e: Json) => e.id)).not.toContain(id);
    const mine = (await api(owner, 'GET', `/${id}`)).json();
    expect(mine).toMatchObject({ url: `${base}/mine`, enabled: true, previousSecretExpiresAt: null });
    expect(at('/mine')).toHaveLength(0);
    // Not an id at all: 400 naming the parameter.
    for (const bad of ['nope', 'we_XYZ', `${MISSING}0`]) {
      const r = await api(owner, 'GET', `/${bad}`);
      expect(r.statusCode, bad).toBe(400);
      expect(r.json().error.details.fields[0].field).toBe('path.endpointId');
    }
  });

  it('refuses what cannot work with 400 naming every bad member at once', async () => {
    const cases: [string, unknown, string[]][] = [
      ['POST', { url: 'ftp://example.com/hook' }, ['body.url']],
      ['POST', { url: 'https://u:p@example.com/hook' }, ['body.url']],
      ['POST', { url: 'not a url' }, ['body.url']],
      ['POST', { url: `https://example.com/${'a'.repeat(2048)}` }, ['body.url']],
      ['POST', { url: `${base}/x`, events: [] }, ['body.events']],
      ['POST', { url: `${base}/x`, events: ['  '] }, ['body.events']],
      ['POST', { url: `${base}/x`, events: ['scene_forge.*', 'Everything!'] }, ['body.events.1']],
      ['POST', { url: 'file:///etc/passwd', events: ['nope'] }, ['body.url', 'body.events.0']],
      ['POST', { url: `${base}/x`, description: 'a\u0000b' }, ['body.description']],
      ['POST', { url: `${base}/x`, secret: 'whsec_mine' }, ['body.secret']],
      ['POST', {}, ['body.url']],
    ];
    for (const [method, body, fields] of cases) {
      const r = await api(owner, method as 'POST', '', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      const error = r.json().error;
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.details.fields.map((f: Json) => f.field)).toEqual(expect.arrayContaining(fields));
      expect(error.message.startsWith(fields[0]!)).toBe(true);
    }
    const { id } = await create(owner, { url: `${base}/valid` });
    for (const [body, field] of [
      [{}, 'body'],
      [{ url: 'gopher://x' }, 'body.url'],
      [{ events: ['a.b', 'C'] }, 'body.events.1'],
      [{ enabled: 'yes' }, 'body.enabled'],
    ] as const) {
      const r = await api(owner, 'PATCH', `/${id}`, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().error.details.fields[0].field).toBe(field);
    }
    for (const overlapSeconds of [-1, 604_801, 1.5, '60']) {
      const r = await api(owner, 'POST', `/${id}/rotate-secret`, { overlapSeconds });
      expect(r.statusCode, String(overlapSeconds)).toBe(400);
      expect(r.json().error.details.fields[0].field).toBe('body.overlapSeconds');
    }
    // Nothing was stored by the refusals.
    expect((await api(owner, 'GET', `/${id}`)).json().url).toBe(`${base}/valid`);
  });

  it('bounds the endpoints of an organization (409 past 20)', async () => {
    const org = await t.bootstrap({ orgName: 'Many' });
    for (let i = 0; i < 20; i++) await create(org.apiKey, { url: `${base}/many${i}` });
    const r = await api(org.apiKey, 'POST', '', { url: `${base}/one-more` });
    expect(r.statusCode).toBe(409);
    expect(r.json().error).toMatchObject({ code: 'WEBHOOK_ENDPOINT_LIMIT', details: { limit: 20 } });
  });

  it('replays create and rotate for a repeated Idempotency-Key instead of doing them twice', async () => {
    const org = await t.bootstrap({ orgName: 'Idempotent' });
    const post = (url: string, payload: unknown, key: string) =>
      t.request({
        method: 'POST',
        url: `/v1/webhook-endpoints${url}`,
        key: org.apiKey,
        payload: payload as object,
        headers: { 'idempotency-key': key },
      });
    const key = randomUUID();
    const first = await post('', { url: `${base}/idem` }, key);
    const again = await post('', { url: `${base}/idem` }, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    expect((await api(org.apiKey, 'GET', '')).json().pagination.total).toBe(1);
    expect((await post('', { url: `${base}/other` }, key)).statusCode).toBe(422);

    const id = first.json().id;
    const rotateKey = randomUUID();
    const r1 = await post(`/${id}/rotate-secret`, { overlapSeconds: 0 }, rotateKey);
    const r2 = await post(`/${id}/rotate-secret`, { overlapSeconds: 0 }, rotateKey);
    expect(r2.headers['idempotent-replayed']).toBe('true');
    expect(r2.json().secret).toBe(r1.json().secret);
    // Rotated once: the test event is signed with the replayed secret alone.
    const test = await api(org.apiKey, 'POST', `/${id}/test`);
    expect(test.json().status).toBe('delivered');
    const hit = at('/idem').at(-1)!;
    expect(verifiesWebhook(r1.json().secret, hit.headers, hit.body, appNowSeconds())).toBe(true);
    expect(verifiesWebhook(first.json().secret, hit.headers, hit.body, appNowSeconds())).toBe(false);
  });

  it('rotation: both signatures during the overlap, each verifiable on its own; only the new one after', async () => {
    const created = await create(owner, { url: `${base}/rotate`, events: ['video_group.*'] });
    const id = created.id;
    const old = created.secret;
    const signatures = (r: Received) => String(r.headers['webhook-signature']).split(' ');
    const test = async () => {
      const r = await api(owner, 'POST', `/${id}/test`);
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json()).toMatchObject({ endpointId: id, eventType: 'webhook.test', status: 'delivered' });
      expect(r.body).not.toMatch(/whsec_/);
      return at('/rotate').at(-1)!;
    };

    const before = await test();
    expect(signatures(before)).toHaveLength(1);
    expect(verifiesWebhook(old, before.headers, before.body, appNowSeconds())).toBe(true);

    // The default overlap is a day; the body may be left out.
    const daily = await api(owner, 'POST', `/${id}/rotate-secret`);
    expect(daily.statusCode, daily.body).toBe(200);
    const dailySecret = daily.json().secret;
    const dailyUntil = Date.parse(daily.json().previousSecretExpiresAt) - (Date.now() + offsetMs);
    expect(Math.abs(dailyUntil - 86_400_000)).toBeLessThan(60_000);

    // Rotating again during an overlap keeps only the secret it replaces.
    const rotated = await api(owner, 'POST', `/${id}/rotate-secret`, { overlapSeconds: 60 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret: fresh, ...endpoint } = rotated.json();
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect([old, dailySecret]).not.toContain(fresh);
    expect(endpoint).toMatchObject({ id, url: `${base}/rotate`, enabled: true });
    const until = Date.parse(endpoint.previousSecretExpiresAt) - (Date.now() + offsetMs);
    expect(until).toBeGreaterThan(55_000);
    expect(until).toBeLessThanOrEqual(60_000);
    expect((await api(owner, 'GET', `/${id}`)).json().previousSecretExpiresAt).toBe(endpoint.previousSecretExpiresAt);

    const during = await test();
    expect(signatures(during)).toHaveLength(2);
    expect(verifiesWebhook(fresh, during.headers, during.body, appNowSeconds())).toBe(true);
    expect(verifiesWebhook(dailySecret, during.headers, during.body, appNowSeconds())).toBe(true);
    expect(verifiesWebhook(old, during.headers, during.body, appNowSeconds())).toBe(false);

    // A real event through the delivery job is signed the same way.
    const resourceId = randomUUID();
    await t.deps.changes.publish({
      kind: 'video_group',
      id: resourceId,
      orgId: orgA,
      brandId: randomUUID(),
      status: 'completed',
      terminal: true,
      at: new Date(Date.now() + offsetMs).toISOString(),
    });
    const event = await eventually(
      async () => at('/rotate').find((r) => r.body.includes(resourceId)),
      'the event at the receiver',
      20_000,
      25,
    );
    expect(signatures(event)).toHaveLength(2);
    expect(verifiesWebhook(fresh, event.headers, event.body, appNowSeconds())).toBe(true);
    expect(verifiesWebhook(dailySecret, event.headers, event.body, appNowSeconds())).toBe(true);

    // Past the overlap: the new secret alone.
    offsetMs += 61_000;
    const after = await test();
    expect(signatures(after)).toHaveLength(1);
    expect(verifiesWebhook(fresh, after.headers, after.body, appNowSeconds())).toBe(true);
    expect(verifiesWebhook(dailySecret, after.headers, after.body, appNowSeconds())).toBe(false);
    expect((await api(owner, 'GET', `/${id}`)).json().previousSecretExpiresAt).toBeNull();

    // overlapSeconds 0: the old secret stops at once.
    const now = await api(admin, 'POST', `/${id}/rotate-secret`, { overlapSeconds: 0 });
    expect(now.json().previousSecretExpiresAt).toBeNull();
    const immediate = await test();
    expect(signatures(immediate)).toHaveLength(1);
    expect(verifiesWebhook(now.json().secret, immediate.headers, immediate.body, appNowSeconds())).toBe(true);
    expect(verifiesWebhook(fresh, immediate.headers, immediate.body, appNowSeconds())).toBe(false);

    // The delivery log: paged, filterable, and without secrets.
    const log = await api(owner, 'GET', `/${id}/deliveries?limit=2`);
    expect(log.statusCode).toBe(200);
    expect(log.json().pagination).toEqual({ total: 5, pages: 3, currentPage: 1, limit: 2 });
    expect(log.json().data[0]).toMatchObject({ endpointId: id, eventType: 'webhook.test', status: 'delivered' });
    expect(log.json().links.next).toMatch(/\/deliveries\?page=2&limit=2$/);
    const events = (await api(owner, 'GET', `/${id}/deliveries?status=delivered&limit=100`)).json();
    expect(events.data.map((d: Json) => d.eventType)).toContain('video_group.completed');
    expect((await api(owner, 'GET', `/${id}/deliveries?status=failed`)).json().data).toEqual([]);
    expect((await api(owner, 'GET', `/${id}/deliveries?status=lost`)).statusCode).toBe(400);
    expect(log.body).not.toMatch(/whsec_/);
  });

  it('a test the receiver does not take is a failed delivery in a 200 answer, not an error', async () => {
    const { id } = await create(owner, { url: 'http://127.0.0.1:9/refused' });
    const r = await api(owner, 'POST', `/${id}/test`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null });
    expect(r.json().lastError).toMatch(/CONNECTION_FAILED|refused/i);
    expect(r.json().durationMs).toBeGreaterThanOrEqual(0);
  });
});

import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';

/**
 * The console's organization routes over HTTP (console only, hidden from the OpenAPI document):
 * the plan catalog the console names when a feature is missing, and members managed by admins.
 */
const PASSWORD = 'a long enough passphrase';

interface Session {
  cookie: string;
  csrf: string;
}

describe.each(dbKinds())('console organization routes (%s)', (kind) => {
  let t: TestApp;
  let org: { organizationId: string; userId: string; apiKey: string };
  let ip = 0;
  const nextIp = () => `10.1.${Math.floor(++ip / 250)}.${ip % 250}`;

  async function addUser(role: string, email: string, orgId = org.organizationId) {
    const user = await t.deps.access.addUser({ organizationId: orgId, name: email.split('@')[0]!, email, role });
    await t.deps.console.setPassword(user.id, PASSWORD);
    return user;
  }
  async function signIn(email: string): Promise<Session> {
    const res = await t.request({
      method: 'POST',
      url: '/console/api/login',
      payload: { email, password: PASSWORD },
      remoteAddress: nextIp(),
    });
    expect(res.statusCode, res.body).toBe(200);
    return { cookie: String(res.headers['set-cookie']).split(';')[0] as string, csrf: res.json().csrfToken };
  }
  const as = (s: Session, o: InjectOptions): Promise<LightMyRequestResponse> =>
    t.request({ ...o, headers: { ...(o.headers as object), cookie: s.cookie, 'x-csrf-token': s.csrf } });

  let viewer: Session;
  let owner: Session;
  let admin: Session;
  let member: Session;
  let ownerId: string;
  let adminId: string;
  let other: { organizationId: string };

  beforeAll(async () => {
    t = await createTestApp(kind);
    org = await t.bootstrap({ orgName: 'Studio', plan: 'free' });
    other = await t.bootstrap({ orgName: 'Elsewhere' });
    await addUser('viewer', 'vera@example.com');
    ownerId = (await addUser('owner', 'olga@example.com')).id;
    adminId = (await addUser('admin', 'ada@example.com')).id;
    await addUser('member', 'max@example.com');
    viewer = await signIn('vera@example.com');
    owner = await signIn('olga@example.com');
    admin = await signIn('ada@example.com');
    member = await signIn('max@example.com');
  });
  afterAll(async () => t?.close());

  it('lists the plan catalog and the organization’s plan to any signed-in role, never to keys', async () => {
    const res = await as(viewer, { method: 'GET', url: '/v1/organizations/current/plans' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.current).toBe('free');
    expect(body.data.map((p: { slug: string }) => p.slug)).toEqual(['free', 'pro', 'business', 'enterprise']);
    expect(body.data[0]).toEqual({
      slug: 'free',
      name: 'Free',
      features: expect.objectContaining({ brand_dna: false, url_extraction: true }),
      pools: expect.objectContaining({ brand_dna_extractions: 0, image_generations: 40 }),
    });
    expect(body.data[3].pools.image_generations).toBeNull();

    const byKey = await t.request({ method: 'GET', url: '/v1/organizations/current/plans', key: org.apiKey });
    expect(byKey.statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/v1/organizations/current/plans' })).statusCode).toBe(401);
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/v1/organizations/current/plans']).toBeUndefined();
  });

  it('lists members to admins and owners only, with who has joined and who is still invited', async () => {
    const res = await as(admin, { method: 'GET', url: '/v1/members' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { email: string | null; role: string; status: string; isYou: boolean }[];
    const ada = data.find((m) => m.email === 'ada@example.com');
    expect(ada).toMatchObject({ role: 'admin', status: 'active', isYou: true });
    // The bootstrap owner never set a password: still invited.
    expect(data.find((m) => m.email === null)).toMatchObject({ role: 'owner', status: 'invited', isYou: false });
    expect(data).toHaveLength(5);
    for (const s of [member, viewer]) {
      const no = await as(s, { method: 'GET', url: '/v1/members' });
      expect(no.statusCode).toBe(403);
      expect(no.json().error.details.requiredPermission).toBe('members:manage');
    }
    expect((await t.request({ method: 'GET', url: '/v1/members', key: org.apiKey })).statusCode).toBe(403);
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/members'))).toEqual([]);
  });

  it('invites a person with a one-time link that signs them in as a member of this organization', async () => {
    const res = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'Ines', email: 'ines@example.com', role: 'member' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.member).toMatchObject({ name: 'Ines', email: 'ines@example.com', role: 'member', status: 'invited' });
    expect(body.inviteUrl).toMatch(/\/console\/#\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = body.inviteUrl.split('/').pop();
    const accepted = await t.request({
      method: 'POST',
      url: '/console/api/invites/accept',
      payload: { token, password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().user).toMatchObject({ organizationId: org.organizationId, role: 'member' });
    const list = (await as(admin, { method: 'GET', url: '/v1/members' })).json().data;
    expect(list.find((m: { email: string }) => m.email === 'ines@example.com').status).toBe('active');
    // A joined member gets no new invite link (it would reset their password).
    const again = await as(admin, { method: 'POST', url: `/v1/members/${body.member.userId}/invite` });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('ALREADY_JOINED');
  });

  it('refuses a duplicate email, a malformed one, and an owner invited by an admin', async () => {
    const dup = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'Max again', email: 'MAX@example.com', role: 'viewer' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('MEMBER_EXISTS');
    const bad = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'X', email: 'nope', role: 'viewer' },
    });
    expect(bad.statusCode).toBe(400);
    const badRole = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'X', email: 'x@example.com', role: 'emperor' },
    });
    expect(badRole.statusCode).toBe(400);
    const asOwner = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'Oz', email: 'oz@example.com', role: 'owner' },
    });
    expect(asOwner.statusCode).toBe(403);
    const byOwner = await as(owner, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'Oz', email: 'oz@example.com', role: 'owner' },
    });
    expect(byOwner.statusCode, byOwner.body).toBe(201);
    // Someone who signs in elsewhere with that email cannot be invited here under it.
    const taken = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'Olga', email: 'olga@example.com', role: 'viewer' },
    });
    expect(taken.statusCode).toBe(409);
  });

  it('changes roles within the rules: not one’s own, owners only by owners, and the change takes effect at once', async () => {
    const list = (await as(admin, { method: 'GET', url: '/v1/members' })).json().data as {
      userId: string;
      email: string | null;
    }[];
    const maxId = list.find((m) => m.email === 'max@example.com')!.userId;
    const res = await as(admin, { method: 'PATCH', url: `/v1/members/${maxId}`, payload: { role: 'viewer' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ userId: maxId, role: 'viewer' });
    // Max's session now acts as a viewer.
    const write = await as(member, { method: 'POST', url: '/v1/brands', payload: { name: 'x' } });
    expect(write.statusCode).toBe(403);
    await as(admin, { method: 'PATCH', url: `/v1/members/${maxId}`, payload: { role: 'member' } });

    const self = await as(admin, { method: 'PATCH', url: `/v1/members/${adminId}`, payload: { role: 'owner' } });
    expect(self.statusCode).toBe(409);
    expect(self.json().error.code).toBe('OWN_MEMBERSHIP');
    const promote = await as(admin, { method: 'PATCH', url: `/v1/members/${maxId}`, payload: { role: 'owner' } });
    expect(promote.statusCode).toBe(403);
    const demoteOwner = await as(admin, {
      method: 'PATCH',
      url: `/v1/members/${ownerId}`,
      payload: { role: 'viewer' },
    });
    expect(demoteOwner.statusCode).toBe(403);
    const byOwner = await as(owner, { method: 'PATCH', url: `/v1/members/${adminId}`, payload: { role: 'member' } });
    expect(byOwner.statusCode).toBe(200);
    await as(owner, { method: 'PATCH', url: `/v1/members/${adminId}`, payload: { role: 'admin' } });
    const stranger = (await t.deps.access.listUsers(other.organizationId))[0]!.id;
    expect(
      (await as(admin, { method: 'PATCH', url: `/v1/members/${stranger}`, payload: { role: 'viewer' } })).statusCode,
    ).toBe(404);
    expect(
      (await as(member, { method: 'PATCH', url: `/v1/members/${maxId}`, payload: { role: 'admin' } })).statusCode,
    ).toBe(403);
  });

  it('sends a new link to someone still invited, and removes members: their session and keys stop at once', async () => {
    const invited = await as(admin, {
      method: 'POST',
      url: '/v1/members',
      payload: { name: 'Pia', email: 'pia@example.com', role: 'viewer' },
    });
    const pia = invited.json();
    const fresh = await as(admin, { method: 'POST', url: `/v1/members/${pia.member.userId}/invite` });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json().inviteUrl).not.toBe(pia.inviteUrl);
    // The older link no longer works.
    const old = await t.request({
      method: 'POST',
      url: '/console/api/invites/accept',
      payload: { token: pia.inviteUrl.split('/').pop(), password: PASSWORD },
    });
    expect(old.statusCode).toBe(400);

    const victim = await addUser('member', 'vic@example.com');
    const vic = await signIn('vic@example.com');
    const key = (await t.deps.access.createKey({ userId: victim.id, name: 'vic' })).token;
    expect((await t.request({ method: 'GET', url: '/v1/brands', key })).statusCode).toBe(200);
    expect((await as(admin, { method: 'DELETE', url: `/v1/members/${adminId}` })).statusCode).toBe(409);
    expect((await as(admin, { method: 'DELETE', url: `/v1/members/${ownerId}` })).statusCode).toBe(403);
    const removed = await as(admin, { method: 'DELETE', url: `/v1/members/${victim.id}` });
    expect(removed.statusCode).toBe(204);
    expect((await as(vic, { method: 'GET', url: '/console/api/me' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/v1/brands', key })).statusCode).toBe(401);
    expect((await as(admin, { method: 'DELETE', url: `/v1/members/${victim.id}` })).statusCode).toBe(404);
  });
});

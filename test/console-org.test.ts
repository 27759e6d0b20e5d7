import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';

/**
 * The console's organization routes over HTTP (console only, hidden from the OpenAPI document):
 * the plan catalog the console names when a feature is missing.
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

  beforeAll(async () => {
    t = await createTestApp(kind);
    org = await t.bootstrap({ orgName: 'Studio', plan: 'free' });
    await addUser('viewer', 'vera@example.com');
    viewer = await signIn('vera@example.com');
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
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES, POOLS, type Pool } from '../src/modules/usage/plans.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';

const PLANS = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../config/plans.json'), 'utf8'))
  .plans as Record<string, { features: Record<string, boolean>; pools: Record<Pool, number | null> }>;
const URL = '/v1/organizations/current/feature-usage';
const MAY = { start: '2031-05-01T00:00:00.000Z', end: '2031-06-01T00:00:00.000Z' };

describe.each(dbKinds())('feature usage over HTTP (%s)', (kind) => {
  let now = new Date('2031-05-20T10:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { clock: () => now });
  });
  afterAll(async () => t?.close());

  async function get(key: string | undefined) {
    const res = await t.request({ method: 'GET', url: URL, ...(key ? { key } : {}) });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  }
  async function data(key: string) {
    const res = await get(key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('success');
    return res.body.data;
  }

  it('answers every plan with its caps, features, billing period and nothing else', async () => {
    for (const [slug, plan] of Object.entries(PLANS)) {
      const { apiKey } = await t.bootstrap({ plan: slug });
      const res = await get(apiKey);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const pools = Object.fromEntries(
        POOLS.map((p) => {
          const cap = plan.pools[p];
          return [
            p,
            cap === null
              ? { usage: 0, cap: -1, remaining: -1, unlimited: true, source: 'plan' }
              : { usage: 0, cap, remaining: cap, unlimited: false, source: 'plan' },
          ];
        }),
      );
      // Exact equality: the envelope and every member, no extra fields.
      expect(res.body, slug).toEqual({
        status: 'success',
        data: {
          pools,
          threshold_alert: { pool: 'image_generations', threshold: 'none' },
          billing_period: MAY,
          plan_slug: slug,
          gated_features: plan.features,
        },
      });
      expect(Object.keys(res.body.data.gated_features).sort()).toEqual([...FEATURES].sort());
      expect(res.body.data.gated_features).toHaveProperty('critique');
    }
  });

  it('is readable by every role', async () => {
    const { organizationId } = await t.bootstrap({ plan: 'pro' });
    for (const role of ['viewer', 'member', 'admin', 'owner']) {
      const user = await t.deps.access.addUser({ organizationId, name: role, role });
      const { token } = await t.deps.access.createKey({ userId: user.id, name: role });
      expect((await data(token)).plan_slug, role).toBe('pro');
    }
  });

  it('is 401 with the error body without a valid key', async () => {
    for (const key of [undefined, 'atl_dev_AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 'nonsense']) {
      const res = await get(key);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        requestId: res.headers['x-request-id'],
        error: { code: 'UNAUTHORIZED', message: expect.any(String) },
      });
    }
  });

  it('shows overrides as the source of a cap, including an unlimited one, and gated features they change', async () => {
    const { organizationId, apiKey } = await t.bootstrap({ plan: 'free' });
    await t.deps.access.setOverrides(organizationId, {
      pools: { image_generations: 7, video_seconds: null },
      features: { critique: true },
    });
    const d = await data(apiKey);
    expect(d.pools.image_generations).toEqual({ usage: 0, cap: 7, remaining: 7, unlimited: false, source: 'override' });
    expect(d.pools.video_seconds).toEqual({ usage: 0, cap: -1, remaining: -1, unlimited: true, source: 'override' });
    expect(d.pools.environment_generations).toEqual({
      usage: 0,
      cap: 20,
      remaining: 20,
      unlimited: false,
      source: 'plan',
    });
    expect(d.gated_features.critique).toBe(true);
    expect(d.gated_features.brand_dna).toBe(false);
    expect(d.plan_slug).toBe('free');
    // Overrides removed and plan changed: the next read shows the new plan only.
    await t.deps.access.setOverrides(organizationId, {});
    await t.deps.access.setPlan(organizationId, 'business');
    const after = await data(apiKey);
    expect(after.plan_slug).toBe('business');
    expect(after.pools.image_generations).toMatchObject({ cap: 5000, source: 'plan' });
    expect(after.gated_features.critique).toBe(true);
  });

  it('counts reserved and committed units, not released ones, and only for the caller organization', async () => {
    const a = await t.bootstrap({ plan: 'pro' });
    const b = await t.bootstrap({ plan: 'pro' });
    const r1 = await t.deps.usage.reserve(a.organizationId, 'video_seconds', 30);
    const r2 = await t.deps.usage.reserve(a.organizationId, 'video_seconds', 20);
    await t.deps.usage.reserve(a.organizationId, 'prompt_enhancements', 3);
    expect((await data(a.apiKey)).pools.video_seconds).toEqual({
      usage: 50,
      cap: 600,
      remaining: 550,
      unlimited: false,
      source: 'plan',
    });
    await t.deps.usage.commit(r1);
    await t.deps.usage.release(r2);
    await t.deps.usage.release(r2);
    const d = await data(a.apiKey);
    expect(d.pools.video_seconds.usage).toBe(30);
    expect(d.pools.prompt_enhancements.usage).toBe(3);
    const other = await data(b.apiKey);
    for (const p of POOLS) expect(other.pools[p].usage, p).toBe(0);
  });

  it('raises the threshold alert at 50 %, 80 % and 100 % of the fullest capped pool', async () => {
    const { organizationId: org, apiKey } = await t.bootstrap({ plan: 'free' }); // images 40, environments 20
    const alert = async () => (await data(apiKey)).threshold_alert;
    await t.deps.usage.reserve(org, 'image_generations', 19);
    expect(await alert()).toEqual({ pool: 'image_generations', threshold: 'none' });
    await t.deps.usage.reserve(org, 'image_generations', 1);
    expect(await alert()).toEqual({ pool: 'image_generations', threshold: '50%' });
    await t.deps.usage.reserve(org, 'environment_generations', 12); // 60 % beats 50 %
    expect(await alert()).toEqual({ pool: 'environment_generations', threshold: '50%' });
    await t.deps.usage.reserve(org, 'image_generations', 12); // 80 %
    expect(await alert()).toEqual({ pool: 'image_generations', threshold: '80%' });
    await t.deps.usage.reserve(org, 'image_generations', 8); // 100 %
    const d = await data(apiKey);
    expect(d.threshold_alert).toEqual({ pool: 'image_generations', threshold: '100%' });
    expect(d.pools.image_generations).toMatchObject({ usage: 40, cap: 40, remaining: 0 });
    // A lowered cap below what was used: remaining stays 0, the alert stays at 100 %.
    await t.deps.access.setOverrides(org, { pools: { environment_generations: 5 } });
    const lowered = await data(apiKey);
    expect(lowered.pools.environment_generations).toMatchObject({
      usage: 12,
      cap: 5,
      remaining: 0,
      source: 'override',
    });
    expect(lowered.threshold_alert).toEqual({ pool: 'environment_generations', threshold: '100%' });
  });

  it('counts unlimited pools without ever alerting on them', async () => {
    const { organizationId, apiKey } = await t.bootstrap({ plan: 'enterprise' });
    await t.deps.usage.reserve(organizationId, 'image_generations', 1_000_000);
    const d = await data(apiKey);
    expect(d.pools.image_generations).toEqual({
      usage: 1_000_000,
      cap: -1,
      remaining: -1,
      unlimited: true,
      source: 'plan',
    });
    expect(d.threshold_alert).toEqual({ pool: 'image_generations', threshold: 'none' });
  });

  it('starts a new billing period with the calendar month (UTC)', async () => {
    const { organizationId, apiKey } = await t.bootstrap({ plan: 'free' });
    now = new Date('2031-05-31T23:59:59.999Z');
    await t.deps.usage.reserve(organizationId, 'image_generations', 40);
    expect((await data(apiKey)).threshold_alert.threshold).toBe('100%');
    now = new Date('2031-06-01T00:00:00.000Z');
    const june = await data(apiKey);
    expect(june.billing_period).toEqual({ start: '2031-06-01T00:00:00.000Z', end: '2031-07-01T00:00:00.000Z' });
    expect(june.pools.image_generations).toMatchObject({ usage: 0, remaining: 40 });
    expect(june.threshold_alert).toEqual({ pool: 'image_generations', threshold: 'none' });
    now = new Date('2031-05-20T10:00:00.000Z');
  });

  it('publishes the route and its 200 schema in the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    const op = doc.paths['/v1/organizations/current/feature-usage'].get;
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '429', '500']);
    const schema = op.responses['200'].content['application/json'].schema;
    expect(schema.properties.data.required).toEqual(
      expect.arrayContaining(['pools', 'threshold_alert', 'billing_period', 'plan_slug', 'gated_features']),
    );
  });
});

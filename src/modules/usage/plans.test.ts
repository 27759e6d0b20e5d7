import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.ts';
import { createPlanCatalog, FEATURES, loadPlanCatalog, parseOverrides, POOLS, requireFeature } from './plans.ts';

const SHIPPED = path.resolve(import.meta.dirname, '../../../config/plans.json');
const shipped = () => JSON.parse(fs.readFileSync(SHIPPED, 'utf8'));
type Raw = ReturnType<typeof shipped>;

/** The error message createPlanCatalog gives for the shipped file after `edit`. */
function problem(edit: (raw: Raw) => void): string {
  const raw = shipped();
  edit(raw);
  try {
    createPlanCatalog(raw, 'plans.json');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the catalog to be rejected');
}

describe('the shipped plans file', () => {
  const catalog = loadPlanCatalog(SHIPPED);
  it('defines free, pro, business and enterprise with every pool and feature', () => {
    expect(catalog.slugs()).toEqual(['free', 'pro', 'business', 'enterprise']);
    for (const slug of catalog.slugs()) {
      const plan = catalog.get(slug)!;
      expect(Object.keys(plan.pools).sort()).toEqual([...POOLS].sort());
      expect(Object.keys(plan.features).sort()).toEqual([...FEATURES].sort());
    }
  });
  it('gates Brand DNA to paid plans, critique to business and up, and lifts every cap on enterprise', () => {
    expect(catalog.get('free')!.features.brand_dna).toBe(false);
    expect(catalog.get('pro')!.features.brand_dna).toBe(true);
    expect(catalog.get('pro')!.features.critique).toBe(false);
    expect(catalog.get('business')!.features.critique).toBe(true);
    expect(Object.values(catalog.get('enterprise')!.pools).every((c) => c === null)).toBe(true);
  });
  it('grows caps from free to business (a plan upgrade never takes capacity away)', () => {
    const order = ['free', 'pro', 'business', 'enterprise'];
    for (const pool of POOLS) {
      const caps = order.map((s) => catalog.get(s)!.pools[pool] ?? Number.POSITIVE_INFINITY);
      expect(caps, pool).toEqual([...caps].sort((a, b) => a - b));
    }
  });
});

describe('an invalid plans file', () => {
  it('is rejected with a message naming the field and the problem', () => {
    expect(problem((r) => delete r.plans.free.pools.video_seconds)).toBe(
      'plans.json: plans.free.pools must have required properties video_seconds',
    );
    expect(problem((r) => (r.plans.pro.pools.image_generations = -1))).toBe(
      'plans.json: plans.pro.pools.image_generations must be >= 0 or null',
    );
    expect(problem((r) => (r.plans.pro.pools.image_generations = '500'))).toBe(
      'plans.json: plans.pro.pools.image_generations must be integer or null',
    );
    expect(problem((r) => (r.plans.pro.pools.image_generations = 2.5))).toContain(
      'plans.pro.pools.image_generations must be integer or null',
    );
    expect(problem((r) => (r.plans.free.features.critque = true))).toBe(
      'plans.json: plans.free.features has unknown member critque',
    );
    expect(problem((r) => (r.plans.free.pools.images = 4))).toBe(
      'plans.json: plans.free.pools has unknown member images',
    );
    expect(problem((r) => (r.plans.free.features.brand_dna = 'yes'))).toBe(
      'plans.json: plans.free.features.brand_dna must be boolean',
    );
    expect(problem((r) => (r.plans.business.videoModel8.maxReferenceImages = 31))).toBe(
      'plans.json: plans.business.videoModel8.maxReferenceImages must be <= 30',
    );
    expect(problem((r) => (r.plans.free.extraction.maxConcurrentRuns = 0))).toBe(
      'plans.json: plans.free.extraction.maxConcurrentRuns must be >= 1',
    );
    expect(problem((r) => delete r.plans)).toBe('plans.json: (top level) must have required properties plans');
    expect(problem((r) => (r.plan = {}))).toBe('plans.json: (top level) has unknown member plan');
    expect(problem((r) => (r.plans = []))).toBe('plans.json: plans must be object');
    expect(problem((r) => (r.plans = {}))).toBe('plans.json: no plans defined');
    expect(problem((r) => (r.plans['Pro Plus'] = r.plans.pro))).toMatch(/^plans.json: plan slug "Pro Plus" is invalid/);
  });

  it('lists several problems at once, and says when there are more', () => {
    const two = problem((r) => {
      r.plans.free.name = '';
      r.plans.pro.features.brand_dna = 1;
    });
    expect(two).toBe(
      'plans.json: plans.free.name must not have fewer than 1 characters; plans.pro.features.brand_dna must be boolean',
    );
    const many = problem((r) => {
      for (const slug of Object.keys(r.plans)) {
        r.plans[slug].name = '';
        r.plans[slug].features.critique = 'no';
      }
    });
    expect(many.split('; ')).toHaveLength(6);
    expect(many).toMatch(/; and more$/);
  });

  it('never throws anything but a described Error, whatever the input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          createPlanCatalog(value, 'x');
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect((err as Error).message).toMatch(/^x: \S/);
        }
      }),
    );
  });

  describe('as a file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-plans-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    it('names the setting and the file when it is missing, not JSON or invalid', () => {
      const missing = path.join(dir, 'missing.json');
      expect(() => loadPlanCatalog(missing)).toThrow(`ATELIER_PLANS_FILE: cannot read ${missing}`);
      const bad = path.join(dir, 'bad.json');
      fs.writeFileSync(bad, '{ "plans": ');
      expect(() => loadPlanCatalog(bad)).toThrow(`ATELIER_PLANS_FILE: ${bad} is not valid JSON`);
      const wrong = path.join(dir, 'wrong.json');
      fs.writeFileSync(wrong, JSON.stringify({ plans: { free: { name: 'Free' } } }));
      expect(() => loadPlanCatalog(wrong)).toThrow(
        `ATELIER_PLANS_FILE (${wrong}): plans.free must have required properties features, pools, videoModel8, extraction`,
      );
    });
  });
});

describe('entitlements', () => {
  const catalog = loadPlanCatalog(SHIPPED);
  it('take the plan, with each override replacing its own value and marking the pool as overridden', () => {
    const e = catalog.entitlementsFor({
      planSlug: 'free',
      overrides: {
        features: { brand_dna: true },
        pools: { image_generations: 100, video_seconds: null },
        videoModel8: { maxReferenceImages: 2 },
        extraction: { maxConcurrentRuns: 9 },
      },
    });
    expect(e.planSlug).toBe('free');
    expect(e.features).toMatchObject({ brand_dna: true, critique: false, url_extraction: true });
    expect(e.pools.image_generations).toEqual({ cap: 100, source: 'override' });
    expect(e.pools.video_seconds).toEqual({ cap: null, source: 'override' });
    expect(e.pools.environment_generations).toEqual({ cap: 20, source: 'plan' });
    expect(e.videoModel8).toEqual({ maxReferenceImages: 2, maxReferenceVideos: 0, maxDurationSeconds: 0 });
    expect(e.extraction).toEqual({ maxConcurrentRuns: 9 });
  });
  it('reject an unknown plan', () => {
    expect(() => catalog.entitlementsFor({ planSlug: 'gold', overrides: {} })).toThrow('unknown plan gold');
  });
});

describe('parseOverrides', () => {
  it('accepts partial overrides and rejects unknown members and bad values by name', () => {
    expect(parseOverrides({ pools: { image_generations: null } })).toEqual({ pools: { image_generations: null } });
    expect(parseOverrides({})).toEqual({});
    expect(() => parseOverrides({ pools: { images: 3 } })).toThrow(
      'invalid overrides: pools has unknown member images',
    );
    expect(() => parseOverrides({ pools: { video_seconds: -1 } })).toThrow(
      'invalid overrides: pools.video_seconds must be >= 0 or null',
    );
    expect(() => parseOverrides({ features: { critique: 'on' } })).toThrow(
      'invalid overrides: features.critique must be boolean',
    );
    expect(() => parseOverrides([])).toThrow(/^invalid overrides: \(top level\)/);
  });
});

describe('requireFeature', () => {
  const catalog = loadPlanCatalog(SHIPPED);
  it('passes when the plan has the feature and is a 403 FORBIDDEN naming it otherwise', () => {
    expect(() =>
      requireFeature(catalog.entitlementsFor({ planSlug: 'pro', overrides: {} }), 'brand_dna'),
    ).not.toThrow();
    let err: unknown;
    try {
      requireFeature(catalog.entitlementsFor({ planSlug: 'pro', overrides: {} }), 'critique');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
      message: 'Your plan (pro) does not include critique',
      details: { feature: 'critique', plan: 'pro' },
    });
    const lifted = catalog.entitlementsFor({ planSlug: 'free', overrides: { features: { brand_dna: true } } });
    expect(() => requireFeature(lifted, 'brand_dna')).not.toThrow();
  });
});

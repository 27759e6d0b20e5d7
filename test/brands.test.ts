import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrandsRepo } from '../src/modules/brands/brands.repo.ts';
import { TONES } from '../src/engines/text/text-engine.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';

const PUBLIC_URL = 'https://atelier.example/base';
const BRANDS_URL = `${PUBLIC_URL}/v1/brands`;
const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';

type Body = Record<string, unknown>;

const validBody = (over: Body = {}): Body => ({
  name: 'Acme',
  industry: 'Retail',
  description: 'We sell everything.',
  mission: 'Make shopping calm.',
  values: ['honesty', 'care'],
  tone: ['Friendly', 'Playful'],
  voice: ['warm'],
  ...over,
});

/** Code points, the unit the spec's "chars" limits count. */
const cp = (s: string) => [...s].length;
const rep = (unit: string, n: number) => unit.repeat(n);

const WRITABLE = ['name', 'industry', 'description', 'mission', 'values', 'tone', 'voice'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The writable fields that break a rule of the spec, checked independently of the server's schema. */
function fieldProblems(b: Record<string, unknown>): string[] {
  const out: string[] = [];
  const okText = (v: unknown): v is string =>
    typeof v === 'string' && !v.includes('\u0000') && !/[\uD800-\uDFFF]/u.test(v);
  const str = (f: string, min: number, max: number, notBlank: boolean) => {
    const v = b[f];
    if (!okText(v) || cp(v) < min || cp(v) > max || (notBlank && v.trim() === '')) out.push(f);
  };
  const list = (f: string, maxItems: number, itemMax: number) => {
    const v = b[f];
    if (!Array.isArray(v) || v.length > maxItems || !v.every((i) => okText(i) && cp(i) <= itemMax)) out.push(f);
  };
  str('name', 1, 100, true);
  str('industry', 1, 50, true);
  str('description', 10, 280, true);
  str('mission', 0, 1000, false);
  list('values', 10, 50);
  list('voice', 5, 50);
  const tone = b.tone;
  if (
    !Array.isArray(tone) ||
    tone.length > 5 ||
    new Set(tone).size !== tone.length ||
    !tone.every((t) => (TONES as readonly unknown[]).includes(t))
  ) {
    out.push('tone');
  }
  return out;
}

/** Why POST /brands must refuse `body` with 400 (empty when it is a valid create request). */
function createProblems(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['body'];
  const b = body as Record<string, unknown>;
  const out = Object.keys(b).filter((k) => k !== 'logoAssetId' && !(WRITABLE as readonly string[]).includes(k));
  out.push(...fieldProblems(b));
  const logo = b.logoAssetId;
  if (logo !== undefined && logo !== null && !(typeof logo === 'string' && UUID.test(logo))) out.push('logoAssetId');
  return out;
}

describe.each(dbKinds())('brands over HTTP (%s)', (kind) => {
  let t: TestApp;
  let now = new Date('2030-01-01T00:00:00.000Z');
  const tick = (ms = 1000) => {
    now = new Date(now.getTime() + ms);
  };
  /** Owner of the first organization, which is also the instance's platform admin. */
  let admin: { organizationId: string; userId: string; apiKey: string };
  /** Owner of another organization (not a platform admin). */
  let other: { organizationId: string; apiKey: string };
  let viewerKey: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { clock: () => new Date(now), env: { ATELIER_PUBLIC_URL: PUBLIC_URL } });
    admin = await t.bootstrap({ orgName: 'Admin Org' });
    await t.deps.access.setOperator(admin.userId, true);
    other = await t.bootstrap({ orgName: 'Other Org' });
    const viewer = await t.deps.access.addUser({ organizationId: admin.organizationId, name: 'Vi', role: 'viewer' });
    viewerKey = (await t.deps.access.createKey({ userId: viewer.id, name: 'viewer key' })).token;
  });
  afterAll(async () => t?.close());

  const post = (key: string | undefined, payload: unknown) =>
    t.request({ method: 'POST', url: '/v1/brands', key, payload: payload as Body });
  const get = (key: string, id: string, headers: Record<string, string> = {}) =>
    t.request({ method: 'GET', url: `/v1/brands/${id}`, key, headers });
  const put = (key: string, id: string, payload: unknown, ifMatch?: string) =>
    t.request({
      method: 'PUT',
      url: `/v1/brands/${id}`,
      key,
      payload: payload as Body,
      headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
    });
  const list = (key: string, query = '') => t.request({ method: 'GET', url: `/v1/brands${query}`, key });
  async function create(key: string, over: Body = {}) {
    const res = await post(key, validBody(over));
    expect(res.statusCode, res.body).toBe(201);
    return { brand: res.json(), etag: String(res.headers.etag) };
  }
  /** A fresh organization (not platform admin) for tests that count what they list. */
  const freshOrg = (orgName: string) => t.bootstrap({ orgName });
  /** An asset row as the assets module stores it, to point a logo at. */
  async function insertAsset(orgId: string, type: string) {
    const id = randomUUID();
    const at = now.toISOString();
    await t.deps.db.kysely
      .insertInto('assets')
      .values({
        id,
        organization_id: orgId,
        brand_id: randomUUID(),
        category_id: null,
        type,
        status: 'complete',
        origin: 'upload',
        file_name: 'logo.png',
        file_type: 'image/png',
        file_size: 10,
        detected_format: 'PNG',
        storage_key: `k/${id}`,
        thumbnail_key: null,
        width: 1,
        height: 1,
        duration: null,
        description: null,
        extra: '{}',
        tags: '[]',
        auto_tags: '[]',
        used_in_campaigns: '[]',
        quality_tags: '[]',
        quality_status: 'complete',
        error_code: null,
        error_message: null,
        version: 1,
        created_at: at,
        updated_at: at,
      })
      .execute();
    return id;
  }

  describe('POST /brands', () => {
    it('creates a brand: 201, the Brand, Location and ETag', async () => {
      const res = await post(admin.apiKey, validBody({ logoAssetId: null }));
      expect(res.statusCode).toBe(201);
      const b = res.json();
      expect(b).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Acme',
        industry: 'Retail',
        description: 'We sell everything.',
        mission: 'Make shopping calm.',
        values: ['honesty', 'care'],
        tone: ['Friendly', 'Playful'],
        voice: ['warm'],
        organizationId: admin.organizationId,
        organizationName: 'Admin Org',
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        brandDnaStatus: 'none',
      });
      expect(b).not.toHaveProperty('logoAsset');
      expect(res.headers.location).toBe(`${BRANDS_URL}/${b.id}`);
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await get(admin.apiKey, b.id);
      expect(again.json()).toEqual(b);
      expect(again.headers.etag).toBe(res.headers.etag);
    });

    it('accepts empty mission and empty lists', async () => {
      const { brand } = await create(admin.apiKey, { mission: '', values: [], tone: [], voice: [] });
      expect(brand).toMatchObject({ mission: '', values: [], tone: [], voice: [] });
    });

    const A = 'a';
    const E = '😀'; // one code point, two UTF-16 units
    const just: [string, string, unknown, number][] = [
      ['name min', 'name', 'x', 201],
      ['name empty', 'name', '', 400],
      ['name 100', 'name', rep(A, 100), 201],
      ['name 101', 'name', rep(A, 101), 400],
      ['name 100 emoji', 'name', rep(E, 100), 201],
      ['name 101 emoji', 'name', rep(E, 101), 400],
      ['name 100 accented', 'name', rep('é', 100), 201],
      ['industry 50', 'industry', rep(E, 50), 201],
      ['industry 51', 'industry', rep(A, 51), 400],
      ['industry empty', 'industry', '', 400],
      ['description 10', 'description', rep(E, 10), 201],
      ['description 9', 'description', rep(A, 9), 400],
      ['description 9 emoji (18 UTF-16 units)', 'description', rep(E, 9), 400],
      ['description 280', 'description', rep('ü', 280), 201],
      ['description 281', 'description', rep(A, 281), 400],
      ['mission 1000', 'mission', rep(E, 1000), 201],
      ['mission 1001', 'mission', rep(A, 1001), 400],
      ['values 10 items', 'values', Array.from({ length: 10 }, (_, i) => `v${i}`), 201],
      ['values 11 items', 'values', Array.from({ length: 11 }, (_, i) => `v${i}`), 400],
      ['values item 50', 'values', [rep(E, 50)], 201],
      ['values item 51', 'values', [rep(A, 51)], 400],
      ['values item not a string', 'values', [1], 400],
      ['tone 5 items', 'tone', ['Professional', 'Casual', 'Friendly', 'Authoritative', 'Playful'], 201],
      ['tone all 8 values one by one', 'tone', ['Innovative', 'Traditional', 'Luxurious'], 201],
      ['tone 6 items', 'tone', ['Professional', 'Casual', 'Friendly', 'Authoritative', 'Playful', 'Innovative'], 400],
      ['tone unknown value', 'tone', ['Grumpy'], 400],
      ['tone wrong case', 'tone', ['friendly'], 400],
      ['tone duplicate', 'tone', ['Casual', 'Casual'], 400],
      ['voice 5 items', 'voice', ['a', 'b', 'c', 'd', 'e'], 201],
      ['voice 6 items', 'voice', ['a', 'b', 'c', 'd', 'e', 'f'], 400],
      ['voice item 50', 'voice', [rep(A, 50)], 201],
      ['voice item 51', 'voice', [rep(E, 51)], 400],
      ['name not a string', 'name', 5, 400],
      ['values not an array', 'values', 'x', 400],
      ['logoAssetId not a uuid', 'logoAssetId', 'logo-1', 400],
      ['logoAssetId a number', 'logoAssetId', 1, 400],
    ];
    it.each(just)('%s', async (_label, field, value, status) => {
      const res = await post(admin.apiKey, validBody({ [field]: value }));
      expect(res.statusCode, res.body).toBe(status);
      if (status === 201) {
        expect(res.json()[field]).toEqual(value);
      } else {
        expect(res.json().error.code).toBe('INVALID_REQUEST');
        expect(res.json().error.details.fields[0].field).toMatch(new RegExp(`^body\\.${field}`));
      }
    });

    it.each(['name', 'industry', 'description', 'mission', 'values', 'tone', 'voice'])('requires %s', async (field) => {
      const body = validBody();
      delete body[field];
      const res = await post(admin.apiKey, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details.fields[0]).toEqual({ field: `body.${field}`, message: 'is required' });
    });

    it.each([
      ['name', ' '],
      ['name', '\t\n\u00a0\u3000'],
      ['industry', '   '],
      ['description', rep(' ', 12)],
    ])('refuses a blank-only %s (%j)', async (field, value) => {
      const res = await post(admin.apiKey, validBody({ [field]: value }));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'INVALID_REQUEST',
        message: `body.${field} must not be blank`,
        details: { fields: [{ field: `body.${field}`, message: 'must not be blank' }] },
      });
    });

    it.each([
      ['name', 'Ac\u0000me', 'body.name'],
      ['mission', '\u0000', 'body.mission'],
      ['values', ['ok', 'x\u0000'], 'body.values.1'],
      ['voice', ['\uD83D'], 'body.voice.0'],
      ['description', 'Lone \uDC00 surrogate text', 'body.description'],
    ])('refuses text a database cannot hold in %s', async (field, value, path) => {
      const res = await post(admin.apiKey, validBody({ [field]: value }));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details.fields[0].field).toBe(path);
    });

    it('refuses unknown members, non-object bodies and non-JSON', async () => {
      const unknown = await post(admin.apiKey, validBody({ advertiserId: 'x' }));
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error.details.fields[0]).toEqual({
        field: 'body.advertiserId',
        message: 'is not a known field',
      });
      for (const payload of [[], 'x', 3, null]) {
        const res = await t.request({
          method: 'POST',
          url: '/v1/brands',
          key: admin.apiKey,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(payload),
        });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      }
      const broken = await t.request({
        method: 'POST',
        url: '/v1/brands',
        key: admin.apiKey,
        headers: { 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expect(broken.statusCode).toBe(400);
    });

    it('answers 422 for a logoAssetId that names no asset of the organization', async () => {
      const res = await post(admin.apiKey, validBody({ logoAssetId: MISSING }));
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { fields: [{ field: 'body.logoAssetId' }] },
      });
      // Another organization's logo is just as unknown.
      const foreign = await insertAsset(other.organizationId, 'logo');
      const res2 = await post(admin.apiKey, validBody({ logoAssetId: foreign }));
      expect(res2.statusCode).toBe(422);
    });

    it('takes a logo or image asset as the logo, and refuses other asset types with 422', async () => {
      const logo = await insertAsset(admin.organizationId, 'logo');
      const { brand } = await create(admin.apiKey, { logoAssetId: logo.toUpperCase() });
      expect(brand.logoAsset).toEqual({ assetId: logo, assetType: 'logo' });
      const image = await insertAsset(admin.organizationId, 'image');
      expect((await create(admin.apiKey, { logoAssetId: image })).brand.logoAsset).toEqual({
        assetId: image,
        assetType: 'image',
      });
      const video = await insertAsset(admin.organizationId, 'video');
      const res = await post(admin.apiKey, validBody({ logoAssetId: video }));
      expect(res.statusCode).toBe(422);
      expect(res.json().error.details.fields[0].field).toBe('body.logoAssetId');
    });

    it('needs a key (401) and brands:write (viewer gets 403)', async () => {
      expect((await post(undefined, validBody())).statusCode).toBe(401);
      expect((await post('atl_dev_nope.nope', validBody())).statusCode).toBe(401);
      const res = await post(viewerKey, validBody());
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    });
  });

  describe('GET /brands/{brandId}', () => {
    it('returns the brand with ETag and Cache-Control; a viewer may read', async () => {
      const { brand, etag } = await create(admin.apiKey);
      for (const key of [admin.apiKey, viewerKey]) {
        const res = await get(key, brand.id);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual(brand);
        expect(res.headers.etag).toBe(etag);
        expect(res.headers['cache-control']).toBe('private, no-cache');
      }
    });

    it('answers If-None-Match with 304 when current and 200 when not', async () => {
      const { brand, etag } = await create(admin.apiKey);
      for (const inm of [etag, `W/${etag}`, '*', `"stale", ${etag}`]) {
        const res = await get(admin.apiKey, brand.id, { 'if-none-match': inm });
        expect(res.statusCode, inm).toBe(304);
        expect(res.body).toBe('');
        expect(res.headers.etag).toBe(etag);
        expect(res.headers['cache-control']).toBe('private, no-cache');
      }
      const miss = await get(admin.apiKey, brand.id, { 'if-none-match': '"stale"' });
      expect(miss.statusCode).toBe(200);
      expect(miss.json().id).toBe(brand.id);
    });

    it('is 404 BRAND_NOT_FOUND for an unknown id or another organization’s brand, 400 for a malformed id', async () => {
      const { brand } = await create(other.apiKey);
      for (const id of [MISSING, brand.id]) {
        const res = await get(admin.apiKey, id); // a platform admin too: all_organizations is for lists only
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('BRAND_NOT_FOUND');
      }
      const bad = await get(admin.apiKey, 'not-a-uuid');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.details.fields[0].field).toBe('path.brandId');
      expect((await t.request({ method: 'GET', url: `/v1/brands/${brand.id}` })).statusCode).toBe(401);
    });

    it('changes the ETag when a visible field changes outside the brand row', async () => {
      const org = await freshOrg('Before Rename');
      const { brand, etag } = await create(org.apiKey);
      await t.deps.db.kysely
        .updateTable('organizations')
        .set({ name: 'After Rename' })
        .where('id', '=', org.organizationId)
        .execute();
      const renamed = await get(org.apiKey, brand.id, { 'if-none-match': etag });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json().organizationName).toBe('After Rename');
      expect(renamed.headers.etag).not.toBe(etag);
      await t.deps.db.kysely
        .updateTable('brands')
        .set({ brand_dna_status: 'pending' })
        .where('id', '=', brand.id)
        .execute();
      const dna = await get(org.apiKey, brand.id);
      expect(dna.json().brandDnaStatus).toBe('pending');
      expect(dna.headers.etag).not.toBe(renamed.headers.etag);
    });
  });

  describe('PUT /brands/{brandId}', () => {
    it('updates with a matching If-Match and returns a new ETag', async () => {
      const { brand, etag } = await create(admin.apiKey);
      tick();
      const res = await put(admin.apiKey, brand.id, { name: 'Acme Two', tone: ['Luxurious'] }, etag);
      expect(res.statusCode, res.body).toBe(200);
      const updated = res.json();
      expect(updated).toEqual({
        ...brand,
        name: 'Acme Two',
        tone: ['Luxurious'],
        updatedAt: now.toISOString(),
      });
      expect(updated.createdAt).toBe(brand.createdAt);
      expect(res.headers.etag).not.toBe(etag);
      const read = await get(admin.apiKey, brand.id);
      expect(read.json()).toEqual(updated);
      expect(read.headers.etag).toBe(res.headers.etag);
      // The old tag is now stale; the new one works.
      const stale = await put(admin.apiKey, brand.id, { name: 'Three' }, etag);
      expect(stale.statusCode).toBe(412);
      expect(stale.json().error.code).toBe('PRECONDITION_FAILED');
      expect((await put(admin.apiKey, brand.id, { name: 'Three' }, String(res.headers.etag))).statusCode).toBe(200);
    });

    it('requires If-Match: missing is 400 naming the header, weak or stale is 412, * and lists match', async () => {
      const { brand, etag } = await create(admin.apiKey);
      const missing = await put(admin.apiKey, brand.id, { name: 'X' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { fields: [{ field: 'header.if-match', message: 'is required' }] },
      });
      expect((await put(admin.apiKey, brand.id, { name: 'X' }, '')).statusCode).toBe(400);
      for (const bad of [`W/${etag}`, '"nope"', etag.slice(1, -1)]) {
        const res = await put(admin.apiKey, brand.id, { name: 'X' }, bad);
        expect(res.statusCode, bad).toBe(412);
        expect(res.json().error.code).toBe('PRECONDITION_FAILED');
      }
      expect((await get(admin.apiKey, brand.id)).json().name).toBe('Acme');
      const listed = await put(admin.apiKey, brand.id, { name: 'Listed' }, `"nope", ${etag}`);
      expect(listed.statusCode).toBe(200);
      const star = await put(admin.apiKey, brand.id, { name: 'Star' }, '*');
      expect(star.statusCode).toBe(200);
      expect(star.json().name).toBe('Star');
    });

    it('writes by compare-and-set, so an update based on a superseded read changes nothing', async () => {
      const { brand, etag } = await create(admin.apiKey);
      const repo = createBrandsRepo(t.deps.db);
      const read = await repo.find(admin.organizationId, brand.id);
      expect((await put(admin.apiKey, brand.id, { name: 'Winner' }, etag)).statusCode).toBe(200);
      const at = now.toISOString();
      expect(await repo.update(admin.organizationId, brand.id, read!.version, { name: 'Loser', updated_at: at })).toBe(
        0,
      );
      expect((await get(admin.apiKey, brand.id)).json().name).toBe('Winner');
      const fresh = await repo.find(admin.organizationId, brand.id);
      expect(await repo.update(admin.organizationId, brand.id, fresh!.version, { mission: 'm', updated_at: at })).toBe(
        1,
      );
      expect(
        await repo.update(other.organizationId, brand.id, fresh!.version + 1, { mission: 'x', updated_at: at }),
      ).toBe(0);
    });

    it('applies the null semantics: kept, "" , [] and logo removed', async () => {
      const logo = await insertAsset(admin.organizationId, 'logo');
      const { brand, etag } = await create(admin.apiKey, { logoAssetId: logo });
      expect(brand.logoAsset).toEqual({ assetId: logo, assetType: 'logo' });
      const res = await put(
        admin.apiKey,
        brand.id,
        {
          name: null,
          industry: null,
          description: null,
          mission: null,
          values: null,
          tone: null,
          voice: null,
          logoAssetId: null,
        },
        etag,
      );
      expect(res.statusCode, res.body).toBe(200);
      const b = res.json();
      expect(b).toMatchObject({
        name: brand.name,
        industry: brand.industry,
        description: brand.description,
        mission: '',
        values: [],
        tone: [],
        voice: [],
      });
      expect(b).not.toHaveProperty('logoAsset');
      const relogo = await put(admin.apiKey, brand.id, { logoAssetId: logo }, String(res.headers.etag));
      expect(relogo.json().logoAsset).toEqual({ assetId: logo, assetType: 'logo' });
    });

    it('leaves members it is not sent unchanged', async () => {
      const { brand, etag } = await create(admin.apiKey, { mission: 'Keep me' });
      const res = await put(admin.apiKey, brand.id, { industry: 'Food' }, etag);
      expect(res.json()).toMatchObject({ ...brand, industry: 'Food', updatedAt: expect.any(String) });
    });

    it.each([
      ['empty body', {}, 'body'],
      ['unknown member', { brandName: 'x' }, 'body.brandName'],
      ['name empty', { name: '' }, 'body.name'],
      ['name 101', { name: rep('😀', 101) }, 'body.name'],
      ['industry 51', { industry: rep('a', 51) }, 'body.industry'],
      ['description 9', { description: rep('a', 9) }, 'body.description'],
      ['description 281', { description: rep('a', 281) }, 'body.description'],
      ['mission 1001', { mission: rep('a', 1001) }, 'body.mission'],
      ['values 11 items', { values: rep('v', 11).split('') }, 'body.values'],
      ['voice item 51', { voice: [rep('a', 51)] }, 'body.voice'],
      ['tone duplicate', { tone: ['Casual', 'Casual'] }, 'body.tone'],
      ['tone unknown', { tone: ['Loud'] }, 'body.tone'],
      ['blank name', { name: '  ' }, 'body.name'],
      ['blank description', { description: rep(' ', 10) }, 'body.description'],
      ['NUL in voice', { voice: ['\u0000'] }, 'body.voice.0'],
      ['logoAssetId not a uuid', { logoAssetId: 'x' }, 'body.logoAssetId'],
    ])('refuses %s with 400', async (_label, payload, field) => {
      const { brand, etag } = await create(admin.apiKey);
      const res = await put(admin.apiKey, brand.id, payload, etag);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.details.fields[0].field.startsWith(field)).toBe(true);
      expect((await get(admin.apiKey, brand.id)).headers.etag).toBe(etag);
    });

    it('accepts the bounds just inside', async () => {
      const { brand, etag } = await create(admin.apiKey);
      const payload = {
        name: rep('😀', 100),
        industry: rep('ß', 50),
        description: rep('a', 280),
        mission: rep('é', 1000),
        values: Array.from({ length: 10 }, () => rep('v', 50)),
        tone: ['Professional', 'Casual', 'Friendly', 'Authoritative', 'Luxurious'],
        voice: Array.from({ length: 5 }, () => rep('😀', 50)),
      };
      const res = await put(admin.apiKey, brand.id, payload, etag);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject(payload);
      const short = await put(admin.apiKey, brand.id, { name: 'x', description: rep('a', 10) }, '*');
      expect(short.statusCode).toBe(200);
    });

    it('answers 422 for an unknown or non-logo logoAssetId and keeps the brand', async () => {
      const { brand, etag } = await create(admin.apiKey);
      const res = await put(admin.apiKey, brand.id, { logoAssetId: MISSING }, etag);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { fields: [{ field: 'body.logoAssetId' }] },
      });
      const font = await insertAsset(admin.organizationId, 'font');
      expect((await put(admin.apiKey, brand.id, { logoAssetId: font }, etag)).statusCode).toBe(422);
      expect((await get(admin.apiKey, brand.id)).headers.etag).toBe(etag);
    });

    it('is 404 for an unknown id or another organization’s brand, 400 for a malformed id', async () => {
      const { brand } = await create(other.apiKey);
      for (const id of [MISSING, brand.id]) {
        const res = await put(admin.apiKey, id, { name: 'Mine now' }, '*');
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('BRAND_NOT_FOUND');
      }
      expect((await get(other.apiKey, brand.id)).json().name).toBe('Acme');
      expect((await put(admin.apiKey, 'nope', { name: 'x' }, '*')).statusCode).toBe(400);
    });

    it('needs a key (401) and brands:write (viewer gets 403)', async () => {
      const { brand, etag } = await create(admin.apiKey);
      expect(
        (await t.request({ method: 'PUT', url: `/v1/brands/${brand.id}`, payload: { name: 'x' } })).statusCode,
      ).toBe(401);
      const res = await put(viewerKey, brand.id, { name: 'x' }, etag);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    });
  });

  describe('GET /brands', () => {
    let org: { organizationId: string; apiKey: string };
    /** Created in this order, one second apart. */
    const NAMES = ['banana', 'Apple', 'cherry', 'Éclair', 'apple'];
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      org = await freshOrg('List Org');
      for (const [i, name] of NAMES.entries()) {
        tick();
        const industry = i % 2 === 0 ? 'Café' : 'Bakery';
        ids[name] = (await create(org.apiKey, { name, industry })).brand.id;
      }
    });

    const names = (res: { json(): { data: { name: string }[] } }) => res.json().data.map((b) => b.name);

    it('lists newest first by default, with pagination, links and Cache-Control', async () => {
      const res = await list(org.apiKey);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-cache');
      const body = res.json();
      expect(names(res)).toEqual([...NAMES].reverse());
      expect(body.pagination).toEqual({ total: 5, pages: 1, currentPage: 1, limit: 20 });
      expect(body.links).toEqual({ self: `${BRANDS_URL}?sort=-createdAt&page=1&limit=20` });
      expect(body.data[0]).toMatchObject({ organizationId: org.organizationId, organizationName: 'List Org' });
    });

    it('pages through with next/prev links that preserve the other parameters', async () => {
      const q = (page: number) => `?sort=name&industry=caf%C3%A9&page=${page}&limit=2`;
      // Cafés: banana, cherry, apple → by name: apple, banana, cherry
      const p1 = await list(org.apiKey, `?industry=caf%C3%A9&sort=name&limit=2`);
      expect(names(p1)).toEqual(['apple', 'banana']);
      expect(p1.json().pagination).toEqual({ total: 3, pages: 2, currentPage: 1, limit: 2 });
      expect(p1.json().links).toEqual({ self: `${BRANDS_URL}${q(1)}`, next: `${BRANDS_URL}${q(2)}` });
      const p2 = await list(org.apiKey, q(2));
      expect(names(p2)).toEqual(['cherry']);
      expect(p2.json().links).toEqual({ self: `${BRANDS_URL}${q(2)}`, prev: `${BRANDS_URL}${q(1)}` });
      // Following the links gives what they promise.
      const next = new URL(p1.json().links.next);
      const viaLink = await list(org.apiKey, next.search);
      expect(viaLink.json()).toEqual(p2.json());
    });

    it('answers a page past the end with 200, no data, and prev to the last page', async () => {
      const res = await list(org.apiKey, '?limit=2&page=7');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        data: [],
        pagination: { total: 5, pages: 3, currentPage: 7, limit: 2 },
        links: {
          self: `${BRANDS_URL}?sort=-createdAt&page=7&limit=2`,
          prev: `${BRANDS_URL}?sort=-createdAt&page=3&limit=2`,
        },
      });
    });

    it('walks every page of 2 without gaps or repeats', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await list(org.apiKey, `?limit=2&page=${page}`);
        const links = res.json().links;
        expect('prev' in links).toBe(page > 1);
        expect('next' in links).toBe(page < 3);
        seen.push(...names(res));
      }
      expect(seen).toEqual([...NAMES].reverse());
    });

    it.each([
      ['createdAt', NAMES],
      ['-createdAt', [...NAMES].reverse()],
    ])('sorts by %s', async (sort, expected) => {
      expect(names(await list(org.apiKey, `?sort=${sort}`))).toEqual(expected);
    });

    it('sorts by name case-insensitively, ties broken by id, and -name is the exact reverse', async () => {
      const apples = [ids.Apple, ids.apple].sort();
      const asc = (await list(org.apiKey, '?sort=name')).json().data.map((b: { id: string }) => b.id);
      expect(asc).toEqual([...apples, ids.banana, ids.cherry, ids.Éclair]);
      const desc = (await list(org.apiKey, '?sort=-name')).json().data.map((b: { id: string }) => b.id);
      expect(desc).toEqual([...asc].reverse());
    });

    it('breaks createdAt ties by id', async () => {
      const tied = await freshOrg('Tied Org');
      const made: string[] = [];
      for (let i = 0; i < 4; i++) made.push((await create(tied.apiKey, { name: `T${i}` })).brand.id);
      const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((b) => b.id);
      const sorted = [...made].sort();
      expect(ids(await list(tied.apiKey, '?sort=createdAt'))).toEqual(sorted);
      expect(ids(await list(tied.apiKey, '?sort=-createdAt'))).toEqual([...sorted].reverse());
      const page2 = await list(tied.apiKey, '?sort=createdAt&limit=3&page=2');
      expect(ids(page2)).toEqual([sorted[3]]);
    });

    it('filters by industry, case-insensitively and exactly', async () => {
      // Café, CAFÉ, and e + combining acute (another normalization form)
      for (const industry of ['Caf%C3%A9', 'CAF%C3%89', 'cafe%CC%81']) {
        const res = await list(org.apiKey, `?industry=${industry}`);
        expect(res.json().pagination.total, industry).toBe(3);
      }
      expect((await list(org.apiKey, '?industry=bakery')).json().pagination.total).toBe(2);
      for (const miss of ['Cafe', 'Caf', 'Bakery%20']) {
        const res = await list(org.apiKey, `?industry=${miss}`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ data: [], pagination: { total: 0, pages: 0, currentPage: 1 } });
        expect(res.json().links).toEqual({ self: expect.any(String) });
      }
    });

    it.each([
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?limit=2.5', 'query.limit'],
      ['?page=0', 'query.page'],
      ['?page=-1', 'query.page'],
      ['?page=abc', 'query.page'],
      ['?sort=updatedAt', 'query.sort'],
      ['?sort=name&sort=-name', 'query.sort'],
      ['?all_organizations=maybe', 'query.all_organizations'],
      ['?industry=', 'query.industry'],
      [`?industry=${'a'.repeat(51)}`, 'query.industry'],
      ['?industry=a%00b', 'query.industry'],
    ])('refuses %s with 400', async (query, field) => {
      const res = await list(org.apiKey, query);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
      expect(res.json().error.details.fields[0].field).toBe(field);
    });

    it('accepts the limits just inside', async () => {
      const res = await list(org.apiKey, '?limit=100&page=1');
      expect(res.json().pagination).toEqual({ total: 5, pages: 1, currentPage: 1, limit: 100 });
      expect((await list(org.apiKey, '?limit=1')).json().pagination.pages).toBe(5);
    });

    it('lists only the caller’s organization, for a viewer too', async () => {
      const theirs = await list(other.apiKey, '?limit=100');
      expect(theirs.json().data.length).toBeGreaterThan(0);
      expect(
        theirs.json().data.every((b: { organizationId: string }) => b.organizationId === other.organizationId),
      ).toBe(true);
      const viewer = await list(viewerKey, '?limit=100');
      expect(viewer.statusCode).toBe(200);
      expect(
        viewer.json().data.every((b: { organizationId: string }) => b.organizationId === admin.organizationId),
      ).toBe(true);
      expect(viewer.json().data.some((b: { id: string }) => b.id === ids.banana)).toBe(false);
    });

    it('all_organizations: a platform admin sees every organization; anyone else gets 403', async () => {
      const mine = (await list(admin.apiKey, '?limit=1')).json().pagination.total;
      const all = await list(admin.apiKey, '?all_organizations=true&industry=caf%C3%A9&limit=2');
      expect(all.statusCode).toBe(200);
      expect(all.json().pagination.total).toBe(3);
      expect(all.json().data.every((b: { organizationName: string }) => b.organizationName === 'List Org')).toBe(true);
      expect(all.json().links.next).toBe(
        `${BRANDS_URL}?all_organizations=true&sort=-createdAt&industry=caf%C3%A9&page=2&limit=2`,
      );
      const everything = (await list(admin.apiKey, '?all_organizations=true&limit=1')).json().pagination.total;
      expect(everything).toBeGreaterThan(mine);
      const explicitFalse = await list(admin.apiKey, '?all_organizations=false&limit=1');
      expect(explicitFalse.json().pagination.total).toBe(mine);
      for (const key of [org.apiKey, viewerKey]) {
        const res = await list(key, '?all_organizations=true');
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('FORBIDDEN');
      }
      expect((await list(org.apiKey, '?all_organizations=false')).statusCode).toBe(200);
    });

    it('needs a key', async () => {
      expect((await t.request({ method: 'GET', url: '/v1/brands' })).statusCode).toBe(401);
    });
  });

  describe('arbitrary bodies (property)', () => {
    it('POST /brands answers 201 exactly for valid bodies, 400/422 otherwise, never 5xx, and stores only valid brands', async () => {
      const org = await freshOrg('Fuzz Org');
      // Valid bodies built at and between the bounds, then 0-2 mutations that may break them.
      const good = fc.constantFrom('a', 'Z', 'é', '😀', '中', '-', ' ', '\u3000', '\n');
      const bad = fc.constantFrom('\u0000', '\uD800', '\uDFFF');
      const size = (min: number, max: number) => fc.oneof(fc.constant(min), fc.constant(max), fc.integer({ min, max }));
      const text = (min: number, max: number) =>
        size(min, max).chain((n) => fc.array(good, { minLength: n, maxLength: n }).map((a) => a.join('')));
      const solid = (min: number, max: number) =>
        text(min, max).map((v) => (v.trim() === '' ? `x${[...v].slice(1).join('')}` : v));
      const listOf = (item: fc.Arbitrary<string>, max: number) =>
        size(0, max).chain((n) => fc.array(item, { minLength: n, maxLength: n }));
      const valid = fc.record(
        {
          name: solid(1, 100),
          industry: solid(1, 50),
          description: solid(10, 280),
          mission: text(0, 1000),
          values: listOf(text(0, 50), 10),
          tone: fc.shuffledSubarray([...TONES], { maxLength: 5 }),
          voice: listOf(text(0, 50), 5),
          logoAssetId: fc.constant(null),
        },
        { requiredKeys: [...WRITABLE] },
      );
      type Mutation = (b: Record<string, unknown>) => void;
      const set =
        (f: string, v: unknown): Mutation =>
        (b) => {
          b[f] = v;
        };
      const edit =
        (f: string, change: (v: unknown) => unknown): Mutation =>
        (b) => {
          b[f] = change(b[f]);
        };
      const items = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
      const MAX = { name: 100, industry: 50, description: 280, mission: 1000 } as const;
      const textField = fc.constantFrom(...(Object.keys(MAX) as (keyof typeof MAX)[]));
      const anyField = fc.constantFrom(...WRITABLE, 'logoAssetId');
      const mutation: fc.Arbitrary<Mutation> = fc.oneof(
        fc.tuple(anyField, fc.jsonValue()).map(([f, v]) => set(f, v)),
        anyField.map(
          (f): Mutation =>
            (b) =>
              delete b[f],
        ),
        fc.tuple(fc.string(), fc.jsonValue()).map(([k, v]) => set(k, v)),
        fc.tuple(textField, good).map(([f, c]) => set(f, c.repeat(MAX[f] + 1))),
        fc.tuple(textField, bad, fc.nat()).map(([f, c, i]) =>
          edit(f, (v) => {
            const chars = [...String(v ?? '')];
            chars.splice(i % (chars.length + 1), 0, c);
            return chars.join('');
          }),
        ),
        fc.constantFrom('name', 'industry', 'description').map((f) => set(f, ' '.repeat(12))),
        fc.constant(set('description', 'x'.repeat(9))),
        fc.constantFrom('values', 'voice').map((f) => edit(f, (v) => [...items(v), 'x'.repeat(51)])),
        fc.constantFrom('values', 'voice').map((f) => edit(f, (v) => [...items(v), ...Array(11).fill('v')])),
        fc.constant(edit('tone', (v) => [...items(v), ...items(v), 'Loud'])),
        fc.uuid().map((u) => set('logoAssetId', u)),
      );
      const mutated = fc.tuple(valid, fc.array(mutation, { maxLength: 2 })).map(([b, ms]) => {
        const copy: Record<string, unknown> = { ...b };
        for (const m of ms) m(copy);
        return copy;
      });
      const body = fc.oneof(
        { weight: 8, arbitrary: mutated },
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 10 }),
      );
      let created = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const res = await t.request({
            method: 'POST',
            url: '/v1/brands',
            key: org.apiKey,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(b),
          });
          const sent = JSON.parse(JSON.stringify(b)) as unknown;
          const problems = createProblems(sent);
          const logo = (sent as { logoAssetId?: unknown } | null)?.logoAssetId;
          const expected = problems.length > 0 ? 400 : typeof logo === 'string' ? 422 : 201;
          expect(res.statusCode, `${res.body} (problems: ${problems.join(', ')})`).toBe(expected);
          if (res.statusCode === 201) {
            created++;
            const brand = res.json();
            for (const f of WRITABLE) expect(brand[f]).toEqual((sent as Record<string, unknown>)[f]);
            expect(fieldProblems(brand)).toEqual([]);
          } else {
            refused++;
          }
        }),
        { numRuns: 300 },
      );
      expect(created).toBeGreaterThan(20);
      expect(refused).toBeGreaterThan(20);
      const first = (await list(org.apiKey, '?limit=100')).json();
      expect(first.pagination.total).toBe(created);
      for (let page = 1; page <= first.pagination.pages; page++) {
        for (const b of (await list(org.apiKey, `?limit=100&page=${page}`)).json().data) {
          expect(fieldProblems(b), JSON.stringify(b)).toEqual([]);
          expect(b.brandDnaStatus).toBe('none');
        }
      }
    });
  });
});

import { randomUUID } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrandDna } from '../src/modules/brand-dna/brand-dna.schemas.ts';
import { mergeFindings } from '../src/modules/brand-dna/merge.ts';
import { BRANDS } from './fixtures/brands/brands.ts';
import { type BrandSites, startBrandSites } from './fixtures/brands/site-server.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { createBrand } from './helpers/upload.ts';

/**
 * Contract audit of Brand DNA against the spec: every response checked against the route's own
 * entry in /v1/openapi.json, the envelope and the error body, summary and detail fields exactly as
 * listed, body bounds, hostile input (never a 5xx), and organization isolation on every route.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;
const B = BRANDS[0]!;
const SUMMARY_KEYS = [
  'versionId',
  'versionNumber',
  'isActive',
  'status',
  'confidenceScore',
  'missingFields',
  'preview',
  'createdAt',
  'updatedAt',
];
const PREVIEW_KEYS = ['colorHexes', 'typographyShort', 'toneShort', 'topValues', 'sourceCounts'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Route templates as published (Fastify `:x` → `{x}`).
const P = {
  list: '/v1/brands/{brandId}/brand-dna/versions',
  active: '/v1/brands/{brandId}/brand-dna/active',
  one: '/v1/brands/{brandId}/brand-dna/versions/{versionId}',
  activate: '/v1/brands/{brandId}/brand-dna/versions/{versionId}/activate',
  cancel: '/v1/brands/{brandId}/brand-dna/versions/{versionId}/cancel',
  rerun: '/v1/brands/{brandId}/brand-dna/versions/{versionId}/rerun',
  legacy: '/v1/brands/{brandId}/dna',
} as const;
type Route = keyof typeof P;

interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
}

/** Keys whose value is null anywhere outside `dna` (the spec omits absent fields rather than sending null). */
function nullsOutsideDna(value: unknown, path = ''): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullsOutsideDna(v, `${path}.${i}`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      k === 'dna' || k === 'brandDna' ? [] : nullsOutsideDna(v, `${path}.${k}`),
    );
  }
  return [];
}

function expectSummary(s: Json) {
  expect(Object.keys(s).sort()).toEqual([...SUMMARY_KEYS, ...('name' in s ? ['name'] : [])].sort());
  expect(Object.keys(s.preview).sort()).toEqual([...PREVIEW_KEYS].sort());
  for (const k of ['pdf', 'image', 'video', 'url']) expect(Number.isInteger(s.preview.sourceCounts[k])).toBe(true);
  expect(s.versionId).toMatch(UUID);
  expect(s.createdAt).toMatch(ISO_UTC);
  expect(s.updatedAt).toMatch(ISO_UTC);
}

function expectDetail(d: Json) {
  const { sources, dna, ...summary } = d;
  expectSummary(summary);
  expect(Array.isArray(sources)).toBe(true);
  expect('dna' in d).toBe(true);
  if (d.status === 'pending' || d.status === 'extracting') expect(dna).toBeNull();
  for (const s of sources) {
    expect(s.id).toMatch(UUID);
    expect(['pdf', 'image', 'video', 'url', 'font', 'document']).toContain(s.type);
    expect(typeof s.label).toBe('string');
  }
}

describe.each(dbKinds())('Brand DNA contract audit (%s)', (kind) => {
  let t: TestApp;
  let sites: BrandSites;
  let key: string;
  let otherKey: string;
  let brandId: string;
  let siblingId: string; // another brand of the same organization
  let otherBrandId: string; // another organization's brand
  let otherVersion: string; // a version of the other organization
  let ready: Json; // a ready version of brandId
  let doc: OpenApiDoc;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();

  /** Checks a response against the route's published entry; every non-204 success is `{status:'success', data}`. */
  function conforms(method: string, route: Route, res: LightMyRequestResponse) {
    const where = `${method} ${P[route]} → ${res.statusCode} ${res.body.slice(0, 300)}`;
    expect(res.statusCode, where).toBeLessThan(500);
    const op = doc.paths[P[route]]?.[method.toLowerCase()];
    expect(op, `${method} ${P[route]} is not published`).toBeDefined();
    const entry = op?.responses[String(res.statusCode)];
    expect(entry, `status not published: ${where}`).toBeDefined();
    if (res.statusCode === 204) {
      expect(res.body, where).toBe('');
      return;
    }
    const body = res.json();
    if (res.statusCode < 300) {
      expect(Object.keys(body).sort(), where).toEqual(['data', 'status']);
      expect(body.status).toBe('success');
      expect(nullsOutsideDna(body.data), where).toEqual([]);
    } else {
      expect(Object.keys(body).sort(), where).toEqual(['error', 'requestId']);
      expect(body.requestId).toMatch(UUID);
      expect(typeof body.error.code).toBe('string');
      expect(typeof body.error.message).toBe('string');
    }
    const schema = entry?.content?.['application/json']?.schema;
    expect(schema, `no schema: ${where}`).toBeDefined();
    const id = `${method} ${route} ${res.statusCode}`;
    let validate = compiled.get(id);
    if (!validate) {
      validate = ajv.compile(schema!);
      compiled.set(id, validate);
    }
    const ok = validate(body);
    expect(ok ? [] : validate.errors, where).toEqual([]);
  }

  const pathOf = (route: Route, b: string, v = '') => P[route].replace('{brandId}', b).replace('{versionId}', v);
  async function call(
    method: string,
    route: Route,
    o: { b?: string; v?: string; body?: unknown; k?: string; raw?: string } = {},
  ) {
    const res = await t.request({
      method: method as 'GET',
      url: pathOf(route, o.b ?? brandId, o.v),
      key: o.k ?? key,
      ...(o.raw !== undefined
        ? { payload: o.raw, headers: { 'content-type': 'application/json' } }
        : o.body === undefined
          ? {}
          : { payload: o.body as object }),
    });
    conforms(method, route, res);
    return res;
  }
  const expectError = (res: LightMyRequestResponse, status: number, code: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code, res.body).toBe(code);
  };
  const settle = (versionId: string) =>
    eventually(
      async () => {
        const v = (await call('GET', 'one', { v: versionId })).json().data;
        return v.status === 'ready' || v.status === 'failed' ? v : undefined;
      },
      `version ${versionId} to finish`,
      60_000,
      100,
    );

  beforeAll(async () => {
    sites = await startBrandSites([B]);
    t = await createTestApp(kind, { env: { ATELIER_ALLOW_PRIVATE_FETCH: '1' } });
    doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    key = (await t.bootstrap({ orgName: 'Audit A' })).apiKey;
    otherKey = (await t.bootstrap({ orgName: 'Audit B' })).apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, B.name);
    siblingId = await createBrand(t, key, 'Sibling');
    otherBrandId = await createBrand(t, otherKey, 'Other');
    const created = await call('POST', 'list', { body: { name: 'Audit', urls: [sites.urlOf(B.slug)] } });
    expect(created.statusCode, created.body).toBe(200);
    ready = await settle(created.json().data.versionId);
    expect(ready.status).toBe('ready');
    const theirs = await call('POST', 'list', {
      b: otherBrandId,
      k: otherKey,
      body: { urls: [`${sites.origin}/missing/`] },
    });
    otherVersion = theirs.json().data.versionId;
  });
  afterAll(async () => {
    await t?.close();
    await sites?.close();
  });

  it('answers summaries and details with exactly the spec’s fields, list newest first', async () => {
    const pending = await call('POST', 'list', { body: { urls: [`${sites.origin}/missing/`] } });
    expect(pending.statusCode).toBe(200);
    const s = pending.json().data;
    expectSummary(s);
    expect(s).not.toHaveProperty('name');
    expect(s).toMatchObject({ status: 'pending', isActive: false });
    const detail = (await call('GET', 'one', { v: ready.versionId })).json().data;
    expectDetail(detail);
    expect(detail.dna).not.toBeNull();
    expect(detail.name).toBe('Audit');
    const list = (await call('GET', 'list')).json().data;
    expect(list.map((x: Json) => x.versionNumber)).toEqual(
      [...list.map((x: Json) => x.versionNumber)].sort((a: number, b: number) => b - a),
    );
    for (const x of list) expectSummary(x);
    expect(list[0].versionId).toBe(s.versionId);
    await settle(s.versionId);
    expect((await call('DELETE', 'one', { v: s.versionId })).statusCode).toBe(204);
  });

  it('activates idempotently and mirrors onto the brand and the legacy view', async () => {
    expectError(await call('GET', 'active'), 404, 'VERSION_NOT_FOUND');
    const none = (await call('GET', 'legacy')).json().data;
    expect(none).toEqual({ brandId, status: 'none', version: 0, brandDna: {}, sourceAssetIds: [] });
    const first = await call('POST', 'activate', { v: ready.versionId });
    expect(first.statusCode).toBe(200);
    const again = await call('POST', 'activate', { v: ready.versionId });
    expect(again.json().data).toEqual(first.json().data);
    expect((await t.request({ method: 'GET', url: `/v1/brands/${brandId}`, key })).json().brandDnaStatus).toBe('ready');
    const legacy = (await call('GET', 'legacy')).json().data;
    expect(legacy).toMatchObject({ brandId, status: 'ready', version: ready.versionNumber });
    expect(legacy.brandDna).toEqual(ready.dna);
    const active = (await call('GET', 'active')).json().data;
    expectDetail(active);
    expect(active.versionId).toBe(ready.versionId);
    ready = active;
  });

  it('gives each error code its status on every route that can send it', async () => {
    const v = ready.versionId;
    expectError(await call('POST', 'list', { body: {} }), 400, 'NO_SOURCES');
    expectError(await call('POST', 'list', { body: { assetIds: [], urls: [] } }), 400, 'NO_SOURCES');
    expectError(await call('POST', 'rerun', { v, body: {} }), 400, 'NO_SOURCES');
    expectError(await call('POST', 'rerun', { v, body: { assetIds: [], urls: [] } }), 400, 'NO_SOURCES');
    expectError(await call('POST', 'list', { body: { assetIds: [randomUUID()] } }), 403, 'ASSET_NOT_OWNED');
    expectError(await call('POST', 'rerun', { v, body: { assetIds: [randomUUID()] } }), 403, 'ASSET_NOT_OWNED');
    expectError(await call('DELETE', 'one', { v }), 409, 'ACTIVE_VERSION_DELETE_FORBIDDEN');
    expectError(await call('POST', 'cancel', { v }), 409, 'INVALID_STATUS_FOR_ACTION');
    const stale = await call('PUT', 'one', { v, body: { name: 'x', updatedAt: new Date(0).toISOString() } });
    expectError(stale, 409, 'STALE_UPDATE');

    // Not found: a missing brand, another organization's brand, a version of a sibling brand or
    // of another organization.
    const versionRoutes: [string, Route, unknown?][] = [
      ['GET', 'one'],
      ['PUT', 'one', { name: 'x', updatedAt: ready.updatedAt }],
      ['DELETE', 'one'],
      ['POST', 'activate'],
      ['POST', 'cancel'],
      ['POST', 'rerun', { urls: [sites.urlOf(B.slug)] }],
    ];
    const brandRoutes: [string, Route, unknown?][] = [
      ['GET', 'list'],
      ['POST', 'list', { urls: [sites.urlOf(B.slug)] }],
      ['GET', 'active'],
      ['GET', 'legacy'],
      ...versionRoutes,
    ];
    for (const b of [randomUUID(), otherBrandId]) {
      for (const [m, r, body] of brandRoutes) expectError(await call(m, r, { b, v, body }), 404, 'BRAND_NOT_FOUND');
    }
    for (const [b, version] of [
      [siblingId, v],
      [brandId, otherVersion],
      [brandId, randomUUID()],
    ] as const) {
      for (const [m, r, body] of versionRoutes) {
        expectError(await call(m, r, { b, v: version, body }), 404, 'VERSION_NOT_FOUND');
      }
    }
    // The other organization still has its version, untouched.
    expect((await call('GET', 'one', { b: otherBrandId, v: otherVersion, k: otherKey })).statusCode).toBe(200);
    // Ids are matched whatever their case.
    expect((await call('GET', 'one', { b: brandId.toUpperCase(), v: v.toUpperCase() })).json().data.versionId).toBe(v);
  });

  it('enforces the body bounds of create, rerun and update', async () => {
    const url = sites.urlOf(B.slug);
    const bad: unknown[] = [
      { name: 'n'.repeat(201), urls: [url] },
      { assetIds: Array.from({ length: 21 }, () => randomUUID()) },
      { urls: Array.from({ length: 21 }, (_, i) => `${url}?${i}`) },
      { urls: [`https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`] },
      { urls: ['javascript:alert(1)'] },
      { urls: ['file:///etc/passwd'] },
      { urls: ['data:text/html,hi'] },
      { urls: ['https://user:secret@example.com/'] },
      { urls: ['https://:secret@example.com/'] },
      { urls: ['/relative/path'] },
      { assetIds: ['not-a-uuid'] },
      { urls: [url], other: 1 },
    ];
    for (const body of bad) expectError(await call('POST', 'list', { body }), 400, 'INVALID_REQUEST');
    for (const body of bad.slice(1, -1)) {
      expectError(await call('POST', 'rerun', { v: ready.versionId, body }), 400, 'INVALID_REQUEST');
    }
    // At the bounds: accepted as far as the bound goes (unknown assets are then not owned).
    expectError(
      await call('POST', 'list', { body: { assetIds: Array.from({ length: 20 }, () => randomUUID()) } }),
      403,
      'ASSET_NOT_OWNED',
    );
    const long = `${sites.origin}/missing/${'a'.repeat(2048 - `${sites.origin}/missing/`.length)}`;
    const atBounds = await call('POST', 'list', {
      body: { name: '\u{1F600}'.repeat(200), urls: [long, ...Array.from({ length: 19 }, (_, i) => `${url}?${i}`)] },
    });
    expect(atBounds.statusCode, atBounds.body).toBe(200);
    expect(atBounds.json().data.preview.sourceCounts.url).toBe(20);
    const detail = (await call('GET', 'one', { v: atBounds.json().data.versionId })).json().data;
    expect(detail.sources[0].url).toBe(long);
    await settle(detail.versionId);
    expect((await call('DELETE', 'one', { v: detail.versionId })).statusCode).toBe(204);

    const v = ready.versionId;
    for (const body of [
      { name: 'x' },
      { updatedAt: ready.updatedAt },
      { name: 'n'.repeat(201), updatedAt: ready.updatedAt },
      { name: 'x', confidenceScore: 1, updatedAt: ready.updatedAt },
      { name: 'x', missingFields: [], updatedAt: ready.updatedAt },
      { name: 'x', preview: ready.preview, updatedAt: ready.updatedAt },
      { name: 'x', updatedAt: 'not a date' },
      { name: 'x', updatedAt: 1_700_000_000_000 },
      { dna: { ...ready.dna, extra: 1 }, updatedAt: ready.updatedAt },
      { dna: null, updatedAt: ready.updatedAt },
    ]) {
      expectError(await call('PUT', 'one', { v, body }), 400, 'INVALID_REQUEST');
    }
  });

  it('never answers a 5xx to hostile input', async () => {
    const v = ready.versionId;
    // A value nested 20 000 levels deep, spliced into the JSON text (too deep to stringify).
    const deep = '__DEEP__';
    const deepJson = `${'{"a":['.repeat(20_000)}"x"${']}'.repeat(20_000)}`;
    const huge = '__HUGE__'; // a number literal JSON allows and JavaScript reads as Infinity
    const hostileDna = (patch: (d: Json) => void) => {
      const d = structuredClone(ready.dna);
      patch(d);
      return d;
    };
    const cases: [string, Route, unknown][] = [
      ['POST', 'list', { name: 'a\u0000b', urls: [sites.urlOf(B.slug)] }],
      ['POST', 'list', { name: 'a\ud800b', urls: [sites.urlOf(B.slug)] }],
      ['POST', 'list', { urls: ['https://exa\u0000mple.com/'] }],
      ['POST', 'list', { urls: ['https://example.com/\u0000'] }],
      ['POST', 'list', { urls: ['https://example.com/\ud800'] }],
      ['POST', 'list', { urls: [huge] }],
      ['PUT', 'one', { dna: hostileDna((d) => (d.visual.palette[0].share = huge)), updatedAt: ready.updatedAt }],
      ['POST', 'list', { name: 1e308, urls: [sites.urlOf(B.slug)] }],
      ['POST', 'list', { urls: [sites.urlOf(B.slug)], name: deep }],
      ['PUT', 'one', { name: 'a\ud800', updatedAt: ready.updatedAt }],
      ['PUT', 'one', { name: 'x', updatedAt: '275760-09-13T00:00:00.000Z' }],
      ['PUT', 'one', { name: 'x', updatedAt: '2024-02-30T00:00:00Z' }],
      ['PUT', 'one', { dna: deep, updatedAt: ready.updatedAt }],
      ['PUT', 'one', { dna: hostileDna((d) => (d.identity.values = [deep])), updatedAt: ready.updatedAt }],
      ['PUT', 'one', { dna: hostileDna((d) => (d.visual.imagery.extra = deep)), updatedAt: ready.updatedAt }],
      [
        'PUT',
        'one',
        {
          dna: hostileDna((d) => (d.voice.tone = [{ tone: 'Friendly', weight: 1e308, sources: [] }])),
          updatedAt: ready.updatedAt,
        },
      ],
      [
        'PUT',
        'one',
        {
          dna: hostileDna((d) => {
            d.visual.typography.heading = { family: 'X', weights: [1e21], fallbacks: [], sources: [] };
          }),
          updatedAt: ready.updatedAt,
        },
      ],
      [
        'PUT',
        'one',
        {
          dna: hostileDna((d) => (d.identity.tagline = { value: 'a\u0000', sources: [] })),
          updatedAt: ready.updatedAt,
        },
      ],
      [
        'PUT',
        'one',
        { dna: hostileDna((d) => (d.identity.tagline = { value: '\udfff', sources: [] })), updatedAt: ready.updatedAt },
      ],
      [
        'PUT',
        'one',
        {
          dna: hostileDna((d) => (d.visual.logos = [{ url: 'javascript:alert(1)', sources: ['manual'] }])),
          updatedAt: ready.updatedAt,
        },
      ],
      [
        'PUT',
        'one',
        {
          dna: hostileDna(
            (d) => (d.visual.logos = [{ url: 'https://user:pw@example.com/logo.png', sources: ['manual'] }]),
          ),
          updatedAt: ready.updatedAt,
        },
      ],
      [
        'PUT',
        'one',
        {
          dna: hostileDna(
            (d) => (d.visual.logos = [{ url: `https://example.com/${'a'.repeat(2040)}`, sources: ['manual'] }]),
          ),
          updatedAt: ready.updatedAt,
        },
      ],
      ['POST', 'rerun', { urls: ['https://user@example.com/'] }],
      ['POST', 'rerun', { assetIds: ['\u0000'] }],
    ];
    for (const [m, r, body] of cases) {
      const raw = JSON.stringify(body).replace(`"${deep}"`, deepJson).replace(`"${huge}"`, '1e400');
      const res = await call(m, r, { v, raw });
      expect(res.statusCode, `${m} ${r} ${raw.slice(0, 100)} … ${raw.slice(-300)}: ${res.body.slice(0, 100)}`).toBe(
        400,
      );
    }
    // A leap second is a well-formed date-time but never a token the service gave: stale.
    const leap = await call('PUT', 'one', { v, body: { name: 'x', updatedAt: '2016-12-31T23:59:60Z' } });
    expectError(leap, 409, 'STALE_UPDATE');
    // A host no DNS can hold is still a URI: accepted, and its source fails when fetched.
    const oddHost = await call('POST', 'list', { body: { urls: [`https://${'a'.repeat(300)}.com/`] } });
    expect(oddHost.statusCode, oddHost.body).toBe(200);
    const failed = await settle(oddHost.json().data.versionId);
    expect(failed.status).toBe('failed');
    expect(failed.sources[0].errorReason).toBeTruthy();
    expect((await call('DELETE', 'one', { v: failed.versionId })).statusCode).toBe(204);
    // Raw bodies the JSON parser sees: prototype keys, deep nesting, broken JSON, huge numbers.
    for (const raw of [
      '{"__proto__":{"x":1},"urls":["https://example.com/"]}',
      '{"constructor":{"prototype":{"x":1}},"urls":["https://example.com/"]}',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      `{"urls":["https://example.com/"],"name":${'9'.repeat(400)}}`,
      '{"urls":["https://example.com/"',
      '"\\ud800"',
    ]) {
      const res = await call('POST', 'list', { raw });
      expect([400, 413], `${raw.slice(0, 60)}: ${res.body}`).toContain(res.statusCode);
    }
    // Random JSON bodies on every route that reads one: a 4xx, never a 5xx. The URLs are never
    // fetchable ones (other schemes, credentials, random text), so nothing is ever accepted.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<[string, Route]>(['POST', 'list'], ['PUT', 'one'], ['POST', 'rerun']),
        fc.oneof(
          fc.jsonValue({ maxDepth: 4 }),
          fc.record({
            name: fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue()),
            urls: fc.array(
              fc.oneof(fc.constantFrom('ftp://x.example/', 'https://u:p@x.example/'), fc.string({ unit: 'binary' })),
              { maxLength: 3 },
            ),
            assetIds: fc.array(fc.oneof(fc.uuid(), fc.string()), { maxLength: 3 }),
            updatedAt: fc.oneof(
              fc.string(),
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            ),
          }),
        ),
        async ([m, r], body) => {
          const res = await call(m, r, { v, body: body ?? {} });
          expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: 60, seed: 5 },
    );
  });

  it('answers 403 on every route, reads included, for a plan without Brand DNA', async () => {
    const free = (await t.bootstrap({ orgName: 'Free', plan: 'free' })).apiKey;
    const freeBrand = await createBrand(t, free, 'Free brand');
    const v = randomUUID();
    for (const [m, r, body] of [
      ['GET', 'list'],
      ['POST', 'list', { urls: ['https://example.com/'] }],
      ['GET', 'active'],
      ['GET', 'one'],
      ['PUT', 'one', { name: 'x', updatedAt: new Date().toISOString() }],
      ['DELETE', 'one'],
      ['POST', 'activate'],
      ['POST', 'cancel'],
      ['POST', 'rerun', { urls: ['https://example.com/'] }],
      ['GET', 'legacy'],
    ] as [string, Route, unknown?][]) {
      expectError(await call(m, r, { b: freeBrand, v, body, k: free }), 403, 'FORBIDDEN');
    }
  });

  it('reruns with 202, keeping versionNumber and isActive; PUT of dna on a failed version is a 409', async () => {
    const r = await call('POST', 'rerun', { v: ready.versionId, body: { urls: [`${sites.origin}/missing/`] } });
    expect(r.statusCode).toBe(202);
    expect(r.json().data).toMatchObject({
      versionNumber: ready.versionNumber,
      isActive: true,
      status: 'pending',
      name: ready.name,
    });
    const failed = await settle(ready.versionId);
    expect(failed).toMatchObject({ status: 'failed', isActive: true, dna: null });
    expectDetail(failed);
    expectError(
      await call('PUT', 'one', { v: ready.versionId, body: { dna: ready.dna, updatedAt: failed.updatedAt } }),
      409,
      'INVALID_STATUS_FOR_ACTION',
    );
    expectError(await call('POST', 'activate', { v: ready.versionId }), 409, 'INVALID_STATUS_FOR_ACTION');
    expect((await call('GET', 'legacy')).json().data).toMatchObject({ status: 'failed', brandDna: {} });
    const renamed = await call('PUT', 'one', {
      v: ready.versionId,
      body: { name: 'Kept', updatedAt: failed.updatedAt },
    });
    expect(renamed.statusCode).toBe(200);
    expectSummary(renamed.json().data);
  });
});

describe('extracted logo URLs fit the published payload schema', () => {
  it('drops logo URLs the schema cannot hold: longer than 2048 characters or with credentials', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const check = ajv.compile(BrandDna);
    const long = `https://brand.example/${'a'.repeat(3000)}.png`;
    const { dna } = mergeFindings([
      {
        sourceId: randomUUID(),
        type: 'url',
        colors: [],
        fonts: [],
        logos: [
          { url: long, score: 9 },
          { url: 'https://user:pw@brand.example/logo.png', score: 8 },
          { url: 'https://brand.example/logo.png', score: 1 },
        ],
      },
    ]);
    expect(dna.visual.logos.map((l) => l.url)).toEqual(['https://brand.example/logo.png']);
    expect(check(dna) ? [] : check.errors).toEqual([]);
  });
});

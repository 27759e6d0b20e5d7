import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { type OpenApiDoc, openApiChecker } from './helpers/openapi.ts';
import { assetClient, eventually, flatPng } from './helpers/assets.ts';
import { type FixtureSite, startFixtureSite } from './extraction-site.ts';

/**
 * Contract audit of brands, feature usage, access, assets and URL extraction: real responses of
 * every route checked against the route's own entry in /v1/openapi.json, hostile inputs that must
 * be a 4xx (never a 500), upper-case UUIDs, and organization isolation.
 */

const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';

describe.each(dbKinds())('contract audit (%s)', (kind) => {
  let t: TestApp;
  let site: FixtureSite;
  let key: string;
  let viewerKey: string;
  let otherKey: string;
  let brandId: string;
  let otherBrandId: string;
  let assetId: string;
  let uploadId: string;
  let extractionId: string;
  let candidateId: string;
  let conforms: ReturnType<typeof openApiChecker>;

  beforeAll(async () => {
    site = await startFixtureSite();
    t = await createTestApp(kind, {
      env: { ATELIER_ALLOW_PRIVATE_FETCH: '1' },
      jobTuning: { stopGraceMs: 1000 },
    });
    await t.deps.startWorkers();
    const api = assetClient(t);
    const owner = await t.bootstrap({ orgName: 'Audit' });
    key = owner.apiKey;
    const viewer = await t.deps.access.addUser({ organizationId: owner.organizationId, name: 'V', role: 'viewer' });
    viewerKey = (await t.deps.access.createKey({ userId: viewer.id, name: 'viewer' })).token;
    otherKey = (await t.bootstrap({ orgName: 'Other' })).apiKey;
    brandId = await api.createBrand(key);
    otherBrandId = await api.createBrand(otherKey, 'Other');
    const [slot] = await api.upload(key, brandId, [
      { name: 'logo.png', type: 'image/png', bytes: await flatPng(64, 64) },
    ]);
    assetId = slot!.assetId;
    uploadId = slot!.uploadId;
    await api.settled(key, assetId);

    const submitted = await t.request({
      method: 'POST',
      url: '/v1/assets/extract-from-url',
      key,
      payload: { url: `${site.origin}/product`, brandId, purpose: 'product' },
    });
    expect(submitted.statusCode, submitted.body).toBe(202);
    extractionId = submitted.json().extractionId;
    const done = await eventually<{ candidates: { kept: boolean; candidateId: string }[] }>(async () => {
      const r = await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${extractionId}`, key });
      return r.json().status === 'completed' ? r.json() : undefined;
    }, 'the extraction to complete');
    candidateId = done.candidates.find((c) => c.kept)!.candidateId;

    const doc = await t.request({ method: 'GET', url: '/v1/openapi.json' });
    conforms = openApiChecker(doc.json());
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const json = (payload: string) => ({ payload, headers: { 'content-type': 'application/json' } });

  describe('responses match the OpenAPI entry of their route', () => {
    type Case = [method: string, template: string, url: string, extra?: Record<string, unknown>];
    const run = async (cases: Case[], k = key) => {
      for (const [method, template, url, extra] of cases) {
        const res = await t.request({ method: method as 'GET', url, key: k, ...(extra ?? {}) });
        conforms(method, template, res);
      }
    };
    const U = '/v1/brands/{brandId}';

    it('brands', async () => {
      const brand = { name: 'B', industry: 'Retail', description: 'A brand for audits.', mission: '' };
      const full = { ...brand, values: [], tone: [], voice: [] };
      const etag = (await t.request({ method: 'GET', url: `/v1/brands/${brandId}`, key })).headers.etag as string;
      await run([
        ['POST', '/v1/brands', '/v1/brands', { payload: { ...full, logoAssetId: assetId } }],
        ['POST', '/v1/brands', '/v1/brands', { payload: brand }],
        ['POST', '/v1/brands', '/v1/brands', { payload: { ...full, logoAssetId: MISSING } }],
        ['POST', '/v1/brands', '/v1/brands', { payload: 'x', headers: { 'content-type': 'application/xml' } }],
        ['POST', '/v1/brands', '/v1/brands', json('{')],
        ['GET', '/v1/brands', '/v1/brands'],
        ['GET', '/v1/brands', '/v1/brands?limit=1&page=2&sort=name'],
        ['GET', '/v1/brands', '/v1/brands?limit=0'],
        ['GET', '/v1/brands', '/v1/brands?all_organizations=true&page=1'],
        ['GET', U, `/v1/brands/${brandId}`],
        ['GET', U, `/v1/brands/${brandId}`, { headers: { 'if-none-match': etag } }],
        ['GET', U, `/v1/brands/${otherBrandId}`],
        ['GET', U, '/v1/brands/nope'],
        ['PUT', U, `/v1/brands/${brandId}`, { payload: { mission: 'm' }, headers: { 'if-match': '"stale"' } }],
        ['PUT', U, `/v1/brands/${brandId}`, { payload: { mission: 'm' } }],
        ['PUT', U, `/v1/brands/${brandId}`, { payload: { logoAssetId: MISSING }, headers: { 'if-match': '*' } }],
        ['PUT', U, `/v1/brands/${otherBrandId}`, { payload: { mission: 'm' }, headers: { 'if-match': '*' } }],
        ['PUT', U, `/v1/brands/${brandId}`, { payload: { mission: 'm' }, headers: { 'if-match': etag } }],
        ['DELETE', U, `/v1/brands/${brandId}`],
      ]);
      await run(
        [
          ['POST', '/v1/brands', '/v1/brands', { payload: full }],
          ['GET', '/v1/brands', '/v1/brands?all_organizations=true'],
        ],
        viewerKey,
      );
      await run([['GET', '/v1/brands', '/v1/brands']], 'atl_dev_0000000000000000.x');
    });

    it('feature usage and console-only routes', async () => {
      await run([
        ['GET', '/v1/organizations/current/feature-usage', '/v1/organizations/current/feature-usage'],
        ['GET', '/v1/api-keys', '/v1/api-keys'],
        ['POST', '/v1/api-keys', '/v1/api-keys', { payload: {} }],
        ['DELETE', '/v1/assets/{assetId}', `/v1/assets/${assetId}`],
      ]);
      await run([['GET', '/v1/organizations/current/feature-usage', '/v1/organizations/current/feature-usage']], '');
    });

    it('assets', async () => {
      const file = { fileName: 'a.png', fileType: 'image/png', fileSize: 10 };
      const list = '/v1/brands/{brandId}/assets';
      const cancel = '/v1/assets/cancel-upload/{uploadId}';
      await run([
        ['POST', '/v1/assets/initiate-upload', '/v1/assets/initiate-upload', { payload: { brandId, files: [file] } }],
        ['POST', '/v1/assets/initiate-upload', '/v1/assets/initiate-upload', { payload: { brandId, files: [] } }],
        [
          'POST',
          '/v1/assets/initiate-upload',
          '/v1/assets/initiate-upload',
          { payload: { brandId: otherBrandId, files: [file] } },
        ],
        [
          'POST',
          '/v1/assets/initiate-upload',
          '/v1/assets/initiate-upload',
          { payload: 'x', headers: { 'content-type': 'application/xml' } },
        ],
        ['POST', '/v1/assets/confirm-upload', '/v1/assets/confirm-upload', { payload: { uploadId } }],
        ['POST', '/v1/assets/confirm-upload', '/v1/assets/confirm-upload', { payload: { uploadId: MISSING } }],
        ['POST', '/v1/assets/confirm-upload', '/v1/assets/confirm-upload', { payload: {} }],
        [
          'POST',
          '/v1/assets/confirm-upload',
          '/v1/assets/confirm-upload',
          { payload: 'x', headers: { 'content-type': 'application/xml' } },
        ],
        [
          'POST',
          '/v1/assets/confirm-upload',
          '/v1/assets/confirm-upload',
          json(`{"uploadId":"${'1'.repeat(2_000_000)}"}`),
        ],
        ['POST', cancel, `/v1/assets/cancel-upload/${uploadId}`],
        ['POST', cancel, `/v1/assets/cancel-upload/${MISSING}`],
        [
          'POST',
          cancel,
          `/v1/assets/cancel-upload/${uploadId}`,
          { payload: 'x', headers: { 'content-type': 'application/xml' } },
        ],
        ['POST', cancel, `/v1/assets/cancel-upload/${uploadId}`, json('{')],
        ['GET', '/v1/assets/{assetId}', `/v1/assets/${assetId}`],
        ['GET', '/v1/assets/{assetId}', `/v1/assets/${MISSING}`],
        ['GET', '/v1/assets/{assetId}', '/v1/assets/nope'],
        ['GET', list, `/v1/brands/${brandId}/assets`],
        ['GET', list, `/v1/brands/${brandId}/assets?type=logo&status=complete&sort=fileName&tags=a,b`],
        ['GET', list, `/v1/brands/${brandId}/assets?limit=101`],
        ['GET', list, `/v1/brands/${otherBrandId}/assets`],
      ]);
      // The signed links of the local store, without a key.
      const asset = (await t.request({ method: 'GET', url: `/v1/assets/${assetId}`, key })).json();
      const link = new URL(asset.url);
      const blob = link.pathname + link.search;
      const blobs = '/v1/blobs/{*}';
      const upload = (
        await t.request({ method: 'POST', url: '/v1/assets/initiate-upload', key, payload: { brandId, files: [file] } })
      ).json().uploads[0];
      const put = new URL(upload.uploadUrl);
      const putPath = put.pathname + put.search;
      await run(
        [
          ['GET', blobs, blob],
          ['GET', blobs, blob, { headers: { range: 'bytes=0-3' } }],
          ['GET', blobs, blob, { headers: { range: 'bytes=999999-' } }],
          ['GET', blobs, blob.replace('signature=', 'signature=x')],
          ['PUT', blobs, putPath, { payload: Buffer.alloc(10), headers: upload.uploadHeaders }],
          ['PUT', blobs, putPath, { payload: Buffer.alloc(11), headers: upload.uploadHeaders }],
          ['PUT', blobs, putPath, { payload: Buffer.alloc(9), headers: upload.uploadHeaders }],
          ['PUT', blobs, putPath, { payload: Buffer.alloc(10), headers: { 'content-type': 'image/gif' } }],
        ],
        '',
      );
      await run(
        [['POST', '/v1/assets/initiate-upload', '/v1/assets/initiate-upload', { payload: { brandId, files: [file] } }]],
        viewerKey,
      );
    });

    it('URL extraction', async () => {
      const one = '/v1/assets/extract-from-url/{extractionId}';
      const commit = `${one}/commit`;
      const submit = '/v1/assets/extract-from-url';
      await run([
        ['GET', one, `/v1/assets/extract-from-url/${extractionId}`],
        ['GET', one, `/v1/assets/extract-from-url/${extractionId}?includeRejected=true`],
        ['GET', one, `/v1/assets/extract-from-url/${MISSING}`],
        ['GET', one, `/v1/assets/extract-from-url/${extractionId}?includeRejected=maybe`],
        [
          'POST',
          commit,
          `/v1/assets/extract-from-url/${extractionId}/commit`,
          { payload: { items: [{ candidateId }] } },
        ],
        ['POST', commit, `/v1/assets/extract-from-url/${extractionId}/commit`, { payload: { items: [] } }],
        ['POST', commit, `/v1/assets/extract-from-url/${MISSING}/commit`],
        [
          'POST',
          commit,
          `/v1/assets/extract-from-url/${extractionId}/commit`,
          { payload: 'x', headers: { 'content-type': 'application/xml' } },
        ],
        ['POST', submit, submit, { payload: { url: 'ftp://example.com/', brandId } }],
        ['POST', submit, submit, { payload: { url: 'http://example.com/', brandId: otherBrandId } }],
        ['POST', submit, submit, { payload: 'x', headers: { 'content-type': 'application/xml' } }],
        ['POST', submit, submit, { payload: { url: `${site.origin}/product`, brandId, media: 'videos' } }],
        ['DELETE', one, `/v1/assets/extract-from-url/${MISSING}`],
        [
          'DELETE',
          one,
          `/v1/assets/extract-from-url/${MISSING}`,
          { payload: 'x', headers: { 'content-type': 'application/xml' } },
        ],
        ['DELETE', one, `/v1/assets/extract-from-url/${MISSING}`, json(`{"a":"${'1'.repeat(2_000_000)}"}`)],
      ]);
      await run([['GET', one, `/v1/assets/extract-from-url/${extractionId}`]], viewerKey);
      await run([['GET', one, `/v1/assets/extract-from-url/${extractionId}`]], otherKey);
    });
  });

  describe('hostile inputs are a 4xx, never a 500', () => {
    it('GET /brands bounds page so the offset cannot overflow (400, not 500)', async () => {
      for (const page of ['99999999999999999999', '1e300', '9007199254740993', '1000001']) {
        const res = await t.request({ method: 'GET', url: `/v1/brands?page=${page}`, key });
        expect(res.statusCode, `page=${page}: ${res.body}`).toBe(400);
        expect(res.json().error.details.fields[0].field).toBe('query.page');
      }
      const last = await t.request({ method: 'GET', url: '/v1/brands?page=1000000&limit=100', key });
      expect(last.statusCode).toBe(200);
      expect(last.json()).toMatchObject({ data: [], pagination: { currentPage: 1000000, limit: 100 } });
    });

    it('GET /brands/{brandId}/assets refuses NUL in tags (400 naming query.tags) and counts tag length in characters', async () => {
      for (const tags of ['a%00b', 'ok,x%00', '%00']) {
        const res = await t.request({ method: 'GET', url: `/v1/brands/${brandId}/assets?tags=${tags}`, key });
        expect(res.statusCode, `tags=${tags}: ${res.body}`).toBe(400);
        expect(res.json().error.details.fields[0].field).toBe('query.tags');
      }
      const emoji = (n: number) => encodeURIComponent('😀'.repeat(n));
      const ok = await t.request({ method: 'GET', url: `/v1/brands/${brandId}/assets?tags=${emoji(100)}`, key });
      expect(ok.statusCode, ok.body).toBe(200);
      const long = await t.request({ method: 'GET', url: `/v1/brands/${brandId}/assets?tags=${emoji(101)}`, key });
      expect(long.statusCode, long.body).toBe(400);
    });

    it('POST /assets/extract-from-url refuses NUL and unpaired surrogates in purpose (400 naming body.purpose)', async () => {
      for (const purpose of ['pro\u0000duct', '\ud800x']) {
        const res = await t.request({
          method: 'POST',
          url: '/v1/assets/extract-from-url',
          key,
          payload: { url: 'http://example.com/', brandId, purpose },
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().error.details.fields[0]).toMatchObject({ field: 'body.purpose' });
      }
    });
  });

  describe('bounds of the limits table, just inside', () => {
    it('extraction: a url of 2048 characters and a purpose of 64 characters (code points) are accepted', async () => {
      const url = `${site.origin}/product?q=`;
      const res = await t.request({
        method: 'POST',
        url: '/v1/assets/extract-from-url',
        key,
        payload: { url: url + 'a'.repeat(2048 - url.length), brandId, purpose: '😀'.repeat(64), media: 'videos' },
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().purpose).toBe('😀'.repeat(64));
      const del = await t.request({
        method: 'DELETE',
        url: `/v1/assets/extract-from-url/${res.json().extractionId}`,
        key,
      });
      expect(del.statusCode).toBe(204);
    });
  });

  describe('organization isolation: another organization’s ids are 404 on every endpoint', () => {
    it('brands, assets, uploads and extractions', async () => {
      const k = otherKey;
      const cases: [string, string, unknown?, Record<string, string>?][] = [
        ['GET', `/v1/brands/${brandId}`],
        ['PUT', `/v1/brands/${brandId}`, { mission: 'x' }, { 'if-match': '*' }],
        ['GET', `/v1/brands/${brandId}/assets`],
        ['GET', `/v1/assets/${assetId}`],
        [
          'POST',
          '/v1/assets/initiate-upload',
          { brandId, files: [{ fileName: 'a.png', fileType: 'image/png', fileSize: 9 }] },
        ],
        ['POST', '/v1/assets/confirm-upload', { uploadId }],
        ['POST', `/v1/assets/cancel-upload/${uploadId}`],
        ['POST', '/v1/assets/extract-from-url', { url: 'https://example.com/', brandId }],
        ['GET', `/v1/assets/extract-from-url/${extractionId}`],
        ['POST', `/v1/assets/extract-from-url/${extractionId}/commit`, {}],
        ['DELETE', `/v1/assets/extract-from-url/${extractionId}`],
      ];
      for (const [method, url, payload, headers] of cases) {
        const res = await t.request({
          method: method as 'GET',
          url,
          key: k,
          ...(payload === undefined ? {} : { payload: payload as object }),
          ...(headers ? { headers } : {}),
        });
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      }
      // A logo must be an asset of the caller's organization: another one's is unknown (422).
      const logo = await t.request({
        method: 'PUT',
        url: `/v1/brands/${otherBrandId}`,
        key: k,
        payload: { logoAssetId: assetId },
        headers: { 'if-match': '*' },
      });
      expect(logo.statusCode).toBe(422);
      // Nothing of the first organization changed.
      const mine = await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${extractionId}`, key });
      expect(mine.statusCode).toBe(200);
    });
  });

  describe('arbitrary input (property): never a 5xx', () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.integer().map(String),
      fc.double().map(String),
      fc.constantFrom('true', 'false', '-createdAt', 'name', 'fileName', 'image', 'complete', '', '1e300', '%00'),
    );
    const names = fc.constantFrom(
      'page',
      'limit',
      'sort',
      'industry',
      'all_organizations',
      'tags',
      'type',
      'status',
      'campaignId',
      'includeRejected',
    );

    it('query strings of the list and read endpoints', async () => {
      const paths = [
        '/v1/brands',
        `/v1/brands/${brandId}/assets`,
        '/v1/organizations/current/feature-usage',
        `/v1/assets/extract-from-url/${extractionId}`,
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(names, value), { maxLength: 5 }),
          fc.constantFrom(...paths),
          async (q, path) => {
            const query = q.map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('&');
            const res = await t.request({ method: 'GET', url: `${path}?${query}`, key });
            expect(res.statusCode, `${path}?${query} ${res.body}`).toBeLessThan(500);
          },
        ),
        { numRuns: 150 },
      );
    });

    it('extraction submit bodies', async () => {
      const body = fc.record(
        {
          url: fc.oneof(fc.webUrl(), fc.string({ unit: 'binary' })),
          brandId: fc.constantFrom(brandId, brandId.toUpperCase(), otherBrandId, 'x'),
          purpose: fc.option(fc.string({ unit: 'binary', maxLength: 70 })),
          media: fc.constantFrom('images', 'videos', 'both', 'audio'),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const res = await t.request({ method: 'POST', url: '/v1/assets/extract-from-url', key, payload: b });
          expect(res.statusCode, `${JSON.stringify(b)} ${res.body}`).toBeLessThan(500);
          if (res.statusCode === 202) {
            await t.request({ method: 'DELETE', url: `/v1/assets/extract-from-url/${res.json().extractionId}`, key });
          }
        }),
        { numRuns: 100 },
      );
    });
  });

  describe('UUIDs are matched case-insensitively and returned in lower case', () => {
    it('URL extraction: brandId in the body, extractionId in the path, candidateId in commit items', async () => {
      const sub = await t.request({
        method: 'POST',
        url: '/v1/assets/extract-from-url',
        key,
        payload: { url: `${site.origin}/product`, brandId: brandId.toUpperCase(), media: 'videos' },
      });
      expect(sub.statusCode, sub.body).toBe(202);
      expect(sub.json().brandId).toBe(brandId);
      const upper = extractionId.toUpperCase();
      const read = await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${upper}`, key });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().extractionId).toBe(extractionId);
      const commit = await t.request({
        method: 'POST',
        url: `/v1/assets/extract-from-url/${upper}/commit`,
        key,
        payload: { items: [{ candidateId: candidateId.toUpperCase() }] },
      });
      expect(commit.statusCode, commit.body).toBe(200);
      expect(commit.json().assets[0].candidateId).toBe(candidateId);
      const other = await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${upper}`, key: otherKey });
      expect(other.statusCode).toBe(404);
      const del = await t.request({
        method: 'DELETE',
        url: `/v1/assets/extract-from-url/${sub.json().extractionId.toUpperCase()}`,
        key,
      });
      expect(del.statusCode, del.body).toBe(204);
    });
  });
});

describe('rate-limited answers match the OpenAPI entry of their route', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('429 with an integer Retry-After, as published, on the spec’s routes that name it', async () => {
    t = await createTestApp('sqlite', { env: { ATELIER_RATE_LIMIT_PER_SECOND: '1', ATELIER_RATE_LIMIT_BURST: '1' } });
    const doc: OpenApiDoc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    const conforms = openApiChecker(doc);
    const { apiKey: key } = await t.bootstrap();
    await t.request({ method: 'GET', url: '/v1/organizations/current/feature-usage', key });
    const cases: [string, string][] = [
      ['POST', '/v1/brands'],
      ['POST', '/v1/assets/initiate-upload'],
      ['GET', '/v1/organizations/current/feature-usage'],
      ['POST', '/v1/assets/extract-from-url'],
    ];
    for (const [method, url] of cases) {
      const res = await t.request({ method: method as 'GET', url, key, ...(method === 'POST' ? { payload: {} } : {}) });
      expect(res.statusCode, res.body).toBe(429);
      expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      const published = doc.paths[url]?.[method.toLowerCase()]?.responses['429']?.headers ?? {};
      expect(Object.keys(published), `${method} ${url}`).toContain('Retry-After');
      conforms(method, url, res);
    }
  });
});

import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deltaEHex } from '../src/modules/brand-dna/color.ts';
import { BrandDna } from '../src/modules/brand-dna/brand-dna.schemas.ts';
import { mergeFindings } from '../src/modules/brand-dna/merge.ts';
import { BRANDS, bannerImage, guidelinesPdf, logoImage, productImage, siteHtml } from './fixtures/brands/brands.ts';
import { type BrandSites, startBrandSites } from './fixtures/brands/site-server.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { createBrand, uploadCompleteAssets, uploadingAsset } from './helpers/upload.ts';

const checkDna = Compile(BrandDna);
const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
const B = BRANDS[0]!; // Northwind Coffee
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

describe.each(dbKinds())('Brand DNA over HTTP (%s)', (kind) => {
  let t: TestApp;
  let sites: BrandSites;
  let key: string; // enterprise org A
  let orgA: string;
  let otherKey: string; // enterprise org B
  let freeKey: string;
  let brandId: string;
  let otherBrandId: string; // org B's
  let assets: { pdf: string; product: string; banner: string; logo: string };
  let otherAsset: string; // org B's complete image
  let readyA: Json; // a ready version (v1) of brandId

  const base = (b = brandId) => `/v1/brands/${b}/brand-dna`;
  const req = (method: string, url: string, payload?: unknown, k = key) =>
    t.request({
      method: method as 'GET',
      url,
      key: k,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const create = (payload: unknown, b = brandId, k = key) => req('POST', `${base(b)}/versions`, payload, k);
  const get = (versionId: string, b = brandId, k = key) => req('GET', `${base(b)}/versions/${versionId}`, undefined, k);
  const settle = (versionId: string, b = brandId, k = key) =>
    eventually(
      async () => {
        const res = await get(versionId, b, k);
        expect(res.statusCode, res.body).toBe(200);
        const v = res.json().data;
        return v.status === 'ready' || v.status === 'failed' ? v : undefined;
      },
      `version ${versionId} to finish`,
      90_000,
      200,
    );
  const usedExtractions = async (orgId: string) => (await t.deps.usage.periodUsage(orgId)).used.brand_dna_extractions;
  const expectError = (res: { statusCode: number; json(): Json; body: string }, status: number, code: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code, res.body).toBe(code);
  };

  beforeAll(async () => {
    sites = await startBrandSites();
    t = await createTestApp(kind, { env: { ATELIER_ALLOW_PRIVATE_FETCH: '1' } });
    const a = await t.bootstrap({ orgName: 'Org A' });
    key = a.apiKey;
    orgA = a.organizationId;
    otherKey = (await t.bootstrap({ orgName: 'Org B' })).apiKey;
    freeKey = (await t.bootstrap({ orgName: 'Free org', plan: 'free' })).apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, B.name);
    otherBrandId = await createBrand(t, otherKey, 'Other');
    const [pdf, product, banner, logo] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'guidelines.pdf', type: 'application/pdf', bytes: guidelinesPdf(B) },
      { name: 'product.png', type: 'image/png', bytes: await productImage(B) },
      { name: 'banner.jpg', type: 'image/jpeg', bytes: await bannerImage(B) },
      { name: 'logo.png', type: 'image/png', bytes: await logoImage(B), isLogo: true },
    ]);
    assets = { pdf: pdf!, product: product!, banner: banner!, logo: logo! };
    [otherAsset] = (await uploadCompleteAssets(t, otherKey, otherBrandId, [
      { name: 'x.png', type: 'image/png', bytes: await productImage(BRANDS[1]!) },
    ])) as [string];
  });
  afterAll(async () => {
    await t?.close();
    await sites?.close();
  });

  it('creates a version pending, extracts it to ready with a DNA that matches the sources', async () => {
    const before = await usedExtractions(orgA);
    const res = await create({
      name: 'Launch kit',
      assetIds: [assets.pdf, assets.product, assets.banner, assets.logo],
      urls: [sites.urlOf(B.slug)],
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.status).toBe('success');
    const s = body.data;
    expect(s).toMatchObject({
      versionNumber: 1,
      name: 'Launch kit',
      isActive: false,
      status: 'pending',
      confidenceScore: 0,
      missingFields: [],
    });
    expect(s.preview).toEqual({
      colorHexes: [],
      typographyShort: '',
      toneShort: '',
      topValues: [],
      sourceCounts: { pdf: 1, image: 3, video: 0, url: 1, font: 0, document: 0 },
    });
    expect(s).not.toHaveProperty('dna');
    expect(await usedExtractions(orgA)).toBe(before + 1);

    const v = await settle(s.versionId);
    expect(v.status, JSON.stringify(v.sources)).toBe('ready');
    readyA = v;
    expect(v.sources).toHaveLength(5);
    for (const src of v.sources) {
      expect(src.status, JSON.stringify(src)).toBe('completed');
      expect(src).not.toHaveProperty('errorReason');
    }
    const pdfSource = v.sources.find((x: Json) => x.type === 'pdf');
    expect(pdfSource).toMatchObject({ assetId: assets.pdf, label: 'guidelines.pdf', pageCount: 5 });
    expect(v.sources.find((x: Json) => x.type === 'url')).toMatchObject({ url: sites.urlOf(B.slug) });
    expect(checkDna.Check(v.dna), JSON.stringify([...checkDna.Errors(v.dna)].slice(0, 3))).toBe(true);
    const dna = v.dna;
    // Explicit guideline colours, confirmed by the site and the images.
    const [p, sec, acc] = dna.visual.palette;
    expect(p.role).toBe('primary');
    expect(deltaEHex(p.hex, B.truth.palette[0])).toBeLessThan(2);
    expect(sec.role).toBe('secondary');
    expect(deltaEHex(sec.hex, B.truth.palette[1])).toBeLessThan(2);
    expect(acc.role).toBe('accent');
    expect(p.sources.length).toBeGreaterThanOrEqual(3);
    expect(dna.visual.typography.heading.family).toBe(B.truth.heading);
    expect(dna.visual.typography.body.family).toBe(B.truth.body);
    expect(dna.visual.logos[0]).toMatchObject({ asset_id: assets.logo });
    expect(dna.voice.tone[0].tone).toBe(B.truth.tones[0]);
    expect(dna.identity.brand_name.value).toBe(B.name);
    expect(dna.identity.mission.value).toBe(B.mission);
    expect(dna.identity.values.map((x: Json) => x.value)).toEqual(expect.arrayContaining(B.values.slice(1)));
    // Every provenance entry names a source of this version, or the brand itself.
    const ids = new Set([...v.sources.map((x: Json) => x.id), 'brand']);
    const provenance = JSON.stringify(dna).match(/"sources":\[[^\]]*\]/g) ?? [];
    for (const list of provenance) for (const id of JSON.parse(`{${list}}`).sources) expect(ids.has(id)).toBe(true);
    expect(v.confidenceScore).toBeGreaterThan(0.8);
    expect(v.confidenceScore).toBeLessThanOrEqual(1);
    expect(Array.isArray(v.missingFields)).toBe(true);
    expect(v.preview.colorHexes[0]).toBe(p.hex);
    expect(v.preview.typographyShort).toBe(`${B.truth.heading} / ${B.truth.body}`);
    expect(v.preview.toneShort.split(', ')[0]).toBe(B.truth.tones[0]);
    expect(v.preview.topValues.length).toBeGreaterThan(0);
    expect(Date.parse(v.updatedAt)).toBeGreaterThan(Date.parse(s.updatedAt));
    expect(await usedExtractions(orgA)).toBe(before + 1); // committed, not given back
  });

  it('has no active version until one is activated; the legacy view says none', async () => {
    expectError(await req('GET', `${base()}/active`), 404, 'VERSION_NOT_FOUND');
    const legacy = await req('GET', `/v1/brands/${brandId}/dna`);
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json()).toEqual({
      status: 'success',
      data: { brandId, status: 'none', version: 0, brandDna: {}, sourceAssetIds: [] },
    });
    expect((await req('GET', `/v1/brands/${brandId}`)).json().brandDnaStatus).toBe('none');
  });

  it('activates only ready versions, idempotently, and mirrors onto the brand and the legacy view', async () => {
    const brandBefore = await req('GET', `/v1/brands/${brandId}`);
    const act = await req('POST', `${base()}/versions/${readyA.versionId}/activate`);
    expect(act.statusCode, act.body).toBe(200);
    expect(act.json().data).toMatchObject({ versionId: readyA.versionId, isActive: true, status: 'ready' });
    const again = await req('POST', `${base()}/versions/${readyA.versionId}/activate`);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.updatedAt).toBe(act.json().data.updatedAt);

    const brand = await req('GET', `/v1/brands/${brandId}`);
    expect(brand.json().brandDnaStatus).toBe('ready');
    expect(brand.headers.etag).not.toBe(brandBefore.headers.etag);
    const legacy = (await req('GET', `/v1/brands/${brandId}/dna`)).json().data;
    expect(legacy).toMatchObject({ brandId, status: 'ready', version: 1 });
    expect(legacy.brandDna).toEqual(readyA.dna);
    expect(legacy.sourceAssetIds.sort()).toEqual(Object.values(assets).sort());
    const active = await req('GET', `${base()}/active`);
    expect(active.statusCode).toBe(200);
    expect(active.json().data).toMatchObject({ versionId: readyA.versionId, isActive: true });
    expect(active.json().data.dna).toEqual(readyA.dna);
    const forGeneration = await t.deps.brandDna.getActiveDna(brandId, orgA);
    expect(forGeneration).toMatchObject({ versionId: readyA.versionId, versionNumber: 1, dna: readyA.dna });
    expect(await t.deps.brandDna.getActiveDna(brandId, randomUUID())).toBeUndefined();
  });

  it('lists versions newest first without the payload; a second activation moves the pointer', async () => {
    const res = await create({ urls: [sites.urlOf(B.slug)] });
    const v2 = res.json().data;
    expect(v2.versionNumber).toBe(2);
    expectError(await req('POST', `${base()}/versions/${v2.versionId}/activate`), 409, 'INVALID_STATUS_FOR_ACTION');
    const list = await req('GET', `${base()}/versions`);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((x: Json) => x.versionNumber)).toEqual([2, 1]);
    for (const x of list.json().data) {
      expect(x).not.toHaveProperty('dna');
      expect(x).not.toHaveProperty('sources');
    }
    expect((await settle(v2.versionId)).status).toBe('ready');
    expect((await req('POST', `${base()}/versions/${v2.versionId}/activate`)).statusCode).toBe(200);
    const [first, second] = (await req('GET', `${base()}/versions`)).json().data;
    expect(first).toMatchObject({ versionNumber: 2, isActive: true });
    expect(second).toMatchObject({ versionNumber: 1, isActive: false });
    expect((await req('GET', `/v1/brands/${brandId}/dna`)).json().data.version).toBe(2);

    // The active version cannot be deleted; another one can, and then it is gone.
    expectError(await req('DELETE', `${base()}/versions/${v2.versionId}`), 409, 'ACTIVE_VERSION_DELETE_FORBIDDEN');
    const findings = await t.deps.db.kysely
      .selectFrom('brand_dna_sources')
      .select('findings_key')
      .where('version_id', '=', readyA.versionId)
      .execute();
    expect(findings).toHaveLength(5);
    for (const f of findings) expect(await t.deps.storage.head(f.findings_key!)).toBeDefined();
    const del = await req('DELETE', `${base()}/versions/${readyA.versionId}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectError(await get(readyA.versionId), 404, 'VERSION_NOT_FOUND');
    expectError(await req('DELETE', `${base()}/versions/${readyA.versionId}`), 404, 'VERSION_NOT_FOUND');
    for (const f of findings) expect(await t.deps.storage.head(f.findings_key!)).toBeUndefined();
    // Put v1's place back for the later tests: v2 is the ready, active version.
    readyA = (await get(v2.versionId)).json().data;
  });

  it('updates name and dna with updatedAt as the concurrency token', async () => {
    const v = readyA;
    const url = `${base()}/versions/${v.versionId}`;
    expectError(await req('PUT', url, { name: 'x' }), 400, 'INVALID_REQUEST'); // no updatedAt
    expectError(await req('PUT', url, { updatedAt: v.updatedAt }), 400, 'INVALID_REQUEST'); // neither name nor dna
    expectError(await req('PUT', url, { name: 'x'.repeat(201), updatedAt: v.updatedAt }), 400, 'INVALID_REQUEST');
    expectError(
      await req('PUT', url, { name: 'x', confidenceScore: 1, updatedAt: v.updatedAt }),
      400,
      'INVALID_REQUEST',
    );
    expectError(await req('PUT', url, { name: 'x', updatedAt: 'yesterday' }), 400, 'INVALID_REQUEST');
    const badHex = structuredClone(v.dna);
    badHex.visual.palette[0].hex = 'blue';
    const bad = await req('PUT', url, { dna: badHex, updatedAt: v.updatedAt });
    expectError(bad, 400, 'INVALID_REQUEST');
    expect(bad.json().error.details.fields[0].field).toBe('body.dna.visual.palette.0.hex');
    const badTone = structuredClone(v.dna);
    badTone.voice.tone = [{ tone: 'Grumpy', weight: 1, sources: [] }];
    expectError(await req('PUT', url, { dna: badTone, updatedAt: v.updatedAt }), 400, 'INVALID_REQUEST');
    const dupTone = structuredClone(v.dna);
    dupTone.voice.tone = [
      { tone: 'Friendly', weight: 0.5, sources: ['manual'] },
      { tone: 'Friendly', weight: 0.5, sources: ['manual'] },
    ];
    expectError(await req('PUT', url, { dna: dupTone, updatedAt: v.updatedAt }), 400, 'INVALID_REQUEST');
    const foreignLogo = structuredClone(v.dna);
    foreignLogo.visual.logos = [{ asset_id: otherAsset, sources: ['manual'] }];
    expectError(await req('PUT', url, { dna: foreignLogo, updatedAt: v.updatedAt }), 403, 'ASSET_NOT_OWNED');
    expectError(await req('PUT', url, { name: 'a\u0000b', updatedAt: v.updatedAt }), 400, 'INVALID_REQUEST');

    const renamed = await req('PUT', url, { name: 'Renamed', updatedAt: v.updatedAt });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const r = renamed.json().data;
    expect(r).toMatchObject({ name: 'Renamed', preview: v.preview, confidenceScore: v.confidenceScore });
    expect(Date.parse(r.updatedAt)).toBeGreaterThan(Date.parse(v.updatedAt));
    // The old token is stale now.
    const stale = await req('PUT', url, { name: 'Again', updatedAt: v.updatedAt });
    expectError(stale, 409, 'STALE_UPDATE');
    expect(stale.json().error.details.currentUpdatedAt).toBe(r.updatedAt);

    const edited = structuredClone(v.dna);
    edited.visual.palette = [{ hex: '#123456', role: 'primary', share: 1, sources: ['manual'] }];
    edited.voice.tone = [{ tone: 'Luxurious', weight: 1, sources: ['manual'] }];
    edited.identity.values = [{ value: 'Thrift', sources: ['manual'] }];
    const put = await req('PUT', url, { dna: edited, name: null, updatedAt: r.updatedAt });
    expect(put.statusCode, put.body).toBe(200);
    const after = put.json().data;
    expect(after).not.toHaveProperty('name');
    expect(after.preview).toMatchObject({ colorHexes: ['#123456'], toneShort: 'Luxurious', topValues: ['Thrift'] });
    expect(after.preview.sourceCounts).toEqual(v.preview.sourceCounts);
    expect(after.confidenceScore).toBe(v.confidenceScore);
    expect(after.missingFields).toEqual(v.missingFields);
    const read = (await get(v.versionId)).json().data;
    expect(read.dna).toEqual(edited);
    expect((await req('GET', `/v1/brands/${brandId}/dna`)).json().data.brandDna).toEqual(edited);
    readyA = read;
  });

  it('lets exactly one of several concurrent writers with the same updatedAt win', async () => {
    const v = readyA;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        req('PUT', `${base()}/versions/${v.versionId}`, { name: `writer ${i}`, updatedAt: v.updatedAt }),
      ),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().error.code).toBe('STALE_UPDATE');
    const winner = results.find((r) => r.statusCode === 200)!.json().data;
    const now = (await get(v.versionId)).json().data;
    expect(now.name).toBe(winner.name);
    expect(now.updatedAt).toBe(winner.updatedAt);
    readyA = now;
  });

  it('reruns a ready active version: sources replaced, number and activity kept, brand mirrors each status', async () => {
    const v = readyA;
    expectError(await req('POST', `${base()}/versions/${v.versionId}/rerun`, {}), 400, 'NO_SOURCES');
    expectError(await req('POST', `${base()}/versions/${v.versionId}/rerun`), 400, 'NO_SOURCES');
    expectError(
      await req('POST', `${base()}/versions/${v.versionId}/rerun`, { assetIds: [otherAsset] }),
      403,
      'ASSET_NOT_OWNED',
    );
    // The page of the new run answers only when the test says so: the run stays `extracting`.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    sites.routes.set('/gated/', async (_req: http.IncomingMessage, res: http.ServerResponse) => {
      await gate;
      res.writeHead(200, { 'content-type': 'text/html' }).end(siteHtml(B));
    });
    const before = await usedExtractions(orgA);
    const res = await req('POST', `${base()}/versions/${v.versionId}/rerun`, {
      assetIds: [assets.product, assets.pdf],
      urls: [`${sites.origin}/gated/`],
    });
    expect(res.statusCode, res.body).toBe(202);
    const s = res.json().data;
    expect(s).toMatchObject({
      versionId: v.versionId,
      versionNumber: v.versionNumber,
      isActive: true,
      status: 'pending',
    });
    expect(s.name).toBe(v.name);
    expect(s.preview.sourceCounts).toMatchObject({ pdf: 1, image: 1, url: 1 });
    expect(await usedExtractions(orgA)).toBe(before + 1);
    // While it runs, the active version has no DNA and the brand shows its status.
    const during = await eventually(async () => {
      const a = (await req('GET', `${base()}/active`)).json().data;
      return a.status === 'extracting' ? a : undefined;
    }, 'the rerun to be extracting');
    expect(during.dna).toBeNull();
    expect((await req('GET', `/v1/brands/${brandId}`)).json().brandDnaStatus).toBe('extracting');
    expect((await req('GET', `/v1/brands/${brandId}/dna`)).json().data).toMatchObject({
      status: 'extracting',
      brandDna: {},
    });
    expect(await t.deps.brandDna.getActiveDna(brandId, orgA)).toBeUndefined();
    const url = `${base()}/versions/${v.versionId}`;
    expectError(await req('POST', `${url}/rerun`, { assetIds: [assets.pdf] }), 409, 'INVALID_STATUS_FOR_ACTION');
    expectError(await req('POST', `${url}/activate`), 409, 'INVALID_STATUS_FOR_ACTION');
    expectError(await req('PUT', url, { dna: v.dna, updatedAt: during.updatedAt }), 409, 'INVALID_STATUS_FOR_ACTION');
    // Cancel deletes, and the active version cannot be deleted.
    expectError(await req('POST', `${url}/cancel`), 409, 'ACTIVE_VERSION_DELETE_FORBIDDEN');
    expectError(await req('DELETE', url), 409, 'ACTIVE_VERSION_DELETE_FORBIDDEN');
    open();
    const done = await settle(v.versionId);
    expect(done.status).toBe('ready');
    expect(done.isActive).toBe(true);
    expect(done.versionNumber).toBe(v.versionNumber);
    sites.routes.delete('/gated/');
    expect(done.sources.map((x: Json) => x.type).sort()).toEqual(['image', 'pdf', 'url']);
    expect(done.sources.map((x: Json) => x.id)).not.toContain(v.sources[0].id);
    expect(done.dna.visual.palette[0].hex).not.toBe('#123456'); // the edit is replaced by the new run
    expect((await req('GET', `/v1/brands/${brandId}`)).json().brandDnaStatus).toBe('ready');
    expect((await req('GET', `/v1/brands/${brandId}/dna`)).json().data.sourceAssetIds.sort()).toEqual(
      [assets.product, assets.pdf].sort(),
    );
    readyA = done;
  });

  it('cancels a running extraction: the version is deleted, the job stops, the unit is given back', async () => {
    let aborted = false;
    let started = false;
    sites.routes.set('/slow/', (req: http.IncomingMessage, res: http.ServerResponse) => {
      started = true;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><html><head><title>Slow');
      req.on('close', () => {
        aborted = true;
      });
    });
    const before = await usedExtractions(orgA);
    // An image that completes (its findings are stored) and four pages that hang, three sources
    // at a time: the last page waits `queued`.
    const res = await create({
      assetIds: [assets.product],
      urls: [1, 2, 3, 4].map((i) => `${sites.origin}/slow/?n=${i}`),
    });
    const s = res.json().data;
    const running = await eventually(async () => {
      const v = (await get(s.versionId)).json().data;
      const processing = v.sources.filter((x: Json) => x.status === 'processing').length;
      const imageDone = v.sources[0].status === 'completed';
      return v.status === 'extracting' && imageDone && processing === 3 && started ? v : undefined;
    }, 'the extraction to be running');
    expect(running.sources.map((x: Json) => x.status)).toEqual([
      'completed',
      'processing',
      'processing',
      'processing',
      'queued',
    ]);
    expect(running.sources[1].progressNote).toBeTruthy();
    expect(running.dna).toBeNull();
    // Metadata may change while it runs; the DNA may not.
    const named = await req('PUT', `${base()}/versions/${s.versionId}`, {
      name: 'Slow one',
      updatedAt: running.updatedAt,
    });
    expect(named.statusCode, named.body).toBe(200);
    expectError(await req('POST', `${base()}/versions/${readyA.versionId}/cancel`), 409, 'INVALID_STATUS_FOR_ACTION');
    const cancel = await req('POST', `${base()}/versions/${s.versionId}/cancel`);
    expect(cancel.statusCode, cancel.body).toBe(204);
    expectError(await get(s.versionId), 404, 'VERSION_NOT_FOUND');
    expectError(await req('POST', `${base()}/versions/${s.versionId}/cancel`), 404, 'VERSION_NOT_FOUND');
    expect(await usedExtractions(orgA)).toBe(before);
    // The running job notices and drops its fetches; nothing of the run is left in storage.
    await eventually(async () => (aborted ? true : undefined), 'the page fetch to be aborted', 10_000);
    expect(await t.deps.storage.deletePrefix(`orgs/${orgA}/brand-dna/${s.versionId}/`)).toBe(0);
    sites.routes.delete('/slow/');
  });

  it('fails a version whose every source fails, with each source’s reason, and gives the unit back', async () => {
    const before = await usedExtractions(orgA);
    const res = await create({ urls: [`${sites.origin}/missing/`, `${sites.origin}/also-missing/`] });
    const v = await settle(res.json().data.versionId);
    expect(v.status).toBe('failed');
    expect(v.dna).toBeNull();
    for (const s of v.sources) {
      expect(s.status).toBe('failed');
      expect(s.errorReason).toMatch(/404/);
    }
    expect(await usedExtractions(orgA)).toBe(before);
    expectError(await req('POST', `${base()}/versions/${v.versionId}/activate`), 409, 'INVALID_STATUS_FOR_ACTION');
    expectError(await req('POST', `${base()}/versions/${v.versionId}/cancel`), 409, 'INVALID_STATUS_FOR_ACTION');
    // A failed version can be rerun, and deleted.
    const rerun = await req('POST', `${base()}/versions/${v.versionId}/rerun`, { urls: [sites.urlOf(B.slug)] });
    expect(rerun.statusCode).toBe(202);
    expect((await settle(v.versionId)).status).toBe('ready');
    expect((await req('DELETE', `${base()}/versions/${v.versionId}`)).statusCode).toBe(204);
  });

  it('fails only the source whose asset file has gone, and keeps what the others found', async () => {
    const [doomed] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'doomed.png', type: 'image/png', bytes: await productImage(B) },
    ]);
    const row = await t.deps.db.kysely
      .selectFrom('assets')
      .select('storage_key')
      .where('id', '=', doomed!)
      .executeTakeFirstOrThrow();
    await t.deps.storage.delete(row.storage_key);
    const res = await create({ assetIds: [doomed, assets.banner] });
    const v = await settle(res.json().data.versionId);
    expect(v.status).toBe('ready');
    expect(v.sources.map((s: Json) => [s.assetId, s.status])).toEqual([
      [doomed, 'failed'],
      [assets.banner, 'completed'],
    ]);
    expect(v.sources[0].errorReason).toMatch(/missing from storage/);
    expect(v.dna.visual.palette.every((p: Json) => p.sources.every((id: string) => id === v.sources[1].id))).toBe(true);
    expect((await req('DELETE', `${base()}/versions/${v.versionId}`)).statusCode).toBe(204);
  });

  it('refuses bad create bodies: NO_SOURCES, invalid fields, foreign or unfinished assets', async () => {
    expectError(await create({}), 400, 'NO_SOURCES');
    expectError(await create({ assetIds: [], urls: [] }), 400, 'NO_SOURCES');
    expectError(await create(undefined), 400, 'NO_SOURCES');
    expectError(await create({ name: 'only a name' }), 400, 'NO_SOURCES');
    for (const body of [
      { urls: ['ftp://example.com/x'] },
      { urls: ['not a url'] },
      { urls: ['https://user:pw@example.com/'] },
      { urls: Array.from({ length: 21 }, (_, i) => `https://example.com/${i}`) },
      { assetIds: ['nope'] },
      { assetIds: Array.from({ length: 21 }, () => randomUUID()) },
      { urls: [sites.urlOf(B.slug)], name: 'n'.repeat(201) },
      { urls: [sites.urlOf(B.slug)], extra: true },
      { urls: sites.urlOf(B.slug) },
      [sites.urlOf(B.slug)],
    ]) {
      expectError(await create(body), 400, 'INVALID_REQUEST');
    }
    const foreign = await create({ assetIds: [otherAsset] });
    expectError(foreign, 403, 'ASSET_NOT_OWNED');
    expect(foreign.json().error.details.assetIds).toEqual([otherAsset]);
    expectError(await create({ assetIds: [MISSING] }), 403, 'ASSET_NOT_OWNED');
    const unfinished = await uploadingAsset(t, key, brandId, {
      name: 'late.png',
      type: 'image/png',
      bytes: Buffer.alloc(10),
    });
    const notReady = await create({ assetIds: [unfinished] });
    expectError(notReady, 422, 'ASSET_NOT_READY');
    expect(notReady.json().error.details).toEqual({ assetId: unfinished, status: 'uploading' });
  });

  it('scopes everything to the organization: another brand is 404, another version is 404', async () => {
    const v = readyA.versionId;
    const routes: [string, string, unknown?][] = [
      ['GET', `${base(otherBrandId)}/versions`],
      ['POST', `${base(otherBrandId)}/versions`, { urls: [sites.urlOf(B.slug)] }],
      ['GET', `${base(otherBrandId)}/active`],
      ['GET', `${base(otherBrandId)}/versions/${v}`],
      ['PUT', `${base(otherBrandId)}/versions/${v}`, { name: 'x', updatedAt: readyA.updatedAt }],
      ['DELETE', `${base(otherBrandId)}/versions/${v}`],
      ['POST', `${base(otherBrandId)}/versions/${v}/activate`],
      ['POST', `${base(otherBrandId)}/versions/${v}/cancel`],
      ['POST', `${base(otherBrandId)}/versions/${v}/rerun`, { urls: [sites.urlOf(B.slug)] }],
      ['GET', `/v1/brands/${otherBrandId}/dna`],
    ];
    for (const [method, url, body] of routes) expectError(await req(method, url, body), 404, 'BRAND_NOT_FOUND');
    // Org B sees none of org A's versions, even through its own brand.
    expectError(await req('GET', `${base(otherBrandId)}/versions/${v}`, undefined, otherKey), 404, 'VERSION_NOT_FOUND');
    expectError(await req('GET', `${base()}/versions/${v}`, undefined, otherKey), 404, 'BRAND_NOT_FOUND');
    // Another brand of the same organization does not own the version either.
    const sibling = await createBrand(t, key, 'Sibling');
    for (const [method, suffix, body] of [
      ['GET', ''],
      ['PUT', '', { name: 'x', updatedAt: readyA.updatedAt }],
      ['DELETE', ''],
      ['POST', '/activate'],
      ['POST', '/cancel'],
      ['POST', '/rerun', { urls: [sites.urlOf(B.slug)] }],
    ] as [string, string, unknown?][]) {
      expectError(await req(method, `${base(sibling)}/versions/${v}${suffix}`, body), 404, 'VERSION_NOT_FOUND');
    }
    expectError(await req('GET', `${base(MISSING)}/versions`), 404, 'BRAND_NOT_FOUND');
    expectError(await req('GET', `${base()}/versions/${MISSING}`), 404, 'VERSION_NOT_FOUND');
    expectError(await req('GET', `${base()}/versions/not-a-uuid`), 400, 'INVALID_REQUEST');
  });

  it('answers 403 on every Brand DNA route, reads included, for a plan without brand_dna', async () => {
    const freeBrand = await createBrand(t, freeKey, 'Free brand');
    const v = randomUUID();
    const b = `/v1/brands/${freeBrand}/brand-dna`;
    const routes: [string, string, unknown?][] = [
      ['GET', `${b}/versions`],
      ['POST', `${b}/versions`, { urls: ['https://example.com/'] }],
      ['GET', `${b}/active`],
      ['GET', `${b}/versions/${v}`],
      ['PUT', `${b}/versions/${v}`, { name: 'x', updatedAt: new Date().toISOString() }],
      ['DELETE', `${b}/versions/${v}`],
      ['POST', `${b}/versions/${v}/activate`],
      ['POST', `${b}/versions/${v}/cancel`],
      ['POST', `${b}/versions/${v}/rerun`, { urls: ['https://example.com/'] }],
      ['GET', `/v1/brands/${freeBrand}/dna`],
    ];
    for (const [method, url, body] of routes) {
      const res = await req(method, url, body, freeKey);
      expectError(res, 403, 'FORBIDDEN');
      expect(res.json().error.details.feature).toBe('brand_dna');
    }
    for (const [method, url] of routes)
      expect((await t.request({ method: method as 'GET', url })).statusCode).toBe(401);
  });

  it('needs brand-dna:write for changes (viewers read), and a plan with units left', async () => {
    const viewer = await t.deps.access.addUser({ organizationId: orgA, name: 'Viewer', role: 'viewer' });
    const viewerKey = (await t.deps.access.createKey({ userId: viewer.id, name: 'v' })).token;
    expect((await req('GET', `${base()}/versions`, undefined, viewerKey)).statusCode).toBe(200);
    expectError(await create({ urls: [sites.urlOf(B.slug)] }, brandId, viewerKey), 403, 'FORBIDDEN');

    const pro = await t.bootstrap({ orgName: 'Pro org', plan: 'pro' });
    await t.deps.access.setOverrides(pro.organizationId, { pools: { brand_dna_extractions: 1 } });
    const proBrand = await createBrand(t, pro.apiKey, 'Pro brand');
    // The first run's page answers only once the second create was refused: a run that failed
    // already would have given its unit back.
    let answer!: () => void;
    const asked = new Promise<void>((resolve) => {
      answer = resolve;
    });
    sites.routes.set('/held/', (_req, res) => void asked.then(() => res.writeHead(404).end('not found')));
    const first = await create({ urls: [`${sites.origin}/held/`] }, proBrand, pro.apiKey);
    expect(first.statusCode).toBe(200);
    const second = await create({ urls: [`${sites.origin}/missing/`] }, proBrand, pro.apiKey);
    expectError(second, 403, 'QUOTA_EXCEEDED');
    expect(second.json().error.details.pool).toBe('brand_dna_extractions');
    answer();
    sites.routes.delete('/held/');
    // The failed run gives its unit back, so the next create is accepted.
    await settle(first.json().data.versionId, proBrand, pro.apiKey);
    expect((await create({ urls: [`${sites.origin}/missing/`] }, proBrand, pro.apiKey)).statusCode).toBe(200);
  });

  it('publishes the DNA payload schema in the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    const put = doc.paths['/v1/brands/{brandId}/brand-dna/versions/{versionId}'].put;
    const body = put.requestBody.content['application/json'].schema;
    expect(body.properties.dna.title).toBe('BrandDna');
    expect(Object.keys(body.properties.dna.properties)).toEqual(['schema_version', 'identity', 'voice', 'visual']);
    const rerun = doc.paths['/v1/brands/{brandId}/brand-dna/versions/{versionId}/rerun'].post;
    expect(Object.keys(rerun.responses)).toContain('202');
    expect(doc.paths['/v1/brands/{brandId}/dna'].get.responses['200']).toBeDefined();
  });
});

describe.each(dbKinds())('Brand DNA versions that stay pending (no workers) (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let brandId: string;
  beforeAll(async () => {
    t = await createTestApp(kind); // workers never started: every version stays `pending`
    const a = await t.bootstrap();
    key = a.apiKey;
    orgId = a.organizationId;
    brandId = await createBrand(t, key);
  });
  afterAll(async () => t?.close());

  const url = (suffix = '') => `/v1/brands/${brandId}/brand-dna/versions${suffix}`;
  const used = async () => (await t.deps.usage.periodUsage(orgId)).used.brand_dna_extractions;

  it('keeps a pending version queued; refuses activate, rerun and DNA edits; cancel and delete free its unit', async () => {
    const created = await t.request({ method: 'POST', url: url(), key, payload: { urls: ['https://brand.example/'] } });
    expect(created.statusCode).toBe(200);
    const id = created.json().data.versionId;
    const v = (await t.request({ method: 'GET', url: url(`/${id}`), key })).json().data;
    expect(v).toMatchObject({ status: 'pending', dna: null, isActive: false });
    expect(v.sources).toEqual([
      {
        id: expect.any(String),
        type: 'url',
        label: 'https://brand.example/',
        url: 'https://brand.example/',
        status: 'queued',
      },
    ]);
    expect(await used()).toBe(1);
    for (const [method, suffix, payload] of [
      ['POST', `/${id}/activate`, undefined],
      ['POST', `/${id}/rerun`, { urls: ['https://brand.example/'] }],
      ['PUT', `/${id}`, { dna: mergeFindings([]).dna, updatedAt: v.updatedAt }],
    ] as const) {
      const res = await t.request({ method, url: url(suffix), key, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${suffix}: ${res.body}`).toBe(409);
      expect(res.json().error.code).toBe('INVALID_STATUS_FOR_ACTION');
    }
    expect(await used()).toBe(1); // the refused rerun reserved nothing lasting
    const cancel = await t.request({ method: 'POST', url: url(`/${id}/cancel`), key });
    expect(cancel.statusCode).toBe(204);
    expect(await used()).toBe(0);
    expect((await t.request({ method: 'GET', url: url(`/${id}`), key })).statusCode).toBe(404);

    const other = (
      await t.request({ method: 'POST', url: url(), key, payload: { urls: ['https://brand.example/'] } })
    ).json().data.versionId;
    expect(await used()).toBe(1);
    expect((await t.request({ method: 'DELETE', url: url(`/${other}`), key })).statusCode).toBe(204);
    expect(await used()).toBe(0);
    expect((await t.request({ method: 'GET', url: url(), key })).json().data).toEqual([]);
  });
});

import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/clock.ts';
import { openObjectStorage } from '../src/adapters/storage/storage.ts';
import type { ObjectStorage } from '../src/adapters/storage/storage.port.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { orgWithBrand, sleep } from './helpers/extraction.ts';
import { type FixtureSite, SIZES, startFixtureSite } from './extraction-site.ts';

interface Candidate {
  candidateId: string;
  mediaType: string;
  width?: number;
  height?: number;
  fileType?: string;
  relevanceScore: number;
  relevanceReason: string;
  rank: number;
  kept: boolean;
  looksLikeLogo: boolean;
  committedAssetId?: string;
  previewUrl?: string;
  rejectionCode?: string;
  rejectionReason?: string;
}
interface Extraction {
  extractionId: string;
  status: string;
  purpose?: string;
  media: string;
  truncated: number;
  errorCode?: string;
  errorMessage?: string;
  candidates?: Candidate[];
}

const sizeOf = (c: Candidate) => `${c.width}x${c.height}`;
const size = (s: readonly [number, number]) => `${s[0]}x${s[1]}`;

/** Slow pages for the delete-while-running test. */
function slowRoutes(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.url === '/slow') {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><img src="/img/mug-side.jpg" alt="Blue Ceramic Mug"></body></html>');
    }, 1200);
    return true;
  }
  if (req.url === '/data.json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"not":"html"}');
    return true;
  }
  return false;
}

/** Local storage whose `getStream` can be told to refuse one key once (a storage hiccup mid-commit). */
function flakyStorage(dir: string, refuseOnce: Set<string>): ObjectStorage {
  const base = openObjectStorage(loadConfig({ ATELIER_DATA_DIR: dir, LOG_LEVEL: 'silent' }), systemClock);
  return new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'getStream') {
        return async (key: string, range?: { start: number; end: number }) => {
          if (refuseOnce.delete(key)) throw new Error('storage refused the read');
          return target.getStream(key, range);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describe.each(dbKinds())('URL extraction over HTTP (%s)', (kind) => {
  let t: TestApp;
  let site: FixtureSite;
  let key: string;
  let otherKey: string;
  let brandId: string;
  let storageDir: string;
  const refuseOnce = new Set<string>();

  beforeAll(async () => {
    site = await startFixtureSite(slowRoutes);
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-extraction-storage-'));
    t = await createTestApp(kind, {
      env: { ATELIER_ALLOW_PRIVATE_FETCH: '1' },
      storage: flakyStorage(storageDir, refuseOnce),
    });
    await t.deps.startWorkers();
    ({ key, brandId } = await orgWithBrand(t));
    otherKey = (await t.bootstrap({ orgName: 'Other' })).apiKey;
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    if (storageDir) fs.rmSync(storageDir, { recursive: true, force: true });
  });

  async function submit(body: Record<string, unknown>, k = key) {
    return t.request({ method: 'POST', url: '/v1/assets/extract-from-url', key: k, payload: body });
  }
  async function read(id: string, includeRejected = false, k = key) {
    const res = await t.request({
      method: 'GET',
      url: `/v1/assets/extract-from-url/${id}${includeRejected ? '?includeRejected=true' : ''}`,
      key: k,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Extraction;
  }
  async function waitDone(id: string): Promise<Extraction> {
    for (let i = 0; i < 400; i++) {
      const x = await read(id);
      if (x.status === 'completed' || x.status === 'failed') return x;
      await sleep(50);
    }
    throw new Error(`extraction ${id} did not finish`);
  }
  async function extract(purpose: string | null, url = `${site.origin}/product`): Promise<Extraction> {
    const res = await submit({ url, brandId, purpose });
    expect(res.statusCode, res.body).toBe(202);
    return waitDone(res.json().extractionId);
  }
  const commit = (id: string, payload?: unknown, k = key) =>
    t.request({
      method: 'POST',
      url: `/v1/assets/extract-from-url/${id}/commit`,
      key: k,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  let general: Extraction;
  let generalAll: Extraction;

  it('submit answers 202 pending without a candidates key, then the run completes', async () => {
    const res = await submit({ url: `${site.origin}/product`, brandId, purpose: null });
    expect(res.statusCode, res.body).toBe(202);
    const body = res.json();
    expect(body).toMatchObject({ status: 'pending', media: 'both', truncated: 0, brandId });
    expect(body.extractionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).not.toHaveProperty('candidates');
    expect(body).not.toHaveProperty('purpose'); // null is omitted, not sent
    expect(body).not.toHaveProperty('errorCode');
    general = await waitDone(body.extractionId);
    expect(general.status).toBe('completed');
    expect(general).not.toHaveProperty('errorCode');
    expect(general.truncated).toBe(0);
    generalAll = await read(body.extractionId, true);
  });

  it('finds pictures from every discovery source, measured, with fresh preview links', async () => {
    const sizes = general.candidates!.map(sizeOf);
    // img+srcset (largest rendition), lazy data-src, picture/source (WebP), og:image + JSON-LD,
    // CSS background from the linked style sheet, video poster, icon, inline SVG logo.
    for (const s of [
      SIZES.main,
      SIZES.side,
      SIZES.top,
      SIZES.living,
      SIZES.banner,
      SIZES.poster,
      SIZES.favicon,
      SIZES.logo,
    ]) {
      expect(sizes, size(s)).toContain(size(s));
    }
    for (const c of general.candidates!) {
      expect(c.mediaType).toBe('image');
      expect(c).not.toHaveProperty('rejectionCode');
      expect(c).not.toHaveProperty('durationSeconds');
      expect(c.previewUrl).toBeTruthy();
      expect(c.relevanceReason.length).toBeGreaterThan(5);
    }
    expect(general.candidates!.map((c) => c.rank)).toEqual(general.candidates!.map((_, i) => i + 1));
    const top = general.candidates![0]!;
    expect(sizeOf(top)).toBe(size(SIZES.main));
    expect(top.kept).toBe(true);
    // WebP is committed as JPEG; the inline SVG logo was rasterised to PNG.
    expect(general.candidates!.find((c) => sizeOf(c) === size(SIZES.top))!.fileType).toBe('image/jpeg');
    const logo = general.candidates!.find((c) => sizeOf(c) === size(SIZES.logo))!;
    expect(logo).toMatchObject({ fileType: 'image/png', looksLikeLogo: true });
    expect(top.looksLikeLogo).toBe(false);

    const preview = await t.request({
      method: 'GET',
      url: new URL(logo.previewUrl!).pathname + new URL(logo.previewUrl!).search,
    });
    expect(preview.statusCode).toBe(200);
    const meta = await sharp(preview.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', ...SIZES.logo]);
    // Fresh links on every read, still pointing at the same staged copy.
    const again = await read(general.extractionId);
    expect(new URL(again.candidates![0]!.previewUrl!).pathname).toBe(new URL(top.previewUrl!).pathname);
  });

  it('shows rejected candidates with their reasons only with includeRejected=true', async () => {
    const rejected = generalAll.candidates!.filter((c) => c.rejectionCode);
    const byCode = (code: string) => rejected.filter((c) => c.rejectionCode === code);
    expect(byCode('duplicate').map(sizeOf).sort()).toEqual([size(SIZES.main), size(SIZES.thumb)].sort());
    expect(byCode('too-small').map(sizeOf)).toEqual([size(SIZES.tiny)]);
    expect(byCode('tracking-pixel')).toHaveLength(1);
    expect(byCode('undecodable')).toHaveLength(1);
    expect(byCode('unsupported-format')).toHaveLength(1);
    expect(byCode('download-failed')).toHaveLength(1);
    for (const c of rejected) {
      expect(c.kept).toBe(false);
      expect(c.rejectionReason, c.rejectionCode).toMatch(/\w+.*\./);
    }
    // Decodable rejects have a staged copy (and a preview); the others have neither.
    expect(byCode('too-small')[0]!.previewUrl).toBeTruthy();
    expect(byCode('undecodable')[0]).not.toHaveProperty('previewUrl');
    expect(byCode('tracking-pixel')[0]).not.toHaveProperty('previewUrl');
    expect(site.hits).not.toContain('/pixel.gif'); // tracking pixels are never fetched
    // Ranks are distinct across kept and rejected; rejected ones come last.
    const ranks = generalAll.candidates!.map((c) => c.rank);
    expect(ranks).toEqual(ranks.map((_, i) => i + 1));
    expect(Math.min(...rejected.map((c) => c.rank))).toBe(general.candidates!.length + 1);
    expect(general.candidates!.every((c) => !c.rejectionCode)).toBe(true);
  });

  it('ranks per purpose: the top candidate and the kept count change', async () => {
    const product = await extract('product');
    const logo = await extract('Brand-Logo');
    const lifestyle = await extract('life style');
    expect(sizeOf(product.candidates![0]!)).toBe(size(SIZES.main));
    expect(sizeOf(logo.candidates![0]!)).toBe(size(SIZES.logo));
    expect(logo.candidates![0]!.looksLikeLogo).toBe(true);
    expect(sizeOf(lifestyle.candidates![0]!)).toBe(size(SIZES.living));
    expect(product.purpose).toBe('product');
    expect(logo.purpose).toBe('Brand-Logo');
    const kept = (x: Extraction) => x.candidates!.filter((c) => c.kept).length;
    expect(kept(logo)).toBe(1);
    expect(kept(product)).toBeGreaterThan(kept(logo));
    expect(kept(lifestyle)).toBeGreaterThan(kept(product));
    // The product purpose needs 150 px: the 96 px favicon is rejected there, accepted in general.
    expect(product.candidates!.map(sizeOf)).not.toContain(size(SIZES.favicon));
  });

  it('validates the submit body', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ brandId }, 'body.url'],
      [{ url: `${site.origin}/product` }, 'body.brandId'],
      [{ url: `http://example.com/${'a'.repeat(2048)}`, brandId }, 'body.url'],
      [{ url: 'not a url', brandId }, 'body.url'],
      [{ url: 'ftp://example.com/page', brandId }, 'body.url'],
      [{ url: 'javascript:alert(1)', brandId }, 'body.url'],
      [{ url: 'file:///etc/passwd', brandId }, 'body.url'],
      [{ url: 'http://user:secret@example.com/', brandId }, 'body.url'],
      [{ url: 'https://example.com/', brandId, purpose: 'p'.repeat(65) }, 'body.purpose'],
      [{ url: 'https://example.com/', brandId, media: 'audio' }, 'body.media'],
      [{ url: 'https://example.com/', brandId: 'nope' }, 'body.brandId'],
      [{ url: 'https://example.com/', brandId, extra: 1 }, 'body.extra'],
    ];
    for (const [body, field] of cases) {
      const res = await submit(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
      expect(res.json().error.details.fields[0].field).toBe(field);
    }
    const unknownBrand = await submit({ url: 'https://example.com/', brandId: '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b' });
    expect(unknownBrand.statusCode).toBe(404);
    expect(unknownBrand.json().error.code).toBe('BRAND_NOT_FOUND');
  });

  it('fails a run with a clear code when the page is not usable', async () => {
    const notHtml = await extract(null, `${site.origin}/data.json`);
    expect(notHtml).toMatchObject({ status: 'failed', errorCode: 'NOT_HTML' });
    expect(notHtml).not.toHaveProperty('candidates');
    const missing = await extract(null, `${site.origin}/nothing-here`);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'PAGE_HTTP_ERROR' });
    expect(missing.errorMessage).toContain('404');
  });

  it('completes a media=videos run with no candidates and without fetching anything', async () => {
    const before = site.hits.length;
    const res = await submit({ url: `${site.origin}/product`, brandId, media: 'videos' });
    expect(res.statusCode).toBe(202);
    const done = await waitDone(res.json().extractionId);
    expect(done).toMatchObject({ status: 'completed', media: 'videos', candidates: [], truncated: 0 });
    expect(site.hits.length).toBe(before);
  });

  it('commits every kept candidate by default, idempotently, as uploaded assets that complete', async () => {
    const x = await extract('product');
    const kept = x.candidates!.filter((c) => c.kept);
    const first = await commit(x.extractionId);
    expect(first.statusCode, first.body).toBe(200);
    const assets = first.json().assets as { assetId: string; assetType: string; candidateId: string }[];
    expect(assets.map((a) => a.candidateId)).toEqual(kept.map((c) => c.candidateId)); // ranked order
    expect(assets.every((a) => a.assetType === 'image')).toBe(true);

    // (d) starts uploaded (or already processing) and reaches complete through asset processing.
    const asset = await t.request({ method: 'GET', url: `/v1/assets/${assets[0]!.assetId}`, key });
    expect(asset.statusCode).toBe(200);
    expect(['uploaded', 'processing', 'complete']).toContain(asset.json().status);
    let status = asset.json().status;
    for (let i = 0; i < 200 && status !== 'complete'; i++) {
      await sleep(50);
      status = (await t.request({ method: 'GET', url: `/v1/assets/${assets[0]!.assetId}`, key })).json().status;
    }
    expect(status).toBe('complete');
    const done = (await t.request({ method: 'GET', url: `/v1/assets/${assets[0]!.assetId}`, key })).json();
    expect(done.metadata).toMatchObject({
      fileType: 'image/jpeg',
      dimension: { width: SIZES.main[0], height: SIZES.main[1] },
    });

    // (a) again: the same assets, no new ones; candidates now carry committedAssetId.
    for (const body of [undefined, {}, null]) {
      const again = await commit(x.extractionId, body);
      expect(again.statusCode).toBe(200);
      expect(again.json().assets).toEqual(assets);
    }
    const after = await read(x.extractionId);
    for (const a of assets) {
      expect(after.candidates!.find((c) => c.candidateId === a.candidateId)!.committedAssetId).toBe(a.assetId);
    }
    // (c) isLogo only counts on a candidate's first commit.
    const late = await commit(x.extractionId, { items: [{ candidateId: assets[0]!.candidateId, isLogo: true }] });
    expect(late.json().assets).toEqual([assets[0]]);
  });

  it('commits named candidates: a logo, a rejected one, never an unknown or uncommittable one', async () => {
    const x = await read(generalAll.extractionId, true);
    const logo = x.candidates!.find((c) => sizeOf(c) === size(SIZES.logo))!;
    const tiny = x.candidates!.find((c) => c.rejectionCode === 'too-small')!;
    const broken = x.candidates!.find((c) => c.rejectionCode === 'undecodable')!;
    const main = x.candidates!.find((c) => c.rank === 1)!;

    const bad: [unknown, number, string][] = [
      [{ items: [] }, 400, 'INVALID_REQUEST'],
      [{ items: [{ candidateId: '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b' }] }, 400, 'INVALID_REQUEST'],
      [{ items: [{ candidateId: main.candidateId }, { candidateId: main.candidateId }] }, 400, 'INVALID_REQUEST'],
      [{ items: [{ candidateId: 'x' }] }, 400, 'INVALID_REQUEST'],
      [{ items: [{ candidateId: main.candidateId, isLogo: 'yes' }] }, 400, 'INVALID_REQUEST'],
      [{ everything: true }, 400, 'INVALID_REQUEST'],
      [
        { items: [{ candidateId: main.candidateId }, { candidateId: broken.candidateId }] },
        422,
        'CANDIDATE_NOT_COMMITTABLE',
      ],
    ];
    for (const [body, status, code] of bad) {
      const res = await commit(x.extractionId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().error.code).toBe(code);
    }
    expect((await read(x.extractionId)).candidates!.some((c) => c.committedAssetId)).toBe(false); // nothing committed

    // Request order does not matter: ranked order is used. A rejected candidate is committed only by naming it.
    const res = await commit(x.extractionId, {
      items: [{ candidateId: tiny.candidateId }, { candidateId: logo.candidateId, isLogo: true }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().assets).toEqual([
      { assetId: expect.any(String), assetType: 'logo', candidateId: logo.candidateId },
      { assetId: expect.any(String), assetType: 'image', candidateId: tiny.candidateId },
    ]);
    const logoAsset = await t.request({ method: 'GET', url: `/v1/assets/${res.json().assets[0].assetId}`, key });
    expect(logoAsset.json().metadata).toMatchObject({ type: 'logo', fileType: 'image/png' });
    // The default commit still takes kept candidates only: the logo (kept) keeps its logo asset.
    const all = await commit(x.extractionId);
    const ids = all.json().assets.map((a: { candidateId: string }) => a.candidateId);
    expect(ids).not.toContain(tiny.candidateId);
    expect(all.json().assets.find((a: { candidateId: string }) => a.candidateId === logo.candidateId).assetType).toBe(
      'logo',
    );
  });

  it('stops at the first failure, keeps earlier commits, and a retry completes', async () => {
    const x = await extract('product');
    const kept = x.candidates!.filter((c) => c.kept);
    expect(kept.length).toBeGreaterThanOrEqual(3);
    const rows = await t.deps.db.kysely
      .selectFrom('extraction_candidates')
      .select(['id', 'staged_key'])
      .where('extraction_id', '=', x.extractionId)
      .execute();
    const stagedKey = (id: string) => rows.find((r) => r.id === id)!.staged_key!;
    refuseOnce.add(stagedKey(kept[1]!.candidateId));

    const failed = await commit(x.extractionId);
    expect(failed.statusCode).toBe(422);
    const err = failed.json().error;
    expect(err.code).toBe('COMMIT_FAILED');
    expect(err.details).toMatchObject({ candidateId: kept[1]!.candidateId, retryable: true, reason: 'storage_error' });
    expect(err.details.assets.map((a: { candidateId: string }) => a.candidateId)).toEqual([kept[0]!.candidateId]);
    const mid = await read(x.extractionId);
    const committed = mid.candidates!.filter((c) => c.committedAssetId).map((c) => c.candidateId);
    expect(committed).toEqual([kept[0]!.candidateId]);

    const retry = await commit(x.extractionId);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().assets.map((a: { candidateId: string }) => a.candidateId)).toEqual(
      kept.map((c) => c.candidateId),
    );
    expect(retry.json().assets[0].assetId).toBe(err.details.assets[0].assetId);

    // A staged copy that is gone for good: not retryable.
    const y = await extract('product');
    const yKept = y.candidates!.filter((c) => c.kept);
    const yRows = await t.deps.db.kysely
      .selectFrom('extraction_candidates')
      .select(['id', 'staged_key'])
      .where('extraction_id', '=', y.extractionId)
      .execute();
    await t.deps.storage.delete(yRows.find((r) => r.id === yKept[0]!.candidateId)!.staged_key!);
    const gone = await commit(y.extractionId);
    expect(gone.statusCode).toBe(422);
    expect(gone.json().error.details).toMatchObject({
      candidateId: yKept[0]!.candidateId,
      retryable: false,
      assets: [],
    });
  });

  it('deletes an extraction, its candidates and staged copies, never committed assets', async () => {
    const x = await extract('product');
    const committed = await commit(x.extractionId, { items: [{ candidateId: x.candidates![0]!.candidateId }] });
    const assetId = committed.json().assets[0].assetId;
    const rows = await t.deps.db.kysely
      .selectFrom('extraction_candidates')
      .select('staged_key')
      .where('extraction_id', '=', x.extractionId)
      .execute();
    const keys = rows.map((r) => r.staged_key).filter((k): k is string => k !== null);
    expect(keys.length).toBeGreaterThan(0);

    expect(
      (await t.request({ method: 'DELETE', url: `/v1/assets/extract-from-url/${x.extractionId}`, key: otherKey }))
        .statusCode,
    ).toBe(404);
    const del = await t.request({ method: 'DELETE', url: `/v1/assets/extract-from-url/${x.extractionId}`, key });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect(
      (await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${x.extractionId}`, key })).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/assets/extract-from-url/${x.extractionId}`, key })).statusCode,
    ).toBe(404);
    expect((await commit(x.extractionId)).statusCode).toBe(404);
    for (const k of keys) expect(await t.deps.storage.head(k)).toBeUndefined();
    const left = await t.deps.db.kysely
      .selectFrom('extraction_candidates')
      .select('id')
      .where('extraction_id', '=', x.extractionId)
      .execute();
    expect(left).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/v1/assets/${assetId}`, key })).statusCode).toBe(200);
  });

  it('a run whose extraction is deleted mid-way stops without recreating it', async () => {
    const res = await submit({ url: `${site.origin}/slow`, brandId });
    const id = res.json().extractionId;
    for (let i = 0; i < 100 && (await read(id)).status === 'pending'; i++) await sleep(20);
    expect((await read(id)).status).toBe('processing');
    expect((await t.request({ method: 'DELETE', url: `/v1/assets/extract-from-url/${id}`, key })).statusCode).toBe(204);
    await sleep(2000);
    const row = await t.deps.db.kysely.selectFrom('extractions').select('id').where('id', '=', id).executeTakeFirst();
    expect(row).toBeUndefined();
    const cands = await t.deps.db.kysely
      .selectFrom('extraction_candidates')
      .select('id')
      .where('extraction_id', '=', id)
      .execute();
    expect(cands).toEqual([]);
  });

  it('reruns idempotently: a second run replaces the candidates and their staged copies', async () => {
    const x = await extract('product');
    const before = await t.deps.db.kysely
      .selectFrom('extraction_candidates')
      .select(['id', 'staged_key'])
      .where('extraction_id', '=', x.extractionId)
      .execute();
    // A completed run is left alone by a duplicate job...
    await t.deps.extraction.run(x.extractionId, { signal: new AbortController().signal, log: silentLog });
    expect((await read(x.extractionId)).candidates!.map((c) => c.candidateId)).toEqual(
      x.candidates!.map((c) => c.candidateId),
    );
    // ...while a run that a dead worker left processing is redone from scratch.
    await t.deps.db.kysely
      .updateTable('extractions')
      .set({ status: 'processing' })
      .where('id', '=', x.extractionId)
      .execute();
    await t.deps.extraction.run(x.extractionId, { signal: new AbortController().signal, log: silentLog });
    const redone = await read(x.extractionId);
    expect(redone.status).toBe('completed');
    expect(redone.candidates!.map(sizeOf)).toEqual(x.candidates!.map(sizeOf));
    expect(redone.candidates!.map((c) => c.candidateId)).not.toContain(x.candidates![0]!.candidateId);
    for (const r of before) if (r.staged_key) expect(await t.deps.storage.head(r.staged_key)).toBeUndefined();
  });

  it('keeps extractions private to their organization', async () => {
    const id = general.extractionId;
    for (const [method, url] of [
      ['GET', `/v1/assets/extract-from-url/${id}`],
      ['DELETE', `/v1/assets/extract-from-url/${id}`],
      ['POST', `/v1/assets/extract-from-url/${id}/commit`],
    ] as const) {
      const res = await t.request({ method, url, key: otherKey });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('EXTRACTION_NOT_FOUND');
    }
    const foreignBrand = await submit({ url: `${site.origin}/product`, brandId }, otherKey);
    expect(foreignBrand.statusCode).toBe(404);
    expect(foreignBrand.json().error.code).toBe('BRAND_NOT_FOUND');
    expect((await t.request({ method: 'GET', url: '/v1/assets/extract-from-url/not-a-uuid', key })).statusCode).toBe(
      400,
    );
    expect((await t.request({ method: 'GET', url: `/v1/assets/extract-from-url/${id}` })).statusCode).toBe(401);
  });
});

const silentLog = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLog;
  },
};

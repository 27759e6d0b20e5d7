/**
 * Brand DNA accuracy and speed.
 *
 *   npx tsx bench/brand-dna-eval.ts [--pages] [--skip-e2e]
 *
 * 1. Fixture brands (test/fixtures/brands): 8 brands with known palette, typefaces and tones, each
 *    with a small site (HTML + linked CSS) served on 127.0.0.1, a guidelines PDF and three images.
 *    Extracted with the real extractors and merge, for every source mix (all, URL only, PDF only,
 *    images only). Palette hit: a true brand colour within ΔE2000 < 10 of one of the top three
 *    extracted colours (per true colour; `primaryHit` counts the primary alone). Font hit: heading
 *    and body family equal (case-insensitive). Tone: the strongest extracted tone is one of the
 *    brand's tones.
 * 2. Real pages: saved product pages (shared/fixtures/product-pages) of shops listed in Simple
 *    Icons (shared/fixtures/brand-colors) with their official colour; each page served alone
 *    (its style sheets and images are not in the dataset, so only inline styles, <style> blocks,
 *    theme-color and inline SVG logos are there to read). Same palette hit rule.
 * 3. Timing: one extraction of 1 URL + 1 PDF + 3 images through the whole service (create →
 *    job → ready, SQLite, local storage), against the same extraction called directly.
 *
 * Budgets (exit 1 when missed): fixture palette and font hit rates ≥ 0.9 with all sources; the
 * service adds at most 2 s to the direct extraction (job pickup, polling, database writes).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import fs from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { createLocalTextAnalyzer } from '../src/engines/text/index.ts';
import { deltaEHex } from '../src/modules/brand-dna/color.ts';
import {
  type AssetSource,
  type ExtractContext,
  extractImage,
  extractPdf,
  extractUrl,
} from '../src/modules/brand-dna/extractors.ts';
import { mergeFindings, type SourceFindings } from '../src/modules/brand-dna/merge.ts';
import type { BrandDna } from '../src/modules/brand-dna/brand-dna.schemas.ts';
import {
  BRANDS,
  type BrandFixture,
  bannerImage,
  guidelinesPdf,
  logoImage,
  productImage,
} from '../test/fixtures/brands/brands.ts';
import { startBrandSites } from '../test/fixtures/brands/site-server.ts';

const ROOT = process.env.ATELIER_FIXTURES ?? path.resolve(import.meta.dirname, '../../shared/fixtures');
const args = process.argv.slice(2);
const showPages = args.includes('--pages');
const skipE2e = args.includes('--skip-e2e');
const HIT_DE = 10;

const blobs = new Map<string, Buffer>();
const memoryStorage = { getStream: async (key: string) => Readable.from([blobs.get(key)!]) };
const fetcher = createFetcher({ allowPrivate: true });
const analyzer = createLocalTextAnalyzer();
const ctx = (brandName?: string): ExtractContext => ({
  fetcher,
  storage: memoryStorage,
  analyzer,
  signal: AbortSignal.timeout(120_000),
  ...(brandName ? { brandName } : {}),
  note: async () => {},
});
let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const asset = (key: string, bytes: Buffer, type = 'image'): AssetSource => {
  blobs.set(key, bytes);
  return {
    assetId: id(),
    type,
    detectedFormat: null,
    storageKey: key,
    fileName: key,
    description: null,
    tags: [],
    extra: {},
  };
};

const top3 = (dna: BrandDna) => dna.visual.palette.slice(0, 3).map((p) => p.hex);
const colourHit = (truth: string, dna: BrandDna) => top3(dna).some((h) => deltaEHex(h, truth) < HIT_DE);
const sameFamily = (a: string | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();
const rate = (hits: number, total: number) => (total ? Math.round((hits / total) * 1000) / 1000 : null);

// --------------------------------------------------------------------------------------------
// 1. Fixture brands

interface BrandSources {
  url: SourceFindings;
  pdf: SourceFindings;
  images: SourceFindings[];
}

async function extractFixture(b: BrandFixture, siteUrl: string): Promise<{ sources: BrandSources; ms: number }> {
  const t0 = performance.now();
  const c = ctx(b.name);
  const [url, pdf, ...images] = await Promise.all([
    extractUrl(id(), siteUrl, c).then((r) => r.findings),
    extractPdf(id(), asset(`${b.slug}.pdf`, guidelinesPdf(b), 'document'), c),
    extractImage(id(), asset(`${b.slug}-product.png`, await productImage(b)), c),
    extractImage(id(), asset(`${b.slug}-banner.jpg`, await bannerImage(b)), c),
    extractImage(id(), asset(`${b.slug}-logo.png`, await logoImage(b), 'logo'), c),
  ]);
  return { sources: { url: url!, pdf: pdf!, images }, ms: performance.now() - t0 };
}

const MIXES: Record<string, (s: BrandSources) => SourceFindings[]> = {
  all: (s) => [s.url, s.pdf, ...s.images],
  urlOnly: (s) => [s.url],
  pdfOnly: (s) => [s.pdf],
  imagesOnly: (s) => s.images,
};

async function fixtures() {
  const sites = await startBrandSites();
  const tally = Object.fromEntries(
    Object.keys(MIXES).map((m) => [
      m,
      { colours: 0, colourHits: 0, primaryHits: 0, fonts: 0, fontHits: 0, tones: 0, toneHits: 0 },
    ]),
  );
  const rows: Record<string, unknown>[] = [];
  const times: number[] = [];
  try {
    for (const b of BRANDS) {
      const { sources, ms } = await extractFixture(b, sites.urlOf(b.slug));
      times.push(ms);
      const row: Record<string, unknown> = { brand: b.slug };
      for (const [mix, pick] of Object.entries(MIXES)) {
        const { dna } = mergeFindings(pick(sources), { brand: { name: b.name } });
        const t = tally[mix]!;
        const hits = b.truth.palette.map((h) => colourHit(h, dna));
        t.colours += 3;
        t.colourHits += hits.filter(Boolean).length;
        t.primaryHits += hits[0] ? 1 : 0;
        const hasText = mix !== 'imagesOnly';
        if (hasText) {
          t.fonts += 2;
          t.fontHits +=
            Number(sameFamily(dna.visual.typography.heading?.family, b.truth.heading)) +
            Number(sameFamily(dna.visual.typography.body?.family, b.truth.body));
          t.tones += 1;
          t.toneHits += b.truth.tones.includes(dna.voice.tone[0]?.tone as never) ? 1 : 0;
        }
        if (mix === 'all' || showPages) {
          row[mix] = {
            top3: top3(dna),
            heading: dna.visual.typography.heading?.family,
            body: dna.visual.typography.body?.family,
            tone: dna.voice.tone.slice(0, 2).map((x) => `${x.tone} ${x.weight}`),
          };
        }
      }
      rows.push(row);
    }
  } finally {
    await sites.close();
  }
  const summary = Object.fromEntries(
    Object.entries(tally).map(([mix, t]) => [
      mix,
      {
        paletteHitRate: rate(t.colourHits, t.colours),
        primaryHitRate: rate(t.primaryHits, BRANDS.length),
        fontHitRate: rate(t.fontHits, t.fonts),
        toneAgreement: rate(t.toneHits, t.tones),
      },
    ]),
  );
  times.sort((a, b) => a - b);
  return {
    brands: BRANDS.length,
    summary,
    directExtractionMsMedian: Math.round(times[times.length >> 1]!),
    rows: showPages ? rows : undefined,
  };
}

// --------------------------------------------------------------------------------------------
// 2. Real saved pages of brands with a known colour

interface SimpleIcon {
  title: string;
  hex: string;
  aliases?: { aka?: string[] };
}

const key = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

async function realPages() {
  const dataset = path.join(ROOT, 'product-pages/dataset');
  const truth = JSON.parse(readFileSync(path.join(dataset, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { url: string }
  >;
  const icons = JSON.parse(
    readFileSync(path.join(ROOT, 'brand-colors/data/simple-icons.json'), 'utf8'),
  ) as SimpleIcon[];
  const byName = new Map<string, SimpleIcon>();
  for (const i of icons) {
    byName.set(key(i.title), i);
    for (const a of i.aliases?.aka ?? []) if (!byName.has(key(a))) byName.set(key(a), i);
  }
  // The shop a page belongs to is its host; a label of the host that names a listed brand matches
  // (www.zalando.fi → Zalando). Country and generic labels are ignored.
  const IGNORE = new Set([
    'www',
    'com',
    'co',
    'uk',
    'de',
    'fr',
    'it',
    'ie',
    'ca',
    'pt',
    'pl',
    'fi',
    'net',
    'org',
    'shop',
    'store',
  ]);
  const pages: { id: string; url: string; brand: SimpleIcon }[] = [];
  for (const [pid, t] of Object.entries(truth)) {
    const host = new URL(t.url).hostname;
    const label = host.split('.').find((l) => !IGNORE.has(l) && byName.has(key(l)));
    if (label) pages.push({ id: pid, url: t.url, brand: byName.get(key(label))! });
  }
  pages.sort((a, b) => a.brand.title.localeCompare(b.brand.title) || a.id.localeCompare(b.id));

  let current = '';
  const server = http.createServer((req, res) => {
    if (req.url === '/page')
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(current);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: Record<string, unknown>[] = [];
  const perBrand = new Map<string, { pages: number; hits: number; primary: number }>();
  let hits = 0;
  let primary = 0;
  try {
    for (const p of pages) {
      current = gunzipSync(readFileSync(path.join(dataset, 'html', `${p.id}.html.gz`))).toString('utf8');
      const { findings } = await extractUrl(id(), `${origin}/page`, ctx());
      const { dna } = mergeFindings([findings]);
      const want = `#${p.brand.hex.toLowerCase()}`;
      const hit = colourHit(want, dna);
      const first = dna.visual.palette[0] ? deltaEHex(dna.visual.palette[0].hex, want) < HIT_DE : false;
      hits += Number(hit);
      primary += Number(first);
      const b = perBrand.get(p.brand.title) ?? { pages: 0, hits: 0, primary: 0 };
      b.pages++;
      b.hits += Number(hit);
      b.primary += Number(first);
      perBrand.set(p.brand.title, b);
      rows.push({ brand: p.brand.title, truth: want, top3: top3(dna), hit, host: new URL(p.url).hostname });
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
  return {
    pages: pages.length,
    brands: perBrand.size,
    paletteHitRate: rate(hits, pages.length),
    primaryHitRate: rate(primary, pages.length),
    perBrand: Object.fromEntries([...perBrand].map(([k, v]) => [k, `${v.hits}/${v.pages}`])),
    rows: showPages ? rows : undefined,
  };
}

// --------------------------------------------------------------------------------------------
// 3. One extraction through the service

async function endToEnd() {
  const b = BRANDS[0]!;
  const sites = await startBrandSites([b]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-dna-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', ATELIER_DATA_DIR: dataDir, ATELIER_ALLOW_PRIVATE_FETCH: '1' });
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  try {
    const { apiKey } = await deps.access.bootstrap({ planSlug: 'enterprise' });
    const inject = (method: string, url: string, payload?: unknown) =>
      app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${apiKey}` },
        ...(payload ? { payload: payload as object } : {}),
      });
    await deps.startWorkers();
    const brand = (
      await inject('POST', '/v1/brands', {
        name: b.name,
        industry: b.industry,
        description: 'A bench brand.',
        mission: '',
        values: [],
        tone: [],
        voice: [],
      })
    ).json();
    const files = [
      { name: 'g.pdf', type: 'application/pdf', bytes: guidelinesPdf(b) },
      { name: 'p.png', type: 'image/png', bytes: await productImage(b) },
      { name: 'b.jpg', type: 'image/jpeg', bytes: await bannerImage(b) },
      { name: 'l.png', type: 'image/png', bytes: await logoImage(b) },
    ];
    const init = (
      await inject('POST', '/v1/assets/initiate-upload', {
        brandId: brand.id,
        files: files.map((f) => ({ fileName: f.name, fileType: f.type, fileSize: f.bytes.length })),
      })
    ).json();
    const assetIds: string[] = [];
    for (const [i, slot] of (
      init.uploads as { uploadUrl: string; uploadHeaders: Record<string, string>; uploadId: string; assetId: string }[]
    ).entries()) {
      const u = new URL(slot.uploadUrl);
      await app.inject({
        method: 'PUT',
        url: u.pathname + u.search,
        headers: slot.uploadHeaders,
        payload: files[i]!.bytes,
      });
      await inject('POST', '/v1/assets/confirm-upload', { uploadId: slot.uploadId });
      assetIds.push(slot.assetId);
    }
    for (const a of assetIds) {
      while ((await inject('GET', `/v1/assets/${a}`)).json().status !== 'complete')
        await new Promise((r) => setTimeout(r, 50));
    }
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const v = (
        await inject('POST', `/v1/brands/${brand.id}/brand-dna/versions`, { assetIds, urls: [sites.urlOf(b.slug)] })
      ).json().data;
      for (;;) {
        const d = (await inject('GET', `/v1/brands/${brand.id}/brand-dna/versions/${v.versionId}`)).json().data;
        if (d.status === 'ready' || d.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      runs.push(performance.now() - t0);
    }
    runs.sort((x, y) => x - y);
    return {
      sources: '1 URL + 1 PDF + 3 images',
      serviceMsMedian: Math.round(runs[1]!),
      serviceMsRuns: runs.map(Math.round),
    };
  } finally {
    await app.close();
    await deps.close();
    await sites.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const fixtureResult = await fixtures();
const pagesResult = await realPages();
const e2e = skipE2e ? undefined : await endToEnd();
const all = fixtureResult.summary.all!;
const failures: string[] = [];
if ((all.paletteHitRate ?? 0) < 0.9) failures.push(`fixture palette hit rate ${all.paletteHitRate} < 0.9`);
if ((all.fontHitRate ?? 0) < 0.9) failures.push(`fixture font hit rate ${all.fontHitRate} < 0.9`);
if (e2e && e2e.serviceMsMedian > fixtureResult.directExtractionMsMedian + 2000) {
  failures.push(
    `service extraction ${e2e.serviceMsMedian} ms > direct ${fixtureResult.directExtractionMsMedian} ms + 2000 ms`,
  );
}
process.stdout.write(
  `${JSON.stringify({ bench: 'brand-dna-eval', fixtures: fixtureResult, realPages: pagesResult, timing: e2e, failures }, null, 2)}\n`,
);
if (failures.length) process.exitCode = 1;

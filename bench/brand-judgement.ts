/**
 * Brand judgement (issue "What it makes", item 5): the logo pick on real product pages and the
 * precedence of stated brand values over inferred ones.
 *
 *   npx tsx bench/brand-judgement.ts [--pages] [--misses] [--logo | --values]
 *                                                   (npm run bench -- brand-judgement)
 *
 * 1. Logo pick, markup only, over the 140 saved product pages (62 shops) of
 *    shared/fixtures/product-pages, against bench/logo-labels.json (which candidate is the
 *    site's own logo on each page, written by reading the markup; its `about` says how). Two picks:
 *    - `ranking`: URL extraction's top candidate for purpose `logo` (`pickLogo`, inline SVG and
 *      data: pictures included);
 *    - `brandDna`: the logo a Brand DNA URL source records (`pageLogo`, files with an http(s) URL
 *      only, so a page whose own logo is an inline SVG has one only if it publishes an icon).
 *    For each: `withLogo.top1Pct` — of the pages that have an own logo the pick can return, the
 *    share where it returns one of them; `withLogo.noPickPct` — share where it returns nothing;
 *    `withoutLogo.falsePct` — of the pages with no own logo, the share where it returns one anyway.
 *    `primaryPct`: over pages with a logo file or inline SVG (not only icons), the share where the
 *    pick is that logo rather than a site icon. `threshold`: the evidence for LOGO_PICK_MIN, from
 *    the best candidate whatever its score: the lowest score of a best candidate that is the page's
 *    own, the highest on pages without a logo, and the highest of a best candidate that is not the
 *    page's own on a page that has one (0 when there is none).
 * 2. Values: the 8 fixture brands of test/fixtures/brands, each as a guidelines PDF that states its
 *    three values read together with the brand's home page (whose copy is prose), through the real
 *    extractors (PDF text via pdf.js, page via the fetcher on 127.0.0.1) and merge. Mixes: the values
 *    as a list under a heading; as one line ("Our values: A, B, C.") inside a paragraph; the same with
 *    the about page (which lists them too). `statedTop3Pct`: the first three values are the stated
 *    three (the preview's topValues); `statedKeptPct`: all three are among the values. Plus the
 *    issue's own example (`issueExample`): "Our values: Craft, Kindness, Curiosity" and a website
 *    whose prose speaks of honesty.
 *
 * Budgets (exit 1 when missed): logo top-1 ≥ 95% on pages with a logo and no false logo on pages
 * without one, for both picks; stated values first on every fixture mix and in the issue example.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { createLocalTextAnalyzer } from '../src/engines/text/index.ts';
import { type AssetSource, type ExtractContext, extractPdf, extractUrl } from '../src/modules/brand-dna/extractors.ts';
import { mergeFindings } from '../src/modules/brand-dna/merge.ts';
import { analyzePage, pageLogo } from '../src/modules/brand-dna/page.ts';
import { type DiscoveredCandidate, discoverCandidates } from '../src/modules/extraction/discovery.ts';
import { LOGO_PICK_MIN } from '../src/modules/extraction/logo.ts';
import { pickLogo } from '../src/modules/extraction/logo-pick.ts';
import { rankCandidates } from '../src/modules/extraction/ranking.ts';
import { normalizeImageUrl, renditionKey } from '../src/modules/extraction/urls.ts';
import {
  aboutHtml,
  BRANDS,
  type BrandFixture,
  buildTextPdf,
  guidelinesPdf,
  siteHtml,
} from '../test/fixtures/brands/brands.ts';

const ROOT = process.env.ATELIER_FIXTURES ?? path.resolve(import.meta.dirname, '../../shared/fixtures');
const DATASET = path.join(ROOT, 'product-pages/dataset');
const LABELS = path.resolve(import.meta.dirname, 'logo-labels.json');
const args = process.argv.slice(2);
const showPages = args.includes('--pages');
const showMisses = args.includes('--misses');
const runLogo = !args.includes('--values');
const runValues = !args.includes('--logo');

// --------------------------------------------------------------------------------------------
// 1. Logo pick

interface Label {
  id: string;
  host: string;
  url: string;
  /** The site's own logo: URLs, `svg:<text in the inline SVG>`, `data~<text in the data: URL>`. */
  logo: string[];
  /** The site's own icon links (apple-touch-icon, mask-icon, icons of 120 px or more). */
  icons: string[];
  note: string;
}

const labels = (JSON.parse(readFileSync(LABELS, 'utf8')) as { pages: Label[] }).pages;
const keysOf = (url: string) => [normalizeImageUrl(url), renditionKey(url)];

function matches(c: DiscoveredCandidate, wanted: readonly string[]): boolean {
  if (c.type === 'inline-svg') return wanted.some((w) => w.startsWith('svg:') && c.svgMarkup.includes(w.slice(4)));
  if (c.type === 'data-url') return wanted.some((w) => w.startsWith('data~') && c.url.includes(w.slice(5)));
  const want = new Set(wanted.filter((w) => /^https?:/.test(w)).flatMap(keysOf));
  return [c.url, ...c.alternates.map((a) => a.url)].some((u) => keysOf(u).some((k) => want.has(k)));
}

const short = (c: DiscoveredCandidate | undefined) =>
  c ? (c.type === 'inline-svg' ? c.key : c.url.slice(0, 120)) : null;

interface PickRow {
  has: boolean;
  hasPrimary: boolean;
  picked: string | null;
  score: number | null;
  own: boolean;
  primary: boolean;
  /** The best candidate whatever its score (what the pick would be without LOGO_PICK_MIN). */
  best: number | null;
  bestOwn: boolean;
}

function logoPicks() {
  const rows: { id: string; host: string; ranking: PickRow; brandDna: PickRow }[] = [];
  const times: number[] = [];
  for (const label of labels) {
    const html = gunzipSync(readFileSync(path.join(DATASET, 'html', `${label.id}.html.gz`))).toString('utf8');
    const t0 = performance.now();
    const ranked = rankCandidates(discoverCandidates(html, label.url).candidates, 'logo');
    const pick = pickLogo(ranked);
    times.push(performance.now() - t0);
    const own = [...label.logo, ...label.icons];
    const best = ranked.find((r) => !r.rejection);
    const ranking: PickRow = {
      has: own.length > 0,
      hasPrimary: label.logo.length > 0,
      picked: short(pick?.candidate),
      score: pick?.relevanceScore ?? null,
      own: !!pick && matches(pick.candidate, own),
      primary: !!pick && matches(pick.candidate, label.logo),
      best: best?.relevanceScore ?? null,
      bestOwn: !!best && matches(best.candidate, own),
    };
    // Brand DNA records a URL: inline SVG and data: logos cannot be one.
    const ownUrls = own.filter((w) => /^https?:/.test(w));
    const facts = analyzePage(html, label.url);
    const dnaPick = pageLogo(facts.logos);
    const byUrl = new Map(ranked.map((r) => [r.candidate.type === 'url' ? r.candidate.url : r.candidate.key, r]));
    const dnaCandidate = dnaPick ? byUrl.get(dnaPick.url)?.candidate : undefined;
    const bestUrl = ranked.find((r) => !r.rejection && r.candidate.type === 'url');
    const brandDna: PickRow = {
      has: ownUrls.length > 0,
      hasPrimary: label.logo.some((w) => /^https?:/.test(w)),
      picked: dnaPick?.url.slice(0, 120) ?? null,
      score: dnaPick ? (byUrl.get(dnaPick.url)?.relevanceScore ?? null) : null,
      own: !!dnaCandidate && matches(dnaCandidate, ownUrls),
      primary: !!dnaCandidate && matches(dnaCandidate, label.logo),
      best: bestUrl?.relevanceScore ?? null,
      bestOwn: !!bestUrl && matches(bestUrl.candidate, ownUrls),
    };
    rows.push({ id: label.id.slice(0, 12), host: label.host, ranking, brandDna });
  }
  const pct = (n: number, d: number) => (d === 0 ? null : Math.round((n / d) * 1000) / 10);
  const summary = (which: 'ranking' | 'brandDna') => {
    const all = rows.map((r) => r[which]);
    const withLogo = all.filter((r) => r.has);
    const withPrimary = all.filter((r) => r.hasPrimary);
    const without = all.filter((r) => !r.has);
    const round = (x: number | undefined) => (x === undefined ? null : x);
    return {
      withLogo: {
        pages: withLogo.length,
        top1Pct: pct(withLogo.filter((r) => r.own).length, withLogo.length),
        noPickPct: pct(withLogo.filter((r) => r.picked === null).length, withLogo.length),
        wrongPickPct: pct(withLogo.filter((r) => r.picked !== null && !r.own).length, withLogo.length),
      },
      primaryPct: pct(withPrimary.filter((r) => r.primary).length, withPrimary.length),
      withoutLogo: {
        pages: without.length,
        falsePct: pct(without.filter((r) => r.picked !== null).length, without.length),
      },
      // The evidence for LOGO_PICK_MIN: the best candidate's score, whatever it is.
      threshold: {
        min: LOGO_PICK_MIN,
        lowestOwnBest: round(Math.min(...all.filter((r) => r.has && r.bestOwn).map((r) => r.best ?? 1))),
        highestBestWithoutLogo: round(Math.max(...without.map((r) => r.best ?? 0))),
        highestWrongBestWithLogo: round(
          Math.max(0, ...all.filter((r) => r.has && !r.bestOwn && r.best !== null).map((r) => r.best ?? 0)),
        ),
      },
    };
  };
  const sorted = [...times].sort((a, b) => a - b);
  const misses = rows.filter(
    (r) =>
      (r.ranking.has ? !r.ranking.own : r.ranking.picked !== null) ||
      (r.brandDna.has ? !r.brandDna.own : r.brandDna.picked !== null),
  );
  return {
    pages: rows.length,
    shops: new Set(rows.map((r) => r.host)).size,
    msPerPage: {
      mean: Math.round(times.reduce((a, b) => a + b, 0) / times.length),
      p95: Math.round(sorted[Math.floor(0.95 * (sorted.length - 1))] ?? 0),
    },
    ranking: summary('ranking'),
    brandDna: summary('brandDna'),
    ...(showPages ? { rows } : showMisses ? { misses } : {}),
  };
}

// --------------------------------------------------------------------------------------------
// 2. Values

const blobs = new Map<string, Buffer>();
const storage = { getStream: async (key: string) => Readable.from([blobs.get(key)!]) };
const ctx: ExtractContext = {
  fetcher: createFetcher({ allowPrivate: true }),
  storage,
  analyzer: createLocalTextAnalyzer(),
  signal: AbortSignal.timeout(300_000),
  note: async () => {},
};
let n = 0;
const nextId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
function pdfAsset(bytes: Buffer): AssetSource {
  const key = `guidelines-${nextId()}.pdf`;
  blobs.set(key, bytes);
  return {
    assetId: nextId(),
    type: 'document',
    detectedFormat: null,
    storageKey: key,
    fileName: key,
    description: null,
    tags: [],
    extra: {},
  };
}

/** The fixture's guidelines with the values on one line inside a paragraph (short lines: a PDF page does not wrap). */
function inlineValuesPdf(b: BrandFixture): Buffer {
  return buildTextPdf([
    [`${b.name} Brand Guidelines`, '', 'Who we are', `We are ${b.name}. Our values: ${b.values.join(', ')}.`],
    ['Tone of voice', b.voice],
  ]);
}

const ISSUE_SITE = `<!doctype html><html><head><title>Fieldnote Paper</title></head><body>
<header><a href="/"><img src="/logo.png" alt="Fieldnote Paper"></a></header>
<main><h1>Notebooks you can trust</h1>
<p>We are honest about where our paper comes from: honest prices, honest materials and an honest answer to every question.</p>
<p>Kindness matters to us, and every notebook is made with kindness in our own workshop.</p>
<p>Honesty is why we print the mill of every sheet on the back cover.</p></main></body></html>`;

async function valuesBench() {
  const pages = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const body = pages.get(req.url ?? '');
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = (s: string) => s.toLowerCase();
  const mixes = { headingList: 0, inlineLine: 0, withAboutPage: 0 } as Record<string, number>;
  const kept = { headingList: 0, inlineLine: 0, withAboutPage: 0 } as Record<string, number>;
  const rows: Record<string, unknown>[] = [];
  try {
    for (const b of BRANDS) {
      pages.set(`/${b.slug}/`, siteHtml(b));
      pages.set(`/${b.slug}-about/`, siteHtml(b));
      pages.set(`/${b.slug}-about/about.html`, aboutHtml(b));
      const home = (await extractUrl(nextId(), `${origin}/${b.slug}/`, ctx)).findings;
      const withAbout = (await extractUrl(nextId(), `${origin}/${b.slug}-about/`, ctx)).findings;
      const listed = await extractPdf(nextId(), pdfAsset(guidelinesPdf(b)), ctx);
      const inline = await extractPdf(nextId(), pdfAsset(inlineValuesPdf(b)), ctx);
      const row: Record<string, unknown> = { brand: b.slug, stated: b.values };
      for (const [mix, findings] of [
        ['headingList', [listed, home]],
        ['inlineLine', [inline, home]],
        ['withAboutPage', [listed, withAbout]],
      ] as const) {
        const values = mergeFindings(findings).dna.identity.values.map((v) => v.value);
        const want = b.values.map(key).sort().join('|');
        mixes[mix]!++;
        if (values.slice(0, 3).map(key).sort().join('|') === want) row[`${mix}Top3`] = true;
        if (b.values.every((v) => values.map(key).includes(key(v)))) kept[mix]!++;
        row[mix] = values;
      }
      rows.push(row);
    }
    pages.set('/fieldnote/', ISSUE_SITE);
    const site = (await extractUrl(nextId(), `${origin}/fieldnote/`, ctx)).findings;
    const pdf = await extractPdf(
      nextId(),
      pdfAsset(
        buildTextPdf([
          [
            'Fieldnote Paper Brand Guidelines',
            '',
            'Who we are',
            'We make notebooks for people who write things down. Our values: Craft, Kindness, Curiosity.',
          ],
        ]),
      ),
      ctx,
    );
    const issueValues = mergeFindings([pdf, site]).dna.identity.values.map((v) => v.value);
    const top3 = (mix: string) => rows.filter((r) => r[`${mix}Top3`]).length;
    const pct = (a: number, d: number) => Math.round((a / d) * 1000) / 10;
    return {
      brands: BRANDS.length,
      mixes: Object.fromEntries(
        Object.keys(mixes).map((m) => [
          m,
          { statedTop3Pct: pct(top3(m), mixes[m]!), statedKeptPct: pct(kept[m]!, mixes[m]!) },
        ]),
      ),
      issueExample: {
        stated: ['Craft', 'Kindness', 'Curiosity'],
        site: site.text?.values ?? [],
        merged: issueValues,
        statedFirst: issueValues.slice(0, 3).map(key).sort().join('|') === 'craft|curiosity|kindness',
      },
      ...(showPages ? { rows } : {}),
    };
  } finally {
    await new Promise((r) => server.close(r));
  }
}

const logo = runLogo ? logoPicks() : undefined;
const values = runValues ? await valuesBench() : undefined;
const failures: string[] = [];
for (const which of ['ranking', 'brandDna'] as const) {
  const s = logo?.[which];
  if (!s) continue;
  if ((s.withLogo.top1Pct ?? 0) < 95) failures.push(`${which}: logo top-1 ${s.withLogo.top1Pct}% < 95%`);
  if ((s.withoutLogo.falsePct ?? 0) > 0) {
    failures.push(`${which}: false logos on ${s.withoutLogo.falsePct}% of pages without one`);
  }
}
for (const [mix, m] of Object.entries(values?.mixes ?? {})) {
  if (m.statedTop3Pct < 100) failures.push(`values ${mix}: stated values first on ${m.statedTop3Pct}% of brands`);
}
if (values && !values.issueExample.statedFirst) {
  failures.push(`values: the issue example gives ${values.issueExample.merged.join(', ')}`);
}
process.stdout.write(`${JSON.stringify({ bench: 'brand-judgement', logo, values, failures }, null, 2)}\n`);
if (failures.length) process.exitCode = 1;

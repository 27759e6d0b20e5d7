/**
 * URL extraction on real-world pages (issue 17): discovery + ranking, markup only, over the saved
 * pages of test/fixtures/real-pages (news sites, blogs, podcasts, social pages; see its README),
 * against the main image and logo written down for each page in its expected.json.
 *
 *   npx tsx bench/extraction-real.ts [--pages] [--misses]      (npm run bench -- extraction-real)
 *
 * Prints JSON:
 * - `main`: pages with an expected main image; `top1Pct`/`top3Pct`: the expected picture (any of
 *   its listed renditions, as the candidate's URL or one of its alternates) is the top / among the
 *   top 3 candidates not rejected, purpose none; `declared`: the same over pages that declare an
 *   og/twitter/JSON-LD image.
 * - `logo`: pages with an expected logo; `flaggedPct`: a candidate that is the logo is flagged
 *   `looksLikeLogo`; `top1Pct`: it is the top candidate for purpose `logo`.
 * With --pages one row per page; with --misses only the rows that missed something.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type DiscoveredCandidate, discoverCandidates } from '../src/modules/extraction/discovery.ts';
import { type RankedCandidate, rankCandidates } from '../src/modules/extraction/ranking.ts';
import { normalizeImageUrl, renditionKey } from '../src/modules/extraction/urls.ts';

const DIR = path.resolve(import.meta.dirname, '../test/fixtures/real-pages');

interface Expected {
  id: string;
  url: string;
  main: string[] | null;
  logo: string[] | null;
  note?: string;
}

const args = process.argv.slice(2);
const showPages = args.includes('--pages');
const showMisses = args.includes('--misses');
const expected = (JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as { pages: Expected[] }).pages;

function keysOf(url: string): string[] {
  return [normalizeImageUrl(url), renditionKey(url)];
}

function matches(c: DiscoveredCandidate, wanted: string[]): boolean {
  if (c.type === 'inline-svg') {
    return wanted.some((w) => w.startsWith('svg:') && c.svgMarkup.includes(w.slice(4)));
  }
  const want = new Set(wanted.filter((w) => !w.startsWith('svg:')).flatMap(keysOf));
  return [c.url, ...c.alternates.map((a) => a.url)].some((u) => keysOf(u).some((k) => want.has(k)));
}

function label(r: RankedCandidate | undefined): string | null {
  if (!r) return null;
  const c = r.candidate;
  return `${c.type === 'inline-svg' ? c.key : c.url.slice(0, 140)} (${r.relevanceScore})`;
}

const rows: Record<string, unknown>[] = [];
const times: number[] = [];
for (const page of expected) {
  const html = gunzipSync(readFileSync(path.join(DIR, 'pages', `${page.id}.html.gz`))).toString('utf8');
  const t0 = performance.now();
  const found = discoverCandidates(html, page.url);
  const general = rankCandidates(found.candidates, null).filter((r) => !r.rejection);
  const logo = rankCandidates(found.candidates, 'logo').filter((r) => !r.rejection);
  times.push(performance.now() - t0);
  const row: Record<string, unknown> = { id: page.id };
  if (page.main) {
    const declared = found.page.ogImages.length > 0 || found.page.jsonLdProductImages.length > 0;
    const metas = /<meta[^>]+(?:og:image|twitter:image)|ld\+json[\s\S]{0,20000}?"image"/i.test(html);
    row.declared = declared || metas;
    row.mainTop1 = general[0] ? matches(general[0].candidate, page.main) : false;
    row.mainTop3 = general.slice(0, 3).some((r) => matches(r.candidate, page.main!));
    if (!row.mainTop1) row.mainGot = label(general[0]);
  }
  if (page.logo) {
    row.logoFlagged = general.some((r) => r.looksLikeLogo && matches(r.candidate, page.logo!));
    row.logoTop1 = logo[0] ? matches(logo[0].candidate, page.logo) : false;
    if (!row.logoTop1) row.logoGot = label(logo[0]);
  }
  rows.push(row);
}

const pct = (list: Record<string, unknown>[], key: string) =>
  list.length === 0 ? null : Math.round((list.filter((r) => r[key] === true).length / list.length) * 1000) / 10;
const withMain = rows.filter((r) => r.mainTop1 !== undefined);
const withDeclared = withMain.filter((r) => r.declared);
const withLogo = rows.filter((r) => r.logoTop1 !== undefined);
const sorted = [...times].sort((a, b) => a - b);
const totals = {
  pages: rows.length,
  msPerPage: {
    mean: Math.round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)),
    p95: Math.round(sorted[Math.floor(0.95 * (sorted.length - 1))] ?? 0),
  },
  main: {
    pages: withMain.length,
    top1Pct: pct(withMain, 'mainTop1'),
    top3Pct: pct(withMain, 'mainTop3'),
    declared: {
      pages: withDeclared.length,
      top1Pct: pct(withDeclared, 'mainTop1'),
      top3Pct: pct(withDeclared, 'mainTop3'),
    },
  },
  logo: { pages: withLogo.length, flaggedPct: pct(withLogo, 'logoFlagged'), top1Pct: pct(withLogo, 'logoTop1') },
};
const misses = rows.filter((r) => r.mainTop1 === false || r.logoTop1 === false || r.logoFlagged === false);
console.log(
  JSON.stringify(showPages ? { totals, pages: rows } : showMisses ? { totals, misses } : { totals }, null, 2),
);

/**
 * URL extraction on markup alone: discovery + ranking over the 140 saved product pages in
 * shared/fixtures/product-pages (no network, no image downloads).
 *
 *   npx tsx bench/extraction-markup.ts [--pages] [--limit N]
 *
 * Prints JSON: totals, and with --pages one row per page. The proxy for "the page's main product
 * image" is what the page declares (og:image, JSON-LD Product image). Because the ranker itself
 * rewards those declarations, the proxy is also measured "blind": the declarations are stripped
 * from the markup and the top candidate must still be a rendition of the declared image
 * (same image id in the URL). Pages that declare nothing are reported separately.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type DiscoveredCandidate, discoverCandidates } from '../src/modules/extraction/discovery.ts';
import { type RankedCandidate, rankCandidates } from '../src/modules/extraction/ranking.ts';
import { normalizeImageUrl, sameImageIdentity } from '../src/modules/extraction/urls.ts';

const ROOT = process.env.ATELIER_FIXTURES ?? path.resolve(import.meta.dirname, '../../shared/fixtures');
const DATASET = path.join(ROOT, 'product-pages/dataset');

const args = process.argv.slice(2);
const showPages = args.includes('--pages');
const limitArg = args.indexOf('--limit');
const limit = limitArg >= 0 ? Number(args[limitArg + 1]) : Number.POSITIVE_INFINITY;

const mapping = JSON.parse(readFileSync(path.join(DATASET, 'pywb-mapping.json'), 'utf8')) as Record<string, string>;
const truth = JSON.parse(readFileSync(path.join(DATASET, 'ground-truth.json'), 'utf8')) as Record<
  string,
  { url: string }
>;

/** The original URL of a page: the archive mapping without its `/collection/timestamp/` prefix. */
function originalUrl(id: string): string {
  const archived = mapping[id];
  const fromMapping = archived?.replace(/^\/[^/]+\/\d+\//, '');
  return fromMapping && /^https?:\/\//.test(fromMapping) ? fromMapping : truth[id]!.url;
}

/** Removes every declaration of a main image: og:/twitter: image metas, JSON-LD, microdata image. */
function stripDeclarations(html: string): string {
  return html
    .replace(/<script[^>]*ld\+json[^>]*>[\s\S]*?<\/script>/gi, '')
    .replace(/<meta[^>]+(?:og:image|twitter:image)[^>]*>/gi, '')
    .replace(/<link[^>]+image_src[^>]*>/gi, '')
    .replace(/itemprop\s*=\s*["']?image["']?/gi, 'data-stripped');
}

function urlsOf(c: DiscoveredCandidate): string[] {
  return c.type === 'inline-svg' ? [] : [c.url, ...c.alternates.map((a) => a.url)];
}

function strictMatch(c: DiscoveredCandidate, declared: Set<string>): boolean {
  return urlsOf(c).some((u) => declared.has(normalizeImageUrl(u)));
}

function looseMatch(c: DiscoveredCandidate, declared: string[]): boolean {
  return urlsOf(c).some((u) => declared.some((d) => sameImageIdentity(u, d)));
}

function top(ranked: RankedCandidate[]): RankedCandidate | undefined {
  return ranked.find((r) => !r.rejection);
}

function brief(r: RankedCandidate | undefined) {
  if (!r) return null;
  const c = r.candidate;
  return {
    url: c.type === 'inline-svg' ? c.key : c.url.slice(0, 160),
    score: r.relevanceScore,
    reason: r.relevanceReason,
    alt: c.evidence.texts[0]?.slice(0, 80),
  };
}

const files = readdirSync(path.join(DATASET, 'html'))
  .filter((f) => f.endsWith('.html.gz'))
  .sort()
  .slice(0, limit);

const rows: Record<string, unknown>[] = [];
const times: number[] = [];
for (const file of files) {
  const id = file.replace(/\.html\.gz$/, '');
  const pageUrl = originalUrl(id);
  const html = gunzipSync(readFileSync(path.join(DATASET, 'html', file))).toString('utf8');

  const t0 = performance.now();
  const found = discoverCandidates(html, pageUrl);
  const general = rankCandidates(found.candidates, null);
  const product = rankCandidates(found.candidates, 'product');
  const ms = performance.now() - t0;
  times.push(ms);

  const declaredList = [...found.page.ogImages, ...found.page.jsonLdProductImages];
  const declared = new Set(declaredList.map(normalizeImageUrl));
  const topGeneral = top(general);
  const topProduct = top(product);
  const row: Record<string, unknown> = {
    id: id.slice(0, 12),
    host: new URL(pageUrl).hostname,
    ms: Math.round(ms),
    candidates: found.candidates.length,
    rejected: product.filter((r) => r.rejection).length,
    keptGeneral: general.filter((r) => r.kept).length,
    keptProduct: product.filter((r) => r.kept).length,
    hasOgImage: found.page.ogImages.length > 0,
    hasJsonLdImage: found.page.jsonLdProductImages.length > 0,
  };
  if (declared.size > 0) {
    const blind = rankCandidates(discoverCandidates(stripDeclarations(html), pageUrl).candidates, 'product');
    const topBlind = top(blind);
    Object.assign(row, {
      top1General: topGeneral ? looseMatch(topGeneral.candidate, declaredList) : false,
      top1Product: topProduct ? looseMatch(topProduct.candidate, declaredList) : false,
      top1ProductExact: topProduct ? strictMatch(topProduct.candidate, declared) : false,
      top1ProductIsOgImage: topProduct?.candidate.evidence.main.ogImage ?? false,
      blindHasRendition: blind.some((r) => looseMatch(r.candidate, declaredList)),
      blindTop1: topBlind ? looseMatch(topBlind.candidate, declaredList) : false,
      blindTop3: blind
        .filter((r) => !r.rejection)
        .slice(0, 3)
        .some((r) => looseMatch(r.candidate, declaredList)),
    });
    if (!row.blindTop1) row.blindTop = brief(topBlind);
    if (!row.top1Product) row.top = brief(topProduct);
  } else {
    Object.assign(row, {
      top: brief(topProduct),
      topInProductArea: topProduct ? inProductArea(topProduct) : false,
      second: brief(product.filter((r) => !r.rejection)[1]),
    });
  }
  rows.push(row);
}

function inProductArea(r: RankedCandidate): boolean {
  const ev = r.candidate.evidence;
  return (
    ev.tokens.includes('main') ||
    ev.tokens.includes('product') ||
    ev.tokens.includes('gallery') ||
    ev.contextTokens.includes('product') ||
    ev.contextTokens.includes('gallery') ||
    ev.inProductScope ||
    ev.nameMatch >= 0.5 ||
    ev.sources.includes('zoom')
  );
}

const withDeclared = rows.filter((r) => r.top1Product !== undefined);
const withoutDeclared = rows.filter((r) => r.top1Product === undefined);
const count = (list: typeof rows, key: string) => list.filter((r) => r[key] === true).length;
const pct = (n: number, d: number) => (d === 0 ? null : Math.round((n / d) * 1000) / 10);
const sorted = [...times].sort((a, b) => a - b);
const q = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
const blindEligible = withDeclared.filter((r) => r.blindHasRendition);

const totals = {
  pages: rows.length,
  msPerPage: {
    mean: Math.round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)),
    p50: q(0.5),
    p95: q(0.95),
    max: q(1),
  },
  candidatesPerPage: Math.round(rows.reduce((a, r) => a + (r.candidates as number), 0) / Math.max(1, rows.length)),
  keptPerPage: {
    general: Math.round((rows.reduce((a, r) => a + (r.keptGeneral as number), 0) / Math.max(1, rows.length)) * 10) / 10,
    product: Math.round((rows.reduce((a, r) => a + (r.keptProduct as number), 0) / Math.max(1, rows.length)) * 10) / 10,
  },
  declared: {
    pages: withDeclared.length,
    withOgImage: withDeclared.filter((r) => r.hasOgImage).length,
    withJsonLdOnly: withDeclared.filter((r) => !r.hasOgImage).length,
    note: 'hit = the top candidate is the declared image or another rendition of it (same image id in the URL)',
    top1HitGeneralPct: pct(count(withDeclared, 'top1General'), withDeclared.length),
    top1HitProductPct: pct(count(withDeclared, 'top1Product'), withDeclared.length),
    top1ExactUrlProductPct: pct(count(withDeclared, 'top1ProductExact'), withDeclared.length),
    top1IsOgImagePct: pct(count(withDeclared, 'top1ProductIsOgImage'), withDeclared.length),
    jsonLdOnlyTop1Pct: pct(
      withDeclared.filter((r) => !r.hasOgImage && r.top1Product).length,
      withDeclared.filter((r) => !r.hasOgImage).length,
    ),
  },
  blind: {
    note: 'declarations stripped; pages whose body still shows a rendition of the declared image',
    pages: blindEligible.length,
    top1Pct: pct(count(blindEligible, 'blindTop1'), blindEligible.length),
    top3Pct: pct(count(blindEligible, 'blindTop3'), blindEligible.length),
  },
  undeclared: {
    pages: withoutDeclared.length,
    topInProductAreaPct: pct(count(withoutDeclared, 'topInProductArea'), withoutDeclared.length),
  },
};

console.log(JSON.stringify(showPages ? { totals, pages: rows } : { totals }, null, 2));

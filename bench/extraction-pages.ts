/**
 * URL extraction end to end on the 140 saved product pages of shared/fixtures/product-pages: the
 * real pipeline (page fetch through the SSRF-safe fetcher with private addresses allowed, style
 * sheets, discovery, image downloads with bounded concurrency, sniffing and measuring with sharp,
 * staging into local object storage, ranking) against a local server.
 *
 *   npx tsx bench/extraction-pages.ts [--pages] [--limit N]      (npm run bench -- extraction-pages)
 *   BENCH_PURPOSE=product (default; "none" for no purpose)  BENCH_MAX_P50_MS=2000 (budget)
 *
 * The local server (a child process, so it does not share this process's event loop) stands for
 * the whole web: every URL the pipeline fetches is sent to it at its original path, with the
 * original URL in a header (the pages are https on many hosts; one plain-http server on
 * 127.0.0.1 answers for all of them). It serves each saved page at its original URL and answers
 * every other request with a generated picture: distinct content per URL (so perceptual
 * de-duplication does not merge unrelated pictures), sized as the URL asks when it says
 * (`_1500x1500`, `?w=800`...), else 800x800; `.png` as PNG, `.webp` as WebP, `.svg` as SVG, `.ico`
 * as a 32 px PNG, style sheets as empty CSS. Pictures are generated on first request and cached,
 * which stands in for a CDN's latency.
 *
 * Prints JSON: per page (with --pages) the time, candidates found (before the run's caps),
 * recorded, kept, and whether the top-ranked candidate is the page's main product image, judged
 * as bench/extraction-markup.ts does (the declared og:image / JSON-LD Product image, or another
 * rendition of it); totals with p50/p95 time. Exits 1 when the p50 time is over the budget.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const ROOT = process.env.ATELIER_FIXTURES ?? path.resolve(import.meta.dirname, '../../shared/fixtures');
const DATASET = path.join(ROOT, 'product-pages/dataset');
const ORIGINAL_URL_HEADER = 'x-bench-original-url';

interface PageEntry {
  id: string;
  url: string;
  file: string;
}

function loadPages(limit: number): PageEntry[] {
  const mapping = JSON.parse(fs.readFileSync(path.join(DATASET, 'pywb-mapping.json'), 'utf8')) as Record<
    string,
    string
  >;
  const truth = JSON.parse(fs.readFileSync(path.join(DATASET, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { url: string }
  >;
  return fs
    .readdirSync(path.join(DATASET, 'html'))
    .filter((f) => f.endsWith('.html.gz'))
    .sort()
    .slice(0, limit)
    .map((f) => {
      const id = f.replace(/\.html\.gz$/, '');
      const fromMapping = mapping[id]?.replace(/^\/[^/]+\/\d+\//, '');
      const url = fromMapping && /^https?:\/\//.test(fromMapping) ? fromMapping : truth[id]!.url;
      // The fragment never reaches a server.
      return { id, url: url.replace(/#.*$/, ''), file: path.join(DATASET, 'html', f) };
    });
}

// ---- the local web (child process) --------------------------------------------------------------

async function serve(): Promise<void> {
  const sharp = (await import('sharp')).default;
  const { urlSizeHint } = await import('../src/modules/extraction/urls.ts');
  const pages = new Map(loadPages(Number.POSITIVE_INFINITY).map((p) => [p.url, p.file]));
  const cache = new Map<string, Promise<{ type: string; body: Buffer }>>();

  function picture(original: string): Promise<{ type: string; body: Buffer }> {
    const seed = createHash('sha256').update(original).digest();
    let pathname = '';
    try {
      pathname = new URL(original).pathname.toLowerCase();
    } catch {
      // keep the defaults
    }
    const hint = urlSizeHint(original);
    let width = Math.min(2000, hint?.width ?? hint?.side ?? 800);
    let height = Math.min(2000, hint?.height ?? hint?.side ?? 800);
    if (pathname.endsWith('.ico')) width = height = 32;
    if (pathname.endsWith('.svg')) {
      const fill = `#${seed.subarray(0, 3).toString('hex')}`;
      const body = Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 60" width="200" height="60"><rect width="200" height="60" fill="${fill}"/><circle cx="${20 + (seed[3]! % 160)}" cy="30" r="20" fill="#fff"/></svg>`,
      );
      return Promise.resolve({ type: 'image/svg+xml', body });
    }
    // A 6x6 grid of colours from the URL's hash, smoothly enlarged: cheap, and unlike any other URL's.
    const grid = Buffer.alloc(6 * 6 * 3);
    for (let i = 0; i < grid.length; i++) grid[i] = seed[i % seed.length]! ^ (i * 29);
    const img = sharp(grid, { raw: { width: 6, height: 6, channels: 3 } }).resize(width, height, { fit: 'fill' });
    if (pathname.endsWith('.png') || pathname.endsWith('.ico')) {
      return img
        .png({ compressionLevel: 3 })
        .toBuffer()
        .then((body) => ({ type: 'image/png', body }));
    }
    if (pathname.endsWith('.webp'))
      return img
        .webp()
        .toBuffer()
        .then((body) => ({ type: 'image/webp', body }));
    return img
      .jpeg({ quality: 85 })
      .toBuffer()
      .then((body) => ({ type: 'image/jpeg', body }));
  }

  const server = http.createServer((req, res) => {
    const original = String(req.headers[ORIGINAL_URL_HEADER] ?? '');
    const send = (type: string, body: Buffer | string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    const page = pages.get(original);
    if (page) return void send('text/html; charset=utf-8', gunzipSync(fs.readFileSync(page)));
    if (/\.css(?:$|\?)/i.test(original)) return void send('text/css', '');
    let hit = cache.get(original);
    if (!hit) {
      hit = picture(original);
      cache.set(original, hit);
    }
    hit.then(
      (p) => send(p.type, p.body),
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send?.({ port: (server.address() as AddressInfo).port });
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

// ---- the run ------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const showPages = args.includes('--pages');
  const limitArg = args.indexOf('--limit');
  const limit = limitArg >= 0 ? Number(args[limitArg + 1]) : Number.POSITIVE_INFINITY;
  const purposeEnv = process.env.BENCH_PURPOSE ?? 'product';
  const purpose = purposeEnv === 'none' ? null : purposeEnv;
  const maxP50 = Number(process.env.BENCH_MAX_P50_MS ?? 2000);

  const { loadConfig } = await import('../src/config.ts');
  const { createFetcher } = await import('../src/adapters/fetch/fetcher.ts');
  const { openObjectStorage } = await import('../src/adapters/storage/storage.ts');
  const { runPipeline } = await import('../src/modules/extraction/extraction.pipeline.ts');
  const { normalizeImageUrl, sameImageIdentity } = await import('../src/modules/extraction/urls.ts');
  type Result = Awaited<ReturnType<typeof runPipeline>>;

  const child: ChildProcess = fork(import.meta.filename, ['--serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise<{ port: number }>((resolve) =>
    child.once('message', (m) => resolve(m as { port: number })),
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-extraction-'));
  const config = loadConfig({ ATELIER_DATA_DIR: dataDir, ATELIER_ALLOW_PRIVATE_FETCH: '1', LOG_LEVEL: 'silent' });
  const storage = openObjectStorage(config, () => new Date());
  const real = createFetcher({ allowPrivate: config.allowPrivateFetch });
  // Every host is this one local server: same path and query, the original URL in a header.
  const fetcher: typeof real = {
    async fetch(input, o = {}) {
      const original = new URL(String(input));
      const local = `http://127.0.0.1:${port}${original.pathname}${original.search}`;
      const res = await real.fetch(local, { ...o, headers: { ...o.headers, [ORIGINAL_URL_HEADER]: original.href } });
      return { ...res, url: original.href };
    },
  };

  const urlsOf = (r: Result['candidates'][number]) => {
    const c = r.ranked.candidate;
    return c.type === 'inline-svg' ? [] : [c.url, ...c.alternates.map((a) => a.url)];
  };

  const rows: Record<string, unknown>[] = [];
  const times: number[] = [];
  let failures = 0;
  try {
    for (const page of loadPages(limit)) {
      const t0 = performance.now();
      let result: Result;
      try {
        result = await runPipeline(
          { url: page.url, purpose, stagingPrefix: `staging/bench/${page.id}/`, signal: AbortSignal.timeout(60_000) },
          { fetcher, storage },
        );
      } catch (err) {
        failures++;
        rows.push({ id: page.id.slice(0, 12), error: (err as Error).message });
        continue;
      }
      const ms = performance.now() - t0;
      times.push(ms);
      const accepted = result.candidates.filter((c) => !c.rejection);
      const top = accepted[0];
      const declared = result.declaredImages;
      const row: Record<string, unknown> = {
        id: page.id.slice(0, 12),
        host: new URL(page.url).hostname,
        ms: Math.round(ms),
        found: result.candidates.length + result.truncated,
        recorded: result.candidates.length,
        truncated: result.truncated,
        kept: result.candidates.filter((c) => c.ranked.kept && !c.rejection).length,
        rejected: result.candidates.length - accepted.length,
      };
      if (declared.length > 0) {
        const exact = new Set(declared.map(normalizeImageUrl));
        row.top1 = top ? urlsOf(top).some((u) => declared.some((d) => sameImageIdentity(u, d))) : false;
        row.top1Exact = top ? urlsOf(top).some((u) => exact.has(normalizeImageUrl(u))) : false;
        if (!row.top1)
          row.top = top ? { url: urlsOf(top)[0]?.slice(0, 140), reason: top.ranked.relevanceReason } : null;
      }
      rows.push(row);
      await storage.deletePrefix(`staging/bench/${page.id}/`);
    }
  } finally {
    child.disconnect();
    await storage.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const ok = rows.filter((r) => r.ms !== undefined);
  const declaredRows = ok.filter((r) => r.top1 !== undefined);
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
  const mean = (key: string) =>
    Math.round((ok.reduce((a, r) => a + (r[key] as number), 0) / Math.max(1, ok.length)) * 10) / 10;
  const pct = (n: number, d: number) => (d === 0 ? null : Math.round((n / d) * 1000) / 10);
  const totals = {
    pages: rows.length,
    failed: failures,
    purpose,
    msPerPage: {
      mean: Math.round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)),
      p50: q(0.5),
      p95: q(0.95),
      max: q(1),
    },
    budget: { p50MaxMs: maxP50 },
    perPage: {
      found: mean('found'),
      recorded: mean('recorded'),
      kept: mean('kept'),
      rejected: mean('rejected'),
      truncated: mean('truncated'),
    },
    declared: {
      pages: declaredRows.length,
      note: 'hit = the top-ranked candidate is the declared og:image / JSON-LD Product image or another rendition of it',
      top1Pct: pct(declaredRows.filter((r) => r.top1 === true).length, declaredRows.length),
      top1ExactUrlPct: pct(declaredRows.filter((r) => r.top1Exact === true).length, declaredRows.length),
    },
  };
  process.stdout.write(`${JSON.stringify(showPages ? { totals, pages: rows } : { totals }, null, 2)}\n`);
  if (totals.msPerPage.p50 > maxP50 || failures > 0) {
    process.stderr.write(
      `bench/extraction-pages: p50 ${totals.msPerPage.p50} ms (budget ${maxP50}), ${failures} failed pages\n`,
    );
    process.exitCode = 1;
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();

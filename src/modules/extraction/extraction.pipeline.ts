import { decodeHtml } from '../../adapters/fetch/decode-html.ts';
import { randomUUID } from 'node:crypto';
import { CodedError } from '../../adapters/coded-error.ts';
import { FetchError, type Fetcher } from '../../adapters/fetch/fetcher.ts';
import { type FormatName, formatInfo } from '../../adapters/media/index.ts';
import { detectTextKind } from '../../adapters/media/sniff.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { stylesheetImports } from './css-images.ts';
import { type DiscoveredCandidate, discoverCandidates, linkedStylesheetUrls } from './discovery.ts';
import { DEFAULT_INSPECT_LIMITS, type InspectLimits, type Inspection, inspectImage } from './extraction.images.ts';
import type { Measurement } from './measurement.ts';
import { type RankedCandidate, rankCandidates } from './ranking.ts';
import { resolveHttpUrl } from './urls.ts';

/**
 * One extraction run, without the database: fetch the page (HTML only) and its style sheets
 * through the SSRF-safe fetcher, discover candidates, download the most promising ones with
 * bounded concurrency, measure them, stage decodable copies in object storage, and rank.
 * The job handler (extraction.service.ts) persists the result; bench/extraction-pages.ts times it.
 */

export interface PipelineLimits {
  pageMaxBytes: number;
  pageTimeoutMs: number;
  /** Style sheets fetched per page (linked ones first, then their @imports). */
  maxStylesheets: number;
  stylesheetMaxBytes: number;
  /** Candidates downloaded and measured, best first by the markup-only ranking. */
  maxDownloads: number;
  /** Candidates rejected on markup alone (tracking pixels, sprites...) that are recorded. */
  maxRejectedRecorded: number;
  downloadConcurrency: number;
  imageMaxBytes: number;
  imageTimeoutMs: number;
  inspect: InspectLimits;
}

export const DEFAULT_PIPELINE_LIMITS: PipelineLimits = {
  pageMaxBytes: 8 * 1024 * 1024,
  pageTimeoutMs: 30_000,
  maxStylesheets: 8,
  stylesheetMaxBytes: 1024 * 1024,
  maxDownloads: 40,
  maxRejectedRecorded: 40,
  downloadConcurrency: 6,
  imageMaxBytes: 20 * 1024 * 1024,
  imageTimeoutMs: 20_000,
  inspect: DEFAULT_INSPECT_LIMITS,
};

export type PageErrorCode = 'BLOCKED_ADDRESS' | 'PAGE_UNREACHABLE' | 'PAGE_HTTP_ERROR' | 'PAGE_TOO_LARGE' | 'NOT_HTML';

/** The page itself could not be used: the run fails with this code and message. */
export class PageError extends CodedError<PageErrorCode> {}

/** A rejection as recorded: the ranker's codes plus `download-failed`. */
export interface CandidateRejection {
  code: string;
  reason: string;
}

export interface StagedCopy {
  key: string;
  format: FormatName;
  mime: string;
  size: number;
  width: number;
  height: number;
}

export interface PipelineCandidate {
  candidateId: string;
  ranked: RankedCandidate;
  rejection?: CandidateRejection;
  staged?: StagedCopy;
  /** The http(s) URL it was downloaded from (absent for inline SVG and data URLs). */
  sourceUrl?: string;
  fileName: string;
}

export interface PipelineResult {
  /** The page URL after redirects. */
  pageUrl: string;
  /** Ranked order: kept and other accepted candidates first, rejected ones after. */
  candidates: PipelineCandidate[];
  truncated: number;
  /** What the page declares as its main image (og:image, JSON-LD Product image), for evaluations. */
  declaredImages: string[];
}

export interface PipelineInput {
  url: string;
  purpose: string | null;
  /** Storage folder for this run's staged copies, ending in `/`. */
  stagingPrefix: string;
  signal: AbortSignal;
  /** Called between phases; throws to stop the run (the extraction was deleted or taken over). */
  checkpoint?: () => Promise<void>;
}

export interface PipelineDeps {
  fetcher: Fetcher;
  storage: Pick<ObjectStorage, 'put'>;
}

const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5';
const IMAGE_ACCEPT = 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5';

export async function runPipeline(
  input: PipelineInput,
  deps: PipelineDeps,
  limits: PipelineLimits = DEFAULT_PIPELINE_LIMITS,
): Promise<PipelineResult> {
  const { signal } = input;
  const page = await fetchPage(deps.fetcher, input.url, limits, signal);
  const stylesheets = await fetchStylesheets(deps.fetcher, page.html, page.url, limits, signal);
  await input.checkpoint?.();

  const found = discoverCandidates(page.html, page.url, { stylesheets });
  const preliminary = rankCandidates(found.candidates, input.purpose);
  const plan = planDownloads(preliminary, limits);

  const measurements = new Map<string, Measurement>();
  const overrides = new Map<string, CandidateRejection>();
  const staged = new Map<string, StagedCopy>();
  const ids = new Map<string, string>();
  const bySha = new Map<string, Promise<StagedCopy | undefined>>();
  for (const c of [...plan.download, ...plan.rejected]) ids.set(c.key, randomUUID());

  await mapLimit(plan.download, limits.downloadConcurrency, async (c) => {
    const got = await obtainBytes(deps.fetcher, c, page.url, limits, signal);
    if ('rejection' in got) {
      measurements.set(c.key, { decodeError: got.rejection.reason });
      overrides.set(c.key, got.rejection);
      return;
    }
    const inspection = await inspectImage(got.bytes, limits.inspect);
    signal.throwIfAborted();
    measurements.set(c.key, inspection.measurement);
    const copy = await stageOnce(inspection, ids.get(c.key)!);
    if (copy) staged.set(c.key, copy);
  });
  await input.checkpoint?.();

  /** Stages a copy; byte-identical downloads share the first one's copy. */
  function stageOnce(inspection: Inspection, candidateId: string): Promise<StagedCopy | undefined> {
    const image = inspection.staged;
    if (!image) return Promise.resolve(undefined);
    let pending = bySha.get(inspection.sha256);
    if (!pending) {
      const info = formatInfo(image.format);
      const copy: StagedCopy = {
        key: `${input.stagingPrefix}${candidateId}.${info.extensions[0]}`,
        format: image.format,
        mime: info.mime,
        size: image.bytes.length,
        width: image.width,
        height: image.height,
      };
      pending = deps.storage.put(copy.key, image.bytes, { contentType: copy.mime }).then(() => copy);
      bySha.set(inspection.sha256, pending);
    }
    return pending;
  }

  const ranked = rankCandidates([...plan.download, ...plan.rejected], input.purpose, {
    measurements,
    limits: { maxBytes: limits.imageMaxBytes, maxPixels: limits.inspect.maxPixels },
  });
  const candidates = ranked.map((r): PipelineCandidate => {
    const c = r.candidate;
    const copy = staged.get(c.key);
    const out: PipelineCandidate = {
      candidateId: ids.get(c.key)!,
      ranked: r,
      fileName: candidateFileName(c, copy?.format),
    };
    const rejection = overrides.get(c.key) ?? r.rejection;
    if (rejection) out.rejection = { code: rejection.code, reason: rejection.reason };
    else if (!copy) out.rejection = { code: 'undecodable', reason: 'The file could not be read as an image.' };
    if (out.rejection) out.ranked = { ...r, kept: false };
    if (copy) out.staged = copy;
    if (c.type === 'url') out.sourceUrl = c.url;
    return out;
  });
  return {
    pageUrl: page.url,
    candidates,
    truncated: plan.truncated,
    declaredImages: [...found.page.ogImages, ...found.page.jsonLdProductImages],
  };
}

// ---- page ---------------------------------------------------------------------------------------

async function fetchPage(fetcher: Fetcher, url: string, limits: PipelineLimits, signal: AbortSignal) {
  let res: Awaited<ReturnType<Fetcher['fetch']>>;
  try {
    res = await fetcher.fetch(url, {
      accept: HTML_ACCEPT,
      maxBytes: limits.pageMaxBytes,
      timeoutMs: limits.pageTimeoutMs,
      signal,
    });
  } catch (err) {
    if (err instanceof FetchError && err.code !== 'ABORTED') throw pageErrorFromFetch(err, limits.pageMaxBytes);
    throw err;
  }
  if (!isHtmlResponse(res.contentType, res.body)) {
    throw new PageError(
      'NOT_HTML',
      `The URL is not a web page: it returned ${res.contentType ? `"${res.contentType}"` : 'content'} rather than HTML.`,
    );
  }
  return { url: res.url, html: decodeHtml(res.body, res.headers['content-type']) };
}

/**
 * The run's error for a page that could not be fetched. Messages never name an address the
 * fetcher resolved (nor one a redirect pointed at): internal addresses stay private.
 */
export function pageErrorFromFetch(err: FetchError, pageMaxBytes: number): PageError {
  switch (err.code) {
    case 'BLOCKED_ADDRESS':
      return new PageError(
        'BLOCKED_ADDRESS',
        'The page, or a page it redirected to, is not on a public internet address; only public pages can be extracted.',
      );
    case 'BAD_SCHEME':
    case 'BAD_URL':
    case 'CREDENTIALS_IN_URL':
      return new PageError('PAGE_UNREACHABLE', 'The page redirected to a URL that cannot be fetched.');
    case 'HTTP_ERROR':
      return new PageError('PAGE_HTTP_ERROR', `The page answered with HTTP status ${err.status ?? 'error'}.`);
    case 'TOO_LARGE':
      return new PageError(
        'PAGE_TOO_LARGE',
        `The page is larger than ${Math.round(pageMaxBytes / (1024 * 1024))} MB; only smaller pages can be extracted.`,
      );
    case 'TOO_MANY_REDIRECTS':
      return new PageError('PAGE_UNREACHABLE', 'The page redirected too many times.');
    case 'DNS_FAILURE':
      return new PageError('PAGE_UNREACHABLE', "The page's host name could not be resolved.");
    case 'TIMEOUT':
      return new PageError('PAGE_UNREACHABLE', 'The page did not answer in time.');
    default:
      return new PageError('PAGE_UNREACHABLE', 'The page could not be fetched.');
  }
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const UNTYPED = new Set(['text/plain', 'application/octet-stream', 'binary/octet-stream']);

/** HTML by its declared type, or, when the server did not say (or said plain text), by its bytes. */
export function isHtmlResponse(contentType: string | undefined, body: Buffer): boolean {
  if (contentType && HTML_TYPES.has(contentType)) return true;
  if (contentType && !UNTYPED.has(contentType)) return false;
  return detectTextKind(body) === 'HTML';
}

async function fetchStylesheets(
  fetcher: Fetcher,
  html: string,
  pageUrl: string,
  limits: PipelineLimits,
  signal: AbortSignal,
): Promise<{ url: string; css: string }[]> {
  const fetchAll = (urls: string[]) =>
    Promise.all(
      urls.map(async (url) => {
        try {
          const res = await fetcher.fetch(url, {
            accept: 'text/css,*/*;q=0.1',
            maxBytes: limits.stylesheetMaxBytes,
            timeoutMs: 10_000,
            signal,
          });
          return { url: res.url, css: res.body.toString('utf8') };
        } catch (err) {
          signal.throwIfAborted();
          if (err instanceof FetchError) return undefined; // a missing style sheet only loses its pictures
          throw err;
        }
      }),
    );
  const linked = linkedStylesheetUrls(html, pageUrl).slice(0, limits.maxStylesheets);
  const sheets = (await fetchAll(linked)).filter((s) => s !== undefined);
  const seen = new Set(linked);
  const imports = sheets
    .flatMap((s) => stylesheetImports(s.css).map((u) => resolveHttpUrl(u, s.url)))
    .filter((u): u is string => u !== undefined && !seen.has(u))
    .slice(0, Math.max(0, limits.maxStylesheets - linked.length));
  const nested = (await fetchAll([...new Set(imports)])).filter((s) => s !== undefined);
  return [...sheets, ...nested];
}

// ---- candidates ---------------------------------------------------------------------------------

/**
 * Which candidates the run downloads (the best `maxDownloads` by the markup-only ranking) and
 * which rejected-on-markup ones it records; everything else is dropped and counted in `truncated`.
 */
export function planDownloads(
  preliminary: readonly RankedCandidate[],
  limits: Pick<PipelineLimits, 'maxDownloads' | 'maxRejectedRecorded'>,
): { download: DiscoveredCandidate[]; rejected: DiscoveredCandidate[]; truncated: number } {
  const accepted = preliminary.filter((r) => !r.rejection).map((r) => r.candidate);
  const rejected = preliminary.filter((r) => r.rejection).map((r) => r.candidate);
  const download = accepted.slice(0, limits.maxDownloads);
  const recorded = rejected.slice(0, limits.maxRejectedRecorded);
  return {
    download,
    rejected: recorded,
    truncated: accepted.length - download.length + rejected.length - recorded.length,
  };
}

type Obtained = { bytes: Buffer } | { rejection: CandidateRejection };

async function obtainBytes(
  fetcher: Fetcher,
  c: DiscoveredCandidate,
  pageUrl: string,
  limits: PipelineLimits,
  signal: AbortSignal,
): Promise<Obtained> {
  if (c.type === 'inline-svg') return { bytes: Buffer.from(c.svgMarkup, 'utf8') };
  if (c.type === 'data-url') {
    const bytes = decodeDataUrl(c.url);
    return bytes ? { bytes } : { rejection: { code: 'undecodable', reason: 'The embedded image data is malformed.' } };
  }
  // The largest rendition first; when it fails, the next largest the page offers.
  const fallback = [...c.alternates].sort((a, b) => (b.width ?? 0) - (a.width ?? 0))[0];
  let last: FetchError | undefined;
  for (const url of fallback ? [c.url, fallback.url] : [c.url]) {
    try {
      const res = await fetcher.fetch(url, {
        accept: IMAGE_ACCEPT,
        headers: { referer: pageUrl },
        maxBytes: limits.imageMaxBytes,
        timeoutMs: limits.imageTimeoutMs,
        signal,
      });
      return { bytes: res.body };
    } catch (err) {
      signal.throwIfAborted();
      if (!(err instanceof FetchError)) throw err;
      if (err.code === 'TOO_LARGE') {
        const mb = Math.round(limits.imageMaxBytes / (1024 * 1024));
        return { rejection: { code: 'too-large', reason: `The file is larger than the ${mb} MB download limit.` } };
      }
      last = err;
    }
  }
  return { rejection: downloadFailed(last) };
}

/** Why a download failed, in words that never name a resolved address. */
function downloadFailed(err: FetchError | undefined): CandidateRejection {
  const why =
    err?.code === 'HTTP_ERROR'
      ? `HTTP status ${err.status}`
      : err?.code === 'BLOCKED_ADDRESS'
        ? 'its address is not public'
        : err?.code === 'TIMEOUT'
          ? 'the server did not answer in time'
          : err?.code === 'DNS_FAILURE'
            ? 'its host name could not be resolved'
            : err?.code === 'TOO_MANY_REDIRECTS'
              ? 'too many redirects'
              : 'the connection failed';
  return { code: 'download-failed', reason: `The file could not be downloaded (${why}).` };
}

/** The bytes of a `data:` URL (base64 or percent-encoded), or undefined when malformed. */
export function decodeDataUrl(url: string): Buffer | undefined {
  const comma = url.indexOf(',');
  if (!/^data:/i.test(url) || comma < 0) return undefined;
  const header = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (/;base64$/i.test(header)) {
    const clean = payload.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) return undefined;
    return Buffer.from(clean, 'base64');
  }
  try {
    return Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    return undefined;
  }
}

/** The committed asset's file name: the URL's file name with the staged format's extension. */
export function candidateFileName(c: DiscoveredCandidate, format: FormatName | undefined): string {
  const base =
    c.type === 'url'
      ? c.evidence.fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '')
      : c.type === 'inline-svg'
        ? 'inline-svg'
        : 'embedded-image';
  const stem =
    base
      .replace(/[^\p{L}\p{N}._ -]+/gu, '-')
      .replace(/^[.\s-]+/, '')
      .slice(0, 120) || 'image';
  const ext = format ? formatInfo(format).extensions[0] : undefined;
  return ext ? `${stem}.${ext}` : stem;
}

/**
 * Runs `fn` over `items` with at most `limit` at once. The first error stops new starts; it is
 * thrown once the calls already running have settled (so none outlives the run).
 */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (errors.length === 0 && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length > 0) throw errors[0];
}

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { type Fetcher, FetchError } from '../../adapters/fetch/fetcher.ts';
import { decodeHtml } from '../../adapters/fetch/decode-html.ts';
import { isStorageError, type ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { downloadToFile } from '../../adapters/storage/storage.ts';
import {
  analyzeFont,
  DEFAULT_MEDIA_LIMITS,
  extractPdfText,
  extractWordText,
  type FormatName,
  isMediaError,
  MediaError,
  probeVideo,
} from '../../adapters/media/index.ts';
import { ffmpegPath } from '../../adapters/media/video.ts';
import { posterArgs } from '../../adapters/media/video-args.ts';
import { runProcess } from '../../adapters/media/run-process.ts';
import { statedValues } from '../../engines/text/index.ts';
import type { TextAnalysis, TextAnalyzer, TextBlock } from '../../engines/text/text-engine.ts';
import { stylesheetImports } from '../extraction/css-images.ts';
import { resolveHttpUrl } from '../extraction/urls.ts';
import type { AssetExtra } from '../assets/assets.presenter.ts';
import { type CssRule, cssColors, cssFonts, customProperties, parseCss } from './css-analysis.ts';
import { brandNameFromTitle, colorSpecs, fontSpecs, guidelineBlocks, weightsIn } from './guidelines.ts';
import { subjectsIn } from './imagery.ts';
import type { FoundColor, FoundFont, SourceFindings } from './merge.ts';
import { analyzePage, type PageFacts, pageLogo } from './page.ts';
import { createHistogram, type HistogramBuilder, imageryStyle, paletteFromHistogram } from './palette.ts';
import type { SourceType } from './brand-dna.schemas.ts';

/**
 * One extractor per source type. Each returns the source's findings or throws SourceError (the
 * source then fails with that reason, which is safe to show); any other error is an
 * infrastructure fault the job retries. Pure analysis lives in page.ts, css-analysis.ts,
 * guidelines.ts, palette.ts; here are the fetches, downloads, decoders and ffmpeg runs.
 */
export class SourceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SourceError';
  }
}

export interface ExtractContext {
  fetcher: Fetcher;
  storage: Pick<ObjectStorage, 'getStream'>;
  analyzer: TextAnalyzer;
  signal: AbortSignal;
  /** The Brand resource's name (a hint for telling the name from a tagline). */
  brandName?: string;
  /** Records what the source is doing (shown as `progressNote`). */
  note(text: string): Promise<void>;
}

/** What the job knows about an asset source. */
export interface AssetSource {
  assetId: string;
  type: string;
  detectedFormat: string | null;
  storageKey: string;
  fileName: string;
  description: string | null;
  tags: string[];
  extra: AssetExtra;
}

/** Bounds of URL sources (docs/decisions/brand-dna.md, Brand DNA). */
export const URL_LIMITS = {
  pageBytes: 5 * 1024 * 1024,
  pageTimeoutMs: 20_000,
  maxStylesheets: 12,
  stylesheetBytes: 2 * 1024 * 1024,
  totalCssBytes: 6 * 1024 * 1024,
  stylesheetTimeoutMs: 10_000,
  maxAboutPages: 2,
  logoBytes: 2 * 1024 * 1024,
  logoTimeoutMs: 10_000,
} as const;

const FONT_HOSTS = /(^|\.)fonts\.(googleapis\.com|bunny\.net)$|(^|\.)use\.typekit\.net$/;

/** The source type an asset becomes, from its detected format (or its type when there is none). */
export function sourceTypeOf(asset: { type: string; detected_format: string | null }): SourceType | undefined {
  switch (asset.detected_format as FormatName | null) {
    case 'PDF':
      return 'pdf';
    case 'DOC':
    case 'DOCX':
      return 'document';
    case 'JPEG':
    case 'PNG':
    case 'GIF':
    case 'TIFF':
      return 'image';
    case 'MP4':
    case 'QuickTime':
      return 'video';
    case 'TTF':
    case 'OTF':
    case 'WOFF':
    case 'WOFF2':
      return 'font';
    default:
      return asset.type === 'font'
        ? 'font'
        : asset.type === 'video'
          ? 'video'
          : asset.type === 'document'
            ? 'pdf'
            : ['image', 'logo', 'environment'].includes(asset.type)
              ? 'image'
              : undefined;
  }
}

// --------------------------------------------------------------------------------------------
// URLs

const asSourceError = (err: unknown): never => {
  if (err instanceof FetchError) throw new SourceError(err.message, { cause: err });
  throw err;
};

async function fetchPage(ctx: ExtractContext, url: string): Promise<{ html: string; url: string }> {
  const res = await ctx.fetcher
    .fetch(url, {
      accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
      maxBytes: URL_LIMITS.pageBytes,
      timeoutMs: URL_LIMITS.pageTimeoutMs,
      signal: ctx.signal,
    })
    .catch(asSourceError);
  const type = res.contentType ?? '';
  if (type && !/html|xml/.test(type)) throw new SourceError(`The URL is not a web page (it returned ${type})`);
  return { html: decodeHtml(res.body, res.headers['content-type']), url: res.url };
}

/** The page's linked style sheets (and their @imports, one level), bounded in count and bytes. */
async function fetchStylesheets(ctx: ExtractContext, urls: string[]): Promise<string[]> {
  const queue = urls.filter((u) => !FONT_HOSTS.test(new URL(u).hostname)).slice(0, URL_LIMITS.maxStylesheets);
  const seen = new Set(queue);
  const sheets: string[] = [];
  let bytes = 0;
  for (let i = 0; i < queue.length && bytes < URL_LIMITS.totalCssBytes; i += 4) {
    const batch = queue.slice(i, i + 4);
    const got = await Promise.all(
      batch.map((u) =>
        ctx.fetcher
          .fetch(u, {
            accept: 'text/css,*/*;q=0.1',
            maxBytes: URL_LIMITS.stylesheetBytes,
            timeoutMs: URL_LIMITS.stylesheetTimeoutMs,
            signal: ctx.signal,
          })
          .then((r) => ({ url: r.url, css: r.body.toString('utf8') }))
          .catch((err: unknown) => {
            // One missing style sheet does not fail the page; an abort does.
            if (ctx.signal.aborted) throw err;
            return undefined;
          }),
      ),
    );
    for (const g of got) {
      if (!g) continue;
      bytes += g.css.length;
      sheets.push(g.css);
      for (const imp of stylesheetImports(g.css)) {
        const abs = resolveHttpUrl(imp, g.url);
        if (abs && !seen.has(abs) && seen.size < URL_LIMITS.maxStylesheets && !FONT_HOSTS.test(new URL(abs).hostname)) {
          seen.add(abs);
          queue.push(abs);
        }
      }
    }
  }
  return sheets;
}

/** Sums the weights of equal hexes and keeps the strongest `max`. */
function compactColors(colors: FoundColor[], max = 40): FoundColor[] {
  const by = new Map<string, FoundColor>();
  for (const c of colors) {
    const key = `${c.hex}|${c.roleHint ?? ''}|${c.logo ? 'logo' : ''}`;
    const prev = by.get(key);
    if (prev) prev.weight += c.weight;
    else by.set(key, { ...c });
  }
  return [...by.values()]
    .sort((a, b) => b.weight - a.weight)
    .slice(0, max)
    .map((c) => ({ ...c, weight: Math.round(c.weight * 1000) / 1000 }));
}

function compactFonts(fonts: FoundFont[], max = 20): FoundFont[] {
  const by = new Map<string, FoundFont>();
  for (const f of fonts) {
    const key = `${f.family.toLowerCase()}|${f.role}`;
    const prev = by.get(key);
    if (prev) {
      prev.weight += f.weight;
      prev.weights = [...new Set([...prev.weights, ...f.weights])].sort((a, b) => a - b);
      if (!prev.fallbacks.length) prev.fallbacks = f.fallbacks;
    } else by.set(key, { ...f, weights: [...f.weights] });
  }
  return [...by.values()].sort((a, b) => b.weight - a.weight).slice(0, max);
}

/**
 * Colours from CSS (weighted by what they style), theme-color metas (6 each, suggested primary),
 * inline SVG logos (3 per use) and inline SVG icons (0.4 per use).
 */
export function urlColors(
  rules: CssRule[],
  facts: Pick<PageFacts, 'themeColors' | 'logoSvgColors' | 'iconColors'>,
  logoImageColors: FoundColor[] = [],
): FoundColor[] {
  const vars = customProperties(rules);
  return compactColors([
    ...cssColors(rules, vars),
    ...facts.themeColors.map((hex) => ({ hex, weight: 6, roleHint: 'primary' as const })),
    ...facts.logoSvgColors.map((hex) => ({ hex, weight: 3, logo: true })),
    ...facts.iconColors.map((hex) => ({ hex, weight: 0.4 })),
    ...logoImageColors,
  ]);
}

/**
 * The colours of the page's logo image (a file, not inline SVG): fetched through the fetcher
 * (bounded), clustered like an uploaded logo, and marked `logo` so its main colour can become the
 * primary. A logo that cannot be fetched or decoded adds nothing (the source does not fail).
 */
async function logoImageColors(ctx: ExtractContext, url: string): Promise<FoundColor[]> {
  try {
    const res = await ctx.fetcher.fetch(url, {
      accept: 'image/*',
      maxBytes: URL_LIMITS.logoBytes,
      timeoutMs: URL_LIMITS.logoTimeoutMs,
      signal: ctx.signal,
    });
    const h = createHistogram();
    await addImage(h, res.body);
    // Shares of the logo's colours, as strong together as the logo's inline-SVG colours would be.
    return paletteFromHistogram(h).colors.map((c) => ({ hex: c.hex, weight: 6 * c.share, logo: true }));
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return [];
  }
}

/**
 * The values the blocks state, whichever engine read them (a language model's reading says no
 * more than which values it found): stated values outrank inferred ones in the merge.
 */
export function withStatedValues(analysis: TextAnalysis, blocks: readonly TextBlock[]): TextAnalysis {
  const stated = statedValues(blocks);
  const { statedValues: _engine, ...rest } = analysis;
  return stated.length > 0 ? { ...rest, statedValues: stated } : rest;
}

export async function extractUrl(
  sourceId: string,
  url: string,
  ctx: ExtractContext,
): Promise<{ findings: SourceFindings; label?: string }> {
  await ctx.note('Fetching the page');
  const page = await fetchPage(ctx, url);
  const facts = analyzePage(page.html, page.url);
  await ctx.note(`Reading ${Math.min(facts.stylesheetUrls.length, URL_LIMITS.maxStylesheets)} style sheets`);
  const sheets = await fetchStylesheets(ctx, facts.stylesheetUrls);
  const aboutBlocks: TextBlock[] = [];
  for (const link of facts.aboutLinks.slice(0, URL_LIMITS.maxAboutPages)) {
    try {
      const about = await fetchPage(ctx, link);
      for (const b of analyzePage(about.html, about.url).blocks) {
        if (b.kind === 'paragraph' || b.kind === 'description') aboutBlocks.push({ kind: 'about', text: b.text });
        else if (b.kind !== 'title') aboutBlocks.push(b);
      }
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // An unreachable about page is not a failure of the source.
    }
  }
  const rules = [...sheets, ...facts.styleBlocks].flatMap((css) => parseCss(css));
  rules.push(...facts.inlineRules);
  const vars = customProperties(rules);
  const fonts = compactFonts([
    ...cssFonts(rules, vars),
    ...facts.webFonts.map((w) => ({
      family: w.family,
      role: 'any' as const,
      weight: 1,
      weights: w.weights,
      fallbacks: [],
    })),
  ]);
  await ctx.note('Analysing the copy');
  const blocks = [...facts.blocks, ...aboutBlocks];
  const text = withStatedValues(
    await ctx.analyzer.analyze(
      {
        ...(ctx.brandName ? { brandName: ctx.brandName } : {}),
        declaredNames: facts.declaredNames,
        blocks,
      },
      { signal: ctx.signal },
    ),
    blocks,
  );
  const logo = pageLogo(facts.logos);
  // The logo's own colours, when it is a picture file that looks like a logo (not an icon guess).
  const logoColors =
    logo && logo.score >= 3 && facts.logoSvgColors.length === 0 && /^https?:/i.test(logo.url)
      ? await logoImageColors(ctx, logo.url)
      : [];
  const subjects = subjectsIn(facts.imageAlts);
  const findings: SourceFindings = {
    sourceId,
    type: 'url',
    colors: urlColors(rules, facts, logoColors),
    fonts,
    logos: logo ? [{ url: logo.url, score: logo.score }] : [],
    text,
    ...(subjects.length ? { imagery: { style: [], subjects } } : {}),
  };
  return { findings, ...(facts.title ? { label: facts.title.slice(0, 200) } : {}) };
}

// --------------------------------------------------------------------------------------------
// Assets

async function withDownload<T>(
  ctx: ExtractContext,
  asset: AssetSource,
  work: (file: string) => Promise<T>,
): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-dna-'));
  try {
    const file = path.join(dir, 'original');
    await downloadToFile(ctx.storage, asset.storageKey, file);
    ctx.signal.throwIfAborted();
    return await work(file);
  } catch (err) {
    if (isMediaError(err)) throw new SourceError(err.message, { cause: err });
    if (isStorageError(err) && err.code === 'NOT_FOUND') {
      throw new SourceError('The asset’s file is missing from storage; upload it again', { cause: err });
    }
    throw err;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const WORK_SIZE = 256;

/** Adds an image file (first frame) to a histogram, decoded at most 256 px on the long edge. */
async function addImage(h: HistogramBuilder, input: string | Buffer): Promise<void> {
  try {
    const { data, info } = await sharp(input, { limitInputPixels: DEFAULT_MEDIA_LIMITS.maxPixels, failOn: 'truncated' })
      .autoOrient()
      .resize(WORK_SIZE, WORK_SIZE, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    h.add(new Uint8Array(data.buffer, data.byteOffset, data.length), info.width, info.height);
  } catch (err) {
    throw new MediaError('CORRUPT', 'The image could not be decoded.', { decoderMessage: (err as Error).message });
  }
}

function pictureFindings(sourceId: string, type: SourceType, asset: AssetSource, h: HistogramBuilder): SourceFindings {
  const p = paletteFromHistogram(h);
  const isLogo = asset.type === 'logo';
  const subjects = subjectsIn([asset.fileName.replace(/[_.]/g, ' '), asset.description ?? '', ...asset.tags]);
  return {
    sourceId,
    type,
    ...(isLogo ? { isLogo: true } : {}),
    colors: p.colors.map((c) => ({ hex: c.hex, weight: c.share })),
    fonts: [],
    logos: isLogo ? [{ assetId: asset.assetId, score: 10 }] : [],
    imagery: { style: isLogo ? [] : imageryStyle(p.stats, p.backgroundShare, p.transparentShare), subjects },
  };
}

export async function extractImage(sourceId: string, asset: AssetSource, ctx: ExtractContext): Promise<SourceFindings> {
  await ctx.note('Clustering the colours');
  return withDownload(ctx, asset, async (file) => {
    const h = createHistogram();
    await addImage(h, file);
    return pictureFindings(sourceId, 'image', asset, h);
  });
}

/** Frames sampled from a video: evenly spread, at the middle of each of `n` equal spans. */
export function frameTimes(durationSeconds: number | undefined, n = 6): number[] {
  if (!durationSeconds || !Number.isFinite(durationSeconds) || durationSeconds <= 0) return [0];
  return Array.from({ length: n }, (_, i) => Math.round(((i + 0.5) / n) * durationSeconds * 1000) / 1000);
}

export async function extractVideo(sourceId: string, asset: AssetSource, ctx: ExtractContext): Promise<SourceFindings> {
  return withDownload(ctx, asset, async (file) => {
    const probe = await probeVideo(file, 30_000);
    const times = frameTimes(probe.durationSeconds);
    const h = createHistogram();
    let frames = 0;
    for (const [i, t] of times.entries()) {
      ctx.signal.throwIfAborted();
      await ctx.note(`Sampling frame ${i + 1} of ${times.length}`);
      const r = await runProcess(ffmpegPath(), posterArgs(file, t, WORK_SIZE), {
        timeoutMs: 30_000,
        maxStdoutBytes: 16 * 1024 * 1024,
        label: 'Sampling a video frame',
      });
      if (r.exitCode === 0 && r.stdout.length > 0) {
        await addImage(h, r.stdout);
        frames++;
      }
    }
    if (frames === 0) throw new SourceError('No frame of the video could be decoded');
    return pictureFindings(sourceId, 'video', asset, h);
  });
}

/** Findings of guideline text (a PDF or a Word document). */
async function guidelineFindings(
  sourceId: string,
  type: 'pdf' | 'document',
  text: string,
  ctx: ExtractContext,
): Promise<SourceFindings> {
  const colors: FoundColor[] = colorSpecs(text).map((s) => ({
    hex: s.hex,
    weight: 1 / (1 + 0.15 * s.index),
    explicit: true,
    ...(s.roleHint ? { roleHint: s.roleHint } : {}),
    ...(s.name ? { name: s.name } : {}),
    ...(s.pantone ? { pantone: s.pantone } : {}),
  }));
  const fonts: FoundFont[] = fontSpecs(text).map((f) => ({
    family: f.family,
    role: f.role,
    weight: f.role === 'any' ? 0.5 : 1,
    weights: f.weights,
    fallbacks: f.fallbacks,
    explicit: true,
  }));
  const firstLine = text.split('\n').find((l) => l.trim().length > 0);
  const named = brandNameFromTitle(firstLine);
  await ctx.note('Analysing the copy');
  const blocks = guidelineBlocks(text);
  const analysis = withStatedValues(
    await ctx.analyzer.analyze(
      {
        ...(ctx.brandName ? { brandName: ctx.brandName } : {}),
        declaredNames: named ? [named] : [],
        blocks,
      },
      { signal: ctx.signal },
    ),
    blocks,
  );
  return { sourceId, type, colors, fonts, logos: [], text: analysis };
}

export async function extractPdf(sourceId: string, asset: AssetSource, ctx: ExtractContext): Promise<SourceFindings> {
  await ctx.note('Reading the document');
  const { text, pageCount } = await withDownload(ctx, asset, (file) => extractPdfText(file, { maxPages: 40 }));
  const findings = await guidelineFindings(sourceId, 'pdf', text, ctx);
  return { ...findings, pageCount };
}

export async function extractDocument(
  sourceId: string,
  asset: AssetSource,
  ctx: ExtractContext,
): Promise<SourceFindings> {
  await ctx.note('Reading the document');
  const text = asset.extra.text ?? (await withDownload(ctx, asset, (file) => extractWordText(file))).text;
  return guidelineFindings(sourceId, 'document', text, ctx);
}

export async function extractFont(sourceId: string, asset: AssetSource, ctx: ExtractContext): Promise<SourceFindings> {
  await ctx.note('Reading the font');
  let family = asset.extra.fontFamily;
  let weights = asset.extra.fontStyle ? weightsIn(asset.extra.fontStyle) : [];
  if (!family) {
    const f = await withDownload(ctx, asset, (file) => analyzeFont(file));
    family = f.familyName;
    weights = f.weight ? [Math.min(900, Math.max(100, Math.round(f.weight / 100) * 100))] : weights;
  }
  if (!family) throw new SourceError('The font file names no family');
  return {
    sourceId,
    type: 'font',
    colors: [],
    fonts: [
      { family, role: 'any', weight: 1, weights: weights.length ? weights : [400], fallbacks: [], explicit: true },
    ],
    logos: [],
  };
}

export function extractAsset(
  sourceId: string,
  type: SourceType,
  asset: AssetSource,
  ctx: ExtractContext,
): Promise<SourceFindings> {
  switch (type) {
    case 'image':
      return extractImage(sourceId, asset, ctx);
    case 'video':
      return extractVideo(sourceId, asset, ctx);
    case 'pdf':
      return extractPdf(sourceId, asset, ctx);
    case 'document':
      return extractDocument(sourceId, asset, ctx);
    case 'font':
      return extractFont(sourceId, asset, ctx);
    default:
      throw new SourceError(`Sources of type ${type} are not read from assets`);
  }
}

import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { stylesheetImageRefs } from './css-images.ts';
import { addCss } from './discovery-css.ts';
import { visitLink, visitSvg } from './discovery-icons.ts';
import { largestRendition, visitElementImages, visitImg, visitVideo } from './discovery-images.ts';
import { addJsonLd } from './discovery-json-ld.ts';
import { visitMeta } from './discovery-meta.ts';
import { mergeRenditions } from './discovery-renditions.ts';
import {
  type Ctx,
  type DiscoveredCandidate,
  type DiscoveryOptions,
  type DiscoveryResult,
  type DiscoveryWalk,
  type Draft,
  type DraftOrigin,
  MAX_INLINE_BYTES,
  MAX_TEXTS,
  MIN_DATA_URL_BYTES,
  type PageSignals,
  type Region,
  type Sighting,
} from './discovery-types.ts';
import {
  addText,
  classTokens,
  folderTokens,
  hash,
  isHidden,
  REGION_CLASS,
  ROLE_REGION,
  round3,
  stripSiteName,
  textOf,
  wordTokens,
  IMAGE_EXT,
  pushUnique,
} from './discovery-util.ts';
import { cleanText, tokenize, tokenOverlap } from './text.ts';
import {
  fileNameOf,
  hasPixelPath,
  isHomeUrl,
  isTrackerHost,
  linkAway,
  siteOf,
  normalizeImageUrl,
  parseDataUrl,
  resolveHttpUrl,
  imageIdentityTokens,
  normalizeImageUrl as normalize,
} from './urls.ts';

export type * from './discovery-types.ts';
export { jsonLdImages } from './discovery-json-ld.ts';

const ANCESTOR_TOKEN_DEPTH = 8;

/**
 * Image discovery: everything a page's markup (and the style sheets the caller fetched) says
 * about its pictures, as candidates with absolute URLs and the evidence the ranker scores.
 * Pure: no network, no clock; the same input gives the same output.
 *
 * This file walks the document and collects sightings into candidates; each source has its own
 * file: discovery-meta.ts (og/twitter meta tags), discovery-json-ld.ts (JSON-LD and microdata),
 * discovery-images.ts (img, srcset, picture, lazy/zoom attributes, video posters, inline styles),
 * discovery-css.ts (style sheets), discovery-icons.ts (icon links and inline SVG), and
 * discovery-renditions.ts (renditions of one picture folded into one candidate).
 */

/**
 * Finds image candidates in `html`. URLs are resolved against `<base href>` or `pageUrl`; only
 * http(s) URLs are kept, plus `data:image/...` URLs of at least 1 KiB (smaller ones are
 * placeholders) and inline `<svg>` logos (markup kept for rasterising).
 */
export function discoverCandidates(html: string, pageUrl: string, opts: DiscoveryOptions = {}): DiscoveryResult {
  const $ = loadHtml(html);
  return new Discovery($, pageUrl).run(opts.stylesheets ?? []);
}

/** Style sheets the page links (`<link rel=stylesheet>`, except print-only), resolved. */
export function linkedStylesheetUrls(html: string, pageUrl: string): string[] {
  const $ = loadHtml(html);
  const base = baseUrlOf($, pageUrl);
  const out = new Set<string>();
  $('link[href]').each((_, el) => {
    const rel = (el.attribs.rel ?? '').toLowerCase().split(/\s+/);
    const isSheet = rel.includes('stylesheet') || (rel.includes('preload') && el.attribs.as === 'style');
    if (!isSheet || rel.includes('alternate') || /^\s*print\s*$/i.test(el.attribs.media ?? '')) return;
    const url = resolveHttpUrl(el.attribs.href, base);
    if (url) out.add(url);
  });
  return [...out];
}

function loadHtml(html: string): CheerioAPI {
  // htmlparser2 rather than parse5: about five times faster and far less garbage on 1 MB pages,
  // and it parses <noscript> content as markup, where lazy-loading pages put plain <img> fallbacks.
  return cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } });
}

function baseUrlOf($: CheerioAPI, pageUrl: string): string {
  return resolveHttpUrl($('base[href]').first().attr('href'), pageUrl) ?? pageUrl;
}

/** The walk and the collected candidates; the per-source files call its `add…` methods. */
class Discovery implements DiscoveryWalk {
  base: string;
  readonly drafts = new Map<string, Draft>();
  readonly ctxOf = new Map<Element, Ctx>();
  readonly indexOf = new Map<Element, number>();
  /** First element carrying each class and id, to place CSS background pictures on the page. */
  readonly firstByClass = new Map<string, Element>();
  readonly firstById = new Map<string, Element>();
  readonly styleTexts: string[] = [];
  readonly page: PageSignals;
  readonly stats = { dataUrlsSkipped: 0, inlineSvgsSkipped: 0 };
  elementCount = 0;
  lastHeading: string | undefined;
  lastOgImage: Draft | undefined;
  h1: string | undefined;
  ogTitle: string | undefined;
  /** og:site_name, application-name. */
  readonly siteNames: string[] = [];
  jsonLdName: string | undefined;

  readonly $: CheerioAPI;

  constructor($: CheerioAPI, pageUrl: string) {
    this.$ = $;
    this.base = pageUrl;
    this.page = {
      url: pageUrl,
      baseUrl: this.base,
      ogImages: [],
      jsonLdProductImages: [],
      microdataProductImages: [],
      videoPosters: [],
      elementCount: 0,
    };
  }

  run(stylesheets: { url: string; css: string }[]): DiscoveryResult {
    const root: Ctx = {
      depth: 0,
      regions: [],
      inMain: false,
      inHomeLink: false,
      tokenTrail: [],
      productScope: false,
      hidden: false,
    };
    this.walk(this.$.root()[0]!, root);
    this.page.elementCount = this.elementCount;
    for (const css of this.styleTexts) addCss(this, stylesheetImageRefs(css), this.base, 'style-element');
    for (const sheet of stylesheets) {
      const sheetBase = resolveHttpUrl(sheet.url, this.base) ?? this.base;
      addCss(this, stylesheetImageRefs(sheet.css), sheetBase, 'stylesheet');
    }
    this.page.productName = this.jsonLdName ?? stripSiteName(this.ogTitle) ?? this.h1 ?? stripSiteName(this.page.title);
    const candidates = this.finish();
    return { page: this.page, candidates, stats: this.stats };
  }

  // ---- DOM walk -------------------------------------------------------------------------------

  walk(node: AnyNode, ctx: Ctx): void {
    const children = 'children' in node ? node.children : [];
    for (const child of children) {
      if (child.type !== 'tag' && child.type !== 'script' && child.type !== 'style') continue;
      const el = child as Element;
      const index = this.elementCount++;
      const name = el.name.toLowerCase();
      if (name === 'script') {
        if ((el.attribs.type ?? '').toLowerCase().includes('ld+json')) addJsonLd(this, textOf(el));
        continue;
      }
      if (name === 'style') {
        this.styleTexts.push(textOf(el));
        continue;
      }
      if (name === 'template' || name === 'iframe' || name === 'object') continue;
      const own = this.childCtx(el, name, ctx);
      this.ctxOf.set(el, own);
      this.indexOf.set(el, index);
      if (el.attribs.id && !this.firstById.has(el.attribs.id)) this.firstById.set(el.attribs.id, el);
      if (el.attribs.class) {
        for (const cls of el.attribs.class.split(/\s+/))
          if (cls && !this.firstByClass.has(cls)) this.firstByClass.set(cls, el);
      }
      this.visit(el, name, own);
      if (name === 'svg') continue;
      if (own.depth < 400) this.walk(el, own);
    }
  }

  childCtx(el: Element, name: string, parent: Ctx): Ctx {
    const a = el.attribs;
    let ctx: Ctx | undefined;
    const edit = (): Ctx => {
      ctx ??= { ...parent, depth: parent.depth + 1 };
      return ctx;
    };
    const region = this.regionOf(el, name, parent.inMain);
    if (region && !parent.regions.includes(region)) edit().regions = [...parent.regions, region];
    if ((name === 'main' || name === 'article' || a.role === 'main') && !parent.inMain) edit().inMain = true;
    if (name === 'a' && a.href) {
      const c = edit();
      c.inHomeLink = isHomeUrl(a.href, this.base);
      const away = c.inHomeLink ? undefined : linkAway(a.href, this.base);
      if (away) c.linkAway = away;
      else delete c.linkAway;
      const target = resolveHttpUrl(a.href, this.base);
      c.imageLink = target && IMAGE_EXT.test(target) ? target : undefined;
      c.linkTitle = a.title ?? a['aria-label'];
    }
    // <html> classes are feature flags (Modernizr's `no-video`), and page-state classes on <body>
    // (`modal-open`) say nothing about one picture: neither names a pop-up or a video.
    const classId = name === 'html' ? '' : `${a.class ?? ''} ${a.id ?? ''}`.trim();
    if (classId) {
      const tokens = classTokens(classId).filter((t) => name !== 'body' || (t !== 'video' && t !== 'popup'));
      if (tokens.length > 0) {
        const c = edit();
        const depth = parent.depth + 1;
        c.tokenTrail = [...parent.tokenTrail.filter((t) => depth - t.depth < ANCESTOR_TOKEN_DEPTH), { depth, tokens }];
      }
    }
    if (a.itemtype && /schema\.org\/(?:Product|IndividualProduct|ProductModel|ProductGroup)\b/i.test(a.itemtype)) {
      edit().productScope = true;
    }
    if (name === 'figure') {
      const cap = this.$(el).children('figcaption').first();
      if (cap.length) edit().caption = cleanText(cap.text(), 200);
    }
    if (!parent.hidden && isHidden(el)) edit().hidden = true;
    const own = ctx ?? { ...parent, depth: parent.depth + 1 };
    if (name === 'h1' || name === 'h2' || name === 'h3') {
      const text = cleanText(this.$(el).text(), 160);
      if (text) {
        this.lastHeading = text;
        if (name === 'h1' && own.regions.length === 0) this.h1 ??= text;
      }
    }
    return own;
  }

  regionOf(el: Element, name: string, inMain: boolean): Region | undefined {
    if (name === 'nav') return 'nav';
    if (name === 'aside') return 'aside';
    if ((name === 'header' || name === 'footer') && !inMain) return name;
    const role = el.attribs.role && ROLE_REGION[el.attribs.role.toLowerCase()];
    if (role) return role;
    const classId = `${el.attribs.id ?? ''} ${el.attribs.class ?? ''}`.toLowerCase();
    if (!classId.trim()) return undefined;
    for (const token of classId.split(/\s+/)) {
      const m = REGION_CLASS.exec(token);
      if (!m) continue;
      const word = m[1]!;
      if (word === 'footer') return 'footer';
      if (word === 'header' || word === 'masthead' || word === 'topbar') return inMain ? undefined : 'header';
      if (word === 'sidebar') return 'aside';
      return 'nav';
    }
    return undefined;
  }

  visit(el: Element, name: string, ctx: Ctx): void {
    const a = el.attribs;
    switch (name) {
      case 'meta':
        visitMeta(this, el, ctx);
        return;
      case 'link':
        visitLink(this, el, ctx);
        return;
      case 'base': {
        // Only the first <base href> counts, and it sits in <head> before any URL it resolves.
        const href = this.page.baseUrl === this.page.url ? resolveHttpUrl(a.href, this.page.url) : undefined;
        if (href) this.base = this.page.baseUrl = href;
        return;
      }
      case 'title':
        this.page.title ??= cleanText(this.$(el).text(), 200) || undefined;
        return;
      case 'img':
        visitImg(this, el, ctx);
        break;
      case 'video':
        visitVideo(this, el, ctx);
        break;
      case 'svg':
        visitSvg(this, el, ctx);
        return;
    }
    visitElementImages(this, el, name, ctx);
  }

  // ---- collecting --------------------------------------------------------------------------------

  /** Resolves one raw URL (or data URL) and records a sighting of it. */
  addUrlSighting(
    raw: string | undefined,
    s: Omit<Sighting, 'renditions'>,
    microdataProduct = false,
  ): Draft | undefined {
    if (!raw) return undefined;
    if (/^\s*data:/i.test(raw)) return this.addDataUrl(raw, { ...s, renditions: [] });
    const url = resolveHttpUrl(raw, this.base);
    if (!url || this.isThePage(url)) return undefined;
    return this.addSighting(
      { ...s, renditions: [{ url, source: s.source, width: s.width, height: s.height }] },
      microdataProduct,
    );
  }

  /**
   * True for the page's own address (a declared "image" that is the page, or a JSON-LD node id
   * like `…/post/#primaryimage`): a page is never an image candidate.
   */
  isThePage(url: string): boolean {
    const bare = (u: string) => normalizeImageUrl(u.replace(/#.*$/, '')).replace(/\/$/, '');
    return !IMAGE_EXT.test(url) && (bare(url) === bare(this.page.url) || bare(url) === bare(this.base));
  }

  addDataUrl(raw: string, s: Sighting): Draft | undefined {
    const parsed = parseDataUrl(raw);
    if (!parsed || parsed.byteLength < MIN_DATA_URL_BYTES || raw.length > MAX_INLINE_BYTES * 2) {
      this.stats.dataUrlsSkipped++;
      return undefined;
    }
    const url = raw.trim();
    const draft = this.draftFor(`data:${hash(url)}`, () => ({ type: 'data-url', url, mimeType: parsed.mimeType }));
    this.merge(draft, { ...s, source: s.source === 'img' ? 'data-url' : s.source });
    draft.sources.add('data-url');
    return draft;
  }

  /** Records a sighting under its largest rendition; the other renditions become alternates. */
  addSighting(s: Sighting, microdataProduct = false): Draft | undefined {
    const best = largestRendition(s.renditions, s.displayWidth);
    if (!best) return undefined;
    const draft = this.draftFor(normalizeImageUrl(best.url), () => ({ type: 'url', url: best.url }));
    this.merge(draft, {
      ...s,
      width: best.width ?? s.width,
      height:
        best.height ??
        (best.width && s.displayWidth && s.displayHeight
          ? Math.round((best.width * s.displayHeight) / s.displayWidth)
          : s.height),
    });
    draft.sources.add(best.source);
    for (const r of s.renditions) {
      const altKey = normalizeImageUrl(r.url);
      if (altKey !== normalizeImageUrl(best.url) && !draft.alternates.has(altKey)) {
        draft.alternates.set(altKey, r.width ? { url: r.url, width: r.width } : { url: r.url });
      }
    }
    if (microdataProduct) {
      draft.candidate.evidence.main.microdataProduct = true;
      pushUnique(this.page.microdataProductImages, best.url);
    }
    return draft;
  }

  /** The draft under `mapKey` (a normalised URL or a content hash), created on first sight. */
  draftFor(mapKey: string, make: () => DraftOrigin): Draft {
    let draft = this.drafts.get(mapKey);
    if (draft) return draft;
    const origin = make();
    const fileName = origin.type === 'url' ? fileNameOf(origin.url) : '';
    const candidate = {
      key: origin.type === 'url' ? origin.url : mapKey,
      ...origin,
      alternates: [],
      evidence: {
        sources: [],
        texts: [],
        fileName,
        regions: [],
        inHomeLink: false,
        tokens: [],
        contextTokens: [],
        context: [],
        tracking: [],
        hidden: false,
        inProductScope: false,
        main: { ogImage: false, jsonLdProduct: false, microdataProduct: false, primary: false, sameAsMain: false },
        nameMatch: 0,
        occurrences: 0,
      },
    } as DiscoveredCandidate;
    draft = {
      candidate,
      sources: new Set(),
      texts: new Set(),
      tokens: new Set(wordTokens(fileName.replace(/\.[a-z0-9]+$/i, ''))),
      contextTokens: new Set(),
      context: new Set(),
      regions: new Set(),
      tracking: new Set(),
      alternates: new Map(),
      everVisible: false,
      elements: [],
    };
    if (origin.type === 'url') {
      for (const t of folderTokens(origin.url)) draft.contextTokens.add(t);
      if (isTrackerHost(origin.url)) draft.tracking.add('tracker-host');
      if (hasPixelPath(origin.url)) draft.tracking.add('pixel-path');
    }
    this.drafts.set(mapKey, draft);
    return draft;
  }

  merge(draft: Draft, s: Sighting): void {
    const ev = draft.candidate.evidence;
    ev.occurrences++;
    draft.sources.add(s.source);
    if (s.width && s.width > (ev.width ?? 0)) ev.width = s.width;
    if (s.height && s.height > (ev.height ?? 0)) ev.height = s.height;
    if (s.displayWidth && s.displayWidth > (ev.displayWidth ?? 0)) ev.displayWidth = s.displayWidth;
    if (s.displayHeight && s.displayHeight > (ev.displayHeight ?? 0)) ev.displayHeight = s.displayHeight;
    if (s.displayWidth !== undefined && s.displayHeight !== undefined && s.displayWidth <= 2 && s.displayHeight <= 2) {
      draft.tracking.add('declared-1x1');
    }
    for (const t of s.texts ?? []) addText(draft.texts, t);
    for (const t of s.context ?? []) if (t) draft.context.add(t);
    for (const t of s.tokens ?? []) draft.tokens.add(t);
    if ((s.texts ?? []).some((t) => t && /\blogo/i.test(t))) draft.tokens.add('logo');
    const ctx = s.ctx;
    const el = s.el;
    if (el && draft.elements.length < 4 && !draft.elements.includes(el)) draft.elements.push(el);
    if (el && ctx) {
      const index = this.indexOf.get(el);
      if (index !== undefined && (ev.domIndex === undefined || index < ev.domIndex)) ev.domIndex = index;
      for (const r of ctx.regions) draft.regions.add(r);
      if (ctx.inHomeLink) ev.inHomeLink = true;
      else if (ctx.linkAway === 'site') ev.inSiteLink = true;
      else if (ctx.linkAway === 'external') ev.inExternalLink = true;
      if (ctx.productScope) ev.inProductScope = true;
      // The element's own class/id is the last trail entry at its depth.
      for (const entry of ctx.tokenTrail) {
        for (const t of entry.tokens) (entry.depth === ctx.depth ? draft.tokens : draft.contextTokens).add(t);
      }
      if (ctx.caption) draft.context.add(ctx.caption);
      if (!ctx.hidden) draft.everVisible = true;
    }
  }

  /** Turns drafts into candidates: evidence sets become arrays, main-image signals are applied. */
  finish(): DiscoveredCandidate[] {
    mergeRenditions(this.drafts);
    const ogSet = new Set(this.page.ogImages.map(normalizeImageUrl));
    const ldSet = new Set(this.page.jsonLdProductImages.map(normalizeImageUrl));
    const primaries = new Set(
      [this.page.ogImages[0], this.page.jsonLdProductImages[0]].filter((u) => u !== undefined).map(normalizeImageUrl),
    );
    const mains = [...this.page.ogImages, ...this.page.jsonLdProductImages, ...this.page.microdataProductImages];
    const nameTokens = tokenize(this.page.productName);
    // How many candidates carry each identity token: one that many pictures share (a storage
    // bucket's id, a site-wide hash) says nothing about which picture a URL shows.
    const identityCounts = new Map<string, number>();
    for (const d of this.drafts.values()) {
      if (d.candidate.type !== 'url') continue;
      for (const t of new Set(imageIdentityTokens(d.candidate.url)))
        identityCounts.set(t, (identityCounts.get(t) ?? 0) + 1);
    }
    const walls = logoWalls(this.drafts.values());
    const site = siteTokens(this.page.url, this.page.title, this.siteNames);
    const out: DiscoveredCandidate[] = [];
    for (const draft of this.drafts.values()) {
      const c = draft.candidate;
      const ev = c.evidence;
      ev.sources = [...draft.sources];
      ev.texts = [...draft.texts].slice(0, MAX_TEXTS);
      ev.tokens = [...draft.tokens];
      ev.contextTokens = [...draft.contextTokens];
      ev.context = [...draft.context].slice(0, MAX_TEXTS);
      ev.regions = [...draft.regions];
      ev.tracking = [...draft.tracking];
      ev.hidden = !draft.everVisible && ev.domIndex !== undefined;
      c.alternates = [...draft.alternates.values()];
      if (walls.has(draft)) ev.amongLogos = true;
      if (namesOnly(ev.texts, site)) ev.namesSite = true;
      if (ev.domIndex !== undefined && this.elementCount > 0) ev.position = round3(ev.domIndex / this.elementCount);
      if (c.type === 'url') {
        const urls = [c.url, ...c.alternates.map((r) => r.url)].map(normalizeImageUrl);
        if (urls.some((u) => ogSet.has(u))) ev.main.ogImage = true;
        if (urls.some((u) => ldSet.has(u))) ev.main.jsonLdProduct = true;
        if (urls.some((u) => primaries.has(u))) ev.main.primary = true;
        const isMain = ev.main.ogImage || ev.main.jsonLdProduct || ev.main.microdataProduct;
        if (!isMain && mains.some((m) => sharesRareIdentity(m, c.url, identityCounts))) ev.main.sameAsMain = true;
      }
      if (nameTokens.length > 0) {
        const have = new Set([...tokenize(ev.texts.join(' ')), ...tokenize(ev.fileName.replace(/\.[a-z0-9]+$/i, ''))]);
        ev.nameMatch = round3(tokenOverlap(nameTokens.slice(0, 12), have));
      }
      out.push(c);
    }
    return out;
  }
}

/** Generic words of site names and titles that name no particular site. */
const GENERIC_SITE_WORDS = new Set([
  'shop',
  'store',
  'online',
  'official',
  'site',
  'home',
  'www',
  'com',
  'logo',
  'the',
]);
/** Words a logo's alt text adds to the site's name ("Argos Logo - Load homepage", "Go to the homepage"). */
const LOGO_ALT_WORDS = new Set([
  ...GENERIC_SITE_WORDS,
  'homepage',
  'go',
  'to',
  'back',
  'visit',
  'load',
  'main',
  'page',
  'start',
]);

/**
 * An alt text or title that names the site and nothing else ("eBay logo", "Silicon Valley Business
 * Journal"): not a sub-brand ("ZARA SRPLS", "Amazon Music") nor a product.
 */
function namesOnly(texts: readonly string[], site: ReadonlySet<string>): boolean {
  return texts.some((text) => {
    const words = tokenize(text).filter((t) => !LOGO_ALT_WORDS.has(t));
    return words.length > 0 && words.every((t) => site.has(t));
  });
}

/**
 * Words naming the site: its declared names, the first and last parts of its title when separators
 * split it ("Amazon.com: …", "… | Zalando"), and its domain's name (`johnlewis` of johnlewis.com).
 */
function siteTokens(pageUrl: string, title: string | undefined, declared: readonly string[]): Set<string> {
  const parts = (title ?? '').split(/\s+[|\-–—:·»]\s+|:\s/).map((x) => x.trim());
  const names = [...declared, ...(parts.length > 1 ? [parts[0]!, parts.at(-1)!] : [])];
  try {
    names.push(siteOf(new URL(pageUrl).hostname).split('.')[0]!);
  } catch {
    // no host, no name
  }
  return new Set(tokenize(names.join(' ')).filter((t) => t.length >= 3 && !GENERIC_SITE_WORDS.has(t)));
}

/**
 * Drafts named logo that sit, three or more different pictures together, within three levels of
 * one element: a row of partner, payment, sister-project or brand logos.
 */
function logoWalls(drafts: Iterable<Draft>): Set<Draft> {
  const byAncestor = new Map<Element, Set<Draft>>();
  for (const d of drafts) {
    if (!d.tokens.has('logo')) continue;
    for (const el of d.elements) {
      let p = el.parent;
      for (let i = 0; i < 3 && p && p.type === 'tag'; i++, p = p.parent) {
        const set = byAncestor.get(p as Element) ?? new Set<Draft>();
        set.add(d);
        byAncestor.set(p as Element, set);
      }
    }
  }
  const out = new Set<Draft>();
  for (const set of byAncestor.values()) if (set.size >= 3) for (const d of set) out.add(d);
  return out;
}

/** Same picture: equal URLs, or an identity token (see `imageIdentityTokens`) few candidates share. */
function sharesRareIdentity(a: string, b: string, counts: ReadonlyMap<string, number>): boolean {
  if (normalize(a) === normalize(b)) return true;
  const tb = new Set(imageIdentityTokens(b));
  return imageIdentityTokens(a).some((t) => tb.has(t) && (counts.get(t) ?? 0) <= 3);
}

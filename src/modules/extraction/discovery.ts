import { createHash } from 'node:crypto';
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { type CssImageRef, inlineStyleImageRefs, stylesheetImageRefs } from './css-images.ts';
import { cleanText, tokenize, tokenOverlap } from './text.ts';
import {
  fileNameOf,
  hasPixelPath,
  isHomeUrl,
  isPlaceholderUrl,
  isTrackerHost,
  normalizeImageUrl,
  parseDataUrl,
  parseSrcset,
  resolveHttpUrl,
  renditionKey,
  sameImageIdentity,
  urlSizeHint,
} from './urls.ts';

/**
 * Image discovery: everything a page's markup (and the style sheets the caller fetched) says
 * about its pictures, as candidates with absolute URLs and the evidence the ranker scores.
 * Pure: no network, no clock; the same input gives the same output.
 */

/** Where a candidate was found. */
export type SourceKind =
  | 'img'
  | 'srcset'
  | 'lazy'
  | 'lazy-background'
  | 'zoom'
  | 'picture'
  | 'linked-image'
  | 'og:image'
  | 'twitter:image'
  | 'og:logo'
  | 'json-ld-product'
  | 'json-ld-image'
  | 'json-ld-logo'
  | 'itemprop'
  | 'icon'
  | 'apple-touch-icon'
  | 'mask-icon'
  | 'preload'
  | 'inline-style'
  | 'style-element'
  | 'stylesheet'
  | 'video-poster'
  | 'inline-svg'
  | 'data-url';

/** Page chrome an element sits in. */
export type Region = 'header' | 'nav' | 'footer' | 'aside';

/** Canonical words found in class/id attributes (and, for the element itself, alt text and file name). */
export type Token =
  | 'logo'
  | 'product'
  | 'main'
  | 'gallery'
  | 'hero'
  | 'banner'
  | 'thumbnail'
  | 'icon'
  | 'avatar'
  | 'sprite'
  | 'badge'
  | 'ad'
  | 'related'
  | 'social'
  | 'payment'
  | 'rating'
  | 'flag'
  | 'swatch'
  | 'background';

export type TrackingSignal = 'declared-1x1' | 'tracker-host' | 'pixel-path';

export interface Rendition {
  url: string;
  /** Intrinsic width when the page declares it (`w` descriptor, JSON map, og:image:width). */
  width?: number;
}

export interface Evidence {
  /** Distinct kinds of source, in the order first seen. */
  sources: SourceKind[];
  /** alt, title, aria-label, og:image:alt, JSON-LD caption (distinct, at most 8). */
  texts: string[];
  /** Last path segment of the URL ('' for inline SVG). */
  fileName: string;
  /** Intrinsic size the page declares for this rendition, when it does. */
  width?: number;
  height?: number;
  /** Rendered size from width/height attributes or inline style. */
  displayWidth?: number;
  displayHeight?: number;
  /** Document-order index of the first element that shows it; absent for head-only sources. */
  domIndex?: number;
  /** `domIndex` over the page's element count (0 = top of page). */
  position?: number;
  regions: Region[];
  /** Inside a link to the site's home page. */
  inHomeLink: boolean;
  /** Tokens of the element itself (class, id, alt, file name). */
  tokens: Token[];
  /** Tokens of its nearest ancestors' class and id. */
  contextTokens: Token[];
  /** figcaption, nearest preceding heading, title of an enclosing link. */
  context: string[];
  tracking: TrackingSignal[];
  /** Every occurrence is hidden (display:none, visibility:hidden, `hidden`). */
  hidden: boolean;
  /** Inside an element with a schema.org Product `itemtype`. */
  inProductScope: boolean;
  main: {
    ogImage: boolean;
    jsonLdProduct: boolean;
    microdataProduct: boolean;
    /** The first og:image or the first JSON-LD Product image: what the page calls its picture. */
    primary: boolean;
    /** Another rendition of a declared main image (shares an image id with it). */
    sameAsMain: boolean;
  };
  /** Share (0..1) of the product name's words found in the alt text, title or file name. */
  nameMatch: number;
  /** How many elements or declarations point at it. */
  occurrences: number;
}

interface CandidateBase {
  /**
   * Unique within the page: the URL (as first seen; URLs that differ only in scheme, `www.` or
   * needless escapes are one candidate), or `inline-svg:`/`data:` plus a content hash.
   */
  key: string;
  /** Smaller renditions of the same picture (srcset entries, `src` of a zoomable image). */
  alternates: Rendition[];
  evidence: Evidence;
}

export type DiscoveredCandidate = CandidateBase &
  (
    | { type: 'url'; url: string }
    | { type: 'data-url'; url: string; mimeType: string }
    | { type: 'inline-svg'; svgMarkup: string }
  );

export interface PageSignals {
  url: string;
  /** `<base href>` resolved, else the page URL. */
  baseUrl: string;
  title?: string;
  /** JSON-LD Product name, else og:title, else the first h1. */
  productName?: string;
  ogImages: string[];
  jsonLdProductImages: string[];
  microdataProductImages: string[];
  elementCount: number;
}

export interface DiscoveryResult {
  page: PageSignals;
  candidates: DiscoveredCandidate[];
  stats: { dataUrlsSkipped: number; inlineSvgsSkipped: number };
}

export interface DiscoveryOptions {
  /** Style sheets the caller fetched (see `linkedStylesheetUrls`); `url` resolves their `url()`s. */
  stylesheets?: { url: string; css: string }[];
}

/** Data URLs smaller than this are lazy-loading placeholders, larger ones are kept. */
const MIN_DATA_URL_BYTES = 1024;
const MAX_INLINE_BYTES = 512 * 1024;
const MAX_TEXTS = 8;
const ANCESTOR_TOKEN_DEPTH = 8;

const LAZY_ATTRS = [
  'data-src',
  'data-lazy-src',
  'data-original',
  'data-lazy',
  'data-echo',
  'data-url',
  'data-img-src',
  'data-image-src',
  'data-defer-src',
  'data-lazyload',
  'data-original-src',
  'data-actualsrc',
  'data-nimg',
];
const LAZY_SRCSET_ATTRS = ['data-srcset', 'data-lazy-srcset', 'data-original-set'];
const ZOOM_ATTRS = [
  'data-zoom-image',
  'data-zoom',
  'data-zoom-src',
  'data-large-image',
  'data-large_image',
  'data-large',
  'data-full',
  'data-full-src',
  'data-full-image',
  'data-hires',
  'data-old-hires',
  'data-highres',
  'data-big',
  'data-image-zoom',
  'data-magnify-src',
];
const BG_ATTRS = ['data-bg', 'data-background', 'data-background-image', 'data-bg-src'];
const IMAGE_EXT = /\.(?:jpe?g|png|webp|avif|gif|svg|bmp|tiff?)(?:$|[?#])/i;

const CLASS_TOKEN_PATTERNS: [Token, RegExp][] = [
  ['logo', /logo|brandmark|wordmark/],
  [
    'main',
    /main[-_]?(?:image|img|photo|picture|media|product)|primary[-_]?(?:image|img|photo)|landingimage|featured[-_]?image|imgtagwrapper|hero[-_]?image/,
  ],
  ['product', /product|pdp|(?:^|[^a-z])(?:item|article)[-_]?(?:image|img|photo|picture|media)/],
  [
    'gallery',
    /galler|carousel|slider|slideshow|swiper|slick|fotorama|lightbox|zoom|viewer|photoswipe|altimages|image[-_]?block|media[-_]?(?:block|container|wrapper)/,
  ],
  ['hero', /hero|jumbotron|billboard|keyvisual|key[-_]visual|splash/],
  ['banner', /banner|promo|teaser|campaign/],
  ['thumbnail', /thumb/],
  ['icon', /(?:^|[^a-z])(?:icons?|ico|glyph|fa[srb]?)(?:[^a-z]|$)|icon[-_]|[-_]icon/],
  ['avatar', /avatar|profile[-_]?(?:pic|image|photo)|user[-_]?(?:pic|image|photo)/],
  ['sprite', /sprite/],
  ['badge', /badge|sticker|ribbon|(?:^|[^a-z])(?:discount|sale)[-_]?(?:label|tag|flag)/],
  [
    'ad',
    /(?:^|\s)ads?(?:\s|$)|(?:^|[^a-z])ad[-_]?(?:slot|unit|container|wrapper|banner|box|space)|adsbygoogle|advert|sponsor|(?:^|[^a-z])dfp|doubleclick|adsense|gpt-ad/,
  ],
  [
    'related',
    /related|recommend|similar|also[-_]?(?:viewed|bought|like)|upsell|cross[-_]?sell|recently|you[-_]?may|sims[-_]|complete[-_]?the[-_]?look/,
  ],
  ['social', /social|share|facebook|twitter|instagram|pinterest|whatsapp|youtube|tiktok|linkedin/],
  ['payment', /payment|visa|mastercard|paypal|klarna|amex|trustmark|trust[-_]?badge|seal|certif/],
  ['rating', /rating|(?:^|[^a-z])stars?(?:[^a-z]|$)|review/],
  ['flag', /flag|country[-_]?(?:select|switch)|language/],
  ['swatch', /swatch|colou?r[-_]?(?:option|chip|select)|variant/],
  ['background', /(?:^|[^a-z])bg(?:[^a-z]|$)|background|backdrop/],
];

/**
 * Words in file names that name a token (whole words only: `silicone` is no icon). Alt text only
 * contributes `logo`: product names say "icon" or "banner" too often.
 */
const WORD_TOKENS: Record<string, Token> = {
  logo: 'logo',
  logotype: 'logo',
  wordmark: 'logo',
  icon: 'icon',
  favicon: 'icon',
  avatar: 'avatar',
  sprite: 'sprite',
  banner: 'banner',
  hero: 'hero',
  thumb: 'thumbnail',
  thumbnail: 'thumbnail',
  flag: 'flag',
  star: 'rating',
  badge: 'badge',
  sticker: 'badge',
  visa: 'payment',
  mastercard: 'payment',
  paypal: 'payment',
  klarna: 'payment',
  maestro: 'payment',
  background: 'background',
};

/** Folder names in an image's URL path that say what it is (`/upload/product/`, `/img/banners/`). */
const FOLDER_TOKENS: Record<string, Token> = {
  product: 'product',
  produkt: 'product',
  produit: 'product',
  producto: 'product',
  produto: 'product',
  catalog: 'product',
  catalogue: 'product',
  artikel: 'product',
  banner: 'banner',
  promo: 'banner',
  logo: 'logo',
  icon: 'icon',
  ico: 'icon',
  flag: 'flag',
  sprite: 'sprite',
  avatar: 'avatar',
  badge: 'badge',
};

const REGION_CLASS =
  /^(?:site|page|global|main|top|gh|gf|l)?[-_]?(header|footer|nav|navbar|navigation|masthead|sidebar|topbar|menu)(?:[-_]?(?:wrapper|container|inner|main|top|bar|wrap|desktop|mobile))?$/;
const ROLE_REGION: Record<string, Region> = {
  banner: 'header',
  navigation: 'nav',
  contentinfo: 'footer',
  complementary: 'aside',
};

/** What a walk knows about an element's ancestors. */
interface Ctx {
  depth: number;
  regions: readonly Region[];
  inMain: boolean;
  inHomeLink: boolean;
  /** href of an enclosing link that points straight at an image file. */
  imageLink?: string;
  linkTitle?: string;
  tokenTrail: readonly { depth: number; tokens: readonly Token[] }[];
  productScope: boolean;
  caption?: string;
  hidden: boolean;
}

/** Collected state of one candidate while walking. */
interface Draft {
  candidate: DiscoveredCandidate;
  sources: Set<SourceKind>;
  texts: Set<string>;
  tokens: Set<Token>;
  contextTokens: Set<Token>;
  context: Set<string>;
  regions: Set<Region>;
  tracking: Set<TrackingSignal>;
  alternates: Map<string, Rendition>;
  everVisible: boolean;
}

/** A URL one element offers for a picture, with what the markup says about its size. */
interface RawRendition {
  url: string;
  source: SourceKind;
  width?: number;
  height?: number;
  /** `x` descriptor of a srcset entry. */
  density?: number;
}

/** One sighting of a picture: all renditions one spot offers plus what the spot says about it. */
interface Sighting {
  source: SourceKind;
  renditions: RawRendition[];
  width?: number;
  height?: number;
  displayWidth?: number;
  displayHeight?: number;
  texts?: (string | undefined)[];
  el?: Element;
  ctx?: Ctx;
  tokens?: Token[];
  context?: (string | undefined)[];
}

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

class Discovery {
  private base: string;
  private readonly drafts = new Map<string, Draft>();
  private readonly ctxOf = new Map<Element, Ctx>();
  private readonly indexOf = new Map<Element, number>();
  /** First element carrying each class and id, to place CSS background pictures on the page. */
  private readonly firstByClass = new Map<string, Element>();
  private readonly firstById = new Map<string, Element>();
  private readonly styleTexts: string[] = [];
  private readonly page: PageSignals;
  private readonly stats = { dataUrlsSkipped: 0, inlineSvgsSkipped: 0 };
  private elementCount = 0;
  private lastHeading: string | undefined;
  private lastOgImage: Draft | undefined;
  private h1: string | undefined;
  private ogTitle: string | undefined;
  private jsonLdName: string | undefined;

  constructor(
    private readonly $: CheerioAPI,
    pageUrl: string,
  ) {
    this.base = pageUrl;
    this.page = {
      url: pageUrl,
      baseUrl: this.base,
      ogImages: [],
      jsonLdProductImages: [],
      microdataProductImages: [],
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
    for (const css of this.styleTexts) this.addCss(stylesheetImageRefs(css), this.base, 'style-element');
    for (const sheet of stylesheets) {
      const sheetBase = resolveHttpUrl(sheet.url, this.base) ?? this.base;
      this.addCss(stylesheetImageRefs(sheet.css), sheetBase, 'stylesheet');
    }
    this.page.productName = this.jsonLdName ?? stripSiteName(this.ogTitle) ?? this.h1 ?? stripSiteName(this.page.title);
    const candidates = this.finish();
    return { page: this.page, candidates, stats: this.stats };
  }

  // ---- DOM walk -------------------------------------------------------------------------------

  private walk(node: AnyNode, ctx: Ctx): void {
    const children = 'children' in node ? node.children : [];
    for (const child of children) {
      if (child.type !== 'tag' && child.type !== 'script' && child.type !== 'style') continue;
      const el = child as Element;
      const index = this.elementCount++;
      const name = el.name.toLowerCase();
      if (name === 'script') {
        if ((el.attribs.type ?? '').toLowerCase().includes('ld+json')) this.addJsonLd(textOf(el));
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

  private childCtx(el: Element, name: string, parent: Ctx): Ctx {
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
      const target = resolveHttpUrl(a.href, this.base);
      c.imageLink = target && IMAGE_EXT.test(target) ? target : undefined;
      c.linkTitle = a.title ?? a['aria-label'];
    }
    const classId = `${a.class ?? ''} ${a.id ?? ''}`.trim();
    if (classId) {
      const tokens = classTokens(classId);
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

  private regionOf(el: Element, name: string, inMain: boolean): Region | undefined {
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

  private visit(el: Element, name: string, ctx: Ctx): void {
    const a = el.attribs;
    switch (name) {
      case 'meta':
        this.visitMeta(el, ctx);
        return;
      case 'link':
        this.visitLink(el, ctx);
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
        this.visitImg(el, ctx);
        break;
      case 'video':
        if (a.poster)
          this.addUrlSighting(a.poster, { source: 'video-poster', el, ctx, texts: [a.title, a['aria-label']] });
        break;
      case 'svg':
        this.visitSvg(el, ctx);
        return;
    }
    if (a.style) {
      for (const ref of inlineStyleImageRefs(a.style)) {
        this.addUrlSighting(ref.url, { source: 'inline-style', el, ctx, texts: [a.title, a['aria-label']] });
      }
    }
    for (const attr of BG_ATTRS) {
      if (a[attr])
        this.addUrlSighting(a[attr], { source: 'lazy-background', el, ctx, texts: [a.title, a['aria-label']] });
    }
    if (name !== 'img') {
      // Lazy and zoom attributes on wrappers (<a data-zoom-image>, <div data-src="x.jpg">).
      for (const attr of [...ZOOM_ATTRS, ...LAZY_ATTRS]) {
        const v = a[attr];
        if (v && IMAGE_EXT.test(v)) {
          this.addUrlSighting(v, { source: ZOOM_ATTRS.includes(attr) ? 'zoom' : 'lazy', el, ctx, texts: [a.title] });
        }
      }
      if (a.itemprop && /\bimage\b/i.test(a.itemprop)) {
        const v = a.content ?? a.src ?? a.href;
        if (v) this.addUrlSighting(v, { source: 'itemprop', el, ctx }, ctx.productScope);
      }
    }
  }

  private visitMeta(el: Element, ctx: Ctx): void {
    const a = el.attribs;
    const key = (a.property ?? a.name ?? a.itemprop ?? '').toLowerCase().trim();
    const content = a.content;
    if (!key || content === undefined) return;
    switch (key) {
      case 'og:image':
      case 'og:image:url':
      case 'og:image:secure_url': {
        // og:image:url and :secure_url restate the og:image before them; its width/alt follow.
        const draft = this.addUrlSighting(content, { source: 'og:image' });
        if (key === 'og:image' || !this.lastOgImage) this.lastOgImage = draft;
        if (draft?.candidate.type === 'url') pushUnique(this.page.ogImages, draft.candidate.url);
        return;
      }
      case 'og:image:width':
      case 'og:image:height': {
        const n = toInt(content);
        const ev = this.lastOgImage?.candidate.evidence;
        if (ev && n) {
          if (key.endsWith('width')) ev.width = Math.max(ev.width ?? 0, n);
          else ev.height = Math.max(ev.height ?? 0, n);
        }
        return;
      }
      case 'og:image:alt':
        if (this.lastOgImage) addText(this.lastOgImage.texts, content);
        return;
      case 'og:title':
        this.ogTitle ??= cleanText(content, 200) || undefined;
        return;
      case 'twitter:image':
      case 'twitter:image:src':
        this.addUrlSighting(content, { source: 'twitter:image' });
        return;
      case 'og:logo':
        this.addUrlSighting(content, { source: 'og:logo', tokens: ['logo'] });
        return;
      case 'msapplication-tileimage':
        this.addUrlSighting(content, { source: 'icon', tokens: ['icon'] });
        return;
      case 'image':
        if (a.itemprop) this.addUrlSighting(content, { source: 'itemprop', el, ctx }, ctx.productScope);
        return;
      case 'logo':
        if (a.itemprop) this.addUrlSighting(content, { source: 'itemprop', el, ctx, tokens: ['logo'] });
        return;
    }
  }

  private visitLink(el: Element, ctx: Ctx): void {
    const a = el.attribs;
    const rel = (a.rel ?? '').toLowerCase().split(/\s+/);
    if (a.itemprop && /\bimage\b/i.test(a.itemprop) && a.href) {
      this.addUrlSighting(a.href, { source: 'itemprop', el, ctx }, ctx.productScope);
      return;
    }
    const size = parseIconSizes(a.sizes);
    if (rel.includes('apple-touch-icon') || rel.includes('apple-touch-icon-precomposed')) {
      this.addUrlSighting(a.href, {
        source: 'apple-touch-icon',
        tokens: ['icon'],
        width: size ?? 180,
        height: size ?? 180,
      });
    } else if (rel.includes('mask-icon')) {
      this.addUrlSighting(a.href, { source: 'mask-icon', tokens: ['icon'] });
    } else if (rel.includes('icon')) {
      this.addUrlSighting(a.href, { source: 'icon', tokens: ['icon'], width: size, height: size });
    } else if (rel.includes('image_src')) {
      this.addUrlSighting(a.href, { source: 'og:image' });
    } else if (rel.includes('preload') && a.as === 'image') {
      const renditions = this.srcsetRenditions(a.imagesrcset, 'preload');
      const href = resolveHttpUrl(a.href, this.base);
      if (href) renditions.push({ url: href, source: 'preload' });
      this.addSighting({ source: 'preload', renditions });
    }
  }

  private visitImg(el: Element, ctx: Ctx): void {
    const a = el.attribs;
    const renditions: RawRendition[] = [];
    const lazy: RawRendition[] = [];
    for (const attr of LAZY_ATTRS) {
      const url = resolveHttpUrl(a[attr], this.base);
      if (url) lazy.push({ url, source: 'lazy' });
    }
    for (const attr of LAZY_SRCSET_ATTRS) lazy.push(...this.srcsetRenditions(a[attr], 'lazy'));
    const zoom: RawRendition[] = [];
    for (const attr of ZOOM_ATTRS) {
      const url = resolveHttpUrl(a[attr], this.base);
      if (url) zoom.push({ url, source: 'zoom' });
    }
    if (ctx.imageLink) zoom.push({ url: ctx.imageLink, source: 'linked-image' });
    zoom.push(...dynamicImageRenditions(a['data-a-dynamic-image'], this.base));
    const srcset = this.srcsetRenditions(a.srcset, 'srcset');
    const parent = el.parent as Element | null;
    const inPicture = parent?.type === 'tag' && parent.name.toLowerCase() === 'picture';
    if (inPicture) {
      for (const s of parent.children) {
        if (s.type !== 'tag' || (s as Element).name.toLowerCase() !== 'source') continue;
        const sa = (s as Element).attribs;
        srcset.push(
          ...this.srcsetRenditions(sa.srcset, 'picture'),
          ...this.srcsetRenditions(sa['data-srcset'], 'picture'),
        );
      }
    }
    const src = resolveHttpUrl(a.src, this.base);
    const hasOthers = lazy.length + zoom.length + srcset.length > 0;
    if (src && !(hasOthers && isPlaceholderUrl(src))) renditions.push({ url: src, source: 'img' });
    renditions.push(...srcset, ...lazy, ...zoom);
    const displayWidth = toInt(a.width) ?? styleSize(a.style, 'width');
    const displayHeight = toInt(a.height) ?? styleSize(a.style, 'height');
    const sighting: Sighting = {
      source: 'img',
      renditions,
      displayWidth,
      displayHeight,
      el,
      ctx,
      texts: [a.alt, a.title, a['aria-label'], ctx.linkTitle],
      context: [ctx.caption, this.lastHeading],
    };
    if (renditions.length > 0) {
      this.addSighting(sighting, a.itemprop !== undefined && /\bimage\b/i.test(a.itemprop) && ctx.productScope);
    } else if (a.src && /^\s*data:/i.test(a.src)) {
      this.addDataUrl(a.src, sighting);
    }
  }

  private visitSvg(el: Element, ctx: Ctx): void {
    const $el = this.$(el);
    // Sprite sheets (<symbol>/<defs> only) and bare <use> references draw nothing on their own.
    const draws = $el
      .find('path, rect, circle, ellipse, polygon, polyline, line, text, image')
      .toArray()
      .some((node) => !insideDefinitions(node, el));
    if (!draws) {
      this.stats.inlineSvgsSkipped++;
      return;
    }
    const markup = this.$.html(el);
    if (markup.length > MAX_INLINE_BYTES) {
      this.stats.inlineSvgsSkipped++;
      return;
    }
    const a = el.attribs;
    const view = (a.viewbox ?? '')
      .trim()
      .split(/[\s,]+/)
      .map(Number);
    const width = toInt(a.width) ?? (view.length === 4 && view[2]! > 0 ? Math.round(view[2]!) : undefined);
    const height = toInt(a.height) ?? (view.length === 4 && view[3]! > 0 ? Math.round(view[3]!) : undefined);
    const key = `inline-svg:${hash(markup)}`;
    const draft = this.draftFor(key, () => ({ type: 'inline-svg', svgMarkup: markup }));
    this.merge(draft, {
      source: 'inline-svg',
      renditions: [],
      width,
      height,
      el,
      ctx,
      texts: [a['aria-label'], $el.children('title').first().text(), ctx.linkTitle],
      context: [ctx.caption],
    });
  }

  private srcsetRenditions(value: string | undefined, source: SourceKind): RawRendition[] {
    if (!value) return [];
    const out: RawRendition[] = [];
    for (const e of parseSrcset(value)) {
      const url = resolveHttpUrl(e.url, this.base);
      if (url) out.push({ url, source, width: e.width, density: e.density });
    }
    return out;
  }

  // ---- CSS and JSON-LD --------------------------------------------------------------------------

  private addCss(refs: CssImageRef[], base: string, source: SourceKind): void {
    for (const ref of refs) {
      const el = ref.selector ? this.firstMatch(ref.selector) : undefined;
      const ctx = el ? this.ctxOf.get(el) : undefined;
      const tokens = ref.selector ? classTokens(ref.selector.replace(/[.#>+~:[\]()*,]/g, ' ')) : [];
      const url = resolveHttpUrl(ref.url, base);
      if (!url) continue;
      this.addSighting({ source, renditions: [{ url, source }], el, ctx, tokens });
    }
  }

  /**
   * The first element the selector's subject most likely styles: by the id, else a class, of the
   * last compound of each selector in the list. An index lookup, not full selector matching,
   * which on pages with thousands of rules would cost seconds.
   */
  private firstMatch(selector: string): Element | undefined {
    for (const one of selector.split(',')) {
      const subject =
        one
          .replace(/::?[a-z-]+(?:\([^)]*\))?/gi, '')
          .trim()
          .split(/[\s>+~]+/)
          .pop() ?? '';
      const id = /#([\w-]+)/.exec(subject)?.[1];
      const byId = id ? this.firstById.get(id) : undefined;
      if (byId) return byId;
      for (const m of subject.matchAll(/\.([\w-]+)/g)) {
        const el = this.firstByClass.get(m[1]!);
        if (el) return el;
      }
    }
    return undefined;
  }

  private addJsonLd(text: string): void {
    const data = parseJsonLoose(text);
    if (data === undefined) return;
    const seen = new Set<unknown>();
    const visit = (node: unknown, depth: number): void => {
      if (depth > 12 || node === null || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (Array.isArray(node)) {
        for (const n of node.slice(0, 200)) visit(n, depth + 1);
        return;
      }
      const obj = node as Record<string, unknown>;
      const types = ([] as unknown[]).concat(obj['@type'] ?? []).map((t) => String(t).replace(/^.*[/:#]/, ''));
      const isProduct = types.some((t) =>
        /^(?:Product|IndividualProduct|ProductModel|ProductGroup|Vehicle|Book)$/.test(t),
      );
      if (isProduct) {
        if (typeof obj.name === 'string') this.jsonLdName ??= cleanText(obj.name, 200) || undefined;
        for (const img of jsonLdImages(obj.image)) {
          const draft = this.addUrlSighting(img.url, {
            source: 'json-ld-product',
            width: img.width,
            height: img.height,
            texts: [img.caption, typeof obj.name === 'string' ? obj.name : undefined],
          });
          if (draft?.candidate.type === 'url') pushUnique(this.page.jsonLdProductImages, draft.candidate.url);
        }
      } else if (types.includes('ImageObject')) {
        for (const img of jsonLdImages(obj)) {
          this.addUrlSighting(img.url, {
            source: 'json-ld-image',
            width: img.width,
            height: img.height,
            texts: [img.caption],
          });
        }
      } else if (obj.image !== undefined) {
        for (const img of jsonLdImages(obj.image)) {
          this.addUrlSighting(img.url, {
            source: 'json-ld-image',
            width: img.width,
            height: img.height,
            texts: [img.caption],
          });
        }
      }
      if (obj.logo !== undefined) {
        for (const img of jsonLdImages(obj.logo)) {
          this.addUrlSighting(img.url, {
            source: 'json-ld-logo',
            tokens: ['logo'],
            width: img.width,
            height: img.height,
          });
        }
      }
      for (const [k, v] of Object.entries(obj)) {
        if (k === 'image' || k === 'logo') continue;
        if (v !== null && typeof v === 'object') visit(v, depth + 1);
      }
    };
    visit(data, 0);
  }

  // ---- collecting --------------------------------------------------------------------------------

  /** Resolves one raw URL (or data URL) and records a sighting of it. */
  private addUrlSighting(
    raw: string | undefined,
    s: Omit<Sighting, 'renditions'>,
    microdataProduct = false,
  ): Draft | undefined {
    if (!raw) return undefined;
    if (/^\s*data:/i.test(raw)) return this.addDataUrl(raw, { ...s, renditions: [] });
    const url = resolveHttpUrl(raw, this.base);
    if (!url) return undefined;
    return this.addSighting(
      { ...s, renditions: [{ url, source: s.source, width: s.width, height: s.height }] },
      microdataProduct,
    );
  }

  private addDataUrl(raw: string, s: Sighting): Draft | undefined {
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
  private addSighting(s: Sighting, microdataProduct = false): Draft | undefined {
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
  private draftFor(
    mapKey: string,
    make: () =>
      | { type: 'url'; url: string }
      | { type: 'data-url'; url: string; mimeType: string }
      | { type: 'inline-svg'; svgMarkup: string },
  ): Draft {
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
    };
    if (origin.type === 'url') {
      for (const t of folderTokens(origin.url)) draft.contextTokens.add(t);
      if (isTrackerHost(origin.url)) draft.tracking.add('tracker-host');
      if (hasPixelPath(origin.url)) draft.tracking.add('pixel-path');
    }
    this.drafts.set(mapKey, draft);
    return draft;
  }

  private merge(draft: Draft, s: Sighting): void {
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
    if (el && ctx) {
      const index = this.indexOf.get(el);
      if (index !== undefined && (ev.domIndex === undefined || index < ev.domIndex)) ev.domIndex = index;
      for (const r of ctx.regions) draft.regions.add(r);
      if (ctx.inHomeLink) ev.inHomeLink = true;
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
  private finish(): DiscoveredCandidate[] {
    this.mergeRenditions();
    const ogSet = new Set(this.page.ogImages.map(normalizeImageUrl));
    const ldSet = new Set(this.page.jsonLdProductImages.map(normalizeImageUrl));
    const primaries = new Set(
      [this.page.ogImages[0], this.page.jsonLdProductImages[0]].filter((u) => u !== undefined).map(normalizeImageUrl),
    );
    const mains = [...this.page.ogImages, ...this.page.jsonLdProductImages, ...this.page.microdataProductImages];
    const nameTokens = tokenize(this.page.productName);
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
      if (ev.domIndex !== undefined && this.elementCount > 0) ev.position = round3(ev.domIndex / this.elementCount);
      if (c.type === 'url') {
        const urls = [c.url, ...c.alternates.map((r) => r.url)].map(normalizeImageUrl);
        if (urls.some((u) => ogSet.has(u))) ev.main.ogImage = true;
        if (urls.some((u) => ldSet.has(u))) ev.main.jsonLdProduct = true;
        if (urls.some((u) => primaries.has(u))) ev.main.primary = true;
        const isMain = ev.main.ogImage || ev.main.jsonLdProduct || ev.main.microdataProduct;
        if (!isMain && mains.some((m) => sameImageIdentity(m, c.url))) ev.main.sameAsMain = true;
      }
      if (nameTokens.length > 0) {
        const have = new Set([...tokenize(ev.texts.join(' ')), ...tokenize(ev.fileName.replace(/\.[a-z0-9]+$/i, ''))]);
        ev.nameMatch = round3(tokenOverlap(nameTokens.slice(0, 12), have));
      }
      out.push(c);
    }
    return out;
  }

  /**
   * Folds renditions of one picture into one candidate, keeping the largest as the candidate:
   * (1) a candidate whose URL is a smaller rendition of exactly one other (an og:image that is
   * the 400 px entry of a gallery `srcset`); (2) candidates whose URLs differ only in rendition
   * parameters (`x.jpg` and `x.jpg?f=g&w=1600`).
   */
  private mergeRenditions(): void {
    const owners = new Map<string, string[]>();
    for (const [key, d] of this.drafts) {
      for (const alt of d.alternates.keys()) {
        const list = owners.get(alt);
        if (list) list.push(key);
        else owners.set(alt, [key]);
      }
    }
    for (const [alt, keys] of owners) {
      const distinct = [...new Set(keys)];
      if (distinct.length !== 1) continue;
      const child = this.drafts.get(alt);
      const owner = this.drafts.get(distinct[0]!);
      if (!child || !owner || child === owner || child.alternates.size > 0) continue;
      this.absorb(owner, alt, child);
    }
    const groups = new Map<string, string[]>();
    for (const [key, d] of this.drafts) {
      if (d.candidate.type !== 'url') continue;
      const group = renditionKey(d.candidate.url);
      const list = groups.get(group);
      if (list) list.push(key);
      else groups.set(group, [key]);
    }
    for (const keys of groups.values()) {
      if (keys.length < 2) continue;
      const size = (key: string) => {
        const c = this.drafts.get(key)!.candidate;
        return c.evidence.width ?? (c.type === 'url' ? urlSizeHint(c.url)?.side : undefined) ?? 0;
      };
      const [ownerKey, ...rest] = [...keys].sort((a, b) => size(b) - size(a));
      const owner = this.drafts.get(ownerKey!)!;
      for (const key of rest) this.absorb(owner, key, this.drafts.get(key)!);
    }
  }

  /**
   * Moves `child`'s evidence into `owner`; the child's URL becomes one of owner's alternates.
   * Sizes stay the owner's: the child's describe a smaller rendition.
   */
  private absorb(owner: Draft, childKey: string, child: Draft): void {
    const ce = child.candidate.evidence;
    const oe = owner.candidate.evidence;
    oe.occurrences += ce.occurrences;
    for (const s of child.sources) owner.sources.add(s);
    for (const t of child.texts) owner.texts.add(t);
    for (const t of child.tokens) owner.tokens.add(t);
    for (const t of child.contextTokens) owner.contextTokens.add(t);
    for (const t of child.context) owner.context.add(t);
    for (const r of child.regions) owner.regions.add(r);
    if (child.everVisible) owner.everVisible = true;
    if (ce.domIndex !== undefined && (oe.domIndex === undefined || ce.domIndex < oe.domIndex))
      oe.domIndex = ce.domIndex;
    oe.inHomeLink ||= ce.inHomeLink;
    oe.inProductScope ||= ce.inProductScope;
    oe.main.microdataProduct ||= ce.main.microdataProduct;
    if (child.candidate.type === 'url') {
      const existing = owner.alternates.get(childKey);
      const width = existing?.width ?? ce.width;
      owner.alternates.set(childKey, width ? { url: child.candidate.url, width } : { url: child.candidate.url });
    }
    for (const [k, r] of child.alternates) if (!owner.alternates.has(k)) owner.alternates.set(k, r);
    if (owner.candidate.type === 'url') owner.alternates.delete(normalizeImageUrl(owner.candidate.url));
    this.drafts.delete(childKey);
  }
}

/** Picks the largest rendition: by declared width, zoom/linked files first when widths are unknown. */
function largestRendition(renditions: RawRendition[], displayWidth: number | undefined): RawRendition | undefined {
  const hint = (r: RawRendition) => urlSizeHint(r.url)?.side;
  const isZoom = (r: RawRendition) => !r.width && !hint(r) && (r.source === 'zoom' || r.source === 'linked-image');
  const sizeOf = (r: RawRendition) =>
    r.width ?? (r.density ? r.density * (displayWidth ?? 100) : (hint(r) ?? displayWidth ?? 1));
  // A zoom or linked file of unknown size is taken to be larger than every other rendition.
  const largestOther = Math.max(0, ...renditions.filter((r) => !isZoom(r)).map(sizeOf));
  let best: RawRendition | undefined;
  let bestSize = -1;
  for (const r of renditions) {
    const size = isZoom(r) ? largestOther + 1 : sizeOf(r);
    if (size > bestSize) {
      best = r;
      bestSize = size;
    }
  }
  return best;
}

/** Amazon-style `data-a-dynamic-image='{"url":[w,h],...}'`. */
function dynamicImageRenditions(value: string | undefined, base: string): RawRendition[] {
  if (!value) return [];
  const parsed = parseJsonLoose(value);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  const out: RawRendition[] = [];
  for (const [raw, dims] of Object.entries(parsed as Record<string, unknown>)) {
    const url = resolveHttpUrl(raw, base);
    if (!url) continue;
    const [w, h] = Array.isArray(dims) ? dims.map(Number) : [];
    out.push({ url, source: 'zoom', width: w && w > 0 ? w : undefined, height: h && h > 0 ? h : undefined });
  }
  return out;
}

interface JsonLdImage {
  url: string;
  width?: number;
  height?: number;
  caption?: string;
}

/** The images of a JSON-LD `image`/`logo` value: a string, an ImageObject, or arrays of either. */
export function jsonLdImages(value: unknown, depth = 0): JsonLdImage[] {
  if (depth > 4 || value === null || value === undefined) return [];
  if (typeof value === 'string') return value.trim() ? [{ url: value.trim() }] : [];
  if (Array.isArray(value)) return value.slice(0, 50).flatMap((v) => jsonLdImages(v, depth + 1));
  if (typeof value !== 'object') return [];
  const o = value as Record<string, unknown>;
  const url = [o.contentUrl, o.url, o['@id']].find((v) => typeof v === 'string' && /^(?:https?:)?\/\/|^\//i.test(v));
  if (typeof url !== 'string') return [];
  const caption = [o.caption, o.name, o.description].find((v) => typeof v === 'string') as string | undefined;
  return [{ url, width: toInt(o.width), height: toInt(o.height), caption }];
}

/** JSON.parse that tolerates HTML comment wrappers, CDATA and raw control characters. */
function parseJsonLoose(text: string): unknown {
  const trimmed = text
    .trim()
    .replace(/^<!--|-->$/g, '')
    .replace(/^\/\/\s*<!\[CDATA\[|\/\/\s*\]\]>$/g, '')
    .trim();
  if (!trimmed || trimmed.length > 4_000_000) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    try {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters in JSON strings are what breaks
      return JSON.parse(trimmed.replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return undefined;
    }
  }
}

/** "Red Shoe | Shop" → "Red Shoe": drops a short trailing site name after a separator. */
function stripSiteName(title: string | undefined): string | undefined {
  if (!title) return undefined;
  const m = /^(.*\S)\s+(?:\||-|–|—|::|·)\s+([^|–—]{1,40})$/.exec(title);
  return m ? m[1] : title;
}

function classTokens(classId: string): Token[] {
  const s = classId.toLowerCase();
  const out: Token[] = [];
  for (const [token, re] of CLASS_TOKEN_PATTERNS) if (re.test(s)) out.push(token);
  return out;
}

function folderTokens(url: string): Token[] {
  let folders: string;
  try {
    folders = new URL(url).pathname.split('/').slice(0, -1).join(' ');
  } catch {
    return [];
  }
  const out = new Set<Token>();
  for (const w of tokenize(folders)) {
    const t = FOLDER_TOKENS[w];
    if (t) out.add(t);
  }
  return [...out];
}

function wordTokens(text: string | undefined): Token[] {
  const out: Token[] = [];
  for (const w of tokenize(text)) {
    const t = WORD_TOKENS[w];
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined) return true;
  const style = a.style;
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

function insideDefinitions(node: Element, svg: Element): boolean {
  for (let p = node.parent; p && p !== svg; p = p.parent) {
    if (p.type === 'tag' && /^(?:symbol|defs|clippath|mask|pattern)$/i.test((p as Element).name)) return true;
  }
  return false;
}

function textOf(node: AnyNode): string {
  if (node.type === 'text') return (node as unknown as { data: string }).data;
  if (!('children' in node)) return '';
  let out = '';
  for (const c of node.children) out += textOf(c);
  return out;
}

function addText(set: Set<string>, text: string | undefined): void {
  const t = cleanText(text, 200);
  if (t && set.size < MAX_TEXTS * 2) set.add(t);
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

function toInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? Math.round(v) : undefined;
  if (typeof v === 'object' && v !== null && 'value' in v) return toInt((v as { value: unknown }).value);
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/i.exec(v);
  if (!m) return undefined;
  const n = Math.round(Number(m[1]));
  return n > 0 && n < 100_000 ? n : undefined;
}

function styleSize(style: string | undefined, prop: 'width' | 'height'): number | undefined {
  if (!style) return undefined;
  const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*(\\d+(?:\\.\\d+)?)px`, 'i').exec(style);
  return m ? toInt(m[1]) : undefined;
}

/** `sizes="32x32 16x16"` → the largest side; `any` → undefined. */
function parseIconSizes(sizes: string | undefined): number | undefined {
  if (!sizes) return undefined;
  let best: number | undefined;
  for (const m of sizes.matchAll(/(\d+)x(\d+)/gi)) {
    const n = Math.max(Number(m[1]), Number(m[2]));
    if (n > 0 && n > (best ?? 0)) best = n;
  }
  return best;
}

function hash(s: string): string {
  return createHash('sha1').update(s).digest('hex').slice(0, 16);
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

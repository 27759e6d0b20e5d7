import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

/**
 * The types of image discovery (see discovery.ts): what a candidate is and the evidence the ranker
 * scores, plus the walk's internal state shared by the per-source files (discovery-*.ts).
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
  | 'microdata-logo'
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
  | 'background'
  /** A video's poster or fallback, a media player, an embed. */
  | 'video'
  /** A pop-up, modal, overlay or loading indicator. */
  | 'popup';

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
  /** Inside a link to another page of the same site (a section, a programme, a brand page). */
  inSiteLink?: boolean;
  /** Inside a link to another site (social networks, partners, sister companies, app stores). */
  inExternalLink?: boolean;
  /** Declared as a logo, but of the product's brand (JSON-LD or microdata inside a Product). */
  productBrandLogo?: boolean;
  /**
   * One of several pictures named logo listed together (a row of partners, payment methods,
   * sister projects or brands): other organisations' marks.
   */
  amongLogos?: boolean;
  /**
   * Its alt text or title names the site and nothing else (its declared name, its title's site
   * part, its domain; "logo" and "homepage" aside).
   */
  namesSite?: boolean;
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
  /** `<video poster>` pictures, in page order. */
  videoPosters: string[];
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
export const MIN_DATA_URL_BYTES = 1024;
export const MAX_INLINE_BYTES = 512 * 1024;
export const MAX_TEXTS = 8;

/** What a walk knows about an element's ancestors. */
export interface Ctx {
  depth: number;
  regions: readonly Region[];
  inMain: boolean;
  inHomeLink: boolean;
  /** The nearest enclosing link goes to another page of this site, or to another site. */
  linkAway?: 'site' | 'external';
  /** href of an enclosing link that points straight at an image file. */
  imageLink?: string;
  linkTitle?: string;
  tokenTrail: readonly { depth: number; tokens: readonly Token[] }[];
  productScope: boolean;
  caption?: string;
  hidden: boolean;
}

/** Collected state of one candidate while walking. */
export interface Draft {
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
  /** The first elements that show it (to find logos listed together). */
  elements: Element[];
}

/** A URL one element offers for a picture, with what the markup says about its size. */
export interface RawRendition {
  url: string;
  source: SourceKind;
  width?: number;
  height?: number;
  /** `x` descriptor of a srcset entry. */
  density?: number;
}

/** One sighting of a picture: all renditions one spot offers plus what the spot says about it. */
export interface Sighting {
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

/** What a new draft starts from: a URL, a data URL or an inline SVG's markup. */
export type DraftOrigin =
  | { type: 'url'; url: string }
  | { type: 'data-url'; url: string; mimeType: string }
  | { type: 'inline-svg'; svgMarkup: string };

/**
 * What the per-source files (discovery-*.ts) use of the walk (the `Discovery` class in
 * discovery.ts): the state they read and fill, and the methods that record sightings.
 */
export interface DiscoveryWalk {
  base: string;
  readonly ctxOf: Map<Element, Ctx>;
  readonly firstByClass: Map<string, Element>;
  readonly firstById: Map<string, Element>;
  readonly page: PageSignals;
  readonly stats: { dataUrlsSkipped: number; inlineSvgsSkipped: number };
  lastHeading: string | undefined;
  lastOgImage: Draft | undefined;
  ogTitle: string | undefined;
  readonly siteNames: string[];
  jsonLdName: string | undefined;
  readonly $: CheerioAPI;
  addUrlSighting(
    raw: string | undefined,
    s: Omit<Sighting, 'renditions'>,
    microdataProduct?: boolean,
  ): Draft | undefined;
  addDataUrl(raw: string, s: Sighting): Draft | undefined;
  addSighting(s: Sighting, microdataProduct?: boolean): Draft | undefined;
  draftFor(mapKey: string, make: () => DraftOrigin): Draft;
  merge(draft: Draft, s: Sighting): void;
}

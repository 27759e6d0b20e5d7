import type { DiscoveredCandidate, Evidence, SourceKind, Token } from './discovery.ts';
import type { Measurement } from './measurement.ts';

/**
 * `looksLikeLogo`: an advisory guess whether a candidate is the site's (or brand's) logo, from
 * where it sits, what it is called, its shape and, once measured, its transparency and palette.
 * It never decides anything on its own: the commit call's `isLogo` does.
 */

export type LogoSignal =
  | 'named-logo'
  | 'logo-container'
  | 'declared-logo'
  | 'site-icon'
  | 'home-link'
  | 'in-header'
  | 'in-nav'
  | 'inline-svg-in-header'
  | 'wide-mark'
  | 'small-square'
  | 'vector'
  | 'transparent'
  | 'few-colours'
  | 'named-icon'
  | 'main-product'
  | 'third-party-mark'
  | 'photo-sized'
  | 'product-brand'
  | 'links-elsewhere'
  | 'links-away'
  | 'media'
  | 'popup'
  | 'footer-only'
  | 'product-area'
  | 'among-logos';

const WEIGHTS: Record<LogoSignal, number> = {
  'named-logo': 0.45,
  'logo-container': 0.25,
  'declared-logo': 0.5,
  'site-icon': 0.5,
  'home-link': 0.3,
  'in-header': 0.15,
  'in-nav': 0.05,
  'inline-svg-in-header': 0.1,
  'wide-mark': 0.15,
  'small-square': 0.05,
  vector: 0.1,
  transparent: 0.1,
  'few-colours': 0.1,
  'named-icon': -0.3,
  'main-product': -0.5,
  'third-party-mark': -0.3,
  'photo-sized': -0.3,
  'product-brand': -0.5,
  'links-elsewhere': -0.25,
  'links-away': -0.45,
  media: -0.5,
  popup: -0.5,
  'footer-only': -0.15,
  'product-area': -0.3,
  'among-logos': -0.3,
};

/** Where a page declares its organisation's logo: og:logo, JSON-LD `logo`, microdata `itemprop=logo`. */
export const DECLARED_LOGO_SOURCES: readonly SourceKind[] = ['og:logo', 'json-ld-logo', 'microdata-logo'];
/** Icon links: `icon`, `apple-touch-icon`, `mask-icon` (and the Windows tile image). */
export const ICON_SOURCES: readonly SourceKind[] = ['icon', 'apple-touch-icon', 'mask-icon'];

/**
 * A logo the page declares, or the picture of its header's link to the home page: stronger
 * evidence than pixel size, so the size rules (photo-sized, declared 1x1, too small) do not apply.
 */
export function isDeclaredLogo(ev: Evidence): boolean {
  if (ev.sources.some((s) => DECLARED_LOGO_SOURCES.includes(s))) return true;
  return ev.inHomeLink && (ev.regions.includes('header') || ev.regions.includes('nav') || (ev.position ?? 1) < 0.15);
}

/**
 * A site icon (`apple-touch-icon`, `icon` with sizes, `mask-icon`) and nothing else: the only logo
 * many sites publish. A favicon.ico or an icon declared under 48 px is too small to count.
 */
export function isSiteIcon(c: DiscoveredCandidate): boolean {
  const ev = c.evidence;
  if (ev.sources.length === 0 || !ev.sources.every((s) => ICON_SOURCES.includes(s))) return false;
  if (/\.ico$/i.test(ev.fileName)) return false;
  const side = Math.max(ev.width ?? 0, ev.height ?? 0);
  return side === 0 || side >= 48;
}

/** Score at or above which a candidate is reported as `looksLikeLogo`. */
export const LOGO_THRESHOLD = 0.5;

export interface LogoGuess {
  /** 0..1 */
  score: number;
  signals: LogoSignal[];
}

/** The signals behind the guess and a 0..1 score. */
export function logoLikelihood(c: DiscoveredCandidate, m?: Measurement): LogoGuess {
  const ev = c.evidence;
  const signals: LogoSignal[] = [];
  const width = m?.width ?? ev.width ?? ev.displayWidth;
  const height = m?.height ?? ev.height ?? ev.displayHeight;
  const format = m?.format ?? (c.type === 'inline-svg' ? 'svg' : /\.svg$/i.test(ev.fileName) ? 'svg' : undefined);

  if (ev.tokens.includes('logo')) signals.push('named-logo');
  else if (ev.contextTokens.includes('logo')) signals.push('logo-container');
  const declared = isDeclaredLogo(ev);
  const siteIcon = isSiteIcon(c);
  if (ev.sources.some((s) => DECLARED_LOGO_SOURCES.includes(s))) signals.push('declared-logo');
  if (siteIcon) signals.push('site-icon');
  if (ev.inHomeLink) signals.push('home-link');
  if (ev.regions.includes('header')) signals.push('in-header');
  else if (ev.regions.includes('nav')) signals.push('in-nav');
  if (c.type === 'inline-svg' && (ev.regions.includes('header') || ev.inHomeLink)) signals.push('inline-svg-in-header');
  if (width && height) {
    const ratio = width / height;
    if (ratio >= 2.2 && height <= 240) signals.push('wide-mark');
    else if (ratio > 0.8 && ratio < 1.25 && width >= 32 && width <= 256) signals.push('small-square');
    if (Math.min(width, height) >= 700 && !declared) signals.push('photo-sized');
  }
  if (format === 'svg') signals.push('vector');
  if (m?.hasAlpha) signals.push('transparent');
  if (m?.colorCount !== undefined && m.colorCount <= 64) signals.push('few-colours');
  // A header logo that is also the share image (pages without a picture of their own) stays a logo.
  if (!declared && (ev.main.ogImage || ev.main.jsonLdProduct || ev.main.microdataProduct || ev.main.sameAsMain)) {
    signals.push('main-product');
  }
  if (ev.tokens.includes('icon') && !ev.tokens.includes('logo') && !siteIcon) signals.push('named-icon');
  // What is not the site's own logo, unless the page declares it or its header links it home: marks
  // of others (payment, social networks, ratings, flags), the product brand's logo, pictures that
  // link to another page or another site, video posters and fallbacks, pop-ups and loaders.
  const around = declared ? [] : ev.contextTokens;
  const has = (t: Token) => ev.tokens.includes(t) || around.includes(t);
  if (ev.tokens.some((t) => t === 'payment' || t === 'flag' || t === 'rating') || has('social')) {
    signals.push('third-party-mark');
  }
  if (!declared) {
    if (ev.productBrandLogo) signals.push('product-brand');
    if (ev.amongLogos) signals.push('among-logos');
    if (ev.inExternalLink) signals.push('links-away');
    // A logo that names the site may link to the edition or shop it heads (`/sanjose`, `/shop`).
    else if (ev.inSiteLink && !ev.namesSite) signals.push('links-elsewhere');
    if (has('video') || ev.sources.includes('video-poster')) signals.push('media');
    if (has('popup')) signals.push('popup');
    // Footers list partners, payment methods and sister companies; the site's logo is in the header.
    if (ev.regions.includes('footer') && !ev.regions.some((r) => r === 'header' || r === 'nav')) {
      signals.push('footer-only');
    }
    // In the product's area: the product brand's mark or a widget's (a "find similar" button).
    const productArea =
      ev.regions.length === 0 && (ev.inProductScope || (['product', 'gallery', 'main'] as const).some(has));
    if (productArea) signals.push('product-area');
  }
  const raw = signals.reduce((sum, s) => sum + WEIGHTS[s], 0);
  return { score: Math.round(Math.min(1, Math.max(0, raw)) * 1000) / 1000, signals };
}

/** Advisory: true when the candidate looks like a logo (score >= `LOGO_THRESHOLD`). */
export function looksLikeLogo(c: DiscoveredCandidate, m?: Measurement): boolean {
  return logoLikelihood(c, m).score >= LOGO_THRESHOLD;
}

/**
 * Relevance (purpose `logo`) under which the best candidate is no logo at all: a page whose best
 * candidate is this weak has none (its logo is a CSS sprite or text) and gets none rather than a
 * wrong one. From bench/brand-judgement.ts over 140 labelled real pages: every wrong best
 * candidate scored at most 0.44 (sub-brand logos linking elsewhere), every page's own logo or
 * icon at least 0.55; 0.5 (a logit of 0) sits in the middle of that gap.
 */
export const LOGO_PICK_MIN = 0.5;

import type { DiscoveredCandidate, Evidence, Region, SourceKind } from './discovery.ts';
import { ICON_SOURCES, isDeclaredLogo, isSiteIcon, LOGO_THRESHOLD, type LogoGuess, logoLikelihood } from './logo.ts';
import type { Measurement } from './measurement.ts';
import { type Feature, FEATURES, type PurposeProfile, type ResolvedPurpose, resolvePurpose } from './purposes.ts';
import { tokenize } from './text.ts';
import { urlSizeHint } from './urls.ts';

/**
 * Ranking: scores every discovered candidate for a purpose, explains the score in one sentence,
 * rejects what must not be offered, orders the rest and marks the top ones as kept. Works on the
 * markup alone and gets better with measurements of the downloaded files. Pure.
 */

export type RejectionCode =
  | 'tracking-pixel'
  | 'sprite'
  | 'too-small'
  | 'too-large'
  | 'unsupported-format'
  | 'undecodable'
  | 'duplicate';

export interface Rejection {
  code: RejectionCode;
  /** One sentence for a person. */
  reason: string;
  /** For `duplicate`: the key of the candidate that is kept instead. */
  duplicateOf?: string;
}

export interface RejectionLimits {
  maxBytes: number;
  maxPixels: number;
  /** Formats an asset may have (sharp names). */
  formats: readonly string[];
  /** Largest Hamming distance between perceptual hashes that still counts as the same picture. */
  duplicateDistance: number;
}

export const DEFAULT_LIMITS: RejectionLimits = {
  maxBytes: 25 * 1024 * 1024,
  maxPixels: 100_000_000,
  formats: ['jpeg', 'png', 'webp', 'gif', 'avif', 'svg', 'tiff'],
  duplicateDistance: 6,
};

export interface RankedCandidate {
  candidate: DiscoveredCandidate;
  /** 0..1, three decimals. */
  relevanceScore: number;
  relevanceReason: string;
  /**
   * 1 = best. Candidates that are not rejected rank 1..n by score; rejected ones follow
   * (n+1..m), so every candidate has a distinct rank.
   */
  rank: number;
  kept: boolean;
  looksLikeLogo: boolean;
  rejection?: Rejection;
  /** Measured size, else the intrinsic or rendered size the page declares (absent when unknown). */
  width?: number;
  height?: number;
}

export interface RankOptions {
  /** Measurements by candidate key. */
  measurements?: ReadonlyMap<string, Measurement>;
  limits?: Partial<RejectionLimits>;
}

const BACKGROUND_SOURCES: readonly SourceKind[] = ['inline-style', 'style-element', 'stylesheet', 'lazy-background'];
const PEOPLE_WORDS = new Set(
  'person people man men woman women girl boy kid kids child children family team portrait face smiling couple lady guy baby model wearing worn wear'.split(
    ' ',
  ),
);
const LIFESTYLE_WORDS = new Set(
  'lifestyle room living kitchen bedroom bathroom outdoor outdoors scene interior garden beach street inspiration mood ambiance ambience insitu setting decor styled styling wearing worn everyday'.split(
    ' ',
  ),
);

/**
 * Scores, rejects, orders and keeps. `purpose` is the request's text (see `resolvePurpose`) or
 * an already resolved purpose. Returns every candidate, ordered by rank.
 */
export function rankCandidates(
  candidates: readonly DiscoveredCandidate[],
  purpose: string | null | undefined | ResolvedPurpose,
  options: RankOptions = {},
): RankedCandidate[] {
  const resolved = typeof purpose === 'object' && purpose !== null ? purpose : resolvePurpose(purpose);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const scored = candidates.map((c) => {
    const m = options.measurements?.get(c.key);
    const logo = logoLikelihood(c, m);
    const dims = knownSize(c, m);
    const f = computeFeatures(c, m, resolved, logo, dims);
    const score = scoreOf(f, resolved.profile);
    const rejection =
      rejectByEvidence(c, resolved.profile) ?? (m ? rejectByMeasurement(m, resolved.profile, limits) : undefined);
    const item: RankedCandidate = {
      candidate: c,
      relevanceScore: score,
      relevanceReason: explain(c, f, resolved, logo, dims),
      rank: 0,
      kept: false,
      looksLikeLogo: logo.score >= LOGO_THRESHOLD,
    };
    if (rejection) item.rejection = rejection;
    if (dims?.shapeKnown && dims.from !== 'url') {
      item.width = dims.width;
      item.height = dims.height;
    }
    return item;
  });

  const duplicates = findDuplicates(
    scored
      .filter((s) => !s.rejection)
      .map((s) => ({
        key: s.candidate.key,
        measurement: options.measurements?.get(s.candidate.key),
        score: s.relevanceScore,
      })),
    limits.duplicateDistance,
  );
  for (const s of scored) {
    const of = duplicates.get(s.candidate.key);
    if (of)
      s.rejection = { code: 'duplicate', reason: 'Duplicate of a larger copy of the same picture.', duplicateOf: of };
  }

  const order = (a: RankedCandidate, b: RankedCandidate) =>
    b.relevanceScore - a.relevanceScore ||
    (a.candidate.evidence.domIndex ?? Number.MAX_SAFE_INTEGER) -
      (b.candidate.evidence.domIndex ?? Number.MAX_SAFE_INTEGER) ||
    (a.candidate.key < b.candidate.key ? -1 : a.candidate.key > b.candidate.key ? 1 : 0);
  const accepted = scored.filter((s) => !s.rejection).sort(order);
  const rejected = scored.filter((s) => s.rejection).sort(order);
  const { keep, floor } = resolved.profile;
  accepted.forEach((s, i) => {
    s.rank = i + 1;
    s.kept = i < keep && s.relevanceScore >= floor;
  });
  rejected.forEach((s, i) => {
    s.rank = accepted.length + i + 1;
  });
  return [...accepted, ...rejected];
}

// ---- features -----------------------------------------------------------------------------------

interface Size {
  width: number;
  height: number;
  /**
   * Measured, declared intrinsic size, the element's rendered size, or the size the URL asks a
   * CDN for (for `url` with one number, width = height = the long side and the shape is unknown).
   */
  from: 'measured' | 'declared' | 'display' | 'url';
  shapeKnown: boolean;
}

/**
 * The best size known: measured, else declared intrinsic, else the rendered size of the element
 * (only when the candidate is the element's own file, not a larger zoom/srcset rendition).
 */
function knownSize(c: DiscoveredCandidate, m?: Measurement): Size | undefined {
  if (m?.width && m.height) return { width: m.width, height: m.height, from: 'measured', shapeKnown: true };
  const ev = c.evidence;
  if (ev.width && ev.height) return { width: ev.width, height: ev.height, from: 'declared', shapeKnown: true };
  if (ev.width && ev.displayWidth && ev.displayHeight) {
    const height = Math.round((ev.width * ev.displayHeight) / ev.displayWidth);
    return { width: ev.width, height, from: 'declared', shapeKnown: true };
  }
  const hint = c.type === 'url' ? urlSizeHint(c.url) : undefined;
  if (hint?.width && hint.height) return { width: hint.width, height: hint.height, from: 'url', shapeKnown: true };
  if (c.alternates.length === 0 && ev.displayWidth && ev.displayHeight) {
    return { width: ev.displayWidth, height: ev.displayHeight, from: 'display', shapeKnown: true };
  }
  if (hint) return { width: hint.side, height: hint.side, from: 'url', shapeKnown: false };
  if (ev.width) return { width: ev.width, height: ev.width, from: 'declared', shapeKnown: false };
  return undefined;
}

type Features = Record<Feature, number>;

function computeFeatures(
  c: DiscoveredCandidate,
  m: Measurement | undefined,
  purpose: ResolvedPurpose,
  logo: LogoGuess,
  dims: Size | undefined,
): Features {
  const ev = c.evidence;
  const f = Object.fromEntries(FEATURES.map((k) => [k, 0])) as Features;
  // The page's first og:image / JSON-LD image is its main picture; further declared images are
  // its gallery. Microdata alone counts least: recommendation tiles often carry a Product scope.
  const declared = [ev.main.ogImage, ev.main.jsonLdProduct, ev.main.microdataProduct].filter(Boolean).length;
  if (ev.main.primary) f.declaredMain = declared >= 2 ? 1 : 0.9;
  else if (ev.main.ogImage || ev.main.jsonLdProduct) f.declaredMain = 0.7;
  else if (ev.main.microdataProduct) f.declaredMain = 0.6;
  // Looking for the logo, a declared or header home-link logo that is also the share image (a page
  // with no picture of its own shares its logo) is the logo, not a product picture.
  const ownLogo = purpose.profile.id === 'logo' && isDeclaredLogo(ev);
  // A video's poster is the picture of a page whose main media is the video.
  if (ev.sources.includes('video-poster') && !ev.hidden) f.declaredMain = Math.max(f.declaredMain, 0.6);
  f.sameAsMain = ev.main.sameAsMain ? 1 : 0;
  if (ownLogo) f.declaredMain = f.sameAsMain = 0;
  f.shareImage = ev.sources.includes('og:image') || ev.sources.includes('twitter:image') ? 1 : 0;
  f.productContext = productContext(ev);
  f.nameMatch = ev.nameMatch;
  if (dims) {
    const side = Math.max(dims.width, dims.height);
    f.size = clamp01((Math.log2(side) - Math.log2(100)) / (Math.log2(1200) - Math.log2(100)));
    f.small = side < 100 ? 1 : side < 200 ? 0.35 : 0;
    if (dims.shapeKnown) {
      const ratio = dims.width / dims.height;
      f.wide = ratio >= 1.6 ? 1 : ratio >= 1.3 ? 0.5 : 0;
      f.strip = ratio >= 3.5 || ratio <= 1 / 3.5 ? 1 : 0;
    }
  } else {
    f.size = 0.4;
  }
  f.chrome = ev.regions.some((r) => r !== 'aside') ? 1 : ev.regions.includes('aside') ? 0.6 : 0;
  f.logo = logo.score;
  f.iconish = iconish(c);
  // Site icons rank as logos below a declared one, the largest first.
  if (isSiteIcon(c)) {
    const side = Math.max(ev.width ?? 0, ev.height ?? 0);
    f.siteIcon = side === 0 ? 0.6 : 0.5 + 0.5 * clamp01((side - 32) / (192 - 32));
  }
  f.related = ev.contextTokens.some((t) => t === 'related' || t === 'ad') || ev.tokens.includes('ad') ? 1 : 0;
  f.hidden = ev.hidden ? 1 : 0;
  f.early = ev.position === undefined ? 0 : clamp01(1 - ev.position);
  f.heroBanner = ev.tokens.some((t) => t === 'hero' || t === 'banner')
    ? 1
    : ev.contextTokens.some((t) => t === 'hero' || t === 'banner')
      ? 0.6
      : 0;
  // Only a background: a picture that is also an <img> is not decoration.
  f.cssBackground = ev.sources.length > 0 && ev.sources.every((s) => BACKGROUND_SOURCES.includes(s)) ? 1 : 0;
  const words = new Set(tokenize([...ev.texts, ...ev.context, ev.fileName.replace(/\.[a-z0-9]+$/i, '')].join(' ')));
  f.people = [...words].some((w) => PEOPLE_WORDS.has(w)) ? 1 : 0;
  f.lifestyle = [...words].some((w) => LIFESTYLE_WORDS.has(w)) ? 1 : 0;
  f.transparent = m?.hasAlpha ? 1 : 0;
  f.vector = c.type === 'inline-svg' || m?.format === 'svg' || /\.svg$/i.test(ev.fileName) ? 1 : 0;
  if (purpose.freeText.length > 0)
    f.text = matchedWords(purpose.freeText, words).length / new Set(purpose.freeText).size;
  return f;
}

function productContext(ev: Evidence): number {
  // Page-wide wrappers (`<body class="product-page">`) reach the header too: chrome is never product.
  if (ev.regions.length > 0) return 0;
  if (ev.tokens.includes('main')) return 1;
  let v = 0;
  if (ev.tokens.includes('product') || ev.tokens.includes('gallery') || ev.contextTokens.includes('main')) v = 0.8;
  else if (ev.contextTokens.includes('product') || ev.contextTokens.includes('gallery')) v = 0.6;
  if (ev.inProductScope) v = Math.max(v, 0.6);
  if (ev.sources.includes('zoom') || ev.sources.includes('linked-image')) v = Math.max(v, 0.7);
  if (ev.contextTokens.includes('related')) v *= 0.5;
  return v;
}

function iconish(c: DiscoveredCandidate): number {
  const ev = c.evidence;
  if (ev.sources.length > 0 && ev.sources.every((s) => ICON_SOURCES.includes(s))) return 1;
  const own = ['icon', 'avatar', 'flag', 'payment', 'rating', 'social', 'swatch', 'sprite', 'badge'] as const;
  if (ev.tokens.some((t) => (own as readonly string[]).includes(t))) return 0.8;
  const around = ['social', 'payment', 'rating', 'flag', 'swatch'] as const;
  if (ev.contextTokens.some((t) => (around as readonly string[]).includes(t))) {
    return 0.5;
  }
  return 0;
}

function scoreOf(f: Features, profile: PurposeProfile): number {
  let logit = profile.bias;
  for (const k of FEATURES) logit += (profile.weights[k] ?? 0) * f[k];
  return Math.round((1 / (1 + Math.exp(-logit))) * 1000) / 1000;
}

function matchedWords(wanted: readonly string[], have: ReadonlySet<string>): string[] {
  return [...new Set(wanted)].filter((w) => have.has(w));
}

// ---- explanation --------------------------------------------------------------------------------

const REGION_NAMES: Record<Region, string> = {
  header: 'header',
  nav: 'navigation',
  footer: 'footer',
  aside: 'sidebar',
};

/** One sentence: the strongest reasons for the score, then the strongest reason against it. */
function explain(
  c: DiscoveredCandidate,
  f: Features,
  purpose: ResolvedPurpose,
  logo: LogoGuess,
  dims: Size | undefined,
): string {
  const ev = c.evidence;
  const w = purpose.profile.weights;
  const contributions = FEATURES.map((k) => ({ k, v: (w[k] ?? 0) * f[k] }));
  const pros = contributions
    .filter((x) => x.v >= 0.35)
    .sort((a, b) => b.v - a.v)
    .map((x) => pro(x.k, c, f, purpose, logo, dims))
    .filter((p): p is string => !!p)
    .slice(0, 3);
  const cons = contributions
    .filter((x) => x.v <= -0.5)
    .sort((a, b) => a.v - b.v)
    .map((x) => con(x.k, ev, dims))
    .filter((p): p is string => !!p)
    .slice(0, 2);
  const where = describeSource(c);
  let sentence = pros.length > 0 ? pros.join(', ') : `${where} with no strong sign of relevance`;
  if (cons.length > 0) sentence += `; but ${cons.join(' and ')}`;
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

function pro(
  k: Feature,
  c: DiscoveredCandidate,
  f: Features,
  purpose: ResolvedPurpose,
  logo: LogoGuess,
  dims: Size | undefined,
): string | undefined {
  const ev = c.evidence;
  switch (k) {
    case 'declaredMain': {
      const which = [
        ev.main.ogImage && 'og:image',
        ev.main.jsonLdProduct && 'JSON-LD',
        ev.main.microdataProduct && 'microdata',
      ].filter(Boolean);
      return `${ev.main.primary ? 'main product image' : 'product image'} declared by the page (${which.join(' and ')})`;
    }
    case 'shareImage':
      return f.declaredMain > 0
        ? undefined
        : `the page's share image (${ev.sources.includes('og:image') ? 'og:image' : 'twitter:image'})`;
    case 'sameAsMain':
      return "another rendition of the page's declared main image";
    case 'productContext':
      if (ev.tokens.includes('main')) return 'marked as the main product image';
      if (ev.tokens.includes('gallery') || ev.contextTokens.includes('gallery')) return 'in the product gallery';
      if (ev.sources.includes('zoom') || ev.sources.includes('linked-image')) return 'zoomable on the page';
      return 'in the product area of the page';
    case 'nameMatch':
      return f.nameMatch >= 0.6 ? 'its alt text names the product' : 'its alt text partly matches the product name';
    case 'size':
      if (!dims) return undefined;
      return `${f.size >= 0.8 ? 'large' : 'medium-sized'} (${describeSize(dims)})`;
    case 'logo': {
      const parts = logo.signals
        .map((s) => LOGO_PHRASES[s])
        .filter(Boolean)
        .slice(0, 3);
      return `looks like the site logo${parts.length ? ` (${parts.join(', ')})` : ''}`;
    }
    case 'early':
      return 'near the top of the page';
    case 'heroBanner':
      return 'a hero or banner image';
    case 'wide':
      return 'wide format';
    case 'cssBackground':
      return 'a CSS background picture';
    case 'people':
      return 'its text mentions people';
    case 'lifestyle':
      return 'its text suggests a lifestyle scene';
    case 'transparent':
      return 'transparent background';
    case 'vector':
      return 'a vector graphic';
    case 'chrome':
      return f.logo > 0 && (purpose.profile.weights.logo ?? 0) > 0
        ? undefined
        : `in the page ${REGION_NAMES[ev.regions[0] ?? 'header']}`;
    case 'text': {
      const have = new Set(tokenize([...ev.texts, ...ev.context, ev.fileName].join(' ')));
      return `matches "${matchedWords(purpose.freeText, have).join(' ')}"`;
    }
    default:
      return undefined;
  }
}

const LOGO_PHRASES: Partial<Record<string, string>> = {
  'named-logo': 'named logo',
  'logo-container': 'in a logo container',
  'declared-logo': 'declared as the logo',
  'home-link': 'links to the home page',
  'in-header': 'in the header',
  'wide-mark': 'wide mark',
  transparent: 'transparent',
};

function con(k: Feature, ev: Evidence, dims: Size | undefined): string | undefined {
  switch (k) {
    case 'small':
      return dims ? `small (${describeSize(dims)})` : 'small';
    case 'strip':
      return 'its shape is a narrow strip';
    case 'chrome':
      return `it sits in the page ${REGION_NAMES[ev.regions[0] ?? 'header']}`;
    case 'logo':
      return 'it looks like a logo';
    case 'iconish':
      return 'it looks like an icon';
    case 'related':
      return 'it is in a recommendations or advertising block';
    case 'hidden':
      return 'it is hidden on the page';
    case 'vector':
      return 'it is a vector graphic';
    case 'cssBackground':
      return 'it is a CSS background';
    case 'heroBanner':
      return 'it is a banner';
    case 'declaredMain':
    case 'sameAsMain':
      return 'it is the main product picture';
    case 'productContext':
      return 'it is in the product area';
    case 'transparent':
      return 'it has a transparent background';
    case 'lifestyle':
      return 'it looks like a lifestyle scene';
    case 'people':
      return 'it shows people';
    default:
      return undefined;
  }
}

function describeSize(dims: Size): string {
  if (!dims.shapeKnown) return `about ${dims.width} px`;
  return `${dims.width}x${dims.height}${dims.from === 'display' ? ' as shown' : dims.from === 'url' ? ' by its URL' : ''}`;
}

const SOURCE_NAMES: Partial<Record<SourceKind, string>> = {
  img: 'an image on the page',
  'inline-svg': 'an inline SVG',
  'video-poster': 'a video poster',
  icon: 'a site icon',
  'apple-touch-icon': 'a site icon',
  'mask-icon': 'a site icon',
  'json-ld-image': 'an image in the structured data',
  'json-ld-logo': 'the logo in the structured data',
  'og:logo': 'the logo in the page metadata',
  'twitter:image': "the page's share image",
  'inline-style': 'a background picture',
  'style-element': 'a background picture',
  stylesheet: 'a background picture',
  'data-url': 'an embedded image',
};

function describeSource(c: DiscoveredCandidate): string {
  for (const s of c.evidence.sources) {
    const name = SOURCE_NAMES[s];
    if (name) return name;
  }
  return 'an image on the page';
}

// ---- rejection rules ----------------------------------------------------------------------------

function isDeclaredMain(ev: Evidence): boolean {
  return ev.main.ogImage || ev.main.jsonLdProduct || ev.main.microdataProduct;
}

/**
 * Rejections the markup alone justifies, before anything is downloaded: tracking pixels,
 * sprites, and pictures whose declared intrinsic size is below the purpose's minimum.
 */
function rejectByEvidence(c: DiscoveredCandidate, profile: PurposeProfile): Rejection | undefined {
  const ev = c.evidence;
  if (ev.tracking.includes('tracker-host')) {
    return { code: 'tracking-pixel', reason: 'Served by a known analytics or advertising host.' };
  }
  const declaredLogo = profile.id !== 'product' && profile.id !== 'packshot' && isDeclaredLogo(ev);
  if (ev.tracking.includes('declared-1x1') && !declaredLogo) {
    return { code: 'tracking-pixel', reason: 'Declared as a 1x1 image, the size of a tracking pixel.' };
  }
  if (ev.tracking.includes('pixel-path') && !isDeclaredMain(ev) && ev.texts.length === 0) {
    return { code: 'tracking-pixel', reason: 'Its address names a tracking pixel or beacon.' };
  }
  if (!isDeclaredMain(ev) && (ev.tokens.includes('sprite') || /sprite/i.test(ev.fileName))) {
    return { code: 'sprite', reason: 'A CSS sprite sheet (many icons in one file), not a picture of its own.' };
  }
  if (ev.width && ev.height && !isDeclaredMain(ev) && !declaredLogo && tooSmall(ev.width, ev.height, profile)) {
    return {
      code: 'too-small',
      reason: `Declared as ${ev.width}x${ev.height}, below the ${profile.minSide} px this purpose needs.`,
    };
  }
  return undefined;
}

/**
 * Rejections from a measurement of the downloaded file: undecodable, unsupported format, too
 * large (bytes or pixels), too small for the purpose.
 */
export function rejectByMeasurement(
  m: Measurement,
  profile: PurposeProfile,
  limits: RejectionLimits = DEFAULT_LIMITS,
): Rejection | undefined {
  if (m.decodeError)
    return { code: 'undecodable', reason: `The file could not be decoded as an image (${m.decodeError}).` };
  if (m.format && !limits.formats.includes(m.format.toLowerCase())) {
    return { code: 'unsupported-format', reason: `Its format (${m.format}) is not supported.` };
  }
  if (m.fileSize !== undefined && m.fileSize > limits.maxBytes) {
    return { code: 'too-large', reason: `The file is ${mb(m.fileSize)} MB, over the ${mb(limits.maxBytes)} MB limit.` };
  }
  if (m.width && m.height && m.width * m.height > limits.maxPixels) {
    return {
      code: 'too-large',
      reason: `${m.width}x${m.height} is over the ${limits.maxPixels / 1e6} megapixel limit.`,
    };
  }
  if (m.width && m.height && tooSmall(m.width, m.height, profile)) {
    return {
      code: 'too-small',
      reason: `${m.width}x${m.height} is below the ${profile.minSide} px this purpose needs.`,
    };
  }
  if (m.width !== undefined && m.height !== undefined && (m.width < 1 || m.height < 1)) {
    return { code: 'undecodable', reason: 'The image has no pixels.' };
  }
  return undefined;
}

/** Too small: the long side under the purpose's minimum, or the short side under a quarter of it. */
function tooSmall(width: number, height: number, profile: PurposeProfile): boolean {
  return Math.max(width, height) < profile.minSide || Math.min(width, height) < Math.ceil(profile.minSide / 4);
}

/**
 * Groups measured candidates whose perceptual hashes differ in at most `maxDistance` bits and,
 * in each group, keeps the largest (most pixels, then higher score). Returns duplicate key →
 * kept key.
 */
export function findDuplicates(
  items: readonly { key: string; measurement?: Measurement; score: number }[],
  maxDistance = DEFAULT_LIMITS.duplicateDistance,
): Map<string, string> {
  const hashed = items
    .filter((i) => i.measurement?.phash && /^[0-9a-f]{16}$/i.test(i.measurement.phash))
    .map((i) => ({
      ...i,
      area: (i.measurement!.width ?? 0) * (i.measurement!.height ?? 0),
      hash: BigInt(`0x${i.measurement!.phash}`),
    }))
    .sort((a, b) => b.area - a.area || b.score - a.score || (a.key < b.key ? -1 : 1));
  const keptItems: typeof hashed = [];
  const out = new Map<string, string>();
  for (const item of hashed) {
    const same = keptItems.find((k) => popcount(k.hash ^ item.hash) <= maxDistance);
    if (same) out.set(item.key, same.key);
    else keptItems.push(item);
  }
  return out;
}

/** Bits that differ between two 64-bit hashes given as 16 hex digits. */
export function hammingDistance(a: string, b: string): number {
  return popcount(BigInt(`0x${a}`) ^ BigInt(`0x${b}`));
}

function popcount(x: bigint): number {
  let n = 0;
  let v = x;
  while (v > 0n) {
    v &= v - 1n;
    n++;
  }
  return n;
}

function clamp01(n: number): number {
  return Math.min(1, Math.max(0, n));
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

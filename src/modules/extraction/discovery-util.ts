import { createHash } from 'node:crypto';
import type { AnyNode, Element } from 'domhandler';
import type { Region, Token } from './discovery-types.ts';
import { MAX_TEXTS } from './discovery-types.ts';
import { cleanText, tokenize } from './text.ts';

/** Words and small helpers shared by the discovery files: class/file-name tokens, sizes, text. */

export const IMAGE_EXT = /\.(?:jpe?g|png|webp|avif|gif|svg|bmp|tiff?)(?:$|[?#])/i;

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
  [
    'icon',
    /(?:^|[^a-z])(?:icons?|ico|glyph|fa[srb]?)(?:[^a-z]|$)|icon[-_]|[-_]icon|caret|chevron|arrow|dropdown|hamburger|burger/,
  ],
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
  ['social', /social|share|follow|facebook|twitter|tweet|instagram|pinterest|whatsapp|youtube|tiktok|linkedin/],
  ['payment', /payment|visa|mastercard|paypal|klarna|amex|trustmark|trust[-_]?badge|seal|certif/],
  ['rating', /rating|(?:^|[^a-z])stars?(?:[^a-z]|$)|review/],
  ['flag', /flag|country[-_]?(?:select|switch)|language/],
  ['swatch', /swatch|colou?r[-_]?(?:option|chip|select)|variant/],
  ['background', /(?:^|[^a-z])bg(?:[^a-z]|$)|background|backdrop/],
  ['video', /video|poster|fallback|player|embed/],
  ['popup', /pop[-_]?(?:up|over|in)|modal|overlay|dialog|loader|(?<!lazy)loading|spinner|throbber/],
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
  amex: 'payment',
  americanexpress: 'payment',
  applepay: 'payment',
  googlepay: 'payment',
  gpay: 'payment',
  background: 'background',
  caret: 'icon',
  chevron: 'icon',
  arrow: 'icon',
  video: 'video',
  poster: 'video',
  fallback: 'video',
  loader: 'popup',
  loading: 'popup',
  spinner: 'popup',
  throbber: 'popup',
  popup: 'popup',
  popover: 'popup',
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
  popover: 'popup',
  popup: 'popup',
  loader: 'popup',
  spinner: 'popup',
  video: 'video',
  videos: 'video',
};

export const REGION_CLASS =
  /^(?:site|page|global|main|top|gh|gf|l)?[-_]?(header|footer|nav|navbar|navigation|masthead|sidebar|topbar|menu)(?:[-_]?(?:wrapper|container|inner|main|top|bar|wrap|desktop|mobile))?$/;
export const ROLE_REGION: Record<string, Region> = {
  banner: 'header',
  navigation: 'nav',
  contentinfo: 'footer',
  complementary: 'aside',
};

/** "Red Shoe | Shop" → "Red Shoe": drops a short trailing site name after a separator. */
export function stripSiteName(title: string | undefined): string | undefined {
  if (!title) return undefined;
  const m = /^(.*\S)\s+(?:\||-|–|—|::|·)\s+([^|–—]{1,40})$/.exec(title);
  return m ? m[1] : title;
}

export function classTokens(classId: string): Token[] {
  const s = classId.toLowerCase();
  const out: Token[] = [];
  for (const [token, re] of CLASS_TOKEN_PATTERNS) if (re.test(s)) out.push(token);
  return out;
}

export function folderTokens(url: string): Token[] {
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

export function wordTokens(text: string | undefined): Token[] {
  const out: Token[] = [];
  for (const w of tokenize(text)) {
    const t = WORD_TOKENS[w];
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

export function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined) return true;
  const style = a.style;
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

export function insideDefinitions(node: Element, svg: Element): boolean {
  for (let p = node.parent; p && p !== svg; p = p.parent) {
    if (p.type === 'tag' && /^(?:symbol|defs|clippath|mask|pattern)$/i.test((p as Element).name)) return true;
  }
  return false;
}

export function textOf(node: AnyNode): string {
  if (node.type === 'text') return (node as unknown as { data: string }).data;
  if (!('children' in node)) return '';
  let out = '';
  for (const c of node.children) out += textOf(c);
  return out;
}

export function addText(set: Set<string>, text: string | undefined): void {
  const t = cleanText(text, 200);
  if (t && set.size < MAX_TEXTS * 2) set.add(t);
}

export function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

export function toInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? Math.round(v) : undefined;
  if (typeof v === 'object' && v !== null && 'value' in v) return toInt((v as { value: unknown }).value);
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/i.exec(v);
  if (!m) return undefined;
  const n = Math.round(Number(m[1]));
  return n > 0 && n < 100_000 ? n : undefined;
}

export function styleSize(style: string | undefined, prop: 'width' | 'height'): number | undefined {
  if (!style) return undefined;
  const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*(\\d+(?:\\.\\d+)?)px`, 'i').exec(style);
  return m ? toInt(m[1]) : undefined;
}

export function hash(s: string): string {
  return createHash('sha1').update(s).digest('hex').slice(0, 16);
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

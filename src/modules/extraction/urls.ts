/**
 * Pure URL helpers for image discovery: resolving what a page wrote into absolute http(s) URLs,
 * parsing `srcset`, recognising trackers and placeholders, and comparing image URLs.
 */

const MAX_URL_LENGTH = 4096;

/** A value that is a template or script rather than a URL (`{{id}}`, `${x}`, `javascript:`). */
const NOT_A_URL = /^(?:javascript|about|blob|mailto|tel):|[{}]|\$\{|<|^#/i;

/**
 * Resolves `raw` against `base` and returns an absolute http(s) URL without its fragment, or
 * `undefined` for anything else (empty, template placeholders, other schemes, unparsable).
 * `data:` URLs are not handled here; see `parseDataUrl`.
 */
export function resolveHttpUrl(raw: string | undefined, base: string): string | undefined {
  if (!raw) return undefined;
  const value = raw.trim();
  if (!value || value.length > MAX_URL_LENGTH || NOT_A_URL.test(value) || /^data:/i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname) return undefined;
  url.hash = '';
  return url.href;
}

export interface DataUrl {
  mimeType: string;
  /** Decoded size in bytes. */
  byteLength: number;
}

/** Parses the header of a `data:image/...` URL; `undefined` when it is not an image data URL. */
export function parseDataUrl(raw: string): DataUrl | undefined {
  const m = /^data:(image\/[a-z0-9.+-]+)?((?:;[^,;]*)*),/i.exec(raw.trim());
  if (!m?.[1]) return undefined;
  const payload = raw.trim().slice(m[0].length);
  const base64 = /;base64/i.test(m[2] ?? '');
  const byteLength = base64
    ? Math.floor((payload.replace(/[\s=]/g, '').length * 3) / 4)
    : payload.length - 2 * (payload.match(/%[0-9a-f]{2}/gi)?.length ?? 0);
  return { mimeType: m[1].toLowerCase(), byteLength };
}

export interface SrcsetEntry {
  url: string;
  /** `w` descriptor. */
  width?: number;
  /** `x` descriptor (1 when none is given). */
  density?: number;
}

/**
 * Parses a `srcset` attribute following the HTML algorithm closely enough for real pages: URLs
 * may contain commas (`w_100,h_100`), a candidate ends at whitespace, descriptors end at a comma.
 * Returned URLs are raw (unresolved).
 */
export function parseSrcset(srcset: string): SrcsetEntry[] {
  const out: SrcsetEntry[] = [];
  const s = srcset;
  let i = 0;
  while (i < s.length) {
    while (i < s.length && (isSpace(s[i]) || s[i] === ',')) i++;
    if (i >= s.length) break;
    let start = i;
    while (i < s.length && !isSpace(s[i])) i++;
    let url = s.slice(start, i);
    let descriptors = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      start = i;
      let depth = 0;
      while (i < s.length) {
        const ch = s[i];
        if (ch === '(') depth++;
        else if (ch === ')') depth = Math.max(0, depth - 1);
        else if (ch === ',' && depth === 0) break;
        i++;
      }
      descriptors = s.slice(start, i).trim();
      i++;
    }
    if (!url) continue;
    const entry: SrcsetEntry = { url };
    for (const d of descriptors.split(/\s+/)) {
      const m = /^(\d+(?:\.\d+)?)([wx])$/i.exec(d);
      if (!m) continue;
      const n = Number(m[1]);
      if (!(n > 0)) continue;
      if (m[2]!.toLowerCase() === 'w') entry.width = Math.round(n);
      else entry.density = n;
    }
    if (entry.width === undefined && entry.density === undefined) entry.density = 1;
    out.push(entry);
  }
  return out;
}

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || ch === '\f';
}

/** Hosts (or host suffixes) that serve analytics and advertising pixels, never content. */
const TRACKER_HOSTS = [
  'doubleclick.net',
  'google-analytics.com',
  'googletagmanager.com',
  'googleadservices.com',
  'googlesyndication.com',
  'analytics.google.com',
  'facebook.com',
  'facebook.net',
  'bat.bing.com',
  'scorecardresearch.com',
  'quantserve.com',
  'amazon-adsystem.com',
  'fls-na.amazon.com',
  'fls-eu.amazon.com',
  'adsrvr.org',
  'criteo.com',
  'criteo.net',
  'taboola.com',
  'outbrain.com',
  'hotjar.com',
  'mc.yandex.ru',
  'mc.yandex.com',
  'top-fwz1.mail.ru',
  'pinterest.com',
  'ct.pinterest.com',
  'analytics.twitter.com',
  't.co',
  'px.ads.linkedin.com',
  'sc-static.net',
  'tr.snapchat.com',
  'adnxs.com',
  'rubiconproject.com',
  'pubmatic.com',
  'casalemedia.com',
  'demdex.net',
  'omtrdc.net',
  '2o7.net',
  'krxd.net',
  'rlcdn.com',
  'bluekai.com',
  'mathtag.com',
  'everesttech.net',
  'tiqcdn.com',
  'clarity.ms',
  'nr-data.net',
  'yieldlab.net',
  'ib-ibi.com',
];

/** True when the URL's host is a known tracker (suffix match on a label boundary). */
export function isTrackerHost(url: string): boolean {
  const host = hostOf(url);
  if (!host) return false;
  return TRACKER_HOSTS.some((t) => host === t || host.endsWith(`.${t}`));
}

/**
 * A path that names a pixel or beacon: a file stem such as `pixel`, `beacon`, `1x1`, `tr`,
 * `collect`, `__utm` (bare, or .gif/.png/.php), `p.gif`, or a `/pixel/` or `/beacon/` folder.
 * Product names merely containing the word (`google-pixel-6.jpg`) and JPEGs do not count.
 */
export function hasPixelPath(url: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname.toLowerCase();
  } catch {
    return false;
  }
  return (
    /(?:^|\/)(?:pixel|beacon|1x1|tr|collect|__utm|spacer|clear|blank|track|impression|event)(?:\.(?:gif|png|php|aspx?))?$/.test(
      path,
    ) ||
    /(?:^|\/)p\.gif$/.test(path) ||
    /\/(?:pixel|beacon|pixels|beacons)\//.test(path)
  );
}

/** File names that lazy-loading scripts put in `src` until the real image loads. */
export function isPlaceholderUrl(url: string): boolean {
  const name = fileNameOf(url).toLowerCase();
  return /(?:^|[_.-])(?:blank|spacer|placeholder|lazy|loading|loader|transparent|empty|grey|gray|pixel|1x1|trans)(?:[_.-]|$)/.test(
    name,
  );
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The last path segment, percent-decoded ('' for a bare host). */
export function fileNameOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return '';
  }
  const last = path.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Percent-escapes of characters that mean the same unescaped in a path or query (`%24` = `$`). */
const SAFE_ESCAPES = /%(2[146789ABCDEF]|3[0-9ABD]|4[0-9A-F]|5[0-9AF]|6[1-9A-F]|7[0-9AE])/gi;

/**
 * A comparable form of an image URL: scheme-less, host lower-cased without `www.`, default port
 * and fragment dropped, an empty query dropped, escapes of characters that need none undone
 * (`?%24formatz%24` = `?$formatz$`). Two URLs that normalise equal fetch the same file on every
 * real host.
 */
export function normalizeImageUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const host = u.hostname.toLowerCase().replace(/^www\./, '');
  const port = u.port && u.port !== '80' && u.port !== '443' ? `:${u.port}` : '';
  const query = u.search && u.search !== '?' ? u.search : '';
  const decodeSafe = (s: string) =>
    s.replace(SAFE_ESCAPES, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return `//${host}${port}${decodeSafe(u.pathname)}${decodeSafe(query)}`;
}

/** Query parameters image CDNs use to pick a size, format or cache version of one picture. */
const RENDITION_PARAMS = new Set(
  (
    'w h width height wid hei sw sh q qlt quality f fm fmt format fit crop auto dpr sm size s resize scale ' +
    'v ver version ts t cb imwidth impolicy bg op_sharpen odnwidth odnheight odnbg'
  ).split(' '),
);

/**
 * The URL without the query parameters that only pick a rendition (`?w=400`, `?f=g`,
 * `?$preset$`): two URLs with the same rendition key are the same picture in different sizes.
 */
export function renditionKey(url: string): string {
  let u: URL;
  try {
    u = new URL(normalizeImageUrl(url), 'https://x');
  } catch {
    return url;
  }
  const kept = [...u.searchParams].filter(([k]) => !RENDITION_PARAMS.has(k.toLowerCase()) && !k.startsWith('$'));
  const query = kept.length ? `?${new URLSearchParams(kept).toString()}` : '';
  return `//${u.host}${u.pathname}${query}`;
}

/**
 * The URL with every size marker removed: rendition parameters (see `renditionKey`), a size
 * suffix of the file name (WordPress `-300x200`, `.size_1200x675`, `_1024x768`) and size-only
 * path segments (`/1200x630/`, `/w_800/`). Two URLs with the same stem are renditions of one
 * picture (`photo.jpg` and `photo-300x200.jpg`).
 */
export function renditionStem(url: string): string {
  // Jetpack's image CDN (`i0.wp.com/host/path`) serves the same file as `host/path`.
  const key = renditionKey(url).replace(/^\/\/i[0-3]\.wp\.com\//, '//');
  const q = key.indexOf('?');
  const path = q < 0 ? key : key.slice(0, q);
  const query = q < 0 ? '' : key.slice(q);
  const stem = path
    .replace(/(?:[-_.](?:size_)?\d{2,5}x\d{2,5})+(?=\.[a-z0-9]{2,5}$|\.v\d+\.[a-z0-9]{2,5}$)/i, '')
    .replace(/\/(?:\d{2,5}x\d{0,5}|[wh]_\d{2,5}[^/]*|max\/\d{2,5}|fit\/c\/\d+\/\d+)(?=\/)/gi, '');
  return stem + query;
}

/**
 * Distinctive identifiers in an image URL's path (image ids, SKUs, hashes), used to tell that two
 * renditions (`.../51YNXarpCfL._AC_SX425_.jpg`, `.../51YNXarpCfL._SL1500_.jpg`) show the same
 * picture. Size presets (`1200x1200`, `w560`, `SX425`), dates and plain words are left out.
 */
export function imageIdentityTokens(url: string): string[] {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const raw of path.split(/[/._\-~,=+&$ ]+/)) {
    if (raw.length < 6 || raw.length > 80) continue;
    const t = raw.toLowerCase();
    if (/^\d+x\d+$/.test(t) || /^(?:w|h|s|sx|sy|sl|ss|ac|ul|us|sr|q|v|c|f|t|x|l|size)?\d{1,4}$/.test(t)) continue;
    if (/^(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:[0-3]\d)?$/.test(t)) continue;
    const digits = t.replace(/\D/g, '').length;
    const letters = t.length - digits;
    const upper = raw.replace(/[^A-Z]/g, '').length;
    const mixedCase = upper > 0 && /[a-z]/.test(raw);
    // Random ids: many digits, or letters and digits mixed, or (eBay) long runs of mixed case.
    const randomCase = upper >= 4 && letters - upper >= 4 && t.length >= 12;
    if (
      digits >= 6 ||
      (digits >= 4 && letters <= 4) ||
      (digits > 0 && letters > 0 && (t.length >= 10 || mixedCase)) ||
      randomCase
    ) {
      out.add(t);
      // `t229739487` (a thumbnail prefix) names the same image as `229739487`.
      const m = /^[a-z]{1,2}(\d{6,})$/.exec(t);
      if (m) out.add(m[1]!);
    }
  }
  return [...out];
}

/** True when two image URLs share a distinctive identifier (see `imageIdentityTokens`). */
export function sameImageIdentity(a: string, b: string): boolean {
  if (normalizeImageUrl(a) === normalizeImageUrl(b)) return true;
  const ta = imageIdentityTokens(a);
  if (ta.length === 0) return false;
  const tb = new Set(imageIdentityTokens(b));
  return ta.some((t) => tb.has(t));
}

export interface UrlSizeHint {
  /** Longest side the URL asks for. */
  side: number;
  width?: number;
  height?: number;
}

/**
 * The size an image CDN URL asks for, when it says: `_1140x1140`, `?w=750&h=440`, Amazon's
 * `._SL1500_` / `._SR480,600_`, eBay's `s-l1600`, `w1200-h1200`, `/w/560/`, `img-1100`.
 * A hint for ranking only: the served file may differ.
 */
export function urlSizeHint(url: string): UrlSizeHint | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const path = u.pathname;
  const pair = (w: number, h: number): UrlSizeHint | undefined =>
    w > 0 && h > 0 && w <= 10000 && h <= 10000 ? { side: Math.max(w, h), width: w, height: h } : undefined;
  const one = (n: number): UrlSizeHint | undefined => (n > 0 && n <= 10000 ? { side: n } : undefined);
  const amazon = /\._[A-Z0-9_,]*?(?:SR|SS|SL|SX|SY|UL|UX|UY|US|AA)(\d{2,4})(?:,(\d{2,4}))?_/.exec(path);
  if (amazon) return amazon[2] ? pair(Number(amazon[1]), Number(amazon[2])) : one(Number(amazon[1]));
  const xy = [...`${path}${u.search}`.matchAll(/(?:^|[^a-z0-9])(\d{2,4})x(\d{2,4})(?![a-z0-9])/gi)].pop();
  if (xy) return pair(Number(xy[1]), Number(xy[2]));
  const wh = /(?:^|[^a-z])w(\d{2,4})-h(\d{2,4})(?!\d)/i.exec(path);
  if (wh) return pair(Number(wh[1]), Number(wh[2]));
  const q = u.searchParams;
  const qw = Number(q.get('w') ?? q.get('width') ?? q.get('wid') ?? q.get('imwidth') ?? NaN);
  const qh = Number(q.get('h') ?? q.get('height') ?? q.get('hei') ?? NaN);
  if (qw > 0 && qh > 0) return pair(qw, qh);
  if (qw > 0) return one(qw);
  const ebay = /\/s-l(\d{2,4})\./.exec(path);
  if (ebay) return one(Number(ebay[1]));
  const folder = /\/(?:w\/|img-)(\d{3,4})\//i.exec(path);
  if (folder) return one(Number(folder[1]));
  return undefined;
}

/** `href` resolved against the page, when both parse and the link is http(s). */
function httpLink(href: string, pageUrl: string): { u: URL; p: URL } | undefined {
  try {
    const u = new URL(href, pageUrl);
    const p = new URL(pageUrl);
    return u.protocol === 'http:' || u.protocol === 'https:' ? { u, p } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when `href` points at the site's home page: same host (ignoring `www.`) and a path that is
 * `/`, an index file, or only locale segments (`/gb/en/`, `/de-de`).
 */
export function isHomeUrl(href: string, pageUrl: string): boolean {
  if (/^\s*(?:#|javascript:)/i.test(href)) return false;
  const link = httpLink(href, pageUrl);
  if (!link) return false;
  const { u, p } = link;
  const strip = (h: string) => h.toLowerCase().replace(/^www\d?\./, '');
  if (strip(u.hostname) !== strip(p.hostname)) return false;
  const segments = u.pathname.split('/').filter(Boolean);
  if (segments.length > 0 && /^(?:index|default|home)\.(?:html?|php|aspx?|jsp)$/i.test(segments.at(-1)!)) {
    segments.pop();
    // The index of a folder the page lives in: the home of a site kept under a path (`/shop/index.php`).
    const folder = `/${segments.join('/')}/`.replace(/^\/\/$/, '/');
    if (p.pathname.startsWith(folder)) return true;
  }
  return segments.length <= 2 && segments.every((s) => /^[a-z]{2}(?:[-_][a-z]{2})?$/i.test(s) || /^home$/i.test(s));
}

/** Second-level labels under which a country's sites register (`co.uk`, `com.br`, `ne.jp`). */
const SECOND_LEVEL = new Set([
  'co',
  'com',
  'net',
  'org',
  'gov',
  'edu',
  'ac',
  'or',
  'ne',
  'go',
  'gob',
  'nom',
  'ltd',
  'plc',
]);

/**
 * The site a host belongs to, roughly its registrable domain: the last two labels, three under a
 * country's second level (`shop.example.co.uk` → `example.co.uk`). No public-suffix list: a
 * heuristic good enough to tell a site's own links from links to other sites.
 */
export function siteOf(hostname: string): string {
  const labels = hostname.toLowerCase().replace(/\.$/, '').split('.');
  if (labels.length <= 2 || /^\d+$/.test(labels.at(-1)!)) return labels.join('.');
  const n = labels.at(-1)!.length === 2 && SECOND_LEVEL.has(labels.at(-2)!) ? 3 : 2;
  return labels.slice(-n).join('.');
}

/**
 * Where a link other than the home page leads: `site` for another page of the same site,
 * `external` for another site; undefined for links that go nowhere else (fragments, scripts,
 * mail, the page itself) and for links to an image file (a zoomable picture, not a destination).
 */
export function linkAway(href: string, pageUrl: string): 'site' | 'external' | undefined {
  if (/^\s*(?:#|javascript:|mailto:|tel:|sms:|data:)/i.test(href) || !href.trim()) return undefined;
  const link = httpLink(href, pageUrl);
  if (!link) return undefined;
  const { u, p } = link;
  if (/\.(?:jpe?g|png|webp|avif|gif|svg|bmp|tiff?)$/i.test(u.pathname)) return undefined;
  if (siteOf(u.hostname) !== siteOf(p.hostname)) return 'external';
  if (u.hostname === p.hostname && u.pathname === p.pathname) return undefined;
  return 'site';
}

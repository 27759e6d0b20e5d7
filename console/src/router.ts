/** Hash routes: `#/brands/<id>/generate?from=<assetId>` and the like. */
export type BrandTab = 'assets' | 'extract' | 'generate' | 'videos' | 'dna' | 'edit';
export const BRAND_TABS: readonly BrandTab[] = ['assets', 'extract', 'generate', 'videos', 'dna', 'edit'];

export type Route =
  | { name: 'login' }
  | { name: 'invite'; token: string }
  | { name: 'brands' }
  | { name: 'brand-new' }
  | { name: 'brand'; id: string; tab: BrandTab; query: Record<string, string> }
  | { name: 'keys' }
  | { name: 'members' }
  | { name: 'not-found'; path: string };

/** The route of a location hash (`#/…`, with or without the `#`). */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [pathPart = '', queryPart = ''] = raw.split('?', 2);
  const parts = pathPart.split('/').filter(Boolean).map(safeDecode);
  const query = Object.fromEntries(new URLSearchParams(queryPart));
  const [a, b, c] = parts;
  if (parts.length === 0) return { name: 'brands' };
  if (a === 'login' && parts.length === 1) return { name: 'login' };
  if (a === 'invite' && b && parts.length === 2) return { name: 'invite', token: b };
  if (a === 'keys' && parts.length === 1) return { name: 'keys' };
  if (a === 'members' && parts.length === 1) return { name: 'members' };
  if (a === 'brands') {
    if (parts.length === 1) return { name: 'brands' };
    if (b === 'new' && parts.length === 2) return { name: 'brand-new' };
    if (b && parts.length === 2) return { name: 'brand', id: b, tab: 'assets', query };
    if (b && c && parts.length === 3 && (BRAND_TABS as readonly string[]).includes(c)) {
      return { name: 'brand', id: b, tab: c as BrandTab, query };
    }
  }
  return { name: 'not-found', path: pathPart || '/' };
}

/** The hash of a route (the inverse of parseRoute). */
export function href(route: Route): string {
  switch (route.name) {
    case 'login':
      return '#/login';
    case 'invite':
      return `#/invite/${encodeURIComponent(route.token)}`;
    case 'brands':
      return '#/brands';
    case 'brand-new':
      return '#/brands/new';
    case 'keys':
      return '#/keys';
    case 'members':
      return '#/members';
    case 'brand': {
      const base = `#/brands/${encodeURIComponent(route.id)}${route.tab === 'assets' ? '' : `/${route.tab}`}`;
      const q = new URLSearchParams(route.query).toString();
      return q ? `${base}?${q}` : base;
    }
    case 'not-found':
      return `#${route.path}`;
  }
}

export const brandHref = (id: string, tab: BrandTab = 'assets', query: Record<string, string> = {}) =>
  href({ name: 'brand', id, tab, query });

/** Routes a signed-out visitor may see. */
export const isPublic = (r: Route) => r.name === 'login' || r.name === 'invite';

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

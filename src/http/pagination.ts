import { fieldError } from './errors.ts';
/** Page arithmetic and links for `{ data, pagination, links }` lists. */

/**
 * Highest `page` any list accepts: far past any real list, and it keeps `(page - 1) * limit` an
 * exact integer that both databases take as an OFFSET (an unbounded page was a 500).
 */
export const MAX_PAGE = 1_000_000;

export interface PageInfo {
  total: number;
  pages: number;
  currentPage: number;
  limit: number;
}

export function pageInfo(total: number, page: number, limit: number): PageInfo {
  return { total, pages: Math.ceil(total / limit), currentPage: page, limit };
}

export const pageOffset = (page: number, limit: number): number => (page - 1) * limit;

/** The spec's pagination object of the scene-forge and video-group lists. */
export function listPagination(total: number, page: number, limit: number) {
  const info = pageInfo(total, page, limit);
  return { currentPage: info.currentPage, totalPages: info.pages, totalItems: info.total, itemsPerPage: info.limit };
}

export interface PageLinks {
  self: string;
  next?: string;
  prev?: string;
}

/**
 * Absolute links to this page and its neighbours. `params` are the list's other query parameters
 * (undefined ones are left out); `page` and `limit` are always written out. `next` is absent on
 * the last page (and past it); `prev` is absent on page 1 and, past the end, points at the last
 * page (page 1 when the list is empty).
 */
export function pageLinks(baseUrl: string, params: Record<string, string | undefined>, info: PageInfo): PageLinks {
  const href = (page: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
    q.set('page', String(page));
    q.set('limit', String(info.limit));
    return `${baseUrl}?${q.toString()}`;
  };
  const { currentPage: page, pages } = info;
  const links: PageLinks = { self: href(page) };
  if (page < pages) links.next = href(page + 1);
  if (page > 1) links.prev = href(Math.min(page - 1, Math.max(pages, 1)));
  return links;
}

/**
 * The one sort vocabulary of lists: `sort=<field>` ascending, `sort=-<field>` descending (as
 * GET /brands). Lists whose spec names `sortBy`/`sortOrder` take both forms; `sort` wins over the
 * defaults, and sending it with either of the others is refused (`conflict`). Pure.
 */
export function sortFrom<F extends string>(
  sort: string | undefined,
  given: { sortBy: F; sortOrder: 'asc' | 'desc' },
  explicit: { sortBy: boolean; sortOrder: boolean },
): { sortBy: F; sortOrder: 'asc' | 'desc' } | 'conflict' {
  if (sort === undefined) return given;
  if (explicit.sortBy || explicit.sortOrder) return 'conflict';
  return sort.startsWith('-')
    ? { sortBy: sort.slice(1) as F, sortOrder: 'desc' }
    : { sortBy: sort as F, sortOrder: 'asc' };
}

/** The `sort` values of a list sortable by `fields`: each ascending and `-` descending. */
export const sortValues = <F extends string>(fields: readonly F[]) => fields.flatMap((f) => [f, `-${f}`] as const);

/**
 * A list query with `sort` folded into `sortBy`/`sortOrder` (sortFrom); which of those the client
 * sent is read from the raw URL, since validation filled in their defaults. 400 naming `query.sort`
 * when both forms are sent.
 */
export function withSort<Q extends { sort?: string; sortBy: F; sortOrder: 'asc' | 'desc' }, F extends string>(
  query: Q,
  url: string,
): Q {
  const sent = new URLSearchParams(url.slice(url.indexOf('?') + 1 || url.length));
  const r = sortFrom(query.sort, query, { sortBy: sent.has('sortBy'), sortOrder: sent.has('sortOrder') });
  if (r === 'conflict') throw fieldError('query.sort', 'send either sort or sortBy/sortOrder, not both');
  return { ...query, ...r };
}

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

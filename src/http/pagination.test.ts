import { describe, expect, it } from 'vitest';
import { pageInfo, pageLinks, pageOffset } from './pagination.ts';

const base = 'https://h.example/v1/brands';
const links = (total: number, page: number, limit: number, params: Record<string, string | undefined> = {}) =>
  pageLinks(base, params, pageInfo(total, page, limit));

describe('pageInfo / pageOffset', () => {
  it.each([
    [0, 1, 20, 0],
    [1, 1, 20, 1],
    [20, 1, 20, 1],
    [21, 1, 20, 2],
    [100, 3, 100, 1],
    [101, 1, 100, 2],
  ])('total %i, page %i, limit %i → %i pages', (total, page, limit, pages) => {
    expect(pageInfo(total, page, limit)).toEqual({ total, pages, currentPage: page, limit });
  });
  it('offsets pages from 1', () => {
    expect(pageOffset(1, 20)).toBe(0);
    expect(pageOffset(3, 7)).toBe(14);
  });
});

describe('pageLinks', () => {
  it('writes page and limit into every link and keeps the other parameters, encoded', () => {
    const l = links(5, 2, 2, { sort: 'name', industry: 'Café & Co', all_organizations: undefined });
    expect(l.self).toBe(`${base}?sort=name&industry=Caf%C3%A9+%26+Co&page=2&limit=2`);
    expect(l.next).toBe(`${base}?sort=name&industry=Caf%C3%A9+%26+Co&page=3&limit=2`);
    expect(l.prev).toBe(`${base}?sort=name&industry=Caf%C3%A9+%26+Co&page=1&limit=2`);
  });
  it('omits prev on the first page and next on the last', () => {
    expect(links(5, 1, 2)).toEqual({ self: `${base}?page=1&limit=2`, next: `${base}?page=2&limit=2` });
    expect(links(5, 3, 2)).toEqual({ self: `${base}?page=3&limit=2`, prev: `${base}?page=2&limit=2` });
    expect(links(2, 1, 2)).toEqual({ self: `${base}?page=1&limit=2` });
  });
  it('past the end points prev at the last page (page 1 when empty)', () => {
    expect(links(5, 9, 2)).toEqual({ self: `${base}?page=9&limit=2`, prev: `${base}?page=3&limit=2` });
    expect(links(0, 4, 20)).toEqual({ self: `${base}?page=4&limit=20`, prev: `${base}?page=1&limit=20` });
    expect(links(0, 1, 20)).toEqual({ self: `${base}?page=1&limit=20` });
  });
});

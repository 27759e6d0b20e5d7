import { describe, expect, it } from 'vitest';
import { brandHref, href, isPublic, parseRoute, type Route } from '../src/router.ts';

describe('console routes', () => {
  it('parses every screen', () => {
    expect(parseRoute('')).toEqual({ name: 'brands' });
    expect(parseRoute('#/')).toEqual({ name: 'brands' });
    expect(parseRoute('#/login')).toEqual({ name: 'login' });
    expect(parseRoute('#/invite/abc_DEF-1')).toEqual({ name: 'invite', token: 'abc_DEF-1' });
    expect(parseRoute('#/keys')).toEqual({ name: 'keys' });
    expect(parseRoute('#/members')).toEqual({ name: 'members' });
    expect(parseRoute('#/brands')).toEqual({ name: 'brands' });
    expect(parseRoute('#/brands/new')).toEqual({ name: 'brand-new' });
    expect(parseRoute('#/brands/b1')).toEqual({ name: 'brand', id: 'b1', tab: 'assets', query: {} });
    expect(parseRoute('#/brands/b1/dna')).toEqual({ name: 'brand', id: 'b1', tab: 'dna', query: {} });
    expect(parseRoute('#/brands/b1/videos?from=a%201')).toEqual({
      name: 'brand',
      id: 'b1',
      tab: 'videos',
      query: { from: 'a 1' },
    });
  });

  it('answers not-found for anything else, and survives bad escapes', () => {
    expect(parseRoute('#/brands/b1/nope')).toEqual({ name: 'not-found', path: '/brands/b1/nope' });
    expect(parseRoute('#/invite')).toEqual({ name: 'not-found', path: '/invite' });
    expect(parseRoute('#/whatever/x/y')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/brands/%E0%A4%A')).toMatchObject({ name: 'brand', id: '%E0%A4%A' });
  });

  it('href is the inverse of parseRoute', () => {
    const routes: Route[] = [
      { name: 'login' },
      { name: 'invite', token: 'tok' },
      { name: 'brands' },
      { name: 'brand-new' },
      { name: 'keys' },
      { name: 'members' },
      { name: 'brand', id: 'b/1', tab: 'assets', query: {} },
      { name: 'brand', id: 'b1', tab: 'generate', query: {} },
      { name: 'brand', id: 'b1', tab: 'videos', query: { from: 'x&y' } },
    ];
    for (const r of routes) expect(parseRoute(href(r))).toEqual(r);
    expect(brandHref('b1', 'videos', { from: 'a1' })).toBe('#/brands/b1/videos?from=a1');
  });

  it('only sign-in and invites are public', () => {
    expect(isPublic({ name: 'login' })).toBe(true);
    expect(isPublic({ name: 'invite', token: 't' })).toBe(true);
    expect(isPublic({ name: 'keys' })).toBe(false);
  });
});

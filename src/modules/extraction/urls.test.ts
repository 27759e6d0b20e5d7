import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fileNameOf,
  hasPixelPath,
  imageIdentityTokens,
  isHomeUrl,
  isPlaceholderUrl,
  isTrackerHost,
  normalizeImageUrl,
  parseDataUrl,
  parseSrcset,
  renditionKey,
  resolveHttpUrl,
  sameImageIdentity,
  urlSizeHint,
} from './urls.ts';

describe('resolveHttpUrl', () => {
  const base = 'https://shop.example/p/red-shoe?id=1#top';

  it('resolves relative, root-relative and protocol-relative URLs and drops the fragment', () => {
    expect(resolveHttpUrl('img/a.jpg', base)).toBe('https://shop.example/p/img/a.jpg');
    expect(resolveHttpUrl('/img/a.jpg#x', base)).toBe('https://shop.example/img/a.jpg');
    expect(resolveHttpUrl('//cdn.example/a.jpg', base)).toBe('https://cdn.example/a.jpg');
    expect(resolveHttpUrl('  http://other.example/a.png  ', base)).toBe('http://other.example/a.png');
  });

  it('refuses other schemes, templates, fragments and empty values', () => {
    for (const raw of [
      '',
      '   ',
      'data:image/png;base64,AAAA',
      'javascript:alert(1)',
      'ftp://x.example/a.jpg',
      'blob:https://x/1',
      '{{imageServerPath}}{{id}}',
      '$' + '{url}',
      '#',
      'about:blank',
      'http://',
    ]) {
      expect(resolveHttpUrl(raw, base), raw).toBeUndefined();
    }
    expect(resolveHttpUrl(undefined, base)).toBeUndefined();
    expect(resolveHttpUrl(`/${'a'.repeat(5000)}`, base)).toBeUndefined();
  });

  it('only ever returns absolute http(s) URLs (property)', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const out = resolveHttpUrl(raw, base);
        return out === undefined || /^https?:\/\/[^/]+/.test(out);
      }),
    );
  });
});

describe('parseSrcset', () => {
  it('reads width and density descriptors', () => {
    expect(parseSrcset('a.jpg 400w, b.jpg 800w')).toEqual([
      { url: 'a.jpg', width: 400 },
      { url: 'b.jpg', width: 800 },
    ]);
    expect(parseSrcset('a.jpg, b.jpg 2x')).toEqual([
      { url: 'a.jpg', density: 1 },
      { url: 'b.jpg', density: 2 },
    ]);
  });

  it('keeps commas inside URLs (image CDNs) and tolerates odd spacing', () => {
    expect(parseSrcset('https://c.example/w_100,h_100/a.jpg 100w,https://c.example/w_200,h_200/a.jpg 200w')).toEqual([
      { url: 'https://c.example/w_100,h_100/a.jpg', width: 100 },
      { url: 'https://c.example/w_200,h_200/a.jpg', width: 200 },
    ]);
    expect(parseSrcset('  a.jpg   1.5x ,\n b.jpg,')).toEqual([
      { url: 'a.jpg', density: 1.5 },
      { url: 'b.jpg', density: 1 },
    ]);
  });

  it('ignores invalid descriptors and never throws (property)', () => {
    expect(parseSrcset('a.jpg 0w, b.jpg -2x, c.jpg foo')).toEqual([
      { url: 'a.jpg', density: 1 },
      { url: 'b.jpg', density: 1 },
      { url: 'c.jpg', density: 1 },
    ]);
    fc.assert(fc.property(fc.string(), (s) => parseSrcset(s).every((e) => e.url.length > 0 && !/\s/.test(e.url))));
  });
});

describe('parseDataUrl', () => {
  it('reads the MIME type and decoded size of image data URLs only', () => {
    expect(parseDataUrl('data:image/png;base64,AAAAAAAA')).toEqual({ mimeType: 'image/png', byteLength: 6 });
    expect(parseDataUrl('data:image/svg+xml,%3Csvg%3E')).toEqual({ mimeType: 'image/svg+xml', byteLength: 5 });
    expect(parseDataUrl('data:text/html,<b>')).toBeUndefined();
    expect(parseDataUrl('data:,hello')).toBeUndefined();
    expect(parseDataUrl('https://x.example/a.png')).toBeUndefined();
  });
});

describe('tracking and placeholders', () => {
  it('recognises tracker hosts by label suffix only', () => {
    expect(isTrackerHost('https://stats.g.doubleclick.net/p.gif')).toBe(true);
    expect(isTrackerHost('https://www.facebook.com/tr?id=1')).toBe(true);
    expect(isTrackerHost('https://notdoubleclick.net/a.jpg')).toBe(false);
    expect(isTrackerHost('https://cdn.shop.example/a.jpg')).toBe(false);
  });

  it('recognises pixel paths without flagging product names', () => {
    expect(hasPixelPath('https://x.example/pixel.gif')).toBe(true);
    expect(hasPixelPath('https://x.example/t/beacon')).toBe(true);
    expect(hasPixelPath('https://x.example/pixel/abc.png')).toBe(true);
    expect(hasPixelPath('https://x.example/1x1.gif?u=1')).toBe(true);
    expect(hasPixelPath('https://x.example/google-pixel-6.jpg')).toBe(false);
    expect(hasPixelPath('https://x.example/products/track-jacket.jpg')).toBe(false);
  });

  it('recognises lazy-loading placeholders by file name', () => {
    expect(isPlaceholderUrl('https://x.example/img/blank.gif')).toBe(true);
    expect(isPlaceholderUrl('https://x.example/assets/lazy-placeholder.png')).toBe(true);
    expect(isPlaceholderUrl('https://x.example/img/red-shoe.jpg')).toBe(false);
  });
});

describe('file names', () => {
  it('decodes the last path segment', () => {
    expect(fileNameOf('https://x.example/a/b/red%20shoe.JPG?x=1')).toBe('red shoe.JPG');
    expect(fileNameOf('https://x.example/a/%E0%A4%A.jpg')).toBe('%E0%A4%A.jpg');
    expect(fileNameOf('https://x.example/')).toBe('');
  });
});

describe('normalizeImageUrl and renditions', () => {
  it('treats scheme, www, default port and needless escapes as equal', () => {
    const a = normalizeImageUrl('https://www.shop.example:443/i/a.jpg?$formatz$');
    expect(normalizeImageUrl('http://shop.example/i/a.jpg?%24formatz%24')).toBe(a);
    expect(normalizeImageUrl('https://shop.example/i/a.jpg?')).toBe('//shop.example/i/a.jpg');
    expect(normalizeImageUrl('https://shop.example/i/a.jpg?x=2')).not.toBe(
      normalizeImageUrl('https://shop.example/i/a.jpg?x=1'),
    );
  });

  it('renditionKey drops size and format parameters but keeps the ones that pick the picture', () => {
    expect(renditionKey('https://s.example/a.jpg?w=400&q=80')).toBe(renditionKey('https://s.example/a.jpg?f=g'));
    expect(renditionKey('https://s.example/a.jpg?$rsp-pdp-port-1440$')).toBe(renditionKey('https://s.example/a.jpg'));
    expect(renditionKey('https://s.example/img?id=1&w=100')).not.toBe(renditionKey('https://s.example/img?id=2&w=100'));
  });

  it('finds image ids shared by renditions and ignores size presets and dates', () => {
    expect(imageIdentityTokens('https://m.media-amazon.com/images/I/51YNXarpCfL._AC_SX425_.jpg')).toContain(
      '51ynxarpcfl',
    );
    expect(imageIdentityTokens('https://x.example/2020/12/1200x1200/w560/photo.jpg')).toEqual([]);
    expect(
      sameImageIdentity(
        'https://i.ebayimg.com/images/g/zVYAAOSwGihfeKSa/s-l400.jpg',
        'https://i.ebayimg.com/images/g/zVYAAOSwGihfeKSa/s-l1600.jpg',
      ),
    ).toBe(true);
    expect(
      sameImageIdentity('https://pic.example/87/94/73/229739487.jpg', 'https://pic.example/87/94/73/t229739487.jpg'),
    ).toBe(true);
    expect(
      sameImageIdentity('https://x.example/products/red-shoe.jpg', 'https://x.example/products/blue-shoe.jpg'),
    ).toBe(false);
    expect(sameImageIdentity('https://x.example/ProductImages/a.jpg', 'https://x.example/ProductImages/b.jpg')).toBe(
      false,
    );
  });
});

describe('urlSizeHint', () => {
  it('reads the size common CDN URLs ask for', () => {
    expect(urlSizeHint('https://x.example/p/shoe_1140x1140.jpg')).toEqual({ side: 1140, width: 1140, height: 1140 });
    expect(urlSizeHint('https://x.example/p/shoe.jpg?w=750&h=440')).toEqual({ side: 750, width: 750, height: 440 });
    expect(urlSizeHint('https://m.media-amazon.com/images/I/71abc._AC_SL1500_.jpg')).toEqual({ side: 1500 });
    expect(urlSizeHint('https://m.media-amazon.com/images/I/41abc._AC_SR480,600_.jpg')).toEqual({
      side: 600,
      width: 480,
      height: 600,
    });
    expect(urlSizeHint('https://i.ebayimg.com/images/g/abc/s-l1600.jpg')).toEqual({ side: 1600 });
    expect(urlSizeHint('https://cdn.example/rx-abc-w1200-h900/a.jpg')).toEqual({
      side: 1200,
      width: 1200,
      height: 900,
    });
  });

  it('does not read sizes out of ids or folders that only look numeric', () => {
    expect(urlSizeHint('https://apollo.example/v1/files/pai94x37o8mo1-PK/image')).toBeUndefined();
    expect(urlSizeHint('https://static.example/files/media/image/860/2301860/a.jpg')).toBeUndefined();
    expect(urlSizeHint('not a url')).toBeUndefined();
  });
});

describe('isHomeUrl', () => {
  const page = 'https://www.shop.example/gb/en/p/red-shoe-123';
  it('accepts the root, index files and locale roots of the same site', () => {
    for (const href of ['/', 'https://shop.example/', '/gb/en/', '/index.html', 'http://www.shop.example/de-de']) {
      expect(isHomeUrl(href, page), href).toBe(true);
    }
  });
  it('rejects other pages, other sites and no-op links', () => {
    for (const href of ['/gb/en/p/other', 'https://other.example/', '#', 'javascript:void(0)', '/cart']) {
      expect(isHomeUrl(href, page), href).toBe(false);
    }
  });
});

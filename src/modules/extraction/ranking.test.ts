import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discoverCandidates } from './discovery.ts';
import type { Measurement } from './measurement.ts';
import { resolvePurpose } from './purposes.ts';
import {
  DEFAULT_LIMITS,
  findDuplicates,
  hammingDistance,
  type RankedCandidate,
  rankCandidates,
  rejectByMeasurement,
} from './ranking.ts';

const PAGE = 'https://shop.example/p/red-shoe';

function rank(body: string, head: string, purpose: string | null, measurements?: Record<string, Measurement>) {
  const { candidates } = discoverCandidates(`<html><head>${head}</head><body>${body}</body></html>`, PAGE);
  return rankCandidates(
    candidates,
    purpose,
    measurements ? { measurements: new Map(Object.entries(measurements)) } : {},
  );
}

function at(list: RankedCandidate[], path: string): RankedCandidate {
  const found = list.find((r) => r.candidate.key === `https://shop.example${path}`);
  if (!found) throw new Error(`no ${path} in ${list.map((r) => r.candidate.key).join(', ')}`);
  return found;
}

const top = (list: RankedCandidate[]) =>
  list.find((r) => !r.rejection)!.candidate.key.replace('https://shop.example', '');

const PRODUCT_PAGE = {
  head: `<title>Red Running Shoe | Shop</title>
    <meta property="og:title" content="Red Running Shoe">
    <meta property="og:image" content="/i/shoe-main.jpg">
    <meta property="og:image:width" content="1200"><meta property="og:image:height" content="1200">
    <script type="application/ld+json">{"@type":"Product","name":"Red Running Shoe","image":["/i/shoe-main.jpg","/i/shoe-side.jpg"]}</script>`,
  body: `
    <header><a href="/"><img class="logo" src="/i/acme-logo.svg" alt="Acme"></a><nav><img src="/i/menu-icon.png" class="icon"></nav></header>
    <main>
      <div class="product-gallery">
        <img src="/i/shoe-side.jpg" alt="Red Running Shoe side view" width="800" height="800">
        <img src="/i/shoe-sole.jpg" alt="Sole" width="800" height="800">
      </div>
      <section class="hero-banner" style="background-image:url(/i/sale-banner.jpg)"></section>
      <div class="related-products"><img src="/i/other-shoe.jpg" alt="Blue trainer" width="300" height="300"></div>
    </main>
    <footer><img src="/i/payment-visa.png" class="payment"></footer>
    <img src="https://www.facebook.com/tr?id=1&ev=PageView" width="1" height="1">`,
};

describe('rankCandidates: product pages', () => {
  const ranked = rank(PRODUCT_PAGE.body, PRODUCT_PAGE.head, 'product');

  it('puts the declared main image first and explains why in one sentence', () => {
    expect(top(ranked)).toBe('/i/shoe-main.jpg');
    const first = at(ranked, '/i/shoe-main.jpg');
    expect(first.rank).toBe(1);
    expect(first.kept).toBe(true);
    expect(first.relevanceReason).toBe(
      'Main product image declared by the page (og:image and JSON-LD), its alt text names the product, large (1200x1200).',
    );
    expect([first.width, first.height]).toEqual([1200, 1200]);
  });

  it('ranks gallery pictures above the logo, icons, banners, recommendations and the footer', () => {
    const side = at(ranked, '/i/shoe-side.jpg');
    const sole = at(ranked, '/i/shoe-sole.jpg');
    for (const other of [
      '/i/acme-logo.svg',
      '/i/menu-icon.png',
      '/i/sale-banner.jpg',
      '/i/other-shoe.jpg',
      '/i/payment-visa.png',
    ]) {
      expect(sole.relevanceScore, other).toBeGreaterThan(at(ranked, other).relevanceScore);
    }
    expect(side.relevanceScore).toBeGreaterThan(sole.relevanceScore);
    expect(sole.relevanceReason).toMatch(/in the product gallery/);
    expect(at(ranked, '/i/other-shoe.jpg').relevanceReason).toMatch(
      /but it is in a recommendations or advertising block/,
    );
    expect(at(ranked, '/i/acme-logo.svg').relevanceReason).toMatch(/it looks like a logo/);
    expect(at(ranked, '/i/acme-logo.svg').looksLikeLogo).toBe(true);
    expect(sole.looksLikeLogo).toBe(false);
  });

  it('rejects the tracking pixel and ranks it after every accepted candidate', () => {
    const pixel = ranked.find((r) => r.candidate.key.startsWith('https://www.facebook.com/'))!;
    expect(pixel.rejection?.code).toBe('tracking-pixel');
    expect(pixel.kept).toBe(false);
    expect(pixel.rank).toBe(ranked.length);
  });

  it('gives distinct ranks 1..n in order, keeps the top ones above the floor', () => {
    expect(ranked.map((r) => r.rank)).toEqual(ranked.map((_, i) => i + 1));
    const profile = resolvePurpose('product').profile;
    const kept = ranked.filter((r) => r.kept);
    expect(kept.length).toBeLessThanOrEqual(profile.keep);
    expect(kept.every((r) => r.relevanceScore >= profile.floor && !r.rejection)).toBe(true);
    expect(kept.map((r) => r.rank)).toEqual(kept.map((_, i) => i + 1));
    for (let i = 1; i < ranked.length; i++) {
      if (!ranked[i]!.rejection && !ranked[i - 1]!.rejection) {
        expect(ranked[i - 1]!.relevanceScore).toBeGreaterThanOrEqual(ranked[i]!.relevanceScore);
      }
    }
  });

  it('ranks the logo first for the logo purpose and keeps few', () => {
    const logos = rank(PRODUCT_PAGE.body, PRODUCT_PAGE.head, 'Brand-Logo');
    expect(top(logos)).toBe('/i/acme-logo.svg');
    expect(logos[0]!.relevanceReason).toMatch(
      /^Looks like the site logo \(named logo, links to the home page, in the header\)/,
    );
    expect(logos.filter((r) => r.kept).length).toBeLessThanOrEqual(3);
    expect(at(logos, '/i/shoe-main.jpg').kept).toBe(false);
  });

  it('ranks a page without declarations by its gallery and the product name', () => {
    const bare = rank(PRODUCT_PAGE.body, '<title>Red Running Shoe | Shop</title>', null);
    expect(top(bare)).toBe('/i/shoe-side.jpg');
    expect(at(bare, '/i/shoe-side.jpg').relevanceReason).toMatch(/its alt text names the product/i);
  });
});

describe('rankCandidates: purposes', () => {
  it('matches free text against alt text, file names and captions', () => {
    const body = `<img src="/i/a.jpg" alt="Blue hat" width="800" height="800">
      <figure><img src="/i/b.jpg" width="800" height="800"><figcaption>Red leather boots</figcaption></figure>`;
    expect(top(rank(body, '', null))).toBe('/i/a.jpg');
    const ranked = rank(body, '', 'red boots');
    expect(top(ranked)).toBe('/i/b.jpg');
    expect(at(ranked, '/i/b.jpg').relevanceReason).toMatch(/^Matches "red boot"/);
  });

  it('hero prefers a large wide banner; product prefers the square product shot', () => {
    const body = `<div class="product-image"><img src="/i/p.jpg" width="800" height="800"></div>
      <div class="hero"><img src="/i/h.jpg" width="1600" height="500"></div>`;
    expect(top(rank(body, '', 'hero'))).toBe('/i/h.jpg');
    expect(top(rank(body, '', 'product'))).toBe('/i/p.jpg');
  });

  it('lifestyle and people prefer pictures whose text says so', () => {
    const body = `<div class="gallery"><img src="/i/a.jpg" alt="Sofa" width="1000" height="800">
      <img src="/i/b.jpg" alt="Sofa in a sunny living room" width="1000" height="800">
      <img src="/i/c.jpg" alt="Woman holding a cushion" width="1000" height="800"></div>`;
    expect(top(rank(body, '', 'lifestyle'))).toBe('/i/b.jpg');
    expect(top(rank(body, '', 'people'))).toBe('/i/c.jpg');
  });

  it('packshot prefers measured cut-outs with a transparent background', () => {
    const body = '<div class="gallery"><img src="/i/a.jpg" alt="Mug"><img src="/i/b.png" alt="Mug"></div>';
    const m = (hasAlpha: boolean): Measurement => ({
      width: 1360,
      height: 1190,
      format: hasAlpha ? 'png' : 'jpeg',
      hasAlpha,
    });
    const ranked = rank(body, '', 'Pack Shot', {
      'https://shop.example/i/a.jpg': m(false),
      'https://shop.example/i/b.png': m(true),
    });
    expect(top(ranked)).toBe('/i/b.png');
    expect(at(ranked, '/i/b.png').relevanceReason).toMatch(/transparent background/);
  });

  it('background prefers CSS backgrounds; social prefers the share image', () => {
    const body = `<div class="product-image"><img src="/i/p.jpg" width="1000" height="1000"></div>
      <section style="background-image:url(/i/bg.jpg)"></section>`;
    expect(top(rank(body, '', 'environment'))).toBe('/i/bg.jpg');
    const head = '<meta property="og:image" content="/i/share.jpg"><meta property="og:image:width" content="1200">';
    expect(top(rank(body, head, 'social'))).toBe('/i/share.jpg');
  });
});

describe('rankCandidates: rules', () => {
  it('penalises hidden pictures', () => {
    const ranked = rank(
      '<img src="/i/a.jpg" alt="x"><div style="display:none"><img src="/i/b.jpg" alt="x"></div>',
      '',
      null,
    );
    expect(at(ranked, '/i/a.jpg').relevanceScore).toBeGreaterThan(at(ranked, '/i/b.jpg').relevanceScore);
  });

  it('orders equal scores by position on the page', () => {
    const ranked = rank('<img src="/i/b.jpg"><img src="/i/a.jpg">', '', null);
    expect(ranked.map((r) => r.candidate.key)).toEqual([
      'https://shop.example/i/b.jpg',
      'https://shop.example/i/a.jpg',
    ]);
  });

  it('rejects sprites, pixel paths and pictures declared too small, from markup alone', () => {
    const ranked = rank(
      '<img src="/s/nav-sprite.png"><img src="/t/pixel.gif">',
      '<link rel="icon" href="/favicon-16.png" sizes="16x16">',
      'product',
    );
    expect(at(ranked, '/s/nav-sprite.png').rejection?.code).toBe('sprite');
    expect(at(ranked, '/t/pixel.gif').rejection?.code).toBe('tracking-pixel');
    expect(at(ranked, '/favicon-16.png').rejection).toEqual({
      code: 'too-small',
      reason: 'Declared as 16x16, below the 150 px this purpose needs.',
    });
    // The same icon is fine as a logo.
    expect(
      at(rank('', '<link rel="icon" href="/favicon-16.png" sizes="16x16">', 'logo'), '/favicon-16.png').rejection,
    ).toBeUndefined();
  });

  it('applies measurement rejections and uses measured sizes over declared ones', () => {
    const body = ['ok', 'broken', 'ico', 'huge', 'tiny', 'big']
      .map((n) => `<img src="/m/${n}.jpg" width="50" height="50">`)
      .join('');
    const ranked = rank(body, '', 'product', {
      'https://shop.example/m/ok.jpg': { width: 800, height: 600, format: 'jpeg', fileSize: 90_000 },
      'https://shop.example/m/broken.jpg': { decodeError: 'unexpected end of file' },
      'https://shop.example/m/ico.jpg': { width: 256, height: 256, format: 'ico' },
      'https://shop.example/m/huge.jpg': { width: 4000, height: 3000, format: 'jpeg', fileSize: 30 * 1024 * 1024 },
      'https://shop.example/m/tiny.jpg': { width: 120, height: 40, format: 'png' },
      'https://shop.example/m/big.jpg': { width: 20_000, height: 20_000, format: 'jpeg', fileSize: 1_000_000 },
    });
    expect(at(ranked, '/m/ok.jpg').rejection).toBeUndefined();
    expect(at(ranked, '/m/ok.jpg').relevanceReason).toMatch(/\(800x600\)/);
    expect([at(ranked, '/m/ok.jpg').width, at(ranked, '/m/ok.jpg').height]).toEqual([800, 600]);
    expect(at(ranked, '/m/broken.jpg').rejection?.code).toBe('undecodable');
    expect(at(ranked, '/m/ico.jpg').rejection?.code).toBe('unsupported-format');
    expect(at(ranked, '/m/huge.jpg').rejection?.reason).toBe('The file is 30.0 MB, over the 25.0 MB limit.');
    expect(at(ranked, '/m/big.jpg').rejection?.code).toBe('too-large');
    expect(at(ranked, '/m/tiny.jpg').rejection?.code).toBe('too-small');
    expect(ranked[0]!.candidate.key).toBe('https://shop.example/m/ok.jpg');
    expect(ranked.filter((r) => r.rejection).every((r) => !r.kept && r.rank > 1)).toBe(true);
  });

  it('rejects near-identical pictures as duplicates of the largest copy', () => {
    const body = '<img src="/d/small.jpg"><img src="/d/large.jpg"><img src="/d/other.jpg">';
    const ranked = rank(body, '', null, {
      'https://shop.example/d/small.jpg': { width: 400, height: 400, format: 'jpeg', phash: 'ffff0000ffff0000' },
      'https://shop.example/d/large.jpg': { width: 1200, height: 1200, format: 'jpeg', phash: 'ffff0000ffff0003' },
      'https://shop.example/d/other.jpg': { width: 400, height: 400, format: 'jpeg', phash: '0000ffff0000ffff' },
    });
    expect(at(ranked, '/d/small.jpg').rejection).toEqual({
      code: 'duplicate',
      reason: 'Duplicate of a larger copy of the same picture.',
      duplicateOf: 'https://shop.example/d/large.jpg',
    });
    expect(at(ranked, '/d/large.jpg').rejection).toBeUndefined();
    expect(at(ranked, '/d/other.jpg').rejection).toBeUndefined();
  });

  it('handles an empty page', () => {
    expect(rankCandidates([], 'product')).toEqual([]);
  });

  it('keeps scores in [0,1], ranks distinct, reasons one sentence, for any page (property)', () => {
    const piece = fc.constantFrom(
      '<header><a href="/"><img class="logo" src="/x/logo.png"></a></header>',
      '<img src="/x/a.jpg" alt="Red shoe" width="900" height="900">',
      '<div class="related"><img src="/x/r.jpg"></div>',
      '<footer><img src="/x/f.png"></footer>',
      '<img src="/x/p.gif" width="1" height="1">',
      '<div style="background:url(/x/bg.jpg)"></div>',
      '<meta property="og:image" content="/x/og.jpg">',
      '<svg viewBox="0 0 10 10"><path d="M0 0"/></svg>',
      '<img src="/x/s.jpg" srcset="/x/s.jpg 300w, /x/l.jpg 1500w">',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.option(fc.string({ maxLength: 64 })), (pieces, purpose) => {
        const ranked = rank(pieces.join(''), '<title>Red Shoe</title>', purpose);
        const ranks = ranked.map((r) => r.rank);
        return (
          ranked.every(
            (r) => r.relevanceScore >= 0 && r.relevanceScore <= 1 && /^[A-Z].*\.$/s.test(r.relevanceReason),
          ) &&
          new Set(ranks).size === ranks.length &&
          ranks.every((n, i) => n === i + 1)
        );
      }),
      { numRuns: 100 },
    );
  });
});

describe('rejectByMeasurement', () => {
  const product = resolvePurpose('product').profile;
  it('passes a normal picture and follows the given limits', () => {
    expect(
      rejectByMeasurement({ width: 1000, height: 800, format: 'webp', fileSize: 100_000 }, product),
    ).toBeUndefined();
    expect(
      rejectByMeasurement({ width: 1000, height: 800, format: 'webp' }, product, {
        ...DEFAULT_LIMITS,
        formats: ['jpeg'],
      })?.code,
    ).toBe('unsupported-format');
  });
  it('treats a very narrow strip as too small even when it is long', () => {
    expect(rejectByMeasurement({ width: 2000, height: 20, format: 'png' }, product)?.code).toBe('too-small');
  });
});

describe('findDuplicates and hammingDistance', () => {
  it('counts differing bits', () => {
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('00000000000000ff', '000000000000000f')).toBe(4);
  });
  it('keeps the largest of a group and ignores items without a valid hash', () => {
    const dups = findDuplicates([
      { key: 'a', measurement: { width: 10, height: 10, phash: '1111111111111111' }, score: 0.9 },
      { key: 'b', measurement: { width: 20, height: 20, phash: '1111111111111113' }, score: 0.1 },
      { key: 'c', measurement: { width: 20, height: 20, phash: 'not-a-hash' }, score: 0.5 },
      { key: 'd', score: 0.5 },
    ]);
    expect([...dups]).toEqual([['a', 'b']]);
  });
});

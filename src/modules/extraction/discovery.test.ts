import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DiscoveredCandidate, discoverCandidates, jsonLdImages, linkedStylesheetUrls } from './discovery.ts';

const PAGE = 'https://shop.example/p/red-shoe';

function discover(body: string, head = '', opts = {}) {
  return discoverCandidates(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, PAGE, opts);
}

function byUrl(list: DiscoveredCandidate[], url: string): DiscoveredCandidate {
  const found = list.find((c) => c.type !== 'inline-svg' && c.url === url);
  if (!found) throw new Error(`no candidate ${url} in ${list.map((c) => c.key).join(', ')}`);
  return found;
}

const urls = (list: DiscoveredCandidate[]) => list.map((c) => (c.type === 'inline-svg' ? c.key : c.url)).sort();

describe('discoverCandidates: sources', () => {
  it('reads img src, alt, title and declared size, resolved against the page', () => {
    const { candidates } = discover(
      '<img src="/i/shoe.jpg" alt="Red shoe" title="Side view" width="600" height="400">',
    );
    const c = byUrl(candidates, 'https://shop.example/i/shoe.jpg');
    expect(c.evidence.sources).toEqual(['img']);
    expect(c.evidence.texts).toEqual(['Red shoe', 'Side view']);
    expect(c.evidence.fileName).toBe('shoe.jpg');
    expect([c.evidence.displayWidth, c.evidence.displayHeight]).toEqual([600, 400]);
    expect(c.evidence.domIndex).toBeGreaterThan(0);
    expect(c.evidence.position).toBeGreaterThan(0);
  });

  it('keeps the largest srcset rendition as the candidate and the others as alternates', () => {
    const { candidates } = discover(
      '<img src="/i/s.jpg" srcset="/i/s.jpg 400w, /i/l.jpg 1600w, /i/m.jpg 800w" sizes="50vw" width="400" height="300">',
    );
    expect(candidates).toHaveLength(1);
    const c = candidates[0]!;
    expect(c.type === 'url' && c.url).toBe('https://shop.example/i/l.jpg');
    expect(c.alternates.map((a) => a.url).sort()).toEqual([
      'https://shop.example/i/m.jpg',
      'https://shop.example/i/s.jpg',
    ]);
    expect([c.evidence.width, c.evidence.height]).toEqual([1600, 1200]);
    expect(c.evidence.sources).toContain('srcset');
  });

  it('picks the densest x-descriptor rendition', () => {
    const { candidates } = discover('<img srcset="a.jpg 1x, a@3x.jpg 3x, a@2x.jpg 2x">');
    expect(urls(candidates)).toEqual(['https://shop.example/p/a@3x.jpg']);
  });

  it('reads lazy-loading attributes and ignores the placeholder in src', () => {
    const { candidates, stats } = discover(`
      <img src="/img/blank.gif" data-src="/i/a.jpg" alt="A">
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-lazy-src="/i/b.jpg">
      <img data-original="/i/c.jpg">
      <img data-srcset="/i/d-400.jpg 400w, /i/d-1200.jpg 1200w">
      <div data-bg="/i/e.jpg"></div>`);
    expect(urls(candidates)).toEqual([
      'https://shop.example/i/a.jpg',
      'https://shop.example/i/b.jpg',
      'https://shop.example/i/c.jpg',
      'https://shop.example/i/d-1200.jpg',
      'https://shop.example/i/e.jpg',
    ]);
    expect(byUrl(candidates, 'https://shop.example/i/e.jpg').evidence.sources).toEqual(['lazy-background']);
    expect(stats.dataUrlsSkipped).toBe(0);
  });

  it('treats zoom images and links to image files as the larger rendition', () => {
    const { candidates } = discover(`
      <img src="/i/a-300.jpg" data-zoom-image="/i/a-zoom.jpg">
      <a href="/i/b-big.jpg"><img src="/i/b-small.jpg" alt="B"></a>
      <img src="/i/c.jpg" data-a-dynamic-image='{"/i/c-400.jpg":[400,300],"/i/c-900.jpg":[900,675]}'>`);
    expect(urls(candidates)).toEqual([
      'https://shop.example/i/a-zoom.jpg',
      'https://shop.example/i/b-big.jpg',
      'https://shop.example/i/c-900.jpg',
    ]);
    const b = byUrl(candidates, 'https://shop.example/i/b-big.jpg');
    expect(b.alternates.map((a) => a.url)).toEqual(['https://shop.example/i/b-small.jpg']);
    expect(b.evidence.sources).toEqual(['img', 'linked-image']);
    const c = byUrl(candidates, 'https://shop.example/i/c-900.jpg');
    expect([c.evidence.width, c.evidence.height]).toEqual([900, 675]);
  });

  it('reads picture/source srcsets together with the fallback img', () => {
    const { candidates } = discover(`
      <picture>
        <source media="(min-width: 800px)" srcset="/i/p-1200.webp 1200w, /i/p-800.webp 800w" type="image/webp">
        <img src="/i/p-400.jpg" alt="Shoe">
      </picture>`);
    expect(candidates).toHaveLength(1);
    expect(urls(candidates)).toEqual(['https://shop.example/i/p-1200.webp']);
    expect(candidates[0]!.evidence.sources).toContain('picture');
    expect(candidates[0]!.evidence.texts).toEqual(['Shoe']);
  });

  it('reads og:image with its width, height and alt, and twitter:image', () => {
    const { candidates, page } = discover(
      '',
      `<meta property="og:image" content="/i/og.jpg">
       <meta property="og:image:width" content="1200"><meta property="og:image:height" content="630">
       <meta property="og:image:alt" content="A red shoe">
       <meta property="og:image" content="https://cdn.example/second.jpg">
       <meta name="twitter:image" content="https://cdn.example/tw.jpg">`,
    );
    const og = byUrl(candidates, 'https://shop.example/i/og.jpg');
    expect(og.evidence.sources).toEqual(['og:image']);
    expect([og.evidence.width, og.evidence.height]).toEqual([1200, 630]);
    expect(og.evidence.texts).toEqual(['A red shoe']);
    expect(og.evidence.main.ogImage).toBe(true);
    expect(og.evidence.main.primary).toBe(true);
    expect(byUrl(candidates, 'https://cdn.example/second.jpg').evidence.main.primary).toBe(false);
    expect(og.evidence.domIndex).toBeUndefined();
    expect(byUrl(candidates, 'https://cdn.example/second.jpg').evidence.width).toBeUndefined();
    expect(byUrl(candidates, 'https://cdn.example/tw.jpg').evidence.sources).toEqual(['twitter:image']);
    expect(page.ogImages).toEqual(['https://shop.example/i/og.jpg', 'https://cdn.example/second.jpg']);
  });

  it('reads JSON-LD Product images in every shape, @graph included, and the product name', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Shop' },
        {
          '@type': ['Product'],
          name: 'Red Running Shoe',
          image: [
            '/ld/a.jpg',
            { '@type': 'ImageObject', url: '/ld/b.jpg', width: '800', height: { value: 600 } },
            { contentUrl: 'https://cdn.example/ld/c.jpg', caption: 'Sole' },
          ],
          brand: { '@type': 'Brand', name: 'Acme', logo: '/ld/brand-logo.png' },
        },
        { '@type': 'Organization', logo: { '@type': 'ImageObject', url: '/ld/org-logo.svg' } },
        { '@type': 'ImageObject', contentUrl: '/ld/standalone.jpg' },
      ],
    };
    const { candidates, page } = discover('', `<script type="application/ld+json">${JSON.stringify(ld)}</script>`);
    expect(page.productName).toBe('Red Running Shoe');
    expect(page.jsonLdProductImages).toEqual([
      'https://shop.example/ld/a.jpg',
      'https://shop.example/ld/b.jpg',
      'https://cdn.example/ld/c.jpg',
    ]);
    const b = byUrl(candidates, 'https://shop.example/ld/b.jpg');
    expect([b.evidence.width, b.evidence.height]).toEqual([800, 600]);
    expect(b.evidence.main.jsonLdProduct).toBe(true);
    expect(byUrl(candidates, 'https://cdn.example/ld/c.jpg').evidence.texts).toContain('Sole');
    // The Product's brand logo is a logo, but not the one the page declares as its own.
    const brandLogo = byUrl(candidates, 'https://shop.example/ld/brand-logo.png').evidence;
    expect(brandLogo.sources).toEqual(['json-ld-image']);
    expect(brandLogo.productBrandLogo).toBe(true);
    expect(byUrl(candidates, 'https://shop.example/ld/org-logo.svg').evidence.tokens).toContain('logo');
    expect(byUrl(candidates, 'https://shop.example/ld/org-logo.svg').evidence.sources).toEqual(['json-ld-logo']);
    expect(byUrl(candidates, 'https://shop.example/ld/standalone.jpg').evidence.sources).toEqual(['json-ld-image']);
  });

  it('survives broken JSON-LD and keeps JSON-LD with raw newlines in strings', () => {
    const { candidates } = discover(
      '',
      `<script type="application/ld+json">{ "@type": "Product", "image": </script>
       <script type="application/ld+json">{"@type":"Product","name":"Two\nlines","image":"/ld/ok.jpg"}</script>`,
    );
    expect(urls(candidates)).toEqual(['https://shop.example/ld/ok.jpg']);
  });

  it('reads site icons with their declared sizes', () => {
    const { candidates } = discover(
      '',
      `<link rel="icon" href="/favicon-32.png" sizes="32x32">
       <link rel="shortcut icon" href="/favicon.ico">
       <link rel="apple-touch-icon" href="/apple.png">
       <link rel="mask-icon" href="/mask.svg" color="#000">`,
    );
    expect(byUrl(candidates, 'https://shop.example/favicon-32.png').evidence.width).toBe(32);
    expect(byUrl(candidates, 'https://shop.example/favicon.ico').evidence.sources).toEqual(['icon']);
    expect(byUrl(candidates, 'https://shop.example/apple.png').evidence.width).toBe(180);
    expect(byUrl(candidates, 'https://shop.example/mask.svg').evidence.sources).toEqual(['mask-icon']);
  });

  it('reads preloaded images with their imagesrcset', () => {
    const { candidates } = discover(
      '',
      '<link rel="preload" as="image" href="/i/hero-800.jpg" imagesrcset="/i/hero-800.jpg 800w, /i/hero-1600.jpg 1600w">',
    );
    expect(urls(candidates)).toEqual(['https://shop.example/i/hero-1600.jpg']);
    expect(candidates[0]!.evidence.sources).toEqual(['preload']);
    expect(candidates[0]!.evidence.width).toBe(1600);
  });

  it('reads microdata images and flags those in a Product scope', () => {
    const { candidates, page } = discover(`
      <div itemscope itemtype="https://schema.org/Product">
        <img itemprop="image" src="/md/a.jpg"><link itemprop="image" href="/md/b.jpg">
        <meta itemprop="image" content="/md/c.jpg">
      </div>
      <img itemprop="image" src="/md/outside.jpg">`);
    for (const u of ['a', 'b', 'c']) {
      const c = byUrl(candidates, `https://shop.example/md/${u}.jpg`);
      expect(c.evidence.main.microdataProduct, u).toBe(true);
      expect(c.evidence.inProductScope, u).toBe(true);
    }
    expect(byUrl(candidates, 'https://shop.example/md/outside.jpg').evidence.main.microdataProduct).toBe(false);
    expect(page.microdataProductImages).toHaveLength(3);
  });

  it('reads background pictures from inline styles, <style> and fetched style sheets', () => {
    const { candidates } = discover(
      `<header><div class="site-logo"></div></header>
       <section class="hero" style="background-image: url('/css/inline.jpg')"></section>`,
      '<style>.site-logo { background: url(/css/logo.png) no-repeat } .nothing-here { background: url(/css/orphan.jpg) }</style>',
      {
        stylesheets: [
          { url: 'https://cdn.example/css/site.css', css: '.promo-banner { background-image: url(../img/promo.jpg) }' },
        ],
      },
    );
    const inline = byUrl(candidates, 'https://shop.example/css/inline.jpg');
    expect(inline.evidence.sources).toEqual(['inline-style']);
    expect(inline.evidence.tokens).toContain('hero');
    const logo = byUrl(candidates, 'https://shop.example/css/logo.png');
    expect(logo.evidence.sources).toEqual(['style-element']);
    expect(logo.evidence.regions).toEqual(['header']);
    expect(logo.evidence.tokens).toContain('logo');
    expect(byUrl(candidates, 'https://shop.example/css/orphan.jpg').evidence.domIndex).toBeUndefined();
    const promo = byUrl(candidates, 'https://cdn.example/img/promo.jpg');
    expect(promo.evidence.sources).toEqual(['stylesheet']);
    expect(promo.evidence.tokens).toContain('banner');
  });

  it('reads video posters but not the videos', () => {
    const { candidates } = discover(
      '<video poster="/v/poster.jpg" src="/v/movie.mp4"><source src="/v/movie.webm"></video>',
    );
    expect(urls(candidates)).toEqual(['https://shop.example/v/poster.jpg']);
    expect(candidates[0]!.evidence.sources).toEqual(['video-poster']);
  });

  it('keeps inline SVG logos with their markup and viewBox size; skips sprite sheets', () => {
    const { candidates, stats } = discover(`
      <header><a href="/" class="logo" aria-label="Acme home">
        <svg viewBox="0 0 140 52"><title>Acme</title><path d="M0 0h10v10z"/></svg></a></header>
      <svg style="display:none"><symbol id="i-cart"><path d="M1 1"/></symbol></svg>
      <svg><use href="#i-cart"></use></svg>`);
    const svgs = candidates.filter((c) => c.type === 'inline-svg');
    expect(svgs).toHaveLength(1);
    const logo = svgs.find((c) => c.evidence.inHomeLink)!;
    expect(logo.type === 'inline-svg' && logo.svgMarkup).toMatch(/^<svg viewBox="0 0 140 52">.*<\/svg>$/s);
    expect([logo.evidence.width, logo.evidence.height]).toEqual([140, 52]);
    expect(logo.evidence.texts).toEqual(['Acme', 'Acme home']);
    expect(logo.evidence.regions).toEqual(['header']);
    expect(logo.evidence.contextTokens).toContain('logo');
    expect(stats.inlineSvgsSkipped).toBe(2);
  });

  it('reads og:logo and itemprop=logo', () => {
    const { candidates } = discover(
      '<div itemscope itemtype="https://schema.org/Organization"><img itemprop="logo" src="/brand/mark.png"></div>',
      '<meta property="og:logo" content="/brand/og-logo.png">',
    );
    expect(byUrl(candidates, 'https://shop.example/brand/og-logo.png').evidence.sources).toEqual(['og:logo']);
    expect(byUrl(candidates, 'https://shop.example/brand/og-logo.png').evidence.tokens).toContain('logo');
    expect(byUrl(candidates, 'https://shop.example/brand/mark.png').evidence.sources).toEqual([
      'img',
      'microdata-logo',
    ]);
  });

  it('keeps large data: images and skips small placeholders', () => {
    const big = `data:image/png;base64,${'A'.repeat(4000)}`;
    const { candidates, stats } = discover(
      `<img src="${big}" alt="Inline badge"><img src="data:image/gif;base64,R0lGOD=">`,
    );
    expect(candidates).toHaveLength(1);
    const c = candidates[0]!;
    expect(c.type).toBe('data-url');
    expect(c.type === 'data-url' && c.mimeType).toBe('image/png');
    expect(c.key).toMatch(/^data:[0-9a-f]{16}$/);
    expect(stats.dataUrlsSkipped).toBe(1);
  });

  it('resolves against <base href>', () => {
    const { candidates, page } = discover('<img src="a.jpg">', '<base href="https://cdn.example/assets/">');
    expect(page.baseUrl).toBe('https://cdn.example/assets/');
    expect(urls(candidates)).toEqual(['https://cdn.example/assets/a.jpg']);
  });

  it('skips templates, scripts, iframes and non-http URLs', () => {
    const { candidates } = discover(`
      <template><img src="/t/hidden.jpg"></template>
      <script>document.write('<img src="/s/x.jpg">')</script>
      <img src="{{imageServerPath}}{{id}}"><img src="javascript:void(0)"><img src="ftp://x.example/a.jpg">
      <iframe src="/frame"><img src="/f/x.jpg"></iframe>`);
    expect(candidates).toEqual([]);
  });

  it('finds the fallback <img> inside <noscript>', () => {
    const { candidates } = discover('<img data-src="/i/a.jpg"><noscript><img src="/i/a.jpg" alt="Shoe"></noscript>');
    expect(candidates).toHaveLength(1);
    expect(candidates[0]!.evidence.occurrences).toBe(2);
    expect(candidates[0]!.evidence.texts).toEqual(['Shoe']);
  });
});

describe('discoverCandidates: merging', () => {
  it('merges sightings of one URL, uniting their evidence', () => {
    const { candidates } = discover(
      `<main><img src="/i/a.jpg" alt="Shoe front" class="gallery-image"></main>
       <footer><img src="https://shop.example/i/a.jpg" alt="Footer copy"></footer>`,
      '<meta property="og:image" content="http://www.shop.example/i/a.jpg">',
    );
    expect(candidates).toHaveLength(1);
    const ev = candidates[0]!.evidence;
    expect(ev.sources).toEqual(['og:image', 'img']);
    expect(ev.occurrences).toBe(3);
    expect(ev.texts).toEqual(['Shoe front', 'Footer copy']);
    expect(ev.regions).toEqual(['footer']);
    expect(ev.tokens).toContain('gallery');
    expect(ev.main.ogImage).toBe(true);
  });

  it('folds an og:image that is a smaller rendition into the gallery image', () => {
    const { candidates } = discover(
      '<img srcset="/i/a-400.jpg 400w, /i/a-1600.jpg 1600w" alt="Shoe">',
      '<meta property="og:image" content="/i/a-400.jpg">',
    );
    expect(candidates).toHaveLength(1);
    const c = candidates[0]!;
    expect(c.type === 'url' && c.url).toBe('https://shop.example/i/a-1600.jpg');
    expect(c.evidence.sources).toEqual(['img', 'srcset', 'og:image']);
    expect(c.evidence.main.ogImage).toBe(true);
  });

  it('folds URLs that differ only in rendition parameters, keeping the largest', () => {
    const { candidates } = discover(
      '<img src="/i/a.jpg?w=1600&f=g" alt="Shoe"><img src="/i/a.jpg?w=200" alt="Thumb">',
      '<meta property="og:image" content="/i/a.jpg">',
    );
    expect(candidates).toHaveLength(1);
    const c = candidates[0]!;
    expect(c.type === 'url' && c.url).toBe('https://shop.example/i/a.jpg?w=1600&f=g');
    expect(c.alternates).toHaveLength(2);
    expect(c.evidence.main.ogImage).toBe(true);
  });

  it('marks other renditions of the declared image by their shared image id', () => {
    const { candidates } = discover(
      '<img src="https://m.media-amazon.com/images/I/51YNXarpCfL._AC_SX425_.jpg">',
      '<meta property="og:image" content="https://m.media-amazon.com/images/I/51YNXarpCfL._SL1500_.jpg">',
    );
    const dom = byUrl(candidates, 'https://m.media-amazon.com/images/I/51YNXarpCfL._AC_SX425_.jpg');
    expect(dom.evidence.main).toEqual({
      ogImage: false,
      jsonLdProduct: false,
      microdataProduct: false,
      primary: false,
      sameAsMain: true,
    });
  });
});

describe('discoverCandidates: evidence', () => {
  it('records page regions, but not an article header', () => {
    const { candidates } = discover(`
      <header><img src="/r/h.png"></header><nav><img src="/r/n.png"></nav>
      <div id="footer"><img src="/r/f.png"></div><aside><img src="/r/a.png"></aside>
      <div role="banner"><img src="/r/role.png"></div>
      <article><header class="product-header"><img src="/r/article.png"></header></article>`);
    const regions = (u: string) => byUrl(candidates, `https://shop.example/r/${u}`).evidence.regions;
    expect(regions('h.png')).toEqual(['header']);
    expect(regions('n.png')).toEqual(['nav']);
    expect(regions('f.png')).toEqual(['footer']);
    expect(regions('a.png')).toEqual(['aside']);
    expect(regions('role.png')).toEqual(['header']);
    expect(regions('article.png')).toEqual([]);
  });

  it('records links to the home page', () => {
    const { candidates } = discover(
      '<a href="/"><img src="/l/home.png"></a><a href="/p/other"><img src="/l/other.png"></a>',
    );
    expect(byUrl(candidates, 'https://shop.example/l/home.png').evidence.inHomeLink).toBe(true);
    expect(byUrl(candidates, 'https://shop.example/l/other.png').evidence.inHomeLink).toBe(false);
  });

  it('records class/id tokens of the element, its ancestors, its file name and URL folders', () => {
    const { candidates } = discover(`
      <div class="product-gallery"><div><img id="main-image" class="zoomable" src="/i/a.jpg"></div></div>
      <div class="related-products"><img src="/i/b.jpg"></div>
      <img class="nav-sprite" src="/s/sprite-global.png">
      <img src="/upload/index_banner/x.jpg">
      <img class="ad-slot" src="/i/ad.jpg">`);
    const a = byUrl(candidates, 'https://shop.example/i/a.jpg').evidence;
    expect(a.tokens).toEqual(expect.arrayContaining(['main', 'gallery']));
    expect(a.contextTokens).toEqual(expect.arrayContaining(['product', 'gallery']));
    expect(byUrl(candidates, 'https://shop.example/i/b.jpg').evidence.contextTokens).toContain('related');
    expect(byUrl(candidates, 'https://shop.example/s/sprite-global.png').evidence.tokens).toContain('sprite');
    expect(byUrl(candidates, 'https://shop.example/upload/index_banner/x.jpg').evidence.contextTokens).toContain(
      'banner',
    );
    expect(byUrl(candidates, 'https://shop.example/i/ad.jpg').evidence.tokens).toContain('ad');
  });

  it('does not read words in alt text as icon or banner tokens (only logo)', () => {
    const { candidates } = discover(
      '<img src="/i/a.jpg" alt="Portrait of Four Icons banner edition"><img src="/i/b.jpg" alt="Acme logo">',
    );
    expect(byUrl(candidates, 'https://shop.example/i/a.jpg').evidence.tokens).toEqual([]);
    expect(byUrl(candidates, 'https://shop.example/i/b.jpg').evidence.tokens).toEqual(['logo']);
  });

  it('records figcaption and the nearest preceding heading', () => {
    const { candidates } = discover(`
      <h2>Gallery</h2><figure><img src="/i/a.jpg"><figcaption> Worn on a hike </figcaption></figure>
      <h3>Reviews</h3><img src="/i/b.jpg">`);
    expect(byUrl(candidates, 'https://shop.example/i/a.jpg').evidence.context).toEqual(['Worn on a hike', 'Gallery']);
    expect(byUrl(candidates, 'https://shop.example/i/b.jpg').evidence.context).toEqual(['Reviews']);
  });

  it('records tracking-pixel signals', () => {
    const { candidates } = discover(`
      <img src="/t/a.gif" width="1" height="1">
      <img src="https://stats.g.doubleclick.net/x.gif">
      <img src="/t/pixel.gif">`);
    expect(byUrl(candidates, 'https://shop.example/t/a.gif').evidence.tracking).toEqual(['declared-1x1']);
    expect(byUrl(candidates, 'https://stats.g.doubleclick.net/x.gif').evidence.tracking).toEqual(['tracker-host']);
    expect(byUrl(candidates, 'https://shop.example/t/pixel.gif').evidence.tracking).toEqual(['pixel-path']);
  });

  it('marks pictures that are hidden everywhere they appear', () => {
    const { candidates } = discover(`
      <div style="display:none"><img src="/h/a.jpg"></div>
      <img src="/h/b.jpg" hidden><img src="/h/b.jpg">`);
    expect(byUrl(candidates, 'https://shop.example/h/a.jpg').evidence.hidden).toBe(true);
    expect(byUrl(candidates, 'https://shop.example/h/b.jpg').evidence.hidden).toBe(false);
  });

  it('scores how much of the product name the alt text and file name carry', () => {
    const { candidates, page } = discover(
      '<h1>Site</h1><img src="/i/red-running-shoe.jpg"><img src="/i/x.jpg" alt="Red shoe"><img src="/i/y.jpg" alt="Cart">',
      '<meta property="og:title" content="Red Running Shoe | Shop">',
    );
    expect(page.productName).toBe('Red Running Shoe');
    expect(byUrl(candidates, 'https://shop.example/i/red-running-shoe.jpg').evidence.nameMatch).toBe(1);
    expect(byUrl(candidates, 'https://shop.example/i/x.jpg').evidence.nameMatch).toBe(0.667);
    expect(byUrl(candidates, 'https://shop.example/i/y.jpg').evidence.nameMatch).toBe(0);
  });
});

describe('linkedStylesheetUrls', () => {
  it('lists linked style sheets, resolved, without print-only or alternate ones', () => {
    const html = `<head><base href="https://cdn.example/"><link rel="stylesheet" href="a.css">
      <link rel="stylesheet" href="print.css" media="print"><link rel="alternate stylesheet" href="alt.css">
      <link rel="preload" as="style" href="pre.css"><link rel="stylesheet" href="a.css"><link rel="icon" href="x.ico"></head>`;
    expect(linkedStylesheetUrls(html, PAGE)).toEqual(['https://cdn.example/a.css', 'https://cdn.example/pre.css']);
  });
});

describe('jsonLdImages', () => {
  it('accepts strings, objects with url/contentUrl and arrays; an @id is a reference, never an image', () => {
    expect(jsonLdImages(['/a.jpg', { '@id': 'https://x.example/b.jpg' }, { name: 'no url' }, 5, null])).toEqual([
      { url: '/a.jpg' },
    ]);
    expect(jsonLdImages({ '@id': '#logo' })).toEqual([]);
    const nodes = new Map([['#logo', { '@id': '#logo', contentUrl: 'https://x.example/logo.png', width: 512 }]]);
    expect(jsonLdImages({ '@id': '#logo' }, 0, nodes)).toEqual([
      { url: 'https://x.example/logo.png', width: 512, height: undefined, caption: undefined },
    ]);
  });
});

describe('discoverCandidates: robustness', () => {
  it('never throws and only returns absolute http(s), data or inline-svg candidates (property)', () => {
    const fragment = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '<img src="',
        '" srcset="',
        '<meta property="og:image" content="',
        '<script type="application/ld+json">{"@type":"Product","image":',
        '</script>',
        '<svg><path d="M0 0"/>',
        '<style>.x{background:url(',
        ')}</style>',
        '<picture><source srcset="',
        'a.jpg 2x, ',
        '//cdn.example/b.png',
        'javascript:',
        'data:image/png;base64,',
        '<a href="/">',
        '">',
      ),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 20 }), (parts) => {
        const { candidates } = discoverCandidates(parts.join(''), PAGE);
        return candidates.every((c) =>
          c.type === 'url'
            ? /^https?:\/\//.test(c.url)
            : c.type === 'data-url'
              ? c.url.startsWith('data:image/')
              : c.svgMarkup.startsWith('<svg'),
        );
      }),
      { numRuns: 150 },
    );
  });
});

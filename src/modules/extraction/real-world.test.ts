import { describe, expect, it } from 'vitest';
import { type DiscoveredCandidate, discoverCandidates } from './discovery.ts';
import { logoLikelihood } from './logo.ts';
import { rankCandidates } from './ranking.ts';
import { renditionStem } from './urls.ts';

/** The rules of issue 17 (URL extraction on real-world pages), one block per cause. */

const PAGE = 'https://news.example/2024/06/story/';

function discover(body: string, head = '') {
  return discoverCandidates(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, PAGE).candidates;
}

const urlOf = (c: DiscoveredCandidate | undefined) => (c ? (c.type === 'inline-svg' ? c.key : c.url) : undefined);
const top = (list: DiscoveredCandidate[], purpose: string | null) =>
  urlOf(rankCandidates(list, purpose).find((r) => !r.rejection)?.candidate);

const YOAST = `<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@graph': [
    {
      '@type': 'Article',
      '@id': `${PAGE}#article`,
      image: { '@id': `${PAGE}#primaryimage` },
      publisher: { '@id': 'https://news.example/#organization' },
    },
    { '@type': 'WebPage', '@id': PAGE, url: PAGE, primaryImageOfPage: { '@id': `${PAGE}#primaryimage` } },
    {
      '@type': 'ImageObject',
      '@id': `${PAGE}#primaryimage`,
      url: 'https://news.example/wp-content/uploads/lead.jpg',
      width: 1600,
      height: 900,
    },
    {
      '@type': 'Organization',
      '@id': 'https://news.example/#organization',
      logo: { '@id': 'https://news.example/#logo' },
    },
    {
      '@type': 'ImageObject',
      '@id': 'https://news.example/#logo',
      contentUrl: 'https://news.example/wp-content/uploads/logo.png',
      width: 2560,
      height: 2560,
    },
  ],
})}</script>`;

describe('1. JSON-LD @id references', () => {
  it('resolves image and logo references inside @graph, and never takes a node id or the page as an image', () => {
    const list = discover(
      '<p>Text</p>',
      `${YOAST}<meta property="og:image" content="https://news.example/wp-content/uploads/lead.jpg">`,
    );
    const urls = list.map(urlOf);
    expect(urls).toContain('https://news.example/wp-content/uploads/lead.jpg');
    expect(urls).toContain('https://news.example/wp-content/uploads/logo.png');
    expect(urls.some((u) => u?.startsWith(PAGE))).toBe(false);
    expect(top(list, null)).toBe('https://news.example/wp-content/uploads/lead.jpg');
  });

  it('drops a declared share image that is the page itself', () => {
    const list = discover(
      '<img src="/diagram.png" alt="Diagram" width="800" height="500">',
      `<meta property="og:image" content="${PAGE}">`,
    );
    expect(list.map(urlOf)).toEqual(['https://news.example/diagram.png']);
  });
});

describe('2. a declared logo is stronger evidence than pixel size', () => {
  it('keeps a declared 2560 px logo from the photo-sized penalty and makes it the logo', () => {
    const list = discover('<img src="/photo.jpg" alt="Crowd" width="1200" height="800">', YOAST);
    const logo = list.find((c) => urlOf(c)?.endsWith('logo.png'))!;
    expect(logoLikelihood(logo).signals).not.toContain('photo-sized');
    expect(top(list, 'logo')).toBe('https://news.example/wp-content/uploads/logo.png');
  });

  it('does not reject a header home-link logo declared 1x1 (SVG) as a tracking pixel or too small', () => {
    const list = discover('<header><a href="/"><img src="/brand.svg" width="1" height="1" alt="News"></a></header>');
    const ranked = rankCandidates(list, 'logo');
    expect(ranked[0]!.rejection).toBeUndefined();
    expect(ranked[0]!.looksLikeLogo).toBe(true);
  });

  it('reads microdata logos: itemprop=logo and an ImageObject scope with itemprop=url', () => {
    const list = discover(
      '<div itemprop="logo" itemscope itemtype="https://schema.org/ImageObject"><meta itemprop="url" content="/m/logo.png"></div>' +
        '<a href="/"><span class="icon--logo"></span></a><img src="/story.jpg" width="900" height="600" alt="Story">',
    );
    const logo = list.find((c) => urlOf(c) === 'https://news.example/m/logo.png')!;
    expect(logo.evidence.sources).toEqual(['microdata-logo']);
    expect(top(list, 'logo')).toBe('https://news.example/m/logo.png');
  });
});

describe('3. icon links rank as logos, below a declared logo, and stay out of product purposes', () => {
  const icons =
    '<link rel="icon" sizes="32x32" href="/fav-32.png"><link rel="apple-touch-icon" sizes="180x180" href="/touch-180.png"><link rel="icon" href="/favicon.ico">';

  it('ranks the largest icon first for purpose logo when the page has no other logo', () => {
    const list = discover('<article><img src="/photo.jpg" width="1200" height="800" alt="Photo"></article>', icons);
    const ranked = rankCandidates(list, 'logo').filter((r) => !r.rejection);
    expect(urlOf(ranked[0]!.candidate)).toBe('https://news.example/touch-180.png');
    expect(ranked[0]!.looksLikeLogo).toBe(true);
    expect(top(list, 'product')).toBe('https://news.example/photo.jpg');
  });

  it('puts a declared logo above the icons', () => {
    expect(top(discover('<p>x</p>', icons + YOAST), 'logo')).toBe('https://news.example/wp-content/uploads/logo.png');
  });
});

describe('4. renditions of the declared image are one candidate', () => {
  it('folds a full-size file and its -300x200 copy into one candidate with the declaration, returning the full size', () => {
    const list = discover(
      '<article><img src="/wp-content/uploads/salad.jpg" alt="Salad"><img src="/wp-content/uploads/other.jpg" width="900" height="600"></article>',
      '<meta property="og:image" content="https://news.example/wp-content/uploads/salad-300x200.jpg">',
    );
    const salad = list.filter((c) => urlOf(c)?.includes('salad'));
    expect(salad.map(urlOf)).toEqual(['https://news.example/wp-content/uploads/salad.jpg']);
    expect(salad[0]!.alternates.map((a) => a.url)).toEqual([
      'https://news.example/wp-content/uploads/salad-300x200.jpg',
    ]);
    expect(salad[0]!.evidence.sources).toContain('og:image');
    expect(top(list, null)).toBe('https://news.example/wp-content/uploads/salad.jpg');
  });

  it('knows the size markers of common CDNs', () => {
    expect(renditionStem('https://a.example/x/hero.fill.size_1200x675.v16.jpg')).toBe(
      renditionStem('https://a.example/x/hero.fill.size_1248x702.v16.jpg'),
    );
    expect(renditionStem('https://i0.wp.com/a.example/u/p-1024x768.jpg?ssl=1')).toBe(
      renditionStem('https://a.example/u/p.jpg?ssl=1'),
    );
    expect(renditionStem('https://a.example/u/a.jpg')).not.toBe(renditionStem('https://a.example/u/b.jpg'));
  });
});

describe('5. a video poster is a main-image candidate', () => {
  it('ranks the poster first on a page whose main media is a video', () => {
    const list = discover(
      '<header><img src="/logo.png" alt="Logo"></header><main><video poster="/media/poster.jpg" src="/media/v.mp4"></video><img src="/ad.gif" width="300" height="250"></main>',
      '<meta property="og:video" content="https://news.example/media/v.mp4">',
    );
    expect(top(list, null)).toBe('https://news.example/media/poster.jpg');
  });
});

import { describe, expect, it } from 'vitest';
import { analyzePage, pageLogo } from '../brand-dna/page.ts';
import { discoverCandidates } from './discovery.ts';
import { LOGO_PICK_MIN } from './logo.ts';
import { pickLogo } from './logo-pick.ts';
import { rankCandidates } from './ranking.ts';
import { isHomeUrl, linkAway, siteOf } from './urls.ts';

/**
 * The logo pick (issue "What it makes", item 5): the misses seen on real pages, each as markup
 * that must not win; weak best candidates give no logo; the header home link's picture, the
 * page's own JSON-LD organisation logo and icon links win.
 */

const PAGE = 'https://shop.acme.example/p/red-shoe';

function html(body: string, head = ''): string {
  return `<html><head><title>Red shoe | Acme</title>${head}</head><body>${body}</body></html>`;
}

/** The pick's URL (or inline SVG key), or undefined when the page gets no logo. */
function picked(body: string, head = ''): string | undefined {
  const ranked = rankCandidates(discoverCandidates(html(body, head), PAGE).candidates, 'logo');
  const c = pickLogo(ranked)?.candidate;
  return c && (c.type === 'inline-svg' ? c.key : c.url);
}

const HOME_LOGO = '<header><a href="/"><img src="/static/acme-logo.svg" alt="Acme"></a></header>';
const HOME_LOGO_URL = 'https://shop.acme.example/static/acme-logo.svg';
const TOUCH_ICON = '<link rel="apple-touch-icon" sizes="180x180" href="/apple-touch-icon.png">';
const TOUCH_ICON_URL = 'https://shop.acme.example/apple-touch-icon.png';
const PRODUCT = '<main><div class="product-gallery"><img src="/media/red-shoe.jpg" alt="Red shoe"></div></main>';

const MISSES: Record<string, string> = {
  'a menu caret': `<header><nav><ul><li><a href="/women">Women <img class="menu-caret" src="/static/icons/caret-down.svg" alt=""></a></li>
    <li><a href="/men">Men <img src="/static/arrow-down.png" width="12" height="8"></a></li></ul></nav></header>`,
  "a social network's icon inside a Follow link": `<footer><div class="follow-us"><span>Follow us</span>
    <a href="https://www.facebook.com/acme"><img src="/static/facebook-logo.png" alt="Acme on Facebook"></a>
    <a href="https://www.instagram.com/acme"><img src="/static/instagram.svg" alt="Instagram"></a></div></footer>`,
  "a sister project's logo linking to its own site": `<footer><p>Also from our group</p>
    <a href="https://www.sister-market.example/" target="_blank"><img src="/static/logo_sister-market.svg" alt="Sister Market"></a></footer>`,
  "sister projects' logos listed together": `<aside role="navigation"><ul>
    <li><img src="https://upload.example.org/Commons-logo.svg.png"> <a href="/wiki/Commons">Commons</a></li>
    <li><img src="https://upload.example.org/Wikiquote-logo.svg.png"> <a href="/wiki/Quotes">Quotes</a></li>
    <li><img src="https://upload.example.org/Wikidata-logo.svg.png"> <a href="/wiki/Data">Data</a></li></ul></aside>`,
  'a sub-brand logo linking to its section': `<header><div id="subnav"><a href="/music/?ref=topnav">
    <img src="/images/digital/music/logos/music_logo_subnav.png" alt="Digital Music"></a></div></header>`,
  "a pop-up's loader GIF": `<style>#nav-flyout .popover-loading { background: url(/javascripts/lib/popover/images/snake.gif) }</style>
    <header><div id="nav-flyout"><div class="popover-loading"></div></div></header>`,
  "a video's poster and fallback image": `<header><div class="hero"><video poster="/media/brand-film-poster.jpg" src="/media/film.mp4">
    <img src="/media/brand-film-fallback.png" alt="Acme logo film"></video></div></header>`,
  "an embedded tweet's photo": `<main><blockquote class="twitter-tweet"><p>Our new store!</p>
    <a href="https://twitter.com/acme/status/1"><img src="https://pbs.twimg.com/media/store-logo.jpg" alt="The Acme logo on our new store"></a></blockquote></main>`,
  "the product brand's logo (JSON-LD Brand of the Product)": `${PRODUCT}
    <div class="product-brand"><img src="/brands/adidas-logo.jpg" alt=""></div>
    <script type="application/ld+json">{"@type":"Product","name":"Red shoe","image":"/media/red-shoe.jpg",
      "brand":{"@type":"Brand","name":"Adidas","logo":"https://shop.acme.example/brands/adidas-logo.jpg"}}</script>`,
  "the product brand's logo (microdata inside the Product)": `<div itemscope itemtype="https://schema.org/Product">
    <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><img itemprop="logo" src="/brands/tommy-logo.jpg" alt="Tommy"></span>
    <img itemprop="image" src="/media/red-shoe.jpg"></div>`,
  "a payment method's logo": `<footer><ul><li><img src="/static/logo-americanexpress.svg"></li></ul></footer>`,
};

describe('logo pick: the misses of real pages are not the site logo', () => {
  it.each(Object.entries(MISSES))('%s: no logo on a page that has none', (_what, markup) => {
    expect(picked(markup)).toBeUndefined();
  });

  it.each(Object.entries(MISSES))('%s: the header home link wins', (_what, markup) => {
    expect(picked(`${HOME_LOGO}${markup}`)).toBe(HOME_LOGO_URL);
    expect(picked(`${markup}${HOME_LOGO}`)).toBe(HOME_LOGO_URL);
  });

  it.each(Object.entries(MISSES))('%s: an icon link wins', (_what, markup) => {
    expect(picked(markup, TOUCH_ICON)).toBe(TOUCH_ICON_URL);
  });

  it('all of them together still give the header logo, else the icon, else nothing', () => {
    const all = Object.values(MISSES).join('\n');
    expect(picked(`${all}${HOME_LOGO}`, TOUCH_ICON)).toBe(HOME_LOGO_URL);
    expect(picked(all, TOUCH_ICON)).toBe(TOUCH_ICON_URL);
    expect(picked(all)).toBeUndefined();
  });
});

describe('logo pick: what wins', () => {
  it('gives no logo when the best candidate is weak', () => {
    const body = `${PRODUCT}<section class="promo"><img src="/banners/sale.jpg" alt="Sale"></section>`;
    const ranked = rankCandidates(discoverCandidates(html(body), PAGE).candidates, 'logo');
    expect(ranked[0]!.relevanceScore).toBeLessThan(LOGO_PICK_MIN);
    expect(pickLogo(ranked)).toBeUndefined();
    // Nothing is kept for the purpose either.
    expect(ranked.filter((r) => r.kept)).toEqual([]);
  });

  it("takes the page's own JSON-LD organisation logo over the product brand's", () => {
    const head = `<script type="application/ld+json">[
      {"@type":"Organization","name":"Acme","url":"https://shop.acme.example","logo":"https://shop.acme.example/static/acme.png"},
      {"@type":"Product","name":"Red shoe","brand":{"@type":"Brand","name":"Adidas","logo":"https://shop.acme.example/brands/adidas.jpg"}}]</script>`;
    expect(picked(PRODUCT, head)).toBe('https://shop.acme.example/static/acme.png');
    // The organisation's own brand (an Organization's `brand`) is the page's own too.
    const own = `<script type="application/ld+json">{"@type":"Organization","url":"https://shop.acme.example",
      "brand":{"@type":"Brand","logo":"https://shop.acme.example/static/acme-brand.png"}}</script>`;
    expect(picked(PRODUCT, own)).toBe('https://shop.acme.example/static/acme-brand.png');
  });

  it('takes an inline SVG in the header home link, and a logo the page shares as its og:image', () => {
    expect(picked('<header><a href="/"><svg viewBox="0 0 120 40"><path d="M0 0h120v40z"/></svg></a></header>')).toMatch(
      /^inline-svg:/,
    );
    const shared = '<meta property="og:image" content="https://shop.acme.example/static/acme-logo.svg">';
    expect(picked(HOME_LOGO, shared)).toBe(HOME_LOGO_URL);
  });

  it('takes a header logo whose link leads to an edition of the site when its alt names the site', () => {
    const head = '<meta property="og:site_name" content="Acme Journal">';
    const body = '<header><a href="/sanjose"><img src="/img/logos/sanjose-logo.svg" alt="Acme Journal"></a></header>';
    expect(picked(body, head)).toBe('https://shop.acme.example/img/logos/sanjose-logo.svg');
  });

  it('takes a header logo drawn by a <style> rule on the home link (`#banner div.logo a`)', () => {
    const body = `<style>#banner div.logo a { background-image: url(/logos/logo_acme.png) }</style>
      <div id="banner"><div class="logo"><a href="/">Acme</a></div></div>`;
    expect(picked(body)).toBe('https://shop.acme.example/logos/logo_acme.png');
  });

  it('records no logo in Brand DNA for a page without one, and the home link picture for a page with one', () => {
    const none = analyzePage(html(MISSES["a pop-up's loader GIF"]!), PAGE);
    expect(pageLogo(none.logos)).toBeUndefined();
    const some = analyzePage(html(`${HOME_LOGO}${Object.values(MISSES).join('')}`), PAGE);
    expect(pageLogo(some.logos)?.url).toBe(HOME_LOGO_URL);
  });
});

describe('links: home, the same site, another site', () => {
  it('tells a site by its registrable domain', () => {
    expect(siteOf('www.amazon.co.uk')).toBe('amazon.co.uk');
    expect(siteOf('pokupki.market.yandex.ru')).toBe('yandex.ru');
    expect(siteOf('shop.acme.com.br')).toBe('acme.com.br');
    expect(siteOf('localhost')).toBe('localhost');
  });

  it('says where a link leads', () => {
    expect(linkAway('https://www.facebook.com/acme', PAGE)).toBe('external');
    expect(linkAway('//sister.example/', PAGE)).toBe('external');
    expect(linkAway('/music/', PAGE)).toBe('site');
    expect(linkAway('https://www.acme.example/help', PAGE)).toBe('site');
    expect(linkAway('#top', PAGE)).toBeUndefined();
    expect(linkAway('javascript:void(0)', PAGE)).toBeUndefined();
    expect(linkAway('/media/zoom.jpg', PAGE)).toBeUndefined();
    expect(linkAway('/p/red-shoe', PAGE)).toBeUndefined();
  });

  it("takes the index of the folder a page lives in for the site's home", () => {
    const page = 'https://vm.example/newsite/int.php?page=product&id=1';
    expect(isHomeUrl('index.php', page)).toBe(true);
    expect(isHomeUrl('/newsite/', page)).toBe(false);
    expect(isHomeUrl('/other/index.php', page)).toBe(false);
    expect(isHomeUrl('/', page)).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { discoverCandidates } from './discovery.ts';
import { type RankedCandidate, rankCandidates } from './ranking.ts';

/** Real saved product pages (test/fixtures/product-pages, MIT): discovery and ranking end to end. */
const PAGES = {
  otto: {
    file: '040c3ea5',
    url: 'https://www.otto.de/p/kaercher-hochdruckreiniger-k-3-full-control-848068924/#variationId=836232854',
  },
  elkor: {
    file: '04ba1449',
    url: 'https://www.elkor.lv/lat/calvin-klein-brooklyn-ecc60912110.html?childSku=545642356',
  },
  ikea: { file: '0666abeb', url: 'https://www.ikea.com/gb/en/p/moeckelby-table-oak-00293772/' },
  bestbuy: {
    file: '2c42fb60',
    url: 'https://www.bestbuy.ca/en-ca/product/google-nest-hello-wi-fi-video-doorbell-black-white/12222651',
  },
};

function load(page: keyof typeof PAGES) {
  const { file, url } = PAGES[page];
  const gz = readFileSync(new URL(`../../../test/fixtures/product-pages/${file}.html.gz`, import.meta.url));
  return discoverCandidates(gunzipSync(gz).toString('utf8'), url);
}

const best = (ranked: RankedCandidate[]) => ranked.find((r) => !r.rejection)!;
const keyOf = (r: RankedCandidate) => r.candidate.key;

describe('saved product pages', () => {
  it('otto.de: the product photo for products, the header SVG for the logo', () => {
    const found = load('otto');
    expect(found.page.productName).toBe('KÄRCHER Hochdruckreiniger »K 3 Full Control«');
    const product = rankCandidates(found.candidates, 'product');
    expect(keyOf(best(product))).toContain('e72f372d-0610-5254-a777-85fa32672557');
    expect(best(product).relevanceReason).toMatch(/declared by the page \(og:image\)/);
    const logo = best(rankCandidates(found.candidates, 'logo'));
    expect(logo.candidate.type).toBe('inline-svg');
    expect(logo.looksLikeLogo).toBe(true);
    expect(logo.candidate.evidence.regions).toContain('header');
  });

  it('elkor.lv: an og:image that is the site icon does not beat the product gallery', () => {
    const found = load('elkor');
    expect(found.page.ogImages[0]).toContain('android-icon-192x192');
    const product = rankCandidates(found.candidates, 'product');
    expect(keyOf(best(product))).toContain('ecc60912110');
    const og = product.find((r) => r.candidate.evidence.main.ogImage)!;
    expect(og.rank).toBeGreaterThan(3);
    expect(og.relevanceReason).toMatch(/looks like an icon/);
  });

  it('ikea.com: folds og:image and JSON-LD into the gallery renditions; logo from the header', () => {
    const found = load('ikea');
    expect(found.page.jsonLdProductImages).toHaveLength(11);
    const product = rankCandidates(found.candidates, 'product');
    const first = best(product);
    expect(keyOf(first)).toContain('moeckelby-table-oak__0737107_PE740885_S5.JPG');
    expect(first.candidate.evidence.main).toMatchObject({ ogImage: true, jsonLdProduct: true, primary: true });
    expect(product.filter((r) => r.kept).length).toBe(8);
    const logo = best(rankCandidates(found.candidates, 'logo'));
    expect(keyOf(logo)).toContain('ikea-logo');
  });

  it('bestbuy.ca (no og:image, no JSON-LD): the microdata gallery image wins', () => {
    const found = load('bestbuy');
    expect(found.page.ogImages).toEqual([]);
    expect(found.page.jsonLdProductImages).toEqual([]);
    const product = rankCandidates(found.candidates, null);
    expect(keyOf(best(product))).toBe(
      'https://multimedia.bbycastatic.ca/multimedia/products/500x500/122/12222/12222651.jpg',
    );
    expect(product.every((r) => r.candidate.type !== 'url' || /^https?:\/\//.test(r.candidate.url))).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { type DiscoveredCandidate, discoverCandidates } from './discovery.ts';
import { LOGO_THRESHOLD, logoLikelihood, looksLikeLogo } from './logo.ts';

const PAGE = 'https://shop.example/p/red-shoe';

function only(body: string, head = ''): DiscoveredCandidate {
  const { candidates } = discoverCandidates(`<html><head>${head}</head><body>${body}</body></html>`, PAGE);
  expect(candidates).toHaveLength(1);
  return candidates[0]!;
}

describe('looksLikeLogo', () => {
  it('recognises the classic header logo linking home', () => {
    const c = only('<header><a href="/"><img class="site-logo" src="/img/acme.svg" alt="Acme"></a></header>');
    const guess = logoLikelihood(c);
    expect(guess.signals).toEqual(expect.arrayContaining(['named-logo', 'home-link', 'in-header', 'vector']));
    expect(guess.score).toBe(1);
    expect(looksLikeLogo(c)).toBe(true);
  });

  it('recognises an inline SVG in the header that links home', () => {
    const c = only('<header><a href="/"><svg viewBox="0 0 200 50"><path d="M0 0h1"/></svg></a></header>');
    expect(logoLikelihood(c).signals).toEqual([
      'home-link',
      'in-header',
      'inline-svg-in-header',
      'wide-mark',
      'vector',
    ]);
    expect(looksLikeLogo(c)).toBe(true);
  });

  it('takes logo in the alt text, file name or a declared logo as strong evidence', () => {
    expect(logoLikelihood(only('<img src="/i/a.png" alt="Acme logo">')).signals).toContain('named-logo');
    expect(logoLikelihood(only('<img src="/i/acme-logo.png">')).signals).toContain('named-logo');
    const declared = only('', '<meta property="og:logo" content="/brand.png">');
    expect(logoLikelihood(declared).signals).toEqual(['named-logo', 'declared-logo']);
    expect(looksLikeLogo(declared)).toBe(true);
  });

  it('does not call a product photo a logo', () => {
    const c = only(
      '<div class="product-gallery"><img src="/i/shoe.jpg" alt="Red shoe" width="1200" height="1200"></div>',
      '<meta property="og:image" content="/i/shoe.jpg">',
    );
    expect(logoLikelihood(c).signals).toEqual(['photo-sized', 'main-product', 'product-area']);
    expect(logoLikelihood(c).score).toBe(0);
    expect(looksLikeLogo(c)).toBe(false);
  });

  it('does not call payment or social marks, or named icons, the logo', () => {
    const visa = only('<footer><img class="payment-visa" src="/pay/visa-logo.png"></footer>');
    expect(logoLikelihood(visa).signals).toContain('third-party-mark');
    expect(logoLikelihood(visa).score).toBeLessThan(
      logoLikelihood(only('<footer><img src="/x/acme-logo.png"></footer>')).score,
    );
    const icon = only('<header><img class="icon-cart" src="/i/cart.svg"></header>');
    expect(logoLikelihood(icon).signals).toContain('named-icon');
    expect(looksLikeLogo(icon)).toBe(false);
  });

  it('uses measured transparency, palette and shape', () => {
    const c = only('<header><img src="/i/mark.png"></header>');
    const plain = logoLikelihood(c);
    const measured = logoLikelihood(c, { width: 320, height: 80, format: 'png', hasAlpha: true, colorCount: 12 });
    expect(measured.signals).toEqual(['in-header', 'wide-mark', 'transparent', 'few-colours']);
    expect(measured.score).toBeGreaterThan(plain.score);
    expect(measured.score).toBeGreaterThanOrEqual(LOGO_THRESHOLD);
    expect(looksLikeLogo(c, { width: 1600, height: 1200, format: 'jpeg', hasAlpha: false, colorCount: 40000 })).toBe(
      false,
    );
  });
});

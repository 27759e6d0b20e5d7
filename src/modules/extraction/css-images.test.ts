import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inlineStyleImageRefs, stylesheetImageRefs, stylesheetImports } from './css-images.ts';
import { tokenize, tokenOverlap } from './text.ts';

describe('stylesheetImageRefs', () => {
  it('finds background pictures with their selectors, inside @media too', () => {
    const css = `
      /* .old { background: url(old.png) } */
      .hero-banner { color: red; background-image: url("img/hero.jpg"); }
      @media (min-width: 600px) { header .site-logo::before { content: url('logo.svg'); } }
      .a, .b { background: #fff url(bg.png) no-repeat; }
    `;
    expect(stylesheetImageRefs(css)).toEqual([
      { url: 'img/hero.jpg', property: 'background-image', selector: '.hero-banner' },
      { url: 'logo.svg', property: 'content', selector: 'header .site-logo::before' },
      { url: 'bg.png', property: 'background', selector: '.a, .b' },
    ]);
  });

  it('ignores fonts, cursors and masks that are not pictures of the page', () => {
    const css = `
      @font-face { font-family: X; src: url(font.woff2) format("woff2"); }
      .c { cursor: url(cursor.cur), auto; filter: url(#f); }
    `;
    expect(stylesheetImageRefs(css)).toEqual([]);
  });

  it('reads every URL of image-set()', () => {
    const refs = stylesheetImageRefs('.x { background-image: image-set(url(a.jpg) 1x, url(a@2x.jpg) 2x); }');
    expect(refs.map((r) => r.url)).toEqual(['a.jpg', 'a@2x.jpg']);
  });

  it('never throws on garbage (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        stylesheetImageRefs(`${s} url(${s}) { background: url(${s}) } }}`);
        return true;
      }),
    );
  });
});

describe('inlineStyleImageRefs', () => {
  it('reads an inline style attribute', () => {
    expect(inlineStyleImageRefs('width:10px; background-image: url(&quot;x.jpg&quot;)').length).toBe(1);
    expect(inlineStyleImageRefs("background: url('a b.jpg') center")).toEqual([
      { url: 'a b.jpg', property: 'background' },
    ]);
    expect(inlineStyleImageRefs('color: red')).toEqual([]);
  });
});

describe('stylesheetImports', () => {
  it('lists @import targets in both spellings', () => {
    expect(stylesheetImports('@import url("a.css"); @import \'b.css\' screen; .x{}')).toEqual(['a.css', 'b.css']);
    expect(stylesheetImports('.x { color: red }')).toEqual([]);
  });
});

describe('tokenize', () => {
  it('lower-cases, drops stopwords and plural s, and splits CJK into pairs', () => {
    expect(tokenize('The Red SHOES for Running-Shoes')).toEqual(['red', 'shoe', 'running', 'shoe']);
    expect(tokenize('glass 2 cups, 3 pcs')).toEqual(['glass', 'cup', 'pcs']);
    expect(tokenize('肉乾')).toEqual(['肉乾']);
    expect(tokenize('招牌肉乾')).toEqual(['招牌', '牌肉', '肉乾']);
    expect(tokenize(undefined)).toEqual([]);
  });

  it('measures overlap as a share of the wanted words', () => {
    expect(tokenOverlap(['red', 'shoe'], new Set(['shoe']))).toBe(0.5);
    expect(tokenOverlap([], new Set(['shoe']))).toBe(0);
  });
});

import fc from 'fast-check';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { analyzeText, listItems, titleSegments } from '../src/engines/text/local/local-analyzer.ts';
import { emptyAnalysis, TONES, type TextAnalysis, type Tone } from '../src/engines/text/text-engine.ts';
import { mapLimit } from '../src/modules/brand-dna/brand-dna.jobs.ts';
import { nextUpdatedAt } from '../src/modules/brand-dna/brand-dna.repo.ts';
import { BrandDna, PALETTE_ROLES, SOURCE_TYPES } from '../src/modules/brand-dna/brand-dna.schemas.ts';
import {
  cmykToRgb,
  colorsInCss,
  deltaE2000,
  deltaEHex,
  labToRgb,
  parseCssColor,
  rgbToLab,
  toHex,
} from '../src/modules/brand-dna/color.ts';
import { parseHex } from '../src/adapters/media/colors.ts';
import { agreementScore, confidenceScore, coverage, missingFields } from '../src/modules/brand-dna/confidence.ts';
import {
  classifySelector,
  cssColors,
  cssFonts,
  familiesOfFontShorthand,
  fontFamilyList,
  parseCss,
  primaryFamily,
  resolveVars,
  customProperties,
} from '../src/modules/brand-dna/css-analysis.ts';
import { frameTimes, sourceTypeOf } from '../src/modules/brand-dna/extractors.ts';
import { brandNameFromTitle, colorSpecs, fontSpecs, guidelineBlocks } from '../src/modules/brand-dna/guidelines.ts';
import { subjectsIn } from '../src/modules/brand-dna/imagery.ts';
import {
  type BrandFacts,
  type FoundColor,
  type FoundFont,
  mergeFindings,
  type SourceFindings,
} from '../src/modules/brand-dna/merge.ts';
import { analyzePage, webFontFamilies } from '../src/modules/brand-dna/page.ts';
import { createHistogram, imageryStyle, paletteFromHistogram } from '../src/modules/brand-dna/palette.ts';
import { buildPreview } from '../src/modules/brand-dna/preview.ts';
import { BRANDS } from './fixtures/brands/brands.ts';

const checkDna = Compile(BrandDna);
const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const S3 = '33333333-3333-4333-8333-333333333333';

describe('colour arithmetic', () => {
  it('parses hex in its short, long and alpha forms', () => {
    expect(parseHex('#abc')).toEqual([170, 187, 204]);
    expect(parseHex('0058A3')).toEqual([0, 88, 163]);
    expect(parseHex('#0058a3cc')).toEqual([0, 88, 163]);
    expect(parseHex('#ab')).toBeUndefined();
    expect(parseHex('#ggg')).toBeUndefined();
  });

  // Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula", test data.
  it.each([
    [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
    [[50, 3.1571, -77.2803], [50, 0, -82.7485], 2.8615],
    [[50, 2.8361, -74.02], [50, 0, -82.7485], 3.4412],
    [[50, 0, 0], [50, -1, 2], 2.3669],
    [[50, 2.49, -0.001], [50, -2.49, 0.0009], 7.1792],
    [[50, 2.5, 0], [73, 25, -18], 27.1492],
    [[50, 2.5, 0], [61, -5, 29], 22.8977],
    [[50, 2.5, 0], [56, -27, -3], 31.903],
    [[50, 2.5, 0], [58, 24, 15], 19.4535],
  ] as const)('ΔE2000(%j, %j) = %d', (a, b, expected) => {
    expect(deltaE2000([...a], [...b])).toBeCloseTo(expected, 3);
    expect(deltaE2000([...b], [...a])).toBeCloseTo(expected, 3);
  });

  it('round-trips sRGB through Lab within one step per channel, and ΔE is 0 only for equal colours', () => {
    const rgb = fc.tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
    );
    fc.assert(
      fc.property(rgb, ([r, g, b]) => {
        const back = labToRgb(rgbToLab(r, g, b));
        expect(Math.abs(back[0] - r) + Math.abs(back[1] - g) + Math.abs(back[2] - b)).toBeLessThanOrEqual(3);
        expect(deltaE2000(rgbToLab(r, g, b), rgbToLab(r, g, b))).toBe(0);
      }),
    );
    expect(deltaEHex('#000000', '#ffffff')).toBeGreaterThan(90);
  });

  it('reads CSS colours: hex, rgb() and hsl() in both syntaxes, names; skips url() and transparency keywords', () => {
    expect(colorsInCss('1px solid #0058A3')).toEqual([{ hex: '#0058a3', alpha: 1 }]);
    expect(colorsInCss('rgb(0 88 163 / 50%)')).toEqual([{ hex: '#0058a3', alpha: 0.5 }]);
    expect(colorsInCss('rgba(0, 88, 163, .25)')[0]).toEqual({ hex: '#0058a3', alpha: 0.25 });
    expect(parseCssColor('hsl(0, 100%, 50%)')).toEqual({ hex: '#ff0000', alpha: 1 });
    expect(parseCssColor('hsl(120 100% 25%)')).toEqual({ hex: '#008000', alpha: 1 });
    expect(colorsInCss('rebeccapurple')).toEqual([{ hex: '#663399', alpha: 1 }]);
    expect(colorsInCss('url(red.png) no-repeat transparent currentColor inherit')).toEqual([]);
    expect(colorsInCss('#f00a')[0]).toMatchObject({ hex: '#ff0000' });
    expect(cmykToRgb(100, 0, 0, 0)).toEqual([0, 255, 255]);
    expect(toHex(cmykToRgb(0, 0, 0, 100))).toBe('#000000');
    fc.assert(fc.property(fc.string(), (s) => void colorsInCss(s)));
  });
});

describe('CSS analysis', () => {
  it('parses rules inside groups, @font-face, nesting; skips keyframes; survives strings and data URIs', () => {
    const rules = parseCss(`
      /* header { color: red } */
      @import url("x.css");
      @media (min-width: 1px) { .btn { background: #111111; } }
      @font-face { font-family: "Brand Sans"; font-weight: 700; src: url(data:font/woff2;base64,AAA=); }
      @keyframes pulse { from { color: #ff0000; } to { color: #00ff00; } }
      .card { content: "} {"; color: #222222; .title { color: #333333; } }
    `);
    expect(rules.map((r) => r.selector)).toEqual(['.btn', '@font-face', '.card', '.card .title']);
    expect(rules[0]!.declarations).toEqual([{ property: 'background', value: '#111111' }]);
    expect(rules[1]!.declarations.map((d) => d.property)).toEqual(['font-family', 'font-weight', 'src']);
    expect(rules[2]!.declarations).toEqual([
      { property: 'content', value: '"} {"' },
      { property: 'color', value: '#222222' },
    ]);
    fc.assert(fc.property(fc.string(), (s) => void parseCss(s)));
  });

  it('weighs selectors by what they style: buttons > brand bars > links and headings > the rest; states and status count less', () => {
    const w = (s: string) => classifySelector(s).weight;
    expect(w('.btn-primary')).toBe(5);
    expect(w('button')).toBe(5);
    expect(w('.site-header')).toBe(4);
    expect(w('a')).toBe(3);
    expect(w('h1')).toBe(3);
    expect(w('div.card')).toBe(1);
    expect(w('.alert-danger')).toBeLessThan(1);
    expect(w('a:hover')).toBe(1.5);
    expect(w('div, .btn')).toBe(5);
    expect(w('#onetrust-banner-sdk .ot-sdk-button-primary')).toBe(0); // a consent banner is not the brand
    expect(w('.cookie-consent button')).toBe(0);
    expect(classifySelector('h1').fontRole).toBe('heading');
    expect(classifySelector('body').fontRole).toBe('body');
  });

  it('makes button fills outweigh borders and shadows, resolves var(), and reads brand-named custom properties', () => {
    const rules = parseCss(`
      :root { --brand-primary: #0058a3; --gray-100: #f3f4f6; --link: var(--brand-primary); }
      .btn { background-color: var(--brand-primary); }
      .card { border: 1px solid #e5e7eb; box-shadow: 0 1px 2px rgba(0,0,0,.5); }
      a { color: var(--link, #000); }
    `);
    const vars = customProperties(rules);
    expect(resolveVars('var(--link)', vars)).toBe('#0058a3');
    expect(resolveVars('var(--nope, #123456)', vars)).toBe('#123456');
    const total = new Map<string, number>();
    for (const c of cssColors(rules, vars)) total.set(c.hex, (total.get(c.hex) ?? 0) + c.weight);
    expect(total.get('#0058a3')).toBeGreaterThan(5 * (total.get('#e5e7eb') ?? 0));
    expect(cssColors(rules, vars).find((c) => c.hex === '#0058a3' && c.roleHint)?.roleHint).toBe('primary');
  });

  it('reads font families: lists, shorthands, generic and icon fonts skipped, roles by selector', () => {
    expect(fontFamilyList('"Open Sans", Arial,  sans-serif')).toEqual(['Open Sans', 'Arial', 'sans-serif']);
    expect(fontFamilyList(` 'Brand Serif' , "Helvetica Neue"`)).toEqual(['Brand Serif', 'Helvetica Neue']);
    expect(familiesOfFontShorthand('italic bold 16px/1.5 "Helvetica Neue", Arial')).toEqual([
      'Helvetica Neue',
      'Arial',
    ]);
    expect(primaryFamily(['FontAwesome', '-apple-system', 'Segoe UI', 'Roboto'])).toEqual({
      family: 'Segoe UI',
      fallbacks: ['Roboto'],
    });
    expect(primaryFamily(['sans-serif'])).toBeUndefined();
    const fonts = cssFonts(
      parseCss(`@font-face { font-family: Display; }
        body { font-family: Inter, sans-serif; } h1 { font: 700 2rem/1 Display, serif; }
        .icon { font-family: "Material Icons"; } :root { --font-heading: "Display"; }`),
    );
    expect(fonts.find((f) => f.role === 'body')).toMatchObject({ family: 'Inter', fallbacks: ['sans-serif'] });
    const heading = fonts.find((f) => f.role === 'heading' && f.family === 'Display');
    expect(heading?.weight).toBe(4.5); // h1 (3) × declared with @font-face (1.5)
    expect(fonts.some((f) => f.family === 'Material Icons')).toBe(false);
  });
});

describe('page analysis', () => {
  const html = `<!doctype html><html><head>
    <title>Shop shoes – Acme</title>
    <meta name="theme-color" content="#0058a3"><meta property="og:site_name" content="Acme">
    <link rel="stylesheet" href="/main.css"><link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto:400,700|Open+Sans">
    <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Acme Inc","slogan":"Run further","logo":{"url":"/img/logo.svg"}}]}</script>
    <style>.btn{background:#ffcc00}</style></head>
    <body><header><a href="/"><img class="site-logo" src="/img/acme.png" alt="Acme"></a>
    <svg class="logo"><path fill="#0058a3" d="M0"/><path style="fill:#ffcc00" d="M1"/></svg></header>
    <h1>Running shoes for everyone</h1>
    <h2>Our mission</h2><p>We exist to help everyone run further, every day.</p>
    <h2>Our values</h2><ul><li>Grit</li><li>Joy</li></ul>
    <div style="background-color: #e30613" class="promo-bar">Sale</div>
    <p>${'Plenty of copy about shoes and running. '.repeat(2)}</p>
    <a href="/about-us">About us</a><a href="https://elsewhere.example/about">Partner</a>
    <img src="/p.jpg" alt="A runner on a mountain trail"></body></html>`;

  it('collects names, theme colours, logos, inline SVG colours, styles, fonts, copy and about links', () => {
    const f = analyzePage(html, 'https://acme.example/shoes');
    expect(f.title).toBe('Shop shoes – Acme');
    expect(f.declaredNames).toEqual(['Acme', 'Acme Inc']);
    expect(f.themeColors).toEqual(['#0058a3']);
    expect(f.logoSvgColors).toEqual(['#0058a3', '#ffcc00']);
    // The logo as URL extraction finds it (purpose `logo`): a declared or header logo scores 3 and up.
    expect(f.logos[0]!.url).toBe('https://acme.example/img/logo.svg');
    expect(f.logos[0]!.score).toBeGreaterThanOrEqual(3);
    expect(f.logos.map((l) => l.url)).toContain('https://acme.example/img/acme.png');
    expect(f.styleBlocks).toEqual(['.btn{background:#ffcc00}']);
    expect(f.inlineRules).toEqual([
      { selector: 'div.promo-bar', declarations: [{ property: 'background-color', value: '#e30613' }] },
    ]);
    expect(f.stylesheetUrls[0]).toBe('https://acme.example/main.css');
    expect(f.webFonts).toEqual([
      { family: 'Roboto', weights: [400, 700] },
      { family: 'Open Sans', weights: [] },
    ]);
    expect(f.blocks).toContainEqual({ kind: 'tagline', text: 'Run further' });
    expect(f.blocks).toContainEqual({
      kind: 'mission',
      text: 'Our mission\nWe exist to help everyone run further, every day.',
    });
    expect(f.blocks).toContainEqual({ kind: 'values', text: 'Our values\nGrit\nJoy' });
    expect(f.aboutLinks).toEqual(['https://acme.example/about-us']);
    expect(subjectsIn(f.imageAlts)).toEqual(['nature', 'sport']);
  });

  it('ignores favicon generators’ default tile colours, and tells logo SVGs from icon SVGs', () => {
    const f = analyzePage(
      `<html><head><meta name="msapplication-TileColor" content="#2b5797"><link rel="mask-icon" href="/s.svg" color="#5bbad5"></head>
      <body><svg class="icon"><path fill="#ff6900"/><path fill="currentColor"/></svg>
      <div id="onetrust-banner"><svg><path fill="#6cc04a"/></svg></div></body></html>`,
      'https://a.example/',
    );
    expect(f.themeColors).toEqual([]);
    expect(f.logoSvgColors).toEqual([]);
    expect(f.iconColors).toEqual(['#ff6900']);
  });

  it('reads Google Fonts css2 axes', () => {
    expect(
      webFontFamilies(
        'https://fonts.googleapis.com/css2?family=Open+Sans:ital,wght@0,400;1,700&family=Inter:wght@300..600',
      ),
    ).toEqual([
      { family: 'Open Sans', weights: [400, 700] },
      { family: 'Inter', weights: [300, 600] },
    ]);
    expect(webFontFamilies('https://example.com/fonts.css?family=X')).toEqual([]);
    expect(webFontFamilies('not a url')).toEqual([]);
  });
});

describe('guideline text', () => {
  const text = [
    'Acme Brand Guidelines',
    'Colour palette',
    'Primary colour - Acme Blue',
    'PANTONE 286 C   CMYK 100 75 0 0   RGB 0 51 160   HEX #0033A0',
    '',
    'Secondary - Sunshine',
    'C 0 M 20 Y 100 K 0',
    '',
    'Accent: PANTONE 185 C',
    '',
    'Neutrals',
    'Charcoal #333333',
    'Charcoal again #333333',
    '',
    'Typography',
    'Headings: Playfair Display Bold',
    'Body copy: Source Sans Pro Regular and Light, fallback Arial',
    'The office is in Georgia.',
  ].join('\n');

  it('turns HEX, RGB, CMYK and Pantone specs into swatches with labels and roles; HEX wins', () => {
    const specs = colorSpecs(text);
    expect(specs.map((s) => [s.hex, s.roleHint, s.from])).toEqual([
      ['#0033a0', 'primary', 'hex'],
      ['#ffcc00', 'secondary', 'cmyk'],
      ['#e4002b', 'accent', 'pantone'],
      ['#333333', 'neutral', 'hex'],
    ]);
    expect(specs[0]).toMatchObject({
      name: 'Primary colour - Acme Blue',
      pantone: 'PANTONE 286 C',
      cmyk: [100, 75, 0, 0],
    });
    expect(colorSpecs('Unknown Pantone: PANTONE 9999 C')).toEqual([]);
    expect(colorSpecs('R 10 G 20 B 30')[0]!.hex).toBe('#0a141e');
    fc.assert(fc.property(fc.string(), (s) => void colorSpecs(s)));
  });

  it('finds named typefaces with roles, weights and fallbacks, not states called Georgia', () => {
    expect(fontSpecs(text)).toEqual([
      { family: 'Playfair Display', role: 'heading', weights: [700], fallbacks: [] },
      { family: 'Source Sans Pro', role: 'body', weights: [300, 400], fallbacks: ['Arial'] },
    ]);
  });

  it('splits sections, including one-line "Label: text" ones', () => {
    const blocks = guidelineBlocks(
      [
        'Intro text here.',
        'Our mission',
        'To help.',
        'More help.',
        'Tagline: Just do it',
        'Words to avoid',
        'cheap, deal',
      ].join('\n'),
    );
    expect(blocks).toEqual([
      { kind: 'body', text: 'Intro text here.' },
      { kind: 'mission', text: 'To help.\nMore help.' },
      { kind: 'tagline', text: 'Just do it' },
      { kind: 'words_avoid', text: 'cheap, deal' },
    ]);
    expect(brandNameFromTitle('Acme Brand Guidelines')).toBe('Acme');
  });

  it('reads values listed on one line, alone or inside a paragraph (PDF text), like a list under a heading', () => {
    const alone = guidelineBlocks('Acme\nOur values: Craft, Kindness, Curiosity\nMore text.');
    expect(alone).toContainEqual({ kind: 'values', text: 'Craft, Kindness, Curiosity' });
    const inline = guidelineBlocks('We make chairs. Our values: Craft, Kindness, Curiosity. We ship worldwide.');
    expect(inline).toEqual([
      { kind: 'body', text: 'We make chairs.' },
      { kind: 'values', text: 'Craft, Kindness, Curiosity' },
      { kind: 'body', text: 'We ship worldwide.' },
    ]);
    const heading = guidelineBlocks('Our values\nCraft\nKindness\nCuriosity');
    // Inside another section (an About paragraph): the rest of the line stays in that section.
    const inSection = guidelineBlocks(
      'About us\nWe make chairs. Our values: Craft, Kindness, Curiosity. We ship worldwide.',
    );
    expect(inSection).toEqual([
      { kind: 'values', text: 'Craft, Kindness, Curiosity' },
      { kind: 'about', text: 'We make chairs.\nWe ship worldwide.' },
    ]);
    for (const blocks of [alone, inline, heading, inSection]) {
      expect(analyzeText({ blocks }).values).toEqual(['Craft', 'Kindness', 'Curiosity']);
    }
    expect(brandNameFromTitle('Nothing to see')).toBeUndefined();
  });
});

describe('pixel palettes', () => {
  /** A w×h raster: white border ring, `a` on the left 70% of the inside, `b` on the rest; `clear` rows transparent. */
  function raster(w: number, h: number, a: number[], b: number[], clear = 0) {
    const px = new Uint8Array(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 4;
        const border = x < 10 || y < 10 || x >= w - 10 || y >= h - 10;
        const c =
          y < clear
            ? [0, 0, 0, 0]
            : border
              ? [255, 255, 255, 255]
              : x < 10 + (w - 20) * 0.7
                ? [...a, 255]
                : [...b, 255];
        px.set(c, i);
      }
    }
    return px;
  }

  it('leaves the neutral backdrop and transparent pixels out and clusters the rest by share', () => {
    const h = createHistogram();
    h.add(raster(120, 100, [0, 88, 163], [255, 204, 0]), 120, 100);
    const p = paletteFromHistogram(h);
    expect(p.background).toBe('#ffffff');
    expect(p.colors).toHaveLength(2);
    expect(deltaEHex(p.colors[0]!.hex, '#0058a3')).toBeLessThan(1);
    expect(p.colors[0]!.share).toBeCloseTo(0.7, 1);
    expect(deltaEHex(p.colors[1]!.hex, '#ffcc00')).toBeLessThan(1);
    const t = createHistogram();
    t.add(raster(120, 100, [0, 88, 163], [255, 204, 0], 30), 120, 100);
    expect(paletteFromHistogram(t).transparentShare).toBeCloseTo(0.3, 2);
    expect(paletteFromHistogram(createHistogram()).colors).toEqual([]);
  });

  it('describes the imagery from pixel statistics', () => {
    expect(imageryStyle({ meanLightness: 80, lightnessSpread: 10, meanChroma: 40, warmth: 20 }, 0.5, 0)).toEqual([
      'bright',
      'vibrant',
      'soft',
      'warm',
      'minimal',
    ]);
    expect(imageryStyle({ meanLightness: 20, lightnessSpread: 35, meanChroma: 5, warmth: -10 }, 0, 0.3)).toEqual([
      'dark',
      'monochrome',
      'high-contrast',
      'cool',
      'cut-out',
    ]);
  });
});

describe('local text analyzer', () => {
  it.each(BRANDS.map((b) => [b.name, b] as const))('hears the tone of %s', (_name, b) => {
    const a = analyzeText({
      blocks: [
        { kind: 'title', text: `${b.name} | ${b.tagline}` },
        ...b.copy.map((text) => ({ kind: 'paragraph' as const, text })),
        { kind: 'mission', text: `Our mission\n${b.mission}` },
      ],
    });
    expect(b.truth.tones).toContain(a.tone[0]!.tone);
    expect(a.tone.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 3);
    expect(a.mission?.value).toBe(b.mission);
  });

  it('reads stated values, descriptors, negations and words to avoid', () => {
    const a = analyzeText({
      blocks: [
        { kind: 'values', text: 'Our values\n- Integrity: we do what is right\n- Care\nBoldness, warmth and wit' },
        { kind: 'tone', text: 'We are warm and witty, never casual. Avoid words like "cheap" or "deal".' },
      ],
    });
    expect(a.values).toEqual(['Integrity', 'Care', 'Boldness', 'Warmth', 'Wit']);
    expect(a.descriptors).toEqual(['warm', 'witty']);
    expect(a.tone.find((t) => t.tone === 'Casual')).toBeUndefined();
    expect(a.wordsToAvoid).toEqual(['cheap', 'deal']);
    expect(analyzeText({ blocks: [] })).toEqual({
      values: [],
      tone: [],
      descriptors: [],
      formality: 0.5,
      wordsToUse: [],
      wordsToAvoid: [],
    });
  });

  it('scores formality from style', () => {
    const casual = analyzeText({
      blocks: [{ kind: 'paragraph', text: "Hey! We're super stoked you're here! Grab your stuff, it's easy!" }],
    });
    const formal = analyzeText({
      blocks: [
        {
          kind: 'paragraph',
          text: 'The organisation delivers comprehensive professional consultancy, ensuring regulatory compliance and operational excellence.',
        },
      ],
    });
    expect(casual.formality).toBeLessThan(0.35);
    expect(formal.formality).toBeGreaterThan(0.65);
  });

  it('splits titles and list items', () => {
    expect(titleSegments('Shoes – Acme | Official site')).toEqual(['Shoes', 'Acme', 'Official site']);
    expect(listItems('1. Speed\n2) Trust\n• Fun')).toEqual(['Speed', 'Trust', 'Fun']);
  });
});

describe('merging sources', () => {
  const colors = (list: [string, number, Partial<FoundColor>?][]): FoundColor[] =>
    list.map(([hex, weight, extra]) => ({ hex, weight, ...extra }));
  const src = (sourceId: string, type: SourceFindings['type'], o: Partial<SourceFindings> = {}): SourceFindings => ({
    sourceId,
    type,
    colors: [],
    fonts: [],
    logos: [],
    ...o,
  });

  it('puts a guideline’s stated colours before inferred ones, with the stated hex and role', () => {
    const m = mergeFindings([
      src(S1, 'url', {
        colors: colors([
          ['#e30613', 10],
          ['#0057b7', 2],
          ['#ffffff', 8, { roleHint: 'background' }],
        ]),
      }),
      src(S2, 'pdf', {
        colors: colors([
          ['#0058a3', 1, { explicit: true, roleHint: 'primary', name: 'Blue' }],
          ['#ffdb00', 0.8, { explicit: true, roleHint: 'secondary' }],
        ]),
      }),
    ]);
    const p = m.dna.visual.palette;
    expect(p.map((x) => [x.hex, x.role])).toEqual([
      ['#0058a3', 'primary'],
      ['#ffdb00', 'secondary'],
      ['#e30613', 'accent'],
      ['#ffffff', 'background'],
    ]);
    expect(p[0]!.sources.sort()).toEqual([S1, S2]); // #0057b7 is the same colour (ΔE < 8)
    expect(p[0]!.name).toBe('Blue');
    expect(p.reduce((s, x) => s + x.share, 0)).toBeCloseTo(1, 2);
    expect(m.evidence.paletteSupport[0]).toBe(2);
  });

  it('raises colours that several sources agree on', () => {
    const m = mergeFindings([
      src(S1, 'url', {
        colors: colors([
          ['#cc0000', 6],
          ['#0000cc', 5],
        ]),
      }),
      src(S2, 'image', { colors: colors([['#0000cc', 1]]) }),
    ]);
    expect(m.dna.visual.palette[0]!.hex).toBe('#0000cc');
  });

  it('takes the logo’s main colour as the primary, a black wordmark included', () => {
    const m = mergeFindings([
      src(S1, 'url', {
        colors: colors([
          ['#fa347f', 20],
          ['#000000', 3, { logo: true }],
          ['#ffffff', 30, { roleHint: 'background' }],
        ]),
      }),
    ]);
    expect(m.dna.visual.palette.slice(0, 2).map((x) => [x.hex, x.role])).toEqual([
      ['#000000', 'primary'],
      ['#fa347f', 'secondary'],
    ]);
    const logoAsset = mergeFindings([
      src(S1, 'url', { colors: colors([['#00aa00', 5]]) }),
      src(S2, 'image', {
        isLogo: true,
        colors: colors([
          ['#cc0000', 0.9],
          ['#00aa00', 0.1],
        ]),
      }),
    ]);
    expect(logoAsset.dna.visual.palette[0]!.hex).toBe('#cc0000');
  });

  it("puts the brand's own logo asset first, with provenance brand, and merges a source naming it too", () => {
    const logo = '33333333-3333-4333-8333-333333333333';
    const m = mergeFindings(
      [
        src(S1, 'url', { logos: [{ url: 'https://acme.example/logo.svg', score: 6 }] }),
        src(S2, 'image', { logos: [{ assetId: logo, score: 1 }] }),
      ],
      { brand: { logoAssetId: logo } },
    );
    expect(m.dna.visual.logos).toEqual([
      { asset_id: logo, sources: ['brand', S2] },
      { url: 'https://acme.example/logo.svg', sources: [S1] },
    ]);
    expect(mergeFindings([], { brand: { logoAssetId: null } }).dna.visual.logos).toEqual([]);
  });

  it('makes the strongest neutral the primary colour when there is no hue at all', () => {
    const m = mergeFindings([
      src(S1, 'url', {
        colors: colors([
          ['#000000', 10],
          ['#ffffff', 12, { roleHint: 'background' }],
          ['#757575', 1],
        ]),
      }),
    ]);
    expect(m.dna.visual.palette.map((x) => [x.hex, x.role])).toEqual([
      ['#000000', 'primary'],
      ['#757575', 'neutral'],
      ['#ffffff', 'background'],
    ]);
  });

  it('takes typography from font files over CSS, and tells heading from body by weights', () => {
    const font = (family: string, weights: number[]): FoundFont => ({
      family,
      role: 'any',
      weight: 1,
      weights,
      fallbacks: [],
      explicit: true,
    });
    const css: FoundFont[] = [{ family: 'Arial', role: 'body', weight: 3, weights: [400], fallbacks: ['sans-serif'] }];
    const m = mergeFindings([
      src(S1, 'url', { fonts: css }),
      src(S2, 'font', { fonts: [font('Brand Display', [800])] }),
      src(S3, 'font', { fonts: [font('Brand Text', [400])] }),
    ]);
    expect(m.dna.visual.typography.heading?.family).toBe('Brand Display');
    expect(m.dna.visual.typography.body?.family).toBe('Brand Text');
    const cssOnly = mergeFindings([src(S1, 'url', { fonts: css })]);
    expect(cssOnly.dna.visual.typography.heading?.family).toBe('Arial'); // headings inherit the body face
  });

  describe('the Brand resource’s own fields', () => {
    const OUTDOOR: BrandFacts = {
      name: 'Trailhead',
      industry: 'Outdoor gear',
      mission: 'Get people outside.',
      values: ['durability'],
      tone: ['Friendly'],
      voice: ['plain-spoken'],
    };
    const said = (o: Partial<TextAnalysis>): TextAnalysis => ({ ...emptyAnalysis(), ...o });
    const product = src(S1, 'image', {
      colors: colors([['#2f5d3a', 1]]),
      imagery: { style: ['bright'], subjects: ['tent'] },
    });

    it('fills identity and voice from what the brand states when the sources say nothing', () => {
      const m = mergeFindings([product], { brand: OUTDOOR });
      const b = ['brand'];
      expect(m.dna.identity).toMatchObject({
        brand_name: { value: 'Trailhead', sources: b },
        industry: { value: 'Outdoor gear', sources: b },
        mission: { value: 'Get people outside.', sources: b },
        values: [{ value: 'durability', sources: b }],
        tagline: null,
        audience: null,
      });
      expect(m.dna.voice.tone).toEqual([{ tone: 'Friendly', weight: 1, sources: b }]);
      expect(m.dna.voice.descriptors).toEqual([{ value: 'plain-spoken', sources: b }]);
      expect(m.dna.voice.formality).toBeNull(); // stated tones are no evidence of style
      // Colours and imagery come only from the sources.
      expect(m.dna.visual.palette.map((p) => p.sources)).toEqual([[S1]]);
      expect(m.dna.visual.imagery.sources).toEqual([S1]);
      const missing = missingFields(m.dna);
      for (const f of ['brand_name', 'industry', 'mission', 'values']) expect(missing).not.toContain(`identity.${f}`);
      expect(missing).not.toContain('voice.tone');
      expect(missing).not.toContain('voice.descriptors');
      expect(missing).toEqual(
        expect.arrayContaining(['identity.tagline', 'voice.formality', 'visual.typography.body']),
      );
      expect(coverage(m.dna)).toBeGreaterThan(coverage(mergeFindings([product]).dna));
      expect(checkDna.Check(m.dna)).toBe(true);
    });

    it('states nothing with empty, blank or unknown entries', () => {
      const m = mergeFindings([product], {
        brand: { name: ' ', industry: '', mission: '', values: ['', '  ', '—'], tone: ['Grumpy'], voice: [] },
      });
      expect(missingFields(m.dna)).toEqual(missingFields(mergeFindings([product]).dna));
      expect(mergeFindings([]).dna.identity.brand_name).toBeNull();
    });

    it('outweighs one source’s reading, gives way to sources that agree, and is corroborated by agreement', () => {
      const url = (id: string, mission: string, score = 0.9) =>
        src(id, 'url', { text: said({ mission: { value: mission, score }, industry: { value: 'Retail', score: 1 } }) });
      const pdf = (id: string, mission: string) => ({ ...url(id, mission, 1), type: 'pdf' as const });
      const one = mergeFindings([pdf(S1, 'We sell tents.')], { brand: OUTDOOR }).dna.identity;
      expect(one.mission).toEqual({ value: 'Get people outside.', sources: ['brand'] });
      expect(one.industry).toEqual({ value: 'Outdoor gear', sources: ['brand'] });
      const two = mergeFindings([pdf(S1, 'We sell tents.'), url(S2, 'We sell tents!')], { brand: OUTDOOR });
      expect(two.dna.identity.mission).toEqual({ value: 'We sell tents.', sources: [S1, S2] });
      const agreeing = mergeFindings([url(S1, 'Get people outside')], { brand: OUTDOOR });
      expect(agreeing.dna.identity.mission).toEqual({ value: 'Get people outside.', sources: ['brand', S1] });
    });

    it('lists the stated values and voice first, then what the sources add', () => {
      const m = mergeFindings(
        [src(S1, 'pdf', { text: said({ values: ['Craft', 'Durability'], descriptors: ['warm'] }) })],
        { brand: { ...OUTDOOR, values: ['durability', 'Repair'] } },
      );
      expect(m.dna.identity.values).toEqual([
        { value: 'durability', sources: ['brand', S1] },
        { value: 'Repair', sources: ['brand'] },
        { value: 'Craft', sources: [S1] },
      ]);
      expect(m.dna.voice.descriptors.map((d) => d.value)).toEqual(['plain-spoken', 'warm']);
    });

    it('weighs stated tones in the order given and lets them agree or disagree with the sources', () => {
      const stated = mergeFindings([], { brand: { tone: ['Playful', 'Friendly', 'Casual'] } }).dna.voice.tone;
      expect(stated.map((t) => [t.tone, t.weight])).toEqual([
        ['Playful', 0.5],
        ['Friendly', 0.333],
        ['Casual', 0.167],
      ]);
      const page = src(S1, 'url', {
        text: said({
          tone: [
            { tone: 'Friendly', weight: 0.8 },
            { tone: 'Casual', weight: 0.2 },
          ],
          formality: 0.3,
        }),
      });
      const friendly = mergeFindings([page], { brand: { tone: ['Friendly'] } });
      const luxurious = mergeFindings([page], { brand: { tone: ['Luxurious'] } });
      expect(friendly.dna.voice.tone[0]).toMatchObject({ tone: 'Friendly', sources: ['brand', S1] });
      // The brand (3) outweighs one page (1).
      expect(luxurious.dna.voice.tone.map((t) => [t.tone, t.weight])).toEqual([
        ['Luxurious', 0.75],
        ['Friendly', 0.2],
        ['Casual', 0.05],
      ]);
      expect(friendly.dna.voice.formality).toEqual({ level: 'casual', score: 0.3, sources: [S1] });
      expect(friendly.evidence.toneVectors).toHaveLength(2);
      expect(agreementScore(friendly.evidence)).toBeGreaterThan(0.9);
      expect(agreementScore(luxurious.evidence)).toBe(0);
      const conf = (r: typeof friendly) => confidenceScore(r.dna, r.evidence, { total: 1, succeeded: 1 });
      expect(conf(friendly)).toBeGreaterThan(conf(luxurious));
    });

    it('reads the description only for what the brand does not state', () => {
      const described = said({
        brandName: { value: 'Other', score: 1 },
        tagline: { value: 'Gear for the rest of us', score: 1 },
        mission: { value: 'We help people get outdoors more often.', score: 0.6 },
        industry: { value: 'Sports', score: 1 },
        audience: { value: { description: 'For weekend hikers', segments: ['hikers'] }, score: 0.5 },
        values: ['Quality'],
        tone: [{ tone: 'Casual', weight: 1 }],
        descriptors: ['relaxed'],
        formality: 0.2,
        wordsToUse: ['gear'],
        wordsToAvoid: ['cheap'],
      });
      const full = mergeFindings([product], { brand: { ...OUTDOOR, described } }).dna;
      expect(full.identity).toMatchObject({
        brand_name: { value: 'Trailhead' },
        tagline: null,
        mission: { value: 'Get people outside.' },
        industry: { value: 'Outdoor gear' },
        audience: { description: 'For weekend hikers', segments: ['hikers'], sources: ['brand'] },
      });
      expect(full.identity.values.map((v) => v.value)).toEqual(['durability']);
      expect(full.voice.tone.map((t) => t.tone)).toEqual(['Friendly']);
      expect(full.voice.descriptors.map((v) => v.value)).toEqual(['plain-spoken']);
      expect(full.voice.formality).toBeNull(); // the description's style reading goes with its tones
      expect(full.voice.words_to_use).toEqual([]);
      expect(full.voice.words_to_avoid).toEqual([]);
      const bare = mergeFindings([product], { brand: { name: 'Trailhead', industry: 'Outdoor gear', described } }).dna;
      expect(bare.identity.mission).toEqual({ value: 'We help people get outdoors more often.', sources: ['brand'] });
      expect(bare.identity.values.map((v) => v.value)).toEqual(['Quality']);
      expect(bare.voice.tone).toEqual([{ tone: 'Casual', weight: 1, sources: ['brand'] }]);
      expect(bare.voice.descriptors.map((v) => v.value)).toEqual(['relaxed']);
      expect(bare.voice.formality).toEqual({ level: 'casual', score: 0.2, sources: ['brand'] });
    });
  });

  const analysis: fc.Arbitrary<TextAnalysis> = fc.record({
    values: fc.array(fc.string({ maxLength: 60 }), { maxLength: 12 }),
    tone: fc
      .uniqueArray(fc.constantFrom(...TONES), { maxLength: 8 })
      .chain((ts) =>
        fc.tuple(
          fc.constant(ts),
          fc.array(fc.double({ min: 0.01, max: 1, noNaN: true }), { minLength: ts.length, maxLength: ts.length }),
        ),
      )
      .map(([ts, ws]) => {
        const sum = ws.reduce((s, w) => s + w, 0);
        return ts.map((tone, i) => ({ tone: tone as Tone, weight: ws[i]! / sum }));
      }),
    descriptors: fc.array(fc.string({ maxLength: 50 }), { maxLength: 12 }),
    formality: fc.double({ min: 0, max: 1, noNaN: true }),
    wordsToUse: fc.array(fc.string({ maxLength: 50 }), { maxLength: 25 }),
    wordsToAvoid: fc.array(fc.string({ maxLength: 50 }), { maxLength: 25 }),
    mission: fc.option(
      fc.record({
        value: fc.string({ minLength: 1, maxLength: 1200 }),
        score: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      { nil: undefined },
    ),
  }) as fc.Arbitrary<TextAnalysis>;
  const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);
  const finding = fc.record({
    sourceId: fc.uuid(),
    type: fc.constantFrom(...SOURCE_TYPES),
    colors: fc.array(
      fc.record({
        hex,
        weight: fc.double({ min: 0.001, max: 50, noNaN: true }),
        explicit: fc.boolean(),
        roleHint: fc.constantFrom(...PALETTE_ROLES),
      }),
      { maxLength: 15 },
    ),
    fonts: fc.array(
      fc.record({
        family: fc.string({ minLength: 1, maxLength: 100 }).filter((s) => s.trim() !== ''),
        role: fc.constantFrom('heading' as const, 'body' as const, 'any' as const),
        weight: fc.double({ min: 0.001, max: 10, noNaN: true }),
        weights: fc.uniqueArray(fc.constantFrom(100, 200, 300, 400, 500, 600, 700, 800, 900), { maxLength: 9 }),
        fallbacks: fc.array(fc.string({ minLength: 1, maxLength: 90 }), { maxLength: 10 }),
      }),
      { maxLength: 6 },
    ),
    logos: fc.array(fc.record({ url: fc.webUrl(), score: fc.double({ min: 0, max: 10, noNaN: true }) }), {
      maxLength: 6,
    }),
    text: fc.option(analysis, { nil: undefined }),
  });

  // Any Brand resource the brands API accepts (lengths in code points, astral ones included).
  const text = (maxLength: number, minLength = 0) => fc.string({ unit: 'binary', minLength, maxLength });
  const brandFacts: fc.Arbitrary<BrandFacts> = fc.record(
    {
      name: text(100, 1),
      industry: text(50, 1),
      mission: text(1000),
      values: fc.array(text(50), { maxLength: 10 }),
      tone: fc.uniqueArray(fc.constantFrom(...TONES), { maxLength: 5 }),
      voice: fc.array(text(50), { maxLength: 5 }),
      described: analysis,
    },
    { requiredKeys: ['name', 'industry'] },
  );

  it('always produces a payload that matches the published schema', () => {
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 6 }), fc.option(brandFacts, { nil: undefined }), (fs, brand) => {
        const m = mergeFindings(fs as SourceFindings[], brand ? { brand } : {});
        const ok = checkDna.Check(m.dna);
        if (!ok) throw new Error(JSON.stringify([...checkDna.Errors(m.dna)].slice(0, 2)));
        // No surrogate pair is cut in two (JSON.stringify escapes only lone surrogates).
        expect(JSON.stringify(m.dna)).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
        const c = confidenceScore(m.dna, m.evidence, { total: Math.max(1, fs.length), succeeded: fs.length });
        expect(c).toBeGreaterThanOrEqual(0);
        expect(c).toBeLessThanOrEqual(1);
      }),
      { numRuns: 150 },
    );
  });
});

describe('confidence, missing fields and preview', () => {
  const empty = mergeFindings([]).dna;

  it('lists every field as missing in an empty payload and none in a full one', () => {
    expect(missingFields(empty)).toContain('visual.palette');
    expect(missingFields(empty)).toHaveLength(16);
    expect(coverage(empty)).toBe(0);
  });

  it('scores agreement only where two sources spoke, and success lowers confidence when sources fail', () => {
    const base = {
      paletteSupport: [1, 1],
      fontSupport: [1],
      toneVectors: [],
      paletteSources: 1,
      fontSources: 1,
      contributing: 1,
    };
    expect(agreementScore(base)).toBe(0.5);
    expect(agreementScore({ ...base, paletteSources: 2, paletteSupport: [2, 2, 1] })).toBeCloseTo(2 / 3);
    const all = confidenceScore(empty, base, { total: 2, succeeded: 2 });
    const half = confidenceScore(empty, base, { total: 2, succeeded: 1 });
    expect(half).toBeLessThan(all);
  });

  it('derives the preview from the payload and the sources', () => {
    const dna = structuredClone(empty);
    dna.visual.palette = [{ hex: '#0058A3', role: 'primary', share: 1, sources: [] }];
    dna.visual.typography.heading = { family: 'Inter', weights: [], fallbacks: [], sources: [] };
    dna.visual.typography.body = { family: 'inter', weights: [], fallbacks: [], sources: [] };
    dna.voice.tone = [
      { tone: 'Friendly', weight: 0.7, sources: [] },
      { tone: 'Casual', weight: 0.2, sources: [] },
      { tone: 'Playful', weight: 0.1, sources: [] },
    ];
    dna.identity.values = ['A', 'B', 'C', 'D'].map((value) => ({ value, sources: [] }));
    expect(buildPreview(dna, ['url', 'pdf', 'url', 'bogus'])).toEqual({
      colorHexes: ['#0058a3'],
      typographyShort: 'Inter',
      toneShort: 'Friendly, Casual',
      topValues: ['A', 'B', 'C'],
      sourceCounts: { pdf: 1, image: 0, video: 0, url: 2, font: 0, document: 0 },
    });
  });
});

describe('small pieces', () => {
  it('moves updatedAt forward on every write, even when the clock does not', () => {
    fc.assert(
      fc.property(
        fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
        fc.integer({ min: -5000, max: 5000 }),
        (now, offset) => {
          const prev = new Date(now.getTime() + offset).toISOString();
          const next = nextUpdatedAt(now, prev);
          expect(Date.parse(next)).toBeGreaterThan(Date.parse(prev));
          expect(Date.parse(next)).toBeGreaterThanOrEqual(now.getTime());
        },
      ),
    );
  });

  it('runs at most `limit` tasks at once and reports the first failure after all settle', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return n * 2;
    });
    expect(out).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(peak).toBe(3);
    const done: number[] = [];
    await expect(
      mapLimit([1, 2, 3], 2, async (n) => {
        if (n === 1) throw new Error('boom');
        done.push(n);
      }),
    ).rejects.toThrow('boom');
    expect(done).toEqual([2, 3]);
  });

  it('maps assets to source types and spreads video frames', () => {
    expect(sourceTypeOf({ type: 'document', detected_format: 'PDF' })).toBe('pdf');
    expect(sourceTypeOf({ type: 'document', detected_format: 'DOCX' })).toBe('document');
    expect(sourceTypeOf({ type: 'logo', detected_format: 'PNG' })).toBe('image');
    expect(sourceTypeOf({ type: 'font', detected_format: 'WOFF2' })).toBe('font');
    expect(sourceTypeOf({ type: 'model', detected_format: null })).toBeUndefined();
    expect(frameTimes(12)).toEqual([1, 3, 5, 7, 9, 11]);
    expect(frameTimes(undefined)).toEqual([0]);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SCENE_ASPECT_RATIOS,
  SCENE_PARTNERS,
  SCENE_PROMPT_MAX,
  SCENE_THEME_MAX,
  SCENE_WARNING_CODES,
  type SceneBrandContext,
  type SceneEnhancementInput,
  type SceneProductContext,
} from '../scene-enhancer.ts';
import {
  colourWord,
  createLocalSceneEnhancer,
  enhanceScene,
  hexToWords,
  midSentence,
  productPhrase,
  requestedShapes,
} from './scene-enhancer.local.ts';

const SERUM = {
  description: 'Vitamin C face serum in an amber glass dropper bottle, on a white background.',
  tags: ['serum', 'skincare', 'product-on-plain-background', 'portrait', 'orange', 'white'],
  colors: ['orange', 'white'],
};
const LUXE: SceneBrandContext = {
  name: 'Maison',
  tone: ['Luxurious'],
  palette: [
    { hex: '#1b2a4a', role: 'primary' },
    { hex: '#d4af37', role: 'accent' },
  ],
  imageryStyle: [],
  wordsToAvoid: ['cheap'],
};
const brand = (tone: string, extra: Partial<SceneBrandContext> = {}): SceneBrandContext => ({
  name: 'Brand',
  tone: [tone],
  palette: [{ hex: '#0a7e8c', role: 'primary' }],
  ...extra,
});
const input = (over: Partial<SceneEnhancementInput> = {}): SceneEnhancementInput => ({
  originalPrompt: 'Our serum on a bathroom shelf',
  products: [SERUM],
  partner: 'default',
  ...over,
});
const run = (over: Partial<SceneEnhancementInput> = {}) => enhanceScene(input(over));
const codes = (r: { warnings: { code: string }[] }) => r.warnings.map((w) => w.code);
const HEX = /#[0-9a-f]{3,8}\b/i;

describe('local scene enhancer: faithfulness', () => {
  it.each([
    'Our new vitamin C serum on a bathroom shelf, morning light',
    'sneaker drop for an instagram story, neon green everywhere',
    'Three candles — dark, moody evening scene on a rustic wooden table, no props',
    'flat lay of our breakfast range with fresh berries and a linen napkin',
    'Un flacon de parfum sur une table en marbre, lumière du matin',
    'smartwatch floating above a gradient, close-up, 100mm macro, f/2.8',
  ])('keeps the prompt whole and first: %s', (prompt) => {
    const r = run({ originalPrompt: prompt, brand: LUXE });
    const expected = prompt[0]!.toUpperCase() + prompt.slice(1);
    expect(r.optimizedPrompt.startsWith(expected)).toBe(true);
    expect(r.optimizedPrompt.length).toBeGreaterThan(prompt.length + 100);
  });

  it('normalises whitespace and control characters, and writes hex codes in the prompt as colour words', () => {
    const r = run({ originalPrompt: '  serum\n\non a   #1b2a4a\u0000 backdrop\t' });
    expect(r.optimizedPrompt.startsWith('Serum on a navy backdrop.')).toBe(true);
    expect(r.optimizedPrompt).not.toMatch(HEX);
  });

  it('never adds what the prompt excludes or contradicts', () => {
    const cases: [Partial<SceneEnhancementInput>, RegExp][] = [
      [{ originalPrompt: 'serum at night on a vanity', brand: brand('Friendly') }, /daylight|sunlight|sunny/i],
      [{ originalPrompt: 'serum, no props please', brand: brand('Playful') }, /props/i],
      [{ originalPrompt: 'a minimal scene with the serum', brand: brand('Playful') }, /props|colour-blocked/i],
      [{ originalPrompt: 'the serum on a concrete floor', brand: LUXE }, /marble/i],
      [{ originalPrompt: 'watercolour illustration of the serum', brand: LUXE }, /lens|photograph/i],
      [{ originalPrompt: 'serum in cool blue tones', brand: brand('Friendly') }, /\bwarm/i],
      [{ originalPrompt: 'serum on a beach at noon', brand: brand('Authoritative') }, /studio|plinth|seamless/i],
      [{ originalPrompt: 'a bright, airy shot of the serum', brand: LUXE }, /deep, rich shadows/i],
      [{ originalPrompt: 'serum in black and white', brand: LUXE }, /navy|gold/i],
      [{ originalPrompt: 'serum with the headline "Glow on"', partner: 'partner-1' }, /no added text/i],
      [{ originalPrompt: 'vintage serum ad', brand: brand('Innovative') }, /sleek|glossy|geometric|high-tech/i],
    ];
    for (const [over, banned] of cases) {
      const r = run(over);
      const added = r.optimizedPrompt.slice(input(over).originalPrompt.length + 1);
      expect(added, String(over.originalPrompt)).not.toMatch(banned);
    }
  });

  it('fills no slot the prompt already fills', () => {
    const r = run({ originalPrompt: 'serum on marble at golden hour, shot with a 35mm lens', brand: LUXE });
    const added = r.optimizedPrompt.slice(r.optimizedPrompt.indexOf('Feature'));
    expect(added).not.toMatch(/marble|light|lens|85mm/i);
    expect(added).toMatch(/composition/i);
  });

  it('does not read compounds as scene words ("night cream", "chocolate bar", "copy space")', () => {
    const r = run({
      originalPrompt: 'our night cream next to a chocolate bar, leave copy space',
      products: [{ description: 'Night cream jar', tags: [], colors: [] }],
      brand: LUXE,
    });
    expect(r.optimizedPrompt).toMatch(/directional light/); // a light is still chosen
    expect(r.optimizedPrompt).toMatch(/marble/); // and a set
    expect(r.theme).not.toMatch(/night|bar/i);
  });
});

describe('local scene enhancer: products', () => {
  it('names every product by its description, without the packshot background, as the hero', () => {
    const r = run();
    expect(r.optimizedPrompt).toContain(
      'Feature the vitamin C face serum in an amber glass dropper bottle as the hero',
    );
    expect(r.optimizedPrompt).not.toMatch(/white background/i);
    const many = run({
      products: [
        { description: 'Organic granola in a kraft pouch', tags: [], colors: [] },
        { description: 'A glass jar of strawberry jam', tags: [], colors: [] },
        {
          tags: ['coffee', 'packaging', 'brown', 'high-resolution'],
          colors: ['brown', 'light-blue'],
          fileName: 'IMG_0042_house-blend_bag_v2.png',
        },
      ],
    });
    expect(many.optimizedPrompt).toContain(
      'Feature the organic granola in a kraft pouch, a glass jar of strawberry jam and the house blend bag in brown and light blue together as the heroes',
    );
  });

  it.each([
    [{ description: 'Matte black headphones', tags: [], colors: [] }, 'the matte black headphones'],
    [{ description: 'Air Max sneakers in white', tags: [], colors: [] }, 'the Air Max sneakers in white'],
    [{ description: 'LED desk lamp', tags: [], colors: [] }, 'the LED desk lamp'],
    [{ description: 'An oak chopping board. Made in Vermont.', tags: [], colors: [] }, 'an oak chopping board'],
    [
      { description: 'Tote bag', tags: ['transparent-background'], colors: ['navy', 'white'] },
      'the tote bag in navy and white',
    ],
    [{ description: 'Red tote bag', tags: [], colors: ['red'] }, 'the red tote bag'],
    [{ tags: ['mug'], colors: ['white'], fileName: 'DSC_1234.JPG' }, 'the white mug'],
    [
      { tags: ['mug', 'ceramic', 'handmade', 'gift'], colors: ['navy', 'light-blue'] },
      'the navy and light blue mug (ceramic, handmade)',
    ],
    [{ tags: [], colors: [] }, 'the product'],
    // File names: colour words before the noun, and the spelling a copywriter uses.
    [{ tags: [], colors: ['red', 'maroon'], fileName: 'solidus_cap_red_2.png' }, 'the red solidus cap'],
    [{ tags: [], colors: ['black'], fileName: 'solidus_tshirt.png' }, 'the solidus T-shirt in black'],
  ])('phrases %j as "%s"', (p, phrase) => {
    expect(productPhrase(p, 0, 1)).toBe(phrase);
  });

  it('keeps one hero: a product the prompt names that is not given stays secondary (MULTIPLE_HEROES)', () => {
    const tee = { tags: ['transparent-background'], colors: ['black'], fileName: 'solidus_tshirt.png' };
    const r = run({ originalPrompt: 'The red cap on a concrete ledge at golden hour', products: [tee] });
    expect(r.optimizedPrompt).toContain(
      'Feature the solidus T-shirt in black as the hero: in the foreground, in sharp focus, shape, label and colours unchanged. The red cap stays secondary: smaller, further back and out of the main focus.',
    );
    expect(r.optimizedPrompt.match(/as the hero/g)).toHaveLength(1);
    const w = r.warnings.find((x) => x.code === 'MULTIPLE_HEROES');
    expect(w).toMatchObject({ severity: 'warning', field: 'originalPrompt' });
    expect(w?.message).toBe(
      'The prompt names "the red cap" as its subject, but the product given is the solidus T-shirt in black. The scene keeps the solidus T-shirt in black as the hero and the red cap secondary; add its picture to the products, or rephrase the prompt, to change that.',
    );
    // Two named heroes, one of them given: the given one leads, the other is secondary.
    const cap = { tags: [], colors: ['red'], fileName: 'solidus_cap_red_1.png' };
    const two = run({ originalPrompt: 'the red cap and the black hoodie as the heroes', products: [cap] });
    expect(two.optimizedPrompt).toMatch(/Feature the red solidus cap as the hero: .* The black hoodie stays secondary/);
    expect(codes(two)).toContain('MULTIPLE_HEROES');
    // Named by another word of the same kind (a hat is a cap, a tee a T-shirt), a prop, or no product words: no warning.
    const cases: [string, SceneProductContext][] = [
      ['the black cap on a bench', { tags: [], colors: ['black'], fileName: 'solidus_hat.png' }],
      ['matte black tee on concrete', tee],
      ['our serum next to a coffee mug', SERUM],
      ['The red cap on a ledge', { tags: [], colors: [], fileName: 'IMG_0042.png' }],
      ['no mugs, just the serum on a shelf', SERUM],
    ];
    for (const [prompt, product] of cases) {
      expect(codes(run({ originalPrompt: prompt, products: [product] })), prompt).not.toContain('MULTIPLE_HEROES');
    }
  });

  it('leaves out colours the prompt gives the product otherwise ("the red cap" for a black one)', () => {
    const black = { tags: [], colors: ['black', 'gray'], fileName: 'solidus_cap_black_1.png' };
    const r = run({ originalPrompt: 'The red cap on a concrete ledge', products: [black] });
    expect(r.optimizedPrompt).toContain('Feature the solidus cap as the hero');
    expect(r.optimizedPrompt).not.toMatch(/black|gray/);
    expect(codes(r)).not.toContain('MULTIPLE_HEROES');
  });

  it('refers to a set in the plural: "the mugs", their shapes and labels', () => {
    const set = { tags: ['transparent-background'], colors: ['red', 'black'], fileName: 'solidus_mug_set.png' };
    const r = run({ originalPrompt: 'our mug set', products: [set], aspectRatio: '1:1', partner: 'partner-1' });
    expect(r.optimizedPrompt).toContain(
      'Feature the solidus mug set in red and black as the hero: in the foreground, in sharp focus, shapes, labels and colours unchanged.',
    );
    expect(r.optimizedPrompt).toContain('Balanced square composition with the mugs centred.');
    expect(r.optimizedPrompt).toContain(
      'Marketplace-ready presentation: all of the mugs fully in frame and unobstructed, with clear space around them',
    );
    expect(r.optimizedPrompt).not.toMatch(/\bthe product\b|\bthe mug\b(?! set)|around it\b/);
  });

  it('lets the product the prompt names as the hero lead when there are several', () => {
    const r = run({
      originalPrompt: 'the mug as the hero, on a desk',
      products: [
        { tags: [], colors: [], fileName: 'notebook.png' },
        { tags: [], colors: [], fileName: 'mug.png' },
      ],
    });
    expect(r.optimizedPrompt).toContain(
      'Feature the mug as the hero, with the notebook in a supporting role: all in the foreground and in sharp focus, shapes, labels and colours unchanged.',
    );
    expect(codes(r)).not.toContain('MULTIPLE_HEROES');
  });

  it('asks to keep the product the hero and tells NO_PRODUCT_CONTEXT when there is none', () => {
    const r = run({ products: [] });
    expect(r.optimizedPrompt).toMatch(/Keep the product the clear hero/);
    expect(r.warnings).toContainEqual(
      expect.objectContaining({ code: 'NO_PRODUCT_CONTEXT', severity: 'info', field: 'productAssetIds' }),
    );
    expect(codes(run())).not.toContain('NO_PRODUCT_CONTEXT');
  });

  it('bounds long descriptions', () => {
    const r = run({
      products: Array.from({ length: 5 }, () => ({ description: 'word '.repeat(400), tags: [], colors: [] })),
    });
    expect(r.optimizedPrompt.length).toBeLessThanOrEqual(SCENE_PROMPT_MAX);
    expect(r.optimizedPrompt.split('word').length - 1).toBeLessThanOrEqual(5 * 40);
  });
});

describe('local scene enhancer: brand and colour words', () => {
  it.each([
    ['#1b2a4a', 'navy'],
    ['#d4af37', 'gold'],
    ['#9caf88', 'sage green'],
    ['#fff8e7', 'cream'],
    ['#e2725b', 'terracotta'],
    ['#333333', 'charcoal'],
    ['#ffffff', 'white'],
    ['#000000', 'black'],
    ['#ff0000', 'red'],
    ['#0a7e8c', 'teal'],
    ['#7fa7c9', 'light blue'],
    ['#8a7f99', 'mauve'],
    ['#a67b7b', 'dusty rose'],
    ['#6d8a96', 'dusty blue'],
    ['#5f9ea0', 'muted teal'],
    ['#f5efe6', 'off-white'],
    ['#c0c0c0', 'light gray'],
    ['#5c0a8a', 'deep purple'],
    ['#87ceeb', 'light blue'],
    ['not a colour', undefined],
  ])('names %s "%s"', (hex, word) => {
    expect(colourWord(hex)).toBe(word);
  });

  it('writes the palette as colour words (the DNA name when it is one), never hex', () => {
    const r = run({
      brand: {
        ...LUXE,
        palette: [
          { hex: '#9caf88', name: 'Sage', role: 'primary' },
          { hex: '#d4af37', name: 'Pantone 871 C', role: 'accent' },
          { hex: '#222222', role: 'text' },
          { hex: '#e2725b', role: 'secondary' },
        ],
      },
    });
    expect(r.optimizedPrompt).toMatch(/Sage, gold and terracotta accents/);
    expect(r.optimizedPrompt).not.toMatch(HEX);
    expect(r.optimizedPrompt).not.toMatch(/Pantone|charcoal/);
    expect(hexToWords('a #FFF and #d4af37 set, not &#123; nor x#abc')).toBe(
      'a white and gold set, not &#123; nor x#abc',
    );
  });

  it('uses the background colour for the backdrop when the set is the tone’s', () => {
    const r = run({
      originalPrompt: 'our serum',
      brand: { ...LUXE, palette: [...LUXE.palette, { hex: '#fff8e7', role: 'background' }] },
    });
    expect(r.optimizedPrompt).toContain('A polished marble surface against a cream backdrop.');
    expect(r.optimizedPrompt).toContain('Navy and gold accents');
  });

  it.each([
    [
      'Luxurious',
      [/polished marble surface/, /deep, rich shadows/, /85mm lens/, /Refined and elegant mood/, /High-end editorial/],
    ],
    ['Playful', [/colour-blocked set/, /playful props/, /Bright, even light/, /Vibrant and joyful mood/]],
    [
      'Professional',
      [/seamless neutral backdrop|seamless .* backdrop/, /daylight-balanced/, /70mm/, /Clean and polished mood/],
    ],
    ['Casual', [/lived-in tabletop with natural linen/, /window light/, /35mm/]],
    ['Friendly', [/light wooden table/, /Warm, soft window light/, /Inviting mood|Warm and inviting mood/]],
    ['Authoritative', [/dark stone plinth/, /crisp contrast/, /Confident and assured mood/]],
    ['Innovative', [/glossy surfaces and clean geometric forms/i, /rim highlights/, /Sleek and modern mood/]],
    ['Traditional', [/weathered oak table/, /Timeless and authentic mood/]],
  ])('lets the %s tone choose what the prompt leaves open', (tone, patterns) => {
    const r = run({ originalPrompt: 'our serum', brand: brand(tone as string, { palette: [] }) });
    for (const p of patterns as RegExp[]) expect(r.optimizedPrompt).toMatch(p);
  });

  it('adds imagery style words that do not contradict, once', () => {
    const r = run({
      originalPrompt: 'our serum',
      brand: { ...LUXE, imageryStyle: ['warm', 'minimal', 'cut-out', 'soft'] },
    });
    expect(r.optimizedPrompt).toMatch(/Refined and elegant mood, with warm tones and minimal styling\./);
    const playful = run({ originalPrompt: 'our serum', brand: brand('Playful', { imageryStyle: ['muted', 'dark'] }) });
    expect(playful.optimizedPrompt).not.toMatch(/vibrant|bright/i);
    expect(playful.optimizedPrompt).toMatch(/muted colour/);
  });

  it('warns BRAND_WORD_AVOIDED, keeps the user’s word, and never adds an avoided word itself', () => {
    const r = run({ originalPrompt: 'a cheap-looking serum shot', brand: LUXE });
    expect(r.optimizedPrompt.startsWith('A cheap-looking serum shot.')).toBe(true);
    expect(r.warnings).toContainEqual(
      expect.objectContaining({ code: 'BRAND_WORD_AVOIDED', severity: 'warning', field: 'originalPrompt' }),
    );
    expect(r.warnings.find((w) => w.code === 'BRAND_WORD_AVOIDED')?.message).toContain('"cheap"');
    const own = run({
      originalPrompt: 'our serum',
      brand: { ...LUXE, wordsToAvoid: ['marble', 'editorial', 'elegant'] },
    });
    expect(own.optimizedPrompt).not.toMatch(/marble|editorial|elegant/i);
    expect(codes(own)).not.toContain('BRAND_WORD_AVOIDED');
  });

  it('presents the product marketplace-ready for a partner, and adds nothing for default', () => {
    for (const partner of ['partner-1', 'partner-2', 'partner-3'] as const) {
      expect(run({ partner }).optimizedPrompt).toMatch(
        /Marketplace-ready presentation: the whole product in frame and unobstructed, with clear space around it and no added text, badges or watermarks\./,
      );
    }
    expect(run().optimizedPrompt).not.toMatch(/marketplace|watermark/i);
    // The user's own "no text" agrees with it; a request for text drops it.
    expect(run({ originalPrompt: 'serum, no text', partner: 'partner-1' }).optimizedPrompt).toMatch(/no added text/);
    expect(run({ originalPrompt: 'serum with the word SALE', partner: 'partner-1' }).optimizedPrompt).toMatch(
      /Marketplace-ready presentation: the whole product in frame and unobstructed, with clear space around it\./,
    );
  });
});

describe('local scene enhancer: aspect ratio', () => {
  it.each([
    ['a vertical poster of the serum', '16:9', true],
    ['for an Instagram story', '4:3', true],
    ['for our TikTok', '1:1', true],
    ['a tall format ad', '3:2', true],
    ['in portrait orientation', '21:9', true],
    ['a panoramic banner', '9:16', true],
    ['a wide banner', '2:3', true],
    ['landscape format please', '3:4', true],
    ['a square post', '4:3', true],
    ['make it 16:9', '9:16', true],
    ['make it 16:9', '21:9', true],
    ['make it 16:9', '16:9', false],
    ['a vertical poster', '9:16', false],
    ['a panoramic banner', '21:9', false],
    ['a square post', '1:1', false],
    ['a tall glass of iced coffee', '16:9', false],
    ['a square bottle on a town square', '16:9', false],
    ['portrait of a model holding the serum', '16:9', false],
    ['a mountain landscape behind the tent', '9:16', false],
    ['vertical stripes on the wall', '16:9', false],
    ['tell the story of our brand', '16:9', false],
    ['open at 10:30 every day', '1:1', false],
    ['a wide-angle shot', '9:16', false],
  ] as const)('"%s" with %s → mismatch %s', (prompt, aspectRatio, mismatch) => {
    const r = run({ originalPrompt: prompt, aspectRatio });
    const w = r.warnings.filter((x) => x.code === 'HARDSPEC_ASPECT_MISMATCH');
    expect(w.length).toBe(mismatch ? 1 : 0);
    if (mismatch) expect(w[0]).toMatchObject({ severity: 'warning', field: 'aspectRatio' });
  });

  it('warns nothing without an aspect ratio, and follows the ratio in the composition', () => {
    expect(codes(run({ originalPrompt: 'a vertical poster' }))).not.toContain('HARDSPEC_ASPECT_MISMATCH');
    expect(run({ aspectRatio: '9:16' }).optimizedPrompt).toMatch(/Tall vertical composition/);
    expect(run({ aspectRatio: '3:4' }).optimizedPrompt).toMatch(/Vertical composition/);
    expect(run({ aspectRatio: '1:1' }).optimizedPrompt).toMatch(/Balanced square composition/);
    expect(run({ aspectRatio: '16:9' }).optimizedPrompt).toMatch(/Wide composition/);
    expect(run({ aspectRatio: '21:9' }).optimizedPrompt).toMatch(/Panoramic composition/);
    expect(run({ aspectRatio: '4:3' }).optimizedPrompt).toMatch(/Horizontal composition/);
    expect(run({ originalPrompt: 'a close-up of the serum', aspectRatio: '2:3' }).optimizedPrompt).toMatch(
      /Tight vertical framing/,
    );
    expect(requestedShapes('an instagram story, 9:16')).toEqual([
      { shape: 'portrait', words: '9:16', ratio: '9:16' },
      { shape: 'portrait', words: 'instagram story' },
    ]);
  });
});

describe('local scene enhancer: bounds, truncation, theme, determinism', () => {
  it('leaves out additions (never the prompt) when they do not fit: PROMPT_TRUNCATED info', () => {
    const prompt = `${'a serum on a shelf with lots of detail '.repeat(60)}end`.slice(0, 2300);
    const r = run({ originalPrompt: prompt, brand: LUXE, partner: 'partner-1', aspectRatio: '1:1' });
    expect(r.optimizedPrompt.length).toBeLessThanOrEqual(SCENE_PROMPT_MAX);
    expect(r.optimizedPrompt.startsWith(prompt[0]!.toUpperCase() + prompt.slice(1).trimEnd())).toBe(true);
    expect(r.optimizedPrompt).toMatch(/Feature the vitamin C/); // the products stay
    expect(r.warnings).toContainEqual(expect.objectContaining({ code: 'PROMPT_TRUNCATED', severity: 'info' }));
    expect(codes(run())).not.toContain('PROMPT_TRUNCATED');
  });

  it('cuts an over-long prompt at a word boundary: PROMPT_TRUNCATED warning', () => {
    const r = run({ originalPrompt: 'serum '.repeat(600) });
    expect(r.optimizedPrompt.length).toBeLessThanOrEqual(SCENE_PROMPT_MAX);
    expect(r.optimizedPrompt.endsWith('serum.')).toBe(true);
    expect(r.warnings).toContainEqual(expect.objectContaining({ code: 'PROMPT_TRUNCATED', severity: 'warning' }));
  });

  it.each([
    [{ originalPrompt: 'our serum on marble, morning light' }, 'Refined Morning Marble'],
    // A time of day stays whole: never "Golden Concrete at Hour".
    [{ originalPrompt: 'The red cap on a concrete ledge at golden hour' }, 'Refined Concrete at Golden Hour'],
    [{ originalPrompt: 'golden hour beach picnic, warm tones', brand: undefined }, 'Warm Beach Picnic at Golden Hour'],
    [{ originalPrompt: 'vintage leather and brass workshop scene' }, 'Vintage Workshop'],
    [{ originalPrompt: 'cozy mediterranean breakfast at sunset' }, 'Cozy Mediterranean Breakfast at Sunset'],
    [{ originalPrompt: 'our serum in a sunlit kitchen' }, 'Sunlit Kitchen'],
    [{ originalPrompt: 'our serum' }, 'Refined Marble'],
    [{ originalPrompt: 'our serum', brand: undefined }, 'Soft Studio'],
    [{ originalPrompt: 'floating above a blue gradient' }, 'Refined Blue Gradient'],
    [
      {
        originalPrompt: 'with our product',
        environment: { description: 'A misty pine forest trail', tags: [], colors: [] },
      },
      'Misty Forest',
    ],
  ] as const)('themes %j as "%s"', (over, theme) => {
    expect(run({ brand: LUXE, ...(over as Partial<SceneEnhancementInput>) }).theme).toBe(theme);
  });

  it('is deterministic', async () => {
    const i = input({ brand: { ...LUXE, imageryStyle: ['warm'] }, aspectRatio: '4:3', partner: 'partner-2' });
    const a = await createLocalSceneEnhancer().enhance(i);
    const b = await createLocalSceneEnhancer().enhance(structuredClone(i));
    expect(a).toEqual(b);
    expect(a.engine).toBe('local');
  });

  it('gives a prompt of 1..2500 characters and a theme of at most 500 for any input (property)', () => {
    const hex = fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
      .map(([r, g, b]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`);
    const text = (max: number) =>
      fc.oneof(
        fc.string({ minLength: 1, maxLength: max }),
        fc.string({ minLength: 1, maxLength: max, unit: 'binary' }),
      );
    const arb = fc.record({
      originalPrompt: fc.oneof(
        text(SCENE_PROMPT_MAX),
        fc
          .array(
            fc.constantFrom('vertical', 'marble', 'no', 'props', '#ff0000', 'night', 'cheap', 'at', 'sunset', ' '),
            {
              minLength: 1,
              maxLength: 400,
            },
          )
          .map((ws) => ws.join(' ').slice(0, SCENE_PROMPT_MAX) || 'x'),
      ),
      aspectRatio: fc.option(fc.constantFrom(...SCENE_ASPECT_RATIOS), { nil: undefined }),
      products: fc.array(
        fc.record({
          description: fc.option(text(3000), { nil: undefined }),
          tags: fc.array(text(50), { maxLength: 20 }),
          colors: fc.array(fc.constantFrom('red', 'light-blue', 'white', 'xx'), { maxLength: 5 }),
          fileName: fc.option(text(300), { nil: undefined }),
        }),
        { maxLength: 5 },
      ),
      environment: fc.option(
        fc.record({
          description: fc.option(text(3000), { nil: undefined }),
          tags: fc.array(text(40)),
          colors: fc.array(text(20)),
        }),
        { nil: undefined },
      ),
      brand: fc.option(
        fc.record({
          name: text(100),
          tone: fc.array(
            fc.constantFrom(
              'Luxurious',
              'Playful',
              'Professional',
              'Casual',
              'Friendly',
              'Authoritative',
              'Innovative',
              'Traditional',
              'Weird',
            ),
          ),
          palette: fc.array(
            fc.record({
              hex,
              name: fc.option(text(60), { nil: undefined }),
              role: fc.option(fc.constantFrom('primary', 'background', 'text', 'accent'), { nil: undefined }),
            }),
            { maxLength: 12 },
          ),
          imageryStyle: fc.array(text(40), { maxLength: 12 }),
          wordsToAvoid: fc.array(text(40), { maxLength: 20 }),
        }),
        { nil: undefined },
      ),
      partner: fc.constantFrom(...SCENE_PARTNERS),
    });
    fc.assert(
      fc.property(arb, (i) => {
        const r = enhanceScene(i as SceneEnhancementInput);
        expect(r.optimizedPrompt.length).toBeGreaterThanOrEqual(1);
        expect(r.optimizedPrompt.length).toBeLessThanOrEqual(SCENE_PROMPT_MAX);
        expect(r.theme.length).toBeGreaterThanOrEqual(1);
        expect(r.theme.length).toBeLessThanOrEqual(SCENE_THEME_MAX);
        expect(r.optimizedPrompt).toBe(r.optimizedPrompt.trim());
        for (const w of r.warnings) expect(SCENE_WARNING_CODES).toContain(w.code);
        // No hex code of ours: any left is the user's own text that is not a colour code.
        const palette = (i.brand?.palette ?? []).map((e) => e.hex.toLowerCase());
        for (const h of palette) {
          if (!i.originalPrompt.toLowerCase().includes(h) && !JSON.stringify(i.products).toLowerCase().includes(h)) {
            expect(r.optimizedPrompt.toLowerCase()).not.toContain(h);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps proper names as written after "the"', () => {
    expect(midSentence('Vitamin C serum')).toBe('vitamin C serum');
    expect(midSentence('iPhone case')).toBe('iPhone case');
    expect(midSentence('Nike Air Max')).toBe('Nike Air Max');
  });
});

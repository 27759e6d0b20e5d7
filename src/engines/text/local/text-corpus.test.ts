import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLOR_NAMES } from '../../../adapters/media/colors.ts';
import { analyzeImage } from '../../../adapters/media/image.ts';
import type { SceneAspectRatio, SceneBrandContext, SceneEnhancement, SceneProductContext } from '../scene-enhancer.ts';
import type { VideoEnhancement } from '../video-enhancer.ts';
import { enhanceScene } from './scene-enhancer.local.ts';
import { enhanceVideo } from './video-enhancer.local.ts';

/**
 * The text corpus: the 23 fixture products (shared/fixtures/product-images) × 10 prompts, alone
 * and in pairs, through the local scene enhancer (prompt and theme) and the local video enhancer
 * (the product as the start frame). Each product is what the module gives an enhancer: its file
 * name, and the tags and colours the media analyzer reads off the picture (no description: the
 * file name has to carry it). Every output is checked against grammar rules a copywriter would
 * state; the counts per rule are in the failure message.
 */

const FIXTURES = fileURLToPath(new URL('../../../../../shared/fixtures/product-images/', import.meta.url));
const COLOUR_WORDS = new Set<string>(COLOR_NAMES);

/** The kind of product each fixture shows, by hand (the ground truth the hero rules are judged on). */
function kindOfFixture(fileName: string): string {
  const n = fileName.toLowerCase();
  if (/cap|hat/.test(n)) return 'cap';
  if (/hoodie/.test(n)) return 'hoodie';
  if (/tee|tshirt/.test(n)) return 'tee';
  if (/mug/.test(n)) return 'mug';
  if (/tote/.test(n)) return 'bag';
  if (/bottle/.test(n)) return 'bottle';
  if (/notebook/.test(n)) return 'notebook';
  if (/sticker/.test(n)) return 'sticker';
  throw new Error(`no kind for ${fileName}`);
}
/** Fixtures that show several objects, and the plural noun a copywriter refers back to them with. */
const MANY: Record<string, { singular: RegExp }> = {
  'solidus_mug_set.png': { singular: /\bthe (?:[\p{L}-]+ )*mug\b(?![\s-]*set)/iu },
  'solidus_bottles_1.png': { singular: /\bthe (?:[\p{L}-]+ )*bottle\b/iu },
  'solidus_bottles_2.png': { singular: /\bthe (?:[\p{L}-]+ )*bottle\b/iu },
};

const BRANDS: Record<string, SceneBrandContext> = {
  luxe: {
    name: 'Maison',
    tone: ['Luxurious'],
    palette: [
      { hex: '#1b2a4a', role: 'primary' },
      { hex: '#d4af37', role: 'accent' },
    ],
    imageryStyle: ['warm'],
    wordsToAvoid: [],
  },
  playful: {
    name: 'Pop',
    tone: ['Playful'],
    palette: [{ hex: '#ff5a5f', role: 'primary' }],
    imageryStyle: ['bright'],
    wordsToAvoid: [],
  },
  trad: {
    name: 'Oak & Co',
    tone: ['Traditional', 'Friendly'],
    palette: [
      { hex: '#8b5a2b', role: 'primary' },
      { hex: '#f5efe6', role: 'background' },
    ],
    imageryStyle: [],
    wordsToAvoid: [],
  },
};

interface CorpusPrompt {
  prompt: string;
  /** The kinds of product the prompt names as its subject or hero (by hand). */
  heroes: string[];
  brand?: string;
  aspectRatio?: SceneAspectRatio;
}

const PROMPTS: CorpusPrompt[] = [
  { prompt: 'The red cap on a concrete ledge at golden hour', heroes: ['cap'], brand: 'luxe', aspectRatio: '3:4' },
  {
    prompt: 'our mug set on a rustic wooden table, cozy morning breakfast',
    heroes: ['mug'],
    brand: 'trad',
    aspectRatio: '1:1',
  },
  {
    prompt: 'The red cap and the black hoodie as the heroes, street style',
    heroes: ['cap', 'hoodie'],
    aspectRatio: '9:16',
  },
  { prompt: 'minimal flat lay on white marble with soft shadows', heroes: [], brand: 'luxe' },
  {
    prompt: 'golden hour beach picnic, warm tones, a linen blanket',
    heroes: [],
    brand: 'playful',
    aspectRatio: '16:9',
  },
  {
    prompt: 'Hero shot of the notebook, with the mug as the hero too, on a desk',
    heroes: ['notebook', 'mug'],
    aspectRatio: '3:2',
  },
  { prompt: 'Two bottles on wet slate, moody dark evening', heroes: ['bottle'], brand: 'luxe', aspectRatio: '2:3' },
  { prompt: 'bright pastel pink backdrop, playful summer vibe (no props)', heroes: [], brand: 'playful' },
  {
    prompt: 'matte black tee on brushed concrete, #1b2a4a accents, the word "Drop 02" in the corner',
    heroes: ['tee'],
    aspectRatio: '4:3',
  },
  {
    prompt: 'vintage leather and brass workshop scene in warm tungsten light, close-up',
    heroes: [],
    brand: 'trad',
    aspectRatio: '21:9',
  },
];

/** Words that do not take a capital in a title. */
const SMALL = new Set(['a', 'an', 'and', 'at', 'by', 'for', 'in', 'of', 'on', 'the', 'with', 'to', 'or']);
const NOUNS = 'cap|hat|hoodie|tee|t-shirt|tshirt|mug|mugs|tote|bottle|bottles|notebook|sticker';
const COLOURS = 'red|black|gray|grey|white|blue|navy|maroon|brown|green|pink|beige';

type Violations = Record<string, string[]>;
const add = (v: Violations, rule: string, where: string) => {
  v[rule] ??= [];
  v[rule].push(where);
};

/** Rules every text output obeys (the user's own words excluded where they could break them). */
function checkText(v: Violations, text: string, added: string, where: string) {
  if (/(?<![\p{L}])(the|a|an)\s+(the|a|an)(?![\p{L}])/iu.test(text)) add(v, 'doubled article', where);
  const doubled = /(?<![\p{L}])([\p{L}]+)\s+\1(?![\p{L}])/iu.exec(added);
  if (doubled) add(v, `doubled word`, `${where}: "${doubled[0]}"`);
  const opens = (text.match(/\(/g) ?? []).length;
  const closes = (text.match(/\)/g) ?? []).length;
  if (opens !== closes || /\(\s*\)|\(\s|\s\)/.test(text)) add(v, 'unbalanced parenthesis', where);
  if ((text.match(/"/g) ?? []).length % 2 || (text.match(/“/g) ?? []).length !== (text.match(/”/g) ?? []).length)
    add(v, 'unbalanced quotes', where);
  if (/ {2}|\s[.,;:]|\.\.(?!\.)|[,;:]\s*\.|\.\s+\.|^\s|\s$/.test(text)) add(v, 'spacing or empty sentence', where);
  // Our own sentences start with a capital and use the right indefinite article.
  if (/[.!?]\s+\p{Ll}/u.test(added)) add(v, 'sentence without a capital', where);
  if (/(?<![\p{L}])a\s+(?:[aeio]|u(?!ni|s[eu]))/iu.test(added) || /(?<![\p{L}])an\s+(?![aeiouh])\p{L}/iu.test(added))
    add(v, 'a/an', where);
  // Colour words go before the noun ("the red cap", not "the cap red").
  const after = new RegExp(`(?<![\\p{L}])(?:${NOUNS})\\s+(?:${COLOURS})(?![\\p{L}])`, 'iu').exec(added);
  if (after) add(v, 'colour after the noun', `${where}: "${after[0]}"`);
}

function checkTheme(v: Violations, theme: string, where: string) {
  const words = theme.split(' ');
  const bad =
    /(?<![\p{L}])at\s+(?:Hour|Light|Time)(?![\p{L}])/u.test(theme) ||
    /(?:^|\s)(?:at|of|and|in|on|with|the|a|an)$/i.test(theme) ||
    words.some((w, i) => i > 0 && !SMALL.has(w) && !/^[\p{Lu}\p{N}]/u.test(w)) ||
    words.some((w, i) => !SMALL.has(w.toLowerCase()) && words.indexOf(w) !== i);
  if (bad) add(v, 'theme: broken title', `${where}: "${theme}"`);
}

interface Product {
  fileName: string;
  kind: string;
  context: SceneProductContext;
}

let products: Product[] = [];

beforeAll(async () => {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.png'))
    .sort();
  products = await Promise.all(
    files.map(async (fileName) => {
      const a = await analyzeImage(`${FIXTURES}${fileName}`, { thumbnail: false });
      const tags = a.autoGeneratedTags;
      return {
        fileName,
        kind: kindOfFixture(fileName),
        context: { tags, colors: tags.filter((t) => COLOUR_WORDS.has(t)), fileName },
      };
    }),
  );
});

/** The sets of products each prompt runs with: every fixture alone, and a few pairs. */
function productSets(): Product[][] {
  const by = (name: string) => products.find((p) => p.fileName === name)!;
  return [
    ...products.map((p) => [p]),
    [by('solidus_mug_set.png'), by('solidus_notebook.png')],
    [by('solidus_cap_red_1.png'), by('solidus_hoodie_black_1.png')],
    [by('solidus_tote.png'), by('solidus_bottles_1.png')],
  ];
}

/** What the enhancer added after the user's text. */
const addedOf = (text: string, prompt: string) => text.slice(Math.min(text.length, prompt.length + 1));

function checkHeroes(
  v: Violations,
  p: CorpusPrompt,
  set: Product[],
  added: string,
  warnings: { code: string }[],
  where: string,
) {
  const kinds = set.map((x) => x.kind);
  const others = p.heroes.filter((k) => !kinds.includes(k));
  const warned = warnings.some((w) => w.code === 'MULTIPLE_HEROES');
  if (others.length > 0 && !warned) add(v, 'two heroes: no warning', where);
  if (others.length === 0 && warned) add(v, 'two heroes: warning without a second hero', where);
  // One hero sentence: "as the hero(es)" once at most, and a second named product stays secondary.
  if ((added.match(/\bas the heroe?s?\b/gi) ?? []).length > 1) add(v, 'two heroes: hero named twice', where);
  if (others.length > 0 && !/secondary/i.test(added)) add(v, 'two heroes: other product not kept secondary', where);
}

function checkPlural(v: Violations, set: Product[], added: string, where: string) {
  if (set.length !== 1) return;
  const many = MANY[set[0]!.fileName];
  if (many) {
    if (many.singular.test(added)) add(v, 'plural: a set named in the singular', where);
    if (/\bthe product\b|\bshape, (?:label|proportions)\b|\baround it\b/.test(added))
      add(v, 'plural: singular reference to a set', where);
  } else if (/\bthe products\b|\bshapes, labels\b/.test(added)) {
    add(v, 'plural: plural reference to one product', where);
  }
}

describe('text corpus: 23 fixture products × 10 prompts', () => {
  it('the local scene enhancer and its themes read as a copywriter’s', () => {
    const v: Violations = {};
    let runs = 0;
    for (const p of PROMPTS) {
      for (const set of productSets()) {
        const r: SceneEnhancement = enhanceScene({
          originalPrompt: p.prompt,
          products: set.map((x) => x.context),
          partner: runs % 7 === 3 ? 'partner-1' : 'default',
          ...(p.brand ? { brand: BRANDS[p.brand] } : {}),
          ...(p.aspectRatio ? { aspectRatio: p.aspectRatio } : {}),
        });
        runs++;
        const where = `${set.map((x) => x.fileName).join('+')} | ${p.prompt}`;
        const added = addedOf(r.optimizedPrompt, p.prompt);
        checkText(v, r.optimizedPrompt, added, where);
        checkTheme(v, r.theme, where);
        checkHeroes(v, p, set, added, r.warnings, where);
        checkPlural(v, set, added, where);
        for (const w of r.warnings) checkText(v, w.message, w.message, `${where} (warning ${w.code})`);
      }
    }
    expect(runs).toBe(PROMPTS.length * (products.length + 3));
    const counts = Object.fromEntries(Object.entries(v).map(([rule, xs]) => [rule, xs.length]));
    expect(v, JSON.stringify(counts)).toEqual({});
  });

  it('the local video enhancer reads as a copywriter’s (the product as the start frame)', () => {
    const v: Violations = {};
    for (const p of PROMPTS) {
      for (const product of products) {
        const r: VideoEnhancement = enhanceVideo({
          originalPrompt: p.prompt,
          aspectRatio: p.aspectRatio === '9:16' || p.aspectRatio === '2:3' ? '9:16' : '16:9',
          model: 'video-model-7',
          durationSeconds: 8,
          enableAudio: true,
          maxChars: 2500,
          start: product.context,
          intermediate: [],
          referenceImages: [],
          referenceVideos: [],
          ...(p.brand ? { brand: BRANDS[p.brand] } : {}),
        });
        const where = `${product.fileName} | ${p.prompt}`;
        const added = addedOf(r.enhancedPrompt, p.prompt);
        checkText(v, r.enhancedPrompt, added, where);
        const others = p.heroes.filter((k) => k !== product.kind);
        const warned = r.warnings.some((w) => w.code === 'MULTIPLE_HEROES');
        if (others.length > 0 && !warned) add(v, 'two heroes: no warning', where);
        if (others.length === 0 && warned) add(v, 'two heroes: warning without a second hero', where);
        if (others.length > 0 && !/secondary/i.test(added))
          add(v, 'two heroes: other product not kept secondary', where);
        const many = MANY[product.fileName];
        if (many?.singular.test(added)) add(v, 'plural: a set named in the singular', where);
        if (many && /\bshape, proportions\b|\bsettling on it\b/.test(added))
          add(v, 'plural: singular reference to a set', where);
        for (const w of r.warnings) checkText(v, w.message, w.message, `${where} (warning ${w.code})`);
      }
    }
    const counts = Object.fromEntries(Object.entries(v).map(([rule, xs]) => [rule, xs.length]));
    expect(v, JSON.stringify(counts)).toEqual({});
  });
});

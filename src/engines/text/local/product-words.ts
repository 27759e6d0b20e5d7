import { NUMBER_WORDS, PLURAL_FORM_NOUNS, PRODUCT_KINDS, SET_WORDS } from './lexicons.ts';

/**
 * Product nouns for the local enhancers (pure): which kind of product a text names, whether an
 * asset is several objects ("solidus_mug_set.png" is "the mugs", not "the mug"), and which
 * products a prompt makes its subject or hero ("The red cap on a concrete ledge", "the mug as
 * the hero"), so that an enhancement names one hero and no product the prompt contradicts.
 */

/** `s` with the regex special characters escaped. */
export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The plural of a product noun: `mugs`, `glasses`, `diaries`, `tote bags`; plural-form nouns stay. */
export function pluralOf(noun: string): string {
  if (PLURAL_FORM_NOUNS.has(noun.toLowerCase())) return noun;
  const m = /^(.*?)([\p{L}'-]+)$/u.exec(noun);
  if (!m) return noun;
  const [, head, last] = m as unknown as [string, string, string];
  const word = /(?:s|x|z|ch|sh)$/i.test(last)
    ? `${last}es`
    : /[^aeiou]y$/i.test(last)
      ? `${last.slice(0, -1)}ies`
      : `${last}s`;
  return head + word;
}

/** Singular noun (lower case, spaces and hyphens as in the lexicon) → kind. */
const KIND_OF = new Map<string, string>();
/** Any form of a noun as it may be written (`t shirt`, `tshirts`) → its singular. */
const SINGULAR_OF = new Map<string, string>();
const norm = (s: string) => s.toLowerCase().replace(/[\s-]+/g, ' ');
for (const [kind, nouns] of Object.entries(PRODUCT_KINDS)) {
  for (const n of nouns) {
    KIND_OF.set(n, kind);
    SINGULAR_OF.set(norm(n), n);
    SINGULAR_OF.set(norm(pluralOf(n)), n);
  }
}
const NOUN_RE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...SINGULAR_OF.keys()]
    .sort((a, b) => b.length - a.length)
    .map((n) => n.split(' ').map(escapeRe).join('[\\s-]?'))
    .join('|')})(?![\\p{L}\\p{N}])`,
  'giu',
);

export interface NounHit {
  kind: string;
  /** The lexicon's singular (`t-shirt`, `mug`). */
  noun: string;
  /** Written in the plural (`mugs`); plural-form nouns (`headphones`) are not. */
  plural: boolean;
  index: number;
  end: number;
}

/** The product nouns of `text`, in order (longest match at each place). */
export function nounsIn(text: string): NounHit[] {
  const out: NounHit[] = [];
  for (const m of text.matchAll(NOUN_RE)) {
    const written = norm(m[0]);
    const noun = SINGULAR_OF.get(written);
    if (!noun) continue;
    out.push({
      kind: KIND_OF.get(noun)!,
      noun,
      plural: written !== norm(noun) && !PLURAL_FORM_NOUNS.has(noun),
      index: m.index,
      end: m.index + m[0].length,
    });
  }
  return out;
}

/** Words that end a noun phrase's modifiers (prepositions, conjunctions, verbs, determiners). */
const STOP = new Set(
  (
    'a|an|the|our|my|your|their|his|her|its|this|that|these|those|some|any|on|upon|in|inside|at|with|without|by|for|' +
    'from|to|into|onto|over|under|near|beside|behind|beneath|below|above|against|across|along|around|among|between|' +
    'next|of|off|and|or|but|nor|plus|as|is|are|was|were|be|being|been|sits|sit|sitting|stands|stand|standing|lies|' +
    'lying|rests|resting|placed|set|shot|shown|floating|hanging|can|will|should|must|may|while|then|than|so|like|' +
    'no|not|never|please|only|just|very|feature|featuring|hero|heroes'
  ).split('|'),
);
const DETERMINERS = new Set(
  'the|our|my|your|their|this|these|those|a|an|some|new|two|three|four|five|six|several|both|its'.split('|'),
);
const DEFINITE = new Set(['the', 'our', 'my', 'your', 'their', 'this', 'these', 'those', 'both', 'its']);
const SET_RE = new RegExp(`^(?:${SET_WORDS.map(escapeRe).join('|')})$`, 'i');
const NUMBER_RE = new RegExp(`^(?:${NUMBER_WORDS.map(escapeRe).join('|')})$`, 'i');

/** Colour words a prompt or a name may use for a product, by family (a "maroon" cap is a red one). */
const COLOUR_FAMILIES: readonly (readonly string[])[] = [
  ['red', 'maroon', 'burgundy', 'crimson', 'scarlet', 'wine', 'cherry', 'ruby', 'oxblood'],
  ['black', 'charcoal', 'jet', 'onyx', 'dark'],
  ['gray', 'grey', 'silver', 'slate', 'heather', 'ash', 'graphite', 'charcoal'],
  ['white', 'cream', 'ivory', 'off-white', 'ecru', 'bone', 'natural'],
  ['blue', 'navy', 'light-blue', 'light blue', 'cobalt', 'sky', 'indigo', 'denim', 'teal', 'cyan'],
  ['green', 'olive', 'sage', 'khaki', 'forest', 'mint', 'emerald'],
  ['brown', 'tan', 'beige', 'camel', 'chocolate', 'mocha', 'sand', 'khaki'],
  ['yellow', 'mustard', 'gold', 'golden', 'lemon'],
  ['orange', 'rust', 'terracotta', 'coral', 'peach'],
  ['pink', 'magenta', 'fuchsia', 'blush', 'rose'],
  ['purple', 'violet', 'lilac', 'lavender', 'plum', 'mauve'],
];
/** Words that are colours whatever they stand next to ("lemon", "sand", "rose" often are not). */
const COLOUR_WORD = new Set(
  (
    'red|maroon|burgundy|crimson|scarlet|black|charcoal|gray|grey|silver|white|cream|ivory|off-white|blue|navy|' +
    'light-blue|teal|cyan|turquoise|green|olive|khaki|sage|brown|tan|beige|yellow|mustard|gold|orange|terracotta|' +
    'pink|magenta|fuchsia|purple|violet|lilac|lavender|mauve'
  ).split('|'),
);

/** Whether `w` is a plain colour word (`red`, `grey`, `navy`). */
export const isColourWord = (w: string): boolean => COLOUR_WORD.has(w.toLowerCase());

/** Whether two colour words can describe the same thing (the same family). */
function sameColour(a: string, b: string): boolean {
  const x = a.toLowerCase().replace(/-/g, ' ');
  const y = b.toLowerCase().replace(/-/g, ' ');
  if (x === y) return true;
  return COLOUR_FAMILIES.some((f) => {
    const fam = f.map((c) => c.replace(/-/g, ' '));
    return fam.includes(x) && fam.includes(y);
  });
}

/** A file name's words with the colour words before the noun: "solidus cap red" → "red solidus cap". */
export function coloursFirst(words: string): string {
  const ws = words.split(' ').filter(Boolean);
  const colours = ws.filter((w) => isColourWord(w));
  if (colours.length === 0 || colours.length === ws.length) return words;
  const firstOther = ws.findIndex((w) => !isColourWord(w));
  // Already in front: leave it.
  if (ws.slice(0, firstOther).length === colours.length) return words;
  return [...colours, ...ws.filter((w) => !isColourWord(w))].join(' ');
}

/** Spellings a copywriter writes otherwise. */
export function copyNouns(words: string): string {
  return words.replace(/(?<![\p{L}])(?:t[\s-]?shirt|tshirt|tee[\s-]shirt)(s?)(?![\p{L}])/giu, 'T-shirt$1');
}

export interface ProductWords {
  /** Every kind of product the asset's words name (empty: unknown). */
  kinds: Set<string>;
  /** The head noun, singular (`mug`), when the words name one. */
  noun?: string;
  /** Several objects: a set, a pack, a pair, or a plural noun ("mug set", "bottles"). */
  many: boolean;
  /** The colour words of its name and picture. */
  colours: string[];
}

/**
 * What an asset's words say of the product: `name` is what names it (the description's first
 * phrase or the file name's words), `more` the rest (tags, the full description), `colours` its
 * colour names. The head noun is the last product noun before the first preposition of the name.
 */
export function productWords(name: string, more: readonly string[], colours: readonly string[]): ProductWords {
  const low = name.toLowerCase();
  const hits = nounsIn(low);
  const cut = /(?<![\p{L}])(?:in|with|on|of|for|from|featuring|and|by)(?![\p{L}])|[,;:(—–]/iu.exec(low)?.index;
  const head = hits.filter((h) => cut === undefined || h.end <= cut).at(-1) ?? hits[0];
  const kinds = new Set<string>([...hits, ...more.flatMap((t) => nounsIn(t.toLowerCase()))].map((h) => h.kind));
  let many = false;
  if (head) {
    const after = low.slice(head.end).match(/^[\s-]+([\p{L}-]+)/u)?.[1];
    const before = low
      .slice(0, head.index)
      .split(/[^\p{L}\p{N}-]+/u)
      .filter(Boolean);
    many =
      head.plural ||
      (!!after && SET_RE.test(after)) ||
      /(?<![\p{L}])(?:set|pack|pair|box|bundle|trio|duo|kit)\s+of(?![\p{L}])/u.test(low.slice(0, head.index)) ||
      before.slice(-3).some((w) => NUMBER_RE.test(w));
  }
  const nameColours = low.split(/[^\p{L}-]+/u).filter((w) => isColourWord(w));
  return {
    kinds,
    ...(head ? { noun: head.noun } : {}),
    many,
    colours: [...new Set([...nameColours, ...colours.map((c) => c.toLowerCase())])],
  };
}

/** A product a prompt names as its subject or hero. */
export interface PromptHero {
  kind: string;
  /** As the prompt writes it, read after "the": "the red cap", "the two bottles", "the mug set". */
  phrase: string;
  /** The colour words the prompt gives it. */
  colours: string[];
  /** Plural to the grammar ("the two bottles stay"; "the mug set stays"). */
  plural: boolean;
  /** Named as the hero in so many words ("as the hero", "hero shot of", "featuring"). */
  explicit: boolean;
}

/** Spans of negated words ("no mugs", "without the cap"), blanked to spaces of the same length. */
const NEGATED =
  /(?<![\p{L}])(?:no|not|without|never|minus|except|excluding)\s+(?:(?:the|any|a|an|our)\s+)?[\p{L}'-]+(?:\s+[\p{L}'-]+)?/giu;
/** What an opening says before its subject: "Hero shot of", "A close-up photo of", "Flat lay featuring". */
const LEAD =
  /^\s*(?:(?:a|an|the)\s+)?(?:[\p{L}-]+\s+){0,2}?(?:photo|photograph|picture|image|shot|render|portrait|ad|advert|banner|video|clip|close[\s-]?up|closeup|flat[\s-]?lay|still[\s-]life|composition|scene|campaign|visual)\s+(?:of|for|featuring|showing|with)\s+/iu;
/** "as the hero", "is the hero", "are the heroes", "as our main hero". */
const AS_HERO =
  /(?<![\p{L}])(?:as|is|are|be|becomes?)\s+(?:(?:the|our|a|its|their)\s+)?(?:(?:main|sole|only|clear|real|true|star|one|single)\s+)?heroe?s?(?![\p{L}])/giu;
/** "hero shot of", "hero:", "featuring", "spotlight on". */
const HERO_BEFORE =
  /(?<![\p{L}])(?:hero(?:\s+(?:shot|image|photo|product|item|piece))?\s*(?:of\s|:)|featuring\s|features\s|feature\s|showcasing\s|showcase\s|spotlighting\s|spotlight\s+on\s|starring\s)\s*/giu;

interface NounPhrase {
  hit: NounHit;
  phrase: string;
  colours: string[];
  plural: boolean;
  definite: boolean;
  end: number;
}

/** The noun phrase starting at `from` (determiners, up to five modifiers, the product noun last). */
function nounPhraseAt(text: string, low: string, from: number): NounPhrase | undefined {
  const re = /[\p{L}\p{N}'’&-]+|[^\s\p{L}\p{N}]/gu;
  re.lastIndex = from;
  const tokens: { w: string; i: number }[] = [];
  for (let m = re.exec(low); m && tokens.length < 12; m = re.exec(low)) tokens.push({ w: m[0], i: m.index });
  let k = 0;
  let definite = false;
  let counted = false;
  while (k < tokens.length && k < 4) {
    const w = tokens[k]!.w;
    if (DETERMINERS.has(w)) {
      if (DEFINITE.has(w)) definite = true;
      if (NUMBER_RE.test(w)) counted = true;
      k++;
    } else if (SET_RE.test(w) && tokens[k + 1]?.w === 'of') {
      counted = true;
      k += 2;
    } else break;
  }
  const start = k;
  while (k < tokens.length && k - start < 6 && /^[\p{L}\p{N}'’-]+$/u.test(tokens[k]!.w) && !STOP.has(tokens[k]!.w)) {
    k++;
  }
  if (k === start) return undefined;
  const chunkStart = tokens[start]!.i;
  const chunkEnd = tokens[k - 1]!.i + tokens[k - 1]!.w.length;
  const hits = nounsIn(low.slice(chunkStart, chunkEnd));
  const last = hits.at(-1);
  if (!last) return undefined;
  const hit = { ...last, index: last.index + chunkStart, end: last.end + chunkStart };
  // A set word right after the noun belongs to the phrase ("mug set").
  const setAfter = low.slice(hit.end).match(/^[\s-]+([\p{L}-]+)/u);
  const end = setAfter && SET_RE.test(setAfter[1]!) ? hit.end + setAfter[0].length : hit.end;
  const words = text
    .slice(tokens[0]!.i, end)
    .replace(/^(?:the|our|my|your|their|this|these|those|a|an|some|its)\s+/i, '');
  const colours = low
    .slice(chunkStart, hit.index)
    .split(/[^\p{L}-]+/u)
    .filter((w) => isColourWord(w));
  const [first, second] = words.split(/\s+/);
  const named = !first || !/^\p{Lu}[\p{Ll}'-]*$/u.test(first) || (second && /^\p{Lu}\p{Ll}/u.test(second));
  return {
    hit,
    phrase: `the ${named ? words : first[0]!.toLowerCase() + words.slice(1)}`,
    colours,
    // "the mug set stays", "the two bottles stay": a set is one thing to the grammar.
    plural: (hit.plural || counted) && end === hit.end && !/^(?:set|pack|pair|box|bundle|kit)\b/i.test(words),
    definite,
    end,
  };
}

/**
 * The products a prompt names as its subject (the noun phrase it opens a sentence with, after a
 * lead such as "Hero shot of", and those joined to it by "and") or as its hero ("the mug as the
 * hero", "featuring the tote"), one per kind, in order. Negated ones ("no mugs") are not counted;
 * props ("with a notebook", "next to a mug") are not subjects.
 */
export function promptHeroes(written: string): PromptHero[] {
  const lower = written.toLowerCase();
  // The phrases are cut from the text as written when lower-casing keeps every index.
  const text = lower.length === written.length ? written : lower;
  const low = lower.replace(NEGATED, (m) => ' '.repeat(m.length));
  const found: (PromptHero & { at: number })[] = [];
  const push = (np: NounPhrase, explicit: boolean) => {
    const had = found.find((h) => h.kind === np.hit.kind);
    if (had) {
      had.explicit ||= explicit;
      return;
    }
    found.push({
      kind: np.hit.kind,
      phrase: np.phrase,
      colours: np.colours,
      plural: np.plural,
      explicit,
      at: np.hit.index,
    });
  };
  // Subjects: each sentence's opening noun phrase and the ones "and" joins to it.
  for (const s of low.matchAll(/[^.!?;\n]+/g)) {
    let at = s.index;
    const lead = LEAD.exec(s[0]);
    if (lead) at += lead[0].length;
    else at += s[0].length - s[0].trimStart().length;
    let np = nounPhraseAt(text, low, at);
    let joined = 0;
    while (np && joined < 4) {
      push(np, false);
      const next = /^\s*(?:,\s*)?(?:and|&|plus)\s+|^\s*,\s*(?=(?:the|our|my)\s)/.exec(low.slice(np.end));
      if (!next) break;
      const more = nounPhraseAt(text, low, np.end + next[0].length);
      if (!more || (!more.definite && np.definite)) break;
      np = more;
      joined++;
    }
  }
  // Heroes named in so many words.
  for (const m of low.matchAll(AS_HERO)) {
    const clauseStart = Math.max(
      low.lastIndexOf(',', m.index),
      low.lastIndexOf('.', m.index),
      low.lastIndexOf(';', m.index),
      low.lastIndexOf(':', m.index),
    );
    const window = low.slice(clauseStart + 1, m.index);
    const hit = nounsIn(window).at(-1);
    if (!hit) continue;
    // The phrase from the hit's own opening (its determiner and modifiers): the longest that ends on it.
    const at = clauseStart + 1 + hit.index;
    const starts = [...window.slice(0, hit.index).matchAll(/[\p{L}\p{N}'’-]+/gu)]
      .slice(-4)
      .map((w) => clauseStart + 1 + w.index);
    const np = [...starts, at].map((from) => nounPhraseAt(text, low, from)).find((x) => x?.hit.index === at);
    if (np) push(np, true);
  }
  for (const m of low.matchAll(HERO_BEFORE)) {
    const np = nounPhraseAt(text, low, m.index + m[0].length);
    if (np) push(np, true);
  }
  return found.sort((a, b) => a.at - b.at).map(({ at: _at, ...h }) => h);
}

/**
 * The heroes a prompt names that none of the products is (by kind), when every product's kind is
 * known: the scene keeps the products as the heroes and these secondary. Empty without products.
 */
export function otherHeroes(heroes: readonly PromptHero[], products: readonly ProductWords[]): PromptHero[] {
  if (products.length === 0 || products.some((p) => p.kinds.size === 0)) return [];
  return heroes.filter((h) => !products.some((p) => p.kinds.has(h.kind)));
}

/**
 * Whether the prompt gives a product of this kind colours the product does not have ("the red
 * cap" for a black one): the enhancement then names the product without colours rather than
 * contradict the prompt (the picture keeps its own colours).
 */
export function coloursContradict(heroes: readonly PromptHero[], product: ProductWords): boolean {
  return heroes.some(
    (h) =>
      product.kinds.has(h.kind) &&
      h.colours.length > 0 &&
      product.colours.length > 0 &&
      !h.colours.some((c) => product.colours.some((pc) => sameColour(c, pc))),
  );
}

/** How the text refers back to a product after naming it: "the product", "the mugs" (a set). */
export function referenceOf(p: ProductWords | undefined, count: number): { the: string; it: string; plural: boolean } {
  if (count > 1) return { the: 'the products', it: 'them', plural: true };
  if (p?.many) return { the: p.noun ? `the ${copyNouns(pluralOf(p.noun))}` : 'the products', it: 'them', plural: true };
  return { the: 'the product', it: 'it', plural: false };
}

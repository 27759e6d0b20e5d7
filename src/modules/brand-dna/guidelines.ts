import type { BlockKind, TextBlock } from '../../engines/text/text-engine.ts';
import { parseHex, type Rgb } from '../../adapters/media/colors.ts';
import { cmykToRgb, toHex } from './color.ts';
import type { ColorRoleHint } from './css-analysis.ts';

/**
 * Brand guidelines as text (a PDF's or a Word document's): explicit colour specifications (HEX,
 * RGB, CMYK, Pantone), named typefaces with weights and fallbacks, and the sections that state a
 * mission, values, tone of voice, tagline, audience and words to use or avoid. Pure.
 */
export interface ColorSpec {
  hex: string;
  /** The swatch's label as written (`Primary Blue`). */
  name?: string;
  roleHint?: ColorRoleHint;
  pantone?: string;
  cmyk?: [number, number, number, number];
  /** Which notation gave the hex: hex > rgb > cmyk > pantone. */
  from: 'hex' | 'rgb' | 'cmyk' | 'pantone';
  /** Order in the document (0 first). */
  index: number;
}

export interface FontSpec {
  family: string;
  role: 'heading' | 'body' | 'any';
  weights: number[];
  fallbacks: string[];
}

/**
 * Pantone solid-coated colours with their published sRGB approximations, for guidelines that give
 * only a Pantone reference. Not a colour-managed conversion; HEX, RGB or CMYK on the same swatch win.
 */
export const PANTONE_SRGB: Record<string, string> = {
  'PROCESS BLUE C': '#0085ca',
  'REFLEX BLUE C': '#001489',
  '072 C': '#10069f',
  '286 C': '#0032a0',
  '293 C': '#003da5',
  '300 C': '#005eb8',
  '2728 C': '#0047bb',
  '2945 C': '#004c97',
  '7455 C': '#3a5dae',
  '7462 C': '#00558c',
  '320 C': '#009ca6',
  '185 C': '#e4002b',
  '186 C': '#c8102e',
  '200 C': '#ba0c2f',
  '201 C': '#9d2235',
  '032 C': '#ef3340',
  '485 C': '#da291c',
  '1795 C': '#d22630',
  'WARM RED C': '#f9423a',
  '021 C': '#fe5000',
  '151 C': '#ff8200',
  '158 C': '#e87722',
  '1375 C': '#ff9e1b',
  '7417 C': '#e04e39',
  '116 C': '#ffcd00',
  '109 C': '#ffd100',
  '7406 C': '#f1c400',
  '7548 C': '#ffc600',
  'YELLOW C': '#fedd00',
  '355 C': '#009639',
  '348 C': '#00843d',
  '361 C': '#43b02a',
  '368 C': '#78be20',
  '3435 C': '#154734',
  'GREEN C': '#00ab84',
  '2612 C': '#6d2077',
  '2685 C': '#330072',
  'PURPLE C': '#bb29bb',
  'RHODAMINE RED C': '#e10098',
  'BLACK C': '#2d2926',
  'BLACK 6 C': '#101820',
  'COOL GRAY 1 C': '#d9d9d6',
  'COOL GRAY 7 C': '#97999b',
  'COOL GRAY 11 C': '#53565a',
};

type Mention =
  | { kind: 'hex' | 'rgb'; at: number; end: number; rgb: Rgb }
  | { kind: 'cmyk'; at: number; end: number; cmyk: [number, number, number, number] }
  | { kind: 'pantone'; at: number; end: number; code: string };

const byte = (s: string) => {
  const n = Number(s);
  return Number.isInteger(n) && n >= 0 && n <= 255 ? n : undefined;
};
const pct = (s: string) => {
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 && n <= 100 ? n : undefined;
};

function mentions(text: string): Mention[] {
  const out: Mention[] = [];
  for (const m of text.matchAll(/(?:#|\bHEX\b\s*:?\s*#?)([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})(?![0-9A-Za-z])/g)) {
    const rgb = parseHex(m[1]!);
    if (rgb) out.push({ kind: 'hex', at: m.index, end: m.index + m[0].length, rgb });
  }
  const rgbRes = [
    /\bRGB\b\s*:?\s*\(?\s*(\d{1,3})\s*[,/ ]\s*(\d{1,3})\s*[,/ ]\s*(\d{1,3})\s*\)?/gi,
    /\bR\s*:?\s*(\d{1,3})\s*,?\s*G\s*:?\s*(\d{1,3})\s*,?\s*B\s*:?\s*(\d{1,3})\b/g,
  ];
  for (const re of rgbRes) {
    for (const m of text.matchAll(re)) {
      const v = [byte(m[1]!), byte(m[2]!), byte(m[3]!)];
      if (v.every((x) => x !== undefined))
        out.push({ kind: 'rgb', at: m.index, end: m.index + m[0].length, rgb: v as Rgb });
    }
  }
  const cmykRes = [
    /\bCMYK\b\s*:?\s*\(?\s*(\d{1,3})%?\s*[,/ ]\s*(\d{1,3})%?\s*[,/ ]\s*(\d{1,3})%?\s*[,/ ]\s*(\d{1,3})%?\s*\)?/gi,
    /\bC\s*:?\s*(\d{1,3})\s*,?\s*M\s*:?\s*(\d{1,3})\s*,?\s*Y\s*:?\s*(\d{1,3})\s*,?\s*K\s*:?\s*(\d{1,3})\b/g,
  ];
  for (const re of cmykRes) {
    for (const m of text.matchAll(re)) {
      const v = [pct(m[1]!), pct(m[2]!), pct(m[3]!), pct(m[4]!)];
      if (v.every((x) => x !== undefined)) {
        out.push({
          kind: 'cmyk',
          at: m.index,
          end: m.index + m[0].length,
          cmyk: v as [number, number, number, number],
        });
      }
    }
  }
  for (const m of text.matchAll(
    /\b(?:PANTONE|PMS)\b\s*:?\s*((?:\d{3,4}|Process Blue|Reflex Blue|Warm Red|Rhodamine Red|Cool Gr[ae]y \d{1,2}|Black \d|Black|Yellow|Green|Purple)\s?(?:C|U|CP|UP|XGC)?)\b/gi,
  )) {
    out.push({ kind: 'pantone', at: m.index, end: m.index + m[0].length, code: m[1]!.replace(/\s+/g, ' ').trim() });
  }
  // Overlapping matches (an "RGB 0 88 163" also read by the R/G/B pattern): keep the earliest, longest.
  out.sort((a, b) => a.at - b.at || b.end - a.end);
  const kept: Mention[] = [];
  for (const m of out) {
    const last = kept[kept.length - 1];
    if (last && m.at < last.end) continue;
    kept.push(m);
  }
  return kept;
}

const ROLE_WORDS: [RegExp, ColorRoleHint][] = [
  [/secondary/i, 'secondary'],
  [/primary|main|core|brand colou?r|signature|hero/i, 'primary'],
  [/accent|highlight|tertiary|supporting|spot/i, 'accent'],
  [/background/i, 'background'],
  [/\btext\b|type colou?r|body copy/i, 'text'],
  [/neutral|gr[ae]y\b/i, 'neutral'],
];

const roleIn = (s: string): ColorRoleHint | undefined => ROLE_WORDS.find(([re]) => re.test(s))?.[1];

function normalizePantone(code: string): string {
  const c = code.toUpperCase().replace(/GREY/, 'GRAY');
  return /\s(C|U|CP|UP|XGC)$/.test(c) ? c : `${c} C`;
}

/**
 * Explicit colour specifications, one per swatch. Notations within 100 characters of each other
 * (and not repeating a notation) describe one swatch; its label is the text just before it, and
 * its role comes from the label or from the nearest heading above (within 300 characters).
 */
export function colorSpecs(text: string): ColorSpec[] {
  const ms = mentions(text);
  const swatches: Mention[][] = [];
  for (const m of ms) {
    const cur = swatches[swatches.length - 1];
    const prev = cur?.[cur.length - 1];
    const gap = prev ? text.slice(prev.end, m.at) : '';
    if (cur && prev && gap.length <= 100 && !/\n\s*\n/.test(gap) && !cur.some((x) => x.kind === m.kind)) cur.push(m);
    else swatches.push([m]);
  }
  const out: ColorSpec[] = [];
  let previousEnd = 0;
  for (const sw of swatches) {
    const first = sw[0]!;
    const hex = sw.find((m) => m.kind === 'hex');
    const rgb = sw.find((m) => m.kind === 'rgb');
    const cmyk = sw.find((m) => m.kind === 'cmyk');
    const pantone = sw.find((m) => m.kind === 'pantone');
    let value: string | undefined;
    let from: ColorSpec['from'] = 'hex';
    if (hex?.kind === 'hex') value = toHex(hex.rgb);
    else if (rgb?.kind === 'rgb') {
      value = toHex(rgb.rgb);
      from = 'rgb';
    } else if (cmyk?.kind === 'cmyk') {
      value = toHex(cmykToRgb(...cmyk.cmyk));
      from = 'cmyk';
    } else if (pantone?.kind === 'pantone') {
      value = PANTONE_SRGB[normalizePantone(pantone.code)];
      from = 'pantone';
    }
    const before = text.slice(Math.max(previousEnd, first.at - 300), first.at);
    previousEnd = sw[sw.length - 1]!.end;
    if (!value) continue;
    const lines = before.split('\n').map((l) => l.trim());
    let label = lines.pop() ?? '';
    if (!label.replace(/[\W\d_]+/g, '')) label = lines.reverse().find((l) => /[a-z]/i.test(l)) ?? '';
    label = label
      .replace(/\b(HEX|RGB|CMYK|PANTONE|PMS)\b.*$/i, '')
      .replace(/[:–—-]\s*$/, '')
      .trim()
      .slice(-60)
      .trim();
    const spec: ColorSpec = { hex: value, from, index: out.length };
    if (label && /[a-z]/i.test(label)) spec.name = label;
    const roleHint = roleIn(label) ?? roleIn(before);
    if (roleHint) spec.roleHint = roleHint;
    if (pantone?.kind === 'pantone') spec.pantone = `PANTONE ${normalizePantone(pantone.code)}`;
    if (cmyk?.kind === 'cmyk') spec.cmyk = cmyk.cmyk;
    out.push(spec);
  }
  // The same colour listed twice (a summary page repeating the palette) is one swatch.
  const seen = new Set<string>();
  return out.filter((s) => !seen.has(s.hex) && seen.add(s.hex)).map((s, index) => ({ ...s, index }));
}

// --------------------------------------------------------------------------------------------
// Typefaces

/** Families commonly named in guidelines (Google Fonts favourites and classic commercial faces). */
export const KNOWN_FAMILIES = [
  'Helvetica Neue',
  'Helvetica',
  'Arial',
  'Futura',
  'Gotham',
  'Avenir Next',
  'Avenir',
  'Proxima Nova',
  'Gill Sans',
  'Garamond',
  'EB Garamond',
  'Didot',
  'Bodoni',
  'Frutiger',
  'Univers',
  'DIN',
  'Akzidenz-Grotesk',
  'Caslon',
  'Baskerville',
  'Libre Baskerville',
  'Times New Roman',
  'Georgia',
  'Verdana',
  'Tahoma',
  'Trebuchet MS',
  'Calibri',
  'Segoe UI',
  'San Francisco',
  'SF Pro',
  'Roboto',
  'Roboto Slab',
  'Roboto Mono',
  'Open Sans',
  'Lato',
  'Montserrat',
  'Poppins',
  'Raleway',
  'Oswald',
  'Source Sans Pro',
  'Source Sans 3',
  'Source Serif Pro',
  'Noto Sans',
  'Noto Serif',
  'Merriweather',
  'Playfair Display',
  'Nunito Sans',
  'Nunito',
  'Ubuntu',
  'PT Sans',
  'PT Serif',
  'Rubik',
  'Work Sans',
  'Inter',
  'Fira Sans',
  'Mulish',
  'Quicksand',
  'Barlow',
  'Karla',
  'Josefin Sans',
  'Libre Franklin',
  'Franklin Gothic',
  'Cabin',
  'Arvo',
  'Bitter',
  'Lora',
  'Crimson Text',
  'Cormorant Garamond',
  'Cormorant',
  'DM Sans',
  'DM Serif Display',
  'Manrope',
  'IBM Plex Sans',
  'IBM Plex Serif',
  'IBM Plex Mono',
  'Space Grotesk',
  'Space Mono',
  'Archivo',
  'Heebo',
  'Hind',
  'Titillium Web',
  'Exo 2',
  'Dosis',
  'Anton',
  'Bebas Neue',
  'Abril Fatface',
  'Pacifico',
  'Lobster',
  'Dancing Script',
  'Comfortaa',
  'Fredoka',
  'Varela Round',
  'Kanit',
  'Prompt',
  'Assistant',
  'Catamaran',
  'Overpass',
  'Asap',
  'Oxygen',
  'Cairo',
  'Tajawal',
  'Zilla Slab',
  'Alegreya',
  'Spectral',
  'Vollkorn',
  'Inconsolata',
  'Courier New',
  'Museo Sans',
  'Museo',
  'Brandon Grotesque',
  'Circular',
  'Graphik',
  'Neue Haas Grotesk',
  'Aktiv Grotesk',
  'Sofia Pro',
  'Gilroy',
  'Gordita',
  'Founders Grotesk',
  'GT America',
  'GT Walsheim',
  'Apercu',
  'Canela',
  'Tiempos',
  'Lyon',
  'Publico',
  'Freight',
  'Chronicle',
  'Mercury',
  'Whitney',
  'Knockout',
  'Trade Gothic',
  'News Gothic',
  'Benton Sans',
  'Interstate',
  'Myriad Pro',
  'Minion Pro',
  'Optima',
  'Palatino',
  'Rockwell',
  'Century Gothic',
  'Eurostile',
  'Avant Garde',
  'Bauhaus',
  'Clarendon',
  'Cooper',
  'Recoleta',
  'Sora',
  'Outfit',
  'Plus Jakarta Sans',
  'Lexend',
  'Urbanist',
  'Red Hat Display',
  'Red Hat Text',
  'Noto Sans Display',
  'Crimson Pro',
  'Libre Caslon',
  'Abel',
  'Maven Pro',
  'Signika',
  'Questrial',
  'Yanone Kaffeesatz',
  'Teko',
  'Saira',
  'Jost',
  'Be Vietnam Pro',
  'Epilogue',
  'Syne',
  'Albert Sans',
  'Figtree',
  'Onest',
  'Geist',
  'Satoshi',
  'General Sans',
  'Clash Display',
  'Cabinet Grotesk',
  'Switzer',
  'Noto Sans JP',
] as const;

const WEIGHT_WORDS: [RegExp, number][] = [
  [/\b(thin|hairline)\b/i, 100],
  [/\b(extra ?light|ultra ?light)\b/i, 200],
  [/\blight\b/i, 300],
  [/\b(regular|book|roman|normal)\b/i, 400],
  [/\bmedium\b/i, 500],
  [/\b(semi ?bold|demi ?bold)\b/i, 600],
  [/\b(extra ?bold|ultra ?bold|heavy)\b/i, 800],
  [/\bbold\b/i, 700],
  [/\bblack\b/i, 900],
];

export function weightsIn(text: string): number[] {
  const out = new Set<number>();
  let rest = text;
  for (const [re, w] of WEIGHT_WORDS) {
    if (re.test(rest)) {
      out.add(w);
      rest = rest.replace(re, ' ');
    }
  }
  for (const m of text.matchAll(/\b([1-9]00)\b/g)) out.add(Number(m[1]));
  return [...out].sort((a, b) => a - b);
}

const FONT_ROLE = (s: string): FontSpec['role'] =>
  /head|display|title|hero/i.test(s) ? 'heading' : /body|copy|text|paragraph|running/i.test(s) ? 'body' : 'any';

const TYPE_TALK =
  /\b(fonts?|typefaces?|typography|type ?family|headings?|headlines?|body|copy|weights?|regular|bold|light|medium|italic|serif|sans)\b/i;

const familyPattern = new RegExp(
  `\\b(${[...KNOWN_FAMILIES]
    .sort((a, b) => b.length - a.length)
    .map((f) => f.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|')})\\b`,
  'g',
);

/**
 * Typefaces a guideline names: labelled lines first (`Headings: Playfair Display Bold`,
 * `Primary typeface: Montserrat`), then known family names anywhere, each with the role the
 * words before it suggest, weights from the words around it, and a stated fallback.
 */
export function fontSpecs(text: string): FontSpec[] {
  const found = new Map<string, FontSpec>();
  const add = (familyRaw: string, role: FontSpec['role'], context: string) => {
    const family = familyRaw
      .replace(new RegExp(WEIGHT_WORDS.map(([re]) => re.source).join('|'), 'gi'), ' ')
      .replace(/\b(italic|oblique|condensed|font|typeface|family)\b/gi, ' ')
      .replace(/[^\p{L}\p{N} &-]+/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (!family || family.length > 40 || !/^\p{Lu}/u.test(family)) return;
    const key = `${family.toLowerCase()}|${role}`;
    const prev = found.get(key);
    const fallbackMatch =
      /fall\s?-?backs?(?:\s+fonts?)?\s*(?:is|are|:|–|-)?\s*([A-Z][\w]*(?:[ ,]+(?:and\s+)?[A-Z][\w-]*){0,4})/.exec(
        context,
      );
    const fallbacks = fallbackMatch ? fallbackMatch[1]!.split(/\s*,\s*|\s+and\s+/).filter(Boolean) : [];
    const weights = weightsIn(context);
    if (prev) {
      prev.weights = [...new Set([...prev.weights, ...weights])].sort((a, b) => a - b);
      if (!prev.fallbacks.length) prev.fallbacks = fallbacks;
    } else found.set(key, { family, role, weights, fallbacks });
  };
  for (const line of text.split('\n')) {
    const labelled =
      /^\s*((?:primary|secondary|brand|heading|headline|display|title|body|text|copy)?[\w ]{0,20}?(?:typeface|font(?: family)?|type|headings?|headlines?|titles?|body(?: copy| text)?|copy))\s*(?:is|:|–|—|-)\s*(.+)$/i.exec(
        line,
      );
    if (!labelled) continue;
    const value = labelled[2]!;
    const known = [...value.matchAll(familyPattern)].map((m) => m[1]!);
    const name = known[0] ?? /^([A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3})/.exec(value.trim())?.[1];
    if (name) add(name, FONT_ROLE(labelled[1]!), line);
  }
  for (const m of text.matchAll(familyPattern)) {
    const before = text.slice(Math.max(0, m.index - 80), m.index);
    const after = text.slice(m.index, m.index + m[0].length + 80).split('\n')[0]!;
    const lineBefore = before.split('\n').pop() ?? '';
    // A bare name counts only where the text talks about type ("Georgia" is also a state), and
    // not as a stated fallback ("fallback Arial").
    if (!TYPE_TALK.test(`${lineBefore} ${after}`) || /fall\s?-?backs?\W*(?:\w+\W+){0,2}$/i.test(lineBefore)) continue;
    const role = FONT_ROLE(lineBefore) !== 'any' ? FONT_ROLE(lineBefore) : FONT_ROLE(before);
    if (![...found.values()].some((f) => f.family.toLowerCase() === m[1]!.toLowerCase())) add(m[1]!, role, after);
  }
  return [...found.values()];
}

// --------------------------------------------------------------------------------------------
// Sections

const SECTION_HEADINGS: [RegExp, BlockKind][] = [
  [/^(our )?(mission|purpose|vision)( statement)?$|^why we exist$/i, 'mission'],
  [/^(our )?(core |brand )?values$|^what we (stand for|believe)$|^(our )?principles$/i, 'values'],
  [/tone of voice|^(brand )?voice( (and|&) tone)?$|^tone$|personality$|^how we (speak|sound|write)$/i, 'tone'],
  [/^(tagline|slogan|strapline|claim|brand line)s?$/i, 'tagline'],
  [/audience|^who we serve$|^our customers$|^target (group|market)$/i, 'audience'],
  [/^(words (we|to) use|we say|do say|say this|vocabulary|use)$/i, 'words_use'],
  [/^(words (we|to) avoid|we don'?t say|avoid|don'?t say|never say|not this)$/i, 'words_avoid'],
  [/^(about( us)?|our story|who we are|introduction|overview|brand story)$/i, 'about'],
];

const sectionKind = (label: string): BlockKind | undefined => {
  const l = label.trim().replace(/[:.]+$/, '');
  return SECTION_HEADINGS.find(([re]) => re.test(l))?.[1];
};

/** `Our values: A, B, C` (or `Core values — A, B and C`) inside a line, after a sentence end. */
const VALUES_IN_LINE =
  /(^|[.!?]\s+)((?:our |core |brand )?values|what we stand for|(?:our )?principles)\s*[:–—]\s*([^.!?:\n]{2,200}?)(?:[.!?](?=\s|$)|$)/i;

/**
 * Splits guideline text into text blocks: a short line naming a section (`Our mission`, `Tone of
 * voice`, `Words to avoid`...) starts a section that runs to the next such line; `Label: text` on
 * one line is a one-line section. Everything else becomes `body` blocks (paragraphs).
 */
export function guidelineBlocks(text: string, maxBlocks = 200): TextBlock[] {
  const out: TextBlock[] = [];
  let current: { kind: BlockKind; lines: string[] } | undefined;
  let body: string[] = [];
  const flushBody = () => {
    const t = body.join(' ').replace(/\s+/g, ' ').trim();
    if (t.length >= 3) out.push({ kind: 'body', text: t.slice(0, 2000) });
    body = [];
  };
  const flushSection = () => {
    if (current) {
      const t = current.lines.join('\n').trim();
      if (t) out.push({ kind: current.kind, text: t.slice(0, 3000) });
    }
    current = undefined;
  };
  for (const raw of text.split('\n')) {
    if (out.length >= maxBlocks) break;
    const line = raw.trim();
    const words = line.split(/\s+/).length;
    const headingKind = line && words <= 6 ? sectionKind(line) : undefined;
    if (headingKind) {
      flushBody();
      flushSection();
      current = { kind: headingKind, lines: [] };
      continue;
    }
    const inline = /^([A-Za-z' ]{3,30}):\s*(.+)$/.exec(line);
    const inlineKind = inline ? sectionKind(inline[1]!) : undefined;
    if (inline && inlineKind) {
      flushBody();
      flushSection();
      out.push({ kind: inlineKind, text: inline[2]!.trim() });
      continue;
    }
    // "… . Our values: Craft, Kindness, Curiosity." inside a paragraph (PDF text runs lines
    // together): the labelled list is a values section of its own, like a list under a heading.
    // Inside another section (an "About us" paragraph), the rest of the line stays in it.
    const listed = VALUES_IN_LINE.exec(line);
    if (listed && current?.kind !== 'values') {
      const before = line.slice(0, listed.index + listed[1]!.length).trim();
      const after = line.slice(listed.index + listed[0].length).trim();
      if (before) (current ? current.lines : body).push(before);
      if (!current) flushBody();
      out.push({ kind: 'values', text: listed[3]!.trim() });
      if (after) (current ? current.lines : body).push(after);
      continue;
    }
    if (current) {
      current.lines.push(line);
      continue;
    }
    if (!line) flushBody();
    else body.push(line);
  }
  flushBody();
  flushSection();
  return out;
}

/** "Acme Brand Guidelines" → "Acme". */
export function brandNameFromTitle(title: string | undefined): string | undefined {
  const m =
    /^\s*(.{2,60}?)\s*[-–—:|]?\s+(?:brand\s+)?(?:guidelines|guide|style ?guide|brand ?book|identity|standards|manual)\b/i.exec(
      title ?? '',
    );
  return m?.[1]?.trim() || undefined;
}

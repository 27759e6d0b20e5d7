import { COLOR_NAMES, nameColor, parseHex, rgbToLab } from '../../../adapters/media/colors.ts';
import { AUTO_TAGS } from '../../../adapters/media/tags.ts';
import {
  type ProductWords,
  coloursContradict,
  coloursFirst,
  copyNouns,
  escapeRe,
  isColourWord,
  otherHeroes,
  type PromptHero,
  productWords,
  promptHeroes,
  referenceOf,
} from './product-words.ts';
import {
  SCENE_PROMPT_MAX,
  SCENE_THEME_MAX,
  type SceneAspectRatio,
  type SceneBrandContext,
  type SceneEnhancement,
  type SceneEnhancementInput,
  type SceneEnhancer,
  type SceneProductContext,
  type SceneWarning,
} from '../scene-enhancer.ts';

/**
 * The local scene prompt enhancer: rule-based, deterministic and pure (no clock, no randomness, no
 * I/O). It keeps the user's prompt whole as the first sentence (whitespace normalised, hex colour
 * codes turned into colour words) and adds, in this order, only what the prompt leaves open:
 *
 *   products (always, by their description: they stay the hero) · setting (the environment, or a
 *   set chosen by the brand's strongest tone) · lighting · camera and lens · composition (from the
 *   aspect ratio) · mood (tone and imagery style words) · palette accents (colour words, never
 *   hex) · marketplace presentation (non-default partner) · quality cues.
 *
 * A slot the prompt already fills (it names a light, a surface, a lens...) gets nothing, and every
 * addition is checked against the prompt, the environment and what was already added: a phrase
 * that contradicts them (warm vs cool, bright vs moody, minimal vs props, studio vs outdoors...),
 * names something the prompt excludes ("no props") or uses a word the brand avoids is replaced by
 * a neutral alternative or left out. When everything does not fit in 2500 characters the least
 * important additions are left out first (PROMPT_TRUNCATED).
 *
 * One hero, in agreement with the asset (product-words.ts): a product the prompt makes its subject
 * or hero that none of the given products is ("The red cap…" with a T-shirt given) is written as
 * secondary, never as a second hero (MULTIPLE_HEROES); colours the prompt gives a product otherwise
 * are left out of ours; a set ("mug_set.png") is referred back to in the plural ("the mugs",
 * "shapes, labels"); a file name's colour goes before its noun ("the red solidus cap").
 *
 * Warnings: see SCENE_WARNING_CODES in ../scene-enhancer.ts (HARDSPEC_ASPECT_MISMATCH,
 * PROMPT_TRUNCATED, BRAND_WORD_AVOIDED, NO_PRODUCT_CONTEXT, MULTIPLE_HEROES); sceneWarnings()
 * computes the ones that depend on the input only, for the OpenAI-compatible enhancer too.
 */
export function createLocalSceneEnhancer(): SceneEnhancer {
  return { name: 'local', enhance: async (input) => enhanceScene(input) };
}

// --------------------------------------------------------------------------------------------
// Text helpers

/** Well-formed, no control characters, single spaces, trimmed. */
export function cleanText(s: string): string {
  return s
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/[\p{Cc}\u200b\u2028\u2029\ufeff]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A lexicon written as `a|b|c`. */
const terms = (s: string): string[] => s.split('|');

/** A case-insensitive regex matching any of `terms` as whole words (letters/digits around do not count). */
function wordsRe(terms: readonly string[], flags = 'iu'): RegExp {
  const key = `${flags}\u0001${terms.join('\u0001')}`;
  let re = WORDS_RE_CACHE.get(key);
  if (!re) {
    const alts = [...terms]
      .sort((a, b) => b.length - a.length)
      .map((t) =>
        t
          .split(/[\s-]+/)
          .map(escapeRe)
          .join('[\\s-]?'),
      );
    re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alts.join('|')})(?![\\p{L}\\p{N}])`, flags);
    if (WORDS_RE_CACHE.size >= 4000) WORDS_RE_CACHE.clear();
    WORDS_RE_CACHE.set(key, re);
  }
  re.lastIndex = 0;
  return re;
}
const WORDS_RE_CACHE = new Map<string, RegExp>();

/** The term of `terms` found earliest in `text` (as written in the lexicon), if any. */
function firstOf(text: string, terms: readonly string[]): string | undefined {
  let best: { i: number; t: string } | undefined;
  for (const t of terms) {
    const m = wordsRe([t]).exec(text);
    if (m && (!best || m.index < best.i || (m.index === best.i && t.length > best.t.length))) best = { i: m.index, t };
  }
  return best?.t;
}

/** `a word` or `an word`. */
export const an = (w: string): string => `${/^(?:[aeio]|u(?!ni|s[eu])|hon|hour)/i.test(w) ? 'an' : 'a'} ${w}`;

/** The first letter in capitals. */
export const cap = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** `a`, `a and b`, `a, b and c`. */
export function joinList(xs: readonly string[]): string {
  if (xs.length <= 1) return xs[0] ?? '';
  return `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
}

/** At most `max` characters, cut at a word boundary when there is one (no surrogate pair split). */
export function cutWords(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  if (space >= max * 0.6) cut = cut.slice(0, space);
  return cut.replace(/[\s,;:–—-]+$/, '');
}

/** Ends with a full stop unless it ends a sentence already (a trailing comma or dash dropped). */
export const endSentence = (s: string) => (/[.!?…]["'”’)]*$/.test(s) ? s : `${s.replace(/[,;:–—-]+$/, '')}.`);

// --------------------------------------------------------------------------------------------
// Colour words

const KNOWN_COLOUR_WORDS = new Set<string>([
  ...COLOR_NAMES.flatMap((n) => n.split('-')),
  ...'grey gold golden silver copper bronze cream ivory charcoal terracotta sage coral mint lavender burgundy emerald mustard rust sand peach lilac ochre blush slate champagne taupe khaki turquoise indigo violet crimson scarlet plum wine chocolate mocha caramel honey lemon lime jade aqua sky midnight ink graphite ecru bone oat clay brick rose fuchsia saffron amber cobalt cerulean petrol forest ocean sea stone off-white tan mauve cherry berry olive apricot sapphire ruby pearl'.split(
    ' ',
  ),
]);

/** Greyish colours with a hue (chroma 10+ yet named grey by the media palette), by CIELAB hue angle. */
const DUSTY: [number, string][] = [
  [40, 'dusty rose'],
  [75, 'taupe'],
  [100, 'khaki'],
  [165, 'sage green'],
  [215, 'muted teal'],
  [285, 'dusty blue'],
  [335, 'mauve'],
  [361, 'dusty rose'],
];
const DEEPENABLE = new Set(['red', 'green', 'teal', 'blue', 'purple', 'magenta', 'orange', 'pink', 'cyan']);
const PALEABLE = new Set(['green', 'teal', 'blue', 'purple', 'orange', 'red', 'magenta']);
const MUTABLE = new Set(['red', 'green', 'teal', 'blue', 'purple', 'pink', 'orange', 'yellow', 'magenta', 'cyan']);

/**
 * An everyday colour word for `#rrggbb` (or `#rgb`): the nearest name of the media colour palette
 * (adapters/media/colors.ts), refined by CIELAB lightness, chroma and hue into words an art
 * director uses (`deep navy`, `gold`, `sage`, `terracotta`, `cream`, `charcoal`, `muted teal`).
 */
export function colourWord(hex: string): string | undefined {
  const rgb = parseHex(hex);
  if (!rgb) return undefined;
  const [L, a, b] = rgbToLab(...rgb);
  const C = Math.hypot(a, b);
  const H = ((((Math.atan2(b, a) * 180) / Math.PI) % 360) + 360) % 360;
  const base = nameColor(...rgb);
  if (C < 8 || base === 'gray' || base === 'black' || base === 'white') {
    if (C >= 10 && H >= 180 && H <= 260 && L < 50) return 'slate blue';
    if (C >= 10 && L >= 25 && L <= 92) return DUSTY.find(([max]) => H < max)![1];
    if (L < 18) return 'black';
    if (L < 40) return 'charcoal';
    if (L < 70) return 'gray';
    if (L < 90) return 'light gray';
    if (C >= 4 && H >= 60 && H <= 110) return L >= 96 ? 'cream' : 'off-white';
    return 'white';
  }
  if (H >= 75 && H <= 95 && C >= 40 && L >= 50 && L <= 82) return 'gold';
  if (H >= 30 && H < 50 && C >= 35 && C < 60 && L >= 45 && L <= 65) return 'terracotta';
  if (H >= 20 && H < 45 && C >= 55 && L >= 60) return 'coral';
  if (H >= 100 && H <= 150 && C >= 12 && C < 35 && L >= 50 && L <= 82) return 'sage green';
  if (L >= 92 && H >= 60 && H <= 110) return 'cream';
  if (base === 'beige' && L < 65) return 'tan';
  const name = base.replace('-', ' ');
  if (L < 35 && DEEPENABLE.has(base)) return `deep ${name}`;
  if (L > 85 && PALEABLE.has(base)) return `pale ${name}`;
  if (C < 25 && L >= 35 && MUTABLE.has(base)) return `muted ${name}`;
  return name;
}

/** A palette entry's colour word: the DNA's own name when it is a plain colour name, else colourWord(hex). */
export function paletteWord(e: { hex: string; name?: string | undefined }): string | undefined {
  const n = e.name ? cleanText(e.name).toLowerCase() : '';
  if (
    n &&
    n.length <= 30 &&
    !/[#\d]/.test(n) &&
    n.split(/\s+/).length <= 3 &&
    n.split(/[\s-]+/).some((w) => KNOWN_COLOUR_WORDS.has(w))
  ) {
    return n;
  }
  return colourWord(e.hex);
}

const HEX_IN_TEXT = /(?<![\p{L}\p{N}&])#(?:[0-9a-f]{6}|[0-9a-f]{3})(?![\p{L}\p{N}])/giu;

/** `#rrggbb`/`#rgb` codes in free text replaced by colour words. */
export function hexToWords(s: string): string {
  return s.replace(HEX_IN_TEXT, (h) => colourWord(h) ?? h);
}

const colourName = (c: string) => cleanText(c).toLowerCase().replace(/-/g, ' ');

// --------------------------------------------------------------------------------------------
// Lexicons (English; a prompt in another language fills no slot and gets every addition)

const LIGHT = terms(
  'lighting|lit|sunlight|sunlit|sunshine|sunny|sun|sunbeam|sunbeams|golden hour|blue hour|sunset|' +
    'sunrise|dawn|dusk|daylight|moonlight|moonlit|candlelight|candle light|candlelit|neon|backlit|' +
    'backlight|rim light|spotlight|spotlit|shadows|glow|glowing|high-key|low-key|overcast|softbox|' +
    'night|nighttime|midnight|twilight|lamplight|firelight|dappled|chiaroscuro|silhouette|silhouetted',
);
/** `light` as a noun about lighting, not `light blue`/`light wood`/`light-weight`. */
const LIGHT_WORD =
  /(?<![\p{L}\p{N}])light(?![\p{L}\p{N}])(?![\s-]+(?:blue|pink|green|gr[ae]y|wood|wooden|oak|beige|brown|yellow|purple|colou?r(?:ed|s)?|tones?|weight|fabric|linen|cream|background|backdrop|texture|formula|lotion|moisturi[sz]er|roast))/iu;
const TIME_AFTER = ['golden hour', 'blue hour', 'sunset', 'sunrise', 'dawn', 'dusk', 'night', 'midnight', 'twilight'];
const TIME_BEFORE = terms('morning|afternoon|evening|summer|winter|autumn|spring|holiday|christmas|halloween');
/**
 * Compound words that contain a lexicon word without meaning it (a night cream is not night, a
 * chocolate bar not a bar, copy space not outer space): blanked before the prompt is scanned.
 */
const FALSE_FRIENDS = [
  /(?<![\p{L}])(?:night|day|eye|sun|bath|shower|face|body|hand|foot|lip|hair|beard|room|car|home|window|glow(?:ing)?|pool|sea|camera|lens|contact|kitchen|garden|desk|table|wall|floor|studio)[\s-]+(?:creams?|serums?|masks?|oils?|gels?|lotions?|balms?|wash|bombs?|salts?|shadows?|screen|spray|scrub|soak|fragrance|diffusers?|cleaner|wax|freshener|care|decor|wipes?|mist|drops?|skin|hats?|block|glasses|bags?|straps?|case|towels?|toys?|floats?|lenses|lamps?|clocks?|tools?|knives|shears|hose|headphones|monitors?|mic(?:rophone)?s?|tiles?)(?![\p{L}])/giu,
  /(?<![\p{L}])(?:chocolate|granola|protein|energy|soap|candy|snack|cereal)\s+bars?(?![\p{L}])/giu,
  /(?<![\p{L}])bars?\s+of(?![\p{L}])/giu,
  /(?<![\p{L}])(?:copy|negative|white|empty|open|blank)\s+space(?![\p{L}])/giu,
  /(?<![\p{L}])(?:sky|ocean|sea|forest|lake|midnight|sunset|night)[\s-]+(?:blue|green|orange|pink)(?![\p{L}])/giu,
  /(?<![\p{L}])flash\s+sale(?![\p{L}])/giu,
  /(?<![\p{L}])eye\s?shadows?(?![\p{L}])/giu,
];

/** The lower-case prompt with FALSE_FRIENDS blanked: what the lexicons scan. */
function scanText(s: string): string {
  let t = s.toLowerCase();
  for (const re of FALSE_FRIENDS) t = t.replace(re, ' ~ ');
  return t;
}

/** Surfaces a product can stand on: counted after `on`/`atop`/`across`... (a "wooden spoon" is no surface). */
const SURFACE = terms(
  'marble|wood|wooden|oak|walnut|teak|concrete|stone|slate|granite|terrazzo|linen|tablecloth|sand|' +
    'tile|tiles|velvet|silk|satin|moss|rock|rocks|pebbles|fabric|leather|rug|bed|grass|snow|ice|water|' +
    'towel|acrylic|mirror|glass|surface|floor|ground|cloth|ceramic|paper|metal|steel|brass|table|' +
    'tabletop|countertop|counter|shelf|desk|bench|tray|board',
);
/** Furniture that is a surface wherever it is named. */
const FURNITURE = terms(
  'table|tabletop|countertop|counter|shelf|shelves|pedestal|plinth|podium|windowsill|desk|bench|' +
    'tray|cutting board',
);
const SURFACE_RE = new RegExp(
  `(?<![\\p{L}])(?:on|upon|atop|onto|across|over|along)\\s+(?:top\\s+of\\s+)?(?:(?:a|an|the|some|our|my|their|its|this)\\s+)?(?:[\\p{L}'-]+[\\s,]+){0,3}?(${SURFACE.map(escapeRe).join('|')})(?![\\p{L}])`,
  'iu',
);
const REGION = terms(
  'mediterranean|tropical|nordic|scandinavian|japanese|parisian|tuscan|moroccan|coastal|alpine|' +
    'industrial|urban|bohemian',
);
/** Settings named anywhere. */
const SETTING = [
  ...terms(
    'kitchen|bathroom|bedroom|living room|dining room|studio|beach|seaside|coast|forest|jungle|garden|' +
      'café|cafe|coffee shop|bakery|street|cityscape|rooftop|desert|mountains|office|workspace|boutique|' +
      'terrace|patio|balcony|poolside|restaurant|loft|greenhouse|meadow|countryside|cabin|gym|indoors|' +
      'outdoors|outside|interior|hotel|lobby|library|museum|gallery|backyard|courtyard|vineyard|orchard|' +
      'alley|sauna|campsite|campfire|vanity|nightstand|skyline|underwater|outer space|snowy|workshop|atelier',
  ),
  ...REGION,
];
/** Settings that only count after `in`/`at`/`by`... ("in a bar", not "a chocolate bar"). */
const PLACED_SETTING = terms(
  'bar|bath|bathtub|shower|car|home|room|sea|ocean|window|field|stage|sky|spa|park|market|lake|' +
    'river|pool|city|shop|store|boat|yacht|woods|mountain|landscape|farm|hike|trail|snow',
);
/** Occasions: they name a theme, not a place (a breakfast still needs a table). */
const OCCASION = terms('breakfast|brunch|picnic|wedding|festival|party|dinner|lunch|barbecue|celebration');
const SETTING_RE = wordsRe(SETTING);
const PLACED_SETTING_RE = new RegExp(
  `(?<![\\p{L}])(?:in|at|on|by|near|under|inside|beside|across|into|from|along|during|for)\\s+(?:(?:a|an|the|our|my|some|this)\\s+)?(?:[\\p{L}'-]+\\s+){0,2}?(${PLACED_SETTING.map(escapeRe).join('|')})(?![\\p{L}])`,
  'iu',
);
/** The setting the scan names (its term) and where, earliest first. */
function findSetting(scan: string): { term: string; index: number } | undefined {
  const hits: { term: string; index: number }[] = [];
  for (const m of scan.matchAll(new RegExp(SETTING_RE.source, 'giu'))) {
    if (!REGION.includes(m[0].toLowerCase())) hits.push({ term: m[0], index: m.index });
  }
  const placed = PLACED_SETTING_RE.exec(scan);
  if (placed) hits.push({ term: placed[1]!, index: placed.index + placed[0].length - placed[1]!.length });
  return hits.sort((a, b) => a.index - b.index)[0];
}
/** The surface the scan names ("wooden table", "marble"), if any. */
function findSurface(scan: string): string | undefined {
  const m = SURFACE_RE.exec(scan);
  if (m) {
    const next = /^\s+([\p{L}-]+)/u.exec(scan.slice(m.index + m[0].length))?.[1];
    return next && FURNITURE.includes(next) && next !== m[1] ? `${m[1]} ${next}` : m[1];
  }
  return firstOf(scan, FURNITURE);
}
const OUTDOOR = terms(
  'beach|seaside|coast|ocean|sea|forest|woods|jungle|garden|park|street|cityscape|rooftop|desert|' +
    'mountain|mountains|lake|river|picnic|terrace|patio|balcony|poolside|meadow|field|countryside|' +
    'farm|outdoors|outside|outdoor|backyard|courtyard|vineyard|orchard|alley|camping|campsite|' +
    'campfire|skyline|snowy|underwater|hike|trail',
);
const BACKDROP = terms('background|backdrop|wall|walls|seamless|sweep|curtain|drape|gradient|sky');
const MOOD = terms(
  'cozy|cosy|calm|serene|minimal|minimalist|minimalistic|moody|dramatic|vibrant|playful|fresh|' +
    'elegant|luxurious|luxury|rustic|warm|cool|bright|airy|romantic|bold|clean|festive|nostalgic|' +
    'energetic|dreamy|earthy|natural|sleek|modern|vintage|retro|whimsical|cheerful|joyful|fun|quiet|' +
    'peaceful|sophisticated|refined|edgy|gritty|dark|intimate|summery|cinematic|editorial|organic|zen|' +
    'futuristic|bohemian|boho|glamorous|glam|classic|timeless|relaxed|lively|colourful|colorful|' +
    'pastel|muted|monochrome|monochromatic|tranquil|luxe|opulent|crisp|soft|golden|misty|sunlit|sunny|' +
    'neon|candlelit|moonlit',
);
const CAMERA = terms(
  'close-up|closeup|close up|macro|wide shot|wide-angle|wide angle|flat lay|flatlay|overhead|' +
    "top-down|top down|bird's-eye|bird's eye|birds-eye|from above|eye level|eye-level|low angle|" +
    'low-angle|high angle|high-angle|lens|bokeh|depth of field|aperture|tilt-shift|three-quarter|' +
    'hero shot|front view|side view|profile view|angle|shot from|telephoto|fisheye|drone|aerial|' +
    'isometric|straight-on|head-on|camera|focal|dslr',
);
const CAMERA_EXTRA = /(?<![\p{L}\p{N}])(?:\d{2,3}\s?mm|f\/\d+(?:\.\d+)?)(?![\p{L}\p{N}])/iu;
const CLOSE = ['close-up', 'closeup', 'close up', 'macro', 'detail shot', 'tight crop', 'tight shot'];
const OVERHEAD = ['flat lay', 'flatlay', 'overhead', 'top-down', 'top down', "bird's-eye", "bird's eye", 'from above'];
const COMPOSITION = terms(
  'centered|centred|off-center|off-centre|rule of thirds|negative space|copy space|symmetrical|' +
    'symmetry|composition|framing|framed|foreground|left side|right side|on the left|on the right',
);
const NON_PHOTO = terms(
  'illustration|illustrated|render|rendered|3d|cgi|cartoon|drawing|painting|painted|watercolor|' +
    'watercolour|vector|anime|sketch|claymation|pixel art|digital art|collage|line art',
);
const TEXT_REQUEST =
  /(?<![\p{L}\p{N}])(?:text|words?|headline|caption|slogan|typography|lettering|tagline|saying|says|reads|written|font|title|logo)(?![\p{L}\p{N}])|["“”«»]/iu;
const MONO = ['black and white', 'black-and-white', 'monochrome', 'monochromatic', 'greyscale', 'grayscale', 'b&w'];

/**
 * Words that cannot both describe one scene: an addition with a word of one side is not made
 * when the prompt, the environment, the brand's imagery style or an earlier addition has a word
 * of the other.
 */
const OPPOSITES: [readonly string[], readonly string[]][] = [
  [
    ['bright', 'airy', 'high-key', 'sunny', 'sunlit', 'sunlight', 'daylight', 'cheerful', 'light-filled'],
    ['dark', 'moody', 'low-key', 'dim', 'shadowy', 'noir', 'night', 'nighttime', 'midnight', 'deep, rich shadows'],
  ],
  [
    ['warm', 'golden', 'sunlit', 'sunny', 'cozy', 'cosy'],
    ['cool', 'cold', 'icy', 'frosty', 'blue hour', 'wintry'],
  ],
  [
    ['minimal', 'minimalist', 'minimalistic', 'uncluttered', 'simple', 'sparse', 'zen'],
    ['maximalist', 'busy', 'cluttered', 'abundant', 'props', 'colour-blocked'],
  ],
  [
    ['calm', 'serene', 'quiet', 'peaceful', 'zen', 'relaxed', 'tranquil'],
    ['energetic', 'lively', 'dynamic', 'loud', 'vibrant', 'joyful', 'bold'],
  ],
  [
    ['muted', 'pastel', 'desaturated', 'monochrome', 'monochromatic', 'black and white', 'tonal', 'restrained'],
    ['saturated', 'vibrant', 'neon', 'colourful', 'colorful', 'colour-blocked'],
  ],
  [
    ['vintage', 'retro', 'rustic', 'traditional', 'classic', 'antique', 'weathered', 'handcrafted', 'timeless'],
    ['futuristic', 'high-tech', 'sci-fi', 'sleek', 'glossy', 'geometric', 'modern'],
  ],
  [
    ['daylight', 'sunlight', 'sunny', 'morning', 'afternoon', 'window light', 'sunlit'],
    ['night', 'nighttime', 'evening', 'neon', 'candlelit', 'candlelight', 'moonlight', 'moonlit', 'dusk', 'midnight'],
  ],
  [OUTDOOR, ['studio', 'seamless', 'indoor', 'indoors', 'room', 'interior', 'window light', 'plinth']],
  [
    ['white', 'off-white', 'cream', 'ivory', 'pale'],
    ['dark', 'moody', 'low-key', 'noir'],
  ],
  [
    ['soft', 'gentle', 'diffused'],
    ['harsh', 'hard light', 'high-contrast', 'high contrast', 'crisp contrast'],
  ],
];

// --------------------------------------------------------------------------------------------
// Tone looks

interface Look {
  light: { studio: string; natural: string };
  surface: string;
  backdrop: (colour?: string) => string;
  props?: string;
  mood: string[];
  camera: string;
  finish: string[];
  themeAdj: string;
  themePlace: string;
}

const DEFAULT_LOOK: Look = {
  light: {
    studio: 'Soft, diffused studio light with gentle, natural shadows',
    natural: 'Soft natural light with gentle shadows',
  },
  surface: 'a clean surface',
  backdrop: (c) => `a soft, seamless ${c ? `${c} ` : ''}backdrop`,
  mood: [],
  camera: 'Eye-level shot with a 50mm lens and a softly blurred background',
  finish: ['photorealistic commercial product photography', 'crisp detail', 'true-to-life colours and materials'],
  themeAdj: 'Clean',
  themePlace: 'Studio',
};

/** One look per brand tone (brands' TONES); the brand's strongest tone picks it. */
const LOOKS: Record<string, Look> = {
  Luxurious: {
    light: {
      studio: 'Soft directional light with gentle falloff and deep, rich shadows',
      natural: 'Soft, low-angled natural light with long, gentle shadows',
    },
    surface: 'a polished marble surface',
    backdrop: (c) => (c ? `${an(c)} backdrop` : 'a deep, tonal backdrop'),
    mood: ['refined', 'elegant'],
    camera: 'Eye-level shot with an 85mm lens and shallow depth of field',
    finish: ['high-end editorial product photography', 'crisp detail', 'true-to-life materials'],
    themeAdj: 'Refined',
    themePlace: 'Marble',
  },
  Playful: {
    light: {
      studio: 'Bright, even light with crisp, cheerful shadows',
      natural: 'Bright, sunny daylight with crisp shadows',
    },
    surface: 'a bold colour-blocked set',
    backdrop: (c) => (c ? `${an(c)} backdrop` : 'a saturated backdrop'),
    props: 'a few playful props kept clear of the product',
    mood: ['vibrant', 'joyful'],
    camera: 'Shot from a slightly low angle with a 50mm lens',
    finish: ['punchy commercial product photography', 'crisp detail', 'clean edges'],
    themeAdj: 'Vibrant',
    themePlace: 'Colour Pop',
  },
  Professional: {
    light: {
      studio: 'Soft, even daylight-balanced studio light',
      natural: 'Soft, even daylight',
    },
    surface: 'a simple matte surface',
    backdrop: (c) => `a seamless ${c ?? 'neutral'} backdrop`,
    mood: ['clean', 'polished'],
    camera: 'Straight-on, eye-level shot with a 70mm lens',
    finish: ['commercial product photography', 'crisp detail', 'true-to-life colour'],
    themeAdj: 'Clean',
    themePlace: 'Studio',
  },
  Casual: {
    light: { studio: 'Natural window light', natural: 'Relaxed natural daylight' },
    surface: 'a relaxed, lived-in tabletop with natural linen',
    backdrop: (c) => (c ? `${an(c)} wall` : 'a softly blurred home interior'),
    mood: ['relaxed', 'easygoing'],
    camera: 'Shot from slightly above with a 35mm lens, natural perspective',
    finish: ['candid lifestyle product photography', 'true-to-life colour', 'crisp detail'],
    themeAdj: 'Easygoing',
    themePlace: 'Tabletop',
  },
  Friendly: {
    light: { studio: 'Warm, soft window light', natural: 'Warm, soft sunlight' },
    surface: 'a light wooden table',
    backdrop: (c) => (c ? `a sunny room with ${c} walls` : 'a sunny, welcoming room'),
    mood: ['warm', 'inviting'],
    camera: 'Eye-level shot with a 50mm lens and a softly blurred background',
    finish: ['lifestyle product photography', 'true-to-life colour', 'crisp detail'],
    themeAdj: 'Warm',
    themePlace: 'Sunny Table',
  },
  Authoritative: {
    light: {
      studio: 'Controlled studio light with crisp contrast and defined shadows',
      natural: 'Clear, directional daylight with defined shadows',
    },
    surface: 'a solid dark stone plinth',
    backdrop: (c) => `a clean, graded ${c ?? 'charcoal'} backdrop`,
    mood: ['confident', 'assured'],
    camera: 'Shot from a slightly low angle with an 85mm lens',
    finish: ['bold commercial product photography', 'sharp detail', 'precise edges'],
    themeAdj: 'Bold',
    themePlace: 'Stone',
  },
  Innovative: {
    light: {
      studio: 'Cool, crisp studio light with subtle rim highlights',
      natural: 'Crisp, clear daylight with subtle reflections',
    },
    surface: 'glossy surfaces and clean geometric forms',
    backdrop: (c) => `${an(c ?? 'smooth, softly graded')} backdrop`,
    mood: ['sleek', 'modern'],
    camera: 'Three-quarter view with a 70mm lens',
    finish: ['high-tech commercial product photography', 'crisp detail', 'precise reflections'],
    themeAdj: 'Sleek',
    themePlace: 'Geometric',
  },
  Traditional: {
    light: { studio: 'Warm, soft window light', natural: 'Warm, late-afternoon light' },
    surface: 'a weathered oak table with handcrafted details',
    backdrop: (c) => (c ? `${an(c)} plaster wall` : 'a textured plaster wall'),
    mood: ['timeless', 'authentic'],
    camera: 'Eye-level shot with a 50mm lens and gentle background blur',
    finish: ['classic product photography', 'rich natural colour', 'fine detail'],
    themeAdj: 'Timeless',
    themePlace: 'Oak',
  },
};

const FALLBACK_LIGHTS = ['Soft directional light with gentle shadows', 'Crisp directional light with defined shadows'];

/** Brand imagery style words (brand-dna palette.ts imageryStyle, or entered by hand) → mood adjectives or phrases. */
const STYLE_WORDS: Record<string, { adj?: string; phrase?: string } | null> = {
  bright: { adj: 'bright' },
  dark: { adj: 'moody' },
  vibrant: { phrase: 'vibrant colour' },
  muted: { phrase: 'muted colour' },
  monochrome: { phrase: 'restrained, tonal colour' },
  'high-contrast': { phrase: 'high contrast' },
  soft: { phrase: 'soft contrast' },
  warm: { phrase: 'warm tones' },
  cool: { phrase: 'cool tones' },
  minimal: { phrase: 'minimal styling' },
  'cut-out': null,
};

// --------------------------------------------------------------------------------------------
// Aspect ratio and requested shapes

type Shape = 'portrait' | 'landscape' | 'square';

export function shapeOf(r: SceneAspectRatio | string): Shape {
  const [w, h] = r.split(':').map(Number) as [number, number];
  return w === h ? 'square' : w > h ? 'landscape' : 'portrait';
}

const SHAPE_PATTERNS: Record<Shape, RegExp[]> = {
  portrait: [
    /(?<![\p{L}])vertical(?![\p{L}])(?![\s-]+(?:stripes?|lines?|garden|blinds|slats|panels?|farm|bars?))/iu,
    /(?<![\p{L}])portrait[\s-]+(?:format|orientation|oriented|mode|ratio|layout|frame|crop|poster)(?![\p{L}])/iu,
    /(?<![\p{L}])in portrait(?![\p{L}])/iu,
    /(?<![\p{L}])(?:instagram|ig|facebook|fb|snapchat|whatsapp|insta)[\s-]+stor(?:y|ies)(?![\p{L}])/iu,
    /(?<![\p{L}])stor(?:y|ies)[\s-]+(?:format|size|ratio|post|frame|ad|ads)(?![\p{L}])/iu,
    /(?<![\p{L}])(?:reels?|tiktok|shorts)(?![\p{L}])/iu,
    /(?<![\p{L}])tall[\s-]+(?:format|frame|image|crop|poster|banner)(?![\p{L}])/iu,
    /(?<![\p{L}])phone[\s-]+wallpaper(?![\p{L}])/iu,
  ],
  landscape: [
    /(?<![\p{L}])wide[\s-]?screen(?![\p{L}])/iu,
    /(?<![\p{L}])wide[\s-]+(?:format|banner|frame|aspect|crop|image|poster|header)(?![\p{L}])/iu,
    /(?<![\p{L}])panoram(?:a|ic)(?![\p{L}])/iu,
    /(?<![\p{L}])banner(?![\p{L}])/iu,
    /(?<![\p{L}])landscape[\s-]+(?:format|orientation|oriented|mode|ratio|layout|frame|crop)(?![\p{L}])/iu,
    /(?<![\p{L}])in landscape(?![\p{L}])/iu,
    /(?<![\p{L}])horizontal[\s-]+(?:format|layout|frame|image|banner|crop|orientation)(?![\p{L}])/iu,
    /(?<![\p{L}])(?:hero[\s-]+header|website[\s-]+header|youtube[\s-]+thumbnail)(?![\p{L}])/iu,
  ],
  square: [
    /(?<![\p{L}])square[\s-]+(?:format|crop|frame|image|post|ratio|layout|composition|photo|shot)(?![\p{L}])/iu,
    /(?<![\p{L}])in (?:a )?square(?![\p{L}])/iu,
  ],
};

const KNOWN_RATIOS = new Set(['1:1', '2:3', '3:2', '3:4', '4:3', '9:16', '16:9', '21:9', '4:5', '5:4', '2:1', '1:2']);

/** Shapes the prompt asks for, with the words that ask (an explicit ratio such as "16:9" first). */
export function requestedShapes(prompt: string): { shape: Shape; words: string; ratio?: string }[] {
  const out: { shape: Shape; words: string; ratio?: string }[] = [];
  for (const m of prompt.matchAll(/(?<![\d:.])(\d{1,2})\s?:\s?(\d{1,2})(?![\d:])/g)) {
    const ratio = `${Number(m[1])}:${Number(m[2])}`;
    if (KNOWN_RATIOS.has(ratio)) out.push({ shape: shapeOf(ratio), words: m[0], ratio });
  }
  for (const shape of ['portrait', 'landscape', 'square'] as const) {
    for (const re of SHAPE_PATTERNS[shape]) {
      const m = re.exec(prompt);
      if (m) {
        out.push({ shape, words: m[0] });
        break;
      }
    }
  }
  return out;
}

const SHAPE_NAMES: Record<Shape, string> = { portrait: 'vertical', landscape: 'horizontal', square: 'square' };

/**
 * HARDSPEC_ASPECT_MISMATCH when the prompt asks for another ratio or shape (requestedShapes) than
 * `aspectRatio`, whose shape is `actual`; `what` ("image", "video") is what follows the ratio.
 */
export function aspectMismatch(prompt: string, aspectRatio: string, actual: Shape, what: string) {
  const clash = requestedShapes(prompt).find((r) => (r.ratio ? r.ratio !== aspectRatio : r.shape !== actual));
  if (!clash) return undefined;
  return {
    code: 'HARDSPEC_ASPECT_MISMATCH' as const,
    severity: 'warning' as const,
    field: 'aspectRatio',
    message: clash.ratio
      ? `The prompt asks for ${clash.ratio} but the aspect ratio is ${aspectRatio}; the ${what} follows ${aspectRatio}.`
      : `The prompt asks for a ${SHAPE_NAMES[clash.shape]} ${what} ("${clash.words}") but the aspect ratio ${aspectRatio} is ${SHAPE_NAMES[actual]}; the ${what} follows ${aspectRatio}.`,
  };
}

// --------------------------------------------------------------------------------------------
// Warnings

/**
 * The warnings that depend on the input alone (the OpenAI-compatible enhancer merges them into
 * its answer): HARDSPEC_ASPECT_MISMATCH, BRAND_WORD_AVOIDED and NO_PRODUCT_CONTEXT.
 */
export function sceneWarnings(input: SceneEnhancementInput): SceneWarning[] {
  const prompt = cleanText(input.originalPrompt);
  const warnings: SceneWarning[] = [];
  if (input.aspectRatio) {
    const clash = aspectMismatch(prompt, input.aspectRatio, shapeOf(input.aspectRatio), 'image');
    if (clash) warnings.push(clash);
  }
  const avoided = avoidedWordsIn(prompt, input.brand);
  if (avoided.length) warnings.push(brandWordAvoided(avoided));
  if (input.products.length === 0) {
    warnings.push({
      code: 'NO_PRODUCT_CONTEXT',
      severity: 'info',
      field: 'productAssetIds',
      message: 'No product was given: the scene is written around the product the prompt names.',
    });
  }
  const others = otherHeroes(promptHeroes(cleanText(hexToWords(prompt))), input.products.map(productWordsOf));
  if (others.length > 0) warnings.push(multipleHeroes(others, input.products));
  return warnings;
}

/** "its subject" (the prompt opens with them), "the hero" or "heroes" (it says so). */
export const heroWord = (hs: readonly PromptHero[]): string =>
  hs.every((h) => !h.explicit)
    ? hs.length > 1
      ? 'its subjects'
      : 'its subject'
    : hs.length > 1
      ? 'heroes'
      : 'the hero';

/** MULTIPLE_HEROES: the prompt names products that are not given; the given ones stay the heroes. */
function multipleHeroes(others: readonly PromptHero[], products: readonly SceneProductContext[]): SceneWarning {
  const n = products.length;
  const given = joinList(products.map((p, i) => productPhrase(p, i, n)));
  const named = joinList(others.map((h) => `"${h.phrase}"`));
  const several = others.length > 1 || others[0]!.plural;
  return {
    code: 'MULTIPLE_HEROES',
    severity: 'warning',
    field: 'originalPrompt',
    message:
      `The prompt names ${named} as ${heroWord(others)}, but the ${n > 1 ? 'products given are' : 'product given is'} ${given}. ` +
      `The scene keeps ${given} as the ${n > 1 ? 'heroes' : 'hero'} and ${joinList(others.map((h) => h.phrase))} secondary; ` +
      `add ${several ? 'their pictures' : 'its picture'} to the products, or rephrase the prompt, to change that.`,
  };
}

/** The brand's words to avoid: cleaned, lower case, distinct, 2 to 40 characters with a letter. */
export function avoidList(brand: SceneBrandContext | undefined): string[] {
  return [
    ...new Set(
      (brand?.wordsToAvoid ?? [])
        .map((w) => cleanText(w).toLowerCase())
        .filter((w) => w.length >= 2 && w.length <= 40 && /\p{L}/u.test(w)),
    ),
  ];
}

/** The BRAND_WORD_AVOIDED warning: the user's prompt uses `avoided`, and is kept as written. */
export function brandWordAvoided(avoided: string[]) {
  return {
    code: 'BRAND_WORD_AVOIDED' as const,
    severity: 'warning' as const,
    field: 'originalPrompt',
    message: `The prompt uses ${joinList(avoided.map((w) => `"${w}"`))}, which the brand's DNA lists among words to avoid; the prompt was kept as written.`,
  };
}

/**
 * The PROMPT_TRUNCATED warning of a local enhancer: a `warning` when the user's own prompt was cut
 * (`userCut`), `info` when only the enhancer's additions were shortened or left out.
 */
export function promptTruncated(userCut: boolean, message: string) {
  return {
    code: 'PROMPT_TRUNCATED' as const,
    severity: userCut ? ('warning' as const) : ('info' as const),
    field: 'originalPrompt',
    message,
  };
}

function avoidedWordsIn(text: string, brand: SceneBrandContext | undefined): string[] {
  return avoidList(brand).filter((w) => wordsRe([w]).test(text));
}

// --------------------------------------------------------------------------------------------
// Products and environment

const TECH_TAGS = new Set<string>([...AUTO_TAGS, ...COLOR_NAMES]);
const BACKGROUND_TAGS = new Set(['plain-background', 'product-on-plain-background']);
const FILE_NOISE =
  /^(?:img|dsc|dscn|dcim|image|photo|pic|picture|final|copy|edit|edited|v\d+|\d+|\d+x\d+|x\d+|untitled|scaled|cropped|crop|web|hires|hi|lo|res|lores|png|jpe?g|webp|heic|tiff?|gif|avif|large|small|thumb|thumbnail|retina|new|mockup|@\dx)$/i;

export function usefulTags(tags: readonly string[]): string[] {
  return [
    ...new Set(
      tags
        .map((t) => cleanText(t).toLowerCase())
        .filter((t) => t && t.length <= 30 && /\p{L}/u.test(t) && !TECH_TAGS.has(t))
        .map((t) => t.replace(/[-_]+/g, ' ')),
    ),
  ];
}

function fileNameWords(fileName: string | undefined): string | undefined {
  if (!fileName) return undefined;
  const base = cleanText(fileName)
    .replace(/^.*[\\/]/, '')
    .replace(/\.[a-z0-9]{2,5}$/i, '');
  const words = base
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[\s_.\-()[\]+,]+/)
    .filter((w) => w && !FILE_NOISE.test(w) && /\p{L}/u.test(w) && w.length <= 30)
    .map((w) => w.toLowerCase());
  return words.length ? words.slice(0, 8).join(' ') : undefined;
}

/** Phrases an asset description often ends with that would fight the scene (the packshot's own background). */
const PACKSHOT_NOISE =
  /,?\s*(?:(?:isolated|cut[\s-]?out|shown|photographed|placed|sitting|standing)\s+)?(?:(?:on|against|over)\s+)(?:an?\s+|the\s+)?(?:plain|solid|pure|clean|blank|transparent|neutral|simple)?\s*(?:white|black|gr[ae]y|transparent|neutral|light|dark)?\s*(?:studio\s+)?(?:background|backdrop)\b|,?\s*\b(?:isolated|packshot|product shot|cut[\s-]?out)\b/giu;

/**
 * A sentence-case phrase as it reads after "the": "Matte black headphones" → "matte black
 * headphones". Left alone when the first two words are capitalised ("Air Max sneakers") or the
 * first is an acronym or has inner capitals ("LED lamp", "iPhone case"), which suggests a name.
 */
export function midSentence(phrase: string): string {
  const [first, second] = phrase.split(/\s+/);
  if (!first || !/^\p{Lu}[\p{Ll}'-]*$/u.test(first)) return phrase;
  if (second && /^\p{Lu}\p{Ll}/u.test(second)) return phrase;
  return first[0]!.toLowerCase() + phrase.slice(1);
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth'];

/** The words that name a product: its description's first phrase, else its file name's words, else its first tag. */
function nameOf(p: SceneProductContext): string {
  const described = p.description ? cleanText(hexToWords(p.description)) : '';
  if (described) return described.split(/(?<=[.!?])\s+/)[0]!.replace(PACKSHOT_NOISE, '');
  return fileNameWords(p.fileName) ?? usefulTags(p.tags)[0] ?? '';
}

/** What a product's words say of it (its kinds, head noun, whether it is a set), for the hero and plural rules. */
export function productWordsOf(p: SceneProductContext): ProductWords {
  return productWords(
    nameOf(p),
    [p.description ? cleanText(p.description) : '', fileNameWords(p.fileName) ?? '', ...usefulTags(p.tags)],
    p.colors.map(colourName),
  );
}

/**
 * How the text names one product: its description (first sentence, bounded), else its file name or
 * tags. `colours: false` leaves colour words out (when the prompt gives the product other colours).
 */
export function productPhrase(
  p: SceneProductContext,
  index: number,
  count: number,
  opts: { colours?: boolean } = {},
): string {
  const withColours = opts.colours !== false;
  const tags = usefulTags(p.tags);
  let colours = [...new Set(p.colors.map(colourName).filter(Boolean))];
  if (p.tags.some((t) => BACKGROUND_TAGS.has(t))) colours = colours.filter((c) => c !== 'white');
  colours = withColours ? colours.slice(0, 3) : [];
  const described = p.description ? cleanText(hexToWords(p.description)) : '';
  let phrase: string;
  let showColours: boolean;
  if (described) {
    const first = described.split(/(?<=[.!?])\s+/)[0]!;
    phrase = cutWords(first.replace(PACKSHOT_NOISE, '').replace(/[.!?;:,\s]+$/, ''), 200).trim();
    if (!phrase) phrase = cutWords(described.replace(/[.!?;:,\s]+$/, ''), 200);
    // Dominant colours count the packshot's background too: only trusted without a description or on a cut-out.
    showColours = p.tags.includes('transparent-background');
  } else {
    const name = fileNameWords(p.fileName);
    showColours = true;
    if (name) {
      // A copywriter's order and spelling: "solidus_cap_red" is the red solidus cap.
      const words = copyNouns(name);
      phrase = withColours
        ? coloursFirst(words)
        : words
            .split(' ')
            .filter((w) => !isColourWord(w))
            .join(' ') || words;
    } else if (tags.length) {
      // Tags only when there is no file name to go by: the first names the product, the others qualify it.
      phrase = `${colours.length ? `${joinList(colours)} ` : ''}${tags[0]}${tags.length > 1 ? ` (${tags.slice(1, 3).join(', ')})` : ''}`;
      showColours = false;
    } else {
      phrase = '';
    }
  }
  if (!phrase) phrase = count > 1 ? `${ORDINALS[index] ?? `${index + 1}th`} product` : 'product';
  const m = /^(a|an|the|our|my|this|these|those|its|their|your)\b\s*/i.exec(phrase);
  phrase = m ? m[1]!.toLowerCase() + phrase.slice(m[1]!.length) : `the ${midSentence(phrase)}`;
  const low = phrase.toLowerCase();
  const newColours = colours.filter((c) => !low.includes(c));
  if (showColours && newColours.length && newColours.length === colours.length) phrase += ` in ${joinList(newColours)}`;
  return phrase;
}

// --------------------------------------------------------------------------------------------
// The enhancer

interface Part {
  text: string;
  /** Position in the prompt (parts are chosen in another order: the partner before mood and palette). */
  order: number;
  /** Higher is kept longer when the result must be shortened. */
  priority: number;
}

interface Context {
  /** Prompt + environment + imagery style + additions so far: what an addition must not contradict. */
  scene: string;
  negated: string[];
  avoid: string[];
  /** The additions so far, lower case (nothing is said twice). */
  added: string;
}

function hasAny(text: string, terms: readonly string[]): boolean {
  return terms.length > 0 && wordsRe(terms).test(text);
}

/** "no props", "without people": the excluded words are group 1. */
const NEGATION =
  /(?<![\p{L}])(?:no|without|free of|minus|avoid(?:ing)?|don'?t (?:show|include|add)|do not (?:show|include|add)|never)\s+((?:[\p{L}'-]+(?:\s*,\s*|\s+(?:or|and|nor)\s+|\s+)?){1,4})/giu;

/** Words the prompt excludes: "no props", "without people", "free of clutter", "don't show logos". */
function negatedTerms(prompt: string): string[] {
  const out: string[] = [];
  const stop = new Set([
    'any',
    'the',
    'a',
    'an',
    'or',
    'and',
    'nor',
    'other',
    'extra',
    'visible',
    'more',
    'too',
    'much',
  ]);
  for (const m of prompt.matchAll(NEGATION)) {
    for (const w of m[1]!.toLowerCase().split(/[\s,]+/)) {
      if (w.length >= 3 && !stop.has(w)) out.push(w.replace(/(?:es|s)$/, ''));
    }
  }
  return [...new Set(out)];
}

/** May `phrase` be added to the scene described so far? */
function fits(phrase: string, ctx: Context): boolean {
  const low = phrase.toLowerCase();
  for (const [a, b] of OPPOSITES) {
    if ((hasAny(low, a) && hasAny(ctx.scene, b)) || (hasAny(low, b) && hasAny(ctx.scene, a))) return false;
  }
  // Our own exclusions ("no added text") agree with the user's ("no text"): not a contradiction.
  const words = low
    .replace(/(?<![\p{L}])(?:no added|never overpowering|nothing overlapping)[\p{L}, ]*/gu, ' ')
    .split(/[^\p{L}'-]+/u)
    .filter(Boolean);
  if (ctx.negated.some((n) => words.some((w) => w === n || w.startsWith(n)))) return false;
  if (ctx.avoid.some((w) => wordsRe([w]).test(low))) return false;
  return true;
}

function pick(candidates: readonly (string | undefined)[], ctx: Context): string | undefined {
  for (const c of candidates) {
    if (c && fits(c, ctx)) {
      ctx.scene += ` ${c.toLowerCase()}`;
      ctx.added += ` ${c.toLowerCase()}`;
      return c;
    }
  }
  return undefined;
}

function lookOf(brand: SceneBrandContext | undefined): Look {
  for (const t of brand?.tone ?? []) {
    const look = LOOKS[t] ?? LOOKS[cap(t.toLowerCase())];
    if (look) return look;
  }
  return DEFAULT_LOOK;
}

/**
 * Phrases in title case, joined. A phrase whose words another phrase already says is left out
 * whole ("Golden" next to "at golden hour"): a phrase is never cut inside, so no "at Hour".
 */
function titleCase(phrases: string[]): string {
  const small = new Set(['a', 'an', 'and', 'at', 'by', 'for', 'in', 'of', 'on', 'the', 'with']);
  const split = phrases.map((p) => p.split(/\s+/).filter(Boolean));
  const said = (w: string, i: number) =>
    split.some(
      (o, j) =>
        j !== i &&
        (o.length > split[i]!.length || (o.length === split[i]!.length && j < i)) &&
        o.some((x) => x.toLowerCase() === w),
    );
  const kept = split.filter((ws, i) => {
    const content = ws.map((w) => w.toLowerCase()).filter((w) => !small.has(w));
    return content.length > 0 && !content.every((w) => said(w, i));
  });
  return kept
    .flat()
    .map((w, k) =>
      k > 0 && small.has(w.toLowerCase())
        ? w.toLowerCase()
        : w.replace(/(^|-)(\p{L})/gu, (_, d: string, c: string) => d + c.toUpperCase()),
    )
    .join(' ');
}

/** The local enhancement (what createLocalSceneEnhancer().enhance resolves to). Pure and deterministic. */
export function enhanceScene(input: SceneEnhancementInput): SceneEnhancement {
  const warnings = sceneWarnings(input);
  let userText = cleanText(hexToWords(input.originalPrompt));
  let userCut = false;
  if (userText.length > SCENE_PROMPT_MAX - 1) {
    userText = cutWords(userText, SCENE_PROMPT_MAX - 1);
    userCut = true;
  }
  const prompt = userText.toLowerCase();
  /** The prompt as the lexicons read it (compounds such as "night cream" blanked). */
  const scan = scanText(userText);
  const brand = input.brand;
  const look = lookOf(brand);
  const env = input.environment;
  const envDescription = env?.description
    ? cutWords(cleanText(hexToWords(env.description)).replace(/[.!?;:,\s]+$/, ''), 300)
    : '';
  const envTags = env ? usefulTags(env.tags).slice(0, 5) : [];
  const envText = scanText(`${envDescription}, ${envTags.join(', ')}`);
  const style = [
    ...new Set(
      (brand?.imageryStyle ?? [])
        .map((s) => cleanText(s).toLowerCase())
        .filter((s) => s && s.length <= 40 && s.split(' ').length <= 3),
    ),
  ];
  const ctx: Context = {
    scene: `${scan} ${envText} ${style.join(' ')}`,
    negated: negatedTerms(prompt),
    avoid: avoidList(brand),
    added: '',
  };
  const n = input.products.length;
  // The products' words: their kinds (against the heroes the prompt names) and whether one is a set.
  const words = input.products.map(productWordsOf);
  const heroes = promptHeroes(userText);
  const others = otherHeroes(heroes, words);
  const ref = referenceOf(words[0], n);
  const the = ref.the;
  const nonPhoto = hasAny(scan, NON_PHOTO);
  const userLight = hasAny(scan, LIGHT) || LIGHT_WORD.test(scan);
  const userSurface = findSurface(scan) !== undefined;
  const userSetting = findSetting(scan) !== undefined;
  const userBackdrop = hasAny(scan, BACKDROP);
  const floating = hasAny(scan, FLOATING);
  const userCamera = hasAny(scan, CAMERA) || CAMERA_EXTRA.test(scan);
  const userComposition = hasAny(scan, COMPOSITION);
  const close = hasAny(scan, CLOSE);
  const overhead = hasAny(scan, OVERHEAD);
  const mono = hasAny(scan, MONO);
  const outdoor = hasAny(`${scan} ${envText}`, OUTDOOR);
  const parts: Part[] = [];

  // Products: always named, so the generator keeps the real ones the hero. A product the prompt
  // gives other colours ("the red cap" for a black one) is named without colours, and a product
  // the prompt names that is not given stays secondary (MULTIPLE_HEROES): one hero, no contradiction.
  const phrases = input.products.map((p, i) =>
    productPhrase(p, i, n, { colours: !coloursContradict(heroes, words[i]!) }),
  );
  const shapes = ref.plural ? 'shapes, labels and colours' : 'shape, label and colours';
  // With several products, the ones the prompt names as the hero lead when it names some but not all.
  const lead = words.flatMap((w, i) => (heroes.some((h) => h.explicit && w.kinds.has(h.kind)) ? [i] : []));
  if (n === 0) {
    parts.push({
      text: 'Keep the product the clear hero: in the foreground, in sharp focus and fully visible.',
      order: 1,
      priority: 10,
    });
  } else if (n === 1) {
    parts.push({
      text: `Feature ${phrases[0]} as the hero: in the foreground, in sharp focus, ${shapes} unchanged.`,
      order: 1,
      priority: 10,
    });
  } else if (lead.length > 0 && lead.length < n) {
    const rest = phrases.filter((_, i) => !lead.includes(i));
    parts.push({
      text: `Feature ${joinList(lead.map((i) => phrases[i]!))} as the ${lead.length > 1 ? 'heroes' : 'hero'}, with ${joinList(rest)} in a supporting role: all in the foreground and in sharp focus, shapes, labels and colours unchanged.`,
      order: 1,
      priority: 10,
    });
  } else {
    parts.push({
      text: `Feature ${joinList(phrases)} together as the heroes: grouped in the foreground, each in sharp focus, shapes, labels and colours unchanged.`,
      order: 1,
      priority: 10,
    });
  }
  if (others.length > 0) {
    const several = others.length > 1 || others[0]!.plural;
    parts.push({
      text: `${cap(joinList(others.map((h) => h.phrase)))} ${several ? 'stay' : 'stays'} secondary: smaller, further back and out of the main focus.`,
      order: 1.5,
      priority: 9.5,
    });
  }

  // Setting: the environment when there is one, else the tone's set for what the prompt leaves open.
  const palette = (brand?.palette ?? [])
    .filter((e) => e.role !== 'text')
    .map((e) => ({ word: paletteWord(e), role: e.role }))
    .filter((e): e is { word: string; role: string | undefined } => !!e.word);
  let backdropColour: string | undefined;
  let toneSet = false;
  if (env) {
    const about = envDescription
      ? ` — ${articleLower(envDescription)} —`
      : envTags.length
        ? ` (${envTags.join(', ')})`
        : '';
    parts.push({
      text: `Set in the supplied environment${about} with the light, perspective and shadows on ${the} matched to it.`,
      order: 2,
      priority: 8,
    });
    ctx.scene += ` ${about.toLowerCase()}`;
    ctx.added += ` ${about.toLowerCase()}`;
  } else if (!userSetting) {
    const needSurface = !userSurface && !floating;
    const needBackdrop = !userBackdrop && !overhead;
    const bg = mono || !needBackdrop ? undefined : palette.find((e) => e.role === 'background')?.word;
    const setOf = (l: Look, c?: string): string | undefined => {
      const props = l.props ? `, with ${l.props}` : '';
      if (needSurface && needBackdrop) return `${cap(l.surface)} against ${l.backdrop(c)}${props}.`;
      if (needSurface) return `${overhead ? 'Laid out' : 'Set'} on ${l.surface}${props}.`;
      if (needBackdrop) return `Behind ${the}, ${l.backdrop(c)}${props}.`;
      return undefined;
    };
    const plain = { ...look, props: undefined } as Look;
    const chosen = pick(
      [setOf(look, bg), setOf(plain, bg), setOf(look), setOf(plain), setOf(DEFAULT_LOOK, bg), setOf(DEFAULT_LOOK)],
      ctx,
    );
    if (chosen) {
      parts.push({ text: chosen, order: 2, priority: 8 });
      toneSet = true;
      if (bg && chosen.includes(bg)) backdropColour = bg;
    }
  }

  // Lighting, unless the prompt names it or the environment sets it: the time of day or the mood
  // the prompt gives first, else the tone's.
  let light: string | undefined;
  if (!userLight && !env) {
    const natural = outdoor || (userSetting && !hasAny(scan, ['studio']));
    const which = natural ? 'natural' : 'studio';
    const time = firstOf(scan, Object.keys(TIME_LIGHT));
    const moodLight = hasAny(scan, DARK_WORDS)
      ? `Low-key light with deep shadows and a soft highlight on ${the}`
      : hasAny(scan, BRIGHT_WORDS)
        ? 'Bright, airy light with soft shadows'
        : undefined;
    light = pick(
      [
        time ? TIME_LIGHT[time] : undefined,
        moodLight,
        look.light[which],
        DEFAULT_LOOK.light[which],
        ...FALLBACK_LIGHTS,
      ],
      ctx,
    );
    if (light) parts.push({ text: `${light}.`, order: 3, priority: 7 });
  }

  // Camera and lens (photographs only), then composition from the aspect ratio.
  if (!userCamera && !nonPhoto) {
    const chosen = pick([look.camera, DEFAULT_LOOK.camera], ctx);
    if (chosen) parts.push({ text: `${chosen}.`, order: 4, priority: 6 });
  }
  if (!userComposition) {
    const chosen = pick([compositionOf(input.aspectRatio, scan, ref, close, overhead)], ctx);
    if (chosen) parts.push({ text: chosen, order: 5, priority: 6 });
  }

  // Retail partner: a marketplace listing wants the whole product, unobstructed, and nothing added.
  if (input.partner !== 'default') {
    const whole =
      n > 1
        ? 'every product fully in frame'
        : ref.plural
          ? `all of ${the} fully in frame`
          : 'the whole product in frame';
    const noText = TEXT_REQUEST.test(prompt.replace(NEGATION, ' ')) ? '' : ' and no added text, badges or watermarks';
    const chosen = pick(
      [
        `Marketplace-ready presentation: ${whole} and unobstructed, with clear space around ${ref.it}${noText}.`,
        `Marketplace-ready presentation: ${whole} and unobstructed${noText}.`,
        `Marketplace-ready presentation: ${whole} and unobstructed.`,
      ],
      ctx,
    );
    if (chosen) parts.push({ text: chosen, order: 8, priority: 9 });
  }

  // Mood: tone words, then the brand's imagery style, that the prompt does not already say.
  const moodAdjs: string[] = [];
  const moodPhrases: string[] = [];
  const takeMood = (word: string, kind: 'adj' | 'phrase') => {
    const head = word.split(/[ ,]+/)[0]!;
    if (moodAdjs.length + moodPhrases.length >= 5) return;
    if ([...moodAdjs, ...moodPhrases].some((m) => m === word || m.split(/[ ,]+/)[0] === head)) return;
    if (wordsRe([head]).test(`${prompt} ${ctx.added}`)) return;
    // Style words are in the scene already (so tone words cannot contradict them); check the rest.
    if (!fits(word, { ...ctx, scene: ctx.scene.replace(wordsRe([word], 'giu'), ' ') })) return;
    (kind === 'adj' ? moodAdjs : moodPhrases).push(word);
    ctx.scene += ` ${word}`;
    ctx.added += ` ${word}`;
  };
  for (const t of brand?.tone ?? []) {
    const l = LOOKS[t] ?? LOOKS[cap(t.toLowerCase())];
    for (const w of (l?.mood ?? []).slice(0, l === look ? 2 : 1)) takeMood(w, 'adj');
  }
  for (const s of style) {
    const mapped = s in STYLE_WORDS ? STYLE_WORDS[s] : /^[\p{L}][\p{L}' -]*$/u.test(s) ? { adj: s } : null;
    if (mapped?.adj) takeMood(mapped.adj, 'adj');
    else if (mapped?.phrase) takeMood(mapped.phrase, 'phrase');
  }
  if (moodAdjs.length || moodPhrases.length) {
    const text = moodAdjs.length
      ? `${cap(joinList(moodAdjs))} mood${moodPhrases.length ? `, with ${joinList(moodPhrases)}` : ''}.`
      : `${cap(joinList(moodPhrases))}.`;
    parts.push({ text, order: 6, priority: 5 });
  }

  // Palette accents, as colour words.
  if (!mono) {
    const accents = [...new Set(palette.filter((e) => e.word !== backdropColour).map((e) => e.word))].filter(
      (w) => !wordsRe([w]).test(prompt) && fits(w, ctx),
    );
    if (accents.length) {
      const list = cap(joinList(accents.slice(0, 3)));
      const chosen = pick(
        [
          env ? undefined : `${list} accents in the props and styling, never overpowering ${the}.`,
          `${list} accents in the styling, never overpowering ${the}.`,
          `${list} accents.`,
        ],
        ctx,
      );
      if (chosen) parts.push({ text: chosen, order: 7, priority: 5 });
    }
  }

  // Quality cues, last; nothing said twice (an item whose distinctive word the prompt or an
  // addition already has gets a synonym, or goes).
  const said = (w: string) => wordsRe([w]).test(`${prompt} ${ctx.added}`);
  const finish = (
    nonPhoto
      ? ['crisp detail', `accurate ${ref.plural ? 'product shapes' : 'product shape'}, labels and colours`]
      : look.finish
  ).flatMap((f) => {
    let item = f;
    for (const w of f.toLowerCase().split(/[\s,]+/)) {
      if (w.length <= 3 || GENERIC_FINISH.has(w) || !said(w)) continue;
      const alt = FINISH_SYNONYMS[w];
      if (!alt || said(alt)) return [];
      item = item.replace(w, alt);
    }
    return fits(item, ctx) ? [item] : [];
  });
  if (finish.length) parts.push({ text: `${cap(finish.join(', '))}.`, order: 9, priority: 4 });

  // Assemble within the bound, leaving out the least important additions first.
  const head = userText ? endSentence(/^\p{Ll}/u.test(userText) ? cap(userText) : userText) : '';
  const seen = new Set<string>();
  parts.sort((a, b) => a.order - b.order);
  let kept = parts.filter((p) => {
    const key = p.text.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const join = (ps: Part[]) => [head, ...ps.map((p) => p.text)].filter(Boolean).join(' ');
  let dropped = 0;
  while (join(kept).length > SCENE_PROMPT_MAX && kept.length) {
    const lowest = kept.reduce((lo, p, i) => (p.priority < kept[lo]!.priority ? i : lo), kept.length - 1);
    kept = kept.filter((_, i) => i !== lowest);
    dropped++;
  }
  let optimizedPrompt = join(kept);
  if (optimizedPrompt.length > SCENE_PROMPT_MAX) optimizedPrompt = cutWords(optimizedPrompt, SCENE_PROMPT_MAX);
  if (!optimizedPrompt) optimizedPrompt = 'A clean, well-lit product photograph.';
  if (userCut || dropped) {
    warnings.push(
      promptTruncated(
        userCut,
        userCut
          ? `The prompt is longer than ${SCENE_PROMPT_MAX} characters and was cut at a word boundary; nothing was added to it.`
          : `The enhanced prompt would exceed ${SCENE_PROMPT_MAX} characters: ${dropped} of the suggested additions were left out and your prompt was kept whole.`,
      ),
    );
  }

  const theme = themeOf({ input, look, scan, envText, style, light, toneSet });
  return { optimizedPrompt, theme, warnings, engine: 'local' };
}

const GENERIC_FINISH = new Set([
  'product',
  'products',
  'photography',
  'detail',
  'colour',
  'colours',
  'materials',
  'commercial',
]);

const FINISH_SYNONYMS: Record<string, string> = {
  crisp: 'sharp',
  sharp: 'fine',
  edges: 'lines',
  clean: 'neat',
  precise: 'accurate',
  rich: 'deep',
  natural: 'true-to-life',
};

const TIME_LIGHT: Record<string, string> = {
  morning: 'Soft, fresh morning light with gentle shadows',
  afternoon: 'Warm afternoon light with soft shadows',
  evening: 'Low, warm evening light with long shadows',
};
const DARK_WORDS = ['dark', 'moody', 'low-key', 'noir', 'dramatic', 'dim'];
const BRIGHT_WORDS = ['bright', 'airy', 'high-key', 'light-filled', 'luminous'];
const FLOATING = ['floating', 'levitating', 'suspended', 'hovering', 'mid-air', 'midair', 'in the air'];

/** `A sunlit counter` → `a sunlit counter`; a name stays as it is. */
function articleLower(s: string): string {
  const m = /^(a|an|the|our|my|this|these|those)\b/i.exec(s);
  return m ? m[1]!.toLowerCase() + s.slice(m[1]!.length) : midSentence(s);
}

/** Composition wording for the aspect ratio (or the shape the prompt asks for when there is none) and the framing. */
function compositionOf(
  aspectRatio: SceneAspectRatio | undefined,
  scan: string,
  ref: { the: string; it: string },
  close: boolean,
  overhead: boolean,
): string {
  const the = ref.the;
  const shape = aspectRatio ? shapeOf(aspectRatio) : requestedShapes(scan).find((r) => !r.ratio)?.shape;
  if (close) return `Tight ${shape ? `${SHAPE_NAMES[shape]} ` : ''}framing, ${the} filling most of the frame.`;
  if (overhead)
    return `${shape ? `${cap(SHAPE_NAMES[shape])} composition` : 'Composition'} seen from directly above, ${the} centred with even spacing around ${ref.it}.`;
  if (aspectRatio === '9:16')
    return `Tall vertical composition, ${the} just below centre with open space above; the top and bottom edges free of key detail.`;
  if (shape === 'portrait') return `Vertical composition, ${the} just below centre with open space above.`;
  if (shape === 'square') return `Balanced square composition with ${the} centred.`;
  if (aspectRatio === '21:9') return `Panoramic composition with ${the} off-centre and open space to one side.`;
  if (aspectRatio === '16:9' || (!aspectRatio && shape === 'landscape'))
    return `Wide composition with ${the} off-centre and open space to one side.`;
  if (shape === 'landscape') return `Horizontal composition with ${the} slightly off-centre and room to breathe.`;
  return `Centred composition with comfortable space around ${the}.`;
}

/** "blue gradient", "pink backdrop", "sky": the backdrop the prompt names, with its colour word. */
function backdropPhrase(scan: string): string | undefined {
  const colours = [...KNOWN_COLOUR_WORDS].map(escapeRe).join('|');
  const m = new RegExp(
    `(?<![\\p{L}])(?:(${colours})[\\s-]+)?(gradient|backdrop|background|wall|sky)(?![\\p{L}])`,
    'iu',
  ).exec(scan);
  if (!m) return undefined;
  return m[1] ? `${m[1]} ${m[2]}` : m[2] === 'sky' || m[2] === 'gradient' ? m[2] : undefined;
}

/**
 * A short title-case name for the direction: [mood or light] [time] [place] [at event], e.g.
 * "Warm Morning Marble", "Cozy Mediterranean Breakfast at Sunset", "Refined Marble".
 */
export function themeOf(o: {
  input: SceneEnhancementInput;
  look: Look;
  scan: string;
  envText: string;
  style: string[];
  light?: string | undefined;
  /** Whether the tone's set was used (then its place names the theme when nothing else does). */
  toneSet?: boolean;
}): string {
  const { input, look, scan, envText, style } = o;
  const styleAdj = style
    .map((s) => (s in STYLE_WORDS ? STYLE_WORDS[s]?.adj : s))
    .find((s): s is string => !!s && /^[\p{L}-]+$/u.test(s));
  const lightAdj = o.light ? firstOf(o.light.toLowerCase().split(/[ ,]+/)[0]!, MOOD) : undefined;
  // A mood word inside a time of day ("golden" of "golden hour") belongs to the time.
  const moodScan = scan.replace(wordsRe(TIME_AFTER, 'giu'), ' ~ ');
  const adj =
    firstOf(moodScan, MOOD) ??
    firstOf(envText, MOOD) ??
    styleAdj ??
    (input.brand ? look.themeAdj : undefined) ??
    lightAdj;
  const setting = findSetting(scan)?.term;
  const region = firstOf(scan, REGION);
  const occasion = firstOf(scan, OCCASION);
  // A place and an occasion together name the theme: "Beach Picnic", "Park Picnic".
  const event = occasion && setting ? `${setting} ${occasion}` : (occasion ?? setting);
  const surface = findSurface(scan);
  const envPlace = findSetting(envText)?.term ?? findSurface(envText);
  const place =
    [region, event].filter(Boolean).join(' ') ||
    (surface && !['surface', 'floor', 'ground'].includes(surface) ? surface : undefined) ||
    envPlace ||
    backdropPhrase(scan) ||
    (o.toneSet ? look.themePlace : undefined) ||
    (input.environment ? 'Scene' : DEFAULT_LOOK.themePlace);
  const before = firstOf(scan, TIME_BEFORE);
  const after = firstOf(scan, TIME_AFTER);
  const words = [
    adj ?? (before || after ? undefined : 'Soft'),
    before,
    place,
    after ? `at ${after}` : undefined,
  ].filter((w): w is string => !!w);
  return titleCase(words).slice(0, SCENE_THEME_MAX) || 'Product Scene';
}

import { type CameraMove, chooseCameraMove } from '../../video/camera.ts';
import type {
  FrameContext,
  VideoEnhancement,
  VideoEnhancementInput,
  VideoEnhancer,
  VideoWarning,
} from '../video-enhancer.ts';
import {
  coloursContradict,
  coloursFirst,
  copyNouns,
  escapeRe,
  isColourWord,
  nounsIn,
  otherHeroes,
  pluralOf,
  promptHeroes,
} from './product-words.ts';
import {
  aspectMismatch,
  avoidList,
  brandWordAvoided,
  cap,
  cleanText,
  cutWords,
  endSentence,
  heroWord,
  hexToWords,
  joinList,
  midSentence,
  paletteWord,
  productPhrase,
  productWordsOf,
  promptTruncated,
  usefulTags,
} from './scene-enhancer.local.ts';

/**
 * The local image-to-video prompt enhancer: rule-based, deterministic and pure (no clock, no
 * randomness, no I/O). It keeps the user's prompt whole as the first sentence (whitespace
 * normalised, hex colour codes turned into colour words) and adds, in this order:
 *
 *   camera (one move of the video engine's vocabulary, with speed and easing) · subject (the start
 *   frame, or the reference images) · references one by one (video-model-8) · motion within the
 *   frame · pacing beats timed to the duration, with the dissolves through intermediate frames and
 *   the landing on the end frame · composition for the aspect ratio · brand look (tone and palette
 *   as colour words) · audio (only with enableAudio: ambience, foley, music mood, a sync point) ·
 *   finish.
 *
 * The camera sentence comes right after the user's text and opens with the move's words, so the
 * earliest camera phrase of the result is either the user's (their move is kept) or ours, and
 * `chooseCameraMove(enhancedPrompt)` reads back `camera`. Without a move in the prompt one is
 * chosen for the subject and duration: static for 3 s or less (or when the prompt asks for a still
 * camera), a pan (a tilt in 9:16) for wide scenes or a crane up when they are to be revealed, a
 * push-in for products in short clips and an orbit in longer ones, a dolly for people and for
 * clips keyed by an end or intermediate frames, an orbit when the user has the subject turn
 * ("the cap turning slowly"; the beats then say that motion). Our own sentences use no other
 * move's words.
 *
 * The subject is named in full once, in the subject sentence (the frame's description, else the
 * user's own noun phrase, else the frame's name with its colours before the noun: "the red cap"),
 * and by its short noun everywhere else ("the cap"; "the mugs" for a set, with "their" and "them").
 * A product the prompt names that the frame does not show ("The red cap…" over a frame of a
 * T-shirt) is not the subject: the frame's product is, and the other is written as secondary
 * (MULTIPLE_HEROES). File names that mean nothing (`end.jpg`,
 * `frame1.png`, uuids…) name nothing: such frames are "the end frame" / "the next frame".
 *
 * No addition contains a word the brand avoids (a frame description that does is replaced by its
 * tags or a neutral name); the user's own words are kept and warned about. When everything does
 * not fit in `maxChars`, the least important additions are shortened or left out first: finish,
 * then composition, then motion within the frame and audio; the brand look is kept longer.
 *
 * Warnings: see VIDEO_WARNING_CODES in ../video-enhancer.ts; videoWarnings() computes the ones
 * that depend on the input only, for the OpenAI-compatible enhancer too.
 */
export function createLocalVideoEnhancer(): VideoEnhancer {
  return { name: 'local', enhance: async (input) => enhanceVideo(input) };
}

// --------------------------------------------------------------------------------------------
// Text helpers

/** `word` as a whole word (or phrase: spaces and hyphens interchangeable), case-insensitive. */
const wordRe = (word: string) =>
  new RegExp(
    `(?<![\\p{L}\\p{N}])${word
      .split(/[\s-]+/)
      .map(escapeRe)
      .join('[\\s-]?')}(?![\\p{L}\\p{N}])`,
    'iu',
  );

/** Seconds as written in the prompt: `5`, `2.5`, `0.25`. */
const secs = (n: number) => String(Number(n.toFixed(2)));

/** "no music", "without people": blanked before keywords are looked for. */
const NEGATED =
  /(?<![\p{L}])(?:no|without|free of|not|never|avoid(?:ing)?|don'?t (?:show|include|add|use)|do not (?:show|include|add|use))\s+(?:[\p{L}'-]+(?:\s*,\s*|\s+(?:or|and|nor)\s+|\s+)?){1,3}/giu;
/** Compounds that contain a keyword without meaning it (a face serum shows no face). */
const FALSE_FRIENDS =
  /(?<![\p{L}])(?:face|hand|body|eye|lip|hair|foot|night|day|sun|bath|shower|room|car|home)[\s-]+(?:creams?|serums?|masks?|oils?|lotions?|balms?|wash|soaps?|scrubs?|mists?|gels?|sprays?|care|screen|block|shadows?|fragrance|diffusers?|freshener|bombs?|salts?)(?![\p{L}])/giu;
const scanOf = (s: string) => s.toLowerCase().replace(NEGATED, ' ~ ').replace(FALSE_FRIENDS, ' ~ ');

/** A regex of whole words/phrases (each may take a plural `s`/`es`). */
const lexicon = (s: string) =>
  new RegExp(`(?<![\\p{L}\\p{N}])(?:${s.split('|').map(escapeRe).join('|')})(?:e?s)?(?![\\p{L}\\p{N}])`, 'iu');

// --------------------------------------------------------------------------------------------
// Brand words to avoid

const avoidedIn = (text: string, avoid: readonly string[]) => avoid.filter((w) => wordRe(w).test(text));

// --------------------------------------------------------------------------------------------
// Camera

/**
 * The camera moves `text` names, in order, as the video engine reads them (each found by
 * chooseCameraMove on what follows the previous one).
 */
export function cameraMovesIn(text: string): { move: CameraMove; phrase: string; index: number }[] {
  const lower = text.toLowerCase();
  const out: { move: CameraMove; phrase: string; index: number }[] = [];
  let offset = 0;
  while (out.length < 20 && offset < lower.length) {
    const rest = lower.slice(offset);
    const c = chooseCameraMove(rest, 0);
    if (c.source !== 'prompt' || !c.phrase) break;
    const m = new RegExp(`\\b${escapeRe(c.phrase)}\\b`).exec(rest);
    if (!m) break;
    out.push({ move: c.move, phrase: c.phrase, index: offset + m.index });
    offset += m.index + Math.max(1, c.phrase.length);
  }
  return out;
}

/** A still camera asked for in words the engine's vocabulary does not have. */
const STILL =
  /(?<![\p{L}])(?:no camera (?:movement|moves|motion)|without (?:any )?camera (?:movement|motion)|(?:camera|shot|frame) (?:stays|remains|holds|is) (?:still|fixed|steady|locked)|fixed (?:camera|shot|frame)|stationary camera|locked camera|camera does not move|camera doesn'?t move)(?![\p{L}])/iu;
/** Scenes that are wide whatever else they show. */
const WIDE_STRONG = lexicon(
  'wide shot|wide-angle shot|establishing shot|panorama|panoramic|vista|skyline|cityscape|aerial|drone shot|seascape|mountain range|valley',
);
/** Places that make a wide scene when no product is the subject. */
const WIDE = lexicon(
  'beach|coast|coastline|ocean|sea|lake|river|forest|jungle|mountain|hills|field|meadow|desert|countryside|' +
    'city|street|avenue|plaza|square|market|harbour|harbor|landscape|interior|room|living room|lobby|hall|' +
    'store|shop|boutique|showroom|restaurant|cafe|café|office|warehouse|stadium|park|garden|vineyard|horizon',
);
/** Tall subjects (a tilt suits them in 9:16). */
const TALL = lexicon(
  'building|tower|skyscraper|waterfall|tree|facade|façade|staircase|lighthouse|cathedral|column|full-length|full length',
);
/** Objects worth seeing from around. */
const OBJECT = lexicon(
  'product|bottle|serum|perfume|fragrance|cologne|jar|tube|can|sneaker|shoe|boot|trainer|watch|ring|necklace|' +
    'bracelet|earring|jewelry|jewellery|handbag|bag|backpack|wallet|sunglasses|glasses|headphones|earbuds|' +
    'speaker|phone|smartphone|laptop|camera body|console|controller|chair|lamp|vase|sculpture|statue|' +
    'figurine|toy|helmet|mug|cup|glass|candle|box|package|packaging|car|bike|bicycle|scooter|lipstick|' +
    'compact|cream|lotion|soap|kettle|blender|appliance|gadget|device|tumbler|flask|cap|hat|beanie',
);
const PERSON = lexicon(
  'person|people|woman|women|man|men|girl|boy|model|couple|family|friends|child|children|kid|athlete|' +
    'runner|dancer|chef|customer|hands|hand|face|portrait|walking|running|dancing|lifestyle',
);
/** People on the move: the camera travels with them. */
const PERSON_ACTION = lexicon(
  'walk|walks|walking|run|runs|running|jog|jogging|dance|dances|dancing|stroll|strolls|strolling|ride|rides|riding|skate|skating|hike|hiking',
);
const REVEAL = lexicon('reveal|revealing|rise|rising|ascend|ascending|from above|overlook|overlooking|sunrise over');
const LEFTWARD = /(?<![\p{L}])(?:leftward|right to left|toward(?:s)? the left|to the left)(?![\p{L}])/iu;
const DOWNWARD = /(?<![\p{L}])(?:downward|downwards|top to bottom|from the top)(?![\p{L}])/iu;

/** The move for a prompt that names none: what suits the subject and the duration. */
export function autoCameraMove(o: {
  /** The prompt as written (a still camera asked for). */
  prompt: string;
  /** The prompt and the frames' words, negated words blanked (scanOf). */
  scan: string;
  durationSeconds: number;
  aspectRatio: '16:9' | '9:16';
  keyed: boolean;
  /** The user has the subject turn on its own ("the cap turning slowly"): the camera circles it. */
  turning?: boolean;
}): CameraMove {
  const { scan } = o;
  if (STILL.test(o.prompt) || o.durationSeconds <= 3) return 'static';
  if (o.turning) return 'orbit';
  const sideways = (): CameraMove =>
    o.aspectRatio === '9:16'
      ? DOWNWARD.test(scan)
        ? 'tilt-down'
        : 'tilt-up'
      : LEFTWARD.test(scan)
        ? 'pan-left'
        : 'pan-right';
  if (WIDE_STRONG.test(scan)) return REVEAL.test(scan) ? 'crane' : sideways();
  if (PERSON_ACTION.test(scan)) return 'dolly';
  if (OBJECT.test(scan)) return o.keyed ? 'dolly' : o.durationSeconds <= 6 ? 'push-in' : 'orbit';
  if (PERSON.test(scan)) return 'dolly';
  if (TALL.test(scan) && o.aspectRatio === '9:16') return DOWNWARD.test(scan) ? 'tilt-down' : 'tilt-up';
  if (WIDE.test(scan)) return REVEAL.test(scan) ? 'crane' : sideways();
  return o.keyed ? 'dolly' : 'push-in';
}

/**
 * The camera sentences of a move, richest first, each opening with the move's own words (nothing
 * before them is a camera phrase) and naming no other move.
 */
export function cameraSentences(
  move: CameraMove,
  s: string,
  pace: string,
  d: number,
  o: { alongside?: boolean; plural?: boolean } = {},
): string[] {
  const P = cap(pace);
  const it = o.plural ? 'them' : 'it';
  switch (move) {
    case 'static':
      return [
        `Static camera, locked off for the full ${secs(d)} s: no camera movement, all motion comes from within the frame.`,
        'Static camera, locked off.',
        'Static, locked-off shot.',
        'Static camera.',
      ];
    case 'push-in':
      return [
        `${P} push-in toward ${s}, easing in from a standstill and settling softly at the end, about 15% closer over ${secs(d)} s.`,
        `${P} push-in toward ${s}, eased in and out.`,
        'Push-in.',
      ];
    case 'pull-out':
      return [
        `${P} pull-out from ${s}, eased in and out, widening gradually to reveal more of the scene.`,
        `${P} pull-out from ${s}, eased in and out.`,
        'Pull-out.',
      ];
    case 'dolly':
      if (o.alongside) {
        return [
          `${P} dolly moving alongside ${s} at walking pace, eased in and out, with soft parallax between foreground and background.`,
          `${P} dolly alongside ${s}, eased in and out.`,
          'Dolly.',
        ];
      }
      return [
        `${P} forward dolly toward ${s}, eased in and out, with soft parallax between foreground and background.`,
        `${P} forward dolly toward ${s}, eased in and out.`,
        'Dolly.',
      ];
    case 'orbit':
      return [
        `${P} orbit around ${s}: a gentle arc of about 30 degrees at an even speed, eased in and out, ${s} kept centred.`,
        `${P} orbit around ${s}, eased in and out.`,
        'Orbit.',
      ];
    case 'pan-left':
    case 'pan-right': {
      const dir = move === 'pan-left' ? 'left' : 'right';
      return [
        `${P} pan ${dir} across the scene, eased in and out, ${s} kept in frame throughout.`,
        `${P} pan ${dir}, eased in and out.`,
        `Pan ${dir}.`,
      ];
    }
    case 'tilt-up':
      return [
        `${P} tilt up from the base of the scene to ${s}, eased in and out, settling on ${it} for the final moments.`,
        `${P} tilt up to ${s}, eased in and out.`,
        'Tilt up.',
      ];
    case 'tilt-down':
      return [
        `${P} tilt down from the top of the scene to ${s}, eased in and out, settling on ${it} for the final moments.`,
        `${P} tilt down to ${s}, eased in and out.`,
        'Tilt down.',
      ];
    case 'crane':
      return [
        `${P} crane up, rising over ${s} to reveal the wider scene, eased in and out.`,
        `${P} crane up over ${s}, eased in and out.`,
        'Crane up.',
      ];
  }
}

/** Sentences about the user's own move, when our canonical words would contradict theirs ("pan to the left"). */
const keepUserMove = (phrase: string, pace: string) => [
  `Camera: keep the ${phrase} as written, ${pace} and eased in and out.`,
  `Camera: keep the ${phrase} as written.`,
];

/** A move named without its direction (`pan`, `tilt`) while the prompt says the other one. */
function directionClash(move: CameraMove, phrase: string, text: string): boolean {
  if (/\b(?:left|right|up|down)\b/.test(phrase)) return false;
  if (move === 'pan-right') return /\bleft(?:ward|wards)?\b/i.test(text);
  if (move === 'tilt-up') return /\bdown(?:ward|wards)?\b/i.test(text);
  return false;
}

// --------------------------------------------------------------------------------------------
// Frames

/** File-name words that say nothing about what a frame shows (`end.jpg`, `frame1.png`, `IMG_1234`). */
const NAME_NOISE = new Set(
  (
    'img|dsc|dscn|dcim|pxl|mvimg|gopr|image|images|photo|photos|pic|pics|picture|pictures|final|copy|edit|edited|' +
    'untitled|unnamed|scaled|cropped|crop|web|hires|hi|lo|res|lores|png|jpg|jpeg|webp|heic|tif|tiff|gif|avif|' +
    'mp4|mov|webm|large|small|thumb|thumbnail|retina|new|mockup|start|starting|end|ending|begin|beginning|first|' +
    'last|middle|mid|intermediate|inter|next|prev|previous|before|after|frame|frames|keyframe|key|still|stills|' +
    'ref|refs|reference|references|sample|example|test|tmp|temp|asset|assets|file|upload|uploaded|download|' +
    'screenshot|screen|shot|capture|scan|clip|clips|video|vid|movie|output|input|out|in|source|src|target|' +
    'whatsapp|signal|telegram|one|two|three|version|draft|export|render|the|of|and'
  ).split('|'),
);
const UUID_NAME = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * The words of a file name that say what it shows ("Red-Cap_v2.png" → "red cap"), or undefined
 * for names that carry no meaning: `end.jpg`, `start.png`, `frame1.png`, `IMG_1234.jpg`, uuids…
 */
export function meaningfulFileName(fileName: string | undefined): string | undefined {
  if (!fileName) return undefined;
  const base = cleanText(fileName)
    .replace(/^.*[\\/]/, '')
    .replace(/\.[a-z0-9]{2,5}$/i, '');
  if (UUID_NAME.test(base)) return undefined;
  const words = base
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .split(/[\s_.\-()[\]+,@#~]+/)
    .flatMap((w) => {
      if (/\d/.test(w)) {
        if (/^[0-9a-f]{4,}$/i.test(w)) return []; // a hash or a uuid's part
        w = w.replace(/\d+/g, '');
        if (w.length <= 2) return []; // v2, 4k, x1920
      }
      const low = w.toLowerCase();
      return low && /\p{L}/u.test(low) && low.length <= 30 && !NAME_NOISE.has(low) ? [low] : [];
    });
  return words.length ? words.slice(0, 6).join(' ') : undefined;
}

/** Tags that name no subject: generic words and the tags Atelier puts on what it generates. */
const GENERIC_TAG =
  /^(?:product|products|photo|image|picture|object|item|thing|frame|background|generated|scene|video|environment|logo|still|render|shot|clip)$/;

/** A frame's colour words, strongest first (for the subject's own colours, white is left out on a plain packshot background). */
function frameColours(f: FrameContext | undefined, subject = false): string[] {
  const plain = subject && (f?.tags ?? []).some((t) => /plain[-\s]background/.test(t));
  return [
    ...new Set(
      (f?.colors ?? [])
        .map((c) => cleanText(c).toLowerCase().replace(/-/g, ' '))
        .filter((c) => c && !(plain && c === 'white')),
    ),
  ].slice(0, 3);
}

/** What a frame shows, in words: the full phrase, and the short noun that refers back to it. */
interface FrameName {
  /** First mention: "the vitamin C face serum in an amber glass dropper bottle", "the red cap". */
  full: string;
  /** Later mentions: "the serum", "the cap". */
  short: string;
  /** From the owner's description (richer than a name or tags). */
  described: boolean;
  /** Several objects (a set, a pack, a plural noun): referred back to in the plural. */
  many: boolean;
}

/** The noun at the end of a phrase's head: "the canvas tote bag with leather handles" → "tote bag". */
function headNoun(phrase: string): string {
  const core = phrase
    .replace(/^(?:the|a|an|our|my|your|this|these|those)\s+/i, '')
    .split(
      /\s*(?:,|;|:|—|–|\(|\s(?:with|in|on|at|of|beside|against|over|under|near|by|from|for|and|or|that|which|featuring|showing)\s)/i,
    )[0]!
    .trim();
  const words = core.split(/\s+/).filter(Boolean);
  return words.length <= 2 ? words.join(' ') : words.at(-1)!;
}

/**
 * How the prompt names what a frame shows, if its description, tags or file name say anything.
 * `colours: false` leaves its colour words out (the prompt gives it others: "the red cap" for a
 * black one). A set ("mug_set.png") is referred back to in the plural: "the mugs".
 */
function nameFrame(
  f: FrameContext | undefined,
  avoid: readonly string[],
  opts: { colours?: boolean } = {},
): FrameName | undefined {
  if (!f) return undefined;
  const withColours = opts.colours !== false;
  const ok = (p: string | undefined) => (p && !avoidedIn(p, avoid).length ? p : undefined);
  const colourWords = new Set(frameColours(f));
  const tags = usefulTags(f.tags).filter(
    (t) => !GENERIC_TAG.test(t) && !colourWords.has(t) && !avoidedIn(t, avoid).length,
  );
  const tag = tags.find((t) => t.split(' ').length <= 3);
  const fileWords = meaningfulFileName(f.fileName);
  // A copywriter's order and spelling: "solidus_cap_red" is the red solidus cap.
  const written = fileWords && !GENERIC_TAG.test(fileWords) ? copyNouns(fileWords) : undefined;
  const name = ok(
    written &&
      (withColours
        ? coloursFirst(written)
        : written
            .split(' ')
            .filter((w) => !isColourWord(w))
            .join(' ') || written),
  );
  const words = productWordsOf(f);
  const many = words.many;
  /** The noun that refers back: the product noun (plural for a set), else the object word, tag or head noun. */
  const shortOf = (full: string, fallback: string) => {
    if (many && words.noun) return `the ${copyNouns(pluralOf(words.noun))}`;
    const object = OBJECT.exec(scanOf(full))?.[0];
    return `the ${object ? object.toLowerCase() : words.noun ? copyNouns(words.noun) : fallback}`;
  };
  if (cleanText(f.description ?? '')) {
    const full = ok(productPhrase({ ...f, fileName: name }, 0, 1, { colours: withColours }));
    if (full && full !== 'the product')
      return { full, short: shortOf(full, tag ?? headNoun(full)), described: true, many };
  }
  // A name, or the tag that says more than it ("grove.jpg" tagged "lemon grove"), colours before the noun.
  const noun = (name && tags.find((t) => ` ${t} `.includes(` ${name} `))) ?? name ?? tags[0];
  if (!noun) return undefined;
  const colours =
    withColours && !noun.split(' ').some((w) => isColourWord(w))
      ? frameColours(f, true)
          .filter((c) => !` ${noun} `.includes(` ${c} `))
          .slice(0, 2)
      : [];
  const full = `the ${colours.length ? `${joinList(colours)} ` : ''}${noun}`;
  return ok(full)
    ? {
        full,
        short: shortOf(full, noun.split(' ').length <= 3 ? noun : headNoun(noun)),
        described: false,
        many,
      }
    : undefined;
}

/** Whether a frame tells anything about what it shows. */
const telling = (f: FrameContext | undefined) => !!nameFrame(f, []) || frameColours(f).length > 0;

/** Determiners and other words that end a noun phrase when reading back from its noun. */
const NP_STOP = new Set(
  (
    'the|a|an|our|my|your|their|his|her|its|this|that|these|those|of|on|in|at|with|by|for|from|to|into|onto|over|' +
    'under|near|beside|behind|around|across|through|and|or|but|nor|is|are|was|were|be|as|while|then|than|so|' +
    'show|shows|showing|see|sees|seeing|film|films|filming|shoot|video|clip|shot|close-up|closeup|of'
  ).split('|'),
);

/**
 * The user's own noun phrase for the subject ("the red cap turning slowly" → "the red cap"): the
 * noun `head` (or its plural) with up to three words before it, read as "the …". Undefined when
 * the text does not name it, or when the phrase would name a camera move or a word the brand avoids.
 */
function userNounPhrase(text: string, head: string, avoid: readonly string[]): string | undefined {
  const last = head.split(' ').at(-1)!;
  if (!last || last.length < 2) return undefined;
  const m = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(last)}(?:e?s)?(?![\\p{L}\\p{N}])`, 'iu').exec(text);
  if (!m) return undefined;
  const before = text.slice(0, m.index).split(/\s+/).filter(Boolean);
  const mods: string[] = [];
  while (mods.length < 3 && before.length) {
    const w = before.at(-1)!;
    if (!/^[\p{L}\p{N}][\p{L}\p{N}'’-]*$/u.test(w) || NP_STOP.has(w.toLowerCase())) break;
    mods.unshift(w);
    before.pop();
  }
  const phrase = midSentence([...mods, m[0]].join(' '));
  const full = `the ${phrase}`;
  return avoidedIn(full, avoid).length || cameraMovesIn(full).length ? undefined : full;
}

/** The subject's own motion the user describes (an -ing form), with its manner: "turning slowly". */
const ACTIONS: [RegExp, string, boolean][] = [
  [/^(?:turn|turns|turning)$/, 'turning', true],
  [/^(?:spin|spins|spinning)$/, 'spinning', true],
  [/^(?:rotate|rotates|rotating)$/, 'rotating', true],
  [/^(?:revolve|revolves|revolving)$/, 'revolving', true],
  [/^(?:twirl|twirls|twirling)$/, 'twirling', true],
  [/^(?:swivel|swivels|swivell?ing)$/, 'swivelling', true],
  [/^(?:float|floats|floating)$/, 'floating', false],
  [/^(?:hover|hovers|hovering)$/, 'hovering', false],
  [/^(?:bounce|bounces|bouncing)$/, 'bouncing', false],
  [/^(?:sway|sways|swaying)$/, 'swaying', false],
];
const MANNER = /^(?:slowly|gently|steadily|smoothly|softly|lazily|gracefully|quickly|fast|rapidly|continuously)$/;

/**
 * The subject's motion in the user's words: an action word just after the subject's noun (or
 * before it: "the slowly turning cap"), or a turning word anywhere when the text does not name
 * the subject. Negated words ("not spinning") are left out.
 */
function subjectAction(text: string, head: string | undefined): { words: string; turning: boolean } | undefined {
  const tokens = scanOf(text).match(/[\p{L}\p{N}'’~-]+/gu) ?? [];
  const last = head?.split(' ').at(-1);
  const at = last ? tokens.findIndex((t) => t === last || t === `${last}s` || t === `${last}es`) : -1;
  const window =
    at >= 0
      ? [
          ...tokens.slice(at + 1, at + 5).map((t, i) => [t, at + 1 + i] as const),
          ...[at - 1, at - 2].map((i) => [tokens[i] ?? '', i] as const),
        ]
      : tokens.map((t, i) => [t, i] as const);
  for (const [t, i] of window) {
    const hit = ACTIONS.find(([re]) => re.test(t));
    if (!hit || (at < 0 && !hit[2])) continue;
    const manner = [tokens[i + 1], tokens[i - 1]].find((w) => w && MANNER.test(w));
    return { words: `${hit[1]}${manner ? ` ${manner}` : ''}`, turning: hit[2] };
  }
  return undefined;
}

/** The text the keyword rules read: the prompt and what the frames say (negated words blanked). */
function frameWords(f: FrameContext | undefined): string {
  return f ? `${cleanText(f.description ?? '')} ${usefulTags(f.tags).join(', ')}` : '';
}

// --------------------------------------------------------------------------------------------
// Pacing

/**
 * Interior beat boundaries at `fractions` of `d`, rounded to the coarsest step (1, 0.5, 0.1 or
 * 0.01 s) that keeps them strictly increasing inside (0, d).
 */
export function beatTimes(d: number, fractions: number[]): number[] {
  for (const step of [1, 0.5, 0.1, 0.01]) {
    if (step === 1 && d < 2 * (fractions.length + 1)) continue;
    const ts = fractions.map((f) => Math.round((d * f) / step) * step);
    if (ts.every((t, i) => t > 0 && t < d && (i === 0 || t > ts[i - 1]!))) return ts.map((t) => Number(t.toFixed(2)));
  }
  return fractions.map((f) => Number((d * f).toFixed(2)));
}

/** The number of beats a clip without intermediate frames gets. */
const beatCount = (d: number) => (d <= 3 ? 1 : d <= 6 ? 2 : d <= 12 ? 3 : 4);

const BEAT_FRACTIONS: Record<number, number[]> = { 1: [], 2: [0.75], 3: [0.2, 0.8], 4: [0.15, 0.55, 0.85] };

// --------------------------------------------------------------------------------------------
// Words for the rules

/** Tone → mood words (brands' TONES). */
const TONE_MOOD: Record<string, string[]> = {
  Luxurious: ['refined', 'elegant'],
  Playful: ['vibrant', 'joyful'],
  Professional: ['clean', 'polished'],
  Casual: ['relaxed', 'easygoing'],
  Friendly: ['warm', 'inviting'],
  Authoritative: ['confident', 'assured'],
  Innovative: ['sleek', 'modern'],
  Traditional: ['timeless', 'authentic'],
};
/** Tone → camera pace. */
const TONE_PACE: Record<string, string> = {
  Luxurious: 'slow, unhurried',
  Traditional: 'slow, unhurried',
  Playful: 'smooth, lively',
  Innovative: 'smooth, precise',
};
/** Tone → music mood. */
const TONE_MUSIC: Record<string, string> = {
  Luxurious: 'a slow, understated piano with soft strings',
  Playful: 'an upbeat, bouncy track with light percussion',
  Professional: 'a clean, modern minimal electronic bed',
  Casual: 'a relaxed acoustic guitar groove',
  Friendly: 'a warm, feel-good acoustic track',
  Authoritative: 'a steady, confident orchestral pulse',
  Innovative: 'a sleek, pulsing electronic track',
  Traditional: 'warm acoustic strings with a timeless feel',
};
const toneKey = (t: string) => cap(cleanText(t).toLowerCase());

/** [words, cue]: the first two that match give the motion within the frame. */
const MOTION_CUES: [RegExp, string][] = [
  [lexicon('coffee|tea|espresso|latte|soup|steam|steaming|hot chocolate'), 'a thin curl of steam rising'],
  [lexicon('candle|flame|fireplace|campfire|fire'), 'a softly flickering flame'],
  [
    lexicon('drink|juice|water|wine|beer|cocktail|liquid|soda|smoothie|milk|pour|pouring'),
    'light catching slow ripples in the liquid',
  ],
  [lexicon('bottle|serum|perfume|fragrance|cologne|glass|jar|vase|dropper'), 'light glinting slowly through the glass'],
  [lexicon('sea|ocean|beach|wave|lake|river|waterfall'), 'water moving in slow, rolling waves'],
  [
    lexicon('plant|flower|petal|leaf|leaves|tree|grass|garden|forest|meadow|bouquet'),
    'leaves and petals stirring in a light breeze',
  ],
  [
    lexicon('fabric|dress|scarf|curtain|linen|silk|shirt|clothing|outfit|hair|jacket|coat|sweater|gown'),
    'fabric moving gently as if in a light breeze',
  ],
  [
    lexicon('person|people|woman|man|model|girl|boy|face|hand|couple|family|child|athlete'),
    'natural, subtle movement from the person: a breath, a blink, a small shift of weight',
  ],
  [lexicon('city|street|traffic|skyline|crowd'), 'soft city life in the background, slightly out of focus'],
  [lexicon('sky|cloud|sunset|sunrise|dusk|dawn'), 'clouds drifting slowly across the sky'],
];
const DEFAULT_MOTION = 'light gliding slowly across the surfaces and a faint shimmer on the highlights';

const AMBIENCE: [RegExp, string][] = [
  [lexicon('beach|sea|ocean|coast|wave|seaside'), 'gentle waves and a light sea breeze'],
  [lexicon('cafe|café|coffee shop|bakery|restaurant|bar'), 'a low café murmur'],
  [lexicon('kitchen|cooking|chef'), 'a soft kitchen ambience'],
  [
    lexicon('forest|woods|grove|orchard|vineyard|garden|park|meadow|countryside|field|plant|flower'),
    'birdsong and leaves rustling',
  ],
  [lexicon('city|street|rooftop|urban|skyline|traffic'), 'a soft, distant city hum'],
  [lexicon('bathroom|spa|shower|bath'), 'a calm, spa-like room tone with a faint trickle of water'],
  [lexicon('rain|rainy|storm'), 'soft rainfall'],
  [lexicon('fireplace|campfire|fire'), 'a gently crackling fire'],
];
const FOLEY: [RegExp, string][] = [
  [lexicon('pour|pouring|drink|juice|coffee|tea|wine|beer|cocktail|soda'), 'a gentle pour and a soft glass clink'],
  [lexicon('glass|bottle|jar|serum|perfume|fragrance|cologne|vase'), 'a light glass clink'],
  [lexicon('fabric|dress|scarf|linen|silk|clothing|jacket|coat|outfit'), 'a soft fabric rustle'],
  [lexicon('shoe|sneaker|boot|trainer|walking|footsteps|running'), 'crisp footsteps'],
  [lexicon('paper|box|packaging|package|book|envelope'), 'a gentle paper rustle'],
  [lexicon('watch|clock'), 'a faint mechanical tick'],
  [lexicon('chips|crunch|bread|cookie|snack|cereal|toast'), 'a light, crisp crunch'],
  [lexicon('candle|flame'), 'the soft crackle of a wick'],
];

/** Sound named in a prompt. */
export const SOUND_WORDS = lexicon(
  'music|musical|soundtrack|song|audio|sound|sfx|sound effect|voiceover|voice-over|voice over|narration|narrator|' +
    'dialogue|ambience|foley|jingle|beat drop|singing|vocals|melody|piano|guitar|drums|soundscape',
);
const MUSIC_WORDS = lexicon('music|musical|soundtrack|song|jingle|melody|piano|guitar|drums|score|beat');
const SILENT =
  /(?<![\p{L}])(?:silent|silence|no (?:sound|audio)|without (?:sound|audio)|mute|muted audio)(?![\p{L}])/iu;
const NO_MUSIC = /(?<![\p{L}])(?:no|without) (?:background )?(?:music|soundtrack|score)(?![\p{L}])/iu;
const TEXT_REQUEST =
  /(?<![\p{L}\p{N}])(?:text|words?|headline|caption|slogan|typography|lettering|tagline|title|logo|logos|subtitle|subtitles)(?![\p{L}\p{N}])|["“”«»]/iu;

// --------------------------------------------------------------------------------------------
// Warnings

/**
 * The warnings that depend on the input alone (the OpenAI-compatible enhancer merges them into
 * its answer): BRAND_WORD_AVOIDED, NO_FRAME_CONTEXT, CAMERA_CONFLICT, AUDIO_CUES_IGNORED and
 * HARDSPEC_ASPECT_MISMATCH.
 */
export function videoWarnings(input: VideoEnhancementInput): VideoWarning[] {
  const prompt = cleanText(hexToWords(input.originalPrompt));
  const warnings: VideoWarning[] = [];
  const shape = input.aspectRatio === '9:16' ? 'portrait' : 'landscape';
  const clash = aspectMismatch(prompt, input.aspectRatio, shape, 'video');
  if (clash) warnings.push(clash);
  const avoided = avoidedIn(prompt, avoidList(input.brand));
  if (avoided.length) warnings.push(brandWordAvoided(avoided));
  const moves = cameraMovesIn(prompt);
  const distinct = [...new Set(moves.map((m) => m.move))];
  if (distinct.length > 1) {
    warnings.push({
      code: 'CAMERA_CONFLICT',
      severity: 'warning',
      field: 'originalPrompt',
      message: `The prompt names more than one camera move (${joinList(moves.filter((m, i) => moves.findIndex((n) => n.move === m.move) === i).map((m) => `"${m.phrase}"`))}); a clip has one, so the first (${distinct[0]}) is used.`,
    });
  }
  if (!input.enableAudio && SOUND_WORDS.test(scanOf(prompt)) && !SILENT.test(prompt)) {
    warnings.push({
      code: 'AUDIO_CUES_IGNORED',
      severity: 'info',
      field: 'enableAudio',
      message: 'The prompt describes sound but audio is off: the video will be silent. Turn enableAudio on to hear it.',
    });
  }
  const frames = input.start ? [input.start] : input.referenceImages;
  const others = otherHeroes(promptHeroes(prompt), frames.map(productWordsOf));
  if (others.length > 0) {
    const shown = joinList(frames.map((f) => nameFrame(f, [])?.full ?? 'the product'));
    const several = others.length > 1 || others[0]!.plural;
    const frame = input.start
      ? 'the start frame shows'
      : `the reference image${frames.length > 1 ? 's show' : ' shows'}`;
    warnings.push({
      code: 'MULTIPLE_HEROES',
      severity: 'warning',
      field: input.start ? 'startFrameAssetId' : 'referenceImageAssetIds',
      message:
        `The prompt names ${joinList(others.map((h) => `"${h.phrase}"`))} as ${heroWord(others)}, but ${frame} ${shown}. ` +
        `The video keeps ${shown} as the subject and ${joinList(others.map((h) => h.phrase))} secondary; ` +
        `use ${input.start ? 'a frame' : 'references'} that ${input.start ? 'shows' : 'show'} ${several ? 'them' : 'it'}, or rephrase the prompt, to change that.`,
    });
  }
  const refs = input.referenceImages.length > 0 || input.referenceVideos.length > 0;
  if (!telling(input.start) && ![...input.referenceImages, ...input.referenceVideos].some(telling)) {
    warnings.push({
      code: 'NO_FRAME_CONTEXT',
      severity: 'info',
      field: refs || input.model === 'video-model-8' ? 'referenceImageAssetIds' : 'startFrameAssetId',
      message: 'No frame or reference says what it shows: the video is written around the prompt’s words alone.',
    });
  }
  return warnings;
}

// --------------------------------------------------------------------------------------------
// The enhancer

interface Part {
  /** Richest first; the later ones are shorter fallbacks. */
  texts: string[];
  order: number;
  /** Higher is kept longer when the result must be shortened. */
  priority: number;
}

/** The local enhancement (what createLocalVideoEnhancer().enhance resolves to). Pure and deterministic. */
export function enhanceVideo(input: VideoEnhancementInput): VideoEnhancement {
  const warnings = videoWarnings(input);
  const maxChars = Math.max(1, Math.floor(Number.isFinite(input.maxChars) ? input.maxChars : 2500));
  const d = Number.isFinite(input.durationSeconds) && input.durationSeconds > 0 ? input.durationSeconds : 5;
  const D = secs(d);
  const brand = input.brand;
  const avoid = avoidList(brand);
  const clean = (ts: string[]) => ts.filter((t) => t && !avoidedIn(t, avoid).length);

  let userText = cleanText(hexToWords(input.originalPrompt));
  const userMoves = cameraMovesIn(userText);
  const start = input.start;
  const end = input.end;
  const refs = input.referenceImages;
  const clips = input.referenceVideos;
  const inters = input.intermediate;
  const scan = scanOf(
    [userText, frameWords(start), ...refs.map(frameWords), ...clips.map(frameWords), frameWords(end)].join(' . '),
  );
  const tone = (brand?.tone ?? []).map(toneKey);
  const pace =
    clean([
      tone.map((t) => TONE_PACE[t]).find(Boolean) ?? (d <= 5 ? 'gentle' : d <= 12 ? 'slow' : 'slow, unhurried'),
    ])[0] ?? 'steady';
  // The products the prompt names against what the subject's frame shows: one the frame is not
  // stays secondary (MULTIPLE_HEROES), and colours the prompt gives it otherwise are left out of ours.
  const shown = (start ? [start] : refs).map(productWordsOf);
  const heroes = promptHeroes(userText);
  const others = otherHeroes(heroes, shown);
  const recolour = start ? coloursContradict(heroes, shown[0]!) : false;
  // The subject: named in full once (the user's own noun phrase when they name it), then by a short noun.
  const startName = nameFrame(start, avoid, { colours: !recolour });
  const named = [startName, ...refs.map((r) => nameFrame(r, avoid)), nameFrame(end, avoid)].find(
    (n) => n && !cameraMovesIn(n.short).length,
  );
  // The user's own word for the subject, when they use one and it is what the frame shows, is how
  // the prompt refers to it ("the cap"; "the mugs" for a set).
  const objectWord = OBJECT.exec(scanOf(userText))?.[0]?.toLowerCase();
  const objectKind = objectWord ? nounsIn(objectWord)[0]?.kind : undefined;
  const elsewhere =
    !!objectKind &&
    shown.length > 0 &&
    shown.every((w) => w.kinds.size > 0) &&
    !shown.some((w) => w.kinds.has(objectKind));
  const userObject = elsewhere ? undefined : objectWord;
  const many = (start ? startName?.many : named?.many) ?? false;
  const s = userObject ? `the ${many ? pluralOf(userObject) : userObject}` : (named?.short ?? 'the subject');
  const its = many ? 'their' : 'its';
  const noun = s === 'the subject' ? undefined : s.slice(4);
  const userPhrase = noun ? userNounPhrase(userText, noun, avoid) : undefined;
  // The motion the user gives another product ("the red cap turning") is not the subject's.
  const action = elsewhere ? undefined : subjectAction(userText, noun);

  // Camera: the user's move, else one chosen for the subject and the duration.
  const userMove = userMoves[0];
  const camera: CameraMove =
    userMove?.move ??
    autoCameraMove({
      prompt: userText,
      scan,
      durationSeconds: d,
      aspectRatio: input.aspectRatio,
      keyed: !!end || inters.length > 0,
      turning: !!action?.turning,
    });
  const rich = cameraSentences(camera, s, pace, d, { alongside: PERSON_ACTION.test(scan), plural: many });
  const cameraTexts = userMove
    ? clean(directionClash(camera, userMove.phrase, userText) ? keepUserMove(userMove.phrase, pace) : rich)
    : (() => {
        const ok = clean(rich);
        return ok.length ? ok : [rich.at(-1)!];
      })();
  const cameraBare = cameraTexts.at(-1) ?? '';

  // The user's text, whole; cut only when it alone does not fit (possible outside the API only).
  let userCut = false;
  if (userText.length > maxChars) {
    userText = cutWords(userText, maxChars - 1);
    userCut = true;
  }
  const sentence = userText ? endSentence(/^\p{Ll}/u.test(userText) ? cap(userText) : userText) : '';
  const head = sentence.length <= maxChars ? sentence : userText;

  const parts: Part[] = [];
  if (cameraTexts.length) parts.push({ texts: cameraTexts, order: 1, priority: userMove ? 7 : 100 });

  // Subject: the start frame, else the references, else the prompt's own words.
  // The owner's description says the most; else the user's words ("the red cap"), else the frame's name.
  const bareUser = !!userPhrase && !/\s/.test(userPhrase.slice(4));
  const startColours = frameColours(start, true).slice(0, 2);
  const startPhrase = !start
    ? undefined
    : startName?.described || (bareUser && startName) || (recolour && startName)
      ? startName.full
      : userPhrase
        ? bareUser && startColours.length
          ? `the ${joinList(startColours)} ${userPhrase.slice(4)}`
          : userPhrase
        : startName?.full;
  const colours = clean(frameColours(start ?? refs[0]));
  const keep = many
    ? 'shapes, proportions, colours, labels and textures unchanged'
    : 'shape, proportions, colours, label and texture unchanged';
  // Not when the prompt gives the subject other colours: the frame keeps its own, unsaid.
  const tones =
    colours.length && !recolour
      ? ` The frame's ${joinList(colours)} tones stay consistent from first frame to last.`
      : '';
  if (startPhrase) {
    parts.push({
      texts: clean([
        `Subject: ${startPhrase}, exactly as pictured in the start frame — ${keep}, every motion subtle and physically plausible.${tones}`,
        `Subject: ${startPhrase}, exactly as pictured in the start frame — ${keep}.`,
        `Subject: ${startPhrase}, as pictured in the start frame.`,
      ]),
      order: 2,
      priority: 9,
    });
  } else if (refs.length || clips.length) {
    const what = refs.length
      ? `reference image${refs.length > 1 ? 's' : ''}`
      : `reference clip${clips.length > 1 ? 's' : ''}`;
    const refTones = colours.length
      ? ` The references' ${joinList(colours)} tones stay consistent from first frame to last.`
      : '';
    parts.push({
      texts: clean([
        `Subject: exactly as shown in the ${what}, consistent with ${refs.length > 1 || (!refs.length && clips.length > 1) ? 'them' : 'it'} in every frame — identity, ${keep}.${refTones}`,
        `Subject: exactly as shown in the ${what} — identity, ${keep}.`,
        `Subject: exactly as shown in the ${what}.`,
      ]),
      order: 2,
      priority: 9,
    });
  } else {
    parts.push({
      texts: clean([
        start
          ? 'Subject: as pictured in the start frame, its shape, proportions, colours and texture unchanged from the first frame to the last.'
          : 'Subject: as the prompt describes, its shape, colours and proportions consistent from the first frame to the last.',
      ]),
      order: 2,
      priority: 9,
    });
  }

  // A product the prompt names that the frame does not show stays out of the way: one subject.
  if (others.length > 0) {
    const several = others.length > 1 || others[0]!.plural;
    parts.push({
      texts: clean([
        `${cap(joinList(others.map((h) => h.phrase)))} ${several ? 'stay' : 'stays'} secondary: smaller, further back and out of the main focus.`,
      ]),
      order: 2.5,
      priority: 8.5,
    });
  }

  // References (video-model-8), one sentence each: the first few matter most.
  refs.forEach((r, i) => {
    const p = nameFrame(r, avoid)?.full;
    if (!p) return;
    parts.push({
      texts: clean([`Reference image ${i + 1}: ${p}.`]),
      order: 3 + i / 1000,
      priority: i < 3 ? 7 : 4.5 - i / 1000,
    });
  });
  clips.forEach((c, i) => {
    const p = nameFrame(c, avoid)?.full;
    const dur =
      c.durationSeconds && Number.isFinite(c.durationSeconds) && c.durationSeconds > 0
        ? ` (${secs(c.durationSeconds)} s)`
        : '';
    parts.push({
      texts: clean([
        `Reference clip ${i + 1}${dur}${p ? `: ${p}` : ''} — take its motion, rhythm and energy as the guide.`,
        `Reference clip ${i + 1}${dur}: follow its motion and rhythm.`,
      ]),
      order: 3.5 + i / 1000,
      priority: i < 2 ? 7 : 4.4 - i / 1000,
    });
  });

  // Motion within the frame.
  const cues = MOTION_CUES.filter(([re]) => re.test(scan))
    .map(([, cue]) => cue)
    .slice(0, 2);
  const motion = clean([
    `Motion within the frame: ${joinList(cues.length ? cues : [DEFAULT_MOTION])}; nothing melts, warps or changes shape.`,
    `Motion within the frame: ${cues[0] ?? DEFAULT_MOTION}.`,
    'Motion within the frame stays subtle and natural.',
  ]);
  if (motion.length) parts.push({ texts: motion, order: 4, priority: 4 });

  // Pacing, transitions through the intermediate frames, landing on the end frame. A frame that
  // says nothing of what it shows is called "the end frame" / "the next frame", nothing more.
  const endName = end ? nameFrame(end, avoid)?.full : undefined;
  const endAside = endName ? ` — ${endName} —` : '';
  const still = camera === 'static';
  const opening = startPhrase ? `open on ${s} as in the start frame` : `establish ${s}`;
  const landing = end
    ? `land on the end frame${endAside} and hold`
    : still
      ? `hold on ${s}`
      : `the move settles and holds on ${s} in ${its} final framing`;
  let holdAt: number | undefined;
  const pacing: string[] = [];
  if (inters.length) {
    const k = inters.length;
    const ts = beatTimes(
      d,
      inters.map((_, i) => (i + 1) / (k + 1)),
    );
    holdAt = ts.at(-1);
    const names = inters.map((f) => nameFrame(f, avoid)?.full ?? 'the next frame');
    const seg = (i: number, withNames: boolean) => {
      const from = ts[i]!;
      const to = i + 1 < k ? ts[i + 1]! : d;
      const name = withNames ? names[i]! : 'the next frame';
      const tail =
        i + 1 < k
          ? ''
          : end
            ? `, then carry through to the end frame${withNames ? endAside : ''} and land on it at ${D} s`
            : ', holding on it to the end';
      return `at ~${secs(from)} s dissolve smoothly into ${name} (${secs(from)}–${secs(to)} s)${tail}`;
    };
    const intro = `0–${secs(ts[0]!)} s, ${opening}${still ? '' : ' as the camera move eases in'}`;
    for (const withNames of [true, false]) {
      pacing.push(
        `Pacing and transitions (${D} s): ${intro}; ${inters.map((_, i) => seg(i, withNames)).join('; ')}. The camera move continues evenly through every dissolve.`,
      );
    }
  } else {
    const n = beatCount(d);
    const ts = beatTimes(d, BEAT_FRACTIONS[n]!);
    holdAt = ts.at(-1);
    const easing = still ? 'the frame holding still' : 'the camera move easing in';
    const finalBeat = (from: number) => `final ${secs(d - from)} s (${secs(from)}–${D} s), ${landing}`;
    // With the subject's own motion ("turning slowly") in the beats, and without it as a fallback.
    for (const act of [...new Set([action?.words, undefined])]) {
      const already = act ? `, already ${act},` : ',';
      const middle = act
        ? `${s} ${many ? 'keep' : 'keeps'} ${act}${still ? ' while the frame holds still' : camera === 'orbit' ? ` as the camera circles, showing ${its} form, texture and light` : ' as the camera move continues at an even speed'}`
        : still
          ? 'the motion within the frame carries the shot'
          : `the move continues at an even speed, revealing form, texture and light on ${s}`;
      const start0 = `0–${secs(ts[0] ?? d)} s, ${opening}`;
      if (n === 1) {
        pacing.push(
          `Pacing (${D} s, one continuous beat): ${start0}${act ? `, ${act}` : ''}, ${end ? `easing into the end frame${endName ? ` — ${endName}` : ''}` : still ? 'the frame holding still' : 'the camera settling at the end'}.`,
        );
      } else if (n === 2) {
        pacing.push(`Pacing (${D} s): ${start0}${already} ${easing}; ${finalBeat(ts[0]!)}.`);
      } else if (n === 3) {
        pacing.push(
          `Pacing (${D} s): ${start0}, ${easing}; ${secs(ts[0]!)}–${secs(ts[1]!)} s, ${middle}; ${finalBeat(ts[1]!)}.`,
        );
      } else {
        pacing.push(
          `Pacing (${D} s): ${start0}, ${easing}; ${secs(ts[0]!)}–${secs(ts[1]!)} s, ${middle}; ${secs(ts[1]!)}–${secs(ts[2]!)} s, linger on the details: texture, finish and highlights; ${finalBeat(ts[2]!)}.`,
        );
      }
    }
  }
  const pacingTexts = clean(pacing);
  if (pacingTexts.length) parts.push({ texts: pacingTexts, order: 5, priority: 8 });

  // Composition for the aspect ratio (an orbit keeps its subject centred).
  const centred = camera === 'orbit';
  parts.push({
    texts: clean(
      input.aspectRatio === '9:16'
        ? [
            `Composition: vertical 9:16 framing for mobile screens, ${s} centred in the upper-middle of the frame with headroom above, key detail kept clear of the top and bottom edges where captions and app controls sit.`,
            `Composition: vertical 9:16 framing, ${s} centred with headroom above.`,
          ]
        : centred
          ? [
              `Composition: widescreen 16:9 framing, ${s} centred with even space on both sides, horizon and verticals level.`,
              `Composition: widescreen 16:9 framing, ${s} centred.`,
            ]
          : [
              `Composition: widescreen 16:9 framing, ${s} placed on a third with open space on the other side for the camera to travel into, horizon and verticals level.`,
              `Composition: widescreen 16:9 framing, ${s} placed on a third.`,
            ],
    ),
    order: 6,
    priority: 3.5,
  });

  // Brand look: tone words and palette colour words.
  if (brand) {
    const mood = clean([
      ...new Set(
        tone.flatMap((t, i) =>
          TONE_MOOD[t] ? TONE_MOOD[t]!.slice(0, i === 0 ? 2 : 1) : /^[\p{L}-]{2,20}$/u.test(t) ? [t.toLowerCase()] : [],
        ),
      ),
    ]).slice(0, 3);
    const toneWord = clean(tone.slice(0, 1).map((t) => t.toLowerCase()))[0];
    const style = clean([
      ...new Set(
        (brand.imageryStyle ?? [])
          .map((w) => cleanText(w).toLowerCase())
          .filter((w) => /^[\p{L}][\p{L} '-]{0,30}$/u.test(w) && w.split(' ').length <= 2),
      ),
    ]).slice(0, 3);
    const palette = clean([
      ...new Set(
        brand.palette
          .filter((e) => e.role !== 'text')
          .map((e) => paletteWord(e))
          .filter((w): w is string => !!w),
      ),
    ]).slice(0, 4);
    const feel = mood.length
      ? `${joinList(mood)}${toneWord && !mood.includes(toneWord) ? `, true to the brand's ${toneWord} tone` : ''}${style.length ? `, with ${joinList(style)} imagery` : ''}`
      : style.length
        ? `${joinList(style)} imagery`
        : '';
    const colours = palette.length ? `a palette of ${joinList(palette)}` : '';
    const texts = clean(
      [
        feel && colours
          ? `Brand look: ${feel}; ${colours} carried through the colour grade, set details and light accents, never overpowering ${s}.`
          : '',
        feel && colours
          ? `Brand look: ${joinList(mood.length ? mood : style)}; ${colours} in the colour grade and accents.`
          : '',
        colours ? `Brand look: ${colours} in the colour grade and accents, never overpowering ${s}.` : '',
        feel ? `Brand look: ${feel}.` : '',
      ].filter((t, i, all) => t && all.indexOf(t) === i),
    );
    if (texts.length) parts.push({ texts, order: 7, priority: 6.5 });
  }

  // Audio, only when the clip has sound.
  if (input.enableAudio && !SILENT.test(userText)) {
    const ambience = AMBIENCE.find(([re]) => re.test(scan))?.[1] ?? 'a quiet, clean room tone';
    const foley = FOLEY.find(([re]) => re.test(scan))?.[1] ?? 'subtle foley matching the on-screen motion';
    const userMusic = MUSIC_WORDS.test(scanOf(userText));
    const music = NO_MUSIC.test(userText)
      ? undefined
      : userMusic
        ? 'the music as described'
        : (tone.map((t) => TONE_MUSIC[t]).find(Boolean) ?? 'a light, unobtrusive music bed');
    const at = holdAt ?? beatTimes(d, [0.5])[0]!;
    const settle = inters.length
      ? 'the last dissolve completes'
      : still
        ? 'the final hold begins'
        : 'the camera move settles';
    const sync = music
      ? `a soft musical accent at ~${secs(at)} s as ${settle}${inters.length ? ', each dissolve on a downbeat' : ''}`
      : `the foley peaking at ~${secs(at)} s as ${settle}`;
    const texts = clean([
      `Audio: ${ambience}, ${foley}${music ? ` and ${music}${brand && !userMusic ? ` to match the brand's tone` : ''}` : ''}; ${sync}.`,
      `Audio: ${ambience}, ${foley}${music && !userMusic ? ` and ${music}` : ''}; ${sync}.`,
      `Audio: ${ambience} and ${foley}.`,
      `Audio: ${ambience}.`,
    ]);
    if (texts.length) parts.push({ texts, order: 8, priority: 5 });
  }

  // Finish, last.
  const noText = TEXT_REQUEST.test(userText.replace(NEGATED, ' ')) ? '' : ', no added text or logos';
  const finish = clean([
    `Finish: photorealistic, smooth natural motion, light and colour consistent throughout, no flicker, warping or morphing of ${s}${noText}.`,
    'Finish: photorealistic, smooth natural motion, no flicker.',
  ]);
  if (finish.length) parts.push({ texts: finish, order: 9, priority: 3 });

  // Assemble within the bound: the least important additions are shortened, then left out, first.
  parts.sort((a, b) => a.order - b.order);
  const choice = parts.map(() => 0);
  let kept = parts.map((_, i) => i);
  const join = () => [head, ...kept.map((i) => parts[i]!.texts[choice[i]!]!)].filter(Boolean).join(' ');
  let shortened = 0;
  let text = join();
  while (text.length > maxChars && kept.length) {
    const lowest = kept.reduce((lo, i) => (parts[i]!.priority < parts[lo]!.priority ? i : lo), kept.at(-1)!);
    const part = parts[lowest]!;
    if (choice[lowest]! + 1 < part.texts.length) choice[lowest]!++;
    else kept = kept.filter((i) => i !== lowest);
    shortened++;
    text = join();
  }
  if (text.length > maxChars) text = cutWords(text, maxChars);
  if (!text) text = cutWords(cameraBare || 'Static camera.', maxChars);
  const unnamed = !userMove && !kept.some((i) => parts[i]!.order === 1);
  if (userCut || shortened) {
    warnings.push(
      promptTruncated(
        userCut,
        userCut
          ? `The prompt is longer than the ${maxChars} characters the model takes and was cut at a word boundary.`
          : unnamed
            ? `The prompt leaves no room within ${maxChars} characters: nothing was added, not even the camera move (${camera} is suggested; the prompt does not name it).`
            : `The enhanced prompt would exceed ${maxChars} characters: some of the suggested additions were shortened or left out and your prompt was kept whole.`,
      ),
    );
  }
  // The engine reads the earliest camera phrase: that is the move this prompt gives it.
  const read = chooseCameraMove(text, 0);
  return {
    enhancedPrompt: text,
    camera: read.source === 'prompt' ? read.move : camera,
    warnings,
    engine: 'local',
  };
}

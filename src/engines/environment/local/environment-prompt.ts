/**
 * The local environment engine's prompt reader: which set a prompt describes (the surface a product
 * stands on, the wall or sky behind it, the light, the mood, the colours), read from its words with
 * small lexicons. Pure and deterministic: no seed, no I/O. Whatever the prompt does not say gets a
 * default that suits the place it names ("beach" → sand under a sky, "kitchen counter" → marble
 * before a tiled backsplash) or, when it names nothing, a studio's seamless paper sweep.
 */

import { hslToRgb, rgbToHsl } from '../../../adapters/media/colors.ts';
import { clamp } from '../../shared/math.ts';

/** The materials the renderer draws. `paper` is a photographer's seamless paper. */
export const SURFACES = [
  'marble',
  'wood',
  'linen',
  'velvet',
  'concrete',
  'sand',
  'water',
  'paper',
  'terrazzo',
  'stone',
  'plaster',
  'tile',
] as const;
export type Surface = (typeof SURFACES)[number];

/** What stands behind the floor: a material wall, or the sky (outdoors). */
export type Backdrop = Surface | 'sky';

/**
 * `room`: a floor meeting a wall at a corner; `sweep`: one seamless sheet curving from floor to
 * wall (no corner); `outdoor`: ground meeting the sky; `flatlay`: the camera looks straight down.
 */
export type Layout = 'room' | 'sweep' | 'outdoor' | 'flatlay';

/** Projected shadow pattern of a hard light. */
export type Gobo = 'none' | 'window' | 'leaves' | 'palm';

export type Rgb = readonly [number, number, number];

export interface LightPlan {
  /** Port convention: degrees, 0 = from the right, 90 = from above, 180 = from the left. */
  angle: number;
  /** Whether the prompt said which side; when not, each shot picks one. */
  sideGiven: boolean;
  /** Whether the prompt said how high the light is (a time of day, "raking", "overhead"). */
  elevationGiven: boolean;
  /** -1 cool (daylight, blue hour) .. 0 neutral studio .. +1 warm (golden hour, candle). */
  temperature: number;
  /** 0 diffuse (softbox, overcast) .. 1 hard (direct sun). */
  hardness: number;
  /** Whether the prompt said how hard or soft the light is. */
  hardnessGiven: boolean;
  gobo: Gobo;
}

export interface EnvironmentPlan {
  layout: Layout;
  floor: Surface;
  wall: Backdrop;
  /** Floor line, fraction of the height from the top (0 for a flat lay). */
  horizon: number;
  /** Whether the prompt named the camera's view ("low angle", "eye level"). */
  horizonGiven: boolean;
  light: LightPlan;
  /** -1 moody / low-key .. +1 bright / airy. */
  mood: number;
  /** Colours the prompt gave the floor or the wall (tones applied), or null. */
  floorColor: Rgb | null;
  wallColor: Rgb | null;
  /** Colour words that named no surface, in prompt order. */
  looseColors: Rgb[];
  /** Tone words on a surface without a colour ("dark wood", "light oak"): -1 darker .. +1 lighter. */
  floorTone: number;
  wallTone: number;
  /** Whether the prompt named the floor's or the wall's material (then it keeps its own colour). */
  floorNamed: boolean;
  wallNamed: boolean;
  /** Variant hints: 'polished' concrete, 'calacatta' marble, 'subway' tile, 'ocean' water ... */
  variants: string[];
  /** Objects and places the prompt names that the local engine cannot draw ("kitchen", "park bench"). */
  subjects: string[];
  /** The words the reader understood (for warnings and tests). */
  recognised: string[];
}

/** Final colours of a plan once the brand palette is mixed in (sRGB 0..255). */
export interface EnvironmentColors {
  floor: Rgb;
  wall: Rgb;
  /** Accent colours (terrazzo chips, props): prompt colours then palette, tamed. */
  accents: Rgb[];
  /**
   * The brand colour of the set's accent props (the shot's plinth, steps or block), or null:
   * set when the prompt named its own colours or materials, so the palette is an accent there
   * instead of painting the wall or the floor.
   */
  brandAccent: Rgb | null;
}

// ---------------------------------------------------------------------------------------------
// Lexicons

/** Colour names (sRGB). Multi-word names are matched before single words. */
export const COLOR_NAMES: Record<string, Rgb> = {
  white: [240, 238, 234],
  'off white': [236, 231, 221],
  'warm white': [240, 232, 218],
  ivory: [238, 232, 214],
  cream: [236, 226, 202],
  bone: [226, 218, 200],
  beige: [216, 200, 172],
  oat: [214, 202, 178],
  oatmeal: [214, 202, 178],
  taupe: [168, 152, 136],
  greige: [190, 182, 170],
  grey: [150, 150, 150],
  gray: [150, 150, 150],
  'light grey': [200, 200, 198],
  'light gray': [200, 200, 198],
  charcoal: [58, 60, 64],
  black: [28, 28, 30],
  navy: [30, 44, 82],
  'midnight blue': [28, 36, 66],
  blue: [62, 104, 170],
  'sky blue': [150, 190, 225],
  'baby blue': [170, 200, 230],
  'powder blue': [176, 200, 222],
  'dusty blue': [130, 154, 178],
  cobalt: [40, 78, 170],
  denim: [80, 110, 150],
  teal: [36, 118, 122],
  turquoise: [64, 180, 180],
  aqua: [110, 200, 200],
  mint: [180, 226, 204],
  sage: [156, 172, 140],
  'sage green': [156, 172, 140],
  eucalyptus: [130, 160, 140],
  olive: [122, 122, 72],
  moss: [110, 124, 74],
  green: [70, 130, 80],
  'forest green': [40, 80, 56],
  'bottle green': [30, 74, 52],
  emerald: [30, 120, 86],
  pink: [232, 170, 180],
  'pastel pink': [240, 200, 204],
  'hot pink': [220, 60, 130],
  blush: [236, 198, 190],
  rose: [206, 130, 140],
  'dusty rose': [196, 150, 150],
  'dusty pink': [210, 166, 164],
  coral: [236, 128, 108],
  salmon: [236, 150, 126],
  peach: [242, 190, 160],
  apricot: [240, 176, 130],
  terracotta: [196, 110, 80],
  'terra cotta': [196, 110, 80],
  clay: [184, 120, 90],
  rust: [170, 80, 44],
  orange: [232, 130, 50],
  'burnt orange': [200, 96, 40],
  amber: [220, 150, 60],
  ochre: [200, 150, 60],
  mustard: [206, 168, 60],
  yellow: [240, 210, 90],
  butter: [246, 228, 160],
  lemon: [246, 230, 120],
  gold: [200, 164, 90],
  red: [190, 50, 44],
  crimson: [170, 30, 50],
  cherry: [160, 30, 40],
  burgundy: [110, 30, 44],
  wine: [110, 36, 52],
  oxblood: [100, 30, 30],
  maroon: [110, 34, 40],
  lilac: [200, 180, 220],
  lavender: [190, 176, 220],
  mauve: [180, 140, 160],
  purple: [110, 70, 140],
  violet: [120, 80, 170],
  plum: [100, 50, 80],
  aubergine: [70, 40, 60],
  brown: [120, 80, 52],
  chocolate: [80, 50, 36],
  espresso: [64, 44, 34],
  mocha: [130, 100, 80],
  tan: [200, 164, 120],
  camel: [190, 148, 100],
  caramel: [190, 130, 70],
  cognac: [150, 80, 40],
  chalk: [236, 234, 228],
  pearl: [232, 228, 222],
  silver: [190, 192, 196],
};

/** Tone words before a colour or a surface: lighter (+) or darker (−), and how much colour stays. */
const TONES: Record<string, { light: number; sat: number }> = {
  light: { light: 0.45, sat: 0.85 },
  pale: { light: 0.55, sat: 0.7 },
  pastel: { light: 0.55, sat: 0.6 },
  soft: { light: 0.25, sat: 0.75 },
  dusty: { light: 0.05, sat: 0.55 },
  muted: { light: 0, sat: 0.5 },
  washed: { light: 0.3, sat: 0.55 },
  faded: { light: 0.25, sat: 0.55 },
  dark: { light: -0.5, sat: 1 },
  deep: { light: -0.4, sat: 1.1 },
  rich: { light: -0.2, sat: 1.15 },
  bright: { light: 0.1, sat: 1.25 },
  vivid: { light: 0, sat: 1.35 },
  bold: { light: 0, sat: 1.3 },
};

/** Surface nouns (and material names that imply one). */
const SURFACE_WORDS: Record<string, Surface> = {
  marble: 'marble',
  marbled: 'marble',
  carrara: 'marble',
  calacatta: 'marble',
  onyx: 'marble',
  wood: 'wood',
  wooden: 'wood',
  timber: 'wood',
  oak: 'wood',
  walnut: 'wood',
  teak: 'wood',
  birch: 'wood',
  maple: 'wood',
  pine: 'wood',
  cherrywood: 'wood',
  plank: 'wood',
  planks: 'wood',
  parquet: 'wood',
  floorboards: 'wood',
  'butcher block': 'wood',
  driftwood: 'wood',
  linen: 'linen',
  cotton: 'linen',
  fabric: 'linen',
  cloth: 'linen',
  tablecloth: 'linen',
  sheets: 'linen',
  bedding: 'linen',
  muslin: 'linen',
  canvas: 'linen',
  textile: 'linen',
  velvet: 'velvet',
  velour: 'velvet',
  satin: 'velvet',
  silk: 'velvet',
  suede: 'velvet',
  concrete: 'concrete',
  cement: 'concrete',
  microcement: 'concrete',
  sand: 'sand',
  sandy: 'sand',
  dune: 'sand',
  dunes: 'sand',
  water: 'water',
  ripples: 'water',
  rippled: 'water',
  pool: 'water',
  paper: 'paper',
  seamless: 'paper',
  sweep: 'paper',
  cyclorama: 'paper',
  cyc: 'paper',
  infinity: 'paper',
  terrazzo: 'terrazzo',
  stone: 'stone',
  travertine: 'stone',
  limestone: 'stone',
  sandstone: 'stone',
  slate: 'stone',
  granite: 'stone',
  basalt: 'stone',
  plaster: 'plaster',
  plastered: 'plaster',
  stucco: 'plaster',
  limewash: 'plaster',
  limewashed: 'plaster',
  venetian: 'plaster',
  tadelakt: 'plaster',
  tile: 'tile',
  tiles: 'tile',
  tiled: 'tile',
  zellige: 'tile',
  ceramic: 'tile',
  mosaic: 'tile',
};

/** Material names that also carry a colour of their own. */
const MATERIAL_COLORS: Record<string, Rgb> = {
  walnut: [104, 68, 44],
  oak: [176, 132, 88],
  teak: [150, 96, 56],
  birch: [214, 184, 142],
  maple: [212, 176, 130],
  pine: [206, 164, 110],
  driftwood: [176, 164, 146],
  slate: [78, 84, 90],
  granite: [120, 118, 116],
  basalt: [60, 62, 64],
  sandstone: [206, 170, 126],
  onyx: [40, 40, 42],
  calacatta: [240, 236, 228],
  carrara: [232, 232, 230],
};

/** Words that make the surface they follow a wall ("plaster wall", "marble backsplash"). */
const WALL_NOUNS = new Set([
  'wall',
  'walls',
  'backdrop',
  'background',
  'backsplash',
  'splashback',
  'panel',
  'panelling',
  'paneling',
  'curtain',
  'drape',
  'drapes',
]);
/** Words that make the surface they follow the floor ("oak table", "stone ledge"). */
const FLOOR_NOUNS = new Set([
  'floor',
  'flooring',
  'ground',
  'table',
  'tabletop',
  'counter',
  'countertop',
  'worktop',
  'surface',
  'slab',
  'plinth',
  'podium',
  'pedestal',
  'ledge',
  'shelf',
  'board',
  'tray',
  'top',
]);
/** Words after which a surface is behind the product ("against", "in front of"). */
const BEHIND_WORDS = new Set(['against', 'behind', 'front', 'backed']);

interface Place {
  floor: Surface;
  wall: Backdrop;
  horizon?: number;
  temperature?: number;
  mood?: number;
  variants?: string[];
}

/** Places a prompt may name, and the set a photographer would build for each. */
const PLACES: Record<string, Place> = {
  kitchen: { floor: 'marble', wall: 'tile', variants: ['subway'] },
  counter: { floor: 'marble', wall: 'tile', variants: ['subway'] },
  countertop: { floor: 'marble', wall: 'tile', variants: ['subway'] },
  worktop: { floor: 'marble', wall: 'tile', variants: ['subway'] },
  bathroom: { floor: 'marble', wall: 'tile', variants: ['subway'] },
  vanity: { floor: 'marble', wall: 'plaster' },
  shower: { floor: 'tile', wall: 'tile' },
  spa: { floor: 'stone', wall: 'plaster', mood: 0.3 },
  beach: { floor: 'sand', wall: 'sky', variants: ['sea'], temperature: 0.2 },
  seaside: { floor: 'sand', wall: 'sky', variants: ['sea'] },
  shore: { floor: 'sand', wall: 'sky', variants: ['sea'] },
  coast: { floor: 'sand', wall: 'sky', variants: ['sea'] },
  coastal: { floor: 'sand', wall: 'sky', variants: ['sea'] },
  desert: { floor: 'sand', wall: 'sky', temperature: 0.4 },
  pool: { floor: 'water', wall: 'tile' },
  poolside: { floor: 'water', wall: 'tile' },
  swimming: { floor: 'water', wall: 'tile' },
  lake: { floor: 'water', wall: 'sky' },
  ocean: { floor: 'water', wall: 'sky', variants: ['ocean'] },
  sea: { floor: 'water', wall: 'sky', variants: ['ocean'] },
  pond: { floor: 'water', wall: 'sky' },
  studio: { floor: 'paper', wall: 'paper' },
  packshot: { floor: 'paper', wall: 'paper' },
  ecommerce: { floor: 'paper', wall: 'paper' },
  table: { floor: 'wood', wall: 'plaster' },
  tabletop: { floor: 'wood', wall: 'plaster' },
  desk: { floor: 'wood', wall: 'plaster' },
  dining: { floor: 'wood', wall: 'plaster' },
  cafe: { floor: 'wood', wall: 'plaster', temperature: 0.3 },
  restaurant: { floor: 'wood', wall: 'plaster', temperature: 0.3 },
  bar: { floor: 'wood', wall: 'plaster', mood: -0.3 },
  office: { floor: 'wood', wall: 'plaster' },
  bedroom: { floor: 'linen', wall: 'plaster' },
  bed: { floor: 'linen', wall: 'plaster' },
  hotel: { floor: 'linen', wall: 'plaster' },
  sofa: { floor: 'velvet', wall: 'plaster' },
  lounge: { floor: 'velvet', wall: 'plaster' },
  boudoir: { floor: 'velvet', wall: 'plaster', mood: -0.4 },
  jewelry: { floor: 'velvet', wall: 'plaster', mood: -0.2 },
  jewellery: { floor: 'velvet', wall: 'plaster', mood: -0.2 },
  luxury: { floor: 'marble', wall: 'plaster' },
  loft: { floor: 'concrete', wall: 'concrete' },
  industrial: { floor: 'concrete', wall: 'concrete' },
  warehouse: { floor: 'concrete', wall: 'concrete' },
  garage: { floor: 'concrete', wall: 'concrete' },
  urban: { floor: 'concrete', wall: 'concrete' },
  brutalist: { floor: 'concrete', wall: 'concrete' },
  gallery: { floor: 'concrete', wall: 'plaster', mood: 0.3 },
  museum: { floor: 'concrete', wall: 'plaster' },
  garden: { floor: 'stone', wall: 'plaster', temperature: 0.2 },
  patio: { floor: 'stone', wall: 'plaster', temperature: 0.2 },
  terrace: { floor: 'stone', wall: 'plaster', temperature: 0.3 },
  courtyard: { floor: 'stone', wall: 'plaster', temperature: 0.3 },
  mediterranean: { floor: 'stone', wall: 'plaster', temperature: 0.4 },
  riad: { floor: 'tile', wall: 'plaster', temperature: 0.4, variants: ['zellige'] },
  scandinavian: { floor: 'wood', wall: 'plaster', mood: 0.4, temperature: -0.1 },
  nordic: { floor: 'wood', wall: 'plaster', mood: 0.4, temperature: -0.2 },
  japandi: { floor: 'wood', wall: 'plaster', mood: 0.2 },
  rustic: { floor: 'wood', wall: 'plaster', temperature: 0.3 },
  farmhouse: { floor: 'wood', wall: 'plaster', temperature: 0.2 },
};

/** Variant words, kept as they are for the renderer. */
const VARIANT_WORDS = new Set([
  'polished',
  'honed',
  'raw',
  'calacatta',
  'carrara',
  'onyx',
  'subway',
  'zellige',
  'mosaic',
  'checkerboard',
  'travertine',
  'slate',
  'granite',
  'basalt',
  'limestone',
  'sandstone',
  'walnut',
  'oak',
  'teak',
  'birch',
  'maple',
  'pine',
  'parquet',
  'herringbone',
  'crushed',
  'satin',
  'silk',
  'ocean',
  'sea',
  'pool',
  'venetian',
  'tadelakt',
  'wrinkled',
  'crumpled',
]);

interface LightWord {
  side?: 'left' | 'right' | 'top' | 'back';
  elevation?: number;
  temperature?: number;
  hardness?: number;
  gobo?: Gobo;
  mood?: number;
}

/** Light words: multi-word phrases are matched before their parts. */
const LIGHT_WORDS: Record<string, LightWord> = {
  'from the left': { side: 'left' },
  'from left': { side: 'left' },
  'left side': { side: 'left' },
  'lit from the left': { side: 'left' },
  'left light': { side: 'left' },
  'from the right': { side: 'right' },
  'from right': { side: 'right' },
  'right side': { side: 'right' },
  'right light': { side: 'right' },
  'from above': { side: 'top', elevation: 80 },
  overhead: { side: 'top', elevation: 80 },
  'top light': { side: 'top', elevation: 80 },
  'top lit': { side: 'top', elevation: 80 },
  toplit: { side: 'top', elevation: 80 },
  backlit: { side: 'back', elevation: 60 },
  backlight: { side: 'back', elevation: 60 },
  'back light': { side: 'back', elevation: 60 },
  'rim light': { side: 'back', elevation: 60 },
  'side light': { elevation: 22 },
  sidelight: { elevation: 22 },
  'side lit': { elevation: 22 },
  raking: { elevation: 15 },
  dawn: { elevation: 14, temperature: 0.35, hardness: 0.5 },
  sunrise: { elevation: 14, temperature: 0.55, hardness: 0.6 },
  morning: { elevation: 28, temperature: 0.2, hardness: 0.45 },
  noon: { elevation: 70, temperature: -0.05, hardness: 0.8 },
  midday: { elevation: 70, temperature: -0.05, hardness: 0.8 },
  afternoon: { elevation: 35, temperature: 0.3, hardness: 0.6 },
  'golden hour': { elevation: 14, temperature: 0.9, hardness: 0.75 },
  golden: { elevation: 18, temperature: 0.75, hardness: 0.6 },
  sunset: { elevation: 10, temperature: 1, hardness: 0.7, mood: -0.1 },
  sundown: { elevation: 10, temperature: 1, hardness: 0.7 },
  evening: { elevation: 14, temperature: 0.6, hardness: 0.4, mood: -0.2 },
  dusk: { elevation: 10, temperature: 0.3, hardness: 0.2, mood: -0.3 },
  'blue hour': { elevation: 10, temperature: -0.8, hardness: 0.1, mood: -0.3 },
  twilight: { elevation: 10, temperature: -0.5, hardness: 0.1, mood: -0.4 },
  night: { temperature: 0.5, mood: -0.7 },
  candle: { elevation: 20, temperature: 1, mood: -0.6 },
  candlelight: { elevation: 20, temperature: 1, mood: -0.6 },
  candlelit: { elevation: 20, temperature: 1, mood: -0.6 },
  lamp: { temperature: 0.6 },
  tungsten: { temperature: 0.8 },
  warm: { temperature: 0.6 },
  warmth: { temperature: 0.6 },
  cozy: { temperature: 0.5 },
  cosy: { temperature: 0.5 },
  honey: { temperature: 0.6 },
  amber: { temperature: 0.6 },
  cool: { temperature: -0.55 },
  cold: { temperature: -0.7 },
  icy: { temperature: -0.8 },
  crisp: { temperature: -0.3 },
  clinical: { temperature: -0.4, mood: 0.3 },
  daylight: { temperature: -0.2 },
  'natural light': { temperature: -0.1, hardness: 0.25 },
  'north light': { temperature: -0.35, hardness: 0.05 },
  overcast: { temperature: -0.35, hardness: 0, mood: -0.1 },
  cloudy: { temperature: -0.3, hardness: 0 },
  diffuse: { hardness: 0 },
  diffused: { hardness: 0 },
  softbox: { temperature: 0, hardness: 0.05 },
  'soft light': { hardness: 0.05 },
  'hard light': { hardness: 0.9 },
  harsh: { hardness: 0.95 },
  sun: { hardness: 0.85, temperature: 0.15 },
  sunny: { hardness: 0.85, temperature: 0.15, mood: 0.3 },
  sunlight: { hardness: 0.85, temperature: 0.2 },
  sunlit: { hardness: 0.85, temperature: 0.2 },
  'sun drenched': { hardness: 0.85, temperature: 0.3, mood: 0.4 },
  window: { temperature: -0.1, hardness: 0.3, gobo: 'window' },
  'window light': { temperature: -0.1, hardness: 0.3, gobo: 'window' },
  'soft shadows': { hardness: 0.1 },
  'soft shadow': { hardness: 0.1 },
  'window shadow': { hardness: 0.85, gobo: 'window' },
  'window shadows': { hardness: 0.85, gobo: 'window' },
  blinds: { hardness: 0.85, gobo: 'window' },
  'palm shadow': { hardness: 0.85, gobo: 'palm' },
  'palm shadows': { hardness: 0.85, gobo: 'palm' },
  'leaf shadows': { hardness: 0.85, gobo: 'leaves' },
  'plant shadows': { hardness: 0.85, gobo: 'leaves' },
  leaves: { hardness: 0.8, gobo: 'leaves' },
  foliage: { hardness: 0.8, gobo: 'leaves' },
  dappled: { hardness: 0.75, gobo: 'leaves' },
  palm: { hardness: 0.8, gobo: 'palm' },
  palms: { hardness: 0.8, gobo: 'palm' },
  shadows: { hardness: 0.8 },
};

/** Mood words (± brightness key). `light`, `dark`, `soft` and `bright` count only when no colour or surface follows. */
const MOOD_WORDS: Record<string, number> = {
  bright: 0.6,
  airy: 0.7,
  light: 0.5,
  'high key': 0.9,
  minimal: 0.35,
  minimalist: 0.35,
  clean: 0.4,
  fresh: 0.4,
  soft: 0.2,
  ethereal: 0.6,
  dreamy: 0.5,
  serene: 0.3,
  calm: 0.2,
  moody: -0.8,
  dark: -0.7,
  dramatic: -0.6,
  'low key': -0.9,
  noir: -0.9,
  shadowy: -0.6,
  cinematic: -0.4,
  chiaroscuro: -0.9,
  mysterious: -0.6,
  intimate: -0.3,
  gloomy: -0.7,
  rich: -0.2,
};

const VIEW_WORDS: Record<string, { horizon?: number; flatlay?: boolean }> = {
  'flat lay': { flatlay: true },
  flatlay: { flatlay: true },
  'top down': { flatlay: true },
  topdown: { flatlay: true },
  'bird eye': { flatlay: true },
  'birds eye': { flatlay: true },
  'overhead shot': { flatlay: true },
  'overhead view': { flatlay: true },
  'shot from above': { flatlay: true },
  'view from above': { flatlay: true },
  'high angle': { horizon: 0.48 },
  'low angle': { horizon: 0.7 },
  'eye level': { horizon: 0.58 },
  'close up': { horizon: 0.6 },
  closeup: { horizon: 0.6 },
  macro: { horizon: 0.62 },
  wide: { horizon: 0.54 },
};

/** Wall a floor material gets when the prompt names none. */
const WALL_FOR: Record<Surface, Backdrop> = {
  marble: 'plaster',
  wood: 'plaster',
  linen: 'plaster',
  velvet: 'plaster',
  concrete: 'concrete',
  sand: 'sky',
  water: 'sky',
  paper: 'paper',
  terrazzo: 'plaster',
  stone: 'plaster',
  plaster: 'plaster',
  tile: 'tile',
};

const DEFAULT_HORIZON: Record<Layout, number> = { room: 0.6, sweep: 0.56, outdoor: 0.52, flatlay: 0 };

// ---------------------------------------------------------------------------------------------
// Reading

type Hit =
  | { kind: 'color'; at: number; end: number; rgb: Rgb; word: string }
  | { kind: 'tone'; at: number; end: number; word: string }
  | { kind: 'surface'; at: number; end: number; surface: Surface; word: string }
  | { kind: 'wallnoun' | 'floornoun' | 'behind'; at: number; end: number; word: string };

/** Lower-case word tokens; hyphens and punctuation split words, possessives dropped. */
export function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/** Reads a prompt into a plan. Pure: the same prompt always gives the same plan. */
export function readEnvironmentPrompt(prompt: string): EnvironmentPlan {
  const toks = tokens(prompt);
  const recognised: string[] = [];
  const variants = new Set<string>();
  const hits: Hit[] = [];
  const light: LightWord[] = [];
  let mood = 0;
  let moodWords = 0;
  let flatlay = false;
  let viewHorizon: number | undefined;
  let place: Place | undefined;

  // Longest phrase first (3, 2, 1 tokens) for every lexicon at each position.
  for (let i = 0; i < toks.length; ) {
    let matched = 0;
    for (let n = Math.min(3, toks.length - i); n >= 1 && matched === 0; n--) {
      const phrase = toks.slice(i, i + n).join(' ');
      const next = toks[i + n];
      const end = i + n;
      if (phrase in VIEW_WORDS) {
        const v = VIEW_WORDS[phrase]!;
        if (v.flatlay) flatlay = true;
        if (v.horizon !== undefined) viewHorizon = v.horizon;
        matched = n;
      } else if (phrase in LIGHT_WORDS && !(n === 1 && phrase in TONES && startsDescribed(toks, end))) {
        const lw = LIGHT_WORDS[phrase]!;
        light.push(lw);
        if (lw.mood !== undefined) {
          mood += lw.mood;
          moodWords++;
        }
        matched = n;
      } else if (phrase in TONES && startsDescribed(toks, end)) {
        hits.push({ kind: 'tone', at: i, end, word: phrase });
        matched = n;
      } else if (phrase in COLOR_NAMES && !(phrase === 'gold' && next === 'hour')) {
        hits.push({ kind: 'color', at: i, end, rgb: COLOR_NAMES[phrase]!, word: phrase });
        matched = n;
      } else if (phrase in MOOD_WORDS) {
        mood += MOOD_WORDS[phrase]!;
        moodWords++;
        matched = n;
      } else if (phrase in SURFACE_WORDS && !(phrase === 'pool' && (next === 'side' || next === 'house'))) {
        const surface = SURFACE_WORDS[phrase]!;
        hits.push({ kind: 'surface', at: i, end, surface, word: phrase });
        if (phrase in MATERIAL_COLORS)
          hits.push({ kind: 'color', at: i, end, rgb: MATERIAL_COLORS[phrase]!, word: phrase });
        // A place word that is also a surface ("pool") sets the place too.
        if (phrase in PLACES && !place) place = PLACES[phrase];
        matched = n;
      } else if (phrase in PLACES) {
        if (!place) place = PLACES[phrase];
        // "counter"/"table" also name the floor a colour may describe.
        if (FLOOR_NOUNS.has(phrase)) hits.push({ kind: 'floornoun', at: i, end, word: phrase });
        matched = n;
      } else if (n === 1 && WALL_NOUNS.has(phrase)) {
        hits.push({ kind: 'wallnoun', at: i, end, word: phrase });
        matched = n;
      } else if (n === 1 && FLOOR_NOUNS.has(phrase)) {
        hits.push({ kind: 'floornoun', at: i, end, word: phrase });
        matched = n;
      } else if (n === 1 && BEHIND_WORDS.has(phrase)) {
        hits.push({ kind: 'behind', at: i, end, word: phrase });
        matched = n;
      }
      if (matched) {
        recognised.push(phrase);
        if (VARIANT_WORDS.has(phrase)) variants.add(phrase);
      }
    }
    if (!matched && VARIANT_WORDS.has(toks[i]!)) {
      variants.add(toks[i]!);
      recognised.push(toks[i]!);
    }
    i += matched || 1;
  }

  // Surfaces: on the wall when a wall noun follows or a "behind" word precedes them.
  let floor: Surface | undefined;
  let wall: Backdrop | undefined;
  const role = new Map<Hit, 'floor' | 'wall'>();
  for (const h of hits) {
    if (h.kind !== 'surface') continue;
    const after = nextNoun(hits, h);
    const behind = hits.some((b) => b.kind === 'behind' && b.at < h.at && h.at - b.end <= 3);
    const isWall = after?.kind === 'wallnoun' || (behind && after?.kind !== 'floornoun');
    role.set(h, isWall ? 'wall' : 'floor');
    if (isWall) wall ??= h.surface;
    else floor ??= h.surface;
  }
  // A bare "wall"/"backdrop" after "paper" etc. is handled above; a sweep word on the floor side
  // ("seamless", "infinity") makes the whole set paper.
  if (floor === 'paper' && wall === undefined) wall = 'paper';
  if (wall === 'paper' && floor === undefined) floor = 'paper';

  const floorNamed = floor !== undefined;
  const wallNamed = wall !== undefined;
  const chosenPlace = place;
  floor ??= chosenPlace?.floor ?? (wall && wall !== 'sky' ? wall : 'paper');
  wall ??= chosenPlace?.wall ?? WALL_FOR[floor];
  for (const v of chosenPlace?.variants ?? []) variants.add(v);

  // Colours and tones: each phrase describes the next surface or floor/wall noun close after it.
  let floorColor: Rgb | null = null;
  let wallColor: Rgb | null = null;
  let floorTone = 0;
  let wallTone = 0;
  const looseColors: Rgb[] = [];
  for (let k = 0; k < hits.length; k++) {
    const h = hits[k]!;
    if (h.kind !== 'color' && h.kind !== 'tone') continue;
    // Tones directly before this colour.
    let light = 0;
    let sat = 1;
    let start = h.at;
    for (let j = k - 1; j >= 0; j--) {
      const t = hits[j]!;
      if (t.kind !== 'tone' || t.end !== start) break;
      light += TONES[t.word]!.light;
      sat *= TONES[t.word]!.sat;
      start = t.at;
    }
    if (h.kind === 'tone') {
      // A tone directly describing a surface or noun (no colour between): "dark wood".
      const n = hits[k + 1];
      if (n && n.kind !== 'tone' && n.kind !== 'color' && n.at - h.end <= 1) {
        const t = TONES[h.word]!;
        const target = targetOf(n, role);
        if (target === 'floor') floorTone += t.light;
        else if (target === 'wall') wallTone += t.light;
      }
      continue;
    }
    const rgb = applyTone(h.rgb, light, sat);
    const target = nounTarget(hits, k, role);
    if (target === 'floor') floorColor ??= rgb;
    else if (target === 'wall') wallColor ??= rgb;
    else if (!(h.word in MATERIAL_COLORS)) looseColors.push(rgb);
  }

  // Light.
  let side: LightWord['side'];
  let elevation = 42;
  let elevationGiven = false;
  let temperature = 0;
  let gobo: Gobo = 'none';
  let tempWords = 0;
  const hard: number[] = [];
  for (const lw of light) {
    if (lw.side) side = lw.side;
    if (lw.elevation !== undefined) {
      elevation = lw.elevation;
      elevationGiven = true;
    }
    if (lw.temperature !== undefined) {
      temperature += lw.temperature;
      tempWords++;
    }
    if (lw.hardness !== undefined) hard.push(lw.hardness);
    if (lw.gobo) gobo = lw.gobo;
  }
  // Diffusion words win over hard ones ("soft window light on a sunny day").
  const hardness = hard.length === 0 ? 0.15 : hard.some((h) => h <= 0.1) ? Math.min(...hard) : Math.max(...hard);
  if (tempWords === 0 && chosenPlace?.temperature !== undefined) temperature = chosenPlace.temperature;
  else if (tempWords > 0) temperature = temperature / Math.sqrt(tempWords);
  if (chosenPlace?.mood !== undefined) {
    mood += chosenPlace.mood;
    moodWords++;
  }
  if (moodWords > 1) mood /= Math.sqrt(moodWords);
  // A pattern needs a hard light; hard sunlight in a room without a named one falls through a window.
  if (hardness < 0.5) gobo = 'none';
  else if (gobo === 'none' && hardness >= 0.8 && wall !== 'sky') gobo = 'window';
  const angle = side === 'right' ? elevation : side === 'top' || side === 'back' ? 90 : 180 - Math.min(elevation, 80);

  let layout: Layout = 'room';
  if (flatlay) layout = 'flatlay';
  else if (wall === 'sky') layout = 'outdoor';
  else if (floor === 'paper' && wall === 'paper') layout = 'sweep';
  const horizon = layout === 'flatlay' ? 0 : (viewHorizon ?? DEFAULT_HORIZON[layout]);

  return {
    layout,
    floor,
    wall,
    horizon,
    horizonGiven: viewHorizon !== undefined,
    light: {
      angle,
      sideGiven: side !== undefined,
      elevationGiven,
      temperature: clamp(temperature, -1, 1),
      hardness: clamp(hardness, 0, 1),
      hardnessGiven: hard.length > 0,
      // Outdoors and on a sweep there is no window to cast panes, only plants.
      gobo: (layout === 'outdoor' || layout === 'sweep') && gobo === 'window' ? 'none' : gobo,
    },
    mood: clamp(mood, -1, 1),
    floorColor,
    wallColor,
    looseColors,
    floorTone: clamp(floorTone, -1, 1),
    wallTone: clamp(wallTone, -1, 1),
    floorNamed,
    wallNamed,
    variants: [...variants],
    subjects: undrawableSubjects(toks),
    recognised,
  };
}

/**
 * Objects and places a prompt may name that the local engine does not draw: it builds a set (a
 * floor, a wall or sky, light), never furniture, plants, buildings, people or a whole room. Two-word
 * phrases are matched before their words.
 */
const UNDRAWABLE = new Set([
  // Places and rooms (the engine draws their surfaces only).
  'kitchen',
  'bathroom',
  'bedroom',
  'living room',
  'dining room',
  'cafe',
  'restaurant',
  'bar',
  'office',
  'hotel',
  'garden',
  'park',
  'street',
  'city',
  'forest',
  'woods',
  'mountain',
  'mountains',
  'field',
  'meadow',
  'market',
  'shop',
  'boutique',
  'gym',
  'library',
  'balcony',
  'rooftop',
  'porch',
  'cabin',
  'hut',
  'beach hut',
  'house',
  'barn',
  'greenhouse',
  // Furniture, props, plants, people, animals, vehicles.
  'bench',
  'park bench',
  'chair',
  'armchair',
  'stool',
  'sofa',
  'couch',
  'bed',
  'plant',
  'plants',
  'potted plant',
  'flower',
  'flowers',
  'vase',
  'tree',
  'trees',
  'fern',
  'monstera',
  'book',
  'books',
  'cushion',
  'cushions',
  'pillow',
  'pillows',
  'rug',
  'mirror',
  'fireplace',
  'stairs',
  'staircase',
  'door',
  'doorway',
  'column',
  'columns',
  'fountain',
  'person',
  'people',
  'model',
  'hand',
  'hands',
  'woman',
  'man',
  'dog',
  'cat',
  'car',
  'boat',
  'bicycle',
  'bike',
  'surfboard',
  'umbrella',
  'towel',
  'basket',
  'fruit',
]);

/** The undrawable subjects of a prompt's tokens, in prompt order, each once. */
function undrawableSubjects(toks: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const two = i + 1 < toks.length ? `${toks[i]} ${toks[i + 1]}` : '';
    const word = two && UNDRAWABLE.has(two) ? two : UNDRAWABLE.has(toks[i]!) ? toks[i]! : undefined;
    if (!word) continue;
    if (!out.includes(word)) out.push(word);
    if (word === two) i++;
  }
  return out;
}

/** Whether the words after `end` start a colour or a surface (so a tone word describes them). */
function startsDescribed(toks: string[], end: number): boolean {
  for (let n = 1; n <= 2 && end + n <= toks.length; n++) {
    const p = toks.slice(end, end + n).join(' ');
    if (p in COLOR_NAMES || p in SURFACE_WORDS || p in TONES || WALL_NOUNS.has(p) || FLOOR_NOUNS.has(p)) return true;
  }
  return false;
}

function nextNoun(hits: Hit[], h: Hit): Hit | undefined {
  const i = hits.indexOf(h);
  for (let k = i + 1; k < hits.length; k++) {
    const n = hits[k]!;
    if (n.kind === 'color' && n.at === h.at) continue; // the material's own colour
    if (n.at - h.end > 1) return undefined;
    if (n.kind === 'wallnoun' || n.kind === 'floornoun') return n;
    if (n.kind === 'surface') continue; // "marble tile wall"
    return undefined;
  }
  return undefined;
}

/** What a surface or noun hit is part of: floor or wall. */
function targetOf(n: Hit, role: Map<Hit, 'floor' | 'wall'>): 'floor' | 'wall' | undefined {
  if (n.kind === 'wallnoun') return 'wall';
  if (n.kind === 'floornoun') return 'floor';
  if (n.kind === 'surface') return role.get(n);
  return undefined;
}

/** The floor or wall the colour at hits[k] describes: the first noun within two words after it. */
function nounTarget(hits: Hit[], k: number, role: Map<Hit, 'floor' | 'wall'>): 'floor' | 'wall' | undefined {
  const h = hits[k]!;
  // A material's own colour ("walnut") describes that material.
  if (h.kind === 'color') {
    const self = hits.find((s) => s.kind === 'surface' && s.at === h.at);
    if (self) return role.get(self);
  }
  let end = h.end;
  for (let j = k + 1; j < hits.length; j++) {
    const n = hits[j]!;
    if (n.at - end > 2) return undefined;
    if (n.kind === 'tone' || n.kind === 'color') {
      end = n.end;
      continue;
    }
    return targetOf(n, role);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Colours

/** Natural colour of each material (sRGB), before tones, prompt colours and palette. */
export const MATERIAL_BASE: Record<Backdrop, Rgb> = {
  marble: [234, 231, 226],
  wood: [170, 124, 80],
  linen: [218, 208, 190],
  velvet: [52, 84, 72],
  concrete: [160, 158, 153],
  sand: [218, 194, 156],
  water: [90, 170, 180],
  paper: [226, 222, 214],
  terrazzo: [232, 227, 218],
  stone: [214, 198, 172],
  plaster: [224, 214, 198],
  tile: [236, 234, 228],
  sky: [196, 212, 226],
};

/** Materials whose colour is a choice (dyed, painted) rather than natural. */
const COLOURABLE = new Set<Backdrop>(['paper', 'plaster', 'linen', 'velvet', 'tile', 'terrazzo']);

/**
 * The plan's colours with the brand palette mixed in. Precedence: what the prompt names wins.
 * A colour the prompt gives a surface paints it; a material it names keeps its own colour ("a warm
 * plaster wall" is plaster-coloured, "walnut" is walnut). The palette paints the set (the strongest
 * colour a colourable wall, the next one a colourable floor; a hint of it on natural materials)
 * only where the prompt says nothing: no colour word at all, and that surface's material not named
 * (a studio paper sweep counts as unnamed: its paper is meant to be coloured). Otherwise the
 * palette is an accent: `brandAccent`, the colour of a prop beside the products, and the accents.
 * Every colour is tamed (saturation and lightness bounded) so a bright brand red becomes a muted
 * set, never a neon one.
 */
export function resolveColors(plan: EnvironmentPlan, palette: Rgb[]): EnvironmentColors {
  const loose = [...plan.looseColors];
  const brand = palette.map((c) => tame(c, 0.62, 0.2, 0.9));
  const wallNatural = MATERIAL_BASE[plan.wall];
  const floorNatural = MATERIAL_BASE[plan.floor];
  const sweep = plan.layout === 'sweep';
  const promptColours = plan.wallColor !== null || plan.floorColor !== null || plan.looseColors.length > 0;
  // Whether the palette may paint a surface: only when the prompt leaves it unsaid.
  const paletteWall = !promptColours && (!plan.wallNamed || plan.wall === 'paper');
  const paletteFloor = !promptColours && (!plan.floorNamed || plan.floor === 'paper');

  let wall: Rgb;
  // A sweep is one sheet: a colour given to its floor or its wall is the colour of both.
  const wallChoice =
    plan.wallColor ?? (sweep ? plan.floorColor : null) ?? (plan.wall !== 'sky' ? loose.shift() : undefined);
  let wallPainted = false;
  if (wallChoice) wall = plan.wall === 'sky' ? wallNatural : tint(wallNatural, wallChoice, plan.wall);
  else if (paletteWall && COLOURABLE.has(plan.wall) && brand[0]) {
    wall = tame(mix(wallNatural, brand[0], 0.72), 0.5, 0.32, 0.84);
    wallPainted = true;
  } else if (paletteWall && plan.wall !== 'sky' && brand[0]) wall = mix(wallNatural, brand[0], 0.1);
  else wall = wallNatural;
  // A moody set has a darker wall unless the prompt chose its colour.
  const moodTone = !plan.wallColor && plan.mood < -0.2 && plan.wall !== 'sky' ? plan.mood * 0.6 : 0;
  wall = applyTone(wall, plan.wallTone * 0.8 + moodTone, moodTone < 0 ? 0.4 : 1);

  let floor: Rgb;
  const floorChoice = plan.floorColor ?? (sweep ? wallChoice : loose.shift());
  if (floorChoice) floor = tint(floorNatural, floorChoice, plan.floor);
  else if (sweep) floor = wall;
  else if (paletteFloor && COLOURABLE.has(plan.floor) && plan.floor !== 'terrazzo' && brand.length > 0) {
    const c = brand[1] ?? brand[0]!;
    floor = tame(mix(floorNatural, c, brand[1] ? 0.6 : 0.35), 0.45, 0.25, 0.86);
  } else if (paletteFloor && brand[0]) floor = mix(floorNatural, brand[0], 0.06);
  else floor = floorNatural;
  if (!sweep || plan.floorColor) floor = applyTone(floor, plan.floorTone * 0.8, 1);

  const accents = [...plan.looseColors, ...brand].map((c) => tame(c, 0.45, 0.3, 0.8));
  return { floor, wall, accents, brandAccent: wallPainted ? null : accentOf(palette, wall, floor) };
}

/**
 * The brand colour for the accent prop: the strongest chromatic palette colour whose hue stands
 * apart from the wall's and the floor's (so a red prop never sits on a red wall), else the
 * strongest chromatic one; null without a chromatic colour. Kept rich (it is a painted object).
 */
function accentOf(palette: Rgb[], wall: Rgb, floor: Rgb): Rgb | null {
  const chromatic = palette.filter((c) => {
    const [, s, l] = rgbToHsl(c);
    return s >= 0.18 && l >= 0.08 && l <= 0.92;
  });
  if (chromatic.length === 0) return null;
  const hueOf = (c: Rgb) => rgbToHsl(c)[0];
  const apart = (c: Rgb, set: Rgb) => {
    const [, s] = rgbToHsl(set);
    if (s < 0.12) return true;
    const d = Math.abs(hueOf(c) - hueOf(set)) % 360;
    return Math.min(d, 360 - d) > 30;
  };
  const pick = chromatic.find((c) => apart(c, wall) && apart(c, floor)) ?? chromatic[0]!;
  return tame(pick, 0.8, 0.2, 0.7);
}

/** A material given a colour: painted/dyed ones take it; natural ones take it partly. */
function tint(natural: Rgb, color: Rgb, material: Backdrop): Rgb {
  if (COLOURABLE.has(material)) return tame(color, 0.62, 0.08, 0.92);
  const amount = material === 'marble' || material === 'stone' || material === 'concrete' ? 0.85 : 0.75;
  return tame(mix(natural, color, amount), 0.6, 0.06, 0.93);
}

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/** Lighter (+) or darker (−) in HSL lightness, saturation scaled. */
export function applyTone(c: Rgb, light: number, sat: number): Rgb {
  if (light === 0 && sat === 1) return c;
  const [h, s, l] = rgbToHsl(c);
  const l2 = light >= 0 ? l + (1 - l) * Math.min(light, 0.95) : l * (1 + Math.max(light, -0.9));
  return hslToRgb(h, clamp(s * sat, 0, 1), clamp(l2, 0, 1));
}

/** Saturation at most `maxS`, lightness within [minL, maxL]. */
export function tame(c: Rgb, maxS: number, minL: number, maxL: number): Rgb {
  const [h, s, l] = rgbToHsl(c);
  return hslToRgb(h, Math.min(s, maxS), clamp(l, minL, maxL));
}

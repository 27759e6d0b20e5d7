import { LOGO_PICK_MIN } from './logo.ts';
import { tokenize } from './text.ts';

/**
 * Extraction purposes: the free-form `purpose` of an extraction request mapped to a scoring
 * profile. Matching ignores case, hyphens, spaces and underscores (`Pack Shot`, `pack-shot` and
 * `packshot` are one purpose). Text that names no purpose is used as free text: its words are
 * matched against each candidate's alt text, file name, captions and surrounding text.
 */

/** Signals the ranker computes for every candidate, each in 0..1. */
export const FEATURES = [
  'declaredMain',
  'sameAsMain',
  'shareImage',
  'productContext',
  'nameMatch',
  'size',
  'small',
  'chrome',
  'logo',
  'iconish',
  'siteIcon',
  'related',
  'hidden',
  'early',
  'heroBanner',
  'wide',
  'strip',
  'cssBackground',
  'people',
  'lifestyle',
  'transparent',
  'vector',
  'text',
] as const;
export type Feature = (typeof FEATURES)[number];
export type Weights = Partial<Record<Feature, number>>;

export const PURPOSE_IDS = [
  'general',
  'product',
  'packshot',
  'lifestyle',
  'logo',
  'hero',
  'background',
  'social',
  'people',
] as const;
export type PurposeId = (typeof PURPOSE_IDS)[number];

export interface PurposeProfile {
  id: PurposeId;
  /** Logit offset; with all signals at 0 the score is sigmoid(bias). */
  bias: number;
  weights: Weights;
  /** How many candidates at most are kept (pre-selected for commit). */
  keep: number;
  /** Minimum relevance score for a candidate to be kept. */
  floor: number;
  /** Shortest side in pixels below which a measured candidate is rejected as too small. */
  minSide: number;
}

/** Weights shared by the product-like purposes. */
const PRODUCT_WEIGHTS: Weights = {
  declaredMain: 3,
  sameAsMain: 1.6,
  shareImage: 0.4,
  productContext: 1.6,
  nameMatch: 1.8,
  size: 1.6,
  small: -2,
  chrome: -1.6,
  logo: -2.5,
  iconish: -2.2,
  related: -1.6,
  hidden: -0.4,
  early: 0.6,
  heroBanner: -0.4,
  strip: -1.2,
  cssBackground: -0.6,
  vector: -0.8,
  text: 2,
};

const PROFILES: Record<PurposeId, PurposeProfile> = {
  // No purpose: the assets a product page offers a brand: product pictures first, then the
  // logo and other large pictures; more are kept than for a narrow purpose.
  general: {
    id: 'general',
    bias: -2,
    weights: { ...PRODUCT_WEIGHTS, logo: 0.4, chrome: -0.8, heroBanner: 0.2, cssBackground: -0.2, vector: -0.2 },
    keep: 12,
    floor: 0.3,
    minSide: 64,
  },
  product: { id: 'product', bias: -2, weights: PRODUCT_WEIGHTS, keep: 8, floor: 0.35, minSide: 150 },
  packshot: {
    id: 'packshot',
    bias: -2.2,
    weights: { ...PRODUCT_WEIGHTS, transparent: 1.5, lifestyle: -1, people: -0.8 },
    keep: 6,
    floor: 0.35,
    minSide: 200,
  },
  lifestyle: {
    id: 'lifestyle',
    bias: -2.2,
    weights: {
      ...PRODUCT_WEIGHTS,
      declaredMain: 1.2,
      size: 2.2,
      lifestyle: 2.2,
      people: 1,
      wide: 0.8,
      heroBanner: 0.8,
      cssBackground: 0.2,
      transparent: -1,
    },
    keep: 12,
    floor: 0.3,
    minSide: 300,
  },
  logo: {
    id: 'logo',
    bias: -2.5,
    weights: {
      logo: 5,
      chrome: 0.5,
      vector: 0.6,
      transparent: 0.6,
      declaredMain: -2,
      sameAsMain: -1.5,
      productContext: -1,
      related: -1,
      iconish: -2.5,
      siteIcon: 3,
      small: -1.2,
      hidden: -0.3,
      text: 2,
    },
    keep: 3,
    // Weaker candidates are no logo (see LOGO_PICK_MIN): none is kept rather than a wrong one.
    floor: LOGO_PICK_MIN,
    minSide: 16,
  },
  hero: {
    id: 'hero',
    bias: -2.5,
    weights: {
      heroBanner: 2.2,
      wide: 1.8,
      size: 2,
      cssBackground: 0.6,
      early: 1,
      declaredMain: 0.6,
      shareImage: 0.6,
      small: -2,
      logo: -2.5,
      iconish: -2.2,
      related: -1.2,
      hidden: -0.4,
      text: 2,
    },
    keep: 5,
    floor: 0.35,
    minSide: 400,
  },
  background: {
    id: 'background',
    bias: -2.5,
    weights: {
      cssBackground: 1.8,
      wide: 1.4,
      size: 2,
      heroBanner: 1,
      lifestyle: 1,
      small: -2,
      logo: -2.5,
      iconish: -2.2,
      declaredMain: -0.5,
      productContext: -0.5,
      transparent: -1,
      related: -1,
      text: 2,
    },
    keep: 8,
    floor: 0.3,
    minSide: 300,
  },
  social: {
    id: 'social',
    bias: -2.2,
    weights: { ...PRODUCT_WEIGHTS, shareImage: 3, declaredMain: 1.6, wide: 0.6 },
    keep: 4,
    floor: 0.35,
    minSide: 200,
  },
  people: {
    id: 'people',
    bias: -2.5,
    weights: { ...PRODUCT_WEIGHTS, people: 3.2, lifestyle: 0.8, declaredMain: 1, transparent: -0.5 },
    keep: 10,
    floor: 0.3,
    minSide: 150,
  },
};

/**
 * Recognised purpose names after normalisation (lower-case, no hyphens, spaces or underscores),
 * mapped to their profile.
 */
const SYNONYMS: Record<string, PurposeId> = {};
function addSynonyms(id: PurposeId, names: string): void {
  for (const n of names.split(' ')) SYNONYMS[n] = id;
}
addSynonyms('general', 'general all any default everything assets brandassets');
addSynonyms(
  'product',
  'product products productshot productshots productimage productimages productphoto productphotos productpicture item items merchandise catalog catalogue catalogimage ecommerce pdp',
);
addSynonyms('packshot', 'packshot packshots cutout cutouts whitebackground isolated studioshot studio ghostmannequin');
addSynonyms(
  'lifestyle',
  'lifestyle lifestyles lifestyleshot lifestyleimage lifestyleimages insitu inuse incontext contextual editorial mood moodboard',
);
addSynonyms('logo', 'logo logos brandlogo logotype wordmark brandmark favicon icon');
addSynonyms('hero', 'hero heroes heroimage herobanner banner banners keyvisual masthead cover header headerimage');
addSynonyms(
  'background',
  'background backgrounds backdrop backdrops environment environments scene scenes setting texture',
);
addSynonyms('social', 'social socialmedia socialpost ogimage opengraph share shareimage sharing');
addSynonyms('people', 'people person persons human humans model models portrait portraits team face faces');

export interface ResolvedPurpose {
  profile: PurposeProfile;
  /** The request's purpose text (null when absent). */
  input: string | null;
  /** True when the text (or one of its words) names a recognised purpose. */
  recognised: boolean;
  /** Words matched against candidate text; empty for a purely recognised purpose. */
  freeText: string[];
}

/** Lower-cases and drops hyphens, spaces and underscores: `Pack-Shot ` → `packshot`. */
export function normalizePurpose(text: string): string {
  return text.toLowerCase().replace(/[\s\-_‐-―]+/g, '');
}

/**
 * Maps a request's `purpose` to a profile:
 * 1. absent, null or blank → `general`;
 * 2. the whole normalised text names a purpose (`Pack Shot`, `brand-logo`) → that purpose;
 * 3. otherwise the first word, or pair of adjacent words, that names a purpose picks the
 *    profile and the remaining words are free text (`lifestyle photos of sofas`);
 * 4. otherwise the `general` profile with every word as free text (`red leather boots`).
 */
export function resolvePurpose(input: string | null | undefined): ResolvedPurpose {
  const text = typeof input === 'string' ? input : null;
  if (text === null || !text.trim()) return { profile: PROFILES.general, input: text, recognised: false, freeText: [] };
  const whole = SYNONYMS[normalizePurpose(text)];
  if (whole) return { profile: PROFILES[whole], input: text, recognised: true, freeText: [] };
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    const pair = i + 1 < words.length ? SYNONYMS[words[i]! + words[i + 1]!] : undefined;
    const id = pair ?? SYNONYMS[words[i]!];
    if (!id) continue;
    const rest = [...words.slice(0, i), ...words.slice(i + (pair ? 2 : 1))];
    return { profile: PROFILES[id], input: text, recognised: true, freeText: tokenize(rest.join(' ')) };
  }
  return { profile: PROFILES.general, input: text, recognised: false, freeText: tokenize(text) };
}

/** Every recognised spelling, grouped by purpose (for documentation and tests). */
export function recognisedPurposeNames(): Record<PurposeId, string[]> {
  const out = Object.fromEntries(PURPOSE_IDS.map((id) => [id, [] as string[]])) as Record<PurposeId, string[]>;
  for (const [name, id] of Object.entries(SYNONYMS)) out[id].push(name);
  return out;
}

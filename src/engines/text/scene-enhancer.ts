/**
 * The scene prompt enhancement port: what `POST /brands/{brandId}/scene-forge-prompt-enhancements`
 * (and a forge that asks for enhancement) needs of a text engine — a user's prompt, the products,
 * the environment, the active Brand DNA and the retail partner in; a concrete scene description
 * for a product photo generator, a short theme name and warnings out. Two implementations:
 * `local` (rule-based, deterministic, always available; local/scene-enhancer.local.ts) and
 * `openai-compatible` (openai-compatible/scene-enhancer.openai.ts), chosen by config with `local`
 * as the fallback (createSceneEnhancer in ./index.ts). No database and no HTTP of ours inside: the
 * caller resolves asset ids and the Brand DNA into this input.
 */

import { ASPECT_RATIOS, type AspectRatio } from '../image/scene-engine.ts';

/** The aspect ratios of the scene forge (the image engine's list). */
export const SCENE_ASPECT_RATIOS = ASPECT_RATIOS;
export type SceneAspectRatio = AspectRatio;

/** Retail partner placements. The partner slugs are neutral stand-ins: any non-default one means a marketplace listing. */
export const SCENE_PARTNERS = ['default', 'partner-1', 'partner-2', 'partner-3'] as const;
export type ScenePartner = (typeof SCENE_PARTNERS)[number];

/** Bounds of the API fields (`originalPrompt`/`optimizedPrompt` and `theme`). */
export const SCENE_PROMPT_MAX = 2500;
export const SCENE_THEME_MAX = 500;

export interface SceneProductContext {
  /** The asset's description, as its owner wrote it. */
  description?: string;
  /** The asset's tags (user and auto tags; technical auto tags such as `high-resolution` are ignored). */
  tags: string[];
  /** Dominant colour names (`orange`, `light-blue`...), strongest first. */
  colors: string[];
  /** The uploaded file name (used when there is no description). */
  fileName?: string;
}

export interface SceneEnvironmentContext {
  description?: string;
  tags: string[];
  /** Dominant colour names, strongest first. */
  colors: string[];
}

/** The active Brand DNA, reduced to what a scene needs. Only when the request uses Brand DNA. */
export interface SceneBrandContext {
  name: string;
  industry?: string;
  /** Brand tones, strongest first (`Luxurious`, `Playful`... — the TONES of brands). */
  tone: string[];
  /** Primary first. `hex` is `#rrggbb`; `name` a colour name when the DNA has one. */
  palette: { hex: string; name?: string; role?: string }[];
  /** Imagery style and mood words (`bright`, `warm`, `minimal`...). */
  imageryStyle?: string[];
  wordsToAvoid?: string[];
}

export interface SceneEnhancementInput {
  /** 1..2500 characters. */
  originalPrompt: string;
  /** The forge's ratio; enhancement requests may have none. */
  aspectRatio?: SceneAspectRatio;
  /** In request order (at most 5 through the API). */
  products: SceneProductContext[];
  environment?: SceneEnvironmentContext;
  brand?: SceneBrandContext;
  partner: ScenePartner;
}

/**
 * Warning codes (severity in brackets; `field` is the request field concerned):
 * - `HARDSPEC_ASPECT_MISMATCH` [warning, aspectRatio]: the prompt asks for a shape the aspect
 *   ratio contradicts — an explicit ratio other than the one set ("16:9" with 9:16); vertical
 *   words ("vertical", "portrait format", "in portrait", "Instagram story", "story format",
 *   "reel", "TikTok", "tall format") with a landscape or square ratio; wide words ("panoramic",
 *   "banner", "widescreen", "wide format", "landscape format", "in landscape", "horizontal
 *   format") with a portrait or square ratio; "square format/post/crop" with a non-1:1 ratio.
 *   Ambiguous words count only in those forms ("a tall glass", "a portrait of", "a mountain
 *   landscape", "a square bottle", "wide-angle" do not). Only when a ratio is given. The prompt is
 *   kept as written; the composition wording follows the aspect ratio.
 * - `PROMPT_TRUNCATED` [info, originalPrompt]: the enhancement would exceed 2500 characters, so
 *   the least important additions were left out (the user's words are kept whole); an
 *   OpenAI-compatible answer over 2500 characters was cut at a sentence boundary.
 *   [warning] when the user's own text alone is over the limit (only possible outside the API,
 *   which caps it) and was cut at a word boundary.
 * - `BRAND_WORD_AVOIDED` [warning, originalPrompt]: the prompt uses a word the Brand DNA lists
 *   among words to avoid (whole-word, case-insensitive). The user's word is KEPT: their prompt is
 *   the authority and faithfulness comes first; the message names the words so the client can
 *   rephrase. The enhancer itself never adds an avoided word (the OpenAI-compatible answer is
 *   refused and the local one used when it does).
 * - `NO_PRODUCT_CONTEXT` [info, productAssetIds]: no product was given; the scene is written
 *   around whatever product the prompt names, with nothing tying it to a real product image.
 * - `MULTIPLE_HEROES` [warning, originalPrompt]: the prompt names as its subject or its hero a
 *   product none of the given products is ("The red cap on a ledge" with a T-shirt given; "the
 *   mug as the hero" with only a notebook), judged by kind of product (a hat is a cap, a tee a
 *   T-shirt) and only when every given product's words say what it is. A scene has one hero: the
 *   given product(s) stay the hero and the other named product is written as secondary (smaller,
 *   further back); the user's words are kept. The message names both, so the client can add the
 *   product or rephrase.
 * - `TEXT_ENGINE_FALLBACK` [warning]: the configured language model (LLM_*) failed or gave an
 *   unusable answer; the built-in enhancer wrote the prompt. The message says why.
 */
export const SCENE_WARNING_CODES = [
  'HARDSPEC_ASPECT_MISMATCH',
  'PROMPT_TRUNCATED',
  'BRAND_WORD_AVOIDED',
  'NO_PRODUCT_CONTEXT',
  'MULTIPLE_HEROES',
  'TEXT_ENGINE_FALLBACK',
] as const;
export type SceneWarningCode = (typeof SCENE_WARNING_CODES)[number];

export interface SceneWarning {
  code: SceneWarningCode;
  message: string;
  severity: 'info' | 'warning';
  field?: string;
}

export interface SceneEnhancement {
  /** 1..2500 characters. */
  optimizedPrompt: string;
  /** A short title-case name for the creative direction, at most 500 characters. */
  theme: string;
  warnings: SceneWarning[];
  /** Which engine produced it (`local`, `openai-compatible:<model>`). */
  engine: string;
}

export interface SceneEnhanceOptions {
  signal?: AbortSignal;
}

export interface SceneEnhancer {
  /** `local`, `openai-compatible:<model>`, or `<primary>+<fallback>`. */
  readonly name: string;
  enhance(input: SceneEnhancementInput, opts?: SceneEnhanceOptions): Promise<SceneEnhancement>;
}

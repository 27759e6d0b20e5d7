/**
 * The text-analysis engine port: what Brand DNA asks of text (identity and voice). Two
 * implementations: `local` (lexicons and sentence scoring, no network, always available) and
 * `openai-compatible` (any OpenAI-compatible chat endpoint with JSON-schema output), chosen by
 * config with `local` as the fallback (src/engines/text/index.ts).
 */
/** The tones a brand may have (a brand's `tone` field, and what analysis weighs). */
export const TONES = [
  'Professional',
  'Casual',
  'Friendly',
  'Authoritative',
  'Playful',
  'Innovative',
  'Traditional',
  'Luxurious',
] as const;
export type Tone = (typeof TONES)[number];

/**
 * Where a piece of text came from. `mission`, `values`, `tone`, `tagline`, `audience`,
 * `words_use` and `words_avoid` are sections a guideline names explicitly; the rest is page or
 * document copy.
 */
export const BLOCK_KINDS = [
  'title',
  'description',
  'heading',
  'paragraph',
  'about',
  'mission',
  'values',
  'tone',
  'tagline',
  'audience',
  'words_use',
  'words_avoid',
  'body',
] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

export interface TextBlock {
  kind: BlockKind;
  text: string;
}

export interface TextAnalysisInput {
  /** The brand's name as its owner entered it (helps tell the name from a tagline). */
  brandName?: string;
  /** Site name candidates a page declares (og:site_name, JSON-LD name). */
  declaredNames?: string[];
  blocks: TextBlock[];
}

/** A candidate with how sure the analyzer is (0..1). */
export interface Scored<T> {
  value: T;
  score: number;
}

export interface TextAnalysis {
  brandName?: Scored<string>;
  tagline?: Scored<string>;
  mission?: Scored<string>;
  /** Best first. */
  values: string[];
  /**
   * The values the text states as its values (a values section or list, `Our values: A, B, C`), in
   * the order given; absent or empty when it states none. Stated values outrank values inferred
   * from prose when sources are merged (see `statedValues`, which Brand DNA applies to every
   * engine's reading).
   */
  statedValues?: string[];
  industry?: Scored<string>;
  audience?: Scored<{ description: string; segments: string[] }>;
  /** Every tone with a weight > 0, weights summing to 1, strongest first. */
  tone: { tone: Tone; weight: number }[];
  /** Adjectives describing the voice (`warm`, `precise`...). */
  descriptors: string[];
  /** 0 casual .. 1 formal. */
  formality: number;
  wordsToUse: string[];
  wordsToAvoid: string[];
  /** Which engine produced it (`local`, `openai-compatible:<model>`). */
  engine?: string;
}

export interface AnalyzeOptions {
  signal?: AbortSignal;
}

export interface TextAnalyzer {
  /** `local`, or `openai-compatible:<model>`. */
  readonly name: string;
  analyze(input: TextAnalysisInput, opts?: AnalyzeOptions): Promise<TextAnalysis>;
}

/** An analysis with nothing in it (no text). */
export const emptyAnalysis = (): TextAnalysis => ({
  values: [],
  tone: [],
  descriptors: [],
  formality: 0.5,
  wordsToUse: [],
  wordsToAvoid: [],
});

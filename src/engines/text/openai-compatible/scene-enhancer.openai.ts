import { type Static, type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Fetcher } from '../../../adapters/fetch/fetcher.ts';
import {
  cleanText,
  hexToWords,
  joinList,
  paletteWord,
  sceneWarnings,
  shapeOf,
  usefulTags,
} from '../local/scene-enhancer.local.ts';
import {
  SCENE_PROMPT_MAX,
  type SceneBrandContext,
  SCENE_THEME_MAX,
  type SceneEnhancement,
  type SceneEnhancementInput,
  type SceneEnhancer,
  type SceneWarning,
} from '../scene-enhancer.ts';
import { askChat, type ChatEndpointSettings, type ChatRequest, TextEngineError } from './chat.ts';
import { escapeRe } from '../local/product-words.ts';

/**
 * Scene prompt enhancement by any OpenAI-compatible chat endpoint: POST `<baseUrl>/chat/completions`
 * with a strict JSON-schema `response_format` (shared plumbing: ./chat.ts), temperature 0.2. The
 * answer is parsed, checked against the schema, cleaned (hex codes turned into colour words,
 * whitespace normalised) and bounded (2500 / 500 characters), and refused (TextEngineError, so
 * the caller falls back to the local enhancer) when it is empty, drops most of the user's words
 * (fewer than FAITHFUL_SHARE of the prompt's content words kept) or adds a word the brand avoids.
 * The input-only warnings (aspect mismatch, avoided word, no product) are computed locally and
 * merged; PROMPT_TRUNCATED is added when the answer had to be cut.
 */
export interface OpenAiSceneEnhancerSettings extends ChatEndpointSettings {}

/** Share of the prompt's content words the model's prompt must keep (when the prompt has at least 3). */
export const FAITHFUL_SHARE = 0.6;

export const SceneAnswer = Type.Object(
  { optimized_prompt: Type.String(), theme: Type.String() },
  { additionalProperties: false },
);
type SceneAnswer = Static<typeof SceneAnswer>;
const checkSceneAnswer = Compile(SceneAnswer);

export const SCENE_SYSTEM_PROMPT = [
  'You are an art director writing the prompt a product photo generator receives.',
  "Rewrite the user's scene prompt into one concrete scene description in plain prose (about 60 to 200 words, no lists, no headings, no quotes around it), in the language of the original prompt.",
  'Keep everything the user asked for, in their words where you can (even a word the brand avoids: the user is told separately), and never contradict it (their setting, light, mood, camera, colours and exclusions win).',
  'Name every product by its description so it stays the hero: in the foreground, in sharp focus, its shape, label and colours unchanged.',
  'One hero: a product the user names that is not among the products given stays secondary, never a second hero; refer to a set or pack in the plural ("the mugs").',
  'Fill only what the user left open: setting and surface (or the supplied environment, matching its light and perspective), lighting, camera and lens, composition suited to the aspect ratio, mood.',
  "When a brand is given, let its tone and imagery style choose those, and use its palette as colour words for accents (never hex or colour codes); never add any of the brand's words to avoid.",
  'For a marketplace listing placement: the whole product in frame and unobstructed, an uncluttered background, no added text, badges or watermarks.',
  'End with brief photographic quality cues. Do not invent product features, claims, prices or text to print.',
  'Theme: a short title-case name of 2 to 5 words for the creative direction, e.g. "Sunlit Mediterranean Breakfast".',
  'Answer with JSON only, following the schema.',
].join(' ');

export function createOpenAiCompatibleSceneEnhancer(
  settings: OpenAiSceneEnhancerSettings,
  fetcher: Fetcher,
): SceneEnhancer {
  return chatEnhancer(settings, fetcher, {
    system: SCENE_SYSTEM_PROMPT,
    user: sceneUserMessage,
    schemaName: 'scene_prompt_enhancement',
    schema: SceneAnswer,
    check: checkSceneAnswer,
    result: toEnhancement,
  });
}

/**
 * An enhancer over the chat endpoint (the scene and the video one): the system prompt and the
 * input as a JSON user message, temperature 0.2, 30 s unless the settings say otherwise, the
 * answer checked against its strict JSON schema and turned into the enhancement.
 */
export function chatEnhancer<In, Answer, Out>(
  settings: ChatEndpointSettings,
  fetcher: Fetcher,
  spec: {
    system: string;
    user: (input: In) => string;
    schemaName: string;
    schema: TSchema;
    check: Parameters<typeof askChat<Answer>>[3];
    result: (answer: Answer, input: In) => Out;
  },
): { name: string; enhance(input: In, opts?: { signal?: AbortSignal }): Promise<Out & { engine: string }> } {
  const name = `openai-compatible:${settings.model}`;
  return {
    name,
    async enhance(input, opts = {}) {
      const request: ChatRequest = {
        system: spec.system,
        user: spec.user(input),
        temperature: 0.2,
        schemaName: spec.schemaName,
        schema: spec.schema,
        defaultTimeoutMs: 30_000,
        signal: opts.signal,
      };
      const answer = await askChat(settings, fetcher, request, spec.check);
      return { ...spec.result(answer, input), engine: name };
    },
  };
}

/** `s` with hex codes as colour words and whitespace normalised, cut to `max` characters ('' when absent). */
export const bounded = (s: string | undefined, max: number) => (s ? cleanText(hexToWords(s)).slice(0, max) : '');

/** A frame's or product's dominant colours as at most 5 distinct colour words. */
export const colourWords = (cs: string[]) =>
  [...new Set(cs.map((c) => bounded(c, 30).toLowerCase().replace(/-/g, ' ')))].slice(0, 5);

/** The brand as the model is told it: bounded words, its palette as colour words. */
export function brandJson(brand: SceneBrandContext | undefined) {
  return brand
    ? {
        name: bounded(brand.name, 100),
        industry: bounded(brand.industry, 50) || null,
        tone: brand.tone.map((t) => bounded(t, 30)).slice(0, 5),
        palette: brand.palette.slice(0, 8).flatMap((e) => {
          const word = paletteWord(e);
          return word ? [e.role ? `${word} (${e.role})` : word] : [];
        }),
        imagery_style: (brand.imageryStyle ?? []).map((s) => bounded(s, 40)).slice(0, 12),
        words_to_avoid: (brand.wordsToAvoid ?? []).map((s) => bounded(s, 40)).slice(0, 20),
      }
    : null;
}

/** The request as JSON: everything resolved to words (palette as colour words, no hex). */
export function sceneUserMessage(input: SceneEnhancementInput): string {
  const tags = (ts: string[]) => usefulTags(ts).slice(0, 10);
  return JSON.stringify({
    original_prompt: bounded(input.originalPrompt, SCENE_PROMPT_MAX),
    aspect_ratio: input.aspectRatio ?? null,
    orientation: input.aspectRatio
      ? { portrait: 'vertical', landscape: 'horizontal', square: 'square' }[shapeOf(input.aspectRatio)]
      : null,
    products: input.products.slice(0, 10).map((p) => ({
      description: bounded(p.description, 500) || null,
      file_name: bounded(p.fileName, 200) || null,
      tags: tags(p.tags),
      dominant_colours: colourWords(p.colors),
    })),
    environment: input.environment
      ? {
          description: bounded(input.environment.description, 500) || null,
          tags: tags(input.environment.tags),
          dominant_colours: colourWords(input.environment.colors),
        }
      : null,
    brand: brandJson(input.brand),
    placement: input.partner === 'default' ? 'general' : 'marketplace listing',
  });
}

const STOP = new Set(
  'about above after again against also among another because been before being below between both could does doing down during each either every from further have having here itself just like make more most much must only other over same should some such than that their them then there these they this those through under until upon very what when where which while whom will with within without would your yours into onto make made show shows shot want wants need needs please image photo picture'.split(
    ' ',
  ),
);

/** The prompt's content words (4+ letters, not stop words), unique, in order. */
export function contentWords(text: string): string[] {
  return [
    ...new Set((text.toLowerCase().match(/[\p{L}][\p{L}'-]*/gu) ?? []).filter((w) => w.length >= 4 && !STOP.has(w))),
  ].slice(0, 60);
}

/** Share of `words` that `text` keeps (a word counts when its stem — all but a 1-2 letter ending — appears). */
export function keptShare(words: string[], text: string): number {
  if (!words.length) return 1;
  const low = text.toLowerCase();
  const kept = words.filter((w) => low.includes(w.slice(0, Math.max(4, w.length - 2))));
  return kept.length / words.length;
}

/** Bounded, checked enhancement from a schema-valid answer; a TextEngineError when it cannot be used. */
export function toEnhancement(a: SceneAnswer, input: SceneEnhancementInput): Omit<SceneEnhancement, 'engine'> {
  let prompt = unquoted(hexToWords(a.optimized_prompt));
  if (!prompt) throw new TextEngineError('The model answered an empty prompt');
  const original = cleanText(hexToWords(input.originalPrompt));
  checkFaithful(original, prompt);
  const sources = [original, ...input.products.map((p) => p.description ?? ''), input.environment?.description ?? '']
    .join(' ')
    .toLowerCase();
  checkNoAvoidedWords(input.brand, prompt, sources);
  const warnings: SceneWarning[] = sceneWarnings(input);
  if (prompt.length > SCENE_PROMPT_MAX) {
    const cut = prompt.slice(0, SCENE_PROMPT_MAX).replace(/[\ud800-\udbff]$/, '');
    const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
    prompt = end >= SCENE_PROMPT_MAX * 0.6 ? cut.slice(0, end + 1) : cut.replace(/\s+\S*$/, '');
    warnings.push({
      code: 'PROMPT_TRUNCATED',
      severity: 'info',
      field: 'originalPrompt',
      message: `The enhanced prompt was longer than ${SCENE_PROMPT_MAX} characters and was cut at a sentence boundary.`,
    });
  }
  let theme = unquoted(a.theme);
  if (theme.length > SCENE_THEME_MAX) theme = theme.slice(0, SCENE_THEME_MAX).replace(/\s+\S*$/, '');
  if (!theme) throw new TextEngineError('The model answered an empty theme');
  return { optimizedPrompt: prompt, theme, warnings };
}

/** `text` cleaned, without the quotes a model may put around it. */
export const unquoted = (text: string): string =>
  cleanText(text)
    .replace(/^["“'](.*)["”']$/u, '$1')
    .trim();

/** A TextEngineError when the model's `prompt` leaves out most of the content words of the user's `original`. */
export function checkFaithful(original: string, prompt: string): void {
  const words = contentWords(original);
  if (words.length >= 3 && keptShare(words, prompt) < FAITHFUL_SHARE) {
    throw new TextEngineError("The model's prompt leaves out most of the user's words");
  }
}

/** A TextEngineError when `prompt` uses a word the brand avoids that the user's `sources` (lower case) do not. */
export function checkNoAvoidedWords(brand: SceneBrandContext | undefined, prompt: string, sources: string): void {
  const added = (brand?.wordsToAvoid ?? [])
    .map((w) => cleanText(w).toLowerCase())
    .filter((w) => w.length >= 2 && containsWord(prompt, w) && !containsWord(sources, w));
  if (added.length) {
    throw new TextEngineError(
      `The model's prompt uses ${joinList(added.map((w) => `"${w}"`))}, which the brand avoids`,
    );
  }
}

/** Whether `text` has `word` as a whole word (case-insensitive). */
export function containsWord(text: string, word: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(word)}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

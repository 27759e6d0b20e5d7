import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Fetcher } from '../../../adapters/fetch/fetcher.ts';
import { chatContent, checkContent, postChatCompletion, TextEngineError } from './chat.ts';
import {
  type AnalyzeOptions,
  type TextAnalysis,
  type TextAnalysisInput,
  type TextAnalyzer,
  TONES,
  type Tone,
} from '../text-engine.ts';

/**
 * Text analysis by any OpenAI-compatible chat endpoint (OpenAI, Azure OpenAI, vLLM, Ollama,
 * llama.cpp server, LM Studio...): POST `<baseUrl>/chat/completions` with `response_format`
 * `{ type: 'json_schema', json_schema: { name, strict: true, schema } }`, temperature 0. The
 * answer is parsed, checked against the same schema and bounded before it is used; anything else
 * is a TextEngineError (the caller falls back to the local analyzer).
 */
export interface OpenAiCompatibleSettings {
  /** e.g. https://api.openai.com/v1 (the `/chat/completions` path is appended). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
  /** Largest number of characters of source text sent. Default 24 000. */
  maxInputChars?: number;
}

export { TextEngineError };

const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);

/**
 * The JSON schema the model must answer with. Strict structured output wants every member
 * required and no extras, and not every server supports length or range keywords, so bounds are
 * applied after parsing (toAnalysis) rather than asked of the model.
 */
export const LlmAnswer = Type.Object(
  {
    brand_name: NullableStr,
    tagline: NullableStr,
    mission: NullableStr,
    values: Type.Array(Str),
    industry: NullableStr,
    audience: Type.Union([
      Type.Object({ description: Str, segments: Type.Array(Str) }, { additionalProperties: false }),
      Type.Null(),
    ]),
    tone: Type.Array(
      Type.Object(
        { tone: Type.Unsafe<Tone>({ type: 'string', enum: [...TONES] }), weight: Type.Number() },
        { additionalProperties: false },
      ),
    ),
    descriptors: Type.Array(Str),
    formality: Type.Number(),
    words_to_use: Type.Array(Str),
    words_to_avoid: Type.Array(Str),
  },
  { additionalProperties: false },
);
type LlmAnswer = Static<typeof LlmAnswer>;
const checkAnswer = Compile(LlmAnswer);

const SYSTEM_PROMPT = [
  'You analyse the brand identity and voice expressed in the text blocks you are given.',
  'Each block has a kind: title, description, heading, paragraph, about, mission, values, tone, tagline, audience, words_use, words_avoid or body;',
  'sections named mission, values, tone, tagline, audience, words_use and words_avoid are stated explicitly by the brand and take precedence.',
  `Tone: weigh only these tones: ${TONES.join(', ')}; weights between 0 and 1 that sum to 1, strongest first, omit tones without evidence.`,
  'Formality: 0 is very casual, 1 very formal. Use null or empty lists for anything the text does not support; never invent facts.',
  'Answer with JSON only, following the schema.',
].join(' ');

export function createOpenAiCompatibleAnalyzer(settings: OpenAiCompatibleSettings, fetcher: Fetcher): TextAnalyzer {
  const name = `openai-compatible:${settings.model}`;
  const maxChars = settings.maxInputChars ?? 24_000;

  return {
    name,
    async analyze(input: TextAnalysisInput, opts: AnalyzeOptions = {}): Promise<TextAnalysis> {
      const body = await postChatCompletion(settings, fetcher, {
        system: SYSTEM_PROMPT,
        user: userMessage(input, maxChars),
        temperature: 0,
        schemaName: 'brand_text_analysis',
        schema: LlmAnswer,
        defaultTimeoutMs: 60_000,
        signal: opts.signal,
      });
      const answer = parseAnswer(body);
      return { ...toAnalysis(answer), engine: name };
    },
  };
}

/** The blocks as JSON, cut to `maxChars` of text (explicit sections first, then page order). */
export function userMessage(input: TextAnalysisInput, maxChars: number): string {
  const explicit = new Set(['mission', 'values', 'tone', 'tagline', 'audience', 'words_use', 'words_avoid']);
  const ordered = [
    ...input.blocks.filter((b) => explicit.has(b.kind)),
    ...input.blocks.filter((b) => !explicit.has(b.kind)),
  ];
  const blocks: { kind: string; text: string }[] = [];
  let used = 0;
  for (const b of ordered) {
    if (used >= maxChars) break;
    const text = b.text.slice(0, maxChars - used);
    used += text.length;
    blocks.push({ kind: b.kind, text });
  }
  return JSON.stringify({
    brand_name_hint: input.brandName ?? null,
    declared_names: input.declaredNames ?? [],
    blocks,
  });
}

/** The first choice's message content, parsed and checked against LlmAnswer. */
export function parseAnswer(body: Buffer): LlmAnswer {
  return checkContent(checkAnswer, chatContent(body));
}

const clean = (s: string | null | undefined, max: number) => (s ?? '').replace(/\s+/g, ' ').trim().slice(0, max);
const clamp01 = (x: number) => (Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0);

/** Bounded, normalised analysis from a checked answer (lengths cut, weights clamped and normalised). */
export function toAnalysis(a: LlmAnswer): TextAnalysis {
  const uniq = (xs: string[], max: number, maxLen: number) =>
    [...new Set(xs.map((x) => clean(x, maxLen)).filter(Boolean))].slice(0, max);
  const toneMap = new Map<Tone, number>();
  for (const t of a.tone) toneMap.set(t.tone, (toneMap.get(t.tone) ?? 0) + clamp01(t.weight));
  const sum = [...toneMap.values()].reduce((s, w) => s + w, 0);
  const tone =
    sum > 0
      ? [...toneMap.entries()]
          .map(([t, w]) => ({ tone: t, weight: Math.round((w / sum) * 1000) / 1000 }))
          .filter((t) => t.weight > 0)
          .sort((x, y) => y.weight - x.weight)
      : [];
  const out: TextAnalysis = {
    values: uniq(a.values, 10, 50),
    tone,
    descriptors: uniq(a.descriptors, 8, 40).map((d) => d.toLowerCase()),
    formality: Math.round(clamp01(a.formality) * 1000) / 1000,
    wordsToUse: uniq(a.words_to_use, 12, 40),
    wordsToAvoid: uniq(a.words_to_avoid, 12, 40),
  };
  const scored = (v: string | null, max: number) => (clean(v, max) ? { value: clean(v, max), score: 0.8 } : undefined);
  const brandName = scored(a.brand_name, 100);
  const tagline = scored(a.tagline, 200);
  const mission = scored(a.mission, 1000);
  const industry = scored(a.industry, 50);
  if (brandName) out.brandName = brandName;
  if (tagline) out.tagline = tagline;
  if (mission) out.mission = mission;
  if (industry) out.industry = industry;
  if (a.audience && clean(a.audience.description, 300)) {
    out.audience = {
      value: { description: clean(a.audience.description, 300), segments: uniq(a.audience.segments, 8, 50) },
      score: 0.8,
    };
  }
  return out;
}

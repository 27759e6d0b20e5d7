import {
  type BlockKind,
  emptyAnalysis,
  type Scored,
  type TextAnalysis,
  type TextAnalysisInput,
  type TextAnalyzer,
  type TextBlock,
  TONES,
  type Tone,
} from '../text-engine.ts';
import {
  AUDIENCE_WORDS,
  DESCRIPTOR_WORDS,
  FURNITURE,
  INDUSTRY_WORDS,
  STOPWORDS,
  TONE_DESCRIPTORS,
  TONE_FORMALITY,
  TONE_WORDS,
  VALUE_WORDS,
} from './lexicons.ts';
import { clamp01 } from '../../shared/math.ts';

/**
 * The built-in text analyzer: lexicon hits and a few style features (exclamations, contractions,
 * second person, word and sentence length) score the tones; sentences are scored for mission and
 * tagline; stated sections (values, tone of voice, words to use or avoid) are read as lists.
 * Deterministic, English-centred, no network. Scoring rules are in docs/decisions/brand-dna.md (Brand DNA).
 */
export function createLocalTextAnalyzer(): TextAnalyzer {
  return {
    name: 'local',
    async analyze(input) {
      return { ...analyzeText(input), engine: 'local' };
    },
  };
}

/** How much a block's words count for tone, by where they come from. */
const KIND_WEIGHT: Record<BlockKind, number> = {
  tone: 3,
  mission: 1.5,
  about: 1.5,
  tagline: 1.5,
  description: 1.5,
  values: 1.2,
  title: 1.2,
  heading: 1.2,
  paragraph: 1,
  body: 1,
  audience: 1,
  words_use: 0.5,
  words_avoid: 0,
};

const WORD_RE = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** Lower-case word tokens, possessive `'s` removed. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD_RE) ?? []).map((w) => w.replace(/['’]s$/, '').replace(/['’]/g, "'"));
}

/** Does `token` match a lexicon stem? Short stems (≤ 4 letters) must match whole (plural allowed). */
export function stemMatch(token: string, stem: string): boolean {
  if (stem.length <= 4) return token === stem || token === `${stem}s` || token === `${stem}es`;
  return token.startsWith(stem);
}

const stemCache = new Map<string, string[]>();
function lexiconHits(token: string, lexicon: Record<string, string[]>, cacheKey: string): string[] {
  const key = `${cacheKey}|${token}`;
  let hit = stemCache.get(key);
  if (!hit) {
    hit = Object.entries(lexicon)
      .filter(([, stems]) => stems.some((s) => stemMatch(token, s)))
      .map(([k]) => k);
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(key, hit);
  }
  return hit;
}

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

const NEGATION = new Set(['not', 'never', "don't", 'dont', 'avoid', 'no', "isn't", "aren't", 'without', 'nor']);
const TONE_NAMES: Record<string, Tone> = Object.fromEntries(TONES.map((t) => [t.toLowerCase(), t]));

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function analyzeText(input: TextAnalysisInput): TextAnalysis {
  const blocks = input.blocks.filter((b) => b.text.trim() !== '');
  if (blocks.length === 0) return emptyAnalysis();
  const out = emptyAnalysis();
  const tone = scoreTones(blocks);
  out.tone = tone.weights;
  out.formality = tone.formality;
  out.descriptors = descriptors(blocks, out.tone);
  const brandName = pickBrandName(input, blocks);
  if (brandName) out.brandName = brandName;
  const mission = pickMission(blocks, brandName?.value);
  if (mission) out.mission = mission;
  const tagline = pickTagline(blocks, brandName?.value ?? input.brandName, mission?.value);
  if (tagline) out.tagline = tagline;
  const stated = statedValues(blocks);
  out.values = pickValues(blocks, stated);
  if (stated.length > 0) out.statedValues = stated;
  const industry = pickIndustry(blocks);
  if (industry) out.industry = industry;
  const audience = pickAudience(blocks);
  if (audience) out.audience = audience;
  out.wordsToUse = listFrom(blocks, 'words_use', 12);
  if (out.wordsToUse.length === 0) out.wordsToUse = brandVocabulary(blocks, brandName?.value);
  out.wordsToAvoid = [...listFrom(blocks, 'words_avoid', 12), ...avoidPhrases(blocks)].filter(
    (w, i, a) => a.indexOf(w) === i,
  );
  return out;
}

// --------------------------------------------------------------------------------------------
// Tone and formality

function scoreTones(blocks: TextBlock[]): { weights: { tone: Tone; weight: number }[]; formality: number } {
  const score = Object.fromEntries(TONES.map((t) => [t, 0])) as Record<Tone, number>;
  let wordCount = 0;
  let sentenceCount = 0;
  let exclamations = 0;
  let contractions = 0;
  let secondPerson = 0;
  let letters = 0;
  let emoji = 0;
  for (const b of blocks) {
    const w = KIND_WEIGHT[b.kind];
    if (w === 0) continue;
    const tokens = words(b.text);
    wordCount += tokens.length;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      letters += t.length;
      if (t === 'you' || t === 'your' || t === "you're" || t === 'yours') secondPerson++;
      if (/'(re|ll|ve|m|d)$|n't$/.test(t)) contractions++;
      const negated = tokens.slice(Math.max(0, i - 3), i).some((p) => NEGATION.has(p));
      const named = TONE_NAMES[t];
      if (named && b.kind === 'tone') score[named] += negated ? -6 : 6;
      for (const toneName of lexiconHits(t, TONE_WORDS, 'tone') as Tone[]) {
        score[toneName] += negated ? -w : w;
      }
    }
    const ss = sentences(b.text);
    sentenceCount += ss.length;
    exclamations += (b.text.match(/!/g) ?? []).length;
    emoji += (b.text.match(/\p{Extended_Pictographic}/gu) ?? []).length;
    if (/\b(since|est\.?|established|founded( in)?)\s+(1[5-9]\d\d)\b/i.test(b.text)) score.Traditional += 3 * w;
  }
  const per100 = 100 / Math.max(wordCount, 50);
  const rate = Object.fromEntries(TONES.map((t) => [t, score[t] * per100])) as Record<Tone, number>;
  const exclRate = exclamations / Math.max(sentenceCount, 1);
  const contrRate = contractions * per100;
  const youRate = secondPerson * per100;
  const avgWord = wordCount ? letters / wordCount : 0;
  const avgSentence = sentenceCount ? wordCount / sentenceCount : 0;
  rate.Playful += 8 * exclRate + 2 * emoji * per100;
  rate.Friendly += 4 * exclRate + 0.3 * contrRate + 0.3 * youRate;
  rate.Casual += 4 * exclRate + 0.5 * contrRate + emoji * per100;
  if (avgWord > 5.2) {
    rate.Professional += (avgWord - 5.2) * 3;
    rate.Authoritative += (avgWord - 5.2) * 1.5;
  }
  const positive = TONES.map((t) => ({ tone: t, s: Math.max(0, rate[t]) })).filter((x) => x.s > 0);
  const sum = positive.reduce((a, x) => a + x.s, 0);
  let weights: { tone: Tone; weight: number }[] = [];
  if (sum > 0) {
    const kept = positive.filter((x) => x.s / sum >= 0.05);
    const keptSum = kept.reduce((a, x) => a + x.s, 0);
    weights = kept
      .map((x) => ({ tone: x.tone, weight: round3(x.s / keptSum) }))
      .sort((a, b) => b.weight - a.weight || TONES.indexOf(a.tone) - TONES.indexOf(b.tone));
    const drift = round3(1 - weights.reduce((a, x) => a + x.weight, 0));
    if (weights[0]) weights[0].weight = round3(weights[0].weight + drift);
  }
  // Formality: style features around a neutral 0.5, pulled by the formal or casual tones found.
  let formality =
    0.5 +
    0.1 * (avgWord - 4.8) +
    0.01 * (avgSentence - 15) -
    0.05 * contrRate -
    0.01 * youRate -
    0.3 * exclRate -
    0.05 * emoji * per100;
  formality += 0.3 * weights.reduce((a, x) => a + x.weight * TONE_FORMALITY[x.tone], 0);
  return { weights, formality: round3(clamp01(formality)) };
}

function descriptors(blocks: TextBlock[], tone: { tone: Tone; weight: number }[]): string[] {
  const stated = new Map<string, number>();
  for (const b of blocks) {
    if (b.kind !== 'tone') continue;
    const tokens = words(b.text);
    tokens.forEach((t, i) => {
      if (!DESCRIPTOR_WORDS.includes(t)) return;
      if (tokens.slice(Math.max(0, i - 3), i).some((p) => NEGATION.has(p))) return;
      stated.set(t, (stated.get(t) ?? 0) + 1);
    });
  }
  if (stated.size > 0) {
    return [...stated.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([w]) => w)
      .slice(0, 8);
  }
  return [...new Set(tone.slice(0, 3).flatMap((t) => TONE_DESCRIPTORS[t.tone]))].slice(0, 6);
}

// --------------------------------------------------------------------------------------------
// Identity

const normName = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Title segments: "Shoes – Acme | Official site" → ["Shoes", "Acme", "Official site"]. */
export function titleSegments(title: string): string[] {
  return title
    .split(/\s+[|–—·:•-]\s+|\s*[|•·]\s*/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function pickBrandName(input: TextAnalysisInput, blocks: TextBlock[]): Scored<string> | undefined {
  const declared = (input.declaredNames ?? []).find((n) => n.trim().length > 0 && n.length <= 100);
  if (declared) return { value: declared.trim(), score: 0.9 };
  const title = blocks.find((b) => b.kind === 'title')?.text;
  if (!title) return undefined;
  const segments = titleSegments(title);
  if (input.brandName) {
    const want = normName(input.brandName);
    const hit = segments.find((s) => normName(s) === want || (want.length >= 3 && normName(s).includes(want)));
    if (hit) return { value: hit.length <= want.length + 3 ? hit : input.brandName, score: 0.8 };
  }
  if (segments.length >= 2) {
    const last = segments[segments.length - 1]!;
    const first = segments[0]!;
    const shortest = [first, last].sort((a, b) => a.split(' ').length - b.split(' ').length)[0]!;
    if (shortest.split(' ').length <= 3) return { value: shortest, score: 0.45 };
  }
  return undefined;
}

const MISSION_CUE =
  /\b(mission|purpose|we exist|we believe|our goal|we aim|committed to|dedicated to|on a mission|our vision|we want to|we strive|we're here to|we are here to|so that|empower|inspire|help(ing)? (people|you|everyone|businesses|teams|families))\b/i;
const ACTION_CUE = /\bto (make|help|bring|empower|inspire|create|give|build|enable|connect|protect|deliver|offer)\b/i;

/** Section labels pages and guidelines put above their copy ("Our mission", "Core values"...). */
const LABEL =
  /^(?:our |core |brand |company )*(?:mission|values|vision|purpose|story|about(?: us)?|tone(?: of voice)?|voice(?: and tone)?|tagline|slogan|audience|principles|philosophy|manifesto|what we (?:stand for|believe)|who we are|why we exist|words (?:to|we) (?:use|avoid))(?: statement)?\s*:?$/i;

/** The text without its first line when that line is a section label. */
function stripLabel(text: string): string {
  const lines = text.split('\n');
  if (lines.length > 1 && LABEL.test(lines[0]!.trim())) lines.shift();
  return lines.join('\n');
}

function pickMission(blocks: TextBlock[], brand?: string): Scored<string> | undefined {
  let best: Scored<string> | undefined;
  const base: Partial<Record<BlockKind, number>> = {
    mission: 3,
    about: 1.5,
    description: 1,
    paragraph: 0.5,
    body: 0.8,
  };
  for (const b of blocks) {
    const kindScore = base[b.kind];
    if (kindScore === undefined) continue;
    const ss = sentences(stripLabel(b.text));
    ss.forEach((s, i) => {
      if (s.length < 25 || s.length > 300 || FURNITURE.test(s)) return;
      let score = kindScore;
      if (MISSION_CUE.test(s)) score += 2;
      if (ACTION_CUE.test(s)) score += 1;
      if (/^(we|our)\b/i.test(s)) score += 0.5;
      if (brand && s.toLowerCase().includes(brand.toLowerCase())) score += 0.3;
      if (/\d{2,}|[$€£¥]/.test(s)) score -= 1;
      if (b.kind === 'mission' && i === 0) score += 1;
      if (s.length > 220) score -= 0.5;
      if (!best || score > best.score) best = { value: s, score };
    });
  }
  if (!best || best.score < 2.5) return undefined;
  return { value: best.value, score: round3(clamp01(best.score / 7)) };
}

function pickTagline(
  blocks: TextBlock[],
  brand: string | undefined,
  mission: string | undefined,
): Scored<string> | undefined {
  const cands: { text: string; score: number }[] = [];
  const brandKey = brand ? normName(brand) : undefined;
  const consider = (raw: string, score: number) => {
    const text = raw
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^["“'‘]|["”'’]$/g, '');
    const n = text.split(' ').length;
    if (n < 2 || n > 12 || text.length > 100 || FURNITURE.test(text)) return;
    if (brandKey && normName(text) === brandKey) return;
    if (/\b(home|homepage|official (site|website|store)|welcome to|online shop|shop online)\b/i.test(text))
      score -= 1.5;
    if (/\d{3,}|[$€£¥]/.test(text)) score -= 1;
    if (mission && text === mission) score -= 1;
    cands.push({ text: text.replace(/[.]$/, ''), score });
  };
  for (const b of blocks) {
    if (b.kind === 'tagline') for (const s of sentences(stripLabel(b.text)).slice(0, 2)) consider(s, 3);
    if (b.kind === 'title') {
      const segs = titleSegments(b.text).filter((s) => !brandKey || normName(s) !== brandKey);
      if (segs.length < titleSegments(b.text).length) for (const s of segs) consider(s, 1.5);
    }
    if (b.kind === 'description') {
      const first = sentences(b.text)[0];
      if (first) consider(first, 1);
    }
    if (b.kind === 'heading') consider(b.text, 0.8);
  }
  const best = cands.sort((a, b) => b.score - a.score)[0];
  if (!best || best.score < 0.8) return undefined;
  return { value: best.text, score: round3(clamp01(best.score / 3)) };
}

/** Items of a list written as lines, bullets, or a comma/semicolon/"and" series. */
export function listItems(text: string, maxWords = 4): string[] {
  const out: string[] = [];
  const lines = stripLabel(text)
    .split(/\n|•|·|▪|●|;|\s[–—]\s(?=[A-Z])/)
    .map((l) => l.replace(/^\s*([-*–—]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);
  for (const line of lines) {
    const head = line.split(/\s*[:–—]\s+|\.\s/)[0]!.trim();
    const parts = head.split(/\s*,\s*|\s+(?:and|or|&)\s+/);
    for (const p of parts) {
      const item = p
        .replace(/^(our values are|we value|values are|we are|be)\s+/i, '')
        .replace(/[.!"“”]+$/g, '')
        .trim();
      const n = item.split(/\s+/).length;
      if (item.length >= 2 && item.length <= 50 && n <= maxWords) out.push(item);
    }
  }
  return out;
}

/** `Our values: A, B, C`, `Core values — A, B and C` or `Our values are A, B and C` inside any text. */
const VALUES_IN_TEXT =
  /(?:^|[.!?]\s+|\n)(?:our |core |brand |company )?values(\s*[:–—]|\s+are\b:?)\s*([^.!?:\n]{2,200})/gi;

/**
 * A line of a values section that lists values (`Craft`, `- Care`, `Integrity: we do what is
 * right`, `Boldness, warmth and wit`) rather than prose about them, whose value words are only
 * evidence to infer from.
 */
function listsValues(line: string): boolean {
  const l = line
    .replace(/^\s*([-*–—•·▪●]|\d+[.)])\s*/, '')
    .replace(/[.!]+$/, '')
    .trim();
  if (!l) return false;
  const words = l.split(/\s+/).length;
  if (words <= 6) return true;
  const head = l.split(/\s*[:–—]\s+/)[0]!;
  if (head !== l && head.split(/\s+/).length <= 4) return true;
  const parts = l.split(/\s*[,;]\s*|\s+(?:and|&)\s+/);
  return parts.length >= 3 && parts.every((p) => p.split(/\s+/).length <= 3);
}

/**
 * The values a text states, in the order given: the list items of its values sections (headed
 * `Our values`, `What we stand for`...) and labelled lists in any copy (`Our values: Craft,
 * Kindness, Curiosity.`). Prose under a values heading states nothing. Engine-independent: Brand
 * DNA applies it to the blocks every text engine reads, so stated values outrank inferred ones
 * whichever engine read them.
 */
export function statedValues(blocks: readonly TextBlock[]): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind === 'words_avoid' || b.kind === 'words_use') continue;
    if (b.kind === 'values') {
      for (const line of stripLabel(b.text).split('\n')) if (listsValues(line)) out.push(...listItems(line));
    }
    for (const m of b.text.matchAll(VALUES_IN_TEXT)) {
      const items = listItems(m[2]!);
      // "Our values are important to us" is a sentence, not a list.
      if (/[:–—]/.test(m[1]!) || items.length >= 2) out.push(...items);
    }
  }
  const seen = new Set<string>();
  return out
    .map(capitalize)
    .filter((v) => {
      const k = v.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, 10);
}

/** The stated values, else values inferred from the copy's value words. */
function pickValues(blocks: TextBlock[], stated: string[]): string[] {
  const seen = new Set<string>();
  const uniq = (xs: string[]) =>
    xs.filter((x) => {
      const k = x.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  if (stated.length > 0) return stated;
  const counts = new Map<string, number>();
  for (const b of blocks) {
    const w = b.kind === 'mission' || b.kind === 'about' ? 2 : b.kind === 'words_avoid' ? 0 : 1;
    if (w === 0) continue;
    for (const t of words(b.text)) {
      for (const [stem, display] of Object.entries(VALUE_WORDS)) {
        if (stemMatch(t, stem)) counts.set(display, (counts.get(display) ?? 0) + w);
      }
    }
  }
  return uniq(
    [...counts.entries()]
      .filter(([, n]) => n >= 2)
      .sort((a, b) => b[1] - a[1])
      .map(([v]) => v),
  ).slice(0, 5);
}

function pickIndustry(blocks: TextBlock[]): Scored<string> | undefined {
  const score = new Map<string, number>();
  for (const b of blocks) {
    const w = b.kind === 'title' || b.kind === 'description' || b.kind === 'about' || b.kind === 'mission' ? 2 : 1;
    const text = b.text.toLowerCase();
    for (const t of words(text)) {
      for (const ind of lexiconHits(t, INDUSTRY_WORDS, 'industry')) score.set(ind, (score.get(ind) ?? 0) + w);
    }
  }
  const ranked = [...score.entries()].sort((a, b) => b[1] - a[1]);
  const top = ranked[0];
  if (!top || top[1] < 3) return undefined;
  const second = ranked[1]?.[1] ?? 0;
  return { value: top[0], score: round3(clamp01((top[1] - second) / top[1] + 0.3)) };
}

function pickAudience(blocks: TextBlock[]): Scored<{ description: string; segments: string[] }> | undefined {
  const segmentsIn = (s: string) => {
    const found = new Set<string>();
    for (const t of words(s)) {
      for (const [stem, seg] of Object.entries(AUDIENCE_WORDS)) if (stemMatch(t, stem)) found.add(seg);
    }
    return [...found];
  };
  const stated = blocks.find((b) => b.kind === 'audience');
  if (stated) {
    const text = stripLabel(stated.text);
    const description = sentences(text)[0] ?? text;
    return { value: { description: description.slice(0, 300), segments: segmentsIn(text).slice(0, 6) }, score: 0.9 };
  }
  const re =
    /\b(?:for|helps?|serving|built for|made for|designed for)\s+((?:busy|modern|small|growing|young|working|curious|creative|everyday|independent|active|new)\s+)?([\p{L}-]+(?:\s(?:and|&)\s[\p{L}-]+)?)/giu;
  for (const b of blocks) {
    if (b.kind === 'words_avoid') continue;
    for (const s of sentences(b.text)) {
      if (s.length > 300 || FURNITURE.test(s)) continue;
      for (const m of s.matchAll(re)) {
        const segs = segmentsIn(m[0]);
        if (segs.length > 0 && !segs.every((x) => x === 'customers')) {
          return { value: { description: s, segments: segs }, score: 0.5 };
        }
      }
    }
  }
  return undefined;
}

function listFrom(blocks: TextBlock[], kind: BlockKind, max: number): string[] {
  const items = blocks
    .filter((b) => b.kind === kind)
    .flatMap((b) => listItems(b.text.replace(/["“”‘’]/g, ''), 3))
    .map((w) => w.toLowerCase());
  return [...new Set(items)].slice(0, max);
}

/** "Never say 'cheap'", "avoid jargon" inside tone sections. */
function avoidPhrases(blocks: TextBlock[]): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind !== 'tone') continue;
    for (const m of b.text.matchAll(
      /\b(?:never say|don'?t say|avoid(?: words like| saying| using)?|we don'?t use)\s+([^.\n]{2,80})/gi,
    )) {
      for (const item of listItems(m[1]!.replace(/["“”‘’]/g, ''), 3)) out.push(item.toLowerCase());
    }
  }
  return out.slice(0, 12);
}

/** Words the brand repeats in its headings, title and tagline (its vocabulary), at most 8. */
function brandVocabulary(blocks: TextBlock[], brand?: string): string[] {
  const counts = new Map<string, number>();
  const brandTokens = new Set(brand ? words(brand) : []);
  for (const b of blocks) {
    const w = b.kind === 'heading' || b.kind === 'title' || b.kind === 'tagline' || b.kind === 'description' ? 2 : 1;
    if (b.kind === 'words_avoid') continue;
    for (const t of new Set(words(b.text))) {
      if (t.length < 4 || STOPWORDS.has(t) || brandTokens.has(t) || /\d/.test(t)) continue;
      counts.set(t, (counts.get(t) ?? 0) + w);
    }
  }
  return [...counts.entries()]
    .filter(([, n]) => n >= 3)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 8)
    .map(([t]) => t);
}

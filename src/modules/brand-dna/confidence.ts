import type { Tone } from '../../engines/text/text-engine.ts';
import type { BrandDna } from './brand-dna.schemas.ts';
import type { MergeEvidence } from './merge.ts';

/**
 * How complete and how corroborated a DNA is. Both are computed once, when an extraction ends,
 * and never change afterwards (an edit does not make the sources say more). Pure.
 */

/** Each field's share of coverage (sums to 1); a field is missing when empty or null. */
export const COVERAGE_WEIGHTS: Record<string, number> = {
  'identity.brand_name': 0.05,
  'identity.tagline': 0.05,
  'identity.mission': 0.07,
  'identity.values': 0.07,
  'identity.industry': 0.04,
  'identity.audience': 0.04,
  'voice.tone': 0.08,
  'voice.descriptors': 0.03,
  'voice.formality': 0.03,
  'voice.words_to_use': 0.03,
  'voice.words_to_avoid': 0.02,
  'visual.palette': 0.18,
  'visual.typography.heading': 0.08,
  'visual.typography.body': 0.08,
  'visual.logos': 0.08,
  'visual.imagery': 0.05,
};

function present(dna: BrandDna, field: string): boolean {
  const [group, name, sub] = field.split('.') as [keyof BrandDna, string, string | undefined];
  let v: unknown = (dna[group] as Record<string, unknown>)[name];
  if (sub) v = (v as Record<string, unknown> | null)?.[sub];
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (field === 'visual.imagery') {
    const i = v as BrandDna['visual']['imagery'];
    return i.style.length > 0 || i.subjects.length > 0;
  }
  return true;
}

/** Fields (dotted paths) with nothing in them, in the order of COVERAGE_WEIGHTS. */
export function missingFields(dna: BrandDna): string[] {
  return Object.keys(COVERAGE_WEIGHTS).filter((f) => !present(dna, f));
}

export const coverage = (dna: BrandDna): number =>
  Object.entries(COVERAGE_WEIGHTS).reduce((s, [f, w]) => s + (present(dna, f) ? w : 0), 0);

function cosine(a: Record<Tone, number>, b: Record<Tone, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const k of Object.keys(a) as Tone[]) {
    dot += a[k] * b[k];
    na += a[k] ** 2;
    nb += b[k] ** 2;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Agreement between sources, 0..1: the mean over the aspects at least two sources spoke to of —
 * palette: share of the first three colours that two or more sources support; typography: share
 * of the chosen families two or more sources name; tone: mean pairwise cosine similarity of the
 * sources' tone distributions. 0.5 (unknown) when no aspect had two sources.
 */
export function agreementScore(e: MergeEvidence): number {
  const parts: number[] = [];
  const corroborated = (support: number[]) =>
    support.length ? support.filter((n) => n >= 2).length / support.length : 0;
  if (e.paletteSources >= 2) parts.push(corroborated(e.paletteSupport));
  if (e.fontSources >= 2) parts.push(corroborated(e.fontSupport));
  if (e.toneVectors.length >= 2) {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < e.toneVectors.length; i++) {
      for (let j = i + 1; j < e.toneVectors.length; j++) {
        sum += cosine(e.toneVectors[i]!, e.toneVectors[j]!);
        n++;
      }
    }
    parts.push(sum / n);
  }
  return parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : 0.5;
}

/**
 * confidenceScore = (0.7 × coverage + 0.3 × agreement) × (0.75 + 0.25 × share of sources that
 * succeeded), rounded to 3 decimals.
 */
export function confidenceScore(
  dna: BrandDna,
  e: MergeEvidence,
  sources: { total: number; succeeded: number },
): number {
  const success = sources.total > 0 ? sources.succeeded / sources.total : 0;
  const raw = (0.7 * coverage(dna) + 0.3 * agreementScore(e)) * (0.75 + 0.25 * success);
  return Math.round(Math.max(0, Math.min(1, raw)) * 1000) / 1000;
}

/**
 * The three scores every scene variation carries, from its pixel features (features.ts). Pure and
 * deterministic.
 *
 * Scale: 0..100, higher is better, one decimal; about 50 is an ordinary product photo. Each score
 * is `100 × Σ weight·term`, clamped to 0..100, where each term is a feature mapped to 0..1 (1 =
 * good) and the weights of a score sum to 1. The terms, their formulas and weights are all in
 * `SCORE_MODEL` below (README.md has the same table and the calibration: on bench/scores.ts a clean
 * centred packshot scores ≈ 54–76 attention and 63–87 conversion depending on its size, and random
 * clutter around it takes ≈ 17–22 points off both).
 *
 * - attention_potential (will it stop the scroll?) rises with the share of the frame's saliency on
 *   the product, the product's size (diminishing returns), global and product contrast, colourfulness,
 *   and 1–3 attention targets; more competing focal points lower it.
 * - conversion (does it sell the product?) rises with a product that is large and distinct enough,
 *   sharp, well exposed, placed near a power point with breathing room, not cut off, in an
 *   uncluttered frame.
 * - brand_awareness (is it recognisably the brand's?) rises with brand-palette coverage of the frame
 *   and of the product, a logo (given boxes, else the text/mark proxy) that is big, legible and
 *   inside the frame, and a prominent product.
 */
import { analyzeImage, type FeatureOptions, type ImageFeatures, type PixelInput } from './features.ts';
import { clamp01 } from '../shared/math.ts';

export const SCORE_NAMES = ['attention_potential', 'conversion', 'brand_awareness'] as const;
export type ScoreName = (typeof SCORE_NAMES)[number];
export type Scores = Record<ScoreName, number>;

export interface ScoreTerm {
  key: string;
  weight: number;
  /** The mapping from features to 0..1, in words (and in README.md). */
  formula: string;
  value: (f: ImageFeatures) => number;
}

/** 0 at `lo`, 1 at `hi` (either order), linear between, clamped. */
export const ramp = (x: number, lo: number, hi: number): number => clamp01((x - lo) / (hi - lo));
/** Diminishing returns: 1 − e^(−x/k) (63% at x = k). */
export const saturate = (x: number, k: number): number => clamp01(1 - Math.exp(-x / k));

/** 1 for 1–3 targets, 0 for none, −0.3 per target beyond 3. */
const focalTargets = (n: number) => (n <= 0 ? 0 : n <= 3 ? 1 : clamp01(1 - 0.3 * (n - 3)));
/** 1 inside [a, b], falling linearly to 0 at `lo` and `hi`. */
const band = (x: number, lo: number, a: number, b: number, hi: number) =>
  x < a ? ramp(x, lo, a) : x > b ? ramp(x, hi, b) : 1;
const productSize = (f: ImageFeatures) => saturate(f.subject.areaShare, 0.2);
const saliencyOnProduct = (f: ImageFeatures) => ramp(f.subject.saliencyShare, 0.2, 0.9);
/** Without a palette the palette terms are unknown: they count 0.5. */
const NO_PALETTE = 0.5;

/** Every score's terms, weights and formulas: the one place the model is declared. */
export const SCORE_MODEL: Record<ScoreName, readonly ScoreTerm[]> = {
  attention_potential: [
    {
      key: 'saliency_on_product',
      weight: 0.3,
      formula: 'ramp(subject.saliencyShare, 0.2 → 0.9)',
      value: saliencyOnProduct,
    },
    {
      key: 'product_size',
      weight: 0.2,
      formula: '1 − exp(−subject.areaShare / 0.2)',
      value: productSize,
    },
    {
      key: 'contrast',
      weight: 0.2,
      formula: '½ ramp(contrast.rms, 0.05 → 0.4) + ½ ramp(contrast.subjectDeltaE, 10 → 80)',
      value: (f) => 0.5 * ramp(f.contrast.rms, 0.05, 0.4) + 0.5 * ramp(f.contrast.subjectDeltaE, 10, 80),
    },
    {
      key: 'colorfulness',
      weight: 0.15,
      formula: 'ramp(colorfulness, 10 → 100)',
      value: (f) => ramp(f.colorfulness, 10, 100),
    },
    {
      key: 'focal_points',
      weight: 0.15,
      formula: 'saliency.focalTargets: 0 → 0, 1–3 → 1, then −0.3 per extra target',
      value: (f) => focalTargets(f.saliency.focalTargets),
    },
  ],
  conversion: [
    {
      key: 'product_visible',
      weight: 0.35,
      formula: '√(ramp(subject.areaShare, 0.02 → 0.4) · ramp(contrast.subjectDeltaE, 5 → 50))',
      value: (f) => Math.sqrt(ramp(f.subject.areaShare, 0.02, 0.4) * ramp(f.contrast.subjectDeltaE, 5, 50)),
    },
    {
      key: 'sharpness',
      weight: 0.15,
      formula: 'ramp(sharpness.acutance, 0.3 → 1.1)',
      value: (f) => ramp(f.sharpness.acutance, 0.3, 1.1),
    },
    {
      key: 'low_clutter',
      weight: 0.2,
      formula: '1 − 0.7 ramp(clutter.edgeDensity, 0.01 → 0.12) − 0.3 ramp(saliency.offSubjectFocalPoints, 0 → 4)',
      value: (f) =>
        clamp01(1 - 0.7 * ramp(f.clutter.edgeDensity, 0.01, 0.12) - 0.3 * ramp(f.saliency.offSubjectFocalPoints, 0, 4)),
    },
    {
      key: 'exposure',
      weight: 0.1,
      formula:
        '0.6 band(subjectMeanLuminance, 0.02 / 0.2–0.8 / 0.98) · (1 − 4 · subject clipped share) + 0.4 (1 − ramp(clippedShadows + ½ clippedHighlights, 0.05 → 0.5))',
      value: (f) => {
        const e = f.exposure;
        const subject = band(e.subjectMeanLuminance, 0.02, 0.2, 0.8, 0.98);
        const clipped = clamp01(1 - 4 * (e.subjectClippedShadows + e.subjectClippedHighlights));
        const frame = 1 - ramp(e.clippedShadows + 0.5 * e.clippedHighlights, 0.05, 0.5);
        return f.subject.present ? 0.6 * subject * clipped + 0.4 * frame : 0.4 * frame;
      },
    },
    {
      key: 'composition',
      weight: 0.1,
      formula:
        '½ (1 − ramp(composition.powerPointDistance, 0.05 → 0.4)) + ½ band(composition.minMargin, 0 / 0.03–0.15 / 0.4) (fills the frame with breathing room)',
      value: (f) =>
        f.subject.present
          ? 0.5 * (1 - ramp(f.composition.powerPointDistance, 0.05, 0.4)) +
            0.5 * band(f.composition.minMargin, 0, 0.03, 0.15, 0.4)
          : 0,
    },
    {
      key: 'not_cut_off',
      weight: 0.1,
      formula: '1 − ½ per frame edge the product touches (0 without a product)',
      value: (f) => (f.subject.present ? clamp01(1 - 0.5 * f.composition.cutOffEdges.length) : 0),
    },
  ],
  brand_awareness: [
    {
      key: 'palette_frame',
      weight: 0.25,
      formula: '1 − exp(−palette.weightedCoverage / 0.25); 0.5 without a palette',
      value: (f) => (f.palette ? saturate(f.palette.weightedCoverage, 0.25) : NO_PALETTE),
    },
    {
      key: 'palette_product',
      weight: 0.15,
      formula: 'ramp(palette.subjectCoverage, 0.05 → 0.7); 0.5 without a palette',
      value: (f) => (f.palette ? ramp(f.palette.subjectCoverage, 0.05, 0.7) : NO_PALETTE),
    },
    {
      key: 'logo_presence',
      weight: 0.3,
      formula:
        'max(logo boxes: 0.6 + 0.4 ramp(logo.largestShare, 0.002 → 0.02); mark on the product: 0.6 + 0.4 ramp(mark.largestShare, 0.002 → 0.02); text/mark proxy: 0.7 (1 − exp(−text.areaShare / 0.03)))',
      value: (f) =>
        Math.max(
          f.logo.count > 0 && f.logo.areaShare > 0 ? 0.6 + 0.4 * ramp(f.logo.largestShare, 0.002, 0.02) : 0,
          f.mark && f.mark.count > 0 ? 0.6 + 0.4 * ramp(f.mark.largestShare, 0.002, 0.02) : 0,
          0.7 * saturate(f.text.areaShare, 0.03),
        ),
    },
    {
      key: 'logo_placement',
      weight: 0.1,
      formula:
        'logo boxes: mean(not cut off, ramp(logo.contrast, 0.03 → 0.2), ramp(logo.edgeDistance, 0 → 0.03)); a mark on the product or text regions only: 0.5; none: 0',
      value: (f) =>
        f.logo.count > 0 && f.logo.areaShare > 0
          ? ((f.logo.cutOff ? 0 : 1) + ramp(f.logo.contrast, 0.03, 0.2) + ramp(f.logo.edgeDistance, 0, 0.03)) / 3
          : f.text.regionCount > 0 || (f.mark && f.mark.count > 0)
            ? 0.5
            : 0,
    },
    {
      key: 'product_prominence',
      weight: 0.2,
      formula: '√(product_size · saliency_on_product) (the attention terms)',
      value: (f) => Math.sqrt(productSize(f) * saliencyOnProduct(f)),
    },
  ],
};

export interface TermContribution {
  key: string;
  weight: number;
  /** The term, 0..1. */
  value: number;
  /** Points it adds to the score (100 · weight · value). */
  points: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Each score's terms with their values and points, for diagnostics. */
export function scoreTerms(features: ImageFeatures): Record<ScoreName, TermContribution[]> {
  const out = {} as Record<ScoreName, TermContribution[]>;
  for (const name of SCORE_NAMES) {
    out[name] = SCORE_MODEL[name].map((t) => {
      const v = clamp01(t.value(features));
      const value = Number.isFinite(v) ? v : 0;
      return { key: t.key, weight: t.weight, value: Math.round(value * 10000) / 10000, points: 100 * t.weight * value };
    });
  }
  return out;
}

/** The three scores (0..100, one decimal) of some features. */
export function scoreFeatures(features: ImageFeatures): Scores {
  const terms = scoreTerms(features);
  const score = (name: ScoreName) => {
    const total = terms[name].reduce((sum, t) => sum + t.points, 0);
    return round1(Math.min(100, Math.max(0, total)));
  };
  return {
    attention_potential: score('attention_potential'),
    conversion: score('conversion'),
    brand_awareness: score('brand_awareness'),
  };
}

/** Features and scores of raw pixels (see features.ts for the input and `FeatureOptions`). */
export function scoreImage(pixels: PixelInput, opts: FeatureOptions = {}): { scores: Scores; features: ImageFeatures } {
  const { features } = analyzeImage({ ...pixels, ...opts });
  return { scores: scoreFeatures(features), features };
}

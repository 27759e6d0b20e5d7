/**
 * The `critique` of a scene variation (critique.schema.ts) from its pixel features and scores. Pure
 * and deterministic: the same input always gives the same object, and every number in it is finite.
 *
 * Diagnostics. Each diagnostic reads one or more *measures* (a feature with `Thresholds`: the values
 * at which its diagnostic score is 0, 40, 70 and 100, and the `target` a fix aims for). A measure
 * passes at or beyond `pass` and is critical short of `critical`; a diagnostic's score is the lowest
 * of its measures' (piecewise linear through the anchors), its outcome the worst of theirs: `pass`
 * (score ≥ 70), `improve` (40–70) or `critical` (< 40). `max_potential` is its score with every
 * measure moved to its target.
 *
 * Gains. A practical recommendation's `estimated_gain` is measured, not guessed: the features are
 * copied, the failing measures it addresses are set to their targets (with what follows from them,
 * e.g. a bigger product's margins), and the copy is scored with `scoreFeatures`; the gain is the
 * difference from the unmodified features' score. Recommendations that would not move a score are
 * left out of that score's list.
 */
import {
  CAMPAIGN_OBJECTIVES,
  type CampaignObjective,
  type Critique,
  type CritiqueDiagnostic,
  type CritiqueRecommendation,
  DIAGNOSTIC_NAMES,
  type DiagnosticName,
  type DiagnosticOutcome,
  type GeneralAssessment,
  type PracticalRecommendation,
} from './critique.schema.ts';
import type { ImageFeatures } from './features.ts';
import { SCORE_NAMES, type ScoreName, type Scores, scoreFeatures, scoreTerms } from './scores.ts';
import { clamp } from '../shared/math.ts';

export type { Critique, DiagnosticName, DiagnosticOutcome, GeneralAssessment };

export const PREDICTION_MODEL = 'atelier-pixel-1';
export const RECOMMENDATION_MODEL = 'atelier-rules-1';

/**
 * Where a measure's diagnostic score is 0 (`worst`), 40 (`critical`), 70 (`pass`) and 100
 * (`ideal`); `target` is what a fix aims for (between `pass` and `ideal`). Higher is better when
 * `ideal > worst`, else lower is better.
 */
export interface Thresholds {
  worst: number;
  critical: number;
  pass: number;
  ideal: number;
  target: number;
}

/** `subject.areaShare`: the product's share of the frame. */
export const PRODUCT_AREA: Thresholds = { worst: 0, critical: 0.06, pass: 0.2, ideal: 0.4, target: 0.33 };
/** `subject.saliencyShare`: the share of the frame's saliency on the product. */
export const PRODUCT_SALIENCY: Thresholds = { worst: 0.05, critical: 0.25, pass: 0.5, ideal: 0.75, target: 0.65 };
/** `saliency.offSubjectFocalPoints`: focal points off the product. */
export const COMPETING_FOCAL_POINTS: Thresholds = { worst: 5, critical: 3, pass: 1, ideal: 0, target: 0 };
/** `contrast.subjectDeltaE`: CIE76 ΔE between the product and the band around it. */
export const PRODUCT_DELTA_E: Thresholds = { worst: 3, critical: 12, pass: 25, ideal: 50, target: 40 };
/** `clutter.edgeDensity`: share of the background on a hard luma edge. */
export const BACKGROUND_EDGES: Thresholds = { worst: 0.12, critical: 0.07, pass: 0.03, ideal: 0.01, target: 0.015 };
/** `sharpness.acutance` on the product's edges (≈0.8–0.9 crisp, ≈0.4 at 1.5 px blur). */
export const ACUTANCE: Thresholds = { worst: 0.2, critical: 0.35, pass: 0.55, ideal: 0.85, target: 0.8 };
/** `exposure.subjectMeanLuminance` (the frame's without a product), dark side. */
export const UNDEREXPOSURE: Thresholds = { worst: 0.02, critical: 0.08, pass: 0.15, ideal: 0.25, target: 0.3 };
/** The same, bright side. */
export const OVEREXPOSURE: Thresholds = { worst: 0.98, critical: 0.93, pass: 0.85, ideal: 0.75, target: 0.7 };
/** `exposure.subjectClippedShadows + subjectClippedHighlights`: share of the product clipped. */
export const PRODUCT_CLIPPING: Thresholds = { worst: 0.25, critical: 0.15, pass: 0.05, ideal: 0, target: 0.01 };
/** `exposure.clippedShadows + ½ clippedHighlights`: the frame's clipping, as the exposure score term weighs it. */
export const FRAME_CLIPPING: Thresholds = { worst: 0.5, critical: 0.3, pass: 0.1, ideal: 0.02, target: 0.03 };
/** `composition.powerPointDistance`: product centroid to the nearest power point, share of the half diagonal. */
export const POWER_POINT_DISTANCE: Thresholds = { worst: 0.45, critical: 0.3, pass: 0.15, ideal: 0.05, target: 0.05 };
/** `composition.minMargin`: the tightest gap between product and frame edge (judged when not cut off). */
export const BREATHING_ROOM: Thresholds = { worst: 0, critical: 0.01, pass: 0.03, ideal: 0.06, target: 0.05 };
/** `composition.cutOffEdges.length`: frame edges the product touches (0 passes, 1 improve, 2+ critical). */
export const CUT_OFF_EDGES: Thresholds = { worst: 3, critical: 1.5, pass: 0.5, ideal: 0, target: 0 };
/** `palette.weightedCoverage`: brand colours' share of the frame (neutral colours × 0.15). */
export const BRAND_COLOUR_COVERAGE: Thresholds = { worst: 0, critical: 0.03, pass: 0.1, ideal: 0.25, target: 0.15 };
/** `logo.largestShare`: the largest placed logo's share of the frame. */
export const LOGO_AREA: Thresholds = { worst: 0, critical: 0.002, pass: 0.006, ideal: 0.015, target: 0.012 };
/** `logo.contrast`: luma standard deviation inside the logo boxes (legibility). */
export const LOGO_CONTRAST: Thresholds = { worst: 0, critical: 0.03, pass: 0.08, ideal: 0.2, target: 0.15 };
/** `logo.edgeDistance`: the logo's gap to the frame edge, share of the side (0 when cut off). */
export const LOGO_EDGE_DISTANCE: Thresholds = { worst: 0, critical: 0.005, pass: 0.015, ideal: 0.03, target: 0.03 };
/** `text.areaShare`: the text/mark proxy's share of the frame (without logo boxes). */
export const MARK_AREA: Thresholds = { worst: 0, critical: 0.004, pass: 0.012, ideal: 0.04, target: 0.03 };
/** `colorfulness` (Hasler & Süsstrunk: ≈15 slightly, ≈33 moderately, ≈59 quite colourful). */
export const COLOURFULNESS: Thresholds = { worst: 5, critical: 12, pass: 25, ideal: 60, target: 45 };

/** Diagnostic scores at the anchors; also the outcome bands (≥ 70 pass, < 40 critical). */
export const DIAGNOSTIC_PASS_SCORE = 70;
export const DIAGNOSTIC_CRITICAL_SCORE = 40;

/** `general_assessment` of a 0..100 score: the first band whose floor it reaches. */
export const ASSESSMENT_BANDS: readonly (readonly [GeneralAssessment, number])[] = [
  ['excellent', 75],
  ['good', 60],
  ['fair', 40],
  ['poor', 0],
];

/** The campaign objective each score serves (`campaign_objective`). */
export const OBJECTIVE_OF_SCORE: Record<ScoreName, CampaignObjective> = {
  attention_potential: CAMPAIGN_OBJECTIVES[0],
  conversion: CAMPAIGN_OBJECTIVES[1],
  brand_awareness: CAMPAIGN_OBJECTIVES[2],
};

/** `model_versions.prediction_params` defaults (the pixel model has no audience inputs). */
export const PREDICTION_DEFAULTS = {
  age_range: '18-65',
  country: 'global',
  device_type: 'mobile',
  gender_distribution: 'balanced',
  view_time: 'any',
} as const;
/** `platform_format` by width / height: below `story` → "story", above `banner` → "banner", else "feed". */
export const PLATFORM_RATIOS = { story: 0.65, banner: 1.6 } as const;

/** The emotional tone labels of `image_intelligence.emotional_tone_presence`. */
export const TONE_LABELS = ['calm', 'energetic', 'warm', 'premium', 'playful'] as const;
export type ToneLabel = (typeof TONE_LABELS)[number];
/** Brand-tone words read as each label (for the description's brand-tone clause). */
export const TONE_SYNONYMS: Record<ToneLabel, readonly string[]> = {
  calm: ['calm', 'serene', 'relaxed', 'peaceful', 'minimal', 'minimalist', 'clean', 'soft', 'natural'],
  energetic: ['energetic', 'bold', 'dynamic', 'vibrant', 'sporty', 'exciting', 'powerful', 'intense'],
  warm: ['warm', 'friendly', 'cosy', 'cozy', 'welcoming', 'inviting', 'caring', 'approachable'],
  premium: ['premium', 'luxury', 'luxurious', 'elegant', 'sophisticated', 'refined', 'exclusive', 'classic'],
  playful: ['playful', 'fun', 'cheerful', 'youthful', 'quirky', 'joyful', 'happy', 'whimsical'],
};

/** `applyPatches` never grows a prompt beyond this many characters. */
export const PATCHED_PROMPT_MAX = 3000;

export interface CritiqueInput {
  features: ImageFeatures;
  scores: Scores;
  /** The scene forge id. */
  campaignId: string;
  /** Its score is listed first. */
  objective?: ScoreName;
  prompt: string;
  /** ISO 8601; every `creation_time`. */
  createdAt: string;
  /** Brand colours (`#rrggbb`): named in the brand-colour recommendation. */
  palette?: string[];
  /** Brand tone words (e.g. "premium", "friendly"): compared with the image's tone in the description. */
  brandTone?: string[];
}

// ---------------------------------------------------------------------------------------------
// Numbers and words.

const fin = (x: number) => (Number.isFinite(x) ? x : 0);
const round1 = (x: number) => Math.round(fin(x) * 10) / 10;
const round2 = (x: number) => Math.round(fin(x) * 100) / 100;
const ramp = (x: number, lo: number, hi: number) => clamp((x - lo) / (hi - lo), 0, 1);
/** A 0..1 share as a percent: one decimal under 10%, whole above. */
const pct = (x: number) => {
  const v = fin(x) * 100;
  return `${v < 10 ? Math.round(v * 10) / 10 : Math.round(v)}%`;
};
const num = (x: number) => String(round2(x));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const listWords = (w: readonly string[]) =>
  w.length <= 1 ? (w[0] ?? '') : `${w.slice(0, -1).join(', ')} and ${w[w.length - 1]}`;
const SCORE_LABEL: Record<ScoreName, string> = {
  attention_potential: 'attention potential',
  conversion: 'conversion',
  brand_awareness: 'brand awareness',
};

export function assessmentOf(score: number): GeneralAssessment {
  for (const [band, floor] of ASSESSMENT_BANDS) if (fin(score) >= floor) return band;
  return 'poor';
}

const higherIsBetter = (t: Thresholds) => t.ideal > t.worst;
/** The measure's diagnostic score, 0..1, piecewise linear through the anchors. */
export function measureScore(x: number, t: Thresholds): number {
  const s = higherIsBetter(t) ? 1 : -1;
  const v = s * fin(x);
  const [w, c, p, i] = [t.worst, t.critical, t.pass, t.ideal].map((a) => s * a) as [number, number, number, number];
  if (v <= w) return 0;
  if (v < c) return (0.4 * (v - w)) / (c - w);
  if (v < p) return 0.4 + (0.3 * (v - c)) / (p - c);
  if (v < i) return 0.7 + (0.3 * (v - p)) / (i - p);
  return 1;
}
const passes = (x: number, t: Thresholds) => (higherIsBetter(t) ? x >= t.pass : x <= t.pass);
const isCritical = (x: number, t: Thresholds) => (higherIsBetter(t) ? x < t.critical : x > t.critical);
const shortOfTarget = (x: number, t: Thresholds) => (higherIsBetter(t) ? x < t.target : x > t.target);

// ---------------------------------------------------------------------------------------------
// Colours.

function hexToHsl(hex: string): { h: number; s: number; l: number } | undefined {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return undefined;
  const d = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(d.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const c = max - min;
  if (c === 0) return { h: 0, s: 0, l };
  const s = c / (1 - Math.abs(2 * l - 1));
  const h = max === r ? ((g - b) / c + 6) % 6 : max === g ? (b - r) / c + 2 : (r - g) / c + 4;
  return { h: h * 60, s, l };
}

/** A plain colour name for a hex colour (for prompt patches). */
export function colourName(hex: string): string | undefined {
  const c = hexToHsl(hex);
  if (!c) return undefined;
  if (c.l < 0.12) return 'black';
  if (c.l > 0.93) return 'white';
  if (c.s < 0.15) return c.l < 0.35 ? 'charcoal' : c.l > 0.7 ? 'light grey' : 'grey';
  const h = c.h;
  if (h < 15 || h >= 335) return c.l < 0.3 ? 'burgundy' : 'red';
  if (h < 40) return c.l < 0.35 ? 'brown' : 'orange';
  if (h < 65) return c.l < 0.35 ? 'olive' : 'yellow';
  if (h < 160) return 'green';
  if (h < 195) return 'teal';
  if (h < 255) return c.l < 0.3 ? 'navy' : 'blue';
  if (h < 290) return 'purple';
  return 'pink';
}

/** 0 (cool) … 0.5 (neutral / unknown) … 1 (warm): the brand colours present in the frame, by share. */
function paletteWarmth(f: ImageFeatures): number {
  let total = 0;
  let sum = 0;
  for (const c of f.palette?.colors ?? []) {
    const hsl = hexToHsl(c.hex);
    if (!hsl || c.neutral || c.share <= 0) continue;
    const sign = hsl.h < 70 || hsl.h >= 330 ? 1 : hsl.h >= 160 && hsl.h < 280 ? -1 : 0;
    sum += c.share * sign * Math.min(1, hsl.s);
    total += c.share;
  }
  return total > 0 ? clamp(0.5 + (0.5 * sum) / total, 0, 1) : 0.5;
}

// ---------------------------------------------------------------------------------------------
// Diagnostics.

interface Measure {
  /** What it is, for descriptions. */
  label: string;
  t: Thresholds;
  value: number;
  /** Moves the feature(s) to `v` on a copy of the features. */
  set: (f: ImageFeatures, v: number) => void;
}

interface Context {
  subject: string;
  Subject: string;
  palette: string[];
}

interface DiagnosticDef {
  name: DiagnosticName;
  /** Score terms (scores.ts) the measures feed. */
  moves: readonly (readonly [ScoreName, string])[];
  /** The measures, or null when the diagnostic cannot be judged from these features. */
  measures: (f: ImageFeatures) => Measure[] | null;
  describe: (f: ImageFeatures, ctx: Context) => string;
}

/** Scale the product box around its centre to a new area share; margins follow (kept in frame). */
function resizeProduct(f: ImageFeatures, area: number): void {
  const old = f.subject.areaShare;
  f.subject.areaShare = area;
  const box = f.subject.box;
  if (!box || old <= 0) return;
  const k = Math.sqrt(area / old);
  const scaleSpan = (start: number, size: number) => {
    const s = Math.min(1, size * k);
    const lo = clamp(start + size / 2 - s / 2, 0, 1 - s);
    return [lo, s, 1 - lo - s] as const;
  };
  const [left, width, right] = scaleSpan(box.left, box.width);
  const [top, height, bottom] = scaleSpan(box.top, box.height);
  f.subject.box = { left, top, width, height };
  const m = f.composition.margins;
  // Keep the sides that touched the frame touching it (the cut-off diagnostic owns those).
  f.composition.margins = {
    left: m.left > 0 ? left : 0,
    top: m.top > 0 ? top : 0,
    right: m.right > 0 ? right : 0,
    bottom: m.bottom > 0 ? bottom : 0,
  };
  const mm = f.composition.margins;
  f.composition.minMargin = Math.min(mm.left, mm.top, mm.right, mm.bottom);
}

/** Scale two clipped shares so that `a + w·b` equals `v`. */
function scaleClipping(a: number, b: number, w: number, v: number): [number, number] {
  const s = a + w * b;
  return s > 0 ? [(a * v) / s, (b * v) / s] : [v, 0];
}

const EXPOSURE_RANGE = `${pct(UNDEREXPOSURE.pass)}–${pct(OVEREXPOSURE.pass)}`;

const DIAGNOSTICS: readonly DiagnosticDef[] = [
  {
    name: 'product_prominence',
    moves: [
      ['attention_potential', 'product_size'],
      ['conversion', 'product_visible'],
      ['conversion', 'composition'],
      ['brand_awareness', 'product_prominence'],
    ],
    measures: (f) => [{ label: 'product area', t: PRODUCT_AREA, value: f.subject.areaShare, set: resizeProduct }],
    describe: (f, ctx) =>
      `${ctx.Subject} covers ${pct(f.subject.areaShare)} of the frame; products that read well cover at least ${pct(PRODUCT_AREA.pass)} (about a third is ideal).`,
  },
  {
    name: 'attention_on_product',
    moves: [
      ['attention_potential', 'saliency_on_product'],
      ['brand_awareness', 'product_prominence'],
    ],
    measures: (f) => [
      {
        label: 'saliency on the product',
        t: PRODUCT_SALIENCY,
        value: f.subject.saliencyShare,
        set: (g, v) => {
          const old = g.subject.saliencyShare;
          g.subject.saliencyLift = old > 0 ? (g.subject.saliencyLift * v) / old : g.subject.saliencyLift;
          g.subject.saliencyShare = v;
        },
      },
    ],
    describe: (f, ctx) =>
      `${ctx.Subject} draws ${pct(f.subject.saliencyShare)} of the image's visual saliency (${num(f.subject.saliencyLift)}× its share of the frame); a clear hero draws at least ${pct(PRODUCT_SALIENCY.pass)}.`,
  },
  {
    name: 'competing_focal_points',
    moves: [
      ['attention_potential', 'focal_points'],
      ['conversion', 'low_clutter'],
    ],
    measures: (f) => [
      {
        label: 'focal points off the product',
        t: COMPETING_FOCAL_POINTS,
        value: f.saliency.offSubjectFocalPoints,
        set: (g, v) => {
          const drop = Math.max(0, g.saliency.offSubjectFocalPoints - v);
          g.saliency.offSubjectFocalPoints -= drop;
          g.saliency.focalPointCount = Math.max(0, g.saliency.focalPointCount - drop);
          // The product as the one attention target (plus what competing points remain).
          g.saliency.focalTargets =
            1 + Math.min(g.saliency.offSubjectFocalPoints, Math.max(0, g.saliency.focalTargets - 1));
        },
      },
    ],
    describe: (f, ctx) =>
      `${plural(f.saliency.offSubjectFocalPoints, 'focal point')} of ${f.saliency.focalPointCount} fall${f.saliency.offSubjectFocalPoints === 1 ? 's' : ''} off ${ctx.subject} (${plural(f.saliency.focalTargets, 'attention target')} in all); at most ${COMPETING_FOCAL_POINTS.pass} competing focal point keeps the eye on the product.`,
  },
  {
    name: 'contrast_with_background',
    moves: [
      ['attention_potential', 'contrast'],
      ['conversion', 'product_visible'],
    ],
    measures: (f) => [
      {
        label: 'product contrast',
        t: PRODUCT_DELTA_E,
        value: f.contrast.subjectDeltaE,
        set: (g, v) => {
          g.contrast.subjectDeltaE = v;
        },
      },
    ],
    describe: (f, ctx) =>
      `${ctx.Subject} differs from its surroundings by ΔE ${Math.round(f.contrast.subjectDeltaE)} (lightness ${Math.round(f.contrast.subjectLuminance * 100)} L*), overall contrast is ${num(f.contrast.rms)} (luma RMS); products stand out from ΔE ${PRODUCT_DELTA_E.pass}, clearly from ΔE ${PRODUCT_DELTA_E.ideal}.`,
  },
  {
    name: 'background_clutter',
    moves: [['conversion', 'low_clutter']],
    measures: (f) => [
      {
        label: 'background edges',
        t: BACKGROUND_EDGES,
        value: f.clutter.edgeDensity,
        set: (g, v) => {
          g.clutter.edgeDensity = v;
        },
      },
    ],
    describe: (f) =>
      `${pct(f.clutter.edgeDensity)} of the background lies on hard edges (props, patterns, texture; ${plural(f.clutter.salientRegions, 'salient region')}); a clean backdrop stays under ${pct(BACKGROUND_EDGES.pass)}.`,
  },
  {
    name: 'sharpness',
    moves: [['conversion', 'sharpness']],
    measures: (f) => [
      {
        label: 'acutance',
        t: ACUTANCE,
        value: f.sharpness.acutance,
        set: (g, v) => {
          g.sharpness.acutance = v;
        },
      },
    ],
    describe: (f, ctx) =>
      `Edge acutance on ${ctx.subject} is ${num(f.sharpness.acutance)} (frame ${num(f.sharpness.frameAcutance)}); crisp edges measure about 0.8–0.9 and soft ones fall below ${ACUTANCE.pass}.`,
  },
  {
    name: 'exposure',
    moves: [['conversion', 'exposure']],
    measures: (f) => {
      const present = f.subject.present;
      const lum = present ? f.exposure.subjectMeanLuminance : f.exposure.meanLuminance;
      const setLum = (g: ImageFeatures, v: number) => {
        if (present) g.exposure.subjectMeanLuminance = v;
        else g.exposure.meanLuminance = v;
      };
      const e = f.exposure;
      const out: Measure[] = [
        { label: 'brightness', t: UNDEREXPOSURE, value: lum, set: setLum },
        { label: 'brightness', t: OVEREXPOSURE, value: lum, set: setLum },
        {
          label: 'frame clipping',
          t: FRAME_CLIPPING,
          value: e.clippedShadows + 0.5 * e.clippedHighlights,
          set: (g, v) => {
            [g.exposure.clippedShadows, g.exposure.clippedHighlights] = scaleClipping(
              g.exposure.clippedShadows,
              g.exposure.clippedHighlights,
              0.5,
              v,
            );
          },
        },
      ];
      if (present) {
        out.push({
          label: 'product clipping',
          t: PRODUCT_CLIPPING,
          value: e.subjectClippedShadows + e.subjectClippedHighlights,
          set: (g, v) => {
            [g.exposure.subjectClippedShadows, g.exposure.subjectClippedHighlights] = scaleClipping(
              g.exposure.subjectClippedShadows,
              g.exposure.subjectClippedHighlights,
              1,
              v,
            );
          },
        });
      }
      return out;
    },
    describe: (f, ctx) => {
      const e = f.exposure;
      const frame = `${pct(e.clippedShadows)} of the frame is crushed to black and ${pct(e.clippedHighlights)} blown to white`;
      return f.subject.present
        ? `${ctx.Subject} averages ${pct(e.subjectMeanLuminance)} brightness with ${pct(e.subjectClippedShadows + e.subjectClippedHighlights)} of it clipped; ${frame}. Well-exposed products sit at ${EXPOSURE_RANGE} with under ${pct(PRODUCT_CLIPPING.pass)} clipped.`
        : `The frame averages ${pct(e.meanLuminance)} brightness; ${frame}. Well-exposed images sit at ${EXPOSURE_RANGE}.`;
    },
  },
  {
    name: 'composition_balance',
    moves: [['conversion', 'composition']],
    measures: (f) => {
      if (!f.subject.present) return null;
      const out: Measure[] = [
        {
          label: 'distance to a power point',
          t: POWER_POINT_DISTANCE,
          value: f.composition.powerPointDistance,
          set: (g, v) => {
            g.composition.powerPointDistance = v;
          },
        },
      ];
      if (!f.composition.cutOff) {
        out.push({
          label: 'breathing room',
          t: BREATHING_ROOM,
          value: f.composition.minMargin,
          set: (g, v) => {
            const m = g.composition.margins;
            g.composition.margins = {
              left: Math.max(m.left, v),
              top: Math.max(m.top, v),
              right: Math.max(m.right, v),
              bottom: Math.max(m.bottom, v),
            };
            g.composition.minMargin = v;
          },
        });
      }
      return out;
    },
    describe: (f, ctx) =>
      `${ctx.Subject}'s centre is ${pct(f.composition.powerPointDistance)} of the half-diagonal from the nearest power point (${f.composition.nearestPowerPoint ?? 'none'}) and its tightest margin is ${pct(f.composition.minMargin)} of the frame; balanced frames keep the centre within ${pct(POWER_POINT_DISTANCE.pass)} of the centre or a third point, with at least ${pct(BREATHING_ROOM.pass)} of margin.`,
  },
  {
    name: 'product_cut_off',
    moves: [
      ['conversion', 'not_cut_off'],
      ['conversion', 'composition'],
    ],
    measures: (f) =>
      f.subject.present
        ? [
            {
              label: 'edges touched',
              t: CUT_OFF_EDGES,
              value: f.composition.cutOffEdges.length,
              set: (g, v) => {
                if (v > 0) return;
                const m = { ...g.composition.margins };
                for (const edge of g.composition.cutOffEdges) m[edge] = Math.max(m[edge], BREATHING_ROOM.pass);
                g.composition.margins = m;
                g.composition.minMargin = Math.min(m.left, m.top, m.right, m.bottom);
                g.composition.cutOffEdges = [];
                g.composition.cutOff = false;
              },
            },
          ]
        : null,
    describe: (f, ctx) =>
      f.composition.cutOffEdges.length > 0
        ? `${ctx.Subject} touches the ${listWords(f.composition.cutOffEdges)} edge${f.composition.cutOffEdges.length > 1 ? 's' : ''} of the frame: part of it is cropped.`
        : `${ctx.Subject} sits wholly inside the frame (tightest margin ${pct(f.composition.minMargin)}).`,
  },
  {
    name: 'brand_colour_presence',
    moves: [['brand_awareness', 'palette_frame']],
    measures: (f) =>
      f.palette
        ? [
            {
              label: 'brand colour coverage',
              t: BRAND_COLOUR_COVERAGE,
              value: f.palette.weightedCoverage,
              set: (g, v) => {
                if (!g.palette) return;
                g.palette.coverage += v - g.palette.weightedCoverage;
                g.palette.weightedCoverage = v;
              },
            },
          ]
        : null,
    describe: (f) => {
      const p = f.palette!;
      const each = p.colors.map((c) => `${c.hex} ${pct(c.share)}`).join(', ');
      return `Brand colours cover ${pct(p.weightedCoverage)} of the frame (${pct(p.coverage)} counting neutrals in full; ${each}) and ${pct(p.subjectCoverage)} of the product; on-brand images show them on at least ${pct(BRAND_COLOUR_COVERAGE.pass)}.`;
    },
  },
  {
    name: 'brand_mark_visibility',
    moves: [
      ['brand_awareness', 'logo_presence'],
      ['brand_awareness', 'logo_placement'],
    ],
    measures: (f) =>
      f.logo.count > 0 && f.logo.areaShare > 0
        ? [
            {
              label: 'logo size',
              t: LOGO_AREA,
              value: f.logo.largestShare,
              set: (g, v) => {
                g.logo.areaShare += v - g.logo.largestShare;
                g.logo.largestShare = v;
              },
            },
            {
              label: 'logo contrast',
              t: LOGO_CONTRAST,
              value: f.logo.contrast,
              set: (g, v) => {
                g.logo.contrast = v;
              },
            },
            {
              label: 'logo edge distance',
              t: LOGO_EDGE_DISTANCE,
              value: f.logo.cutOff ? 0 : f.logo.edgeDistance,
              set: (g, v) => {
                g.logo.edgeDistance = v;
                g.logo.cutOff = false;
              },
            },
          ]
        : [
            {
              label: 'brand mark area',
              t: MARK_AREA,
              value: markArea(f),
              set: (g, v) => {
                g.text.areaShare = Math.max(g.text.areaShare, v);
                g.text.regionCount = Math.max(1, g.text.regionCount);
                if (g.mark) {
                  g.mark.largestShare = Math.max(g.mark.largestShare, v);
                  g.mark.areaShare = Math.max(g.mark.areaShare, g.mark.largestShare);
                  g.mark.count = Math.max(1, g.mark.count);
                }
              },
            },
          ],
    describe: (f) =>
      f.logo.count > 0 && f.logo.areaShare > 0
        ? `The largest logo covers ${pct(f.logo.largestShare)} of the frame (${plural(f.logo.count, 'logo')}, ${pct(f.logo.areaShare)} in all) with contrast ${num(f.logo.contrast)}, ${f.logo.cutOff ? 'cut off by the frame' : `${pct(f.logo.edgeDistance)} from the edge`}; a legible logo covers at least ${pct(LOGO_AREA.pass)}, has contrast ≥ ${LOGO_CONTRAST.pass} and stays ${pct(LOGO_EDGE_DISTANCE.pass)} inside the frame.`
        : `No logo placement is known; ${markFinding(f)}; a visible brand mark covers at least ${pct(MARK_AREA.pass)}.`,
  },
  {
    name: 'colourfulness',
    moves: [['attention_potential', 'colorfulness']],
    measures: (f) => [
      {
        label: 'colourfulness',
        t: COLOURFULNESS,
        value: f.colorfulness,
        set: (g, v) => {
          g.colorfulness = v;
        },
      },
    ],
    describe: (f) =>
      `Colourfulness is ${Math.round(f.colorfulness)} (≈15 slightly, ≈33 moderately, ≈59 quite, ≈82 highly colourful); images that pop reach ${COLOURFULNESS.pass}.`,
  },
];

/** A judged diagnostic, before it becomes the API object. */
interface Judged {
  def: DiagnosticDef;
  measures: Measure[];
  outcome: DiagnosticOutcome;
  score: number;
  maxPotential: number;
  failing: Measure[];
}

const clone = (f: ImageFeatures): ImageFeatures => structuredClone(f);

/**
 * The brand mark's measured size without logo boxes: the larger of the mark found on the product
 * (the brand logo matched, else the mark detector; `mark.ts`) and the text/mark proxy.
 */
export function markArea(f: ImageFeatures): number {
  return Math.max(fin(f.text.areaShare), fin(f.mark && f.mark.count > 0 ? f.mark.largestShare : 0));
}

/** What the brand mark measurement found, for the texts. */
function markFinding(f: ImageFeatures): string {
  const m = f.mark;
  const proxy = `the text/mark proxy finds ${plural(f.text.regionCount, 'region')} covering ${pct(f.text.areaShare)} of the frame`;
  if (!m || m.count === 0)
    return `no mark stands out on the product${m?.match ? ` (brand logo match ${num(m.match)})` : ''} and ${proxy}`;
  const found =
    m.source === 'asset'
      ? `the brand logo is matched on the product (NCC ${num(m.match)}), covering ${pct(m.largestShare)} of the frame`
      : `the mark detector finds ${plural(m.count, 'mark')} on the product, the largest covering ${pct(m.largestShare)} of the frame (ΔE ${Math.round(m.deltaE)} against the product)`;
  return `${found}; ${proxy}`;
}

/**
 * Whether the image's own measurements contradict a recommendation addressing these diagnostics:
 * every measure of each of them passes when re-read from the features, or (the brand mark) any one
 * measurement of the mark — a placed logo box, the mark on the product, the text/mark proxy — shows
 * it at a visible size.
 */
export function contradicted(f: ImageFeatures, addresses: readonly string[]): boolean {
  return addresses.every((name) => {
    const def = DIAGNOSTICS.find((d) => d.name === name);
    if (!def) return false;
    if (name === 'brand_mark_visibility') {
      const boxes = f.logo.count > 0 && f.logo.areaShare > 0;
      const boxesFine =
        boxes &&
        passes(f.logo.largestShare, LOGO_AREA) &&
        passes(f.logo.contrast, LOGO_CONTRAST) &&
        passes(f.logo.cutOff ? 0 : f.logo.edgeDistance, LOGO_EDGE_DISTANCE);
      if (boxesFine || (!boxes && passes(markArea(f), MARK_AREA))) return true;
    }
    const measures = def.measures(f);
    return !!measures && measures.length > 0 && measures.every((m) => passes(m.value, m.t));
  });
}

/** Move the given measures (of features `f`) to their targets, on a copy. */
function fixed(f: ImageFeatures, measures: readonly Measure[]): ImageFeatures {
  const g = clone(f);
  for (const m of measures) if (shortOfTarget(m.value, m.t)) m.set(g, m.t.target);
  return g;
}

function judge(f: ImageFeatures): Judged[] {
  const out: Judged[] = [];
  for (const def of DIAGNOSTICS) {
    const measures = def.measures(f);
    if (!measures || measures.length === 0) continue;
    const failing = measures.filter((m) => !passes(m.value, m.t));
    const outcome: DiagnosticOutcome =
      failing.length === 0 ? 'pass' : failing.some((m) => isCritical(m.value, m.t)) ? 'critical' : 'improve';
    const q = Math.min(...measures.map((m) => measureScore(m.value, m.t)));
    // Keep the score inside its outcome's band (rounding at the anchors).
    const band =
      outcome === 'pass'
        ? [DIAGNOSTIC_PASS_SCORE, 100]
        : outcome === 'improve'
          ? [DIAGNOSTIC_CRITICAL_SCORE, DIAGNOSTIC_PASS_SCORE - 0.1]
          : [0, DIAGNOSTIC_CRITICAL_SCORE - 0.1];
    const score = clamp(round1(100 * q), band[0]!, band[1]!);
    const target = fixed(f, measures);
    const qMax = Math.min(...(def.measures(target) ?? measures).map((m) => measureScore(m.value, m.t)));
    out.push({ def, measures, outcome, score, maxPotential: Math.max(score, round1(100 * qMax)), failing });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Practical recommendations.

interface ActionContext extends Context {
  f: ImageFeatures;
  /** The failing diagnostics this action addresses. */
  failing: ReadonlySet<DiagnosticName>;
  /** Failing measures by label. */
  failingMeasures: ReadonlySet<string>;
  gain: number;
  /** The gain only shows together with the other changes for this score. */
  together: boolean;
  /** The gain of this change alone. */
  alone: number;
  score: ScoreName;
}

interface ActionDef {
  addresses: readonly DiagnosticName[];
  title: (c: ActionContext) => string;
  displayTitle: (c: ActionContext) => string;
  text: (c: ActionContext) => string;
  displayText: (c: ActionContext) => string;
  patch: (c: ActionContext) => string;
}

const worth = (c: ActionContext) =>
  `Worth about +${c.gain} ${SCORE_LABEL[c.score]} points${c.together ? ` together with the other changes (${c.alone > 0 ? `+${c.alone}` : 'nothing'} alone)` : ''}.`;

const ACTIONS: readonly ActionDef[] = [
  {
    addresses: ['product_prominence'],
    title: () => 'Increase product prominence',
    displayTitle: () => 'Make the product bigger',
    text: (c) =>
      `${c.Subject} covers ${pct(c.f.subject.areaShare)} of the frame; scale it up or move the camera closer until it fills about ${pct(PRODUCT_AREA.target)} (at least ${pct(PRODUCT_AREA.pass)}). ${worth(c)}`,
    displayText: (c) => `Let the product fill about a third of the frame (now ${pct(c.f.subject.areaShare)}).`,
    patch: () => 'the product larger and closer, filling about a third of the frame',
  },
  {
    addresses: ['attention_on_product'],
    title: () => 'Focus attention on the product',
    displayTitle: () => 'Make the product the hero',
    text: (c) =>
      `Only ${pct(c.f.subject.saliencyShare)} of the visual saliency falls on ${c.subject}; make it the brightest, most contrasting and most detailed element so it draws about ${pct(PRODUCT_SALIENCY.target)} (at least ${pct(PRODUCT_SALIENCY.pass)}). ${worth(c)}`,
    displayText: (c) =>
      `Draw the eye to the product: it gets ${pct(c.f.subject.saliencyShare)} of the attention now, aim for over half.`,
    patch: () => 'the product as the clear focal point, the brightest and most detailed element in the scene',
  },
  {
    addresses: ['background_clutter', 'competing_focal_points'],
    title: (c) => (c.failing.has('background_clutter') ? 'Reduce background clutter' : 'Remove competing focal points'),
    displayTitle: (c) => (c.failing.has('background_clutter') ? 'Simplify the background' : 'Remove distractions'),
    text: (c) => {
      const parts: string[] = [];
      if (c.failing.has('background_clutter')) {
        parts.push(
          `${pct(c.f.clutter.edgeDensity)} of the background lies on hard edges; use a plain backdrop (under ${pct(BACKGROUND_EDGES.pass)}, ideally about ${pct(BACKGROUND_EDGES.target)})`,
        );
      }
      if (c.failing.has('competing_focal_points')) {
        parts.push(
          `${plural(c.f.saliency.offSubjectFocalPoints, 'focal point')} compete with ${c.subject}; drop the props and accents that draw them so the product is the one focal point`,
        );
      }
      return `${parts.join('; ')}. ${worth(c)}`;
    },
    displayText: (c) =>
      c.failing.has('background_clutter') && c.failing.has('competing_focal_points')
        ? `Use a plain background and remove the ${plural(c.f.saliency.offSubjectFocalPoints, 'distraction')} competing with the product.`
        : c.failing.has('background_clutter')
          ? `Use a plainer background (${pct(c.f.clutter.edgeDensity)} of it is busy now).`
          : `Remove the ${plural(c.f.saliency.offSubjectFocalPoints, 'distraction')} competing with the product.`,
    patch: (c) =>
      c.failing.has('background_clutter') && c.failing.has('competing_focal_points')
        ? 'a plain, uncluttered background with no competing props'
        : c.failing.has('background_clutter')
          ? 'a plain, uncluttered background'
          : 'no competing props or secondary objects',
  },
  {
    addresses: ['contrast_with_background'],
    title: () => 'Raise product–background contrast',
    displayTitle: () => 'Make the product stand out',
    text: (c) =>
      `${c.Subject} differs from its surroundings by only ΔE ${Math.round(c.f.contrast.subjectDeltaE)}; set it against a ${backdropShift(c.f)} backdrop for a difference of about ΔE ${PRODUCT_DELTA_E.target} (at least ${PRODUCT_DELTA_E.pass}). ${worth(c)}`,
    displayText: (c) => `Put the product on a ${backdropShift(c.f)} background so it stands out.`,
    patch: (c) => `the product standing out against a ${backdropShift(c.f)} backdrop`,
  },
  {
    addresses: ['product_cut_off'],
    title: () => 'Keep the product in frame',
    displayTitle: () => 'Show the whole product',
    text: (c) =>
      `${c.Subject} is cropped at the ${listWords(c.f.composition.cutOffEdges)} edge${c.f.composition.cutOffEdges.length > 1 ? 's' : ''}; pull back so all of it fits with at least ${pct(BREATHING_ROOM.pass)} of margin. ${worth(c)}`,
    displayText: (c) => `Show all of the product: it is cut off at the ${listWords(c.f.composition.cutOffEdges)}.`,
    patch: () => 'the whole product inside the frame, not cropped at the edges',
  },
  {
    addresses: ['composition_balance'],
    title: () => 'Rebalance the composition',
    displayTitle: () => 'Reframe the product',
    text: (c) => {
      const parts: string[] = [];
      if (c.failingMeasures.has('distance to a power point')) {
        parts.push(
          `${c.Subject}'s centre is ${pct(c.f.composition.powerPointDistance)} of the half-diagonal from the nearest power point; place it ${placement(c.f)} (within ${pct(POWER_POINT_DISTANCE.pass)})`,
        );
      }
      if (c.failingMeasures.has('breathing room')) {
        parts.push(
          `its tightest margin is ${pct(c.f.composition.minMargin)}; leave at least ${pct(BREATHING_ROOM.pass)} of space around it`,
        );
      }
      return `${parts.join('; ')}. ${worth(c)}`;
    },
    displayText: (c) =>
      c.failingMeasures.has('distance to a power point')
        ? `Place the product ${placement(c.f)}${c.failingMeasures.has('breathing room') ? ', with space around it' : ''}.`
        : 'Leave some space between the product and the frame edges.',
    patch: (c) =>
      [
        c.failingMeasures.has('distance to a power point') ? `the product placed ${placement(c.f)}` : '',
        c.failingMeasures.has('breathing room') ? 'clear space around the product' : '',
      ]
        .filter(Boolean)
        .join(', with '),
  },
  {
    addresses: ['sharpness'],
    title: () => 'Sharpen the product',
    displayTitle: () => 'Bring the product into focus',
    text: (c) =>
      `Edge acutance on ${c.subject} is ${num(c.f.sharpness.acutance)}; render it in crisp focus, about ${ACUTANCE.target} (at least ${ACUTANCE.pass}). ${worth(c)}`,
    displayText: () => 'Render the product in crisp, sharp focus.',
    patch: () => 'the product in crisp, sharp focus',
  },
  {
    addresses: ['exposure'],
    title: () => 'Fix the exposure',
    displayTitle: () => 'Improve the lighting',
    text: (c) => {
      const e = c.f.exposure;
      const lum = c.f.subject.present ? e.subjectMeanLuminance : e.meanLuminance;
      const parts: string[] = [];
      if (c.failingMeasures.has('brightness')) {
        parts.push(
          `${c.f.subject.present ? c.Subject : 'The frame'} averages ${pct(lum)} brightness; light it to ${EXPOSURE_RANGE}`,
        );
      }
      if (c.failingMeasures.has('product clipping')) {
        parts.push(
          `${pct(e.subjectClippedShadows + e.subjectClippedHighlights)} of the product is clipped; keep it under ${pct(PRODUCT_CLIPPING.pass)}`,
        );
      }
      if (c.failingMeasures.has('frame clipping')) {
        parts.push(
          `${pct(e.clippedShadows)} of the frame is crushed to black and ${pct(e.clippedHighlights)} blown to white; keep detail in the shadows and highlights`,
        );
      }
      return `${parts.join('; ')}. ${worth(c)}`;
    },
    displayText: (c) =>
      exposureDirection(c) === 'dark'
        ? 'Light the product more brightly and evenly.'
        : exposureDirection(c) === 'bright'
          ? 'Soften the light so the product keeps its detail.'
          : 'Keep detail in the shadows and highlights.',
    patch: (c) =>
      exposureDirection(c) === 'dark'
        ? 'bright, even lighting on the product'
        : exposureDirection(c) === 'bright'
          ? 'softer, balanced lighting on the product with no blown-out highlights'
          : 'balanced exposure with no blown-out highlights or crushed shadows',
  },
  {
    addresses: ['brand_colour_presence'],
    title: () => 'Add brand colours',
    displayTitle: () => 'Use the brand colours',
    text: (c) =>
      `Brand colours${c.palette.length ? ` (${listWords(c.palette)})` : ''} cover ${pct(c.f.palette?.weightedCoverage ?? 0)} of the frame; bring them into the backdrop, props or light to reach about ${pct(BRAND_COLOUR_COVERAGE.target)} (at least ${pct(BRAND_COLOUR_COVERAGE.pass)}). ${worth(c)}`,
    displayText: (c) =>
      `Bring the brand colours${c.palette.length ? ` (${listWords(c.palette)})` : ''} into the scene (now ${pct(c.f.palette?.weightedCoverage ?? 0)} of it).`,
    patch: (c) => (c.palette.length ? `brand colour accents in ${listWords(c.palette)}` : 'brand colour accents'),
  },
  {
    addresses: ['brand_mark_visibility'],
    title: () => 'Show the brand mark',
    displayTitle: (c) =>
      !(c.f.logo.count > 0 && c.f.logo.areaShare > 0) && (c.f.mark?.count ?? 0) > 0
        ? 'Make the logo larger'
        : 'Make the logo visible',
    text: (c) => {
      const f = c.f;
      if (!(f.logo.count > 0 && f.logo.areaShare > 0)) {
        if (f.mark && f.mark.count > 0)
          return `The brand mark on the product covers only ${pct(f.mark.largestShare)} of the frame; show it larger on the product or packaging, about ${pct(MARK_AREA.target)} of the frame. ${worth(c)}`;
        return `No legible brand mark was found on the product (${markFinding(f)}); show the logo or wordmark clearly on the product or packaging, about ${pct(MARK_AREA.target)} of the frame. ${worth(c)}`;
      }
      const parts: string[] = [];
      if (c.failingMeasures.has('logo size'))
        parts.push(`the logo covers ${pct(f.logo.largestShare)}; enlarge it to about ${pct(LOGO_AREA.target)}`);
      if (c.failingMeasures.has('logo contrast'))
        parts.push(
          `its contrast is ${num(f.logo.contrast)}; place it on a calm, contrasting area (≥ ${LOGO_CONTRAST.pass})`,
        );
      if (c.failingMeasures.has('logo edge distance'))
        parts.push(
          `it ${f.logo.cutOff ? 'is cut off by' : 'crowds'} the frame edge; keep it at least ${pct(LOGO_EDGE_DISTANCE.pass)} inside`,
        );
      const s = parts.join('; ');
      return `${s.charAt(0).toUpperCase()}${s.slice(1)}. ${worth(c)}`;
    },
    displayText: (c) =>
      c.f.logo.count > 0 && c.f.logo.areaShare > 0
        ? 'Make the logo larger, legible and fully inside the frame.'
        : c.f.mark && c.f.mark.count > 0
          ? `Show the logo larger on the product (now ${pct(c.f.mark.largestShare)} of the frame).`
          : 'Show the logo clearly on the product or packaging.',
    patch: () => 'the brand logo clearly visible on the product',
  },
  {
    addresses: ['colourfulness'],
    title: () => 'Raise colourfulness',
    displayTitle: () => 'Add colour',
    text: (c) =>
      `Colourfulness is ${Math.round(c.f.colorfulness)}; add vivid colour in the backdrop, props or light to reach about ${COLOURFULNESS.target} (at least ${COLOURFULNESS.pass}). ${worth(c)}`,
    displayText: () => 'Use richer, more vivid colours.',
    patch: () => 'rich, vivid colours',
  },
];

/** Whether the product is lighter than the frame: a contrasting backdrop goes the other way. */
function backdropShift(f: ImageFeatures): string {
  return f.exposure.subjectMeanLuminance >= f.exposure.meanLuminance ? 'darker, contrasting' : 'lighter, contrasting';
}

function placement(f: ImageFeatures): string {
  return f.composition.nearestPowerPoint === 'centre' || !f.composition.nearestPowerPoint
    ? 'centred in the frame'
    : `on the ${f.composition.nearestPowerPoint} point`;
}

function exposureDirection(c: ActionContext): 'dark' | 'bright' | 'clipping' {
  const e = c.f.exposure;
  const lum = c.f.subject.present ? e.subjectMeanLuminance : e.meanLuminance;
  if (c.failingMeasures.has('brightness')) return lum < 0.5 ? 'dark' : 'bright';
  return 'clipping';
}

// ---------------------------------------------------------------------------------------------
// Image intelligence.

/** Emotional tone shares (0..1, sum 1) from brightness, colourfulness, contrast, clutter and palette warmth. */
export function toneShares(f: ImageFeatures): Record<ToneLabel, number> {
  const b = clamp(fin(f.exposure.meanLuminance), 0, 1);
  const c = ramp(fin(f.colorfulness), 10, 80);
  const k = ramp(fin(f.contrast.rms), 0.05, 0.35);
  const z = ramp(fin(f.clutter.edgeDensity), 0.01, 0.12);
  const w = paletteWarmth(f);
  const raw: Record<ToneLabel, number> = {
    calm: (1 - k) * (1 - z) * (1 - 0.5 * c) * (0.5 + (1 - w)),
    energetic: (0.4 * k + 0.3 * c + 0.3 * z) * (0.5 + 0.5 * b),
    warm: 2 * Math.max(0, w - 0.5) * (0.3 + 0.7 * c),
    premium: (1 - c) * (1 - z) * (0.5 * k + 0.5 * (1 - b)),
    playful: c * b * (1 - 0.5 * k),
  };
  const total = TONE_LABELS.reduce((s, l) => s + raw[l], 0);
  const out = {} as Record<ToneLabel, number>;
  for (const l of TONE_LABELS) out[l] = total > 0 ? raw[l] / total : l === 'calm' ? 1 : 0;
  return out;
}

/** Whole percents summing to 100 (largest remainder; ties by label order), largest first. */
function percents(shares: Record<ToneLabel, number>): [ToneLabel, number][] {
  const exact = TONE_LABELS.map((l, i) => ({ l, i, v: 100 * shares[l] }));
  const base = exact.map((e) => ({ ...e, p: Math.floor(e.v) }));
  let left = 100 - base.reduce((s, e) => s + e.p, 0);
  const byRemainder = [...base].sort((a, b) => b.v - b.p - (a.v - a.p) || a.i - b.i);
  for (const e of byRemainder) {
    if (left <= 0) break;
    e.p++;
    left--;
  }
  return base.sort((a, b) => b.p - a.p || a.i - b.i).map((e) => [e.l, e.p]);
}

function describeImage(
  f: ImageFeatures,
  ctx: Context,
  tones: [ToneLabel, number][],
  brandTone: string[] | undefined,
): { text: string; mood: string; tone: string } {
  const e = f.exposure;
  const a = f.subject.areaShare;
  const backdropLum =
    f.subject.present && a < 0.95 ? (e.meanLuminance - a * e.subjectMeanLuminance) / (1 - a) : e.meanLuminance;
  const backdropTone = backdropLum > 0.7 ? 'light' : backdropLum < 0.3 ? 'dark' : 'mid-toned';
  const texture =
    f.clutter.edgeDensity < BACKGROUND_EDGES.pass ? 'plain' : f.clutter.edgeDensity < 0.07 ? 'textured' : 'busy';
  let first: string;
  const centroid = f.subject.centroid;
  if (f.subject.present && centroid) {
    const v = centroid.y < 0.4 ? 'upper' : centroid.y > 0.6 ? 'lower' : '';
    const h = centroid.x < 0.4 ? 'left' : centroid.x > 0.6 ? 'right' : '';
    const where =
      v && h
        ? `in the ${v} ${h}`
        : h
          ? `on the ${h}`
          : v
            ? v === 'upper'
              ? 'at the top'
              : 'at the bottom'
            : 'at the centre';
    const cut = f.composition.cutOff ? `, cropped at the ${listWords(f.composition.cutOffEdges)},` : '';
    first = `${ctx.Subject} sits ${where}${cut ? cut : ','} covering ${pct(a)} of the frame, against a ${backdropTone}, ${texture} backdrop.`;
  } else {
    first = `No single product stands out; the scene is ${backdropTone} and ${texture}.`;
  }
  const light =
    e.clippedHighlights > 0.1
      ? 'harsh, with blown-out highlights'
      : e.clippedShadows > 0.1
        ? 'low, with crushed shadows'
        : e.meanLuminance > 0.7
          ? 'bright'
          : e.meanLuminance < 0.3
            ? 'dim'
            : 'even';
  const contrast = f.contrast.rms < 0.1 ? 'soft' : f.contrast.rms < 0.25 ? 'moderate' : 'strong';
  const colour =
    f.colorfulness < 15 ? 'muted' : f.colorfulness < 33 ? 'moderate' : f.colorfulness < 59 ? 'rich' : 'vivid';
  const [mood, moodPct] = tones[0]!;
  let brand = '';
  const words = (brandTone ?? []).map((w) => w.trim().toLowerCase()).filter(Boolean);
  if (words.length > 0) {
    const labels = TONE_LABELS.filter((l) => words.some((w) => TONE_SYNONYMS[l].includes(w)));
    const shown = words.slice(0, 3).join(', ');
    if (labels.includes(mood)) brand = `, in line with the brand's ${shown} tone`;
    else if (labels.length > 0) {
      const share = tones.filter(([l]) => labels.includes(l)).reduce((s, [, p]) => s + p, 0);
      brand = `, while the brand's ${shown} tone reads as ${listWords(labels)} (${share}% here)`;
    }
  }
  const second = `The light is ${light}, with ${contrast} contrast and ${colour} colour; it reads mostly ${mood} (${moodPct}%)${brand}.`;
  const brightness = e.meanLuminance > 0.65 ? 'bright' : e.meanLuminance < 0.35 ? 'dark' : 'mid-key';
  return { text: `${first} ${second}`, mood, tone: `${brightness}, ${contrast} contrast, ${colour} colour` };
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

function platformFormat(f: ImageFeatures): string {
  const r = f.frame.height > 0 ? f.frame.width / f.frame.height : 1;
  return r < PLATFORM_RATIOS.story ? 'story' : r > PLATFORM_RATIOS.banner ? 'banner' : 'feed';
}

// ---------------------------------------------------------------------------------------------
// The critique.

export function buildCritique(input: CritiqueInput): Critique {
  const { features: f, createdAt } = input;
  const estimated = f.subject.source !== 'mask';
  const ctx: Context = {
    subject: estimated ? 'the main subject' : 'the product',
    Subject: estimated ? 'The main subject' : 'The product',
    palette: paletteNames(input.palette ?? f.palette?.colors.map((c) => c.hex) ?? []),
  };
  const base = scoreFeatures(f);
  const terms = scoreTerms(f);
  const judged = judge(f);
  const byName = new Map(judged.map((j) => [j.def.name, j]));

  const gainOf = (g: ImageFeatures, s: ScoreName) => round1(scoreFeatures(g)[s] - base[s]);
  const diagnostics = new Map<DiagnosticName, CritiqueDiagnostic>();
  for (const j of judged) {
    const scoresMoved = SCORE_NAMES.filter((s) => j.def.moves.some(([m]) => m === s));
    const now = scoresMoved
      .map((s) => {
        const parts = j.def.moves
          .filter(([m]) => m === s)
          .map(([, key]) => {
            const t = terms[s].find((x) => x.key === key)!;
            return `${key} ${round1(t.points)} of ${round1(100 * t.weight)} points`;
          });
        return `${s} (${parts.join('; ')})`;
      })
      .join(', ');
    const atTarget = fixed(f, j.measures);
    const gains = scoresMoved.map((s) => [s, gainOf(atTarget, s)] as const).filter(([, g]) => g > 0);
    const after =
      gains.length > 0
        ? `At its target: ${gains.map(([s, g]) => `${s} +${g}`).join(', ')}.`
        : 'At its target: no further points.';
    diagnostics.set(j.def.name, {
      diagnostic: j.def.name,
      assessment: j.outcome === 'pass',
      score: j.score,
      max_potential: j.maxPotential,
      outcome: j.outcome,
      description: j.def.describe(f, ctx),
      impact: `Moves ${now}. ${after}`,
      creation_time: createdAt,
    });
  }

  const order = input.objective
    ? [input.objective, ...SCORE_NAMES.filter((s) => s !== input.objective)]
    : [...SCORE_NAMES];
  const recommendations: CritiqueRecommendation[] = order.map((s) => {
    const score = clamp(round1(input.scores[s]), 0, 100);
    const assessment = assessmentOf(score);
    // The actions with failing diagnostics that move this score. Each is worth what fixing it alone
    // adds, or, when more, what it adds on top of all the others (the score with every fix minus the
    // score with every fix but this one): some terms multiply (contrast counts little on a product
    // too small to see, and the reverse), so a change can pay off only together with another.
    const candidates = ACTIONS.flatMap((action, rank) => {
      const failingDiags = action.addresses
        .map((n) => byName.get(n))
        .filter((j): j is Judged => !!j && j.outcome !== 'pass' && j.def.moves.some(([m]) => m === s));
      if (failingDiags.length === 0) return [];
      const fix = failingDiags.flatMap((j) => j.failing);
      return [{ action, rank, failingDiags, fix, alone: gainOf(fixed(f, fix), s) }];
    });
    const allFixes = candidates.flatMap((c) => c.fix);
    const withAll = scoreFeatures(fixed(f, allFixes))[s];
    const practical: (PracticalRecommendation & { fix: Measure[]; rank: number })[] = [];
    for (const { action, rank, failingDiags, fix, alone } of candidates) {
      const others = candidates.filter((c) => c.rank !== rank).flatMap((c) => c.fix);
      const onTop = round1(withAll - scoreFeatures(fixed(f, others))[s]);
      // More than the rounding of two one-decimal scores apart.
      const gain = onTop - alone > 0.15 ? onTop : alone;
      if (!(gain > 0)) continue;
      const c: ActionContext = {
        ...ctx,
        f,
        failing: new Set(failingDiags.map((j) => j.def.name)),
        failingMeasures: new Set(fix.map((m) => m.label)),
        gain,
        together: gain > alone,
        alone,
        score: s,
      };
      practical.push({
        title: action.title(c),
        text: action.text(c),
        display_title: action.displayTitle(c),
        display_text: action.displayText(c),
        addresses_diagnostics: failingDiags.map((j) => j.def.name),
        estimated_gain: gain,
        prompt_patch: action.patch(c),
        fix,
        rank,
      });
    }
    // Checked against the image before it is given: a recommendation its own measurement
    // contradicts (e.g. "make the logo visible" on a product whose mark is measured visible) goes.
    for (let k = practical.length - 1; k >= 0; k--) {
      if (contradicted(f, practical[k]!.addresses_diagnostics)) practical.splice(k, 1);
    }
    practical.sort((a, b) => b.estimated_gain - a.estimated_gain || a.rank - b.rank);
    const label = SCORE_LABEL[s];
    let general: string;
    let summary: string;
    const top = practical[0];
    if (!top) {
      general = `Keep this direction: every diagnostic that moves ${label} passes or is at its target.`;
      summary = `${capital(assessment)} ${label} (${score}/100); no change needed.`;
    } else {
      const all = gainOf(
        fixed(
          f,
          practical.flatMap((p) => p.fix),
        ),
        s,
      );
      const reach = clamp(round1(score + all), 0, 100);
      general =
        practical.length === 1
          ? `${top.title}: it is worth about +${top.estimated_gain} points, lifting ${label} from ${score} to about ${reach}.`
          : `${top.title} first (about +${top.estimated_gain} points); ${practical.length === 2 ? 'both' : `all ${practical.length}`} changes together could lift ${label} from ${score} to about ${reach}.`;
      summary = `${capital(assessment)} ${label} (${score}/100). Biggest lever: ${top.display_title.toLowerCase()} (+${top.estimated_gain}).`;
    }
    return {
      campaign_id: input.campaignId,
      campaign_objective: OBJECTIVE_OF_SCORE[s],
      score,
      score_name: s,
      general_assessment: assessment,
      general_recommendation: general,
      recommendation_details: {
        general_recommendation: general,
        display_summary: summary,
        practical_recommendations: practical.map(({ fix: _fix, rank: _rank, ...p }) => p),
      },
      diagnostics: DIAGNOSTIC_NAMES.filter((n) => byName.get(n)?.def.moves.some(([m]) => m === s)).map(
        (n) => diagnostics.get(n)!,
      ),
      creation_time: createdAt,
    };
  });

  const tones = percents(toneShares(f));
  const hasLogos = f.logo.count > 0 && f.logo.areaShare > 0;
  const brandingArea = round1(100 * (hasLogos ? f.logo.areaShare : markArea(f)));
  const attention = clamp(round1(input.scores.attention_potential), 0, 100);
  const month = new Date(createdAt).getUTCMonth();
  return {
    recommendations,
    reactions: { attention_potential: attention, general_assessment: assessmentOf(attention) },
    image_intelligence: {
      average_branding_area: clamp(brandingArea, 0, 100),
      average_focal_points: f.saliency.focalPointCount,
      emotional_tone_presence: Object.fromEntries(tones.map(([l, p]) => [l, `${p}%`])),
      features: {
        number_of_focal_points: f.saliency.focalPointCount,
        brand: {
          branding_area: clamp(brandingArea, 0, 100),
          number_branding_elements: hasLogos ? f.logo.count : Math.max(f.text.regionCount, f.mark?.count ?? 0),
        },
        description: describeImage(f, ctx, tones, input.brandTone),
      },
    },
    model_versions: {
      prediction: PREDICTION_MODEL,
      recommendation: RECOMMENDATION_MODEL,
      prediction_params: {
        ...PREDICTION_DEFAULTS,
        platform_format: platformFormat(f),
        view_month: Number.isInteger(month) ? MONTHS[month]! : 'any',
      },
    },
  };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Distinct colour names of a palette, chromatic colours first, at most three. */
function paletteNames(palette: readonly string[]): string[] {
  const named = palette
    .map((hex, i) => ({ name: colourName(hex), chroma: (hexToHsl(hex)?.s ?? 0) >= 0.15, i }))
    .filter((c): c is { name: string; chroma: boolean; i: number } => c.name !== undefined)
    .sort((a, b) => Number(b.chroma) - Number(a.chroma) || a.i - b.i);
  return [...new Set(named.map((c) => c.name))].slice(0, 3);
}

/**
 * Append the prompt patches of the top `max` practical recommendations for `objective` (most gain
 * first) to a prompt: patches already in the prompt (case-insensitive) or repeated are skipped, and
 * a patch is only added while the result stays within `PATCHED_PROMPT_MAX` characters (the prompt
 * itself is never cut).
 */
export function applyPatches(
  prompt: string,
  critique: Critique,
  objective: ScoreName,
  max = 3,
): { prompt: string; applied: string[] } {
  const rec = critique.recommendations.find((r) => r.score_name === objective);
  const base = prompt.trimEnd();
  const lower = base.toLowerCase();
  const applied: string[] = [];
  const compose = (patches: string[]) => {
    if (patches.length === 0) return base;
    const list = patches.length === 1 ? patches[0]! : `${patches.slice(0, -1).join('; ')}; and ${patches.at(-1)!}`;
    const sep = base === '' ? '' : /[.!?]$/.test(base) ? ' ' : '. ';
    return `${base}${sep}With ${list}.`;
  };
  for (const p of rec?.recommendation_details.practical_recommendations ?? []) {
    if (applied.length >= max) break;
    const patch = p.prompt_patch.trim();
    if (!patch || lower.includes(patch.toLowerCase()) || applied.some((a) => a.toLowerCase() === patch.toLowerCase()))
      continue;
    if (compose([...applied, patch]).length > PATCHED_PROMPT_MAX) continue;
    applied.push(patch);
  }
  return { prompt: applied.length > 0 ? compose(applied) : prompt, applied };
}

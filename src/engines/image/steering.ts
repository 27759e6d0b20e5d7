/**
 * Refinement steering (pure): which levers of the scene engine (`SceneSteering`) to pull so that a
 * regeneration of a source variation scores higher on one objective, decided from the source's
 * measured pixel features (src/engines/critique). No I/O: the plan is JSON-safe (the logo is asked
 * for by placement; the caller adds the brand logo's bytes before generating).
 *
 * Per objective (each lever only when the features say it is needed and there is room for it):
 *
 * - attention_potential: a larger product when it is small; stronger separation from the backdrop
 *   when the product's contrast is low; a calmer backdrop when attention is spread over competing
 *   focal points or clutter; brand colour on the set (a painted surface or wall, a coloured prop,
 *   a wash of light: set-dressing.ts) when the frame is nearly colourless.
 * - conversion: a larger product (the product-visible term wants ~40% of the frame); a calmer
 *   backdrop when cluttered; the centred layout when the product is off every power point or cut by
 *   the frame (smaller when cut); separation when the product is hard to tell from its surround.
 * - brand_awareness: the brand logo when the brand has one and the frame shows none; brand colour
 *   accents on the set when little of the frame carries them (not when the product already
 *   does: it would swallow it); a somewhat larger product (prominence, and it keeps the product the
 *   subject next to a logo).
 *
 * A refinement of a refinement compounds: the plan starts from the source's own steering
 * (`previous`): sizes multiply, strengths add, colours and the logo are kept; everything stays
 * within `STEERING_BOUNDS`.
 */
import { parseHex, rgbToLab } from '../../adapters/media/colors.ts';
import type { ImageFeatures } from '../critique/features.ts';
import type { Scores } from '../critique/scores.ts';
import type { ScenePlacement, SceneSteering } from './scene-engine.ts';
import { clamp } from '../shared/math.ts';

export type SteerObjective = 'attention_potential' | 'conversion' | 'brand_awareness';

export interface SteeringSource {
  /** The source variation's features (`scoreImage(...).features`, with the product mask when known). */
  features: ImageFeatures;
  scores: Scores;
  /** The source's variationIndex (its layout); a refinement keeps it unless a lever moves it. */
  variationIndex: number;
}

export interface SteeringBrand {
  /** Brand colours `#rrggbb`, strongest first. */
  palette: string[];
  /** The brand has a logo the caller can add to the steering's `logo`. */
  hasLogo: boolean;
}

export interface SteeringPlan {
  /** The levers for the regeneration (JSON-safe: `logo` without bytes), compounded with `previous`. */
  steering: SceneSteering;
  /** Human names of the levers this plan pulls (empty: nothing to change). */
  levers: string[];
  /** Levers the objective wanted that could not be pulled, with why (e.g. the brand has no logo). */
  missing: string[];
}

/** The bounds every combined steering stays in. */
export const STEERING_BOUNDS = {
  scale: { min: 0.6, max: 1.8 },
  contrast: { min: 0, max: 1 },
  simplifyBackdrop: { min: 0, max: 1 },
  /** Accent colours kept (strongest first). */
  accentColors: 2,
} as const;

/**
 * Breathing room kept on every side when growing the product (share of the frame; the local
 * engine's own margin is 6%): a refinement should not crowd the frame.
 */
const MARGIN = 0.13;
/** A scale step smaller than this is not worth a lever. */
const MIN_STEP = 1.08;

const round2 = (v: number) => Math.round(v * 100) / 100;

/** Chroma (C*ab, D65) of an sRGB colour: under ~12 it reads as a neutral (white, grey, black). */
export function colorChroma(hex: string): number {
  const rgb = parseHex(hex);
  if (!rgb) return 0;
  const [, a, b] = rgbToLab(...rgb);
  return Math.hypot(a, b);
}

/** The palette's colours that can be accents (not neutral), normalised to lower-case `#rrggbb`. */
export function accentCandidates(palette: string[]): string[] {
  const out: string[] = [];
  for (const hex of palette) {
    const rgb = parseHex(hex);
    if (!rgb || colorChroma(hex) < 12) continue;
    const norm = `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    if (!out.includes(norm)) out.push(norm);
  }
  return out;
}

/**
 * How much larger (linear) the product can get before it meets the engine's margins: from its box
 * (shares of the frame). 1 when it already fills them.
 */
export function roomToGrow(f: ImageFeatures): number {
  const box = f.subject.box;
  if (!f.subject.present || !box) return 1;
  const free = 1 - 2 * MARGIN;
  return Math.max(1, Math.min(free / Math.max(0.01, box.width), free / Math.max(0.01, box.height)));
}

/** Scale step toward a target area share, bounded by the room there is and by `cap`. */
function growth(f: ImageFeatures, targetArea: number, cap: number): number {
  const area = f.subject.areaShare;
  if (!f.subject.present || area <= 0 || area >= targetArea) return 1;
  const want = Math.sqrt(targetArea / area);
  return clamp(Math.min(want, roomToGrow(f), cap), 1, cap);
}

/**
 * Combines a refinement's steering with its source's: sizes multiply, strengths add (each bounded),
 * colours are merged (the new ones first), the logo and the base layout are kept unless the new
 * steering sets them, a new placement wins.
 */
export function combineSteering(previous: SceneSteering | undefined, next: SceneSteering): SceneSteering {
  const prev = previous ?? {};
  const out: SceneSteering = {};
  const baseLayout = next.baseLayout ?? prev.baseLayout;
  if (baseLayout !== undefined) out.baseLayout = baseLayout;
  const placement = next.placement ?? prev.placement;
  if (placement) out.placement = placement;
  const scale = (finite(prev.scale) ?? 1) * (finite(next.scale) ?? 1);
  if (prev.scale !== undefined || next.scale !== undefined) {
    out.scale = round2(clamp(scale, STEERING_BOUNDS.scale.min, STEERING_BOUNDS.scale.max));
  }
  for (const key of ['contrast', 'simplifyBackdrop'] as const) {
    if (prev[key] === undefined && next[key] === undefined) continue;
    out[key] = round2(clamp((finite(prev[key]) ?? 0) + (finite(next[key]) ?? 0), 0, 1));
  }
  const colors = [...(next.accentColors ?? []), ...(prev.accentColors ?? [])]
    .map((c) => c.toLowerCase())
    .filter((c, i, all) => all.indexOf(c) === i)
    .slice(0, STEERING_BOUNDS.accentColors);
  if (colors.length > 0) out.accentColors = colors;
  const logo = next.logo ?? prev.logo;
  if (logo) out.logo = logo;
  return out;
}

const finite = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v : undefined);

/** The levers for one objective from a source variation's features (see the file comment). */
export function planSteering(
  objective: SteerObjective,
  source: SteeringSource,
  brand: SteeringBrand,
  previous?: SceneSteering,
): SteeringPlan {
  const f = source.features;
  const levers: string[] = [];
  const missing: string[] = [];
  const step: SceneSteering = {};
  const prevScale = finite(previous?.scale) ?? 1;
  // What scale is still allowed on top of the source's (the bounds of the combined steering).
  const scaleCap = (cap: number) => Math.min(cap, STEERING_BOUNDS.scale.max / prevScale);

  const grow = (target: number, cap: number) => {
    const s = growth(f, target, scaleCap(cap));
    if (s >= MIN_STEP) {
      step.scale = round2(s);
      levers.push(`larger product (×${round2(s)})`);
      return true;
    }
    return false;
  };
  // Each lever's note says what changes, then why in a clause of its own: "calmer backdrop (the
  // backdrop was cluttered)", never the bare cause ("calmer backdrop (a cluttered backdrop)").
  const separate = (amount: number, why: string) => {
    const room = 1 - (finite(previous?.contrast) ?? 0);
    const a = round2(Math.min(room, amount));
    if (a >= 0.15) {
      step.contrast = a;
      levers.push(`stronger separation from the backdrop (${why})`);
    }
  };
  const calm = (amount: number, why: string) => {
    const room = 1 - (finite(previous?.simplifyBackdrop) ?? 0);
    const a = round2(Math.min(room, amount));
    if (a >= 0.15) {
      step.simplifyBackdrop = a;
      levers.push(`calmer backdrop (${why})`);
    }
  };
  const accents = accentCandidates(brand.palette);
  const addAccent = (why: string) => {
    if (accents.length === 0) {
      missing.push(
        brand.palette.length === 0
          ? 'brand colour accent (the brand has no palette)'
          : 'brand colour accent (the palette has only neutral colours)',
      );
      return;
    }
    const have = (previous?.accentColors ?? []).map((c) => c.toLowerCase());
    const fresh = accents.filter((c) => !have.includes(c)).slice(0, STEERING_BOUNDS.accentColors);
    if (fresh.length === 0) return;
    step.accentColors = fresh;
    levers.push(`brand colour ${fresh.length > 1 ? 'accents' : 'accent'} ${fresh.join(' and ')} (${why})`);
  };
  const place = (placement: ScenePlacement, why: string) => {
    if ((previous?.placement ?? undefined) === placement) return;
    step.placement = placement;
    levers.push(`${placement} layout (${why})`);
  };

  const edges = f.clutter.edgeDensity;
  const off = f.saliency.offSubjectFocalPoints;
  const dE = f.contrast.subjectDeltaE;
  // Cut by the frame: at the bottom alone it is most likely the product's own image that cuts it
  // (a torso, a cropped shot: it stands on the frame's edge and no layout changes that).
  const cut = f.composition.cutOffEdges.some((e) => e !== 'bottom');

  if (objective === 'attention_potential') {
    grow(0.22, 1.5);
    if (dE < 50 || f.contrast.rms < 0.12) {
      separate(clamp(0.4 + (50 - dE) / 40, 0.4, 1), dE < 50 ? 'the product blended in' : 'the frame was flat');
    }
    if (f.saliency.focalTargets > 3 || off >= 2 || edges > 0.03 || f.subject.saliencyShare < 0.55) {
      calm(clamp(0.35 + edges * 8 + off * 0.12, 0.35, 1), 'other focal points competed with the product');
    }
    const productColour = f.palette ? f.palette.subjectCoverage : 0;
    if (f.colorfulness < 22 && productColour < 0.35 && accents.length > 0) addAccent('the frame was nearly colourless');
  } else if (objective === 'conversion') {
    if (cut) {
      place('centre', 'the product was cut by the frame');
      step.scale = round2(Math.max(STEERING_BOUNDS.scale.min / prevScale, 0.85));
      levers.push('smaller product (it was cut by the frame)');
    } else {
      if (f.composition.powerPointDistance > 0.18) place('centre', 'the product was off the power points');
      grow(0.28, 1.5);
    }
    if (edges > 0.015 || off >= 1) calm(clamp(0.35 + edges * 8 + off * 0.15, 0.35, 1), 'the backdrop was cluttered');
    if (dE < 40) separate(clamp(0.4 + (40 - dE) / 35, 0.4, 1), 'the product blended in');
  } else {
    if (f.logo.count === 0) {
      if (brand.hasLogo) {
        if (!previous?.logo) {
          step.logo = { placement: 'corner' };
          levers.push('brand logo in a corner');
        }
      } else {
        missing.push('brand logo (the brand has no logo)');
      }
    }
    const pal = f.palette;
    if (!pal || (pal.weightedCoverage < 0.2 && pal.subjectCoverage < 0.35))
      addAccent("little of the frame carried the brand's colours");
    grow(0.17, 1.4);
  }

  // The layout the source was made with, unless already pinned by the source's own steering.
  step.baseLayout = previous?.baseLayout ?? source.variationIndex;
  return { steering: combineSteering(previous, step), levers, missing };
}

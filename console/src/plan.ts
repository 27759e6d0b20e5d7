/** The organization's plan as the console shows it (pure, unit-tested): what a feature needs, what unlocks it. */
import { featureLabel } from './errors.ts';

export interface PlanInfo {
  slug: string;
  name: string;
  features: Record<string, boolean>;
  pools: Record<string, number | null>;
}
export interface PlansAnswer {
  current: string;
  data: PlanInfo[];
}

export interface FeatureGate {
  /** undefined while the usage is loading */
  allowed: boolean | undefined;
  feature: string;
  label: string;
  /** The organization's plan by name (`Free`), else its slug. */
  planName: string;
  /** Names of the other plans that include the feature, in catalog order. */
  unlockedBy: string[];
}

/** Whether the organization may use `feature`, and which plans would let it. */
export function featureGate(
  feature: string,
  gated: Record<string, boolean> | undefined,
  planSlug: string | undefined,
  plans: PlansAnswer | undefined,
): FeatureGate {
  const list = plans?.data ?? [];
  const current = list.find((p) => p.slug === (planSlug ?? plans?.current));
  return {
    allowed: gated ? gated[feature] !== false : undefined,
    feature,
    label: featureLabel(feature),
    planName: current?.name ?? planSlug ?? '',
    unlockedBy: list.filter((p) => p.slug !== current?.slug && p.features[feature]).map((p) => p.name),
  };
}

/** `Pro`, `Pro or Business`, `Pro, Business or Enterprise`. */
export function orList(names: string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** The pool a plan feature spends, when it has one: its meter reads "not in your plan" without the feature. */
export const POOL_FEATURE: Record<string, string> = {
  brand_dna_extractions: 'brand_dna',
  video_seconds: 'video_generation',
};

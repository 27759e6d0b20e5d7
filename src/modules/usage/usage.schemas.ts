import { Type } from 'typebox';
import { FEATURES, type Feature, POOLS, type Pool } from './plans.ts';
import { THRESHOLDS } from './usage.report.ts';

const poolUsage = (description: string) =>
  Type.Object(
    {
      usage: Type.Integer({ minimum: 0, description: 'Units reserved or used in the current billing period' }),
      cap: Type.Integer({ minimum: -1, description: 'Units allowed per billing period; -1 when unlimited' }),
      remaining: Type.Integer({ minimum: -1, description: 'Units left this billing period; -1 when unlimited' }),
      unlimited: Type.Boolean(),
      source: Type.Enum(['plan', 'override'], {
        description: 'Whether the cap comes from the plan or from an override for this organization',
      }),
    },
    { description },
  );

const POOL_DESCRIPTIONS: Record<Pool, string> = {
  image_generations: 'Scene-forge images (each variation counts one)',
  environment_generations: 'Environment generations',
  prompt_enhancements: 'Scene and image-to-video prompt enhancements',
  video_seconds: 'Seconds of generated video',
  brand_dna_extractions: 'Brand DNA version extractions (create and rerun)',
};

export const FeatureUsageData = Type.Object(
  {
    pools: Type.Object(
      Object.fromEntries(POOLS.map((p) => [p, poolUsage(POOL_DESCRIPTIONS[p])])) as Record<
        Pool,
        ReturnType<typeof poolUsage>
      >,
    ),
    threshold_alert: Type.Object({
      pool: Type.Enum(POOLS, { description: 'The capped pool closest to (or past) its cap' }),
      threshold: Type.Enum(THRESHOLDS, { description: 'Highest usage threshold that pool has crossed' }),
    }),
    billing_period: Type.Object({
      start: Type.String({ format: 'date-time', description: 'First instant of the period (UTC)' }),
      end: Type.String({ format: 'date-time', description: 'First instant after the period: usage resets then' }),
    }),
    plan_slug: Type.String(),
    gated_features: Type.Object(
      Object.fromEntries(FEATURES.map((f) => [f, Type.Boolean()])) as Record<Feature, ReturnType<typeof Type.Boolean>>,
    ),
  },
  { title: 'FeatureUsage' },
);

export const FeatureUsageResponse = Type.Object({
  status: Type.Literal('success'),
  data: FeatureUsageData,
});

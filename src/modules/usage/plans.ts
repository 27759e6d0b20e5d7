import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * The plan catalog (config/plans.json or ATELIER_PLANS_FILE) and per-organization overrides.
 * `entitlementsFor` merges the two; everything that gates or caps reads the result.
 */
export const FEATURES = [
  'brand_dna',
  'critique',
  'video_generation',
  'reference_to_video',
  'reference_videos',
  'url_extraction',
] as const;
export type Feature = (typeof FEATURES)[number];

export const POOLS = [
  'image_generations',
  'environment_generations',
  'prompt_enhancements',
  'video_seconds',
  'brand_dna_extractions',
] as const;
export type Pool = (typeof POOLS)[number];

const Cap = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);
const VideoModel8Caps = Type.Object(
  {
    maxReferenceImages: Type.Integer({ minimum: 0, maximum: 30 }),
    maxReferenceVideos: Type.Integer({ minimum: 0, maximum: 10 }),
    maxDurationSeconds: Type.Integer({ minimum: 0, maximum: 30 }),
  },
  { additionalProperties: false },
);
const ExtractionCaps = Type.Object(
  { maxConcurrentRuns: Type.Integer({ minimum: 1, maximum: 1000 }) },
  { additionalProperties: false },
);

const PlanSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    features: Type.Object(
      Object.fromEntries(FEATURES.map((f) => [f, Type.Boolean()])) as Record<Feature, ReturnType<typeof Type.Boolean>>,
      {
        additionalProperties: false,
      },
    ),
    pools: Type.Object(Object.fromEntries(POOLS.map((p) => [p, Cap])) as Record<Pool, typeof Cap>, {
      additionalProperties: false,
    }),
    videoModel8: VideoModel8Caps,
    extraction: ExtractionCaps,
  },
  { additionalProperties: false },
);
const CatalogSchema = Type.Object({
  $comment: Type.Optional(Type.String()),
  plans: Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), PlanSchema),
});

export type Plan = Static<typeof PlanSchema>;
export type VideoModel8 = Static<typeof VideoModel8Caps>;

export const OverridesSchema = Type.Object(
  {
    features: Type.Optional(Type.Partial(PlanSchema.properties.features)),
    pools: Type.Optional(Type.Partial(PlanSchema.properties.pools)),
    videoModel8: Type.Optional(Type.Partial(VideoModel8Caps)),
    extraction: Type.Optional(Type.Partial(ExtractionCaps)),
  },
  { additionalProperties: false },
);
export type OrgOverrides = Static<typeof OverridesSchema>;

export interface Entitlements {
  planSlug: string;
  features: Record<Feature, boolean>;
  /** null cap = unlimited. `source` tells whether the plan or an override set it. */
  pools: Record<Pool, { cap: number | null; source: 'plan' | 'override' }>;
  videoModel8: VideoModel8;
  extraction: { maxConcurrentRuns: number };
}

export interface PlanCatalog {
  slugs(): string[];
  get(slug: string): Plan | undefined;
  entitlementsFor(org: { planSlug: string; overrides: OrgOverrides }): Entitlements;
}

const catalogCheck = Compile(CatalogSchema);
const overridesCheck = Compile(OverridesSchema);

export function parseOverrides(value: unknown): OrgOverrides {
  if (!overridesCheck.Check(value)) {
    const first = [...overridesCheck.Errors(value)][0];
    throw new Error(`invalid overrides: ${first ? `${first.instancePath} ${first.message}` : 'bad shape'}`);
  }
  return value;
}

export function createPlanCatalog(raw: unknown, source = 'plans'): PlanCatalog {
  if (!catalogCheck.Check(raw)) {
    const first = [...catalogCheck.Errors(raw)][0];
    throw new Error(`${source}: ${first ? `${first.instancePath} ${first.message}` : 'invalid plans file'}`);
  }
  const plans = raw.plans;
  if (Object.keys(plans).length === 0) throw new Error(`${source}: no plans defined`);
  return {
    slugs: () => Object.keys(plans),
    get: (slug) => (Object.hasOwn(plans, slug) ? plans[slug] : undefined),
    entitlementsFor({ planSlug, overrides }) {
      const plan = Object.hasOwn(plans, planSlug) ? plans[planSlug] : undefined;
      if (!plan) throw new Error(`unknown plan ${planSlug}`);
      const pools = {} as Entitlements['pools'];
      for (const p of POOLS) {
        const o = overrides.pools?.[p];
        pools[p] = o !== undefined ? { cap: o, source: 'override' } : { cap: plan.pools[p], source: 'plan' };
      }
      return {
        planSlug,
        features: { ...plan.features, ...stripUndefined(overrides.features ?? {}) },
        pools,
        videoModel8: { ...plan.videoModel8, ...stripUndefined(overrides.videoModel8 ?? {}) },
        extraction: { ...plan.extraction, ...stripUndefined(overrides.extraction ?? {}) },
      };
    },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function loadPlanCatalog(file: string): PlanCatalog {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`ATELIER_PLANS_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`ATELIER_PLANS_FILE: ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return createPlanCatalog(raw, `ATELIER_PLANS_FILE (${file})`);
}

import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { forbidden } from '../../http/errors.ts';

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
const CatalogSchema = Type.Object(
  {
    $comment: Type.Optional(Type.String()),
    // Slugs are checked separately (SLUG_RE) so the error can name the offending slug.
    plans: Type.Record(Type.String(), PlanSchema),
  },
  { additionalProperties: false },
);
const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

export type Plan = Static<typeof PlanSchema>;
export type VideoModel8 = Static<typeof VideoModel8Caps>;

// Type.Partial drops `additionalProperties: false`; it is set again so a misspelt key in an
// override (`{"pools":{"images":5}}`) is an error rather than silently ignored.
const strict = { additionalProperties: false } as const;
export const OverridesSchema = Type.Object(
  {
    features: Type.Optional(Type.Partial(PlanSchema.properties.features, strict)),
    pools: Type.Optional(Type.Partial(PlanSchema.properties.pools, strict)),
    videoModel8: Type.Optional(Type.Partial(VideoModel8Caps, strict)),
    extraction: Type.Optional(Type.Partial(ExtractionCaps, strict)),
  },
  strict,
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

/**
 * The problems a validator found, as short sentences naming the field by its dotted path
 * (`plans.free.pools.video_seconds must be >= 0 or null`), at most `max` of them.
 */
function describeProblems(check: Validator, value: unknown, max = 5): string {
  const byPath = new Map<string, { keyword: string; message: string; params: unknown }[]>();
  for (const e of check.Errors(value)) {
    // `additionalProperties: false` also reports each extra member as "schema is false"; the
    // additionalProperties entry on the parent says it better.
    if (e.keyword === 'boolean') continue;
    const list = byPath.get(e.instancePath) ?? [];
    list.push(e);
    byPath.set(e.instancePath, list);
  }
  const problems: string[] = [];
  for (const [pointer, errors] of byPath) {
    const path = pointer === '' ? '(top level)' : pointer.slice(1).split('/').join('.');
    const extra = errors.find((e) => e.keyword === 'additionalProperties');
    if (extra) {
      const names = (extra.params as { additionalProperties?: string[] }).additionalProperties ?? [];
      problems.push(`${path} has unknown member${names.length === 1 ? '' : 's'} ${names.join(', ')}`);
    } else if (errors.some((e) => e.keyword === 'anyOf')) {
      const branches = errors.filter((e) => e.keyword !== 'anyOf').map((e) => e.message.replace(/^must be /, ''));
      problems.push(`${path} must be ${branches.join(' or ')}`);
    } else {
      problems.push(`${path} ${errors.map((e) => e.message).join(', ')}`);
    }
  }
  if (problems.length === 0) return 'does not match the expected shape';
  const shown = problems.slice(0, max).join('; ');
  // TypeBox reports at most a few errors (its `maxErrors` setting), so no exact count is given.
  return problems.length > max ? `${shown}; and more` : shown;
}

export function parseOverrides(value: unknown): OrgOverrides {
  if (!overridesCheck.Check(value)) throw new Error(`invalid overrides: ${describeProblems(overridesCheck, value)}`);
  return value;
}

export function createPlanCatalog(raw: unknown, source = 'plans'): PlanCatalog {
  if (!catalogCheck.Check(raw)) throw new Error(`${source}: ${describeProblems(catalogCheck, raw)}`);
  const plans = raw.plans;
  if (Object.keys(plans).length === 0) throw new Error(`${source}: no plans defined`);
  const badSlug = Object.keys(plans).find((slug) => !SLUG_RE.test(slug));
  if (badSlug !== undefined) {
    throw new Error(
      `${source}: plan slug "${badSlug}" is invalid: use 1..63 lowercase letters, digits and dashes, starting with a letter or digit`,
    );
  }
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

/** 403 FORBIDDEN naming the feature when the entitlements lack it (same body as route gating). */
export function requireFeature(entitlements: Pick<Entitlements, 'planSlug' | 'features'>, feature: Feature): void {
  if (!entitlements.features[feature]) {
    throw forbidden(`Your plan (${entitlements.planSlug}) does not include ${feature}`, 'FORBIDDEN', {
      feature,
      plan: entitlements.planSlug,
    });
  }
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

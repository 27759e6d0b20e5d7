import type { OrgOverrides, PlanCatalog } from './plans.ts';
import type { UsageLedger } from './usage.ledger.ts';
import { buildFeatureUsage, type FeatureUsage } from './usage.report.ts';

export interface UsageServiceDeps {
  usage: UsageLedger;
  plans: PlanCatalog;
}

/** Feature usage of an organization: its entitlements next to what the ledger counted this period. */
export function createUsageService({ usage, plans }: UsageServiceDeps) {
  return {
    async featureUsage(org: { id: string; planSlug: string; overrides: OrgOverrides }): Promise<FeatureUsage> {
      const { period, used } = await usage.periodUsage(org.id);
      return buildFeatureUsage(plans.entitlementsFor(org), used, period);
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;

import type { AppDeps } from '../../app-deps.ts';
import type { OrgOverrides } from './plans.ts';
import { buildFeatureUsage, type FeatureUsage } from './usage.report.ts';

/** Feature usage of an organization: its entitlements next to what the ledger counted this period. */
export function createUsageService({ usage, plans }: Pick<AppDeps, 'usage' | 'plans'>) {
  return {
    async featureUsage(org: { id: string; planSlug: string; overrides: OrgOverrides }): Promise<FeatureUsage> {
      const { period, used } = await usage.periodUsage(org.id);
      return buildFeatureUsage(plans.entitlementsFor(org), used, period);
    },
  };
}

import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import { defineModule } from '../feature-module.ts';
import type { PlanCatalog } from './plans.ts';
import { createUsageLedger, type OrgLookup } from './usage.ledger.ts';
import { usageRoutes } from './usage.routes.ts';
import { createUsageService } from './usage.service.ts';

export interface UsageModuleDeps {
  db: Database;
  clock: Clock;
  plans: PlanCatalog;
  /** An organization's plan and overrides (the access service). */
  orgs: OrgLookup;
}

/**
 * Wires usage: the quota ledger (reserve at create time, commit on success, release on failure;
 * the generation modules take it), the feature-usage service and its routes.
 */
export function createUsageModule(deps: UsageModuleDeps) {
  const ledger = createUsageLedger(deps);
  const service = createUsageService({ usage: ledger, plans: deps.plans });
  const routes = usageRoutes({ usage: service, plans: deps.plans });
  return defineModule({ name: 'usage', ledger, service, routes });
}

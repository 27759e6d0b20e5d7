import type { Database } from '../../adapters/db/database.ts';
import type { ReadCache } from '../../adapters/db/read-cache.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import type { AssetRefs } from '../assets/asset-refs.ts';
import { defineModule } from '../feature-module.ts';
import { createBrandsRepo } from './brands.repo.ts';
import { brandsRoutes } from './brands.routes.ts';
import { createBrandsService } from './brands.service.ts';

export interface BrandsModuleDeps {
  db: Database;
  /** The process-local cache of hot reads the repo reads brands through. */
  readCache: ReadCache;
  clock: Clock;
  /** The stored objects a brand's deletion removes. */
  storage: ObjectStorage;
  /** The API's public base URL (Location headers). */
  config: { publicUrl: string };
  /** The assets a brand's logo may name (the assets module's). */
  assetRefs: AssetRefs;
}

/** Wires brands: repo, service and routes (POST/GET/PUT/DELETE /brands). */
export function createBrandsModule(deps: BrandsModuleDeps) {
  const repo = createBrandsRepo(deps.db, deps.readCache);
  const service = createBrandsService({ repo, clock: deps.clock, assetRefs: deps.assetRefs });
  const routes = brandsRoutes({ brands: service, db: deps.db, storage: deps.storage, config: deps.config });
  return defineModule({ name: 'brands', repo, service, routes });
}

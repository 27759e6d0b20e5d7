import type { Database } from '../../adapters/db/database.ts';
import type { Fetcher } from '../../adapters/fetch/fetcher.ts';
import { createLogger, type LogSettings } from '../../adapters/log/logger.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import { createTextAnalyzer, type TextEngineSettings } from '../../engines/text/index.ts';
import type { TextAnalyzer } from '../../engines/text/text-engine.ts';
import type { Changes } from '../../events/changes.ts';
import type { JobDefinition, JobSystem } from '../../jobs/types.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { pendingKind } from '../generation/pending-sweep.ts';
import { brandDnaJobs, extractJob, extractJobId } from './brand-dna.jobs.ts';
import { createBrandDnaRepo } from './brand-dna.repo.ts';
import { createBrandDnaService, versionFolder } from './brand-dna.service.ts';
import { defineModule } from '../feature-module.ts';
import { brandDnaRoutes } from './brand-dna.routes.ts';

export interface BrandDnaModuleDeps {
  db: Database;
  storage: ObjectStorage;
  jobs: JobSystem;
  clock: Clock;
  /** The log settings and the text analyzer's (LLM_*). */
  config: LogSettings & { llm: TextEngineSettings };
  usage: UsageLedger;
  fetcher: Fetcher;
  changes: Changes;
}

/**
 * Wires Brand DNA: repo, service (routes and getActiveDna), the text analyzer chosen by config
 * (LLM_BASE_URL / LLM_API_KEY / LLM_MODEL, else the local one), the extraction job and its
 * waiting work, and the routes.
 */
export function createBrandDnaModule(deps: BrandDnaModuleDeps, o: { analyzer?: TextAnalyzer } = {}) {
  const log = createLogger(deps.config).child({ component: 'brand-dna' });
  const repo = createBrandDnaRepo(deps.db);
  const analyzer = o.analyzer ?? createTextAnalyzer(deps.config.llm, { logger: log });
  const service = createBrandDnaService({
    repo,
    jobs: deps.jobs,
    usage: deps.usage,
    storage: deps.storage,
    clock: deps.clock,
    changes: deps.changes,
    log,
  });
  const jobs: JobDefinition[] = brandDnaJobs({
    repo,
    storage: deps.storage,
    fetcher: deps.fetcher,
    analyzer,
    usage: deps.usage,
    clock: deps.clock,
    changes: deps.changes,
    folder: versionFolder,
  });
  const pending = [
    pendingKind(jobs, extractJob, 'brand_dna_versions', (r) => ({
      payload: { versionId: r.id, runId: r.run_id },
      jobId: extractJobId(r.id as string, r.run_id as string),
    })),
  ];
  const routes = brandDnaRoutes({ brandDna: service });
  return defineModule({ name: 'brand-dna', service, jobs, analyzer, pending, routes });
}

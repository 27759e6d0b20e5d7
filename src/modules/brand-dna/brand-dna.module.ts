import { createLogger } from '../../adapters/log/logger.ts';
import type { AppDeps } from '../../app-deps.ts';
import { createTextAnalyzer } from '../../engines/text/index.ts';
import type { TextAnalyzer } from '../../engines/text/text-engine.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import { pendingKind } from '../generation/pending-sweep.ts';
import { brandDnaJobs, extractJob, extractJobId } from './brand-dna.jobs.ts';
import { createBrandDnaRepo } from './brand-dna.repo.ts';
import { createBrandDnaService, versionFolder } from './brand-dna.service.ts';

/**
 * Wires Brand DNA: repo, service (routes and getActiveDna), the text analyzer chosen by config
 * (LLM_BASE_URL / LLM_API_KEY / LLM_MODEL, else the local one) and the extraction job.
 */
export function createBrandDnaModule(
  deps: Pick<AppDeps, 'db' | 'storage' | 'jobs' | 'clock' | 'config' | 'usage' | 'fetcher' | 'changes'>,
  o: { analyzer?: TextAnalyzer } = {},
) {
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
  return { service, jobs, analyzer, pending };
}

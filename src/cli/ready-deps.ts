import type { Config } from '../config.ts';
import { createDeps, type Deps } from '../deps.ts';
import { openMetricsListener } from '../http/metrics-listener.ts';

/**
 * What `serve` and `worker` start from: every dependency built, the bucket there (or made,
 * S3_CREATE_BUCKET) and the Content Credentials signer ready (the operator's, or the development
 * one, made now and warned of), before anything is served or taken. A step that fails closes what
 * was opened and throws (the CLI prints its one line).
 */
export async function readyDeps(config: Config): Promise<Deps> {
  const deps = await createDeps(config);
  try {
    await deps.storage.prepare({ createBucket: config.storage.s3?.createBucket ?? false });
    await deps.provenance.ready();
    return deps;
  } catch (err) {
    await deps.close();
    throw err;
  }
}

/** Metrics, health and readiness on a port of their own when asked (ATELIER_METRICS_PORT); closes `deps` if it cannot open. */
export async function metricsListenerOf(config: Config, deps: Deps) {
  return openMetricsListener(config, deps).catch(async (err) => {
    await deps.close();
    throw err;
  });
}

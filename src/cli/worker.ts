import type { Config } from '../config.ts';
import { metricsListenerOf, readyDeps } from './ready-deps.ts';
import { JobDefinitionError } from '../jobs/types.ts';
import { createLogger } from '../adapters/log/logger.ts';
import { parse, UsageError } from './args.ts';
import { announce, type WorkerStart, workerBanner, workerStartFields } from './start-line.ts';

/**
 * `atelier worker`: consumes jobs until SIGTERM/SIGINT, then stops gracefully (running jobs get
 * the grace period, the rest go back to the queue). Meant for the scaled mode (REDIS_URL, BullMQ);
 * without REDIS_URL it runs the in-process driver against the same database, which serves a
 * `serve --no-workers` process sharing that SQLite file or PostgreSQL database.
 */
export async function worker(config: Config, argv: string[]): Promise<void> {
  const { values } = parse(argv, { queues: { type: 'string' } });
  const queues = values.queues
    ?.split(',')
    .map((q) => q.trim())
    .filter(Boolean);
  // With JSON logs every line on stdout is a log line (start-line.ts); at a terminal, words.
  const log = createLogger(config);
  if (!config.redisUrl) {
    const why =
      'atelier worker is meant for the scaled mode (REDIS_URL set: BullMQ on Redis). REDIS_URL is not set, so it\n' +
      'runs the in-process job driver against the database instead; in the embedded mode `atelier serve`\n' +
      'already runs the workers itself (unless --no-workers).';
    if (config.logFormat === 'json') log.warn(why.replaceAll('\n', ' '));
    else process.stderr.write(`${why}\n`);
  }
  const deps = await readyDeps(config);
  // A worker has no other port: its health and metrics are here when asked (ATELIER_METRICS_PORT).
  const metrics = await metricsListenerOf(config, deps);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    if (config.logFormat === 'json') log.info({ signal }, 'stopping the workers');
    else process.stdout.write(`${signal}: stopping the workers\n`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await metrics?.close();
    await deps.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  try {
    await deps.startWorkers(queues ? { queues } : {});
  } catch (err) {
    await metrics?.close();
    await deps.close();
    // A --queues entry without jobs is a usage error, not a crash.
    throw err instanceof JobDefinitionError ? new UsageError(err.message) : err;
  }
  const start: WorkerStart = { driver: deps.jobs.driver, queues, concurrency: config.workerConcurrency };
  announce(config, log, { msg: 'worker running', fields: workerStartFields(start), banner: workerBanner(start) });
}

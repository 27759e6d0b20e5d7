import type { Config } from '../config.ts';
import { databaseOf } from './server-info.ts';

/**
 * What `serve` and `worker` say once they run. With JSON logs (not a terminal, or
 * ATELIER_LOG_FORMAT=json) stdout is a log stream that collectors parse line by line, so the start
 * is one JSON log line; at a terminal it is a few lines for a person. Pure, but for `announce`.
 */

type LogLevel = Config['logLevel'];

/**
 * The level of the logger that says a process started: the start line shows under LOG_LEVEL=warn
 * or error too (as PostgreSQL's "ready to accept connections" does), only `silent` hides it.
 */
export function startLogLevel(level: LogLevel): LogLevel {
  return level === 'warn' || level === 'error' || level === 'fatal' ? 'info' : level;
}

export interface ServeStart {
  config: Pick<Config, 'publicUrl' | 'env' | 'dataDir' | 'databaseUrl'>;
  /** Job workers run in this process (not `--no-workers`). */
  workers: boolean;
  organizations: number;
  /** How the admin command is spelled where this runs. */
  cli: string;
}

/** `serve`'s start as the fields of one log line (msg `listening`); no credentials. */
export function serveStartFields(s: ServeStart): Record<string, unknown> {
  const { publicUrl } = s.config;
  return {
    url: `${publicUrl}/v1`,
    docs: `${publicUrl}/docs`,
    console: `${publicUrl}/console`,
    mcp: `${publicUrl}/mcp`,
    mode: s.config.databaseUrl ? 'scaled' : 'embedded',
    database: databaseOf(s.config),
    environment: s.config.env,
    workers: s.workers,
    ...(s.organizations === 0 ? { firstApiKey: `${s.cli} admin bootstrap` } : {}),
  };
}

/** `serve`'s start for a person at a terminal. */
export function serveBanner(s: ServeStart): string {
  const { publicUrl, databaseUrl, dataDir, env } = s.config;
  const mode = databaseUrl ? 'scaled (PostgreSQL)' : `embedded (SQLite in ${dataDir})`;
  const lines = [
    '',
    `Atelier is running on ${publicUrl}/v1 — ${mode}, environment ${env}${s.workers ? '' : ', API only (--no-workers)'}`,
    `API docs: ${publicUrl}/docs`,
    s.organizations === 0
      ? `No organization yet. Get an API key with:\n  ${s.cli} admin bootstrap`
      : `Get another API key with:\n  ${s.cli} admin bootstrap   (new organization)\n  ${s.cli} admin key create --user <userId>`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

export interface WorkerStart {
  driver: 'local' | 'bullmq';
  /** The queues consumed; undefined: all. */
  queues: string[] | undefined;
  concurrency: number;
}

/** `worker`'s start as the fields of one log line (msg `worker running`). */
export function workerStartFields(w: WorkerStart): Record<string, unknown> {
  return { driver: w.driver, queues: w.queues ?? 'all', concurrency: w.concurrency };
}

/** `worker`'s start for a person at a terminal. */
export function workerBanner(w: WorkerStart): string {
  const driver = w.driver === 'bullmq' ? 'BullMQ on Redis' : 'in-process driver on the database';
  return (
    `Atelier worker running (${driver}), queues: ${w.queues?.join(', ') ?? 'all'}, ` +
    `${w.concurrency} job(s) at once per queue. Stop with SIGTERM.\n`
  );
}

/** The part of a pino (or Fastify) logger that `announce` uses. */
export interface StartLogger {
  child(
    bindings: Record<string, unknown>,
    options: { level: LogLevel },
  ): {
    info(fields: Record<string, unknown>, msg: string): void;
  };
}

/**
 * Says that a process started: one JSON log line with `json` logs (nothing else on stdout), the
 * banner at a terminal.
 */
export function announce(
  config: Pick<Config, 'logFormat' | 'logLevel'>,
  log: StartLogger,
  line: { msg: string; fields: Record<string, unknown>; banner: string },
): void {
  if (config.logFormat === 'json') log.child({}, { level: startLogLevel(config.logLevel) }).info(line.fields, line.msg);
  else process.stdout.write(line.banner);
}

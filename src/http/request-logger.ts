import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

/** Whether the logger writes `level` (pino's loggers say; for any other, yes). */
export function levelEnabled(log: FastifyBaseLogger, level: string): boolean {
  return (log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.(level) ?? true;
}

type LogMethod = (...args: unknown[]) => void;

/**
 * A request's logger (`request.log`), made on its first use. Fastify gives every request a child
 * of the app's logger bound to its id; pino builds one by serializing the bindings, about 3 µs a
 * request (bench/http with BENCH_LOG=json), and most requests log nothing through it: their one
 * line is the request log's, written through the app's logger with the same `reqId`.
 */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;
  private readonly parent: FastifyBaseLogger;
  private readonly bindings: Bindings;
  private readonly options: ChildLoggerOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.parent = parent;
    this.bindings = bindings;
    this.options = options;
  }

  private get made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return levelEnabled(this.#child || this.options.level ? this.made : this.parent, level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }

  private call(level: Level | 'silent', args: unknown[]): void {
    (this.made[level] as LogMethod)(...args);
  }

  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }
  error(...args: unknown[]): void {
    this.call('error', args);
  }
  warn(...args: unknown[]): void {
    this.call('warn', args);
  }
  info(...args: unknown[]): void {
    this.call('info', args);
  }
  debug(...args: unknown[]): void {
    this.call('debug', args);
  }
  trace(...args: unknown[]): void {
    this.call('trace', args);
  }
  silent(...args: unknown[]): void {
    this.call('silent', args);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger made only when something logs through it. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

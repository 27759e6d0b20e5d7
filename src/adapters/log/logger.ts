import pino, { type DestinationStream, type Logger } from 'pino';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'v']);

/**
 * A pino log line (JSON) as one human line: `12:00:01 INFO  GET /v1/brands/:brandId 404 3ms
 * path=/v1/brands/b1` for a request (the route, and the path when it differs), `12:00:01 WARN
 * message key=value …` otherwise. Pure.
 */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = new Date(typeof o.time === 'number' ? o.time : Date.now()).toISOString().slice(11, 19);
  const level = (LEVELS[o.level as number] ?? 'INFO').padEnd(5);
  if (o.msg === 'request' && typeof o.path === 'string') {
    const route = typeof o.route === 'string' ? o.route : o.path;
    const path = route === o.path ? '' : ` path=${o.path}`;
    return `${time} ${level} ${o.method} ${route} ${o.statusCode} ${o.durationMs}ms${path}\n`;
  }
  const rest = Object.entries(o)
    .filter(([k]) => !OMITTED.has(k))
    .map(([k, v]) => {
      if (k === 'err' && typeof v === 'object' && v !== null) return `err=${(v as { message?: string }).message}`;
      return `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
    });
  return `${time} ${level} ${String(o.msg ?? '')}${rest.length ? ` ${rest.join(' ')}` : ''}\n`;
}

/** The settings the logger reads (LOG_LEVEL, ATELIER_LOG_FORMAT), parsed by src/config.ts. */
export interface LogSettings {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `pretty`: one short human line per event; `json`: pino's lines. */
  logFormat: 'json' | 'pretty';
}

/**
 * The process's logger: pino at the configured level, as JSON lines (`json`, production) or one
 * short human line per event (`pretty`, a terminal), on stdout unless given another destination
 * (tests). Secrets in request headers are redacted.
 */
export function createLogger(config: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] };
  if (config.logFormat === 'json') return destination ? pino(options, destination) : pino(options);
  const out = destination ?? process.stdout;
  return pino(options, { write: (line: string) => void out.write(prettyLine(line)) });
}

import pino, { type Logger } from 'pino';
import type { Config } from '../../config.ts';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'v']);

/**
 * A pino log line (JSON) as one human line: `12:00:01 INFO  POST /v1/brands 201 12ms` for a
 * request, `12:00:01 WARN  message key=value …` otherwise. Pure.
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
  if (o.msg === 'request' && typeof o.url === 'string') {
    return `${time} ${level} ${o.method} ${o.url} ${o.statusCode} ${o.ms}ms\n`;
  }
  const rest = Object.entries(o)
    .filter(([k]) => !OMITTED.has(k))
    .map(([k, v]) => {
      if (k === 'err' && typeof v === 'object' && v !== null) return `err=${(v as { message?: string }).message}`;
      return `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
    });
  return `${time} ${level} ${String(o.msg ?? '')}${rest.length ? ` ${rest.join(' ')}` : ''}\n`;
}

/** A destination for pino that writes pretty lines to stdout. */
const prettyStream = { write: (line: string) => void process.stdout.write(prettyLine(line)) };

/**
 * The process's logger: pino at the configured level, as JSON lines (`json`, production) or one
 * short human line per event (`pretty`, a terminal). Secrets in request headers are redacted.
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  const options = { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] };
  return config.logFormat === 'pretty' ? pino(options, prettyStream) : pino(options);
}

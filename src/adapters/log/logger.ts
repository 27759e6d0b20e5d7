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

/** How much JSON gathers before it is written (characters: bytes for ASCII), and the longest a line waits (ms). */
export const LOG_BUFFER = { bytes: 4096, flushMs: 100 } as const;

let stdoutSink: DestinationStream | undefined;

/**
 * Standard output for every JSON logger of the process (one stream, so lines keep their order),
 * written a few kilobytes at a time: with one line per request, a write per line cost the request
 * more than the rest of its logging (a pipe's reader woken each time; bench/http with
 * BENCH_LOG=json). A line waits at most LOG_BUFFER.flushMs, and what is gathered is written when
 * the process exits, by process.exit or an uncaught error included; a process killed with SIGKILL
 * loses at most that last tenth of a second. The lines are gathered here rather than by pino's
 * destination (its minLength), which measures the whole gathered text again at every line.
 */
function bufferedStdout(): DestinationStream {
  if (stdoutSink) return stdoutSink;
  const out = pino.destination({ dest: 1, sync: true });
  let lines: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    size = 0;
    out.write(text);
  };
  process.once('exit', () => {
    try {
      flush();
      out.flushSync();
    } catch {
      // stdout closed already (the reader went away): nothing to write to.
    }
  });
  stdoutSink = {
    write(line: string) {
      lines.push(line);
      size += line.length;
      if (size >= LOG_BUFFER.bytes) flush();
      else if (!timer) {
        timer = setTimeout(flush, LOG_BUFFER.flushMs);
        timer.unref();
      }
    },
  };
  return stdoutSink;
}

/**
 * The process's logger: pino at the configured level, as JSON lines (`json`, production) or one
 * short human line per event (`pretty`, a terminal), on stdout unless given another destination
 * (tests). Secrets in request headers are redacted.
 */
export function createLogger(config: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] };
  if (config.logFormat === 'json') return pino(options, destination ?? bufferedStdout());
  const out = destination ?? process.stdout;
  return pino(options, { write: (line: string) => void out.write(prettyLine(line)) });
}

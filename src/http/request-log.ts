import type { FastifyInstance } from 'fastify';
import { levelEnabled } from './request-logger.ts';

/**
 * One log line per request (Fastify's own two lines, "incoming request" and "request completed",
 * are off): method, route pattern, path, status and duration. In the `pretty` format (a person at a terminal:
 * `npm start`) successful requests are `debug`, so the default `info` level shows only what needs
 * a look (4xx as info, 5xx as errors); in `json` (production) every request is one `info` line.
 */
export function requestLogLevel(status: number, format: 'json' | 'pretty'): 'debug' | 'info' | 'error' {
  if (status >= 500) return 'error';
  if (format === 'pretty' && status < 400) return 'debug';
  return 'info';
}

/** What the request log line carries about one request. */
export interface RequestLogFields {
  method: string;
  /** The matched route's pattern (`/v1/brands/:brandId`), to group by; absent when none matched. */
  route?: string;
  /** The path asked for, without the query string (signed links carry their signature there). */
  path: string;
  statusCode: number;
  durationMs: number;
}

/** The request log line's fields (pure). */
export function requestLogFields(r: {
  method: string;
  url: string;
  route: string | undefined;
  statusCode: number;
  elapsedMs: number;
}): RequestLogFields {
  const q = r.url.indexOf('?');
  return {
    method: r.method,
    ...(r.route ? { route: r.route } : {}),
    path: q === -1 ? r.url : r.url.slice(0, q),
    statusCode: r.statusCode,
    durationMs: Math.round(r.elapsedMs),
  };
}

export function installRequestLog(app: FastifyInstance, o: { format: 'json' | 'pretty' }): void {
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const level = requestLogLevel(status, o.format);
    // The pretty format's 2xx lines are debug, off at the default level: no fields for nothing.
    if (!levelEnabled(request.log, level)) return done();
    // Through the app's logger with the request's id, as request.log would write it, without
    // making the request's own logger (request-logger.ts).
    app.log[level](
      {
        reqId: request.id,
        ...requestLogFields({
          method: request.method,
          url: request.url,
          route: request.routeOptions.url,
          statusCode: status,
          elapsedMs: reply.elapsedTime,
        }),
      },
      'request',
    );
    done();
  });
}

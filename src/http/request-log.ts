import type { FastifyInstance } from 'fastify';

/**
 * One log line per request (Fastify's own two lines, "incoming request" and "request completed",
 * are off): method, path, status and time. In the `pretty` format (a person at a terminal:
 * `npm start`) successful requests are `debug`, so the default `info` level shows only what needs
 * a look (4xx as info, 5xx as errors); in `json` (production) every request is one `info` line.
 */
export function requestLogLevel(status: number, format: 'json' | 'pretty'): 'debug' | 'info' | 'error' {
  if (status >= 500) return 'error';
  if (format === 'pretty' && status < 400) return 'debug';
  return 'info';
}

export function installRequestLog(app: FastifyInstance, o: { format: 'json' | 'pretty' }): void {
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    request.log[requestLogLevel(status, o.format)](
      { method: request.method, url: request.url, statusCode: status, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
}

import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route streams large bodies (uploads): only the whole-request bound applies, not the body bound. */
    longBody?: boolean;
  }
}

/** Whether a request announces a body (a length above zero, or chunks). */
export function announcesBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  if (typeof length === 'string' && /^\d+$/.test(length.trim())) return Number(length) > 0;
  return headers['transfer-encoding'] !== undefined;
}

/**
 * Slow or unread bodies do not hold a connection:
 * - an answer sent before the request's body was read (401 on a write without a key, 413, 415...)
 *   carries `Connection: close`, so Node closes the socket once the answer is out instead of
 *   reading the rest of the body for as long as the client cares to send it;
 * - a body that has not fully arrived `bodyMs` after the headers (routes other than `longBody`
 *   uploads) is answered 408 `REQUEST_TIMEOUT` and the connection closed. The whole-request bound
 *   (ATELIER_REQUEST_TIMEOUT_SECONDS) stays for uploads.
 */
export function installSlowBodyGuard(app: FastifyInstance, o: { bodyMs: number }): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || !announcesBody(raw.headers) || request.routeOptions.config.longBody) return done();
    const timer = setTimeout(() => {
      if (raw.complete || reply.sent) return;
      request.log.info({ bodyMs: o.bodyMs }, 'request body too slow; closing');
      void reply
        .code(408)
        .header('connection', 'close')
        .type('application/json; charset=utf-8')
        .serializer(JSON.stringify)
        .send({
          requestId: request.id,
          error: { code: 'REQUEST_TIMEOUT', message: `The request body did not arrive within ${o.bodyMs / 1000} s` },
        });
    }, o.bodyMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && announcesBody(request.raw.headers)) reply.header('connection', 'close');
    done(null, payload);
  });
}

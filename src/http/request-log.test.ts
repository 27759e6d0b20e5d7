import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyLine } from '../adapters/log/logger.ts';
import { installRequestLog, requestLogFields, requestLogLevel } from './request-log.ts';

describe('request log', () => {
  it('is quiet at a terminal: successes at debug, client errors at info, server errors as errors', () => {
    expect(requestLogLevel(200, 'pretty')).toBe('debug');
    expect(requestLogLevel(304, 'pretty')).toBe('debug');
    expect(requestLogLevel(404, 'pretty')).toBe('info');
    expect(requestLogLevel(200, 'json')).toBe('info');
    expect(requestLogLevel(503, 'json')).toBe('error');
  });

  it('names the method, the route pattern, the path without its query, the status and the duration', () => {
    expect(
      requestLogFields({
        method: 'GET',
        url: '/v1/blobs/a/b.png?expires=1&signature=secret',
        route: '/v1/blobs/*',
        statusCode: 200,
        elapsedMs: 12.6,
      }),
    ).toEqual({ method: 'GET', route: '/v1/blobs/*', path: '/v1/blobs/a/b.png', statusCode: 200, durationMs: 13 });
    // No route matched (a 404 of the router): no route field.
    expect(
      requestLogFields({ method: 'POST', url: '/v1/nothing', route: undefined, statusCode: 404, elapsedMs: 0.2 }),
    ).toEqual({ method: 'POST', path: '/v1/nothing', statusCode: 404, durationMs: 0 });
  });

  it('prints one short human line per event', () => {
    const t = Date.parse('2026-11-26T12:00:01Z');
    const request = { level: 30, time: t, msg: 'request', method: 'GET', statusCode: 404, durationMs: 3 };
    expect(prettyLine(JSON.stringify({ ...request, route: '/v1/brands/:brandId', path: '/v1/brands/b1' }))).toBe(
      '12:00:01 INFO  GET /v1/brands/:brandId 404 3ms path=/v1/brands/b1\n',
    );
    expect(prettyLine(JSON.stringify({ ...request, route: '/v1/brands', path: '/v1/brands' }))).toBe(
      '12:00:01 INFO  GET /v1/brands 404 3ms\n',
    );
    expect(prettyLine(JSON.stringify({ ...request, path: '/v1/nothing-here' }))).toBe(
      '12:00:01 INFO  GET /v1/nothing-here 404 3ms\n',
    );
    expect(
      prettyLine(JSON.stringify({ level: 40, time: t, pid: 1, msg: 'slow', jobId: 'j1', err: { message: 'boom' } })),
    ).toBe('12:00:01 WARN  slow jobId=j1 err=boom\n');
    expect(prettyLine('not json')).toBe('not json\n');
  });

  /** An app with the real logger and request log hook, writing its log lines into `lines`. */
  async function appLogging(format: 'json' | 'pretty', logLevel: 'debug' | 'info' = 'debug') {
    const lines: string[] = [];
    const app = Fastify({
      loggerInstance: createLogger(
        { logLevel, logFormat: format },
        { write: (line: string) => void lines.push(line) },
      ) as FastifyBaseLogger,
      logController: new LogController({ disableRequestLogging: true }),
    });
    installRequestLog(app, { format });
    await app.register(
      async (v1) => {
        v1.get('/brands/:brandId', async () => ({ ok: true }));
      },
      { prefix: '/v1' },
    );
    return { app, lines };
  }

  it('logs each request through the app with its route pattern, as JSON and at a terminal', async () => {
    const json = await appLogging('json');
    expect((await json.app.inject({ url: '/v1/brands/b_123?fields=name' })).statusCode).toBe(200);
    expect((await json.app.inject({ method: 'DELETE', url: '/v1/nothing' })).statusCode).toBe(404);
    const [ok, missing] = json.lines.map((l) => JSON.parse(l));
    expect(ok).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/v1/brands/:brandId',
      path: '/v1/brands/b_123',
      statusCode: 200,
    });
    expect(ok.durationMs).toEqual(expect.any(Number));
    expect(ok.reqId).toEqual(expect.any(String));
    expect(missing).toMatchObject({ method: 'DELETE', path: '/v1/nothing', statusCode: 404 });
    expect(missing).not.toHaveProperty('route');
    await json.app.close();

    const pretty = await appLogging('pretty');
    await pretty.app.inject({ url: '/v1/brands/b_123' });
    expect(pretty.lines).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d DEBUG GET \/v1\/brands\/:brandId 200 \d+ms path=\/v1\/brands\/b_123\n$/),
    ]);
    await pretty.app.close();

    // At a terminal at the default level, what went well is not shown; what did not is.
    const quiet = await appLogging('pretty', 'info');
    await quiet.app.inject({ url: '/v1/brands/b_123' });
    await quiet.app.inject({ url: '/v1/nothing' });
    expect(quiet.lines).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d INFO {2}GET \/v1\/nothing 404 \d+ms\n$/)]);
    await quiet.app.close();
  });
});

import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../adapters/log/logger.ts';
import { installRequestLog } from './request-log.ts';
import { levelEnabled, requestLoggerFactory } from './request-logger.ts';

/** An app as buildApp makes it (real pino, request log, request loggers made on first use). */
async function app(logLevel: 'info' | 'debug' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const a = Fastify({
    loggerInstance: createLogger(
      { logLevel, logFormat: 'json' },
      {
        write: (line: string) => void lines.push(JSON.parse(line)),
      },
    ) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLoggerFactory,
  });
  installRequestLog(a, { format: 'json' });
  a.get('/quiet', async () => 'ok');
  a.get('/talks', async (request) => {
    request.log.info({ step: 1 }, 'first');
    request.log.child({ part: 'inner' }).warn('second');
    request.log.debug('not at info');
    return { enabled: { info: levelEnabled(request.log, 'info'), debug: levelEnabled(request.log, 'debug') } };
  });
  a.get('/warn-only', { logLevel: 'warn' }, async (request) => {
    request.log.info('dropped: the route logs warnings only');
    request.log.warn('kept');
    return { level: request.log.level, info: levelEnabled(request.log, 'info') };
  });
  a.get('/fails', async (request) => {
    request.log.error(new Error('boom'), 'it failed');
    return 'ok';
  });
  return { app: a, lines };
}

describe('request loggers made on first use', () => {
  it('writes what a request logs with its reqId, children and levels included', async () => {
    const { app: a, lines } = await app();
    const res = await a.inject({ url: '/talks' });
    expect(res.json()).toEqual({ enabled: { info: true, debug: false } });
    const reqId = lines[0]?.reqId;
    expect(reqId).toEqual(expect.any(String));
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, reqId, step: 1, msg: 'first' }),
      expect.objectContaining({ level: 40, reqId, part: 'inner', msg: 'second' }),
      expect.objectContaining({ level: 30, reqId, msg: 'request', route: '/talks', statusCode: 200 }),
    ]);
    await a.close();
  });

  it("keeps a route's own level", async () => {
    const { app: a, lines } = await app('debug');
    const res = await a.inject({ url: '/warn-only' });
    expect(res.json()).toEqual({ level: 'warn', info: false });
    // Its request line (info) is below the route's level too, as it was through request.log.
    expect(lines.map((l) => l.msg)).toEqual(['kept']);
    await a.close();
  });

  it('serializes errors as pino does', async () => {
    const { app: a, lines } = await app();
    await a.inject({ url: '/fails' });
    expect(lines[0]).toMatchObject({ level: 50, msg: 'it failed', err: { type: 'Error', message: 'boom' } });
    await a.close();
  });

  it('writes the request line with the same reqId as the request, and one line per request', async () => {
    const { app: a, lines } = await app();
    await a.inject({ url: '/quiet' });
    await a.inject({ url: '/quiet' });
    expect(lines).toHaveLength(2);
    expect(lines[0]!.reqId).not.toBe(lines[1]!.reqId);
    expect(Object.keys(lines[0]!)).toEqual([
      'level',
      'time',
      'pid',
      'hostname',
      'reqId',
      'method',
      'route',
      'path',
      'statusCode',
      'durationMs',
      'msg',
    ]);
    await a.close();
  });
});

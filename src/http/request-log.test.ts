import { describe, expect, it } from 'vitest';
import { prettyLine } from '../adapters/log/logger.ts';
import { requestLogLevel } from './request-log.ts';

describe('request log', () => {
  it('is quiet at a terminal: successes at debug, client errors at info, server errors as errors', () => {
    expect(requestLogLevel(200, 'pretty')).toBe('debug');
    expect(requestLogLevel(304, 'pretty')).toBe('debug');
    expect(requestLogLevel(404, 'pretty')).toBe('info');
    expect(requestLogLevel(200, 'json')).toBe('info');
    expect(requestLogLevel(503, 'json')).toBe('error');
  });

  it('prints one short human line per event', () => {
    const t = Date.parse('2026-11-26T12:00:01Z');
    expect(
      prettyLine(
        JSON.stringify({
          level: 30,
          time: t,
          msg: 'request',
          method: 'POST',
          url: '/v1/brands',
          statusCode: 201,
          ms: 12,
        }),
      ),
    ).toBe('12:00:01 INFO  POST /v1/brands 201 12ms\n');
    expect(
      prettyLine(JSON.stringify({ level: 40, time: t, pid: 1, msg: 'slow', jobId: 'j1', err: { message: 'boom' } })),
    ).toBe('12:00:01 WARN  slow jobId=j1 err=boom\n');
    expect(prettyLine('not json')).toBe('not json\n');
  });
});

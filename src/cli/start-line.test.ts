import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  announce,
  type ServeStart,
  serveBanner,
  serveStartFields,
  startLogLevel,
  workerBanner,
  workerStartFields,
} from './start-line.ts';

const scaled: ServeStart = {
  config: {
    publicUrl: 'https://atelier.example',
    env: 'prod',
    dataDir: '/data',
    databaseUrl: 'postgres://atelier:s3cret@db:5432/atelier',
  },
  workers: false,
  organizations: 0,
  cli: 'atelier',
};

describe('what serve and worker say once they run', () => {
  afterEach(() => vi.restoreAllMocks());

  it('serve: one log line of fields, without credentials', () => {
    expect(serveStartFields(scaled)).toEqual({
      url: 'https://atelier.example/v1',
      docs: 'https://atelier.example/docs',
      console: 'https://atelier.example/console',
      mcp: 'https://atelier.example/mcp',
      mode: 'scaled',
      database: 'PostgreSQL postgres://db:5432/atelier',
      environment: 'prod',
      workers: false,
      firstApiKey: 'atelier admin bootstrap',
    });
    const embedded = { ...scaled, config: { ...scaled.config, databaseUrl: undefined }, organizations: 2 };
    expect(serveStartFields(embedded)).toMatchObject({ mode: 'embedded', database: 'SQLite /data/atelier.db' });
    expect(serveStartFields(embedded)).not.toHaveProperty('firstApiKey');
  });

  it('serve and worker: words for a person at a terminal', () => {
    expect(serveBanner(scaled)).toBe(
      '\nAtelier is running on https://atelier.example/v1 — scaled (PostgreSQL), environment prod, API only (--no-workers)\n' +
        'API docs: https://atelier.example/docs\nNo organization yet. Get an API key with:\n  atelier admin bootstrap\n\n',
    );
    const w = { driver: 'bullmq' as const, queues: ['media', 'generation'], concurrency: 2 };
    expect(workerBanner(w)).toBe(
      'Atelier worker running (BullMQ on Redis), queues: media, generation, 2 job(s) at once per queue. Stop with SIGTERM.\n',
    );
    expect(workerStartFields({ ...w, queues: undefined })).toEqual({ driver: 'bullmq', queues: 'all', concurrency: 2 });
  });

  it('the start line shows at every level but silent', () => {
    expect(startLogLevel('error')).toBe('info');
    expect(startLogLevel('warn')).toBe('info');
    expect(startLogLevel('debug')).toBe('debug');
    expect(startLogLevel('silent')).toBe('silent');
  });

  it('announces as one JSON log line with JSON logs, with nothing else on stdout; as the banner at a terminal', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const lines: unknown[] = [];
    const log = {
      child: (_: Record<string, unknown>, o: { level: string }) => ({
        info: (fields: Record<string, unknown>, msg: string) => lines.push({ level: o.level, msg, ...fields }),
      }),
    };
    const line = { msg: 'listening', fields: { url: 'u' }, banner: 'Atelier is running\n' };
    announce({ logFormat: 'json', logLevel: 'warn' }, log, line);
    expect(lines).toEqual([{ level: 'info', msg: 'listening', url: 'u' }]);
    expect(write).not.toHaveBeenCalled();
    announce({ logFormat: 'pretty', logLevel: 'info' }, log, line);
    expect(write).toHaveBeenCalledWith('Atelier is running\n');
    expect(lines).toHaveLength(1);
  });
});

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { createDeps } from '../../deps.ts';
import { FetchError } from './fetcher.ts';

/** The app's fetcher follows ATELIER_ALLOW_PRIVATE_FETCH: blocked by default, allowed when set. */
describe('deps.fetcher and ATELIER_ALLOW_PRIVATE_FETCH', () => {
  let server: http.Server;
  let origin: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('local page'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function fetchWith(env: Record<string, string>) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-fetch-'));
    const deps = await createDeps(loadConfig({ LOG_LEVEL: 'silent', ATELIER_DATA_DIR: dataDir, ...env }));
    try {
      return await deps.fetcher.fetch(origin).then(
        (res) => res.body.toString(),
        (err: unknown) => (err instanceof FetchError ? err.code : err),
      );
    } finally {
      await deps.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it('blocks a local address by default and reaches it with ATELIER_ALLOW_PRIVATE_FETCH=1', async () => {
    expect(await fetchWith({})).toBe('BLOCKED_ADDRESS');
    expect(await fetchWith({ ATELIER_ALLOW_PRIVATE_FETCH: '1' })).toBe('local page');
  });
});

import path from 'node:path';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { freePort } from '../../test/helpers/assets.ts';

/** The shared product photo the SDK and CLI tests upload. */
export const CAP_PNG = path.resolve(
  import.meta.dirname,
  '../../../shared/fixtures/product-images/solidus_cap_red_1.png',
);

export interface RealServer {
  t: TestApp;
  baseUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * A real Atelier listening on 127.0.0.1 (SQLite, local engines, workers running), with its public
 * URL set to the listening address so signed upload and download links point back to it.
 */
export async function startServer(): Promise<RealServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await createTestApp('sqlite', {
    env: { PORT: String(port), ATELIER_PUBLIC_URL: baseUrl },
    jobTuning: { stopGraceMs: 1000 },
  });
  await t.app.listen({ host: '127.0.0.1', port });
  await t.deps.startWorkers();
  const { apiKey } = await t.bootstrap();
  return { t, baseUrl, apiKey, close: () => t.close() };
}

export const brandBody = (name = 'Solidus') => ({
  name,
  industry: 'Apparel',
  description: 'Caps and totes for city walkers.',
  mission: 'Make everyday gear that lasts.',
  values: ['durability'],
  tone: ['Friendly' as const],
  voice: ['plain'],
});

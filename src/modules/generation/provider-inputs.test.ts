import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../adapters/storage/local.storage.ts';
import { systemClock } from '../../clock.ts';
import { createStorageInputHost, providerInputsPurgeJob } from './provider-inputs.ts';

const dirs: string[] = [];
function storage(publicUrl: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'inputs-'));
  dirs.push(root);
  return createLocalStorage({ root, publicUrl, signingSecret: 'x'.repeat(32), clock: systemClock });
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');
const NOW = () => new Date('2026-11-26T10:00:00Z');

describe('provider input links from our storage', () => {
  it('auto: no link (and nothing stored) when the public URL is localhost or private', async () => {
    for (const url of ['http://localhost:8080', 'http://192.168.1.5:8080', 'http://atelier.internal']) {
      const s = storage(url);
      const host = createStorageInputHost(s, { mode: 'auto', now: NOW });
      expect(await host?.publish(PNG, { contentType: 'image/png', ttlSeconds: 3600 })).toBeUndefined();
      expect(await s.head('provider-inputs/2026-11-26/x.png')).toBeUndefined();
    }
  });

  it('auto with a public address, or on: a signed link to the stored bytes under the day’s folder', async () => {
    for (const [url, mode] of [
      ['https://atelier.acme.io', 'auto'],
      ['http://localhost:8080', 'on'],
    ] as const) {
      const s = storage(url);
      const link = await createStorageInputHost(s, { mode, now: NOW })?.publish(PNG, {
        contentType: 'image/png',
        ttlSeconds: 3600,
      });
      expect(link).toMatch(new RegExp(`^${url}/v1/blobs/provider-inputs/2026-11-26/[0-9a-f]{32}\\.png\\?.*signature=`));
      const key = new URL(link as string).pathname.replace('/v1/blobs/', '');
      expect(await s.head(key)).toEqual({ size: PNG.length, contentType: 'image/png' });
      // The same bytes again: the same link's object, stored once.
      let puts = 0;
      const counted = {
        ...s,
        put: (...a: Parameters<typeof s.put>) => {
          puts += 1;
          return s.put(...a);
        },
      } as typeof s;
      await createStorageInputHost(counted, { mode, now: NOW })?.publish(PNG, {
        contentType: 'image/png',
        ttlSeconds: 60,
      });
      expect(puts).toBe(0);
    }
  });

  it('off: no host at all', () => {
    expect(createStorageInputHost(storage('https://atelier.acme.io'), { mode: 'off' })).toBeUndefined();
  });

  it('the purge removes the folders of past days and keeps today’s and yesterday’s', async () => {
    const s = storage('https://atelier.acme.io');
    for (const d of ['2026-11-26', '2026-11-25', '2026-11-24', '2026-11-18']) {
      await s.put(`provider-inputs/${d}/a.png`, PNG, { contentType: 'image/png' });
    }
    await providerInputsPurgeJob({ storage: s, now: NOW }).handler({} as never, {} as never);
    const kept = [];
    for (const d of ['2026-11-26', '2026-11-25', '2026-11-24', '2026-11-18']) {
      if (await s.head(`provider-inputs/${d}/a.png`)) kept.push(d);
    }
    expect(kept).toEqual(['2026-11-26', '2026-11-25']);
  });
});

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/app.ts';
import { eventually, freePort, texturedJpeg } from '../helpers/assets.ts';
import { atelier, cleanEnv, healthy, kill, type Proc, run } from '../helpers/processes.ts';

/**
 * Graceful shutdown under load, with a real server process on the Node.js running the tests
 * (CI: 24, then 22): clients keep creating, updating and reading brands and uploading images (so
 * processing jobs run) while the server gets SIGTERM. It must exit 0 with nothing printed of a
 * native failure, and after a restart on the same data every write the server acknowledged is
 * there and every confirmed upload finishes processing.
 */
const SLOW = 180_000;

// biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
type Json = any;

interface Acked {
  /** brand id → the description of its last acknowledged update (or creation). */
  brands: Map<string, string>;
  /** assets whose confirm-upload was acknowledged. */
  assets: string[];
  /** requests answered before the server went away, by kind. */
  answered: Record<string, number>;
}

class ShuttingDown extends Error {}

/** A request that reached the server after its close began: the one 503 body, then the loop ends. */
function refusedWhileClosing(text: string): never {
  expect(JSON.parse(text).error.code, text).toBe('SERVICE_UNAVAILABLE');
  throw new ShuttingDown();
}

async function loadLoop(base: string, apiKey: string, worker: number, stop: () => boolean, acked: Acked) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const call = async (
    kind: string,
    url: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: Json; etag: string | null }> => {
    const res = await fetch(`${base}/v1${url}`, { ...init, headers: { ...headers, ...(init.headers as object) } });
    const text = await res.text();
    if (res.status === 503 && stop()) refusedWhileClosing(text);
    acked.answered[kind] = (acked.answered[kind] ?? 0) + 1;
    return { status: res.status, body: text ? JSON.parse(text) : null, etag: res.headers.get('etag') };
  };
  const image = await texturedJpeg(640, 480, worker + 1, 85);
  for (let i = 0; !stop(); i++) {
    try {
      const description = `Brand ${worker}-${i}, created under load.`;
      const created = await call('create', '/brands', {
        method: 'POST',
        body: JSON.stringify({
          name: `Load ${worker}-${i}`,
          industry: 'Testing',
          description,
          mission: '',
          values: [],
          tone: [],
          voice: [],
        }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      acked.brands.set(id, description);
      const read = await call('read', `/brands/${id}`);
      expect(read.status).toBe(200);
      const updatedDescription = `Brand ${worker}-${i}, updated under load.`;
      const updated = await call('update', `/brands/${id}`, {
        method: 'PUT',
        headers: { 'if-match': read.etag ?? '*' },
        body: JSON.stringify({ description: updatedDescription }),
      });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      acked.brands.set(id, updatedDescription);
      expect((await call('list', '/brands?limit=5')).status).toBe(200);
      if (i % 2 === 0) {
        const init = await call('upload', '/assets/initiate-upload', {
          method: 'POST',
          body: JSON.stringify({
            brandId: id,
            files: [{ fileName: 'p.jpg', fileType: 'image/jpeg', fileSize: image.length }],
          }),
        });
        expect(init.status).toBe(201);
        const slot = init.body.uploads[0];
        const put = await fetch(slot.uploadUrl, {
          method: slot.uploadMethod,
          headers: slot.uploadHeaders,
          body: image,
        });
        if (put.status === 503 && stop()) refusedWhileClosing(await put.text());
        expect(put.status).toBe(200);
        const confirmed = await call('confirm', '/assets/confirm-upload', {
          method: 'POST',
          body: JSON.stringify({ uploadId: slot.uploadId }),
        });
        expect(confirmed.status).toBe(200);
        acked.assets.push(slot.assetId);
      }
    } catch (err) {
      // Once the server is going away, a refused or reset connection is expected; anything
      // else (a wrong status while it was up) fails the test.
      if (stop() && (err instanceof TypeError || err instanceof ShuttingDown)) return;
      throw err;
    }
  }
}

describe('graceful shutdown under load (real process)', () => {
  it(
    'SIGTERM during mixed reads, writes and jobs exits 0 and loses nothing',
    async () => {
      const dataDir = tmpDir('atelier-shutdown-');
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const env = cleanEnv({
        ATELIER_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        ATELIER_PUBLIC_URL: base,
      });
      const procs: Proc[] = [];
      try {
        const { apiKey } = JSON.parse(await run(['admin', 'bootstrap', '--json'], env));
        const server = atelier(['serve'], env);
        procs.push(server);
        await healthy(base, server);

        const acked: Acked = { brands: new Map(), assets: [], answered: {} };
        let stopping = false;
        // Each loop's failure is kept (not left unhandled while the server exits) and checked below.
        const loops = Array.from({ length: 6 }, (_, w) =>
          loadLoop(base, apiKey, w, () => stopping, acked).then(
            () => null,
            (err: unknown) => err,
          ),
        );
        // SIGTERM once the load is well under way and processing jobs have been queued.
        await eventually(
          async () => (acked.assets.length >= 6 && acked.brands.size >= 20) || undefined,
          'load',
          60_000,
          20,
        );
        stopping = true;
        server.child.kill('SIGTERM');
        const code = await server.exited;
        expect(await Promise.all(loops)).toEqual(loops.map(() => null));
        expect(code, server.output()).toBe(0);
        expect(server.output()).not.toMatch(/Assertion failed|Native stack trace|FATAL ERROR|Segmentation fault/);
        expect(acked.answered.create).toBeGreaterThanOrEqual(20);

        // Restart on the same data: every acknowledged write is there, every upload completes.
        const again = atelier(['serve'], env);
        procs.push(again);
        await healthy(base, again);
        const auth = { authorization: `Bearer ${apiKey}` };
        for (const [id, description] of acked.brands) {
          const res = await fetch(`${base}/v1/brands/${id}`, { headers: auth });
          expect(res.status, id).toBe(200);
          expect(((await res.json()) as Json).description).toBe(description);
        }
        await eventually(
          async () => {
            const statuses = await Promise.all(
              acked.assets.map(
                async (id): Promise<string> =>
                  ((await (await fetch(`${base}/v1/assets/${id}`, { headers: auth })).json()) as Json).status,
              ),
            );
            expect(statuses.filter((s) => s === 'failed')).toEqual([]);
            return statuses.every((s) => s === 'complete') || undefined;
          },
          'every confirmed upload to complete after the restart',
          90_000,
          250,
        );
        await kill(again, 'SIGTERM');
        expect(await again.exited).toBe(0);
      } finally {
        for (const p of procs) await kill(p, 'SIGKILL');
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { redisAvailable } from '../../src/jobs/jobs.test-harness.ts';
import { dbKinds, tmpDir } from '../helpers/app.ts';
import { eventually, freePort } from '../helpers/assets.ts';
import { productFixture } from '../helpers/generation.ts';
import { apiClient, atelier, cleanEnv, healthy, kill, type Proc, run, workerReady } from '../helpers/processes.ts';
import { withScaledStack } from '../helpers/scaled.ts';

/**
 * Crash and load proof of generation, with real processes. Scaled: PostgreSQL, BullMQ on Redis, an
 * S3-compatible server, two API nodes and two workers; forges, a Brand DNA version, an extraction
 * and a video are submitted through both API nodes, one worker is SIGKILLed while variations run,
 * and every job must finish exactly once: each forge has its four variations, each completed
 * variation one asset with one original, one thumbnail and one set of layers, and the quota ledger holds exactly one
 * committed unit per completed variation and nothing left reserved. Embedded: the same across a
 * server SIGKILL and restart on the same data folder (SQLite, local blobs). Leases are 5 s.
 */
const SLOW = 300_000;
const redis = await redisAvailable();
// biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
type Json = any;

interface Submitted {
  brandId: string;
  productId: string;
  forgeIds: string[];
  versionId: string;
  extractionId: string;
  groupId: string;
}

/** One forge per API node; four variations each. */
const FORGE_PROMPTS = ['on a wooden table', 'on white marble'];
const VARIATIONS = FORGE_PROMPTS.length * 4;

/**
 * A product, then two forges (eight variations), a DNA version, an extraction and a video,
 * alternating API nodes: each API node takes a forge, and the variations keep both workers busy
 * when one is killed.
 */
async function submit(bases: string[], apiKey: string): Promise<Submitted> {
  const [a, b = a] = bases.map((x) => apiClient(x, apiKey)) as [
    ReturnType<typeof apiClient>,
    ReturnType<typeof apiClient>?,
  ];
  const brand = await a.post('/brands', {
    name: 'Crash',
    industry: 'Testing',
    description: 'A brand for the generation crash test.',
    mission: '',
    values: [],
    tone: [],
    voice: [],
  });
  const bytes = productFixture('solidus_cap_red_1.png');
  const { uploads } = await b.post('/assets/initiate-upload', {
    brandId: brand.id,
    files: [{ fileName: 'cap.png', fileType: 'image/png', fileSize: bytes.length }],
  });
  const slot = uploads[0];
  const put = await fetch(slot.uploadUrl, { method: slot.uploadMethod, headers: slot.uploadHeaders, body: bytes });
  expect(put.status).toBe(200);
  await a.post('/assets/confirm-upload', { uploadId: slot.uploadId });
  await eventually(
    async () => (await b.get(`/assets/${slot.assetId}`)).status === 'complete' || undefined,
    'the product to be processed',
    90_000,
    100,
  );
  const forgeIds: string[] = [];
  for (const [i, prompt] of FORGE_PROMPTS.entries()) {
    const api = i % 2 ? b : a;
    const forge = await api.post(`/brands/${brand.id}/scene-forges`, {
      blendingPrompt: `The cap ${prompt}`,
      promptIsEnhanced: false,
      aspectRatio: '4:3',
      productAssetIds: [slot.assetId],
    });
    forgeIds.push(forge.sceneForgeId);
  }
  const version = await b.post(`/brands/${brand.id}/brand-dna/versions`, { name: 'v1', assetIds: [slot.assetId] });
  const extraction = await a.post('/assets/extract-from-url', { brandId: brand.id, url: 'https://example.invalid/p' });
  const video = await b.post(`/brands/${brand.id}/generate-video`, {
    startImageAssetId: slot.assetId,
    userPrompts: ['Slow push-in'],
    dimension: { width: 456, height: 256 },
    model: 'video-model-7',
    duration: 2,
  });
  return {
    brandId: brand.id,
    productId: slot.assetId,
    forgeIds,
    versionId: version.data.versionId,
    extractionId: extraction.extractionId,
    groupId: video.data[0].generatedVideosGroupId,
  };
}

/** SIGKILLs `victim` as soon as a variation of the first forge is processing. */
async function killMidway(base: string, apiKey: string, s: Submitted, victim: Proc) {
  const api = apiClient(base, apiKey);
  await eventually(
    async () => {
      const forge = await api.get(`/scene-forges/${s.forgeIds[0]}`);
      return forge.variations.some((v: Json) => v.status === 'processing') || undefined;
    },
    'a variation to be processing',
    90_000,
    20,
  );
  await kill(victim, 'SIGKILL');
}

/** Everything terminal; each forge with exactly its four variations, all completed. */
async function settleAll(base: string, apiKey: string, s: Submitted) {
  const api = apiClient(base, apiKey);
  const terminal = ['completed', 'failed', 'ready'];
  const forges = await eventually(
    async () => {
      const all = await Promise.all(s.forgeIds.map((id) => api.get(`/scene-forges/${id}`)));
      const others = [
        (await api.get(`/brands/${s.brandId}/brand-dna/versions/${s.versionId}`)).data.status,
        (await api.get(`/assets/extract-from-url/${s.extractionId}`)).status,
        (await api.get(`/generated-videos-groups/${s.groupId}`)).status,
      ];
      return all.every((f) => terminal.includes(f.status)) && others.every((x) => terminal.includes(x))
        ? all
        : undefined;
    },
    'every job to finish after the crash',
    180_000,
    250,
  );
  for (const f of forges) {
    expect(f.status, JSON.stringify(f)).toBe('completed');
    expect(f.variations).toHaveLength(4);
    expect(f.variations.map((v: Json) => v.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(new Set(f.variations.map((v: Json) => v.asset.assetId)).size).toBe(4);
  }
  expect((await api.get(`/brands/${s.brandId}/brand-dna/versions/${s.versionId}`)).data.status).toBe('ready');
  expect((await api.get(`/generated-videos-groups/${s.groupId}`)).status).toBe('completed');
  return forges.flatMap((f: Json) => f.variations.map((v: Json) => v.asset.assetId as string));
}

/** The ledger: one committed unit per completed variation and per run, nothing left reserved. */
function checkLedger(rows: { pool: string; state: string; amount: number }[]) {
  const by = (pool: string, state: string) =>
    rows.filter((r) => r.pool === pool && r.state === state).reduce((n, r) => n + Number(r.amount), 0);
  expect(
    rows.filter((r) => r.state === 'reserved'),
    JSON.stringify(rows),
  ).toEqual([]);
  expect(by('image_generations', 'committed')).toBe(VARIATIONS);
  expect(by('video_seconds', 'committed')).toBe(2);
  expect(by('brand_dna_extractions', 'committed')).toBe(1);
}

describe('crash safety of generation (real processes, SIGKILL)', () => {
  it.runIf(redis && dbKinds().includes('postgres'))(
    'scaled: two API nodes and two workers, one worker killed mid-variation — every job done exactly once',
    () =>
      withScaledStack('gencrash', async ({ base, env, apiKey, organizationId, s3, worker, start }) => {
        const port2 = await freePort();
        const base2 = `http://127.0.0.1:${port2}`;
        // A second API node on a port of its own (the stack's `start` shares the first one's).
        const second = atelier(['serve', '--no-workers'], { ...env, PORT: String(port2), ATELIER_PUBLIC_URL: base2 });
        const worker2 = start(['worker']);
        try {
          await Promise.all([healthy(base2, second), workerReady(worker2)]);
          const s = await submit([base, base2], apiKey);
          await killMidway(base2, apiKey, s, worker);
          const assetIds = await settleAll(base, apiKey, s);

          const dbUrl = env.DATABASE_URL as string;
          const db = new pg.Client({ connectionString: dbUrl });
          await db.connect();
          try {
            const images = await db.query(
              'SELECT scene_forge_id, count(*)::int AS n FROM generated_images GROUP BY scene_forge_id',
            );
            expect(images.rows.map((r) => r.n)).toEqual(FORGE_PROMPTS.map(() => 4));
            const generated = await db.query(
              "SELECT count(*)::int AS n FROM assets WHERE origin = 'generated' AND id = ANY($1)",
              [assetIds],
            );
            expect(generated.rows[0].n).toBe(VARIATIONS);
            const ledger = await db.query(
              'SELECT pool, state, amount FROM usage_reservations WHERE organization_id = $1',
              [organizationId],
            );
            checkLedger(ledger.rows);
          } finally {
            await db.end();
          }
          const s3c = new S3Client({
            endpoint: s3.endpoint,
            region: s3.region,
            forcePathStyle: true,
            credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
          });
          for (const id of assetIds) {
            const listed = await s3c.send(
              new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `orgs/${organizationId}/assets/${id}/` }),
            );
            // The original, its thumbnail and the scene's layers for videos, each once.
            expect((listed.Contents ?? []).map((o) => o.Key?.split('/').pop()).sort(), id).toEqual([
              'info.json',
              'original',
              'plate.png',
              'product.png',
              'thumbnail.webp',
            ]);
          }
          s3c.destroy();
        } finally {
          await kill(second, 'SIGTERM');
        }
      }),
    SLOW,
  );

  it(
    'embedded: the server killed mid-variation and restarted on the same data — every job done exactly once',
    async () => {
      const dataDir = tmpDir('atelier-gencrash-');
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
        const { apiKey, organizationId } = JSON.parse(await run(['admin', 'bootstrap', '--json'], env));
        const first = atelier(['serve'], env);
        procs.push(first);
        await healthy(base, first);
        const s = await submit([base], apiKey);
        await killMidway(base, apiKey, s, first);
        const second = atelier(['serve'], env);
        procs.push(second);
        await healthy(base, second);
        const assetIds = await settleAll(base, apiKey, s);

        const db = new Database(path.join(dataDir, 'atelier.db'), { readonly: true });
        try {
          const images = db
            .prepare('SELECT scene_forge_id, count(*) AS n FROM generated_images GROUP BY scene_forge_id')
            .all() as { n: number }[];
          expect(images.map((r) => r.n)).toEqual(FORGE_PROMPTS.map(() => 4));
          const ledger = db
            .prepare('SELECT pool, state, amount FROM usage_reservations WHERE organization_id = ?')
            .all(organizationId) as { pool: string; state: string; amount: number }[];
          checkLedger(ledger);
        } finally {
          db.close();
        }
        for (const id of assetIds) {
          const folder = path.join(dataDir, 'blobs', 'orgs', organizationId, 'assets', id);
          // The local store keeps each object as `<name>~` with its metadata in `<name>~meta`.
          expect(fs.readdirSync(folder).sort(), id).toEqual([
            'layers',
            'original~',
            'original~meta',
            'thumbnail.webp~',
            'thumbnail.webp~meta',
          ]);
          expect(fs.readdirSync(path.join(folder, 'layers')).sort(), id).toEqual([
            'info.json~',
            'info.json~meta',
            'plate.png~',
            'plate.png~meta',
            'product.png~',
            'product.png~meta',
          ]);
        }
      } finally {
        for (const p of procs) await kill(p, 'SIGTERM');
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});

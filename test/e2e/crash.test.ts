import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable } from '../../src/jobs/jobs.test-harness.ts';
import { makeVideo } from '../fixtures/media/generate.ts';
import { dbKinds, tmpDir } from '../helpers/app.ts';
import { eventually, freePort, texturedJpeg, type UploadSlot } from '../helpers/assets.ts';
import { TEST_REDIS_URL } from '../helpers/pg.ts';
import { atelier, cleanEnv, healthy, kill, type Proc, run, workerReady } from '../helpers/processes.ts';
import { withScaledStack } from '../helpers/scaled.ts';

/**
 * Crash safety of asset processing, with real processes (`node src/main.ts …`):
 * files are uploaded and confirmed, the process doing the processing is killed with SIGKILL while
 * jobs run, another is started on the same data, and every asset must end `complete` exactly once
 * (version 2: one processing result written; one thumbnail; the original's bytes intact).
 * Leases are 5 s (ATELIER_JOB_LEASE_SECONDS) so a dead process's jobs come back quickly.
 */
const SLOW = 240_000;
const redis = await redisAvailable();

interface TestFile {
  name: string;
  type: string;
  bytes: Buffer;
  width: number;
  height: number;
}

type Slot = Pick<UploadSlot, 'uploadId' | 'assetId' | 'uploadUrl' | 'uploadMethod' | 'uploadHeaders'>;
// biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
const getJson = async (url: string, headers: Record<string, string>): Promise<any> =>
  (await fetch(url, { headers })).json();

const sha = (b: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(b as ArrayBuffer))
    .digest('hex');

/** The spec's upload flow over HTTP: a brand, then initiate, PUT (no key) and confirm for every file. */
async function uploadAll(base: string, apiKey: string, files: TestFile[]) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  // biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
  const post = async (url: string, body: unknown): Promise<any> => {
    const res = await fetch(`${base}/v1${url}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const brand = await post('/brands', {
    name: 'Crash',
    industry: 'Testing',
    description: 'A brand for the crash test.',
    mission: '',
    values: [],
    tone: [],
    voice: [],
  });
  const { uploads } = await post('/assets/initiate-upload', {
    brandId: brand.id,
    files: files.map((f) => ({ fileName: f.name, fileType: f.type, fileSize: f.bytes.length })),
  });
  for (const [i, u] of (uploads as Slot[]).entries()) {
    const put = await fetch(u.uploadUrl, { method: u.uploadMethod, headers: u.uploadHeaders, body: files[i]!.bytes });
    expect(put.status, await put.text()).toBe(200);
  }
  for (const u of uploads as Slot[]) {
    expect((await post('/assets/confirm-upload', { uploadId: u.uploadId })).status).toBe('processing');
  }
  return { brandId: brand.id as string, assetIds: (uploads as Slot[]).map((u) => u.assetId) };
}

async function statuses(base: string, apiKey: string, ids: string[]) {
  const out: Record<string, string> = {};
  for (const id of ids) {
    out[id] = (await getJson(`${base}/v1/assets/${id}`, { authorization: `Bearer ${apiKey}` })).status;
  }
  return out;
}

/** Kills `victim` with SIGKILL as soon as the first asset is complete; returns the statuses seen then. */
async function killMidway(base: string, apiKey: string, ids: string[], victim: Proc) {
  const seen = await eventually(
    async () => {
      const s = await statuses(base, apiKey, ids);
      return Object.values(s).includes('complete') ? s : undefined;
    },
    'the first asset to complete',
    90_000,
    25,
  );
  await kill(victim, 'SIGKILL');
  return seen;
}

/** Every asset complete exactly once, with its thumbnail and its bytes; the brand lists exactly them. */
async function checkAllComplete(base: string, apiKey: string, brandId: string, ids: string[], files: TestFile[]) {
  const auth = { authorization: `Bearer ${apiKey}` };
  await eventually(
    async () => {
      const s = await statuses(base, apiKey, ids);
      expect(Object.values(s).filter((x) => x === 'failed')).toEqual([]);
      return Object.values(s).every((x) => x === 'complete') || undefined;
    },
    'every asset to complete after the restart',
    120_000,
    250,
  );
  for (const [i, id] of ids.entries()) {
    const a = await getJson(`${base}/v1/assets/${id}`, auth);
    const f = files[i]!;
    expect(a).toMatchObject({
      status: 'complete',
      version: 2,
      metadata: { fileName: f.name, dimension: { width: f.width, height: f.height } },
    });
    expect(a).not.toHaveProperty('errorCode');
    expect(sha(await (await fetch(a.url)).arrayBuffer())).toBe(sha(f.bytes));
    const thumb = await fetch(a.thumbnailUrl);
    expect(thumb.status).toBe(200);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).format).toBe('webp');
  }
  const list = await getJson(`${base}/v1/brands/${brandId}/assets?limit=100`, auth);
  const listed = list.categories.flatMap((g: { assets: { id: string }[] }) => g.assets.map((a) => a.id));
  expect(listed.sort()).toEqual([...ids].sort());
}

describe('crash safety of asset processing (real processes, SIGKILL)', () => {
  const files: TestFile[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 6; i++) {
      // Camera-sized enough to take a while (2 MP), small enough to keep the suite's CPU for the proof.
      const [width, height] = i % 2 ? [1200, 1600] : [1600, 1200];
      files.push({
        name: `photo-${i}.jpg`,
        type: 'image/jpeg',
        bytes: await texturedJpeg(width, height, i + 1, 95),
        width,
        height,
      });
    }
    const dir = tmpDir('atelier-crash-media-');
    const video = fs.readFileSync(
      makeVideo(path.join(dir, 'clip.mp4'), { width: 1280, height: 720, seconds: 2, fps: 30, audio: true }),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    files.push({ name: 'clip.mp4', type: 'video/mp4', bytes: video, width: 1280, height: 720 });
  }, SLOW);

  it(
    'embedded: a server killed mid-processing finishes every asset exactly once after a restart',
    async () => {
      const dataDir = tmpDir('atelier-crash-');
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
        const { brandId, assetIds } = await uploadAll(base, apiKey, files);
        const seen = await killMidway(base, apiKey, assetIds, first);
        expect(Object.values(seen).filter((s) => s === 'processing').length, JSON.stringify(seen)).toBeGreaterThan(0);

        // The database shows the jobs the dead process was running when it died.
        const db = new Database(path.join(dataDir, 'atelier.db'), { readonly: true, fileMustExist: true });
        const jobsOf = () =>
          db.prepare("select id, status, attempts from jobs where name = 'assets.process' order by id").all() as {
            id: string;
            status: string;
            attempts: number;
          }[];
        const interrupted = jobsOf().filter((j) => j.status === 'running');
        expect(interrupted.length, JSON.stringify(jobsOf())).toBeGreaterThan(0);

        const second = atelier(['serve'], env);
        procs.push(second);
        await healthy(base, second);
        await checkAllComplete(base, apiKey, brandId, assetIds, files);
        const after = jobsOf();
        db.close();
        expect(after.map((j) => j.status)).toEqual(assetIds.map(() => 'completed'));
        for (const j of interrupted) expect(after.find((a) => a.id === j.id)?.attempts).toBe(2);

        // One original and one thumbnail per asset; the upload objects are gone.
        for (const id of assetIds) {
          const folder = path.join(dataDir, 'blobs', 'orgs', organizationId, 'assets', id);
          const objects = fs.readdirSync(folder).filter((f) => f.endsWith('~'));
          expect(objects.sort(), id).toEqual(['original~', 'thumbnail.webp~']);
        }
      } finally {
        for (const p of procs) await kill(p, 'SIGTERM');
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it.runIf(redis && dbKinds().includes('postgres'))(
    'scaled: a worker killed mid-processing (PostgreSQL, BullMQ, S3) leaves every asset to a new worker, done exactly once',
    () =>
      withScaledStack('crash', async ({ base, apiKey, organizationId, prefix, s3, worker, start }) => {
        const { brandId, assetIds } = await uploadAll(base, apiKey, files);
        const seen = await killMidway(base, apiKey, assetIds, worker);
        expect(Object.values(seen).filter((s) => s === 'processing').length, JSON.stringify(seen)).toBeGreaterThan(0);
        const r = new Redis(TEST_REDIS_URL);
        const active = await r.llen(`${prefix}:media:active`);
        r.disconnect();
        expect(active).toBeGreaterThan(0); // the dead worker held these jobs

        const next = start(['worker']);
        await workerReady(next);
        await checkAllComplete(base, apiKey, brandId, assetIds, files);

        const client = new S3Client({
          endpoint: s3.endpoint,
          region: s3.region,
          forcePathStyle: true,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        });
        for (const id of assetIds) {
          const listed = await client.send(
            new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `orgs/${organizationId}/assets/${id}/` }),
          );
          const names = (listed.Contents ?? []).map((o) => o.Key?.split('/').pop());
          expect(names.sort(), id).toEqual(['original', 'thumbnail.webp']);
        }
        client.destroy();
      }),
    SLOW,
  );
});

/**
 * What Content Credentials cost (issue 27): scene forges through the embedded app (four 1024 px
 * variations of the sample mug photo, the local engines, engine threads as configured by default)
 * with signing on and with signing off, alternated in the same run, and the signing itself: one
 * 1024 px scene PNG and one 5 s 1280×720 MP4 signed (manifest, XMP, COSE, read back for the
 * summary) against writing the same bytes unsigned to the local store. Prints JSON; exits 1 when
 * signing adds more than BENCH_C2PA_MAX_SHARE (0.15) of a forge's time (median signed forge vs
 * median unsigned forge).
 *
 *   npm run bench -- provenance            # BENCH_C2PA_FORGES=4 forges each way
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps, type Deps } from '../src/deps.ts';
import { createProvenance } from '../src/adapters/provenance/provenance.ts';
import { createLocalVideoEngine } from '../src/engines/video/local/local-video-engine.ts';

const FORGES = Number(process.env.BENCH_C2PA_FORGES ?? 4);
const MAX_SHARE = Number(process.env.BENCH_C2PA_MAX_SHARE ?? 0.15);
const SIGNS = Number(process.env.BENCH_C2PA_SIGNS ?? 8);
const PRODUCT = path.resolve(import.meta.dirname, '../samples/mug-set.png');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const round = (x: number) => Math.round(x * 10) / 10;

type App = Awaited<ReturnType<typeof buildApp>>;

/** An embedded app (signing on, or off) with an organization, a brand and the complete product photo. */
async function open(signing: boolean) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `atelier-c2pa-bench-${signing ? 'on' : 'off'}-`));
  const config = loadConfig({
    ATELIER_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ATELIER_RATE_LIMIT_PER_SECOND: '1000000',
    ATELIER_RATE_LIMIT_BURST: '1000000',
    ATELIER_WORKER_CONCURRENCY: '4',
  });
  const deps = await createDeps(config, signing ? {} : { provenance: false });
  const app = await buildApp(deps);
  await app.ready();
  await deps.startWorkers();
  const { apiKey } = await deps.access.bootstrap({ orgName: 'Bench', planSlug: 'enterprise' });
  const headers = { authorization: `Bearer ${apiKey}` };
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const r = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.json();
  };
  const brand = await call('POST', '/v1/brands', {
    name: 'Bench',
    industry: 'Homeware',
    description: 'Mugs for slow mornings.',
    mission: '',
    values: [],
    tone: [],
    voice: [],
  });
  const bytes = fs.readFileSync(PRODUCT);
  const init = await call('POST', '/v1/assets/initiate-upload', {
    brandId: brand.id,
    files: [{ fileName: 'mug-set.png', fileType: 'image/png', fileSize: bytes.length }],
  });
  const slot = init.uploads[0];
  const link = new URL(slot.uploadUrl);
  await app.inject({
    method: 'PUT',
    url: link.pathname + link.search,
    headers: { 'content-type': 'image/png' },
    payload: bytes,
  });
  await call('POST', '/v1/assets/confirm-upload', { uploadId: slot.uploadId });
  for (;;) {
    const a = await call('GET', `/v1/assets/${slot.assetId}`);
    if (a.status === 'complete') break;
    if (a.status === 'failed') throw new Error('the product photo failed processing');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { app, deps, dataDir, call, brandId: brand.id as string, productId: slot.assetId as string };
}

/** One forge, POST to completed (ms), and its first variation's asset id. */
async function forge(s: Awaited<ReturnType<typeof open>>, i: number) {
  const t0 = performance.now();
  const created = await s.call('POST', `/v1/brands/${s.brandId}/scene-forges`, {
    blendingPrompt: `The mugs on a ${['warm plaster wall', 'sunlit oak table', 'slate ledge', 'linen drape'][i % 4]}`,
    promptIsEnhanced: false,
    productAssetIds: [s.productId],
  });
  for (;;) {
    const f = await s.call('GET', `/v1/scene-forges/${created.sceneForgeId}`);
    if (f.status === 'completed' || f.status === 'failed') {
      if (f.status === 'failed') throw new Error(`forge failed: ${JSON.stringify(f)}`);
      return { ms: performance.now() - t0, assetId: f.variations[0].asset.assetId as string, forge: f };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function close(s: { app: App; deps: Deps; dataDir: string }) {
  await s.app.close();
  await s.deps.close();
  fs.rmSync(s.dataDir, { recursive: true, force: true });
}

const on = await open(true);
const off = await open(false);
// A first forge each (warms the engines, compiles the c2pa wasm, makes the development certificate).
await forge(off, 0);
const warm = await forge(on, 0);
const signedMs: number[] = [];
const unsignedMs: number[] = [];
for (let i = 1; i <= FORGES; i++) {
  unsignedMs.push((await forge(off, i)).ms);
  signedMs.push((await forge(on, i)).ms);
}
const warmAsset = await on.call('GET', `/v1/assets/${warm.assetId}`);
if (!warmAsset.contentCredentials) throw new Error('the signed run stored a variation without Content Credentials');

// The signing alone, on an unsigned variation of the off run and on a local-engine MP4.
const offAsset = await off.call('GET', `/v1/assets/${(await forge(off, 99)).assetId}`);
const png = (
  await off.app.inject({ method: 'GET', url: new URL(offAsset.url).pathname + new URL(offAsset.url).search })
).rawPayload;
const product = fs.readFileSync(PRODUCT);
const provenance = createProvenance({
  settings: {},
  dataDir: on.dataDir,
  version: 'bench',
  logger: { warn() {}, info() {} } as never,
});
const facts = (format: 'image/png' | 'video/mp4') => ({
  title: format === 'image/png' ? 'scene.png' : 'video.mp4',
  format,
  sourceType: 'compositeSynthetic' as const,
  generator: { version: 'bench', engine: 'local' },
  ingredients: [
    {
      assetId: 'bench',
      title: 'mug-set.png',
      format: 'image/png',
      relationship: 'componentOf' as const,
      bytes: product,
    },
  ],
});
const time = async (fn: () => Promise<unknown>) => {
  const xs: number[] = [];
  for (let i = 0; i < SIGNS; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return median(xs);
};
const video = await createLocalVideoEngine().generate({
  prompt: 'slow push-in',
  width: 1280,
  height: 720,
  durationSeconds: 5,
  startFrame: png,
  enableAudio: false,
  seed: 1,
  signal: new AbortController().signal,
});
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-c2pa-write-'));
const pngSignMs = await time(() => provenance.sign(png, facts('image/png')));
const pngWriteMs = await time(() => fs.promises.writeFile(path.join(tmp, 'p.png'), png));
const mp4SignMs = await time(() => provenance.sign(video.mp4, facts('video/mp4')));
const mp4WriteMs = await time(() => fs.promises.writeFile(path.join(tmp, 'v.mp4'), video.mp4));
fs.rmSync(tmp, { recursive: true, force: true });

await close(on);
await close(off);

const unsigned = median(unsignedMs);
const signed = median(signedMs);
const share = (signed - unsigned) / unsigned;
const perForgeSignMs = 4 * pngSignMs;
const result = {
  bench: 'provenance',
  cores: os.availableParallelism(),
  forges: FORGES,
  forge: {
    unsignedMedianMs: round(unsigned),
    signedMedianMs: round(signed),
    unsignedMs: unsignedMs.map(round),
    signedMs: signedMs.map(round),
    addedMs: round(signed - unsigned),
    share: Math.round(share * 1000) / 1000,
    // The same from the signing alone: four variations signed, against the unsigned forge.
    signShareOfForge: Math.round((perForgeSignMs / unsigned) * 1000) / 1000,
  },
  sign: {
    png: { bytes: png.length, signMs: round(pngSignMs), unsignedWriteMs: round(pngWriteMs) },
    mp4: { bytes: video.mp4.length, signMs: round(mp4SignMs), unsignedWriteMs: round(mp4WriteMs) },
  },
  goal: { maxShare: MAX_SHARE },
  ok: share <= MAX_SHARE,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
if (!result.ok) process.exitCode = 1;

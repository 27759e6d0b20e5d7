/**
 * Upload and media-processing benchmark, each against a baseline measured in the same run:
 *
 * - upload throughput through the signed link: FILES PUTs of FILE_MB each to `uploadUrl` of a real
 *   listening server (embedded mode: local storage, links served by the API), one at a time and
 *   four at a time, against writing the same buffers straight to files on the same disk;
 * - processing of a 12-megapixel JPEG (4000x3000, textured): the asset job's analysis
 *   (`analyzeFile`: bounded decode, measurements, tags, thumbnail) against a bare sharp thumbnail of
 *   the same file, plus one upload → confirm → complete through the server.
 *
 * Prints JSON; exits 1 when upload MB/s falls under BENCH_MIN_UPLOAD_RATIO (default 0.15) of the
 * disk's, or analysis takes over BENCH_MAX_PROCESSING_RATIO (default 6) times the bare thumbnail.
 * The server runs in a child process (this file with --serve) so the client does not share its
 * event loop.
 *
 *   npm run bench -- uploads            # BENCH_UPLOAD_FILES=20 BENCH_UPLOAD_MB=8
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { texturedJpeg } from '../test/helpers/images.ts';

interface Ready {
  appUrl: string;
  apiKey: string;
  brandId: string;
  dataDir: string;
}

interface Slot {
  uploadId: string;
  assetId: string;
  uploadUrl: string;
  uploadMethod: string;
  uploadHeaders: Record<string, string>;
}

const FILES = Number(process.env.BENCH_UPLOAD_FILES ?? 20);
const FILE_MB = Number(process.env.BENCH_UPLOAD_MB ?? 8);
const MIN_UPLOAD_RATIO = Number(process.env.BENCH_MIN_UPLOAD_RATIO ?? 0.15);
const MAX_PROCESSING_RATIO = Number(process.env.BENCH_MAX_PROCESSING_RATIO ?? 6);
const PROCESSING_RUNS = 3;

/** Child: the embedded app on a temp data dir (rate limit out of the way), with workers. */
async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config.ts');
  const { createDeps } = await import('../src/deps.ts');
  const { buildApp } = await import('../src/app.ts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-uploads-'));
  const port = await freePort();
  const config = loadConfig({
    ATELIER_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    ATELIER_PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    ATELIER_RATE_LIMIT_PER_SECOND: '1000000',
    ATELIER_RATE_LIMIT_BURST: '1000000',
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  const appUrl = await app.listen({ host: '127.0.0.1', port });
  await deps.startWorkers();
  const { apiKey } = await deps.access.bootstrap({ orgName: 'Bench', planSlug: 'enterprise' });
  const created = await fetch(`${appUrl}/v1/brands`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench Uploads',
      industry: 'Media',
      description: 'Measures uploads and processing.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/brands: ${created.status} ${await created.text()}`);
  const brandId = ((await created.json()) as { id: string }).id;
  process.send?.({ appUrl, apiKey, brandId, dataDir } satisfies Ready);
  process.on('disconnect', async () => {
    await app.close();
    await deps.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** A port free on 127.0.0.1 (the public URL in the links must name the port before listening). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function api<T>(ready: Ready, url: string, body: unknown): Promise<T> {
  const res = await fetch(`${ready.appUrl}/v1${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function slots(ready: Ready, files: { name: string; type: string; size: number }[]): Promise<Slot[]> {
  const out: Slot[] = [];
  for (let i = 0; i < files.length; i += 20) {
    const { uploads } = await api<{ uploads: Slot[] }>(ready, '/assets/initiate-upload', {
      brandId: ready.brandId,
      files: files.slice(i, i + 20).map((f) => ({ fileName: f.name, fileType: f.type, fileSize: f.size })),
    });
    out.push(...uploads);
  }
  return out;
}

async function put(slot: Slot, bytes: Buffer): Promise<void> {
  const res = await fetch(slot.uploadUrl, { method: slot.uploadMethod, headers: slot.uploadHeaders, body: bytes });
  if (res.status !== 200) throw new Error(`PUT ${slot.uploadUrl}: ${res.status} ${await res.text()}`);
}

/** Runs `work` over `items`, `parallel` at a time; returns the elapsed seconds. */
async function timed<T>(items: T[], parallel: number, work: (item: T, i: number) => Promise<void>): Promise<number> {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
  return (performance.now() - start) / 1000;
}

async function uploads(ready: Ready) {
  // Incompressible bytes with a PNG signature: the link stores whatever it is sent.
  const bytes = Buffer.alloc(FILE_MB * 1024 * 1024);
  for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
  const totalMb = FILES * FILE_MB;
  const diskDir = fs.mkdtempSync(path.join(path.dirname(ready.dataDir), 'atelier-bench-disk-'));
  try {
    const files = Array.from({ length: FILES }, (_, i) => ({
      name: `f${i}.png`,
      type: 'image/png',
      size: bytes.length,
    }));
    const results: Record<string, { mbPerSecond: number; seconds: number }> = {};
    for (const parallel of [1, 4]) {
      const disk = await timed(files, parallel, (_f, i) =>
        fs.promises.writeFile(path.join(diskDir, `${parallel}-${i}`), bytes),
      );
      const link = await timed(await slots(ready, files), parallel, (slot) => put(slot, bytes));
      results[`disk${parallel}`] = { mbPerSecond: round(totalMb / disk), seconds: round(disk, 2) };
      results[`link${parallel}`] = { mbPerSecond: round(totalMb / link), seconds: round(link, 2) };
    }
    const ratio = (p: number) => round(results[`link${p}`]!.mbPerSecond / results[`disk${p}`]!.mbPerSecond, 2);
    return {
      files: FILES,
      fileMb: FILE_MB,
      sequential: { link: results.link1, disk: results.disk1, ratio: ratio(1) },
      fourAtOnce: { link: results.link4, disk: results.disk4, ratio: ratio(4) },
    };
  } finally {
    fs.rmSync(diskDir, { recursive: true, force: true });
  }
}

async function processing(ready: Ready) {
  const { analyzeFile } = await import('../src/modules/assets/assets.processing.ts');
  const jpeg = await texturedJpeg(4000, 3000, 42, 90);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-jpeg-'));
  try {
    const file = path.join(dir, 'photo.jpg');
    fs.writeFileSync(file, jpeg);
    const thumbnailOnly = () =>
      sharp(file)
        .rotate()
        .resize(512, 512, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer();
    await thumbnailOnly(); // warm-up (libvips, JIT)
    await analyzeFile(file, 'JPEG');
    const analysisMs: number[] = [];
    const baselineMs: number[] = [];
    for (let i = 0; i < PROCESSING_RUNS; i++) {
      let t = performance.now();
      await thumbnailOnly();
      baselineMs.push(performance.now() - t);
      t = performance.now();
      const r = await analyzeFile(file, 'JPEG');
      analysisMs.push(performance.now() - t);
      if (r.width !== 4000 || r.height !== 3000 || !r.thumbnail) throw new Error('unexpected analysis result');
    }

    // The whole job through the server: confirm → complete as a client sees it.
    const [slot] = await slots(ready, [{ name: 'photo.jpg', type: 'image/jpeg', size: jpeg.length }]);
    await put(slot!, jpeg);
    const start = performance.now();
    await api(ready, '/assets/confirm-upload', { uploadId: slot!.uploadId });
    for (;;) {
      const res = await fetch(`${ready.appUrl}/v1/assets/${slot!.assetId}`, {
        headers: { authorization: `Bearer ${ready.apiKey}` },
      });
      const { status } = (await res.json()) as { status: string };
      if (status === 'complete') break;
      if (status === 'failed') throw new Error('the 12 MP JPEG failed processing');
      await new Promise((r) => setTimeout(r, 20));
    }
    const confirmToCompleteMs = Math.round(performance.now() - start);
    const analysis = Math.round(median(analysisMs));
    const baseline = Math.round(median(baselineMs));
    return {
      image: { width: 4000, height: 3000, megapixels: 12, bytes: jpeg.length },
      analysisMs: analysis,
      thumbnailOnlyMs: baseline,
      ratio: round(analysis / baseline, 2),
      confirmToCompleteMs,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const child: ChildProcess = fork(import.meta.filename, ['--serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let done = false;
  child.once('exit', (code) => {
    if (done) return;
    process.stderr.write(`bench/uploads: the server process exited (${code}) during the run\n`);
    process.exit(1);
  });
  try {
    const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
    const upload = await uploads(ready);
    const process12mp = await processing(ready);
    process.stdout.write(`${JSON.stringify({ upload, processing: process12mp })}\n`);
    const failures: string[] = [];
    for (const [name, r] of [
      ['sequential', upload.sequential.ratio],
      ['four at once', upload.fourAtOnce.ratio],
    ] as const) {
      if (r < MIN_UPLOAD_RATIO) failures.push(`upload ${name}: ratio ${r} under ${MIN_UPLOAD_RATIO}`);
    }
    if (process12mp.ratio > MAX_PROCESSING_RATIO) {
      failures.push(`processing: ratio ${process12mp.ratio} over ${MAX_PROCESSING_RATIO}`);
    }
    for (const f of failures) process.stderr.write(`bench/uploads: ${f}\n`);
    if (failures.length) process.exitCode = 1;
  } finally {
    done = true;
    child.disconnect();
  }
}

if (process.argv.includes('--serve')) {
  serve().catch((err: unknown) => {
    process.stderr.write(`bench server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else {
  await main();
}

/**
 * The API while generating: 8 scene forges (32 variations) submitted at once to the embedded
 * server, while two light clients keep asking `/healthz` and an authenticated GET. Run twice in
 * the same run: the engines on the event loop (ATELIER_ENGINE_THREADS=0, the baseline) and on
 * worker threads (one per core). Prints JSON with, per mode, the forges' wall time and
 * variations/s and the two probes' p99/max latency; exits 1 when the threaded run misses its goals
 * (probes' p99 < BENCH_MAX_P99_MS, default 20 ms; throughput at least BENCH_MIN_THROUGHPUT, default
 * 0.9, of the baseline's).
 *
 *   npx tsx bench/forge-load.ts          # BENCH_FORGES=8
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import module from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const FORGES = Number(process.env.BENCH_FORGES ?? 8);
const MAX_P99 = Number(process.env.BENCH_MAX_P99_MS ?? 20);
const MIN_THROUGHPUT = Number(process.env.BENCH_MIN_THROUGHPUT ?? 0.9);
const PRODUCT = path.resolve(import.meta.dirname, '../samples/mug-set.png');

interface Ready {
  url: string;
  apiKey: string;
  brandId: string;
  productId: string;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Child: the embedded server with `threads` engine threads, a brand and a complete product photo. */
async function serve(threads: string): Promise<void> {
  module.enableCompileCache?.(); // as src/main.ts
  const { loadConfig } = await import('../src/config.ts');
  const { createDeps } = await import('../src/deps.ts');
  const { buildApp } = await import('../src/app.ts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-load-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    ATELIER_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    ATELIER_PUBLIC_URL: url,
    LOG_LEVEL: 'silent',
    ATELIER_RATE_LIMIT_PER_SECOND: '1000000',
    ATELIER_RATE_LIMIT_BURST: '1000000',
    ATELIER_ENGINE_THREADS: threads,
    ATELIER_WORKER_CONCURRENCY: '4',
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  await app.listen({ host: '127.0.0.1', port });
  await deps.startWorkers();
  const { apiKey } = await deps.access.bootstrap({ orgName: 'Load', planSlug: 'enterprise' });
  const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const post = async (p: string, body: unknown) => {
    const r = await fetch(`${url}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`POST ${p}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<{ id: string }>;
  };
  const brand = await post('/v1/brands', {
    name: 'Load',
    industry: 'Homeware',
    description: 'Mugs for slow mornings.',
    mission: '',
    values: [],
    tone: [],
    voice: [],
  });
  const bytes = fs.readFileSync(PRODUCT);
  const init = (await post('/v1/assets/initiate-upload', {
    brandId: brand.id,
    files: [{ fileName: 'mug-set.png', fileType: 'image/png', fileSize: bytes.length }],
  })) as unknown as { uploads: { uploadUrl: string; uploadId: string; assetId: string }[] };
  const slot = init.uploads[0]!;
  await fetch(slot.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes });
  await post('/v1/assets/confirm-upload', { uploadId: slot.uploadId });
  for (;;) {
    const a = (await (await fetch(`${url}/v1/assets/${slot.assetId}`, { headers: auth })).json()) as { status: string };
    if (a.status === 'complete') break;
    if (a.status === 'failed') throw new Error('the product photo failed processing');
    await new Promise((r) => setTimeout(r, 100));
  }
  const ready: Ready = { url, apiKey, brandId: brand.id, productId: slot.assetId };
  process.send?.(ready);
  process.on('disconnect', async () => {
    await app.close();
    await deps.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** Latency of a probe running until stopped: p99 and max (ms). */
function probe(url: string, headers: Record<string, string>) {
  let resolve: (r: autocannon.Result) => void = () => {};
  const result = new Promise<autocannon.Result>((r) => {
    resolve = r;
  });
  const instance = autocannon({ url, headers, connections: 2, duration: 600 }, (_err, r) => resolve(r));
  return {
    async stop() {
      instance.stop();
      const r = await result;
      return { p99: r.latency.p99, max: r.latency.max, requests: r.requests.total };
    },
  };
}

async function run(threads: string) {
  // The server runs as `node src/main.ts serve` does: Node.js strips the types itself (tsx's loader
  // would be inherited by every engine thread and make each thread's start slower than in production).
  const child: ChildProcess = fork(import.meta.filename, ['--serve', threads], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ready));
      child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
    });
    const auth = { authorization: `Bearer ${ready.apiKey}` };
    const health = probe(`${ready.url}/healthz`, {});
    const read = probe(`${ready.url}/v1/brands/${ready.brandId}`, auth);
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < FORGES; i++) {
      const r = await fetch(`${ready.url}/v1/brands/${ready.brandId}/scene-forges`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          blendingPrompt: `The mugs on a ${['warm plaster wall', 'sunlit oak table', 'slate ledge', 'linen drape'][i % 4]}`,
          promptIsEnhanced: false,
          productAssetIds: [ready.productId],
        }),
      });
      if (r.status !== 202) throw new Error(`forge ${i}: ${r.status} ${await r.text()}`);
      ids.push(((await r.json()) as { sceneForgeId: string }).sceneForgeId);
    }
    let variations = 0;
    for (const id of ids) {
      for (;;) {
        const f = (await (await fetch(`${ready.url}/v1/scene-forges/${id}`, { headers: auth })).json()) as {
          status: string;
          variations: { status: string }[];
        };
        if (f.status === 'completed' || f.status === 'failed') {
          variations += f.variations.filter((v) => v.status === 'completed').length;
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const [healthz, get] = [await health.stop(), await read.stop()];
    return {
      threads: threads === 'cores' ? os.availableParallelism() : Number(threads),
      forgeSeconds: Math.round(seconds * 10) / 10,
      variations,
      variationsPerSecond: Math.round((variations / seconds) * 100) / 100,
      healthz,
      get,
    };
  } finally {
    child.disconnect();
  }
}

async function main(): Promise<void> {
  const baseline = await run('0');
  const pooled = await run(String(os.availableParallelism()));
  const throughput = Math.round((pooled.variationsPerSecond / baseline.variationsPerSecond) * 100) / 100;
  const ok =
    pooled.healthz.p99 < MAX_P99 &&
    pooled.get.p99 < MAX_P99 &&
    throughput >= MIN_THROUGHPUT &&
    pooled.variations === FORGES * 4;
  process.stdout.write(`${JSON.stringify({ forges: FORGES, baseline, pooled, throughput, ok })}\n`);
  if (!ok) {
    process.stderr.write(
      `bench/forge-load: goals missed (p99 < ${MAX_P99} ms on both probes, throughput ≥ ${MIN_THROUGHPUT})\n`,
    );
    process.exitCode = 1;
  }
}

if (process.argv.includes('--serve')) {
  serve(process.argv[process.argv.indexOf('--serve') + 1] ?? '0').catch((err: unknown) => {
    process.stderr.write(`bench server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else {
  await main();
}

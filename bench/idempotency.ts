/**
 * Idempotency-Key cost, in process (app.inject, embedded SQLite): for POST /v1/brands, the first
 * execution with a key (claim + work + store), its replays (claim conflict + stored response), the
 * same create without a key, and a keyed GET of the brand as the baseline of a plain read.
 * Prints JSON with mean/p50/p99 per case and replay/fresh ratios; exits 1 when a replay costs more
 * than 1.5× a fresh create (BENCH_MAX_REPLAY_RATIO).
 *
 *   npm run bench -- idempotency          # BENCH_N=400
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';

const N = Number(process.env.BENCH_N ?? 400);
const MAX_REPLAY_RATIO = Number(process.env.BENCH_MAX_REPLAY_RATIO ?? 1.5);

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { n: s.length, meanMs: r(s.reduce((a, b) => a + b, 0) / s.length), p50Ms: r(at(0.5)), p99Ms: r(at(0.99)) };
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-idem-'));
const config = loadConfig({
  ATELIER_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ATELIER_RATE_LIMIT_PER_SECOND: '1000000',
  ATELIER_RATE_LIMIT_BURST: '1000000',
});
const deps = await createDeps(config);
const app = await buildApp(deps);
await app.ready();
const { apiKey } = await deps.access.bootstrap({ planSlug: 'enterprise' });
const body = (i: number) => ({
  name: `Bench ${i}`,
  industry: 'Retail',
  description: 'A brand made by the idempotency benchmark.',
  mission: '',
  values: [],
  tone: [],
  voice: [],
});
const headers = (key?: string) => ({
  authorization: `Bearer ${apiKey}`,
  'content-type': 'application/json',
  ...(key ? { 'idempotency-key': key } : {}),
});
async function time(fn: () => Promise<{ statusCode: number }>, expected: number): Promise<number> {
  const t0 = performance.now();
  const res = await fn();
  const ms = performance.now() - t0;
  if (res.statusCode !== expected) throw new Error(`expected ${expected}, got ${res.statusCode}`);
  return ms;
}

try {
  // Warm-up.
  for (let i = 0; i < 50; i++) {
    await app.inject({ method: 'POST', url: '/v1/brands', headers: headers(), payload: JSON.stringify(body(-i)) });
  }
  const plain: number[] = [];
  const keyedFirst: number[] = [];
  const replay: number[] = [];
  const read: number[] = [];
  let brandId = '';
  for (let i = 0; i < N; i++) {
    plain.push(
      await time(
        () => app.inject({ method: 'POST', url: '/v1/brands', headers: headers(), payload: JSON.stringify(body(i)) }),
        201,
      ),
    );
    const key = `bench-${i}`;
    const payload = JSON.stringify(body(N + i));
    keyedFirst.push(
      await time(async () => {
        const res = await app.inject({ method: 'POST', url: '/v1/brands', headers: headers(key), payload });
        brandId = res.json().id;
        return res;
      }, 201),
    );
    replay.push(
      await time(() => app.inject({ method: 'POST', url: '/v1/brands', headers: headers(key), payload }), 201),
    );
    read.push(await time(() => app.inject({ method: 'GET', url: `/v1/brands/${brandId}`, headers: headers() }), 200));
  }
  const result = {
    bench: 'idempotency',
    mode: 'embedded (SQLite), in process',
    createWithoutKey: stats(plain),
    createWithKey: stats(keyedFirst),
    replay: stats(replay),
    getBaseline: stats(read),
    replayOverFreshCreate: Math.round((stats(replay).meanMs / stats(plain).meanMs) * 100) / 100,
    keyOverheadOnCreate: Math.round((stats(keyedFirst).meanMs / stats(plain).meanMs) * 100) / 100,
    replayOverGet: Math.round((stats(replay).meanMs / stats(read).meanMs) * 100) / 100,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.replayOverFreshCreate > MAX_REPLAY_RATIO) process.exitCode = 1;
} finally {
  await app.close();
  await deps.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Long-poll benchmark (`Prefer: wait`, src/http/long-poll.ts), against 1 s polling in the same run
 * on the same machine:
 *
 * 1. Completion latency: environment generations (local engine) watched by a long-polling client
 *    (`Prefer: wait=30`, again at once after each answer) and by a client polling every second;
 *    the latency is when the client saw `completed` minus the run's `completedAt`.
 * 2. Holding cost: 1,000 clients long-polling one pending resource (`wait=5`, so each one also
 *    comes back twice in the window) against 1,000 clients polling it every second, and an idle
 *    window: the server's RSS growth, CPU time and event-loop delay over the same window.
 *
 * The server runs in a child process (this file with --serve) so that the clients, here, do not
 * share its event loop. Prints one JSON object.
 *
 *   npm run bench -- long-poll            # BENCH_CLIENTS=1000 BENCH_WINDOW_SECONDS=10 BENCH_JOBS=12
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, request } from 'undici';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 10);
const JOBS = Number(process.env.BENCH_JOBS ?? 12);
/** Held requests per API key are capped (50): the waiting clients use enough keys. */
const PER_KEY = 50;
const ELD_RESOLUTION_MS = 10;

interface Ready {
  url: string;
  keys: string[];
  brandId: string;
  pendingId: string;
}

interface WindowStats {
  cpuMs: number;
  /** RSS of the fresh server before any client connected. */
  rssBeforeClientsMb: number;
  /** Highest RSS during the window. */
  rssPeakMb: number;
  /** rssPeakMb − rssBeforeClientsMb: what the clients cost in memory. */
  rssDeltaMb: number;
  heapUsedDeltaMb: number;
  /** Event-loop delay beyond the sampling interval (perf_hooks monitorEventLoopDelay). */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
}

type Command = { cmd: 'baseline' } | { cmd: 'start' } | { cmd: 'stop' } | { cmd: 'workers' };

const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;

/** Child: the embedded app on SQLite, no workers until asked (the pending resource stays pending). */
async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config.ts');
  const { createDeps } = await import('../src/deps.ts');
  const { buildApp } = await import('../src/app.ts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-lp-'));
  const config = loadConfig({
    ATELIER_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ATELIER_RATE_LIMIT_PER_SECOND: '1000000',
    ATELIER_RATE_LIMIT_BURST: '1000000',
    ATELIER_LONG_POLL_MAX: String(CLIENTS + 100),
    ATELIER_IMAGE_LONG_SIDE: '512',
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  app.server.maxRequestsPerSocket = 0;
  app.server.keepAliveTimeout = 65_000;
  const boot = await deps.access.bootstrap({ orgName: 'Bench', planSlug: 'enterprise' });
  const keys = [boot.apiKey];
  for (let i = keys.length; i < Math.ceil(CLIENTS / PER_KEY) + 1; i++) {
    keys.push((await deps.access.createKey({ userId: boot.userId, name: `bench-${i}` })).token);
  }
  const headers = { authorization: `Bearer ${boot.apiKey}`, 'content-type': 'application/json' };
  const brand = await fetch(`${url}/v1/brands`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'Bench',
      industry: 'Retail',
      description: 'Long-poll bench.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    }),
  });
  const brandId = ((await brand.json()) as { id: string }).id;
  const pending = await fetch(`${url}/v1/brands/${brandId}/environment-generations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: 'A concrete floor against a white wall' }),
  });
  const pendingId = ((await pending.json()) as { environmentGenerationId: string }).environmentGenerationId;

  let before = { rss: 0, heap: 0 };
  let window: { cpu: NodeJS.CpuUsage; peak: number; sampler: NodeJS.Timeout } | undefined;
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  const beyond = (ns: number) => Math.max(0, Math.round((ns / 1e6 - ELD_RESOLUTION_MS) * 100) / 100);
  process.on('message', async (m: Command) => {
    if (m.cmd === 'workers') {
      await deps.startWorkers();
      process.send?.({ ok: true });
    } else if (m.cmd === 'baseline') {
      global.gc?.();
      const mem = process.memoryUsage();
      before = { rss: mem.rss, heap: mem.heapUsed };
      process.send?.({ ok: true });
    } else if (m.cmd === 'start') {
      const w = {
        cpu: process.cpuUsage(),
        peak: process.memoryUsage().rss,
        sampler: setInterval(() => {
          w.peak = Math.max(w.peak, process.memoryUsage().rss);
        }, 100),
      };
      window = w;
      eld.reset();
      eld.enable();
      process.send?.({ ok: true });
    } else if (m.cmd === 'stop' && window) {
      eld.disable();
      clearInterval(window.sampler);
      const cpu = process.cpuUsage(window.cpu);
      const mem = process.memoryUsage();
      const peak = Math.max(window.peak, mem.rss);
      const stats: WindowStats = {
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        rssBeforeClientsMb: mb(before.rss),
        rssPeakMb: mb(peak),
        rssDeltaMb: mb(peak - before.rss),
        heapUsedDeltaMb: mb(mem.heapUsed - before.heap),
        eventLoopDelayMs: {
          p50: beyond(eld.percentile(50)),
          p99: beyond(eld.percentile(99)),
          max: beyond(eld.max),
        },
      };
      window = undefined;
      process.send?.(stats);
    }
  });
  process.on('disconnect', async () => {
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
    await deps.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send?.({ url, keys, brandId, pendingId } satisfies Ready);
}

function ask<T>(child: ChildProcess, m: Command | undefined = undefined): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (r) => resolve(r as T));
    if (m) child.send(m);
  });
}

const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!) : 0;
};

/** A fresh server process (each measurement gets its own, so none inherits another's memory). */
async function server(): Promise<{ child: ChildProcess; ready: Ready; end(): Promise<void> }> {
  const child = fork(import.meta.filename, ['--serve'], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let done = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code) => {
    if (done) return;
    process.stderr.write(`bench/long-poll: the server process exited (${code}) during the run\n`);
    process.exit(1);
  });
  const ready = await ask<Ready>(child);
  return {
    child,
    ready,
    async end() {
      done = true;
      child.disconnect();
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const agent = new Agent({ connections: CLIENTS * 2, keepAliveTimeout: 60_000, headersTimeout: 120_000 });
  let current: Awaited<ReturnType<typeof server>> | undefined;
  try {
    const get = async (p: string, key: string, prefer?: string) => {
      const ready = current!.ready;
      const r = await request(`${ready.url}${p}`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${key}`, ...(prefer ? { prefer } : {}) },
      });
      const body = (await r.body.json()) as { status: string; completedAt?: string };
      if (r.statusCode !== 200) throw new Error(`GET ${p}: ${r.statusCode} ${JSON.stringify(body)}`);
      return { body, applied: r.headers['preference-applied'] !== undefined };
    };

    // 2. Holding cost (the workers are not started, so the resource stays pending).
    const runWindow = async (mode: 'idle' | 'long-poll' | 'poll-1s') => {
      current = await server();
      const { child, ready } = current;
      const target = `/v1/environment-generations/${ready.pendingId}`;
      await ask(child, { cmd: 'baseline' });
      let stop = false;
      let requests = 0;
      let notApplied = 0;
      const clients =
        mode === 'idle'
          ? []
          : Array.from({ length: CLIENTS }, async (_, i) => {
              const key = ready.keys[Math.floor(i / PER_KEY) + 1] ?? ready.keys[0]!;
              await sleep(Math.random() * 1000); // spread the starts over a second
              while (!stop) {
                if (mode === 'long-poll') {
                  const r = await get(target, key, 'wait=5');
                  requests++;
                  if (!r.applied) {
                    notApplied++;
                    await sleep(1000);
                  }
                } else {
                  await get(target, key);
                  requests++;
                  await sleep(1000);
                }
              }
            });
      // Ramp up for 2 s (every client connected and, for long-poll, held), then measure.
      await sleep(mode === 'idle' ? 0 : 2000);
      const before = requests;
      await ask(child, { cmd: 'start' });
      await sleep(WINDOW_S * 1000);
      const stats = await ask<WindowStats>(child, { cmd: 'stop' });
      const inWindow = requests - before;
      stop = true;
      // Waiting clients end with their current wait (≤ 5 s); the polling ones within a second.
      await Promise.all(clients);
      await current.end();
      current = undefined;
      return { ...stats, requestsInWindow: inWindow, requestsPerSecond: Math.round(inWindow / WINDOW_S), notApplied };
    };
    const idle = await runWindow('idle');
    const waiting = await runWindow('long-poll');
    const polling = await runWindow('poll-1s');

    // 1. Completion latency.
    current = await server();
    const { ready } = current;
    await ask(current.child, { cmd: 'workers' });
    const create = async () => {
      const r = await request(`${ready.url}/v1/brands/${ready.brandId}/environment-generations`, {
        dispatcher: agent,
        method: 'POST',
        headers: { authorization: `Bearer ${ready.keys[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'A wooden table by a window, morning light' }),
      });
      const b = (await r.body.json()) as { environmentGenerationId: string };
      if (r.statusCode !== 202) throw new Error(`POST environment-generations: ${r.statusCode}`);
      return b.environmentGenerationId;
    };
    const watch = async (mode: 'long-poll' | 'poll-1s') => {
      const t0 = Date.now();
      const id = await create();
      let requests = 0;
      for (;;) {
        const r = await get(
          `/v1/environment-generations/${id}`,
          ready.keys[0]!,
          mode === 'long-poll' ? 'wait=30' : undefined,
        );
        requests++;
        if (r.body.status === 'completed' || r.body.status === 'failed') {
          const seen = Date.now();
          return {
            latencyMs: seen - Date.parse(r.body.completedAt ?? new Date(seen).toISOString()),
            totalMs: seen - t0,
            requests,
          };
        }
        if (mode === 'poll-1s') await sleep(1000);
      }
    };
    const latency = async (mode: 'long-poll' | 'poll-1s') => {
      const runs: Awaited<ReturnType<typeof watch>>[] = [];
      // Three at a time, so runs overlap as they would for a real client.
      for (let i = 0; i < JOBS; i += 3) {
        runs.push(...(await Promise.all(Array.from({ length: Math.min(3, JOBS - i) }, () => watch(mode)))));
      }
      const l = runs.map((r) => r.latencyMs);
      return {
        jobs: runs.length,
        latencyMs: {
          p50: pct(l, 50),
          p95: pct(l, 95),
          max: Math.max(...l),
          mean: Math.round(l.reduce((a, b) => a + b, 0) / l.length),
        },
        totalMsP50: pct(
          runs.map((r) => r.totalMs),
          50,
        ),
        requestsPerJob: Math.round((runs.reduce((a, r) => a + r.requests, 0) / runs.length) * 10) / 10,
      };
    };
    const longPollLatency = await latency('long-poll');
    const pollLatency = await latency('poll-1s');

    const result = {
      completionLatency: { longPoll: longPollLatency, poll1s: pollLatency },
      holding: {
        clients: CLIENTS,
        windowSeconds: WINDOW_S,
        idle,
        longPoll: waiting,
        poll1s: polling,
        ratios: {
          cpu: Math.round((waiting.cpuMs / Math.max(1, polling.cpuMs)) * 100) / 100,
          rssDelta: Math.round((waiting.rssDeltaMb / Math.max(0.1, polling.rssDeltaMb)) * 100) / 100,
        },
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (waiting.notApplied > 0) {
      process.stderr.write(`bench/long-poll: ${waiting.notApplied} waits were refused (a cap)\n`);
      process.exitCode = 1;
    }
  } finally {
    await current?.end();
    await agent.close();
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

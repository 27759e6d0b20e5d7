/**
 * Webhook delivery latency: from `deps.changes.publish(change)` of a terminal change to the
 * signed POST reaching a local receiver, for BENCH_EVENTS (default 500) events, embedded mode
 * (SQLite, in-process job driver, the `webhooks` queue at its default concurrency). Two runs:
 * `paced` (BENCH_RATE events/s, default 100: latency without a backlog) and `burst` (every event
 * published at once: queueing included). Baseline in the same run: a bare POST of the same body
 * and the same headers to the same receiver, paced the same way. Prints JSON; exits 1 when the
 * paced p99 is over BENCH_MAX_P99_MS (default 1000).
 *
 *   npx tsx bench/webhooks.ts            # BENCH_EVENTS=500 BENCH_RATE=100
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import type { ResourceChange } from '../src/events/changes.ts';
import { sign } from '../src/modules/webhooks/webhooks.signature.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 500);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const MAX_P99_MS = Number(process.env.BENCH_MAX_P99_MS ?? 1000);

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
  const r = (v: number) => Math.round(v * 100) / 100;
  return { n: s.length, p50: r(q(50)), p90: r(q(90)), p99: r(q(99)), max: r(s[s.length - 1] ?? Number.NaN) };
}

async function main(): Promise<void> {
  // The receiver: records when each resource id's event arrived (by the id in the body).
  const arrived = new Map<string, number>();
  let waiting: (() => void) | undefined;
  let expected = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const t = now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
      arrived.set(body.data.id, t);
      res.writeHead(204).end();
      if (arrived.size >= expected) waiting?.();
    });
  });
  receiver.keepAliveTimeout = 5000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/hook`;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-webhooks-'));
  const config = loadConfig({ ATELIER_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const deps = await createDeps(config, {
    fetcher: createFetcher({ policy: (a, p) => a === '127.0.0.1' && p === port }),
  });
  try {
    const { organizationId } = await deps.access.bootstrap({ orgName: 'Bench', planSlug: 'enterprise' });
    const { secret } = await deps.webhooks.addEndpoint({ orgId: organizationId, url });
    await deps.startWorkers();

    let seq = 0;
    const change = (): ResourceChange => ({
      kind: 'scene_forge',
      id: `bench-${process.pid}-${++seq}`,
      orgId: organizationId,
      brandId: 'brand-1',
      status: 'completed',
      terminal: true,
      at: new Date().toISOString(),
    });
    const settle = (n: number, sent: Map<string, number>, label: string) =>
      new Promise<void>((resolve, reject) => {
        expected = n;
        if (arrived.size >= n) return resolve();
        const timer = setTimeout(() => reject(new Error(`${label}: ${arrived.size}/${n} arrived in 120 s`)), 120_000);
        waiting = () => {
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        };
        void sent;
      });
    const latencies = (sent: Map<string, number>) => [...sent].map(([id, t0]) => (arrived.get(id) ?? Number.NaN) - t0);

    /** Publishes `n` changes, paced at `rate` per second (0: all at once). */
    async function runWebhooks(n: number, rate: number, label: string) {
      arrived.clear();
      const sent = new Map<string, number>();
      const started = now();
      const pending: Promise<void>[] = [];
      for (let i = 0; i < n; i++) {
        if (rate > 0) {
          const due = started + (i * 1000) / rate;
          if (due > now()) await sleep(due - now());
        }
        const c = change();
        sent.set(c.id, now());
        pending.push(deps.changes.publish(c));
      }
      await Promise.all(pending);
      await settle(n, sent, label);
      return { ...stats(latencies(sent)), seconds: Math.round((now() - started) / 10) / 100 };
    }

    /** The same signed body and headers, POSTed straight to the receiver (node:http, keep-alive). */
    async function runBaseline(n: number, rate: number) {
      arrived.clear();
      const agent = new http.Agent({ keepAlive: true });
      const sent = new Map<string, number>();
      const started = now();
      const pending: Promise<void>[] = [];
      for (let i = 0; i < n; i++) {
        const due = started + (i * 1000) / rate;
        if (due > now()) await sleep(due - now());
        const c = change();
        const body = JSON.stringify({ type: 'scene_forge.completed', timestamp: c.at, data: { id: c.id } });
        const ts = Math.floor(Date.now() / 1000);
        const id = `msg_${i}`;
        sent.set(c.id, now());
        pending.push(
          new Promise<void>((resolve, reject) => {
            const req = http.request(url, {
              method: 'POST',
              agent,
              headers: {
                'content-type': 'application/json',
                'user-agent': 'Atelier-Webhooks/1',
                'webhook-id': id,
                'webhook-timestamp': String(ts),
                'webhook-signature': sign(secret, id, ts, body),
              },
            });
            req.on('response', (res) => {
              res.resume();
              res.on('end', () => resolve());
            });
            req.on('error', reject);
            req.end(body);
          }),
        );
      }
      await Promise.all(pending);
      await settle(n, sent, 'baseline');
      agent.destroy();
      return { ...stats(latencies(sent)), seconds: Math.round((now() - started) / 10) / 100 };
    }

    // Warm-up (JIT, SQLite page cache, the worker loop), then the measured runs.
    await runWebhooks(50, RATE, 'warm-up');
    await runBaseline(50, RATE);
    const baseline = await runBaseline(EVENTS, RATE);
    const paced = await runWebhooks(EVENTS, RATE, 'paced');
    const burst = await runWebhooks(EVENTS, 0, 'burst');
    // The receiver answers before the row is marked: give the last ones a moment.
    const total = 50 + 2 * EVENTS;
    let delivered = { n: 0 };
    for (let i = 0; i < 50; i++) {
      delivered = await deps.db.kysely
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'delivered')
        .executeTakeFirstOrThrow();
      if (Number(delivered.n) >= total) break;
      await sleep(100);
    }
    const result = {
      events: EVENTS,
      ratePerSecond: RATE,
      concurrency: config.webhooks.concurrency,
      paced,
      burst,
      baseline,
      delivered: Number(delivered.n),
      pacedOverheadP50Ms: Math.round((paced.p50 - baseline.p50) * 100) / 100,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (!(paced.p99 <= MAX_P99_MS)) {
      process.stderr.write(`bench/webhooks: paced p99 ${paced.p99} ms is over the budget ${MAX_P99_MS} ms\n`);
      process.exitCode = 1;
    }
  } finally {
    await deps.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { metricValue } from '../../src/jobs/jobs.test-harness.ts';
import { tmpDir } from '../helpers/app.ts';
import { eventually, freePort } from '../helpers/assets.ts';
import { atelier, cleanEnv, healthy, kill } from '../helpers/processes.ts';

/**
 * A worker has no API port; with ATELIER_METRICS_PORT it answers health, readiness and Prometheus
 * metrics on a listener of its own (loopback by default). A real `atelier worker` process on the
 * in-process driver (SQLite): the scheduled jobs it runs at start show in its metrics.
 */
describe('atelier worker with ATELIER_METRICS_PORT (a real process)', () => {
  it('answers /healthz, /readyz and /metrics with the jobs it ran and its queues', async () => {
    const dataDir = tmpDir('atelier-worker-metrics-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const worker = atelier(['worker'], cleanEnv({ ATELIER_DATA_DIR: dataDir, ATELIER_METRICS_PORT: String(port) }));
    try {
      await healthy(base, worker);
      const ready = await fetch(`${base}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([
        200,
        { status: 'ready', checks: { database: 'ok', storage: 'ok' } },
      ]);
      // The built-in cleanup (`jobs.prune`) is scheduled, so it runs as soon as the workers start.
      const text = await eventually(
        async () => {
          const body = await (await fetch(`${base}/metrics`)).text();
          return metricValue(body, 'atelier_job_duration_seconds_count', { job: 'jobs.prune', outcome: 'completed' })
            ? body
            : undefined;
        },
        'the worker to report a completed job',
        20_000,
        200,
      );
      expect(metricValue(text, 'atelier_job_duration_seconds_count', { queue: 'default', job: 'jobs.prune' })).toBe(1);
      expect(metricValue(text, 'atelier_job_queue_depth', { queue: 'default' })).toBeGreaterThanOrEqual(0);
      expect(metricValue(text, 'atelier_job_queue_oldest_wait_seconds', { queue: 'default' })).toBeGreaterThanOrEqual(
        0,
      );
      expect(text).toContain('# TYPE atelier_job_stalls_total counter');
      expect(text).toContain('process_cpu_seconds_total');
      // Only the operations routes: no API on this port.
      expect((await fetch(`${base}/v1/brands`)).status).toBe(404);
    } finally {
      await kill(worker, 'SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    expect(await worker.exited).toBe(0);
  }, 60_000);
});

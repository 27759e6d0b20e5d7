import { describe, expect, it } from 'vitest';
import { metricValue, redisAvailable } from '../../src/jobs/jobs.test-harness.ts';
import { dbKinds } from '../helpers/app.ts';
import { eventually } from '../helpers/assets.ts';
import { apiClient } from '../helpers/processes.ts';
import { withScaledStack } from '../helpers/scaled.ts';

/**
 * Long-poll in the scaled mode, with real processes: the API node (`serve --no-workers`) holds a
 * `Prefer: wait` GET while the worker runs the job; the worker's change travels over Redis
 * pub/sub and wakes the held request long before its wait ends.
 */
const redis = await redisAvailable();
// biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
type Json = any;

describe('long-poll in the scaled mode (real processes)', () => {
  it.runIf(redis && dbKinds().includes('postgres'))(
    'a change on the worker wakes the request held by the API node',
    () =>
      withScaledStack('longpoll', async ({ base, apiKey, metricsToken, worker }) => {
        const headers = { authorization: `Bearer ${apiKey}` };
        const { call } = apiClient(base, apiKey);
        const brand = await call('POST', '/brands', {
          name: 'Solidus',
          industry: 'Apparel',
          description: 'Merchandise for the scaled long-poll test.',
          mission: '',
          values: [],
          tone: [],
          voice: [],
        });
        // The worker is frozen while the run is created and the GET is held: nothing can move it.
        worker.child.kill('SIGSTOP');
        let created: Json;
        let url: string;
        let first: { status: string; ms: number; applied: string | null };
        try {
          created = await call('POST', `/brands/${brand.id}/environment-generations`, {
            prompt: 'A concrete floor against a white wall, soft light',
          });
          url = `${base}/v1/environment-generations/${created.environmentGenerationId}`;
          const heldReq = fetch(url, { headers: { ...headers, prefer: 'wait=30' } });
          const metrics = () => fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
          await eventually(
            async () => (await (await metrics()).text()).includes('atelier_long_poll_held 1') || undefined,
            'the API node to hold the request',
            10_000,
            50,
          );
          await new Promise((r) => setTimeout(r, 500));
          // The API node reads the queues too (a token guards /metrics on its port): the job waits.
          const queued = await (await metrics()).text();
          expect(metricValue(queued, 'atelier_job_queue_depth', { queue: 'generation' })).toBeGreaterThanOrEqual(1);
          expect(metricValue(queued, 'atelier_job_queue_oldest_wait_seconds', { queue: 'generation' })).toBeGreaterThan(
            0.4,
          );
          expect((await fetch(`${base}/metrics`)).status).toBe(401);
          const s0 = performance.now();
          worker.child.kill('SIGCONT');
          const res = await heldReq;
          expect(res.status).toBe(200);
          first = {
            status: ((await res.json()) as Json).status,
            ms: performance.now() - s0,
            applied: res.headers.get('preference-applied'),
          };
        } finally {
          worker.child.kill('SIGCONT');
        }
        // Woken by the worker's change (over Redis), not by the end of the 30 s wait.
        expect(first.status).not.toBe('pending');
        expect(first.applied).toBe('wait=30');
        expect(first.ms).toBeLessThan(15_000);

        const t0 = performance.now();
        const seen = [first];
        let status = first.status;
        while (!['completed', 'failed'].includes(status)) {
          const s = performance.now();
          const res = await fetch(url, { headers: { ...headers, prefer: 'wait=30' } });
          expect(res.status).toBe(200);
          status = ((await res.json()) as Json).status;
          seen.push({ status, ms: performance.now() - s, applied: res.headers.get('preference-applied') });
          if (seen.length > 5) break;
        }
        expect(status, JSON.stringify(seen)).toBe('completed');
        // Every answer came from a wake-up (the API node runs no jobs), none from the 30 s wait.
        expect(performance.now() - t0, JSON.stringify(seen)).toBeLessThan(25_000);
        for (const s of seen) {
          expect(s.applied).toBe('wait=30');
          expect(s.ms).toBeLessThan(25_000);
        }

        // Terminal: at once.
        const s = performance.now();
        const again = await fetch(url, { headers: { ...headers, prefer: 'wait=30' } });
        expect(((await again.json()) as Json).status).toBe('completed');
        expect(performance.now() - s).toBeLessThan(1000);
      }),
    120_000,
  );
});

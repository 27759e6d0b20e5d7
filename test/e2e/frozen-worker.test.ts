import { describe, expect, it } from 'vitest';
import { redisAvailable } from '../../src/jobs/jobs.test-harness.ts';
import { dbKinds } from '../helpers/app.ts';
import { eventually } from '../helpers/assets.ts';
import { apiClient, kill, workerReady } from '../helpers/processes.ts';
import { withScaledStack } from '../helpers/scaled.ts';

/**
 * One frozen worker does not stall the others (issue 28): in the scaled mode (PostgreSQL, BullMQ
 * on Redis, S3), one of two workers is paused with SIGSTOP while generation jobs run. The other
 * keeps completing jobs, and takes over the frozen one's once their lease lapses (5 s here), so
 * every run completes while the first worker is still stopped: no transaction stays open across
 * engine work, and a session frozen inside one is bounded by lock and idle-in-transaction
 * timeouts. Resumed, the frozen worker finishes nothing twice: one unit per run.
 */
const SLOW = 180_000;
const FREEZE_MS = 20_000;
const RUNS = 8;
const redis = await redisAvailable();
describe('a frozen worker (real processes)', () => {
  it.runIf(redis && dbKinds().includes('postgres'))(
    `SIGSTOP one of two workers for up to ${FREEZE_MS / 1000} s: the other completes every job meanwhile`,
    () =>
      withScaledStack(
        'frozen',
        async ({ base, apiKey, worker: frozen, start }) => {
          const { call } = apiClient(base, apiKey);
          const other = start(['worker']);
          await workerReady(other);
          const brand = await call('POST', '/brands', {
            name: 'Frozen',
            industry: 'Testing',
            description: 'A brand for the frozen worker test.',
            mission: '',
            values: [],
            tone: [],
            voice: [],
          });
          const ids: string[] = [];
          for (let i = 0; i < RUNS; i++) {
            const run = await call('POST', `/brands/${brand.id}/environment-generations`, {
              prompt: `A concrete floor against a white plaster wall, window light, take ${i + 1}`,
            });
            ids.push(run.environmentGenerationId);
          }
          const statuses = async () =>
            Promise.all(ids.map(async (id) => (await call('GET', `/environment-generations/${id}`)).status as string));
          // Freeze the first worker once work is under way (both workers take jobs at once).
          await eventually(
            async () => ((await statuses()).some((s) => s !== 'pending') ? true : undefined),
            'a run to start',
            60_000,
            50,
          );
          frozen.child.kill('SIGSTOP');
          const t0 = performance.now();
          try {
            await eventually(
              async () => ((await statuses()).every((s) => s === 'completed') ? true : undefined),
              'every run to complete while the first worker is stopped',
              FREEZE_MS,
              250,
            );
            expect(frozen.child.exitCode).toBeNull(); // still there, still stopped
            expect(performance.now() - t0).toBeLessThan(FREEZE_MS);
            // The frozen worker was holding runs: the other one took them over and said so.
            expect(other.output()).toMatch(/taken over after its lease expired/);
          } finally {
            frozen.child.kill('SIGCONT');
          }
          // Resumed, the first worker finishes nothing twice and goes on working.
          const more = await call('POST', `/brands/${brand.id}/environment-generations`, {
            prompt: 'A marble table top, morning light',
          });
          await eventually(
            async () =>
              (await call('GET', `/environment-generations/${more.environmentGenerationId}`)).status === 'completed'
                ? true
                : undefined,
            'a run after the resume',
            60_000,
            250,
          );
          const usage = await call('GET', '/organizations/current/feature-usage');
          expect(usage.data.pools.environment_generations.usage).toBe(RUNS + 1);
          await kill(frozen, 'SIGTERM');
          expect(await frozen.exited).toBe(0);
        },
        {
          ATELIER_PG_LOCK_TIMEOUT_MS: '2000',
          ATELIER_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000',
        },
      ),
    SLOW,
  );
});

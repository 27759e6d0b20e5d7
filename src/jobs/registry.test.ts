import { Backoffs } from 'bullmq';
import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { backoffDelay, checkId, createJobRegistry, noopLogger, runAttempt } from './registry.ts';
import { createScheduleTicker, periodOf, scheduledJobId } from './scheduler.ts';
import {
  defineJob,
  type JobDefinition,
  JobDefinitionError,
  JobInterruptedError,
  JobPayloadError,
  JobTimeoutError,
} from './types.ts';

const Payload = Type.Object({ n: Type.Integer(), tags: Type.Optional(Type.Array(Type.String())) });

function registered(handler: JobDefinition<typeof Payload>['handler'] = async () => {}, timeoutMs = 1000) {
  const registry = createJobRegistry();
  registry.register([defineJob({ name: 'r.job', payload: Payload, timeoutMs, handler })]);
  return { registry, def: registry.require('r.job') };
}

describe('job registry', () => {
  it('backs off exactly like BullMQ exponential backoff, so both drivers wait the same', () => {
    for (const base of [0, 10, 2000]) {
      for (let attempt = 1; attempt <= 8; attempt++) {
        const bull = Backoffs.calculate({ type: 'exponential', delay: base }, attempt, new Error(), {} as never);
        expect(backoffDelay(attempt, base)).toBe(bull);
      }
    }
    expect([1, 2, 3].map((a) => backoffDelay(a, 2000))).toEqual([2000, 4000, 8000]);
  });

  it('accepts only job ids both drivers can store', () => {
    for (const ok of ['asset-1', 'assets.process.6f1c', 'A_b@c', '0x1'])
      expect(() => checkId('jobId', ok)).not.toThrow();
    for (const bad of ['', 'a:b', '123', '.x', 'a b', 'é', 'x'.repeat(201)]) {
      expect(() => checkId('jobId', bad)).toThrow(JobDefinitionError);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 210 }), (id) => {
        let accepted = true;
        try {
          checkId('jobId', id);
        } catch (err) {
          expect(err).toBeInstanceOf(JobDefinitionError);
          accepted = false;
        }
        // BullMQ's own rules for custom ids: no ':' and not an integer.
        if (accepted) expect(!id.includes(':') && `${Number.parseInt(id, 10)}` !== id && id.length <= 200).toBe(true);
      }),
    );
  });

  it('checks a payload after a JSON round trip and only ever throws JobPayloadError', () => {
    const { registry, def } = registered();
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ n: fc.integer(), tags: fc.array(fc.string()) })), (value) => {
        try {
          expect(registry.payload(def, value)).toEqual(JSON.parse(JSON.stringify(value)));
        } catch (err) {
          expect(err).toBeInstanceOf(JobPayloadError);
        }
      }),
    );
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.self = cyclic;
    expect(() => registry.payload(def, cyclic)).toThrow(/payload is not JSON/);
    expect(() => registry.payload(def, { n: 1n })).toThrow(JobPayloadError);
    expect(() => registry.payload(def, { n: 1, tags: [new Date(0)] })).not.toThrow(); // a Date becomes its ISO text
    expect(() => registry.payload(def, { n: '1' })).toThrow(/payload.n must be integer/);
  });

  it('ends an attempt when the handler ends, at its timeout, or when the worker stops', async () => {
    const ctx = { jobId: 'j', attempt: 1, maxAttempts: 1, log: noopLogger };
    const never = new AbortController().signal;
    await expect(runAttempt(registered(async () => {}).def, { n: 1 }, ctx, never)).resolves.toBeUndefined();
    const boom = registered(async () => {
      throw new Error('boom');
    });
    await expect(runAttempt(boom.def, { n: 1 }, ctx, never)).rejects.toThrow('boom');

    let seen: AbortSignal | undefined;
    const slow = registered(async (_p, c) => {
      seen = c.signal;
      await new Promise(() => {});
    }, 30);
    await expect(runAttempt(slow.def, { n: 1 }, ctx, never)).rejects.toBeInstanceOf(JobTimeoutError);
    expect(seen?.aborted).toBe(true);

    const stopping = new AbortController();
    const cut = runAttempt(registered(() => new Promise(() => {}), 60_000).def, { n: 1 }, ctx, stopping.signal);
    stopping.abort(new JobInterruptedError());
    await expect(cut).rejects.toBeInstanceOf(JobInterruptedError);
  });
});

describe('local schedules', () => {
  it('enqueue one job per period, with an id that names the period, and say when the next starts', async () => {
    const ids: string[] = [];
    const ticker = createScheduleTicker(async (_s, id) => void ids.push(id));
    ticker.set({ key: 'c.sweep', name: 'c.sweep', payload: {}, everyMs: 1000 });
    expect(await ticker.tick(5_000)).toBe(6_000);
    expect(await ticker.tick(5_999)).toBe(6_000);
    expect(await ticker.tick(6_000)).toBe(7_000);
    expect(await ticker.tick(9_500)).toBe(10_000); // periods 7 and 8 passed unseen: skipped, not caught up
    expect(ids).toEqual(['sched.c.sweep.5', 'sched.c.sweep.6', 'sched.c.sweep.9']);
    expect(periodOf(9_999, 1000)).toBe(9);
    expect(scheduledJobId('k', 3)).toBe('sched.k.3');
    expect(() => checkId('jobId', scheduledJobId('jobs.prune', periodOf(Date.now(), 3_600_000)))).not.toThrow();
  });
});

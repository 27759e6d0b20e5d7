import { describe, expect, it } from 'vitest';
import { GenerationError } from '../../engines/image/scene-engine.ts';
import type { ResourceChange } from '../../events/changes.ts';
import type { JobContext, JobLogger } from '../../jobs/types.ts';
import { createRun, defineRunKind, runJob } from './runs.ts';
import type { RunsRepo } from './runs.repo.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';

type Row = Record<string, unknown> & { id: string; status: string; reservation_id: string | null };

const kind = defineRunKind({
  table: 'environment_generations',
  job: 'environments.generate',
  idKey: 'environmentGenerationId',
  change: 'environment_generation',
  pool: 'environment_generations',
});

/** The runs repo's contract over a Map (runs.repo.ts is the SQL of it). */
function fakes() {
  const rows = new Map<string, Row>();
  const repo = {
    async insert(row: Row) {
      rows.set(row.id, { ...row });
    },
    async delete(id: string) {
      rows.delete(id);
    },
    async byId(id: string) {
      const r = rows.get(id);
      return r && { ...r };
    },
    async find() {
      return undefined;
    },
    async start(id: string) {
      const r = rows.get(id);
      if (r?.status === 'pending') r.status = 'processing';
      return r?.status === 'processing';
    },
    async finish(id: string, status: string, fields: object) {
      const r = rows.get(id);
      if (!r || r.status === 'completed' || r.status === 'failed') return false;
      Object.assign(r, fields, { status });
      return true;
    },
  } as unknown as RunsRepo<'environment_generations'>;
  const ledger: string[] = [];
  let n = 0;
  const usage = {
    reserve: async () => `r${++n}`,
    release: async (id: string) => void ledger.push(`release ${id}`),
    commit: async (id: string) => void ledger.push(`commit ${id}`),
  } as unknown as Pick<UsageLedger, 'reserve' | 'release' | 'commit'>;
  const changes: ResourceChange[] = [];
  const deps = {
    repo,
    usage,
    clock: () => new Date('2026-01-01T00:00:00Z'),
    changes: { publish: async (c: ResourceChange) => void changes.push(c) },
  };
  return { rows, deps, ledger, changes };
}

const log: JobLogger = { debug() {}, info() {}, warn() {}, error() {}, child: () => log };
const ctx: JobContext = { jobId: 'j', attempt: 1, maxAttempts: 3, signal: new AbortController().signal, log };
const fields = (id: string) => ({
  brand_id: 'b',
  prompt: 'p',
  context: '{}',
  seed: id.length,
  asset_id: 'a',
  engine: null,
});

describe('generation runs', () => {
  it('createRun writes the row pending with its unit and enqueues its job under the kind’s id', async () => {
    const f = fakes();
    const enqueued: unknown[] = [];
    const row = await createRun(
      { ...f.deps, jobs: { enqueue: async (...a: unknown[]) => void enqueued.push(a) } as never },
      kind,
      'org',
      fields,
    );
    expect(row).toMatchObject({ organization_id: 'org', reservation_id: 'r1', status: 'pending', failed_at: null });
    expect(f.rows.get(row.id)).toEqual(row);
    expect(enqueued).toEqual([
      [kind.job, { environmentGenerationId: row.id }, { jobId: `environments.generate.${row.id}` }],
    ]);
  });

  it('createRun undoes the row and releases the unit when the enqueue fails', async () => {
    const f = fakes();
    const jobs = {
      enqueue: async () => {
        throw new Error('queue away');
      },
    };
    await expect(createRun({ ...f.deps, jobs: jobs as never }, kind, 'org', fields)).rejects.toThrow('queue away');
    expect(f.rows.size).toBe(0);
    expect(f.ledger).toEqual(['release r1']);
  });

  it('runJob completes once: a second run commits and announces nothing', async () => {
    const f = fakes();
    const row = await createRun({ ...f.deps, jobs: { enqueue: async () => 'j' } as never }, kind, 'org', fields);
    let runs = 0;
    const job = runJob(kind, f.deps, {
      backoffMs: 1,
      timeoutMs: 1,
      run: async () => ({ engine: `e${++runs}` }),
      failure: () => ({ code: 'X', message: 'x' }),
      failedLog: 'failed',
    });
    await job.handler(kind.payload(row.id), ctx);
    await job.handler(kind.payload(row.id), ctx);
    expect(runs).toBe(1);
    expect(f.rows.get(row.id)).toMatchObject({ status: 'completed', engine: 'e1' });
    expect(f.ledger).toEqual(['commit r1']);
    expect(f.changes.map((c) => c.status)).toEqual(['processing', 'completed']);
  });

  it('runJob fails at once on a non-retryable GenerationError, and onFailed of a terminal run does nothing', async () => {
    const f = fakes();
    const row = await createRun({ ...f.deps, jobs: { enqueue: async () => 'j' } as never }, kind, 'org', fields);
    const job = runJob(kind, f.deps, {
      backoffMs: 1,
      timeoutMs: 1,
      run: async () => {
        throw new GenerationError('refused', false);
      },
      failure: (e) => ({ code: 'GENERATION_FAILED', message: e.message }),
      failedLog: 'failed',
    });
    await job.handler(kind.payload(row.id), ctx);
    await job.onFailed?.(kind.payload(row.id), new Error('late'), { jobId: 'j', log });
    expect(f.rows.get(row.id)).toMatchObject({
      status: 'failed',
      error_code: 'GENERATION_FAILED',
      error_message: 'refused',
    });
    expect(f.ledger).toEqual(['release r1']);
    expect(f.changes.map((c) => c.status)).toEqual(['processing', 'failed']);
  });
});

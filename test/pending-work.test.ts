import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobLogger } from '../src/jobs/types.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { createForge, uploadCap } from './helpers/generation.ts';
import { createBrand } from './helpers/upload.ts';

/**
 * Work a create left `pending` whose job never reached the queue (a process that died between
 * its commit and its enqueue, a queue that lost its jobs): the sweep enqueues it again after two
 * minutes, leaves alone what the queue still holds, and past ATELIER_PENDING_LIMIT_MINUTES fails
 * it with a reason and gives its units back. One sweep covers every kind of generation work.
 */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

const lines: { level: string; msg: string; obj: object }[] = [];
const log: JobLogger = {
  debug: (obj, msg = '') => lines.push({ level: 'debug', msg, obj }),
  info: (obj, msg = '') => lines.push({ level: 'info', msg, obj }),
  warn: (obj, msg = '') => lines.push({ level: 'warn', msg, obj }),
  error: (obj, msg = '') => lines.push({ level: 'error', msg, obj }),
  child: () => log,
};

describe.each(dbKinds())('pending-work sweep (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let brandId: string;
  let offsetMs = 0; // the app's clock runs this far ahead of the wall clock
  const MIN = 60_000;

  const usageOf = async (pool: string) =>
    (await t.request({ method: 'GET', url: '/v1/organizations/current/feature-usage', key })).json().data.pools[pool]
      .usage as number;
  const dropJob = (jobId: string) => t.deps.db.kysely.deleteFrom('jobs').where('id', '=', jobId).execute();

  beforeAll(async () => {
    t = await createTestApp(kind, { clock: () => new Date(Date.now() + offsetMs) });
    await t.deps.startWorkers({ queues: ['media'] }); // uploads are processed; generation waits
    ({ apiKey: key } = await t.bootstrap());
    brandId = await createBrand(t, key, 'Solidus');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('enqueues again a run whose job was lost, leaves a queued one alone, and ends it past the limit', async () => {
    offsetMs = 0;
    const created = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/environment-generations`,
      key,
      payload: { prompt: 'A concrete floor against a white wall, soft light' },
    });
    expect(created.statusCode, created.body).toBe(202);
    const id: string = created.json().environmentGenerationId;
    const jobId = `environments.generate.${id}`;
    const before = await usageOf('environment_generations');

    // Fresh, or still queued: nothing to do.
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 0, expired: 0 });
    offsetMs = 3 * MIN;
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 0, expired: 0 });

    // The job is lost: enqueued again under the create's job id.
    await dropJob(jobId);
    expect(await t.deps.jobs.get(jobId)).toBeUndefined();
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 1, expired: 0 });
    expect(await t.deps.jobs.get(jobId)).toMatchObject({ status: 'queued', name: 'environments.generate' });
    expect(lines.some((l) => l.level === 'warn' && /enqueued again or ended/.test(l.msg))).toBe(true);

    // Past the limit (60 minutes by default): failed with a reason, the unit given back.
    offsetMs = 61 * MIN;
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 0, expired: 1 });
    const got: Json = (await t.request({ method: 'GET', url: `/v1/environment-generations/${id}`, key })).json();
    expect(got).toMatchObject({ status: 'failed', errorCode: 'GENERATION_FAILED' });
    expect(got.errorMessage).toMatch(/did not start within 60 minutes/);
    expect(await usageOf('environment_generations')).toBe(before - 1);
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 0, expired: 0 });
  });

  it('covers a forge’s variations: each lost job enqueued again, then the forge failed and its units released', async () => {
    offsetMs = 0;
    const product = await uploadCap(t, key, brandId);
    const forgeId: string = (await createForge(t, key, brandId, [product])).sceneForgeId;
    const variations = await t.deps.db.kysely
      .selectFrom('generated_images')
      .select('id')
      .where('scene_forge_id', '=', forgeId)
      .execute();
    expect(variations).toHaveLength(4);
    const before = await usageOf('image_generations');
    for (const v of variations) await dropJob(`scenes.variation.${v.id}`);

    offsetMs = 3 * MIN;
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 4, expired: 0 });
    for (const v of variations) expect(await t.deps.jobs.get(`scenes.variation.${v.id}`)).toBeDefined();

    offsetMs = 61 * MIN;
    expect(await t.deps.sweepPending(log)).toEqual({ requeued: 0, expired: 4 });
    const forge: Json = (await t.request({ method: 'GET', url: `/v1/scene-forges/${forgeId}`, key })).json();
    expect(forge.status).toBe('failed');
    expect(await usageOf('image_generations')).toBe(before - 4);
  });
});

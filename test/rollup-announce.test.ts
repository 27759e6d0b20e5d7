import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScenesRepo } from '../src/modules/scenes/scenes.repo.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { createForge, uploadCap } from './helpers/generation.ts';
import { createBrand } from './helpers/upload.ts';

/**
 * A forge's variations finishing together: each `finish` returns the forge as its own transaction
 * left it, so exactly one of them sees the forge end (the jobs announce that row; reading the
 * forge again after the commit made two variations both announce the end, seen in CI).
 */
describe.each(dbKinds())('variations finishing together (%s)', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(kind);
    await t.deps.startWorkers({ queues: ['media'] }); // uploads are processed; forges stay pending
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('exactly one finish sees the forge end', async () => {
    const { apiKey: key } = await t.bootstrap();
    const brandId = await createBrand(t, key, 'Solidus');
    const product = await uploadCap(t, key, brandId);
    const forgeId: string = (await createForge(t, key, brandId, [product])).sceneForgeId;
    const repo = createScenesRepo(t.deps.db);
    const variations = (await t.deps.db.kysely
      .selectFrom('generated_images')
      .select('id')
      .where('scene_forge_id', '=', forgeId)
      .execute()) as { id: string }[];
    expect(variations).toHaveLength(4);
    const at = new Date().toISOString();
    const done = await Promise.all(
      variations.map((v, i) =>
        repo.finish(v.id, i === 0 ? 'failed' : 'completed', i === 0 ? { error_message: 'x' } : {}, at),
      ),
    );
    const statuses = done.map((d) => d?.parent?.status);
    expect(statuses.filter((s) => s === 'completed')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'completed' || s === 'failed')).toHaveLength(1);
    // A variation already terminal is left as it is: no second announcement.
    expect(await repo.finish(variations[1]!.id, 'completed', {}, at)).toBeUndefined();
    expect((await repo.forgeById(forgeId))?.status).toBe('completed');
  }, 60_000);
});

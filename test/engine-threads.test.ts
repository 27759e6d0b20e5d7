import { afterAll, describe, expect, it } from 'vitest';
import { createThreadPool } from '../src/adapters/workers/thread-pool.ts';
import { createLocalSceneEngine } from '../src/engines/image/local/local-scene-engine.ts';
import { GenerationError } from '../src/engines/image/scene-engine.ts';
import { analyzePng } from '../src/modules/generation/scoring.ts';
import {
  ENGINE_WORKER,
  pooledAnalyze,
  pooledEnvironmentEngine,
  pooledSceneEngine,
  pooledSigning,
} from '../src/modules/generation/pooled-engines.ts';
import { loadOrCreateDevCredentials } from '../src/adapters/provenance/credentials.ts';
import { createLocalEnvironmentEngine } from '../src/engines/environment/local/local-environment-engine.ts';
import { createTestApp, tmpDir } from './helpers/app.ts';
import { readIndependently } from './helpers/c2pa.ts';
import { download, productFixture, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * The engine threads (ATELIER_ENGINE_THREADS): the local engines and the analysis give the same
 * bytes on a worker thread as on the event loop, a file is signed there with the credentials handed
 * over, failures keep their class, and an abort ends the task.
 */
describe('engine thread pool', () => {
  const pool = createThreadPool({ file: ENGINE_WORKER, threads: 1, idleMs: 5_000 });
  afterAll(() => pool.close());
  const request = {
    prompt: 'The red cap on a warm plaster wall',
    aspectRatio: '4:3' as const,
    width: 512,
    height: 384,
    variationIndex: 1,
    seed: 42,
    products: [{ bytes: productFixture('solidus_cap_red_1.png') }],
    palette: ['#c0392b'],
  };

  it('signs a file on a thread with the credentials handed over (the key crosses as a KeyObject)', async () => {
    const { credentials } = await loadOrCreateDevCredentials(tmpDir('atelier-thread-signer-'));
    const png = productFixture('solidus_cap_red_1.png');
    const signed = await pooledSigning(pool)(credentials, png, {
      title: 'cap.png',
      format: 'image/png',
      sourceType: 'compositeSynthetic',
      generator: { version: '1.0.0', engine: 'local' },
      ingredients: [],
    });
    expect(Buffer.isBuffer(signed.bytes)).toBe(true);
    expect(signed.summary.validation).toBe('valid');
    const reading = await readIndependently(signed.bytes);
    expect(reading?.failures).toEqual([]);
    expect(reading?.successes).toContain('claimSignature.validated');
  });

  it('makes the same scene, environment and scores on a thread as on the event loop', async () => {
    const env = { prompt: request.prompt, width: 512, height: 384, seed: 7, palette: [] };
    const [onThread, here] = await Promise.all([
      pooledSceneEngine(pool, 1024).generate(request),
      createLocalSceneEngine({ longSide: 1024 }).generate(request),
    ]);
    expect(Buffer.isBuffer(onThread.png)).toBe(true);
    expect(onThread.png.equals(here.png)).toBe(true);
    expect(onThread.productBoxes).toEqual(here.productBoxes);
    expect(Buffer.isBuffer(onThread.productMask)).toBe(true);
    const backdrop = await pooledEnvironmentEngine(pool).generate(env);
    expect(backdrop.png.equals((await createLocalEnvironmentEngine().generate(env)).png)).toBe(true);
    const options = { palette: request.palette, productMask: here.productMask };
    expect(await pooledAnalyze(pool)(here.png, options)).toEqual(await analyzePng(here.png, options));
  }, 120_000);

  it('throws a GenerationError again with its retryable flag, and aborts', async () => {
    const bad = pooledSceneEngine(pool, 1024).generate({ ...request, width: 7 });
    await expect(bad).rejects.toBeInstanceOf(GenerationError);
    await expect(bad).rejects.toMatchObject({ retryable: false, message: expect.stringMatching(/not supported/) });
    const controller = new AbortController();
    const slow = pooledSceneEngine(pool, 1024).generate({
      ...request,
      width: 2048,
      height: 1536,
      signal: controller.signal,
    });
    controller.abort();
    await expect(slow).rejects.toThrow(/abort/i);
  }, 120_000);
});

describe('a forge and a video over HTTP with the engines on threads', () => {
  it('completes every variation, scored, and the video', async () => {
    const t = await createTestApp('sqlite', { env: { ATELIER_ENGINE_THREADS: '1' } });
    try {
      const { apiKey: key } = await t.bootstrap();
      await t.deps.startWorkers();
      const brandId = await createBrand(t, key, 'Threads');
      const [product] = await uploadCompleteAssets(t, key, brandId, [
        { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
      ]);
      const created = await t.request({
        method: 'POST',
        url: `/v1/brands/${brandId}/scene-forges`,
        key,
        payload: {
          blendingPrompt: 'The cap on a sunlit wooden table',
          promptIsEnhanced: false,
          productAssetIds: [product],
        },
      });
      expect(created.statusCode, created.body).toBe(202);
      const forge = await settledGeneration(t, key, `/v1/scene-forges/${created.json().sceneForgeId}`, 180_000);
      expect(forge.status).toBe('completed');
      for (const v of forge.variations) {
        expect(v.status).toBe('completed');
        expect(v.scores.attention_potential).toBeGreaterThan(0);
      }
      // Signed on the thread too (the key crosses over): c2pa-ts finds it valid.
      const signed = await readIndependently(await download(t, forge.variations[0].asset.url));
      expect(signed?.failures).toEqual([]);
      expect(signed?.successes).toContain('claimSignature.validated');
      const videos = await t.request({
        method: 'POST',
        url: `/v1/brands/${brandId}/generate-video`,
        key,
        payload: {
          startImageAssetId: forge.variations[0].asset.assetId,
          userPrompts: ['Slow push-in on the cap'],
          dimension: { width: 320, height: 256 },
          duration: 1,
        },
      });
      expect(videos.statusCode, videos.body).toBeLessThan(300);
      const groupId = videos.json().data[0].generatedVideosGroupId;
      const group = await settledGeneration(t, key, `/v1/generated-videos-groups/${groupId}`, 180_000);
      expect(group.status).toBe('completed');
    } finally {
      await t.close();
    }
  }, 300_000);
});

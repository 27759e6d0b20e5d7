import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { redisAvailable } from '../../src/jobs/jobs.test-harness.ts';
import { dbKinds } from '../helpers/app.ts';
import { eventually } from '../helpers/assets.ts';
import { productFixture } from '../helpers/generation.ts';
import { apiClient, kill } from '../helpers/processes.ts';
import { withScaledStack } from '../helpers/scaled.ts';

/**
 * Generation in the scaled mode, with real processes: PostgreSQL, BullMQ on Redis and an
 * S3-compatible store (s3rver); the API (`serve --no-workers`) and a worker run apart. A product is
 * uploaded, a prompt enhanced, an environment generated, a scene forge made on it and a video
 * made from a scene; every image and video is downloaded from its presigned S3 link.
 */
const SLOW = 240_000;
const redis = await redisAvailable();
// biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
type Json = any;

describe('generation in the scaled mode (real processes)', () => {
  it.runIf(redis && dbKinds().includes('postgres'))(
    'enhancement, environment, scene forge, refinement and video through an API node and a worker on PostgreSQL, BullMQ and S3',
    () =>
      withScaledStack('gen', async ({ base, apiKey, worker }) => {
        const { call } = apiClient(base, apiKey);
        const settled = (url: string, done: (b: Json) => boolean) =>
          eventually(
            async () => {
              const b = await call('GET', url);
              return done(b) ? b : undefined;
            },
            url,
            120_000,
            200,
          );
        const terminal = (b: Json) => ['completed', 'failed'].includes(b.status);

        const brand = await call('POST', '/brands', {
          name: 'Solidus',
          industry: 'Apparel',
          description: 'Merchandise for the scaled generation test.',
          mission: '',
          values: [],
          tone: [],
          voice: [],
        });
        const bytes = productFixture('solidus_cap_red_1.png');
        const { uploads } = await call('POST', '/assets/initiate-upload', {
          brandId: brand.id,
          files: [{ fileName: 'cap.png', fileType: 'image/png', fileSize: bytes.length }],
        });
        const slot = uploads[0];
        const put = await fetch(slot.uploadUrl, {
          method: slot.uploadMethod,
          headers: slot.uploadHeaders,
          body: bytes,
        });
        expect(put.status).toBe(200);
        await call('POST', '/assets/confirm-upload', { uploadId: slot.uploadId });
        await settled(`/assets/${slot.assetId}`, (a) => a.status === 'complete');

        const enh = await call('POST', `/brands/${brand.id}/scene-forge-prompt-enhancements`, {
          originalPrompt: 'the cap on a wooden table by a window',
          productAssetIds: [slot.assetId],
        });
        const enhanced = await settled(
          `/brands/${brand.id}/scene-forge-prompt-enhancements/${enh.promptEnhancementId}`,
          terminal,
        );
        expect(enhanced.status).toBe('completed');

        const envRun = await call('POST', `/brands/${brand.id}/environment-generations`, {
          prompt: 'warm oak table against a white plaster wall, window light from the right',
        });
        const environment = await settled(`/environment-generations/${envRun.environmentGenerationId}`, terminal);
        expect(environment.status).toBe('completed');

        const forge = await call('POST', `/brands/${brand.id}/scene-forges`, {
          blendingPrompt: enhanced.optimizedPrompt,
          promptIsEnhanced: true,
          aspectRatio: '4:3',
          productAssetIds: [slot.assetId],
          environmentAssetId: environment.generatedAsset.assetId,
        });
        const done = await settled(`/scene-forges/${forge.sceneForgeId}`, terminal);
        expect(done).toMatchObject({ status: 'completed', promptIsEnhanced: true });
        for (const v of done.variations) {
          expect(v).toMatchObject({ status: 'completed', width: 256, height: 192 }); // ATELIER_IMAGE_LONG_SIDE
          const res = await fetch(v.asset.url); // a presigned S3 link
          expect(res.status).toBe(200);
          const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
          expect([meta.width, meta.height]).toEqual([256, 192]);
        }
        // A refinement, made by the worker too: generation 2 with score deltas.
        const refined = await call('POST', `/scene-forges/${forge.sceneForgeId}/refinements`, {
          generatedImageId: done.variations[0].generatedImageId,
          steerObjective: 'brand_awareness',
          variationCount: 1,
        });
        expect(refined.status).toBe('processing');
        const after = await settled(`/scene-forges/${forge.sceneForgeId}`, terminal);
        expect(after.refinedVariations[0]).toMatchObject({ generation: 2, status: 'completed' });
        expect(after.refinedVariations[0].variations[0].scoreDeltas).toBeDefined();
        // A video from a generated scene, rendered by the worker and stored in S3 with its preview.
        const videoRun = await call('POST', `/brands/${brand.id}/generate-video`, {
          startImageAssetId: done.variations[0].asset.assetId,
          userPrompts: ['Slow push-in on the cap'],
          dimension: { width: 640, height: 480 },
          model: 'video-model-7',
          duration: 2,
        });
        const group = await settled(`/generated-videos-groups/${videoRun.data[0].generatedVideosGroupId}`, terminal);
        expect(group.status, JSON.stringify(group)).toBe('completed');
        for (const link of [group.variations[0].asset.url, group.variations[0].previewUrl]) {
          const res = await fetch(link);
          expect(res.status).toBe(200);
          const head = Buffer.from(await res.arrayBuffer())
            .subarray(4, 8)
            .toString('latin1');
          expect(head).toBe('ftyp'); // an MP4
        }
        await kill(worker, 'SIGTERM');
        expect(await worker.exited).toBe(0);
      }),
    SLOW,
  );
});

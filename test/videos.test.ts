import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeVideo } from '../src/adapters/media/video.ts';
import { chooseCameraMove } from '../src/engines/video/camera.ts';
import { type LumaFake, startLumaFake } from '../src/engines/video/fakes/luma-fake.ts';
import { type RunwayFake, startRunwayFake } from '../src/engines/video/fakes/runway-fake.ts';
import { makeVideo, tempDir } from './fixtures/media/generate.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { flatPng, freePort } from './helpers/assets.ts';
import { download, productFixture, productOnWhite, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets, uploadingAsset } from './helpers/upload.ts';

/**
 * Video generation over HTTP: POST /brands/{brandId}/generate-video, the group list and read, on
 * the local video engine (real ffmpeg renders, stored as `video` assets). Every rule of the body,
 * the plan tiers and the referenced assets is exercised with its status and code; the per-model
 * matrix in full is src/modules/videos/video-rules.test.ts.
 */
const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
const DIM = { width: 456, height: 256 };
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;
type Seven = [string, string, string, string, string, string, string];

const media = tempDir('atelier-video-test-');
afterAll(() => media.cleanup());
/** A test clip, encoded once per file (both databases' suites upload the same bytes). */
const clips = new Map<string, Buffer>();
const clip = (name: string, spec: Parameters<typeof makeVideo>[1]) => {
  const key = `${name} ${JSON.stringify(spec)}`;
  let bytes = clips.get(key);
  if (!bytes) {
    bytes = fs.readFileSync(makeVideo(media.file(name), { width: 320, height: 240, ...spec }));
    clips.set(key, bytes);
  }
  return bytes;
};

async function probeBytes(bytes: Buffer, name: string) {
  const file = media.file(name);
  fs.writeFileSync(file, bytes);
  return probeVideo(file, 30_000);
}

describe.each(dbKinds())('video generation over HTTP (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let otherKey: string;
  let brandId: string;
  let start: string;
  let end: string;
  let middle: string;
  let refImage: string;
  let refVideo: string;
  let shortVideo: string;
  let slowVideo: string;
  let longVideos: string[];
  let pending: string;

  const url = (b = brandId) => `/v1/brands/${b}/generate-video`;
  const post = (payload: unknown, k = key, b = brandId) =>
    t.request({ method: 'POST', url: url(b), key: k, payload: payload as object });
  const get = (u: string, k = key) => t.request({ method: 'GET', url: u, key: k });
  const used = async (pool: string, org = orgId) =>
    ((await t.deps.usage.periodUsage(org)).used as Record<string, number>)[pool] ?? 0;
  const expectError = (res: { statusCode: number; json(): Json; body: string }, status: number, code: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code, res.body).toBe(code);
    return res.json().error as Json;
  };
  const i2v = (over: Json = {}) => ({
    startImageAssetId: start,
    userPrompts: ['Slow push-in on the cap'],
    dimension: DIM,
    model: 'video-model-7',
    duration: 2,
    ...over,
  });
  const r2v = (over: Json = {}) => ({
    referenceImageAssetIds: [refImage],
    userPrompts: ['The cap, cut to the beat'],
    dimension: DIM,
    model: 'video-model-8',
    duration: 6,
    ...over,
  });

  beforeAll(async () => {
    t = await createTestApp(kind);
    const a = await t.bootstrap({ orgName: 'Org A' });
    key = a.apiKey;
    orgId = a.organizationId;
    otherKey = (await t.bootstrap({ orgName: 'Org B' })).apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, 'Solidus');
    const ids = await uploadCompleteAssets(
      t,
      key,
      brandId,
      [
        { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
        { name: 'end.jpg', type: 'image/jpeg', bytes: await productOnWhite(640, 360) },
        { name: 'middle.png', type: 'image/png', bytes: await flatPng(640, 360, '#d8c3a5') },
        { name: 'mug.png', type: 'image/png', bytes: productFixture('solidus_mug_set.png') },
        { name: 'ref.mp4', type: 'video/mp4', bytes: clip('ref.mp4', { seconds: 2.5, fps: 30 }) },
        { name: 'short.mp4', type: 'video/mp4', bytes: clip('short.mp4', { seconds: 1, fps: 30 }) },
        { name: 'slow.mp4', type: 'video/mp4', bytes: clip('slow.mp4', { seconds: 2.5, fps: 15 }) },
        {
          name: 'long1.mp4',
          type: 'video/mp4',
          bytes: clip('long1.mp4', { seconds: 16, fps: 24, width: 160, height: 120 }),
        },
        {
          name: 'long2.mp4',
          type: 'video/mp4',
          bytes: clip('long2.mp4', { seconds: 16, fps: 24, width: 160, height: 120 }),
        },
      ],
      120_000,
    );
    [start, end, middle, refImage, refVideo, shortVideo, slowVideo] = ids.slice(0, 7) as Seven;
    longVideos = ids.slice(7);
    pending = await uploadingAsset(t, key, brandId, {
      name: 'later.png',
      type: 'image/png',
      bytes: await flatPng(64, 64),
    });
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  it('image-to-video: a group with one variation per prompt, each a playable H.264 video asset with a preview', async () => {
    const before = await used('video_seconds');
    const res = await post(
      i2v({
        userPrompts: ['Slow push-in on the cap', 'Orbit around the cap'],
        enableAudio: true,
        partner: 'partner-1',
      }),
    );
    expect(res.statusCode, res.body).toBe(202);
    const body = res.json();
    expect(body.pagination).toEqual({ currentPage: 1, totalPages: 1, totalItems: 1, itemsPerPage: 1 });
    expect(body.data).toHaveLength(1);
    const group = body.data[0];
    expect(group).toMatchObject({
      brandId,
      partner: 'partner-1',
      status: 'pending',
      prompt: 'Slow push-in on the cap',
      promptIsEnhanced: false,
      dimension: DIM,
      enableAudio: true,
      useBrandDna: false,
      model: 'video-model-7',
      duration: 2,
      sourceAsset: { assetId: start, assetType: 'image' },
      endFrameAsset: null,
      intermediateFrameAssets: [],
      referenceImageAssets: [],
      referenceVideoAssets: [],
      error: null,
    });
    expect(group.variations).toHaveLength(2);
    for (const [i, v] of group.variations.entries()) {
      expect(v).toMatchObject({
        status: 'pending',
        prompt: ['Slow push-in on the cap', 'Orbit around the cap'][i],
        width: DIM.width,
        height: DIM.height,
        enableAudio: true,
        model: 'video-model-7',
        duration: 2,
        previewUrl: null,
        error: null,
      });
    }
    expect(await used('video_seconds')).toBe(before + 4); // 2 s × 2 prompts, reserved at create

    const done = await settledGeneration(
      t,
      key,
      `/v1/generated-videos-groups/${group.generatedVideosGroupId}`,
      180_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.completedAt).toBeDefined();
    expect(done.variations.map((v: Json) => v.camera)).toEqual(['push-in', 'orbit']);
    for (const v of done.variations) {
      expect(v).toMatchObject({ status: 'completed', width: DIM.width, height: DIM.height, error: null });
      expect(v.generatedAt).toBeDefined();
      expect(v.asset).toMatchObject({ assetId: v.assetId, assetType: 'video' });
      const asset = (await get(`/v1/assets/${v.assetId}`)).json();
      expect(asset).toMatchObject({
        status: 'complete',
        brandId,
        metadata: { type: 'video', fileType: 'video', detectedFormat: 'MP4', dimension: DIM, videoCodec: 'h264' },
      });
      expect(asset.metadata.duration).toBeCloseTo(2, 1);
      expect(asset.thumbnailUrl).toBeDefined();
      const probe = await probeBytes(await download(t, v.asset.url), `${v.generatedVideoId}.mp4`);
      expect(probe).toMatchObject({ width: DIM.width, height: DIM.height, videoCodec: 'h264', audioCodec: 'aac' });
      expect(probe.durationSeconds).toBeCloseTo(2, 1);
      expect(probe.fps).toBeCloseTo(30, 0);
      const preview = await probeBytes(await download(t, v.previewUrl), `${v.generatedVideoId}-preview.mp4`);
      expect(preview.videoCodec).toBe('h264');
      expect(preview.width).toBe(320);
    }
    expect(await used('video_seconds')).toBe(before + 4); // committed

    // Listed in its partner's bucket, not in the default one.
    const listed = (await get(`/v1/brands/${brandId}/generated-videos-groups?partner=partner-1`)).json();
    expect(listed.data.map((g: Json) => g.generatedVideosGroupId)).toContain(group.generatedVideosGroupId);
    const defaults = (await get(`/v1/brands/${brandId}/generated-videos-groups`)).json();
    expect(defaults.data.map((g: Json) => g.generatedVideosGroupId)).not.toContain(group.generatedVideosGroupId);
  }, 240_000);

  it('reference-to-video (video-model-8): no source asset, references in the order sent, no preview link', async () => {
    const res = await post(r2v({ referenceImageAssetIds: [refImage, start], referenceVideoAssetIds: [refVideo] }));
    expect(res.statusCode, res.body).toBe(202);
    const group = res.json().data[0];
    expect(group.sourceAsset).toBeNull();
    expect(group.endFrameAsset).toBeNull();
    expect(group.referenceImageAssets.map((a: Json) => a.assetId)).toEqual([refImage, start]);
    expect(group.referenceVideoAssets).toMatchObject([{ assetId: refVideo, assetType: 'video' }]);
    const done = await settledGeneration(
      t,
      key,
      `/v1/generated-videos-groups/${group.generatedVideosGroupId}`,
      180_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const [v] = done.variations;
    expect(v.previewUrl).toBeNull();
    const probe = await probeBytes(await download(t, v.asset.url), 'r2v.mp4');
    expect(probe).toMatchObject({ width: DIM.width, height: DIM.height, videoCodec: 'h264' });
    expect(probe.durationSeconds).toBeCloseTo(6, 1);
    expect(probe.audioCodec).toBeUndefined(); // enableAudio false: no track at all
  }, 240_000);

  it('optimized: intermediate frames in temporal order within the duration’s bounds', async () => {
    const res = await post(
      i2v({ model: 'optimized', duration: 4, intermediateImageAssetIds: [middle], endImageAssetId: end }),
    );
    expect(res.statusCode, res.body).toBe(202);
    const group = res.json().data[0];
    expect(group.intermediateFrameAssets.map((a: Json) => a.assetId)).toEqual([middle]);
    expect(group.endFrameAsset).toMatchObject({ assetId: end, assetType: 'image' });
    const done = await settledGeneration(
      t,
      key,
      `/v1/generated-videos-groups/${group.generatedVideosGroupId}`,
      180_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const probe = await probeBytes(await download(t, done.variations[0].asset.url), 'optimized.mp4');
    expect(probe.durationSeconds).toBeCloseTo(4, 1);
  }, 240_000);

  it('defaults: model video-model-7 and its 8 s, audio off, Brand DNA off, default partner', async () => {
    const res = await post({ startImageAssetId: start, userPrompts: ['A slow pan right'], dimension: DIM });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data[0]).toMatchObject({
      model: 'video-model-7',
      duration: 8,
      enableAudio: false,
      useBrandDna: false,
      partner: 'default',
    });
  });

  it('rejects every body rule with 400 INVALID_REQUEST naming the field, and reserves nothing', async () => {
    const before = await used('video_seconds');
    const cases: [string, Json][] = [
      ['body', { dimension: DIM, startImageAssetId: start }],
      ['userPrompts', i2v({ userPrompts: [] })],
      ['userPrompts', i2v({ userPrompts: [''] })],
      ['userPrompts', i2v({ userPrompts: ['x'.repeat(1001)] })],
      ['userPrompts', i2v({ userPrompts: ['a', 'b', 'c', 'd', 'e'] })],
      ['userPrompts', r2v({ userPrompts: ['a', 'b', 'c'] })],
      ['dimension', i2v({ dimension: undefined })],
      ['dimension.width', i2v({ dimension: { width: 457, height: 256 } })],
      ['dimension.width', i2v({ dimension: { width: 4000, height: 256 } })],
      ['dimension.height', i2v({ dimension: { width: 456, height: 100 } })],
      ['dimension.width', i2v({ model: 'video-model-1', dimension: { width: 2560, height: 1440 } })],
      ['model', i2v({ model: 'video-model-10' })],
      ['duration', i2v({ duration: 0 })],
      ['duration', i2v({ duration: 2.5 })],
      ['duration', r2v({ duration: 7 })],
      ['startImageAssetId', i2v({ startImageAssetId: undefined })],
      ['startImageAssetId', r2v({ startImageAssetId: start })],
      ['endImageAssetId', i2v({ model: 'video-model-1', endImageAssetId: end })],
      ['endImageAssetId', r2v({ endImageAssetId: end })],
      ['referenceImageAssetIds', i2v({ referenceImageAssetIds: [refImage] })],
      ['referenceVideoAssetIds', i2v({ referenceVideoAssetIds: [refVideo] })],
      ['referenceImageAssetIds', r2v({ referenceImageAssetIds: [] })],
      ['referenceImageAssetIds', r2v({ referenceImageAssetIds: Array.from({ length: 31 }, () => MISSING) })],
      ['intermediateImageAssetIds', i2v({ intermediateImageAssetIds: [middle] })],
      ['intermediateImageAssetIds', r2v({ intermediateImageAssetIds: [middle] })],
      ['intermediateImageAssetIds', i2v({ model: 'optimized', duration: 4, intermediateImageAssetIds: [middle, end] })],
      ['intermediateImageAssetIds', i2v({ model: 'optimized', intermediateImageAssetIds: [] })],
      ['enableAudio', i2v({ model: 'video-model-1', enableAudio: true })],
      ['partner', i2v({ partner: 'partner-9' })],
      ['extra', i2v({ extra: 1 })],
      // Reference media rules (video-model-8 rules 2 and 3).
      ['referenceImageAssetIds[0]', r2v({ referenceImageAssetIds: [refVideo] })],
      ['referenceVideoAssetIds[0]', r2v({ referenceVideoAssetIds: [refImage] })],
      ['referenceVideoAssetIds[0]', r2v({ referenceVideoAssetIds: [shortVideo] })],
      ['referenceVideoAssetIds[0]', r2v({ referenceVideoAssetIds: [slowVideo] })],
      ['referenceVideoAssetIds', r2v({ referenceVideoAssetIds: longVideos })],
    ];
    for (const [field, body] of cases) {
      const res = await post(body);
      const error = expectError(res, 400, 'INVALID_REQUEST');
      expect(JSON.stringify(error), `${field}: ${res.body}`).toContain(
        field === 'extra' || field === 'body' ? '' : field,
      );
    }
    expect(await used('video_seconds')).toBe(before);
  });

  it('asset rules: 404 for assets and brands outside the organization, 422 for frames not ready or not pictures', async () => {
    const before = await used('video_seconds');
    expectError(await post(i2v({ startImageAssetId: MISSING })), 404, 'ASSET_NOT_FOUND');
    expectError(await post(i2v({ endImageAssetId: MISSING })), 404, 'ASSET_NOT_FOUND');
    expectError(await post(r2v({ referenceImageAssetIds: [refImage, MISSING] })), 404, 'ASSET_NOT_FOUND');
    expectError(await post(i2v(), key, MISSING), 404, 'BRAND_NOT_FOUND');
    expectError(await post(i2v(), otherKey), 404, 'BRAND_NOT_FOUND');
    const otherBrand = await createBrand(t, otherKey, 'Other');
    // Another organization's start frame is simply not found.
    expectError(await post(i2v(), otherKey, otherBrand), 404, 'ASSET_NOT_FOUND');
    expectError(await post(i2v({ startImageAssetId: pending })), 422, 'ASSET_NOT_READY');
    expectError(await post(i2v({ startImageAssetId: refVideo })), 422, 'ASSET_NOT_IMAGE');
    expectError(await post(r2v({ referenceImageAssetIds: [pending] })), 422, 'ASSET_NOT_READY');
    expect(await used('video_seconds')).toBe(before);
    expectError(await t.request({ method: 'POST', url: url(), payload: i2v() }), 401, 'UNAUTHORIZED');
  });

  it('a reference video without a measured duration: 409 conflict while processing, 400 invalid_argument once complete', async () => {
    const [unmeasured] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'unmeasured.mp4', type: 'video/mp4', bytes: clip('unmeasured.mp4', { seconds: 2, fps: 30 }) },
    ]);
    const set = (fields: Json) =>
      t.deps.db.kysely.updateTable('assets').set(fields).where('id', '=', unmeasured!).execute();
    await set({ status: 'processing', duration: null });
    expectError(await post(r2v({ referenceVideoAssetIds: [unmeasured] })), 409, 'conflict');
    await set({ status: 'complete' });
    expectError(await post(r2v({ referenceVideoAssetIds: [unmeasured] })), 400, 'invalid_argument');
  });

  it('plan tiers: upgrade_required (403) over the tier, nothing trimmed; QUOTA_EXCEEDED past video_seconds', async () => {
    const tier = async (plan: string) => {
      const k = (await t.bootstrap({ plan, orgName: `${plan} org` })).apiKey;
      return { k, b: await createBrand(t, k, `${plan} brand`) };
    };
    const free = await tier('free');
    const pro = await tier('pro');
    const ids = (n: number) =>
      Array.from({ length: n }, (_, i) => `0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a${String(i).padStart(2, '0')}`);
    // Free: no reference-to-video at all.
    let e = expectError(await post(r2v({ referenceImageAssetIds: ids(1) }), free.k, free.b), 403, 'upgrade_required');
    expect(e.details).toMatchObject({ feature: 'reference_to_video', plan: 'free' });
    // Pro: references capped at 4 images, no videos, 10 s.
    e = expectError(await post(r2v({ referenceImageAssetIds: ids(5) }), pro.k, pro.b), 403, 'upgrade_required');
    expect(e.details).toMatchObject({ limit: 'maxReferenceImages', max: 4, requested: 5 });
    e = expectError(
      await post(r2v({ referenceImageAssetIds: ids(1), referenceVideoAssetIds: ids(1) }), pro.k, pro.b),
      403,
      'upgrade_required',
    );
    expect(e.details).toMatchObject({ feature: 'reference_videos' });
    e = expectError(
      await post(r2v({ referenceImageAssetIds: ids(1), duration: 15 }), pro.k, pro.b),
      403,
      'upgrade_required',
    );
    expect(e.details).toMatchObject({ limit: 'maxDurationSeconds', max: 10, requested: 15 });
    // Brand DNA is a feature of its own.
    expectError(await post(i2v({ useBrandDna: true, startImageAssetId: MISSING }), free.k, free.b), 403, 'FORBIDDEN');

    // Quota: the free plan has 30 s; 4 prompts × 10 s is refused whole.
    const [frame] = await uploadCompleteAssets(t, free.k, free.b, [
      { name: 'f.png', type: 'image/png', bytes: await flatPng(320, 240, '#804020') },
    ]);
    const freeOrg = (
      await t.request({ method: 'GET', url: '/v1/organizations/current/feature-usage', key: free.k })
    ).json();
    expect(freeOrg.data.pools.video_seconds.cap).toBe(30);
    expectError(
      await post(i2v({ startImageAssetId: frame, userPrompts: ['a', 'b', 'c', 'd'], duration: 10 }), free.k, free.b),
      403,
      'QUOTA_EXCEEDED',
    );
    const after = (
      await t.request({ method: 'GET', url: '/v1/organizations/current/feature-usage', key: free.k })
    ).json();
    expect(after.data.pools.video_seconds.usage).toBe(0);
  });

  describe('image-to-video prompt enhancement', () => {
    const enhUrl = (b = brandId) => `/v1/brands/${b}/image-to-video-prompt-enhancements`;
    const enhance = (payload: Json, k = key, b = brandId) =>
      t.request({ method: 'POST', url: enhUrl(b), key: k, payload });
    const body = (over: Json = {}) => ({
      startFrameAssetId: start,
      originalPrompt: 'the red cap turning slowly on a table',
      aspectRatio: '16:9',
      model: 'video-model-7',
      duration: 8,
      ...over,
    });

    it('writes a prompt with subject, one camera move, pacing and audio cues; generate-video accepts it as enhanced', async () => {
      const before = await used('prompt_enhancements');
      const res = await enhance(body({ enableAudio: true, endFrameAssetId: end }));
      expect(res.statusCode, res.body).toBe(202);
      const created = res.json();
      expect(created).toMatchObject({
        brandId,
        status: 'pending',
        startFrameAssetId: start,
        endFrameAssetId: end,
        referenceImageAssetIds: [],
        referenceVideoAssetIds: [],
        intermediateFrameAssetIds: [],
        originalPrompt: 'the red cap turning slowly on a table',
        aspectRatio: '16:9',
        model: 'video-model-7',
        duration: 8,
        enableAudio: true,
        useBrandDna: false,
        warnings: [],
      });
      expect(created).not.toHaveProperty('enhancedPrompt');
      expect(await used('prompt_enhancements')).toBe(before + 1);
      const done = await settledGeneration(t, key, `${enhUrl()}/${created.promptEnhancementId}`);
      expect(done.status, JSON.stringify(done)).toBe('completed');
      const text: string = done.enhancedPrompt;
      expect(text.length).toBeGreaterThan(created.originalPrompt.length);
      expect(text).toContain('red cap');
      expect(chooseCameraMove(text, 0)).toMatchObject({ move: done.camera, source: 'prompt' });
      expect(text).toMatch(/\b8 ?s\b|8 seconds|8-second/i); // paced for the duration
      expect(text).toMatch(/audio|sound|music/i);

      // The enhanced prompt, sent as is, is accepted as enhanced (within the 1000-character prompt bound).
      expect([...text].length).toBeLessThanOrEqual(1000);
      const video = await post(i2v({ userPrompts: [text], promptIsEnhanced: true, duration: 2 }));
      expect(video.statusCode, video.body).toBe(202);
      expect(video.json().data[0]).toMatchObject({ promptIsEnhanced: true });
      const edited = await post(i2v({ userPrompts: [`${text} Edited.`], promptIsEnhanced: true, duration: 2 }));
      expect(edited.json().data[0].promptIsEnhanced).toBe(false);
      expect(edited.json().data[0].variations[0].warnings).toMatchObject([{ code: 'PROMPT_NOT_ENHANCED' }]);
    });

    it('applies the per-model rules with this body’s names, the prompt bound per model, and the tier', async () => {
      const before = await used('prompt_enhancements');
      const cases: [string, Json][] = [
        ['aspectRatio', body({ aspectRatio: '1:1' })],
        ['aspectRatio', body({ aspectRatio: undefined })],
        ['model', body({ model: undefined })],
        ['originalPrompt', body({ originalPrompt: '' })],
        ['originalPrompt', body({ originalPrompt: 'x'.repeat(2501) })],
        [
          'originalPrompt',
          body({
            originalPrompt: 'x'.repeat(5001),
            model: 'video-model-8',
            startFrameAssetId: undefined,
            referenceImageAssetIds: [refImage],
            duration: 6,
          }),
        ],
        ['startFrameAssetId', body({ startFrameAssetId: undefined })],
        ['startFrameAssetId', body({ model: 'video-model-8', referenceImageAssetIds: [refImage], duration: 6 })],
        ['endFrameAssetId', body({ model: 'video-model-1', endFrameAssetId: end, duration: 5 })],
        ['intermediateFrameAssetIds', body({ intermediateFrameAssetIds: [middle] })],
        ['referenceImageAssetIds', body({ referenceImageAssetIds: [refImage] })],
        ['enableAudio', body({ model: 'video-model-1', enableAudio: true, duration: 5 })],
        [
          'duration',
          body({
            model: 'video-model-8',
            startFrameAssetId: undefined,
            referenceImageAssetIds: [refImage],
            duration: 7,
          }),
        ],
      ];
      for (const [field, payload] of cases) {
        const res = await enhance(payload);
        const error = expectError(res, 400, 'INVALID_REQUEST');
        expect(JSON.stringify(error), `${field}: ${res.body}`).toContain(field);
      }
      expectError(await enhance(body({ startFrameAssetId: MISSING })), 404, 'ASSET_NOT_FOUND');
      expectError(await enhance(body(), key, MISSING), 404, 'BRAND_NOT_FOUND');
      expectError(await enhance(body({ startFrameAssetId: pending })), 422, 'ASSET_NOT_READY');
      expect(await used('prompt_enhancements')).toBe(before);

      // No per-duration bounds on intermediate frames here; 5000 characters for video-model-8.
      const optimized = await enhance(
        body({ model: 'optimized', duration: 4, intermediateFrameAssetIds: [middle, end], aspectRatio: '9:16' }),
      );
      expect(optimized.statusCode, optimized.body).toBe(202);
      const long = await enhance({
        referenceImageAssetIds: [refImage, start],
        referenceVideoAssetIds: [refVideo],
        originalPrompt: `${'A montage of the cap and the mugs. '.repeat(130)}`.slice(0, 4500),
        aspectRatio: '9:16',
        model: 'video-model-8',
        duration: 10,
      });
      expect(long.statusCode, long.body).toBe(202);
      const done = await settledGeneration(t, key, `${enhUrl()}/${long.json().promptEnhancementId}`);
      expect(done.status).toBe('completed');
      expect([...done.enhancedPrompt].length).toBeLessThanOrEqual(5000);

      const free = (await t.bootstrap({ plan: 'free', orgName: 'free enh' })).apiKey;
      const freeBrand = await createBrand(t, free, 'Free');
      expectError(
        await enhance(
          { referenceImageAssetIds: [MISSING], originalPrompt: 'x', aspectRatio: '16:9', model: 'video-model-8' },
          free,
          freeBrand,
        ),
        403,
        'upgrade_required',
      );
      // Reads are scoped to the brand and the organization.
      const id = optimized.json().promptEnhancementId;
      expectError(
        await get(`/v1/brands/${freeBrand}/image-to-video-prompt-enhancements/${id}`, free),
        404,
        'NOT_FOUND',
      );
      expectError(await get(`${enhUrl()}/${id}`, otherKey), 404, 'BRAND_NOT_FOUND');
      expectError(await get(`${enhUrl()}/${MISSING}`), 404, 'NOT_FOUND');
      await settledGeneration(t, key, `${enhUrl()}/${id}`);
    });
  });

  it('lists with stable paging and sort, and scopes reads to the organization', async () => {
    const list = (q: string) => get(`/v1/brands/${brandId}/generated-videos-groups${q}`);
    const all = (await list('?partner=all&limit=100')).json();
    expect(all.pagination.totalItems).toBeGreaterThanOrEqual(4);
    const created = all.data.map((g: Json) => g.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    const paged: string[] = [];
    for (let page = 1; page <= all.pagination.totalItems; page++) {
      const res = (await list(`?partner=all&limit=1&page=${page}&sortOrder=asc`)).json();
      expect(res.pagination).toMatchObject({
        currentPage: page,
        itemsPerPage: 1,
        totalItems: all.pagination.totalItems,
      });
      paged.push(res.data[0].generatedVideosGroupId);
    }
    expect(paged).toEqual(all.data.map((g: Json) => g.generatedVideosGroupId).reverse());
    for (const q of [
      '?limit=0',
      '?limit=101',
      '?page=0',
      '?sortBy=updatedAt',
      '?sortOrder=up',
      '?partner=x',
      '?sort=-updatedAt',
      '?sort=createdAt&sortBy=createdAt',
    ]) {
      expectError(await list(q), 400, 'INVALID_REQUEST');
    }
    expectError(await get(`/v1/brands/${MISSING}/generated-videos-groups`), 404, 'BRAND_NOT_FOUND');
    const id = all.data[0].generatedVideosGroupId;
    expectError(await get(`/v1/generated-videos-groups/${id}`, otherKey), 404, 'NOT_FOUND');
    expectError(await get(`/v1/generated-videos-groups/${MISSING}`), 404, 'NOT_FOUND');
    expectError(await get('/v1/generated-videos-groups/not-a-uuid'), 400, 'INVALID_REQUEST');
  });
});

describe('a video provider that refuses the job (Runway protocol, local fake server)', () => {
  let t: TestApp;
  let fake: RunwayFake;
  const KEY = 'rw_test_key_http';

  beforeAll(async () => {
    const mp4 = clip('provider.mp4', { seconds: 2, fps: 25 });
    fake = await startRunwayFake(mp4, KEY);
    t = await createTestApp('sqlite', {
      env: {
        VIDEO_ENGINE: 'runway',
        // The fake's upload storage listens on 127.0.0.1 (the frame goes by Runway's uploads API).
        ATELIER_ALLOW_PRIVATE_FETCH: 'true',
        VIDEO_API_BASE_URL: fake.origin,
        VIDEO_API_KEY: KEY,
        VIDEO_MAX_RETRIES: '0',
        VIDEO_ENGINE_MODELS: 'video-model-1',
      },
    });
    await t.deps.startWorkers();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('fails that variation with an Error object naming the reason, and gives its seconds back', async () => {
    const { apiKey: key, organizationId } = await t.bootstrap();
    const brandId = await createBrand(t, key, 'Provider');
    const [frame] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
    ]);
    const used = async () => (await t.deps.usage.periodUsage(organizationId)).used.video_seconds ?? 0;
    fake.mode = 'bad-request';
    const res = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/generate-video`,
      key,
      payload: {
        startImageAssetId: frame,
        userPrompts: ['Push-in'],
        dimension: DIM,
        model: 'video-model-1',
        duration: 5,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(await used()).toBe(5);
    const group = res.json().data[0];
    const done = await settledGeneration(t, key, `/v1/generated-videos-groups/${group.generatedVideosGroupId}`);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'GENERATION_FAILED' } });
    expect(done.failedAt).toBeDefined();
    const [v] = done.variations;
    expect(v).toMatchObject({ status: 'failed', previewUrl: null, error: { code: 'GENERATION_FAILED' } });
    expect(v.error.message).toContain('aspect ratio'); // the provider's own reason
    expect(v.failedAt).toBeDefined();
    expect(v).not.toHaveProperty('asset');
    expect(await used()).toBe(0); // released
    expect(fake.requests.some((r) => r.url.pathname === '/v1/image_to_video')).toBe(true);
  });
});

describe('a provider that takes frames by URL only (Luma protocol, local fake server)', () => {
  let t: TestApp;
  let fake: LumaFake;
  let base: string;
  const KEY = 'luma_test_key_http';

  beforeAll(async () => {
    fake = await startLumaFake(clip('luma.mp4', { seconds: 2, fps: 25 }), KEY);
    fake.pendingPolls = 0;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp('sqlite', {
      env: {
        PORT: String(port),
        ATELIER_PUBLIC_URL: base,
        // A loopback address is not public: links are sent only because the operator says so.
        ATELIER_INPUT_LINKS: 'on',
        ATELIER_ALLOW_PRIVATE_FETCH: 'true',
        VIDEO_ENGINE: 'luma',
        VIDEO_API_BASE_URL: fake.baseUrl,
        VIDEO_API_KEY: KEY,
        VIDEO_MAX_RETRIES: '0',
        VIDEO_ENGINE_MODELS: 'video-model-1',
      },
      jobTuning: { stopGraceMs: 1000 },
    });
    await t.app.listen({ host: '127.0.0.1', port });
    await t.deps.startWorkers();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('gets the start frame from a short-lived signed link of this server, and the video completes', async () => {
    const { apiKey: key } = await t.bootstrap();
    const brandId = await createBrand(t, key, 'Links');
    const [frame] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
    ]);
    const res = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/generate-video`,
      key,
      payload: {
        startImageAssetId: frame,
        userPrompts: ['Slow push-in'],
        dimension: DIM,
        model: 'video-model-1',
        duration: 5,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const group = res.json().data[0];
    const done = await settledGeneration(t, key, `/v1/generated-videos-groups/${group.generatedVideosGroupId}`);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const [fetched] = fake.keyframeFetches;
    expect(fetched?.url.startsWith(`${base}/v1/blobs/provider-inputs/`)).toBe(true);
    expect(fetched).toMatchObject({ status: 200, format: 'png' });
    expect(new URL(fetched!.url).searchParams.get('signature')).toBeTruthy();
    // The link is signed: a changed key is refused.
    const tampered = fetched!.url.replace('/provider-inputs/', '/provider-inputs-x/');
    expect((await fetch(tampered)).status).toBeGreaterThanOrEqual(400);
    // A provider's video says so in its Content Credentials: the model drew it from the start frame.
    const asset = (await t.request({ method: 'GET', url: `/v1/assets/${done.variations[0].assetId}`, key })).json();
    expect(asset.contentCredentials).toMatchObject({
      validation: 'valid',
      actions: ['c2pa.created'],
      digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
      ingredients: [{ assetId: frame, relationship: 'inputTo' }],
    });
    expect(asset.contentCredentials.softwareAgent).toMatch(/^(?!Atelier local)/);
  });
});

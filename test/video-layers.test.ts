import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoRequest } from '../src/engines/video/video-engine.ts';
import { layerKey, originalKey } from '../src/modules/assets/assets.keys.ts';
import type { GenerationEngines } from '../src/modules/generation/engines.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { download, productFixture, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/** What the video engine was asked, request by request (the real engine renders them). */
const asked: VideoRequest[] = [];
const observed = (e: GenerationEngines): GenerationEngines => ({
  ...e,
  video: (model) => {
    const engine = e.video(model);
    return {
      name: engine.name,
      generate: (req: VideoRequest) => {
        asked.push(req);
        return engine.generate(req);
      },
    };
  },
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;
const PASSWORD = 'correct horse battery staple';

/**
 * A scene's layers over HTTP: a forge's variation stores its clean plate and product layer next
 * to its image; a video made from that variation hands them to the video engine (no matte); a
 * video from an uploaded picture does not; the brand's deletion removes them with the image.
 */
describe.each(dbKinds())('scene layers for videos (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let brandId: string;
  let cap: string;
  let scene: string;

  const post = (url: string, payload: Json) => t.request({ method: 'POST', url, key, payload });
  const exists = async (k: string) => (await t.deps.storage.head(k)) !== undefined;
  const layerKeys = (assetId: string) =>
    (['plate', 'product', 'info'] as const).map((l) => layerKey(orgId, assetId, l));

  beforeAll(async () => {
    t = await createTestApp(kind, { engines: observed });
    const a = await t.bootstrap({ orgName: 'Layers' });
    key = a.apiKey;
    orgId = a.organizationId;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, 'Solidus');
    [cap] = (await uploadCompleteAssets(t, key, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_black_1.png') },
    ])) as [string];
    const res = await post(`/v1/brands/${brandId}/scene-forges`, {
      blendingPrompt: 'The cap on a concrete plinth',
      promptIsEnhanced: false,
      productAssetIds: [cap],
      aspectRatio: '1:1',
    });
    expect(res.statusCode, res.body).toBe(202);
    const forge = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`, 120_000);
    expect(forge.status).toBe('completed');
    scene = forge.variations[0].asset.assetId;
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it('stores a variation’s plate and product layer next to its image: the layer over the plate is the image', async () => {
    for (const k of layerKeys(scene)) expect(await exists(k), k).toBe(true);
    const read = async (k: string) => {
      const chunks: Buffer[] = [];
      for await (const c of await t.deps.storage.getStream(k)) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    };
    const [plateKey, productKey, infoKey] = layerKeys(scene) as [string, string, string];
    const png = await sharp(await read(originalKey(orgId, scene)))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const plate = await sharp(await read(plateKey))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const product = await sharp(await read(productKey))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([plate.info.width, plate.info.height, plate.info.channels]).toEqual([png.info.width, png.info.height, 3]);
    expect(product.info.channels).toBe(4);
    let worst = 0;
    for (let i = 0; i < png.info.width * png.info.height; i++) {
      const a = product.data[i * 4 + 3]! / 255;
      for (let c = 0; c < 3; c++) {
        const over = product.data[i * 4 + c]! * a + plate.data[i * 3 + c]! * (1 - a);
        worst = Math.max(worst, Math.abs(over - png.data[i * png.info.channels + c]!));
      }
    }
    expect(worst).toBeLessThanOrEqual(1.5);
    const info = JSON.parse((await read(infoKey)).toString('utf8'));
    expect(info.horizon).toBeGreaterThan(0);
    expect(info.horizon).toBeLessThan(1);
  });

  it('a video from the variation hands its layers to the engine; one from an upload does not', async () => {
    const make = async (startImageAssetId: string) => {
      const res = await post(`/v1/brands/${brandId}/generate-video`, {
        startImageAssetId,
        userPrompts: ['Orbit around the cap'],
        dimension: { width: 456, height: 256 },
        model: 'video-model-7',
        duration: 2,
      });
      expect(res.statusCode, res.body).toBe(202);
      const group = await settledGeneration(
        t,
        key,
        `/v1/generated-videos-groups/${res.json().data[0].generatedVideosGroupId}`,
        180_000,
      );
      expect(group.status, JSON.stringify(group)).toBe('completed');
      return group.variations[0] as Json;
    };
    asked.length = 0;
    const fromScene = await make(scene);
    expect(asked).toHaveLength(1);
    const layers = asked[0]!.startFrameLayers;
    expect(layers).toBeDefined();
    expect(layers!.horizon).toBeGreaterThan(0);
    expect((await sharp(layers!.product).metadata()).channels).toBe(4);
    // A 1:1 scene in a 16:9 film, moved apart in layers: no matte was tried.
    expect((fromScene.warnings ?? []).map((w: Json) => w.code)).not.toContain('PARALLAX_SKIPPED');
    expect(fromScene.camera).toBe('orbit');
    const mp4 = await download(t, fromScene.asset.url);
    expect(mp4.length).toBeGreaterThan(1000);

    asked.length = 0;
    await make(cap);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.startFrameLayers).toBeUndefined();
  }, 240_000);

  it('the layers go with the scene’s image: kept while the asset is in use, deleted with the brand', async () => {
    const user = await t.deps.access.addUser({
      organizationId: orgId,
      name: 'ada',
      email: 'ada@example.com',
      role: 'admin',
    });
    await t.deps.console.setPassword(user.id, PASSWORD);
    const login = await t.request({
      method: 'POST',
      url: '/console/api/login',
      payload: { email: 'ada@example.com', password: PASSWORD },
    });
    expect(login.statusCode, login.body).toBe(200);
    const headers = {
      cookie: String(login.headers['set-cookie']).split(';')[0]!,
      'x-csrf-token': login.json().csrfToken,
    };
    const asset = await t.request({ method: 'DELETE', url: `/v1/assets/${scene}`, headers });
    expect(asset.statusCode, asset.body).toBe(409);
    expect(asset.json().error.code).toBe('ASSET_IN_USE');
    for (const k of layerKeys(scene)) expect(await exists(k), k).toBe(true);

    const brand = await t.request({ method: 'DELETE', url: `/v1/brands/${brandId}`, headers });
    expect(brand.statusCode, brand.body).toBe(204);
    expect(await exists(originalKey(orgId, scene))).toBe(false);
    for (const k of layerKeys(scene)) expect(await exists(k), k).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvenance } from '../src/adapters/provenance/provenance.ts';
import { sourceTypeUri } from '../src/adapters/provenance/manifest.ts';
import { createTestApp, dbKinds, type TestApp, tmpDir } from './helpers/app.ts';
import { readIndependently } from './helpers/c2pa.ts';
import { download, productFixture, productOnWhite, settledGeneration } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

/**
 * Content Credentials (issue 27) over HTTP: every file the local engines make (scene variations,
 * environments, videos and their previews) is signed where it is stored; GET /v1/assets/{id} says
 * what its credentials claim; an upload that carries credentials keeps them as an ingredient; an
 * organization can have signing off. The files are checked by c2pa-ts, an independent reader.
 */
describe.each(dbKinds())('Content Credentials on generated files (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let brandId: string;
  let product: string;
  let signedUpload: string;

  const post = (url: string, payload: unknown) => t.request({ method: 'POST', url, key, payload: payload as object });
  const get = (url: string) => t.request({ method: 'GET', url, key });
  const assetOf = async (id: string): Promise<Json> => (await get(`/v1/assets/${id}`)).json();

  /** The file behind an asset, checked by c2pa-ts: valid, with the facts the API says. */
  async function checkFile(asset: Json, hashCode: string) {
    const bytes = await download(t, asset.url);
    const r = await readIndependently(bytes);
    expect(r, 'a manifest store').toBeDefined();
    expect(r?.failures).toEqual([]);
    expect(r?.isValid).toBe(true);
    expect(r?.successes).toEqual(expect.arrayContaining(['claimSignature.validated', hashCode]));
    expect(r?.claimGenerator.name).toBe('Atelier');
    expect(r?.actions.map((a) => a.action)).toEqual(asset.contentCredentials.actions);
    expect(r?.actions[0]?.digitalSourceType).toBe(asset.contentCredentials.digitalSourceType);
    return { bytes, reading: r! };
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    const a = await t.bootstrap({ orgName: 'Signed' });
    key = a.apiKey;
    orgId = a.organizationId;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, 'Solidus');
    // An upload that carries credentials of its own (signed elsewhere: another signer's data folder).
    const elsewhere = createProvenance({
      settings: {},
      dataDir: tmpDir('atelier-elsewhere-'),
      version: '1.0.0',
      logger: { warn() {}, info() {} } as never,
    });
    const credentialed = await elsewhere.sign(await productOnWhite(480, 360), {
      title: 'studio.jpg',
      format: 'image/jpeg',
      sourceType: 'trainedAlgorithmicMedia',
      generator: { version: '1.0.0', engine: 'studio', model: 'studio-model' },
      ingredients: [],
    });
    const ids = await uploadCompleteAssets(t, key, brandId, [
      { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
      { name: 'studio.jpg', type: 'image/jpeg', bytes: credentialed.bytes },
    ]);
    product = ids[0] as string;
    signedUpload = ids[1] as string;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  let sceneAssetId: string;

  it('an environment: algorithmicMedia from the local engine, signed, summarized on GET', async () => {
    const res = await post(`/v1/brands/${brandId}/environment-generations`, {
      prompt: 'White marble counter against a warm plaster wall, soft light from the left',
    });
    expect(res.statusCode, res.body).toBe(202);
    const done = await settledGeneration(t, key, `/v1/environment-generations/${res.json().environmentGenerationId}`);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const asset = await assetOf(done.generatedAsset.assetId);
    expect(asset.contentCredentials).toMatchObject({
      validation: 'valid',
      developmentCertificate: true,
      claimGenerator: expect.stringMatching(/^Atelier \d+\.\d+\.\d+/),
      actions: ['c2pa.created'],
      digitalSourceType: sourceTypeUri('algorithmicMedia'),
      softwareAgent: expect.stringMatching(/^Atelier local engine/),
      ingredients: [],
    });
    expect(asset.contentCredentials.manifest).toMatch(/^urn:c2pa:/);
    await checkFile(asset, 'assertion.dataHash.match');
  }, 120_000);

  it('a scene variation: compositeSynthetic with the products placed as ingredients by id and hash; an upload keeps its own credentials', async () => {
    const res = await post(`/v1/brands/${brandId}/scene-forges`, {
      blendingPrompt: 'The cap and the studio shot on a wooden table',
      promptIsEnhanced: false,
      productAssetIds: [product, signedUpload],
    });
    expect(res.statusCode, res.body).toBe(202);
    const done = await settledGeneration(t, key, `/v1/scene-forges/${res.json().sceneForgeId}`);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const v = done.variations.find((x: Json) => x.status === 'completed');
    sceneAssetId = v.asset.assetId;
    const asset = await assetOf(sceneAssetId);
    expect(asset.contentCredentials).toMatchObject({
      validation: 'valid',
      actions: ['c2pa.created', 'c2pa.placed', 'c2pa.placed'],
      digitalSourceType: sourceTypeUri('compositeSynthetic'),
    });
    expect(asset.contentCredentials.ingredients).toEqual([
      {
        title: 'cap.png',
        relationship: 'componentOf',
        assetId: product,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        hasCredentials: false,
      },
      {
        title: 'studio.jpg',
        relationship: 'componentOf',
        assetId: signedUpload,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        hasCredentials: true,
      },
    ]);
    const { reading } = await checkFile(asset, 'assertion.dataHash.match');
    expect(reading.ingredients.map((i) => [i.title, i.relationship, i.hasManifest])).toEqual([
      ['cap.png', 'componentOf', false],
      ['studio.jpg', 'componentOf', true],
    ]);
    expect(reading.manifests).toBe(2);
  }, 180_000);

  it('a video and its preview from the local engine: compositeSynthetic, the start frame placed', async () => {
    const res = await post(`/v1/brands/${brandId}/generate-video`, {
      startImageAssetId: sceneAssetId,
      userPrompts: ['Slow push-in'],
      dimension: { width: 640, height: 360 },
      model: 'video-model-7',
      duration: 2,
    });
    expect(res.statusCode, res.body).toBe(202);
    const done = await settledGeneration(
      t,
      key,
      `/v1/generated-videos-groups/${res.json().data[0].generatedVideosGroupId}`,
      180_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const [v] = done.variations;
    const asset = await assetOf(v.assetId);
    expect(asset.contentCredentials).toMatchObject({
      validation: 'valid',
      actions: ['c2pa.created', 'c2pa.placed'],
      digitalSourceType: sourceTypeUri('compositeSynthetic'),
      ingredients: [{ assetId: sceneAssetId, relationship: 'componentOf', hasCredentials: true }],
    });
    await checkFile(asset, 'assertion.bmffHash.match');
    const preview = await readIndependently(await download(t, v.previewUrl));
    expect(preview?.isValid).toBe(true);
    expect(preview?.successes).toContain('assertion.bmffHash.match');
  }, 240_000);

  it('an organization with signing off stores generated files without credentials', async () => {
    const off = await t.deps.access.setContentCredentials(orgId, false);
    expect(off.contentCredentials).toBe(false);
    try {
      const res = await post(`/v1/brands/${brandId}/environment-generations`, { prompt: 'A plain studio backdrop' });
      const done = await settledGeneration(t, key, `/v1/environment-generations/${res.json().environmentGenerationId}`);
      const asset = await assetOf(done.generatedAsset.assetId);
      expect(asset).not.toHaveProperty('contentCredentials');
      expect(await readIndependently(await download(t, asset.url))).toBeUndefined();
    } finally {
      await t.deps.access.setContentCredentials(orgId, true);
    }
  }, 120_000);

  it('uploads are not summarized (only generated files), and the key is never in an answer', async () => {
    const asset = await assetOf(product);
    expect(asset).not.toHaveProperty('contentCredentials');
    const scene = await get(`/v1/assets/${sceneAssetId}`);
    expect(scene.body).not.toMatch(/PRIVATE KEY/);
  });
});

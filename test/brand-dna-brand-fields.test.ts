import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANDS, productImage } from './fixtures/brands/brands.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

const TRAILHEAD = BRANDS.find((b) => b.slug === 'trailhead')!;
const BRAND = {
  name: 'Trailhead Outfitters',
  industry: 'Outdoor gear',
  description: 'Durable, repairable outdoor gear made for hikers and families.',
  mission: 'Get people outside.',
  values: ['durability'],
  tone: ['Friendly'],
  voice: ['plain-spoken'],
};
const FROM_BRAND = ['brand'];

describe.each(dbKinds())('Brand DNA takes what the brand itself states (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let brandId: string;
  let product: string;

  const req = (method: string, url: string, payload?: object, headers: Record<string, string> = {}) =>
    t.request({ method: method as 'GET', url, key, headers, ...(payload ? { payload } : {}) });
  const settle = (b: string, versionId: string): Promise<Json> =>
    eventually(
      async () => {
        const v = (await req('GET', `/v1/brands/${b}/brand-dna/versions/${versionId}`)).json().data;
        return v.status === 'ready' || v.status === 'failed' ? v : undefined;
      },
      'the version to finish',
      90_000,
      200,
    );
  const extract = async (b: string, assetIds: string[]): Promise<Json> => {
    const res = await req('POST', `/v1/brands/${b}/brand-dna/versions`, { assetIds });
    expect(res.statusCode, res.body).toBe(200);
    const v = await settle(b, res.json().data.versionId);
    expect(v.status, JSON.stringify(v.sources)).toBe('ready');
    return v;
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    key = (await t.bootstrap()).apiKey;
    await t.deps.startWorkers();
    const res = await req('POST', '/v1/brands', BRAND);
    expect(res.statusCode, res.body).toBe(201);
    brandId = res.json().id;
    [product] = (await uploadCompleteAssets(t, key, brandId, [
      { name: 'product.png', type: 'image/png', bytes: await productImage(TRAILHEAD) },
    ])) as [string];
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fills identity and voice from the brand’s fields, marked `brand`, from one product image', async () => {
    const v = await extract(brandId, [product]);
    const imageSource = v.sources[0].id;
    expect(v.sources).toHaveLength(1); // the brand is no entry of `sources`
    expect(v.sources[0]).toMatchObject({ type: 'image', status: 'completed', assetId: product });
    expect(v.preview.sourceCounts).toEqual({ pdf: 0, image: 1, video: 0, url: 0, font: 0, document: 0 });

    const { identity, voice, visual } = v.dna;
    expect(identity.brand_name).toEqual({ value: BRAND.name, sources: FROM_BRAND });
    expect(identity.industry).toEqual({ value: 'Outdoor gear', sources: FROM_BRAND });
    expect(identity.mission).toEqual({ value: 'Get people outside.', sources: FROM_BRAND });
    expect(identity.values).toEqual([{ value: 'durability', sources: FROM_BRAND }]);
    // The description, read by the text analyzer, says who the brand is for.
    expect(identity.audience).toMatchObject({ description: BRAND.description, sources: FROM_BRAND });
    expect(identity.tagline).toBeNull(); // a description is not a slogan
    expect(voice.tone).toEqual([{ tone: 'Friendly', weight: 1, sources: FROM_BRAND }]);
    expect(voice.descriptors).toEqual([{ value: 'plain-spoken', sources: FROM_BRAND }]);
    // Colours and imagery come only from the image.
    expect(visual.palette.length).toBeGreaterThan(0);
    for (const p of visual.palette) expect(p.sources).toEqual([imageSource]);
    expect(visual.imagery.sources).toEqual([imageSource]);

    for (const f of [
      'identity.brand_name',
      'identity.industry',
      'identity.mission',
      'identity.values',
      'identity.audience',
      'voice.tone',
      'voice.descriptors',
    ])
      expect(v.missingFields).not.toContain(f);
    expect(v.missingFields).toEqual(
      expect.arrayContaining(['identity.tagline', 'voice.formality', 'visual.typography.heading', 'visual.logos']),
    );
    expect(v.preview).toMatchObject({ toneShort: 'Friendly', topValues: ['durability'] });

    // The same image for a brand that states only what it must: those fields stay missing.
    const bareBrand = await createBrand(t, key, 'Bare');
    const bare = await extract(bareBrand, [product]);
    expect(bare.dna.identity.industry).toEqual({ value: 'Retail', sources: FROM_BRAND });
    expect(bare.dna.identity.mission).toBeNull();
    expect(bare.dna.voice.tone).toEqual([]);
    expect(bare.missingFields).toEqual(
      expect.arrayContaining(['identity.mission', 'identity.values', 'voice.tone', 'voice.descriptors']),
    );
    expect(bare.confidenceScore).toBeLessThan(v.confidenceScore);
  });

  it('reads the brand as it is when the extraction runs: an edited brand shows in a rerun', async () => {
    const v = await extract(brandId, [product]);
    const brand = await req('GET', `/v1/brands/${brandId}`);
    const put = await req(
      'PUT',
      `/v1/brands/${brandId}`,
      { mission: 'Outfit every trail.', values: null, tone: ['Luxurious', 'Professional'], logoAssetId: product },
      { 'if-match': String(brand.headers.etag) },
    );
    expect(put.statusCode, put.body).toBe(200);
    const rerun = await req('POST', `/v1/brands/${brandId}/brand-dna/versions/${v.versionId}/rerun`, {
      assetIds: [product],
    });
    expect(rerun.statusCode, rerun.body).toBe(202);
    const after = await settle(brandId, v.versionId);
    expect(after.status).toBe('ready');
    expect(after.dna.identity.mission).toEqual({ value: 'Outfit every trail.', sources: FROM_BRAND });
    expect(after.dna.identity.values).toEqual([]);
    expect(after.missingFields).toContain('identity.values');
    expect(after.dna.voice.tone.map((x: Json) => [x.tone, x.weight])).toEqual([
      ['Luxurious', 0.667],
      ['Professional', 0.333],
    ]);
    expect(after.preview.toneShort).toBe('Luxurious, Professional');
    // The brand's own logo asset is the DNA's first logo.
    expect(after.dna.visual.logos[0]).toMatchObject({ asset_id: product });
    expect(after.dna.visual.logos[0].sources[0]).toBe('brand');
    expect(after.missingFields).not.toContain('visual.logos');
  });
});

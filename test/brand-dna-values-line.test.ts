import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTextPdf } from './fixtures/brands/brands.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

/** A guidelines PDF that lists its values on one line yields them, like a list under a heading. */
describe('Brand DNA: values listed on one line of a guidelines PDF', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    key = (await t.bootstrap()).apiKey;
    await t.deps.startWorkers();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('puts them in identity.values and preview.topValues', async () => {
    const brandId = await createBrand(t, key, 'Fieldnote Paper');
    const pdf = buildTextPdf([
      [
        'Fieldnote Paper Brand Guidelines',
        '',
        'Who we are',
        'We make notebooks for people who write things down. Our values: Craft, Kindness, Curiosity.',
        'Every page is cut and bound in our own workshop.',
      ],
    ]);
    const [assetId] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'guidelines.pdf', type: 'application/pdf', bytes: pdf },
    ]);
    const created = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/brand-dna/versions`,
      key,
      payload: { name: 'From the PDF', assetIds: [assetId] },
    });
    expect(created.statusCode, created.body).toBe(200);
    const versionId = created.json().data.versionId as string;
    const v: Json = await eventually(
      async () => {
        const res = await t.request({
          method: 'GET',
          url: `/v1/brands/${brandId}/brand-dna/versions/${versionId}`,
          key,
        });
        const d = res.json().data;
        return d.status === 'ready' || d.status === 'failed' ? d : undefined;
      },
      'the version to finish',
      60_000,
      200,
    );
    expect(v.status).toBe('ready');
    const values = v.dna.identity.values.map((x: Json) => x.value.toLowerCase());
    expect(values).toEqual(expect.arrayContaining(['craft', 'kindness', 'curiosity']));
    expect(v.preview.topValues.map((x: string) => x.toLowerCase())).toEqual(['craft', 'kindness', 'curiosity']);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTypes, type OpenApiDocument } from '../scripts/codegen.ts';
import {
  Atelier,
  AtelierError,
  AuthenticationError,
  type Brand,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
  type WaitProgress,
} from '../src/index.ts';
import { brandBody, CAP_PNG, type RealServer, startServer } from './server.ts';

const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
const PNG = [0x89, 0x50, 0x4e, 0x47];

describe('SDK against a real listening server', () => {
  let s: RealServer;
  let atelier: Atelier;
  let brand: Brand;
  let capId: string;

  beforeAll(async () => {
    s = await startServer();
    atelier = new Atelier({ baseUrl: s.baseUrl, apiKey: s.apiKey });
    brand = await atelier.brands.create(brandBody());
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('the checked-in types match the document this server serves', async () => {
    const doc = (await (await fetch(`${s.baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
    const checkedIn = fs.readFileSync(path.resolve(import.meta.dirname, '../src/openapi-types.ts'), 'utf8');
    expect(generateTypes(doc) === checkedIn, 'sdk/src/openapi-types.ts is stale: run npm run sdk:types').toBe(true);
  });

  it('brands: create, get, list, iterate, update with the ETag carried automatically', async () => {
    expect(brand).toMatchObject({ name: 'Solidus', industry: 'Apparel' });
    expect(atelier.brands.etag(brand.id)).toMatch(/^(W\/)?"/);
    const got = await atelier.brands.get(brand.id);
    expect(got.id).toBe(brand.id);
    const page = await atelier.brands.list({ limit: 10 });
    expect(page.data.map((b) => b.id)).toContain(brand.id);
    const all: string[] = [];
    for await (const b of atelier.brands.iterate({ limit: 1 })) all.push(b.id);
    expect(all).toContain(brand.id);

    const updated = await atelier.brands.update(brand.id, { mission: 'Gear for every street.' });
    expect(updated.mission).toBe('Gear for every street.');
    // A second client with no read of its own fetches the ETag first.
    const other = new Atelier({ baseUrl: s.baseUrl, apiKey: s.apiKey });
    expect((await other.brands.update(brand.id, { voice: ['warm'] })).voice).toEqual(['warm']);
    // The first client's ETag is now stale: a clear 412.
    const e = await atelier.brands.update(brand.id, { voice: ['dry'] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PreconditionFailedError);
    expect(e).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED' });
    expect((e as Error).message).toMatch(/get it again/);
    // Reading again refreshes the ETag and the update goes through.
    await atelier.brands.get(brand.id);
    expect((await atelier.brands.update(brand.id, { voice: ['dry'] })).voice).toEqual(['dry']);
  });

  it('a client with idempotencyKeys works against the server (POST with an Idempotency-Key)', async () => {
    const keyed = new Atelier({ baseUrl: s.baseUrl, apiKey: s.apiKey, idempotencyKeys: true });
    const a = await keyed.brands.create(brandBody('Keyed A'));
    const b = await keyed.brands.create(brandBody('Keyed B'));
    expect(a.id).not.toBe(b.id); // a key per call: two calls, two brands
    expect(b.name).toBe('Keyed B');
  });

  it('errors carry status, code, requestId and details', async () => {
    const nf = await atelier.brands.get(MISSING).catch((x: unknown) => x);
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf).toBeInstanceOf(AtelierError);
    expect(nf).toMatchObject({ status: 404, code: expect.stringMatching(/NOT_FOUND/) });
    expect((nf as AtelierError).requestId).toMatch(/^[0-9a-f-]{36}$/);

    const bad = await atelier.brands.create({ ...brandBody(), description: 'short' }).catch((x: unknown) => x);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect((bad as AtelierError).details).toBeTruthy();

    const anon = new Atelier({ baseUrl: s.baseUrl, apiKey: 'atl_dev_nope.nope' });
    const au = await anon.usage.get().catch((x: unknown) => x);
    expect(au).toBeInstanceOf(AuthenticationError);
    expect(au).toMatchObject({ status: 401 });
    expect(String(au)).toMatch(/^[A-Za-z_]+: .+ \(HTTP 401, request [0-9a-f-]{36}\)$/);
  });

  it('uploadFile: initiate → PUT → confirm → wait, from a path, with progress', async () => {
    const stages: string[] = [];
    const asset = await atelier.uploadFile(brand.id, CAP_PNG, {
      intervalMs: 200,
      onProgress: (p) => stages.push('stage' in p ? p.stage : p.status),
    });
    expect(asset.status).toBe('complete');
    expect(asset.metadata).toMatchObject({ fileName: 'solidus_cap_red_1.png', fileType: 'image/png' });
    expect(stages.slice(0, 3)).toEqual(['initiate', 'put', 'confirm']);
    expect(stages.at(-1)).toBe('complete');
    capId = asset.id;
    // A buffer works too, its type sniffed from the bytes.
    const again = await atelier.uploadFile(brand.id, fs.readFileSync(CAP_PNG), { wait: false });
    expect(again.metadata.fileType).toBe('image/png');
  });

  it('scene forge → waitFor → video → waitFor, and the results download', async () => {
    expect(capId).toBeDefined();
    const forge = await atelier.scenes.create(brand.id, {
      blendingPrompt: 'The red cap on a concrete ledge at golden hour',
      promptIsEnhanced: false,
      productAssetIds: [capId],
      aspectRatio: '1:1',
    });
    expect(forge.status).toBe('pending');
    const progress: WaitProgress<'scene'>[] = [];
    const done = await atelier.waitFor('scene', forge, { intervalMs: 200, onProgress: (p) => progress.push(p) });
    expect(done.status).toBe('completed');
    expect(progress.at(-1)!.fraction).toBe(1);
    const variation = done.variations.find((v) => v.status === 'completed')!;
    const image = await atelier.download(variation.asset!.url!);
    expect([...image.subarray(0, 4)]).toEqual(PNG);

    const created = await atelier.videos.create(brand.id, {
      startImageAssetId: variation.asset!.assetId,
      userPrompts: ['Slow push-in on the cap'],
      dimension: { width: 456, height: 256 },
      model: 'video-model-7',
      duration: 2,
    });
    const group = created.data[0]!;
    expect(group.status).toBe('pending');
    const video = await atelier.waitFor('video', group.generatedVideosGroupId, { intervalMs: 250, timeoutMs: 120_000 });
    expect(video.status).toBe('completed');
    const mp4 = await atelier.download(video.variations[0]!.previewUrl!);
    expect(Buffer.from(mp4.subarray(4, 8)).toString('latin1')).toBe('ftyp');
    expect((await atelier.videos.list(brand.id)).data.map((g) => g.generatedVideosGroupId)).toContain(
      group.generatedVideosGroupId,
    );
  }, 180_000);

  it('enhancements and environments wait by resource; usage reads the pools', async () => {
    const env = await atelier.environments.create(brand.id, { prompt: 'A sunlit concrete rooftop' });
    expect((await atelier.waitFor('environment', env, { intervalMs: 200 })).status).toBe('completed');
    const enh = await atelier.enhancements.create(brand.id, { originalPrompt: 'cap on a roof' });
    // Given as a resource, the brand id comes from it; given as an id, it must be passed.
    const e1 = await atelier.waitFor('enhancement', enh, { intervalMs: 200 });
    expect(e1.status).toBe('completed');
    await expect(atelier.waitFor('enhancement', enh.promptEnhancementId)).rejects.toThrow(/brandId/);
    const usage = await atelier.usage.get();
    expect(usage.pools.image_generations.usage).toBeGreaterThan(0);
  }, 120_000);

  it('webhooks: create (secret once), list, get, update, rotate, test, deliveries, delete', async () => {
    const created = await atelier.webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['scene_forge.*'] });
    expect(created.id).toMatch(/^we_[0-9a-f]{32}$/);
    expect(created.secret).toMatch(/^whsec_/);
    const page = await atelier.webhooks.list({ limit: 10 });
    expect(page.data.map((e) => e.id)).toContain(created.id);
    expect(JSON.stringify(page)).not.toContain(created.secret);
    expect(await atelier.webhooks.get(created.id)).not.toHaveProperty('secret');
    expect((await atelier.webhooks.update(created.id, { events: null, enabled: false })).events).toEqual([]);
    const rotated = await atelier.webhooks.rotateSecret(created.id, { overlapSeconds: 60 });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    expect((await atelier.webhooks.rotateSecret(created.id)).previousSecretExpiresAt).not.toBeNull();
    // The server refuses loopback receivers unless told otherwise: a failed test, in a 200 answer.
    const test = await atelier.webhooks.test(created.id);
    expect(test).toMatchObject({ endpointId: created.id, eventType: 'webhook.test', status: 'failed' });
    expect(test.lastError).toMatch(/^BLOCKED_ADDRESS/);
    expect((await atelier.webhooks.deliveries(created.id, { status: 'failed' })).data.map((d) => d.id)).toEqual([
      test.id,
    ]);
    await atelier.webhooks.delete(created.id);
    await expect(atelier.webhooks.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
    const bad = await atelier.webhooks.create({ url: 'ftp://example.com/' }).catch((x: unknown) => x);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as AtelierError).details).toMatchObject({ fields: [{ field: 'body.url' }] });
  });

  it('extractions: submit, read, delete', async () => {
    const ex = await atelier.extractions.create({ url: 'https://example.com/shop', brandId: brand.id });
    expect(ex).toMatchObject({ status: 'pending', brandId: brand.id });
    expect((await atelier.extractions.get(ex.extractionId)).extractionId).toBe(ex.extractionId);
    await atelier.extractions.delete(ex.extractionId);
    await expect(atelier.extractions.get(ex.extractionId)).rejects.toBeInstanceOf(NotFoundError);
  });
});

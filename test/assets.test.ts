import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_FORMATS } from '../src/adapters/media/index.ts';
import { uploadKey } from '../src/modules/assets/assets.keys.ts';
import { buildFont, buildPdf, makeVideo, tempDir } from './fixtures/media/generate.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { assetClient, eventually, flatPng, freePort, texturedJpeg, type UploadSlot } from './helpers/assets.ts';

const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const media = tempDir('atelier-assets-test-');
afterAll(() => media.cleanup());

/** Files of every kind the asset list is filtered by, made once for both databases. */
const files = {
  jpeg: texturedJpeg(640, 480, 3),
  portrait: texturedJpeg(300, 500, 5),
  logo: flatPng(256, 256, '#d02020'),
  video: (async () => fs.readFileSync(makeVideo(media.file('clip.mp4'), { width: 160, height: 120, seconds: 1 })))(),
  pdf: Promise.resolve(buildPdf(['Atelier brand book', 'Page two'])),
  font: Promise.resolve(buildFont({ family: 'Atelier Sans', style: 'Regular' })),
};

describe.each(dbKinds())('Assets API (%s)', (kind) => {
  let t: TestApp;
  let api: ReturnType<typeof assetClient>;
  let key: string;
  let orgId: string;
  let viewerKey: string;
  let otherKey: string;
  let brandId: string;
  let otherBrandId: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { jobTuning: { stopGraceMs: 1000 } });
    api = assetClient(t);
    const owner = await t.bootstrap({ orgName: 'Owner org' });
    key = owner.apiKey;
    orgId = owner.organizationId;
    const viewer = await t.deps.access.addUser({ organizationId: orgId, name: 'Vi', role: 'viewer' });
    viewerKey = (await t.deps.access.createKey({ userId: viewer.id, name: 'viewer' })).token;
    otherKey = (await t.bootstrap({ orgName: 'Other org' })).apiKey;
    brandId = await api.createBrand(key);
    otherBrandId = await api.createBrand(otherKey, 'Other');
    await t.deps.startWorkers();
  });
  afterAll(async () => t?.close());

  const oneFile = (over: Record<string, unknown> = {}) => ({
    fileName: 'photo.jpg',
    fileType: 'image/jpeg',
    fileSize: 1000,
    ...over,
  });

  describe('POST /assets/initiate-upload', () => {
    it('answers 201 with one upload slot per file, and short-lived links', async () => {
      const before = Date.now();
      const res = await api.initiate(key, {
        brandId,
        files: [
          oneFile({ dimension: { width: 640, height: 480 } }),
          { fileName: 'clip.mp4', fileType: 'video/mp4', fileSize: 2000, duration: 3 },
          { fileName: 'book.pdf', fileType: 'application/pdf', fileSize: 3000, isLogo: false },
          { fileName: 'face.ttf', fileType: 'font/ttf', fileSize: 4000 },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const { uploads } = res.json();
      expect(Object.keys(res.json())).toEqual(['uploads']);
      expect(uploads).toHaveLength(4);
      const ids = new Set<string>();
      for (const u of uploads as UploadSlot[]) {
        expect(Object.keys(u).sort()).toEqual(
          ['assetId', 'expires', 'uploadHeaders', 'uploadId', 'uploadMethod', 'uploadUrl'].sort(),
        );
        expect(u.uploadId).toMatch(UUID_RE);
        expect(u.assetId).toMatch(UUID_RE);
        ids.add(u.uploadId).add(u.assetId);
        expect(u.uploadMethod).toBe('PUT');
        expect(u.uploadUrl).toMatch(/^http:\/\/localhost:8080\/v1\/blobs\/.+\?.*signature=/);
        expect(u.uploadUrl).not.toContain(key);
        const expires = Date.parse(u.expires);
        expect(new Date(expires).toISOString()).toBe(u.expires);
        // ATELIER_UPLOAD_LINK_TTL_SECONDS, default 15 minutes.
        expect(expires).toBeGreaterThanOrEqual(before + 899_000);
        expect(expires).toBeLessThanOrEqual(Date.now() + 901_000);
      }
      expect(ids.size).toBe(8);
      expect(uploads.map((u: UploadSlot) => u.uploadHeaders)).toEqual([
        { 'Content-Type': 'image/jpeg' },
        { 'Content-Type': 'video/mp4' },
        { 'Content-Type': 'application/pdf' },
        { 'Content-Type': 'font/ttf' },
      ]);
      // The asset type follows the MIME type; the asset waits for its bytes.
      const types = [];
      for (const u of uploads as UploadSlot[]) {
        const a = (await api.get(key, u.assetId)).json();
        expect(a.status).toBe('uploading');
        expect(a).not.toHaveProperty('url');
        types.push(a.metadata.type);
      }
      expect(types).toEqual(['image', 'video', 'document', 'font']);
      const declared = (await api.get(key, uploads[0].assetId)).json().metadata;
      expect(declared).toMatchObject({ fileName: 'photo.jpg', fileType: 'image/jpeg', fileSize: 1000 });
      expect(declared.dimension).toEqual({ width: 640, height: 480 });
    });

    it('accepts upper-case uuids and a generic type resolved from the extension', async () => {
      const res = await api.initiate(key, {
        brandId: brandId.toUpperCase(),
        categoryId: randomUUID().toUpperCase(),
        files: [oneFile({ fileType: 'application/octet-stream', fileName: 'scan.PNG' })],
      });
      expect(res.statusCode, res.body).toBe(201);
      const a = (await api.get(key, res.json().uploads[0].assetId)).json();
      expect(a.brandId).toBe(brandId);
      expect(a.metadata.fileType).toBe('image/png');
      expect(a.categoryId).toMatch(UUID_RE);
    });

    it('marks logos: isLogo gives the asset type logo', async () => {
      const [slot] = await api.slots(key, brandId, [
        { name: 'mark.png', type: 'image/png', bytes: Buffer.alloc(10), isLogo: true },
      ]);
      expect((await api.get(key, slot!.assetId)).json().metadata.type).toBe('logo');
    });

    const files21 = Array.from({ length: 21 }, () => oneFile());
    it.each<[string, (brand: string) => unknown, string]>([
      [
        'a type outside the list',
        (b) => ({ brandId: b, files: [oneFile({ fileName: 'a.txt', fileType: 'text/plain' })] }),
        'body.files.0.fileType',
      ],
      [
        'a WebP image',
        (b) => ({ brandId: b, files: [oneFile({ fileName: 'a.webp', fileType: 'image/webp' })] }),
        'body.files.0.fileType',
      ],
      [
        'SVG by type',
        (b) => ({ brandId: b, files: [oneFile({ fileName: 'logo', fileType: 'image/svg+xml' })] }),
        'body.files.0.fileType',
      ],
      [
        'SVG by extension',
        (b) => ({ brandId: b, files: [oneFile({ fileName: 'logo.svg', fileType: 'application/octet-stream' })] }),
        'body.files.0.fileType',
      ],
      [
        'an extension of another format',
        (b) => ({ brandId: b, files: [oneFile({ fileName: 'a.png' })] }),
        'body.files.0.fileType',
      ],
      ['fileSize 0', (b) => ({ brandId: b, files: [oneFile({ fileSize: 0 })] }), 'body.files.0.fileSize'],
      [
        'fileSize over 500 MB',
        (b) => ({ brandId: b, files: [oneFile({ fileSize: 524_288_001 })] }),
        'body.files.0.fileSize',
      ],
      [
        'fileSize as a string',
        (b) => ({ brandId: b, files: [oneFile({ fileSize: '1000' })] }),
        'body.files.0.fileSize',
      ],
      ['fileSize not whole', (b) => ({ brandId: b, files: [oneFile({ fileSize: 10.5 })] }), 'body.files.0.fileSize'],
      ['too many files', (b) => ({ brandId: b, files: files21 }), 'body.files'],
      ['no files', (b) => ({ brandId: b, files: [] }), 'body.files'],
      ['files missing', (b) => ({ brandId: b }), 'body.files'],
      ['brandId missing', () => ({ files: [oneFile()] }), 'body.brandId'],
      ['brandId not a uuid', () => ({ brandId: 'acme', files: [oneFile()] }), 'body.brandId'],
      ['categoryId not a uuid', (b) => ({ brandId: b, categoryId: 'general', files: [oneFile()] }), 'body.categoryId'],
      [
        'fileName missing',
        (b) => ({ brandId: b, files: [{ fileType: 'image/jpeg', fileSize: 1 }] }),
        'body.files.0.fileName',
      ],
      [
        'fileType missing',
        (b) => ({ brandId: b, files: [{ fileName: 'a.jpg', fileSize: 1 }] }),
        'body.files.0.fileType',
      ],
      [
        'fileSize missing',
        (b) => ({ brandId: b, files: [{ fileName: 'a.jpg', fileType: 'image/jpeg' }] }),
        'body.files.0.fileSize',
      ],
      ['an unknown member', (b) => ({ brandId: b, files: [oneFile()], tags: ['x'] }), 'body.tags'],
      ['an unknown file member', (b) => ({ brandId: b, files: [oneFile({ url: 'x' })] }), 'body.files.0.url'],
      ['a negative duration', (b) => ({ brandId: b, files: [oneFile({ duration: -1 })] }), 'body.files.0.duration'],
      [
        'a zero width',
        (b) => ({ brandId: b, files: [oneFile({ dimension: { width: 0, height: 5 } })] }),
        'body.files.0.dimension.width',
      ],
      [
        'isLogo on a document',
        (b) => ({ brandId: b, files: [oneFile({ fileName: 'a.pdf', fileType: 'application/pdf', isLogo: true })] }),
        'body.files.0.isLogo',
      ],
      ['isLogo not a boolean', (b) => ({ brandId: b, files: [oneFile({ isLogo: 'yes' })] }), 'body.files.0.isLogo'],
    ])('answers 400 INVALID_REQUEST for %s', async (_name, body, field) => {
      const res = await api.initiate(key, body(brandId));
      expect(res.statusCode, res.body).toBe(400);
      const err = res.json().error;
      expect(err.code).toBe('INVALID_REQUEST');
      expect(err.details.fields[0].field).toBe(field);
    });

    it('says why an SVG is refused', async () => {
      const res = await api.initiate(key, {
        brandId,
        files: [oneFile(), oneFile({ fileName: 'x.svg', fileType: 'image/svg+xml' })],
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details).toMatchObject({
        reason: 'svg_not_supported',
        fields: [{ field: 'body.files.1.fileType' }],
      });
    });

    it('stores nothing when one file of several is refused', async () => {
      const count = async () =>
        (
          await t.deps.db.kysely
            .selectFrom('assets')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const before = Number(await count());
      const res = await api.initiate(key, {
        brandId,
        files: [oneFile(), oneFile({ fileType: 'text/html', fileName: 'x.html' })],
      });
      expect(res.statusCode).toBe(400);
      expect(Number(await count())).toBe(before);
    });

    it('answers 401 without a valid key, 403 to a viewer, 404 for a brand not in the organization', async () => {
      const body = { brandId, files: [oneFile()] };
      expect((await t.request({ method: 'POST', url: '/v1/assets/initiate-upload', payload: body })).statusCode).toBe(
        401,
      );
      expect((await api.initiate('atl_dev_nope.nope', body)).statusCode).toBe(401);
      const viewer = await api.initiate(viewerKey, body);
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json().error.code).toBe('FORBIDDEN');
      for (const b of [otherBrandId, MISSING]) {
        const res = await api.initiate(key, { brandId: b, files: [oneFile()] });
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('BRAND_NOT_FOUND');
      }
    });

    it('never answers 5xx, whatever the body', async () => {
      const fileArb = fc.record(
        {
          fileName: fc.oneof(
            fc.string({ maxLength: 300 }),
            fc.constantFrom('a.jpg', 'b.svg', '../x.png', ''),
            fc.anything(),
          ),
          fileType: fc.oneof(
            fc.constantFrom(
              'image/jpeg',
              'image/png',
              'video/mp4',
              'application/pdf',
              'image/svg+xml',
              'font/woff2',
              '',
            ),
            fc.string(),
            fc.anything(),
          ),
          fileSize: fc.oneof(fc.integer({ min: -10, max: 524_288_010 }), fc.double(), fc.anything()),
          isLogo: fc.oneof(fc.boolean(), fc.anything()),
          dimension: fc.oneof(fc.record({ width: fc.integer(), height: fc.integer() }), fc.anything()),
          duration: fc.oneof(fc.integer(), fc.anything()),
        },
        { requiredKeys: [] },
      );
      const bodyArb = fc.oneof(
        fc.record(
          {
            brandId: fc.oneof(fc.constant(brandId), fc.constant(otherBrandId), fc.uuid(), fc.string()),
            categoryId: fc.oneof(fc.uuid(), fc.string(), fc.anything()),
            files: fc.oneof(fc.array(fileArb, { maxLength: 22 }), fc.anything()),
          },
          { requiredKeys: [] },
        ),
        fc.anything(),
      );
      await fc.assert(
        fc.asyncProperty(bodyArb, async (body) => {
          const res = await t.request({
            method: 'POST',
            url: '/v1/assets/initiate-upload',
            key,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(body) ?? 'null',
          });
          expect(res.statusCode, res.body).toBeLessThan(500);
          expect([201, 400, 404]).toContain(res.statusCode);
        }),
        { numRuns: 150 },
      );
    });
  });

  describe('upload links', () => {
    it('take the bytes with no API key, and refuse an altered link (403, nothing stored)', async () => {
      const bytes = await flatPng(64, 64);
      const [slot] = await api.slots(key, brandId, [{ name: 'a.png', type: 'image/png', bytes }]);
      const k = uploadKey(orgId, slot!.assetId);
      const u = new URL(slot!.uploadUrl);
      const altered = [
        u.toString().replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`),
        u.toString().replace(/length=\d+/, `length=${bytes.length + 1}`),
        u.toString().replace(/expires=(\d+)/, (_m, e) => `expires=${Number(e) + 3600}`),
        u.toString().replace(slot!.assetId, randomUUID()),
        u.toString().replace(/&signature=[^&]+/, ''),
      ];
      for (const link of altered) {
        const res = await api.put({ uploadUrl: link, uploadHeaders: slot!.uploadHeaders }, bytes);
        expect(res.statusCode, link).toBe(403);
        expect(res.json().error.details.reason).toBe('link_invalid');
      }
      expect(await t.deps.storage.head(k)).toBeUndefined();
      const wrongType = await api.put(slot!, bytes, { 'content-type': 'image/jpeg' });
      expect(wrongType.statusCode).toBe(403);
      expect(await t.deps.storage.head(k)).toBeUndefined();
      const withKey = await api.put(slot!, bytes, { authorization: `Bearer ${key}` });
      expect(withKey.statusCode).toBe(200); // the link authorizes; a key is neither needed nor harmful
      expect((await t.deps.storage.head(k))?.size).toBe(bytes.length);
    });

    it('refuse more or fewer bytes than declared', async () => {
      const bytes = await flatPng(64, 64);
      const [slot] = await api.slots(key, brandId, [{ name: 'a.png', type: 'image/png', bytes }]);
      expect((await api.put(slot!, Buffer.concat([bytes, Buffer.from('xx')]))).statusCode).toBe(413);
      expect((await api.put(slot!, bytes.subarray(1))).statusCode).toBe(400);
      expect(await t.deps.storage.head(uploadKey(orgId, slot!.assetId))).toBeUndefined();
    });
  });

  describe('POST /assets/confirm-upload', () => {
    it('answers 200 with the Asset `processing`, which then reaches `complete`', async () => {
      const bytes = await files.jpeg;
      const [slot] = await api.slots(key, brandId, [{ name: 'photo.jpg', type: 'image/jpeg', bytes }]);
      expect((await api.put(slot!, bytes)).statusCode).toBe(200);
      const res = await api.confirm(key, slot!.uploadId);
      expect(res.statusCode, res.body).toBe(200);
      const a = res.json();
      expect(a).toMatchObject({
        id: slot!.assetId,
        brandId,
        status: 'processing',
        metadata: { fileName: 'photo.jpg', fileType: 'image/jpeg', fileSize: bytes.length, type: 'image' },
        tags: [],
        autoGeneratedTags: [],
        usedInCampaigns: [],
        assetQualityTags: [],
        qualityAssessment: { assetId: slot!.assetId, status: 'processing' },
        version: 1,
      });
      expect(a.createdAt <= a.updatedAt).toBe(true);

      const done = await api.settled(key, slot!.assetId);
      expect(done.status).toBe('complete');
      expect(done.metadata.dimension).toEqual({ width: 640, height: 480 });
      expect(done.metadata.detectedFormat).toBe('JPEG');
      expect(done.autoGeneratedTags).toContain('landscape');
      expect(Array.isArray(done.assetQualityTags)).toBe(true);
      for (const q of done.assetQualityTags)
        expect(Object.keys(q).sort()).toEqual(['level', 'reason', 'reasonCode', 'recommendation']);
      expect(done.qualityAssessment).toEqual({ assetId: slot!.assetId, status: 'complete' });
      expect(done.version).toBe(2);
      expect(done).not.toHaveProperty('errorCode');
      const original = await api.download(done.url);
      expect(original.statusCode).toBe(200);
      expect(original.rawPayload.equals(bytes)).toBe(true);
      expect(original.headers['content-type']).toBe('image/jpeg');
      const thumb = await api.download(done.thumbnailUrl);
      expect(thumb.statusCode).toBe(200);
      expect(thumb.headers['content-type']).toBe('image/webp');
      // The upload object is gone once the original is in place.
      expect(await t.deps.storage.head(uploadKey(orgId, slot!.assetId))).toBeUndefined();
    });

    it('is idempotent: confirming twice, even at once, gives one asset and one job', async () => {
      const bytes = await flatPng(300, 200, '#208040');
      const [slot] = await api.slots(key, brandId, [{ name: 'twice.png', type: 'image/png', bytes }]);
      await api.put(slot!, bytes);
      const [a, b] = await Promise.all([api.confirm(key, slot!.uploadId), api.confirm(key, slot!.uploadId)]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect(a.json().id).toBe(slot!.assetId);
      expect(b.json().id).toBe(slot!.assetId);
      const c = await api.confirm(key, slot!.uploadId.toUpperCase());
      expect(c.statusCode).toBe(200);
      expect(c.json().id).toBe(slot!.assetId);
      const done = await api.settled(key, slot!.assetId);
      expect(done.version).toBe(2);
      const after = await api.confirm(key, slot!.uploadId);
      expect(after.json()).toMatchObject({ id: slot!.assetId, status: 'complete', version: 2 });
      // The asset reads complete once its handler committed; the job row is marked completed just
      // after, so it is read until it is no longer running.
      const jobs = await eventually(async () => {
        const rows = await t.deps.db.kysely
          .selectFrom('jobs')
          .select(['id', 'status'])
          .where('payload', 'like', `%${slot!.assetId}%`)
          .execute();
        return rows.some((r) => r.status === 'running') ? undefined : rows;
      }, 'the processing job to end');
      expect(jobs).toEqual([{ id: `assets.process.${slot!.assetId}`, status: 'completed' }]);
      const named = (await api.list(key, brandId, '?limit=100'))
        .json()
        .categories.flatMap((g: { assets: { metadata: { fileName: string } }[] }) =>
          g.assets.filter((x) => x.metadata.fileName === 'twice.png'),
        );
      expect(named).toHaveLength(1);
    });

    it('answers 400 before the bytes were uploaded, and accepts them after', async () => {
      const bytes = await flatPng(32, 32);
      const [slot] = await api.slots(key, brandId, [{ name: 'late.png', type: 'image/png', bytes }]);
      const res = await api.confirm(key, slot!.uploadId);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { reason: 'upload_missing', retryable: true },
      });
      expect((await api.get(key, slot!.assetId)).json().status).toBe('uploading');
      await api.put(slot!, bytes);
      expect((await api.confirm(key, slot!.uploadId)).statusCode).toBe(200);
    });

    it('answers 400 when the stored size is not the declared one', async () => {
      // A store that does not enforce the signed length (s3rver does not) could take other bytes.
      const [slot] = await api.slots(key, brandId, [{ name: 's.png', type: 'image/png', bytes: Buffer.alloc(5000) }]);
      const bytes = await flatPng(32, 32);
      await t.deps.storage.put(uploadKey(orgId, slot!.assetId), bytes, { contentType: 'image/png' });
      const res = await api.confirm(key, slot!.uploadId);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { reason: 'size_mismatch', declaredSize: 5000, uploadedSize: bytes.length },
      });
    });

    const polyglotHtml = async () =>
      Buffer.concat([
        Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>\n'),
        await flatPng(8, 8),
      ]);
    it.each<[string, string, string, () => Promise<Buffer>, string]>([
      ['PNG bytes declared as PDF', 'doc.pdf', 'application/pdf', () => flatPng(16, 16), 'PNG'],
      [
        'a text file declared as JPEG',
        'notes.jpg',
        'image/jpeg',
        async () => Buffer.from('just some notes\n'.repeat(20)),
        'TEXT',
      ],
      [
        'SVG bytes declared as PNG',
        'logo.png',
        'image/png',
        async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        'SVG',
      ],
      // HTML followed by binary data is not text, so it is UNKNOWN rather than HTML: refused all the same.
      ['an HTML/PNG polyglot declared as PNG', 'poly.png', 'image/png', polyglotHtml, 'UNKNOWN'],
      [
        'a Windows program declared as PDF',
        'junk.pdf',
        'application/pdf',
        async () => Buffer.concat([Buffer.from('MZ\x90\x00'), buildPdf(['x'])]),
        'EXE',
      ],
      [
        'a PDF with junk before its signature',
        'junk.pdf',
        'application/pdf',
        async () => Buffer.concat([Buffer.from([0, 1, 2, 3]), buildPdf(['x'])]),
        'UNKNOWN',
      ],
    ])('answers 400 unsupported_file_contents for %s', async (_name, fileName, fileType, make, detected) => {
      const bytes = await make();
      const [slot] = await api.slots(key, brandId, [{ name: fileName, type: fileType, bytes }]);
      expect((await api.put(slot!, bytes)).statusCode).toBe(200);
      const res = await api.confirm(key, slot!.uploadId);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
      expect(res.json().error.details).toEqual({
        reason: 'unsupported_file_contents',
        declaredType: fileType,
        detectedFormat: detected,
        retryable: false,
        supportedFormats: [...SUPPORTED_FORMATS],
      });
      expect(res.json().error.details.supportedFormats).toEqual([
        'DOC',
        'DOCX',
        'GIF',
        'JPEG',
        'MP4',
        'PDF',
        'PNG',
        'QuickTime',
        'TIFF',
      ]);
      // Nothing moved: the client may upload the right bytes to the same link and confirm again.
      expect((await api.get(key, slot!.assetId)).json().status).toBe('uploading');
    });

    it('accepts a JPEG with data appended (the bytes are the format their signature says)', async () => {
      const bytes = Buffer.concat([await files.jpeg, Buffer.from('PK\x03\x04appended zip')]);
      const [slot] = await api.upload(key, brandId, [{ name: 'motion.jpg', type: 'image/jpeg', bytes }]);
      expect((await api.settled(key, slot!.assetId)).status).toBe('complete');
    });

    it('answers 404 for an unknown upload or one of another organization, 403 to a viewer, 401 without a key', async () => {
      const [slot] = await api.slots(key, brandId, [{ name: 'a.png', type: 'image/png', bytes: Buffer.alloc(10) }]);
      for (const [k, id] of [
        [key, MISSING],
        [otherKey, slot!.uploadId],
      ] as const) {
        const res = await api.confirm(k, id);
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('UPLOAD_NOT_FOUND');
      }
      expect((await api.confirm(viewerKey, slot!.uploadId)).statusCode).toBe(403);
      expect(
        (await t.request({ method: 'POST', url: '/v1/assets/confirm-upload', payload: { uploadId: slot!.uploadId } }))
          .statusCode,
      ).toBe(401);
      for (const body of [
        {},
        { uploadId: 'x' },
        { uploadId: slot!.uploadId, extra: 1 },
        { uploadId: slot!.uploadId, categoryId: 'general' },
      ]) {
        const res = await t.request({ method: 'POST', url: '/v1/assets/confirm-upload', key, payload: body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
      }
    });

    it('puts the asset in the category named at confirm time', async () => {
      const category = randomUUID();
      const bytes = await flatPng(40, 40);
      const [slot] = await api.slots(key, brandId, [{ name: 'c.png', type: 'image/png', bytes }]);
      await api.put(slot!, bytes);
      const res = await api.confirm(key, slot!.uploadId, category.toUpperCase());
      expect(res.json().categoryId).toBe(category);
    });
  });

  describe('POST /assets/cancel-upload/{uploadId}', () => {
    it('cancels: 200 {success, message}, the asset is `canceled` and the bytes are gone', async () => {
      const bytes = await flatPng(32, 32);
      const [slot] = await api.slots(key, brandId, [{ name: 'gone.png', type: 'image/png', bytes }]);
      await api.put(slot!, bytes);
      expect(await t.deps.storage.head(uploadKey(orgId, slot!.assetId))).toBeDefined();
      const res = await api.cancel(key, slot!.uploadId);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, message: expect.any(String) });
      expect(await t.deps.storage.head(uploadKey(orgId, slot!.assetId))).toBeUndefined();
      const a = (await api.get(key, slot!.assetId)).json();
      expect(a.status).toBe('canceled');
      expect(a.qualityAssessment.status).toBe('canceled');
      expect(a).not.toHaveProperty('url');
      // Again: still a success (already canceled); confirm is refused.
      expect((await api.cancel(key, slot!.uploadId)).json().success).toBe(true);
      const confirm = await api.confirm(key, slot!.uploadId);
      expect(confirm.statusCode).toBe(400);
      expect(confirm.json().error.code).toBe('UPLOAD_NOT_PENDING');
    });

    it('accepts an empty JSON body, and answers success false once the upload was confirmed', async () => {
      const bytes = await flatPng(32, 32);
      const [slot] = await api.upload(key, brandId, [{ name: 'kept.png', type: 'image/png', bytes }]);
      const res = await t.request({
        method: 'POST',
        url: `/v1/assets/cancel-upload/${slot!.uploadId}`,
        key,
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: false, message: expect.stringContaining('confirmed') });
      expect((await api.settled(key, slot!.assetId)).status).toBe('complete');
    });

    it("answers 404 for an unknown upload or another organization's, 400 for a malformed id, 403 to a viewer", async () => {
      const [slot] = await api.slots(key, brandId, [{ name: 'a.png', type: 'image/png', bytes: Buffer.alloc(10) }]);
      expect((await api.cancel(key, MISSING)).statusCode).toBe(404);
      const foreign = await api.cancel(otherKey, slot!.uploadId);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error.code).toBe('UPLOAD_NOT_FOUND');
      expect((await api.cancel(key, 'nope')).statusCode).toBe(400);
      expect((await api.cancel(viewerKey, slot!.uploadId)).statusCode).toBe(403);
      expect((await t.request({ method: 'POST', url: `/v1/assets/cancel-upload/${slot!.uploadId}` })).statusCode).toBe(
        401,
      );
      expect((await api.get(key, slot!.assetId)).json().status).toBe('uploading');
    });
  });

  describe('GET /assets/{assetId}', () => {
    it("answers 404 for an unknown asset or another organization's, 400 for a malformed id, 200 to a viewer", async () => {
      const [slot] = await api.slots(key, brandId, [{ name: 'a.png', type: 'image/png', bytes: Buffer.alloc(10) }]);
      expect((await api.get(viewerKey, slot!.assetId)).statusCode).toBe(200);
      expect((await api.get(key, slot!.assetId.toUpperCase())).json().id).toBe(slot!.assetId);
      for (const [k, id] of [
        [key, MISSING],
        [otherKey, slot!.assetId],
      ] as const) {
        const res = await api.get(k, id);
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('ASSET_NOT_FOUND');
      }
      expect((await api.get(key, 'nope')).statusCode).toBe(400);
      expect((await t.request({ method: 'GET', url: `/v1/assets/${slot!.assetId}` })).statusCode).toBe(401);
    });
  });

  describe('GET /brands/{brandId}/assets', () => {
    let listBrand: string;
    const category = randomUUID();
    const campaign = randomUUID();
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      listBrand = await api.createBrand(key, 'Lists');
      const uploads: [string, string, string, Buffer, boolean?][] = [
        ['jpeg', 'b-landscape.jpg', 'image/jpeg', await files.jpeg],
        ['logo', 'd-logo.png', 'image/png', await files.logo, true],
        ['video', 'a-clip.mp4', 'video/mp4', await files.video],
        ['pdf', 'E-book.pdf', 'application/pdf', await files.pdf],
        ['font', 'f-face.ttf', 'font/ttf', await files.font],
      ];
      for (const [name, fileName, type, bytes, isLogo] of uploads) {
        const [slot] = await api.upload(key, listBrand, [
          { name: fileName, type, bytes, ...(isLogo ? { isLogo } : {}) },
        ]);
        ids[name] = slot!.assetId;
      }
      const [portrait] = await api.upload(
        key,
        listBrand,
        [{ name: 'c-portrait.jpg', type: 'image/jpeg', bytes: await files.portrait }],
        category,
      );
      ids.portrait = portrait!.assetId;
      const [canceled] = await api.slots(key, listBrand, [
        { name: 'g-canceled.png', type: 'image/png', bytes: Buffer.alloc(10) },
      ]);
      await api.cancel(key, canceled!.uploadId);
      ids.canceled = canceled!.assetId;
      for (const [name, id] of Object.entries(ids)) {
        if (name !== 'canceled') expect((await api.settled(key, id, 60_000)).status, name).toBe('complete');
      }
      // Campaigns are not part of this API yet: mark one asset as used in one, as they will.
      await t.deps.db.kysely
        .updateTable('assets')
        .set({ used_in_campaigns: JSON.stringify([campaign]) })
        .where('id', '=', ids.jpeg!)
        .execute();
    }, 120_000);

    type Group = { id: string; name: string; assets: { id: string; metadata: { fileName: string } }[] };
    const list = async (query = '') => {
      const res = await api.list(key, listBrand, query);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().categories as Group[];
    };
    const flatIds = (groups: Group[]) => groups.flatMap((g) => g.assets.map((a) => a.id));
    const named = (...names: string[]) => names.map((n) => ids[n]);

    it('groups by category: `general` (General) by default, a custom category named by its id', async () => {
      const groups = await list();
      expect(groups.map((g) => [g.id, g.name])).toEqual([
        ['general', 'General'],
        [category, category],
      ]);
      expect(groups[1]!.assets.map((a) => a.id)).toEqual([ids.portrait]);
      expect(flatIds(groups).sort()).toEqual(Object.values(ids).sort());
      expect(Object.keys(groups[0]!)).toEqual(['id', 'name', 'assets']);
    });

    it('sorts by -createdAt by default, and by createdAt, fileName and -fileName', async () => {
      const newest = flatIds(await list('?sort=-createdAt&limit=100'));
      expect(flatIds(await list('?limit=100')).sort()).toEqual([...newest].sort());
      const oldest = flatIds(await list('?sort=createdAt&limit=100&type=image'));
      // Grouping keeps the order within each category: general (jpeg, canceled), then the portrait's.
      expect(oldest).toEqual(named('jpeg', 'canceled', 'portrait'));
      expect(flatIds(await list('?sort=-createdAt&limit=100&type=image'))).toEqual(
        named('canceled', 'jpeg', 'portrait'),
      );
      const byName = (await list('?sort=fileName&limit=100')).flatMap((g) => g.assets.map((a) => a.metadata.fileName));
      // Code point order: upper case before lower case.
      expect(byName).toEqual([
        'E-book.pdf',
        'a-clip.mp4',
        'b-landscape.jpg',
        'd-logo.png',
        'f-face.ttf',
        'g-canceled.png',
        'c-portrait.jpg',
      ]);
      const desc = flatIds(await list('?sort=-fileName&limit=100'));
      expect(desc).toEqual(named('canceled', 'font', 'logo', 'jpeg', 'video', 'pdf', 'portrait'));
    });

    it('pages the flat sorted list before grouping', async () => {
      const all = (await list('?sort=fileName&limit=100')).flatMap((g) => g.assets);
      const sorted = [...all].sort((a, b) => (a.metadata.fileName < b.metadata.fileName ? -1 : 1)).map((a) => a.id);
      const paged: string[] = [];
      for (let page = 1; page <= 4; page++) paged.push(...flatIds(await list(`?sort=fileName&limit=2&page=${page}`)));
      expect(paged).toEqual(sorted);
      // c-portrait.jpg is 4th by name: alone on page 4 of limit 1, in its own category only.
      expect(await list('?sort=fileName&limit=1&page=4')).toEqual([
        { id: category, name: category, assets: [expect.objectContaining({ id: ids.portrait })] },
      ]);
      expect(await list('?page=99')).toEqual([{ id: 'general', name: 'General', assets: [] }]);
      expect(flatIds(await list())).toHaveLength(7); // default limit 20
    });

    it.each([
      ['type=image', ['jpeg', 'portrait', 'canceled']],
      ['type=logo', ['logo']],
      ['type=video', ['video']],
      ['type=document', ['pdf']],
      ['type=font', ['font']],
      ['type=mask', []],
      ['status=canceled', ['canceled']],
      ['status=uploading', []],
      ['tags=landscape', ['jpeg', 'video']],
      ['tags=landscape&tags=with-audio', []],
      ['tags=portrait', ['portrait']],
      ['tags=font', ['font']],
      ['tags=pdf,single-page', []],
      ['tags=pdf,multi-page', ['pdf']],
      ['tags=pdf&tags=multi-page', ['pdf']],
      ['tags=nothing-has-this', []],
      ['type=image&status=complete&tags=landscape', ['jpeg']],
    ])('filters with %s', async (query, expected) => {
      expect(flatIds(await list(`?${query}&limit=100`)).sort()).toEqual(named(...expected).sort());
    });

    it('filters by campaignId', async () => {
      expect(flatIds(await list(`?campaignId=${campaign}`))).toEqual([ids.jpeg]);
      expect(flatIds(await list(`?campaignId=${campaign.toUpperCase()}`))).toEqual([ids.jpeg]);
      expect(flatIds(await list(`?campaignId=${randomUUID()}`))).toEqual([]);
    });

    it('returns fresh download links that serve the bytes', async () => {
      const groups = await list('?type=logo');
      const logo = groups[0]!.assets[0] as unknown as { url: string; thumbnailUrl: string };
      const got = await api.download(logo.url);
      expect(got.statusCode).toBe(200);
      expect(got.rawPayload.equals(await files.logo)).toBe(true);
      expect((await api.download(logo.thumbnailUrl)).statusCode).toBe(200);
    });

    it.each([
      'page=0',
      'page=-1',
      'page=x',
      'limit=0',
      'limit=101',
      'sort=name',
      'sort=-updatedAt',
      'type=photo',
      'status=done',
      'campaignId=x',
      'tags=',
      `tags=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(',')}`,
      `${Array.from({ length: 21 }, (_, i) => `tags=t${i}`).join('&')}`,
      `tags=a,${'x'.repeat(101)}`,
    ])('answers 400 for %s', async (query) => {
      const res = await api.list(key, listBrand, `?${query}`);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
      expect(res.json().error.details.fields[0].field).toMatch(/^query\./);
    });

    it('accepts limit 100 and the bounds of page', async () => {
      expect((await api.list(key, listBrand, '?limit=100&page=1')).statusCode).toBe(200);
      expect((await api.list(key, listBrand, '?limit=1&page=1000000')).statusCode).toBe(200);
    });

    it('answers 404 for a brand not in the organization, 400 for a malformed id, 401 without a key', async () => {
      for (const b of [otherBrandId, MISSING]) {
        const res = await api.list(key, b);
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('BRAND_NOT_FOUND');
      }
      expect((await api.list(otherKey, listBrand)).statusCode).toBe(404);
      expect((await api.list(key, 'nope')).statusCode).toBe(400);
      expect((await t.request({ method: 'GET', url: `/v1/brands/${listBrand}/assets` })).statusCode).toBe(401);
      expect((await api.list(viewerKey, listBrand)).statusCode).toBe(200);
    });

    it('lets a brand take a logo asset by id (PUT /brands/{id} with logoAssetId)', async () => {
      const get = await t.request({ method: 'GET', url: `/v1/brands/${listBrand}`, key });
      const put = (assetId: string) =>
        t.request({
          method: 'PUT',
          url: `/v1/brands/${listBrand}`,
          key,
          headers: { 'if-match': String(get.headers.etag) },
          payload: { logoAssetId: assetId },
        });
      const video = await put(ids.video!);
      expect(video.statusCode).toBe(422);
      const res = await put(ids.logo!);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().logoAsset).toEqual({ assetId: ids.logo, assetType: 'logo' });
      const foreign = await t.request({
        method: 'POST',
        url: '/v1/brands',
        key: otherKey,
        payload: {
          name: 'X',
          industry: 'Y',
          description: 'Borrowing a logo.',
          mission: '',
          values: [],
          tone: [],
          voice: [],
          logoAssetId: ids.logo,
        },
      });
      expect(foreign.statusCode).toBe(422);
    });
  });

  describe('rate limits', () => {
    it('answers 429 with Retry-After once the key is over its limit', async () => {
      const limited = await createTestApp(kind, {
        env: { ATELIER_RATE_LIMIT_PER_SECOND: '1', ATELIER_RATE_LIMIT_BURST: '2' },
      });
      try {
        const owner = await limited.bootstrap();
        const l = assetClient(limited);
        const body = { brandId: MISSING, files: [oneFile()] };
        const statuses: number[] = [];
        let last = await l.initiate(owner.apiKey, body);
        statuses.push(last.statusCode);
        for (let i = 0; i < 3 && last.statusCode !== 429; i++) {
          last = await l.initiate(owner.apiKey, body);
          statuses.push(last.statusCode);
        }
        expect(statuses).toContain(404);
        expect(last.statusCode).toBe(429);
        expect(last.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        expect(last.json().error.code).toBe('RATE_LIMITED');
        for (const res of [
          await l.confirm(owner.apiKey, MISSING),
          await l.list(owner.apiKey, MISSING),
          await l.get(owner.apiKey, MISSING),
        ]) {
          expect(res.statusCode).toBe(429);
        }
      } finally {
        await limited.close();
      }
    });
  });
});

describe('Assets over a listening server (plain fetch)', () => {
  it('uploads with fetch to uploadUrl (no key), confirms, and serves url and thumbnailUrl', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await createTestApp('sqlite', {
      env: { PORT: String(port), ATELIER_PUBLIC_URL: base },
      jobTuning: { stopGraceMs: 1000 },
    });
    try {
      await t.app.listen({ host: '127.0.0.1', port });
      await t.deps.startWorkers();
      const { apiKey } = await t.bootstrap();
      const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const brandId = await assetClient(t).createBrand(apiKey);
      const bytes = await texturedJpeg(800, 600, 7);
      const init = await fetch(`${base}/v1/assets/initiate-upload`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          brandId,
          files: [{ fileName: 'été.jpg', fileType: 'image/jpeg', fileSize: bytes.length }],
        }),
      });
      expect(init.status).toBe(201);
      const [slot] = ((await init.json()) as { uploads: UploadSlot[] }).uploads;
      expect(slot!.uploadUrl.startsWith(`${base}/v1/blobs/`)).toBe(true);
      const put = await fetch(slot!.uploadUrl, {
        method: slot!.uploadMethod,
        headers: slot!.uploadHeaders,
        body: bytes,
      });
      expect(put.status).toBe(200);
      // A small body: a client still streaming a large body when the server answers early and
      // closes can hang in undici (the refusal itself is what this checks).
      const again = await fetch(slot!.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'image/png' },
        body: bytes.subarray(0, 16),
        signal: AbortSignal.timeout(10_000),
      });
      expect(again.status).toBe(403);
      const confirm = await fetch(`${base}/v1/assets/confirm-upload`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ uploadId: slot!.uploadId }),
      });
      expect(confirm.status).toBe(200);
      const asset = await assetClient(t).settled(apiKey, slot!.assetId);
      expect(asset.status).toBe('complete');
      expect(asset.metadata.fileName).toBe('été.jpg');
      const original = await fetch(asset.url);
      expect(original.status).toBe(200);
      expect(original.headers.get('content-disposition')).toContain("filename*=UTF-8''%C3%A9t%C3%A9.jpg");
      expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true);
      const thumb = await fetch(asset.thumbnailUrl);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/webp');
      expect((await thumb.arrayBuffer()).byteLength).toBeGreaterThan(100);
    } finally {
      await t.close();
    }
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { createTestApp, type TestApp, tmpDir } from '../../../test/helpers/app.ts';
import { startS3rver, type TestS3 } from '../../../test/helpers/s3.ts';
import { downloadToFile, openObjectStorage } from './storage.ts';
import { isStorageError, type ObjectStorage, type StorageErrorCode } from './storage.port.ts';

/** The error member of a standard error body. */
const errorOf = async (r: Response) =>
  ((await r.json()) as { error: { code: string; message: string; details?: unknown } }).error;

/**
 * The one contract every object storage adapter keeps: local (links served by a real listening
 * Atelier app) and s3 (a real s3rver). Links are used with plain fetch and no API key.
 */

interface Subject {
  storage: ObjectStorage;
  /** Moves the adapters' clock (not the server's) by this many ms. */
  setClockOffset(ms: number): void;
  /**
   * Whether the server refuses an upload that differs from what its link signed. The local blob
   * routes do; s3rver checks expiry but not SigV4 signatures, so there the confirm step's `head`
   * size check is what catches it (real S3, MinIO... refuse with 403).
   */
  enforcesSignedUploads: boolean;
  close(): Promise<void>;
}

async function localSubject(): Promise<Subject> {
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);
  const t: TestApp = await createTestApp('sqlite', { clock });
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  // A second adapter on the same folder and secret, as a worker process has; its links name the
  // listening address.
  const storage = openObjectStorage({ ...t.config, publicUrl: address }, clock);
  return {
    storage,
    setClockOffset: (ms) => {
      offset = ms;
    },
    enforcesSignedUploads: true,
    close: async () => {
      t.app.server.closeAllConnections(); // see blob.routes.test.ts
      await storage.close();
      await t.close();
    },
  };
}

async function s3Subject(): Promise<Subject> {
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);
  const s3: TestS3 = await startS3rver();
  const dataDir = tmpDir();
  const config = loadConfig({ ...s3.env, ATELIER_DATA_DIR: dataDir });
  const storage = openObjectStorage(config, clock);
  return {
    storage,
    setClockOffset: (ms) => {
      offset = ms;
    },
    enforcesSignedUploads: false,
    close: async () => {
      await storage.close();
      await s3.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function expectStorageError(p: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStorageError(err, code), `expected StorageError ${code}, got ${String(err)}`).toBe(true);
}

async function readAll(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

const BAD_KEYS = [
  '',
  '../signing.key',
  'a/../../signing.key',
  '..',
  '.',
  '/etc/passwd',
  'a//b',
  'a/b/',
  'a/./b',
  'a\\..\\b',
  '.tmp/x',
  '.hidden',
  '%2e%2e/x',
  'a~',
  'a/b~meta',
  'nul\0byte',
  'sp ace',
  'é',
  'x'.repeat(1025),
  `a/${'y'.repeat(256)}`,
];

describe.each(['local', 's3'] as const)('object storage contract (%s)', (kind) => {
  let s: Subject;
  let storage: ObjectStorage;
  const bytes = Buffer.from('\x89PNG\r\n\x1a\n-not-really-a-png-but-bytes-0123456789');

  beforeAll(async () => {
    s = kind === 'local' ? await localSubject() : await s3Subject();
    storage = s.storage;
  });
  afterAll(async () => s?.close());

  async function upload(key: string, body: Buffer, contentType = 'image/png') {
    const link = await storage.createUploadLink(key, {
      contentLength: body.length,
      contentType,
      expiresInSeconds: 600,
    });
    const res = await fetch(link.url, { method: link.method, headers: link.headers, body });
    return { link, res };
  }

  it('reports its kind', () => {
    expect(storage.kind).toBe(kind);
  });

  it('takes an upload through the link with plain fetch and no key, then heads and reads it', async () => {
    const before = Date.now();
    const { link, res } = await upload('orgs/o1/assets/a1/original', bytes);
    expect(res.status, await res.text()).toBe(200);
    expect(link.method).toBe('PUT');
    expect(link.headers).toEqual({ 'Content-Type': 'image/png' });
    expect(link.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 599_000);
    expect(link.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 600_000);

    expect(await storage.head('orgs/o1/assets/a1/original')).toEqual({ size: bytes.length, contentType: 'image/png' });
    expect(await storage.readRange('orgs/o1/assets/a1/original', 0, 7)).toEqual(bytes.subarray(0, 8));
    expect(await storage.readRange('orgs/o1/assets/a1/original', 4, 10_000)).toEqual(bytes.subarray(4));
    expect((await storage.readRange('orgs/o1/assets/a1/original', bytes.length + 5, bytes.length + 9)).length).toBe(0);
  });

  it('serves the object through a download link with its type, size and file name', async () => {
    await storage.put('dl/photo', bytes, { contentType: 'image/png' });
    const url = await storage.createDownloadLink('dl/photo', {
      expiresInSeconds: 120,
      fileName: 'Summer "sale" é.png',
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="Summer _sale_ _.png"; filename*=UTF-8''Summer%20%22sale%22%20%C3%A9.png`,
    );

    const typed = await storage.createDownloadLink('dl/photo', {
      expiresInSeconds: 120,
      contentType: 'application/octet-stream',
      disposition: 'attachment',
    });
    const res2 = await fetch(typed);
    expect(res2.headers.get('content-type')).toBe('application/octet-stream');
    expect(res2.headers.get('content-disposition')).toBe('attachment');
    await res2.arrayBuffer();

    const ranged = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 2-5/${bytes.length}`);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(bytes.subarray(2, 6));
  });

  it('gives the same download link for repeated calls within a few minutes', async () => {
    const a = await storage.createDownloadLink('dl/photo', { expiresInSeconds: 60 });
    const b = await storage.createDownloadLink('dl/photo', { expiresInSeconds: 60 });
    expect(a).toBe(b);
  });

  it('refuses expired upload and download links with 403', async () => {
    await storage.put('exp/obj', bytes, { contentType: 'image/png' });
    s.setClockOffset(-2 * 3600_000);
    const link = await storage.createUploadLink('exp/new', {
      contentLength: bytes.length,
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    const dl = await storage.createDownloadLink('exp/obj', { expiresInSeconds: 60 });
    s.setClockOffset(0);
    const put = await fetch(link.url, { method: 'PUT', headers: link.headers, body: bytes });
    expect(put.status).toBe(403);
    expect(await storage.head('exp/new')).toBeUndefined();
    expect((await fetch(dl)).status).toBe(403);
  });

  it('replaces the object when the same link is used twice', async () => {
    const link = await storage.createUploadLink('twice/obj', {
      contentLength: 4,
      contentType: 'text/plain',
      expiresInSeconds: 60,
    });
    for (const body of ['AAAA', 'BBBB']) {
      const res = await fetch(link.url, { method: 'PUT', headers: link.headers, body });
      expect(res.status).toBe(200);
    }
    expect((await storage.readRange('twice/obj', 0, 3)).toString()).toBe('BBBB');
  });

  it('signs the size and type of uploads: refused by the server, or caught by the size check', async () => {
    const link = await storage.createUploadLink('size/obj', {
      contentLength: 10,
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    const longer = Buffer.alloc(50, 1);
    if (s.enforcesSignedUploads) {
      const big = await fetch(link.url, { method: 'PUT', headers: link.headers, body: longer });
      expect(big.status).toBe(413);
      const small = await fetch(link.url, { method: 'PUT', headers: link.headers, body: Buffer.alloc(3) });
      expect(small.status).toBe(400);
      const wrongType = await fetch(link.url, {
        method: 'PUT',
        headers: { 'Content-Type': 'text/html' },
        body: Buffer.alloc(10),
      });
      expect(wrongType.status).toBe(403);
      expect(await storage.head('size/obj')).toBeUndefined();
    } else {
      const signed = new URL(link.url).searchParams.get('X-Amz-SignedHeaders')?.split(';');
      expect(signed).toEqual(expect.arrayContaining(['content-length', 'content-type', 'host']));
      // No SDK checksum of an empty body in the link: a verifying store would refuse the upload.
      expect(link.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
      const res = await fetch(link.url, { method: 'PUT', headers: link.headers, body: longer });
      expect(res.status).toBe(200);
      // What the confirm step compares against the declared fileSize.
      expect((await storage.head('size/obj'))?.size).toBe(50);
    }
  });

  it.skipIf(kind === 's3')('refuses tampered links with 403 (s3rver does not verify signatures)', async () => {
    await storage.put('tamper/obj', bytes, { contentType: 'image/png' });
    await storage.put('tamper/other', bytes, { contentType: 'image/png' });
    const dl = new URL(await storage.createDownloadLink('tamper/obj', { expiresInSeconds: 60 }));
    const up = new URL(
      (
        await storage.createUploadLink('tamper/new', {
          contentLength: 4,
          contentType: 'text/plain',
          expiresInSeconds: 60,
        })
      ).url,
    );
    const variants: [URL, string][] = [];
    const edit = (u: URL, f: (c: URL) => void, method: string) => {
      const c = new URL(u);
      f(c);
      variants.push([c, method]);
    };
    edit(dl, (c) => c.searchParams.set('signature', `${c.searchParams.get('signature')!.slice(0, -2)}AA`), 'GET');
    edit(dl, (c) => (c.pathname = c.pathname.replace('tamper/obj', 'tamper/other')), 'GET');
    edit(dl, (c) => c.searchParams.set('expires', String(Number(c.searchParams.get('expires')) + 3600)), 'GET');
    edit(dl, (c) => c.searchParams.set('type', 'text/html'), 'GET');
    edit(dl, (c) => c.searchParams.delete('signature'), 'GET');
    edit(up, (c) => c.searchParams.set('length', '4000'), 'PUT');
    edit(up, (c) => (c.pathname = c.pathname.replace('tamper/new', 'tamper/obj')), 'PUT');
    edit(up, () => {}, 'GET'); // an upload link is not a download link
    for (const [u, method] of variants) {
      const res = await fetch(
        u,
        method === 'PUT' ? { method, headers: { 'Content-Type': 'text/plain' }, body: 'abcd' } : {},
      );
      expect(res.status, `${method} ${u}`).toBe(403);
      expect((await errorOf(res)).code).toBe('FORBIDDEN');
    }
    expect(await storage.head('tamper/new')).toBeUndefined();
    expect(await storage.readRange('tamper/obj', 0, 100)).toEqual(bytes);
  });

  it('puts buffers and streams, enforcing a stream length exactly', async () => {
    await storage.put('put/buf', Buffer.from('hello'), { contentType: 'text/plain' });
    expect(await storage.head('put/buf')).toEqual({ size: 5, contentType: 'text/plain' });
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    await storage.put('put/stream', Readable.from([big.subarray(0, 1e6), big.subarray(1e6)]), {
      contentType: 'application/octet-stream',
      contentLength: big.length,
    });
    expect((await readAll(await storage.getStream('put/stream'))).equals(big)).toBe(true);

    await expectStorageError(
      storage.put('put/stream', Readable.from([Buffer.alloc(10)]), { contentType: 'text/plain', contentLength: 5 }),
      'TOO_LARGE',
    );
    await expectStorageError(
      storage.put('put/short', Readable.from([Buffer.alloc(3)]), { contentType: 'text/plain', contentLength: 5 }),
      'TOO_SMALL',
    );
    // Nothing stored by a failed put; the previous object is kept.
    expect(await storage.head('put/short')).toBeUndefined();
    expect((await storage.head('put/stream'))?.size).toBe(big.length);
    await expectStorageError(
      storage.put('put/x', Readable.from([Buffer.alloc(3)]), { contentType: 'text/plain' }),
      'INVALID_ARGUMENT',
    );
    await expectStorageError(storage.put('put/x', Buffer.alloc(3), { contentType: 'not a type' }), 'INVALID_ARGUMENT');
  });

  it('streams ranges, and reports missing objects', async () => {
    await storage.put('stream/obj', bytes, { contentType: 'image/png' });
    expect(await readAll(await storage.getStream('stream/obj', { start: 3, end: 9 }))).toEqual(bytes.subarray(3, 10));
    expect(await readAll(await storage.getStream('stream/obj', { start: 1000, end: 2000 }))).toEqual(Buffer.alloc(0));
    const dir = tmpDir();
    expect(await downloadToFile(storage, 'stream/obj', path.join(dir, 'copy'))).toBe(bytes.length);
    expect(fs.readFileSync(path.join(dir, 'copy'))).toEqual(bytes);
    await expectStorageError(downloadToFile(storage, 'stream/missing', path.join(dir, 'none')), 'NOT_FOUND');
    fs.rmSync(dir, { recursive: true, force: true });
    await expectStorageError(storage.getStream('stream/missing'), 'NOT_FOUND');
    await expectStorageError(storage.readRange('stream/missing', 0, 10), 'NOT_FOUND');
    await expectStorageError(storage.readRange('stream/obj', 5, 2), 'INVALID_ARGUMENT');
    expect(await storage.head('stream/missing')).toBeUndefined();
  });

  it('keeps an object and a "folder" of the same name apart', async () => {
    await storage.put('nest/a', Buffer.from('1'), { contentType: 'text/plain' });
    await storage.put('nest/a/b', Buffer.from('22'), { contentType: 'text/plain' });
    expect((await storage.head('nest/a'))?.size).toBe(1);
    expect((await storage.head('nest/a/b'))?.size).toBe(2);
  });

  it('deletes one object (idempotently) and everything under a prefix', async () => {
    await storage.put('del/one', bytes, { contentType: 'image/png' });
    await storage.delete('del/one');
    await storage.delete('del/one');
    expect(await storage.head('del/one')).toBeUndefined();

    for (const k of ['del/p/a', 'del/p/b/c', 'del/p/b/d', 'del/pq/keep', 'del/p-keep']) {
      await storage.put(k, bytes, { contentType: 'image/png' });
    }
    expect(await storage.deletePrefix('del/p/')).toBe(3);
    for (const k of ['del/p/a', 'del/p/b/c', 'del/p/b/d']) expect(await storage.head(k)).toBeUndefined();
    for (const k of ['del/pq/keep', 'del/p-keep']) expect(await storage.head(k)).toBeDefined();
    expect(await storage.deletePrefix('del/p/')).toBe(0);
    expect(await storage.deletePrefix('nothing/here/')).toBe(0);
  });

  it('refuses keys that could leave the store, in every method', async () => {
    const link = { contentLength: 1, contentType: 'text/plain', expiresInSeconds: 60 };
    for (const key of BAD_KEYS) {
      await expectStorageError(storage.createUploadLink(key, link), 'INVALID_KEY');
      await expectStorageError(storage.createDownloadLink(key, { expiresInSeconds: 60 }), 'INVALID_KEY');
      await expectStorageError(storage.head(key), 'INVALID_KEY');
      await expectStorageError(storage.readRange(key, 0, 1), 'INVALID_KEY');
      await expectStorageError(storage.getStream(key), 'INVALID_KEY');
      await expectStorageError(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' }), 'INVALID_KEY');
      await expectStorageError(storage.delete(key), 'INVALID_KEY');
    }
    for (const prefix of ['', '/', 'a', '../', 'a/../', './', 'a//', '%2e%2e/']) {
      await expectStorageError(storage.deletePrefix(prefix), 'INVALID_KEY');
    }
  });

  it('validates link options', async () => {
    const ok = { contentLength: 1, contentType: 'text/plain', expiresInSeconds: 60 };
    for (const bad of [
      { ...ok, contentLength: -1 },
      { ...ok, contentLength: 1.5 },
      { ...ok, contentLength: 6 * 1024 ** 3 },
      { ...ok, contentType: 'text/plain\r\nx-injected: 1' },
      { ...ok, contentType: '' },
      { ...ok, expiresInSeconds: 0 },
      { ...ok, expiresInSeconds: 8 * 24 * 3600 },
    ]) {
      await expectStorageError(storage.createUploadLink('opts/x', bad), 'INVALID_ARGUMENT');
    }
    await expectStorageError(
      storage.createDownloadLink('opts/x', { expiresInSeconds: 60, contentType: 'bad type' }),
      'INVALID_ARGUMENT',
    );
  });
});

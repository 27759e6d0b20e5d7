import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { finished, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../../clock.ts';
import { createLinkSigner, type LinkCheck } from './link-signing.ts';
import { type ObjectStorage, StorageError } from './storage.port.ts';
import { assertValidKey, checkDownloadLink, checkedStorage, checkUploadLink, exactLength } from './storage.rules.ts';

/** Path of the blob routes (blob.routes.ts) under the public URL; the key follows. */
const BLOB_ROUTE_PREFIX = '/v1/blobs/';

export interface LocalObjectStorage extends ObjectStorage {
  readonly kind: 'local';
  /** Checks a blob link for a request to `<BLOB_ROUTE_PREFIX><key>?<query>` (link-signing.ts). */
  verifyLink(method: 'GET' | 'PUT', key: string, query: Record<string, unknown>): LinkCheck;
}

export const isLocalStorage = (s: ObjectStorage): s is LocalObjectStorage =>
  s.kind === 'local' && typeof (s as LocalObjectStorage).verifyLink === 'function';

export interface LocalStorageOptions {
  /** Folder of the objects, normally `$ATELIER_DATA_DIR/blobs`. */
  root: string;
  /** Base of the links (config.publicUrl): scheme, host, optional path, no trailing slash. */
  publicUrl: string;
  signingSecret: string;
  clock: Clock;
}

/*
 * Layout: key `a/b/c` is the file `<root>/a/b/c~` and its metadata `<root>/a/b/c~meta`. Keys cannot
 * contain `~`, so a folder (`a/b`) never collides with an object (`a/b~`): like S3, `a/b` and
 * `a/b/c` can both exist. Uploads are written to `<root>/.tmp` (same file system; keys cannot start
 * with `.`) and renamed into place, so a reader sees the old object or the new one, never half.
 */
const DATA_SUFFIX = '~';
const META_SUFFIX = '~meta';
const TMP_DIR = '.tmp';
const STALE_TMP_MS = 24 * 3600 * 1000;

interface Meta {
  contentType: string;
}

export function createLocalStorage(o: LocalStorageOptions): LocalObjectStorage {
  const root = path.resolve(o.root);
  const tmpDir = path.join(root, TMP_DIR);
  const signer = createLinkSigner(o.signingSecret);
  fs.mkdirSync(tmpDir, { recursive: true });
  removeStaleTemps(tmpDir);

  const objectPath = (key: string, suffix = DATA_SUFFIX) => {
    assertValidKey(key);
    return path.join(root, ...key.split('/')) + suffix;
  };
  const linkUrl = (key: string, query: string) => `${o.publicUrl}${BLOB_ROUTE_PREFIX}${key}?${query}`;

  async function readMeta(key: string): Promise<Meta | undefined> {
    try {
      return JSON.parse(await fsp.readFile(objectPath(key, META_SUFFIX), 'utf8')) as Meta;
    } catch {
      return undefined;
    }
  }

  /** Moves a finished temp file into place, its metadata first. */
  async function commit(key: string, tmpData: string, meta: Meta): Promise<void> {
    const dataFile = objectPath(key);
    const tmpMeta = path.join(tmpDir, `${randomUUID()}.meta`);
    try {
      await fsp.writeFile(tmpMeta, JSON.stringify(meta), { flag: 'wx' });
      await fsp.mkdir(path.dirname(dataFile), { recursive: true });
      await fsp.rename(tmpMeta, objectPath(key, META_SUFFIX));
      await fsp.rename(tmpData, dataFile);
    } finally {
      await fsp.rm(tmpMeta, { force: true });
    }
  }

  /** Removes now-empty folders from `dir` up to the root. */
  async function prune(dir: string): Promise<void> {
    while (dir.startsWith(root + path.sep) && dir !== tmpDir) {
      try {
        await fsp.rmdir(dir);
      } catch {
        return;
      }
      dir = path.dirname(dir);
    }
  }

  async function openExisting(key: string): Promise<fsp.FileHandle> {
    const file = objectPath(key);
    try {
      return await fsp.open(file, 'r');
    } catch (err) {
      throw notFoundOr(err, key);
    }
  }

  return checkedStorage({
    kind: 'local',

    async createUploadLink(key, lo) {
      const { expiresAt } = checkUploadLink(key, lo, o.clock());
      const query = signer.sign({
        method: 'PUT',
        key,
        expires: expiresAt.getTime() / 1000,
        length: lo.contentLength,
        type: lo.contentType,
      });
      return { url: linkUrl(key, query), method: 'PUT', headers: { 'Content-Type': lo.contentType }, expiresAt };
    },

    async createDownloadLink(key, lo) {
      const { expiresAt, contentType, disposition } = checkDownloadLink(key, lo, o.clock());
      const query = signer.sign({
        method: 'GET',
        key,
        expires: expiresAt.getTime() / 1000,
        ...(contentType !== undefined ? { type: contentType } : {}),
        ...(disposition !== undefined ? { disposition } : {}),
      });
      return linkUrl(key, query);
    },

    verifyLink(method, key, query) {
      return signer.verify(method, key, query, o.clock());
    },

    async head(key) {
      let size: number;
      try {
        size = (await fsp.stat(objectPath(key))).size;
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
      const meta = await readMeta(key);
      return meta?.contentType ? { size, contentType: meta.contentType } : { size };
    },

    async readRange(key, start, endInclusive) {
      const fh = await openExisting(key);
      try {
        const { size } = await fh.stat();
        const length = Math.max(0, Math.min(endInclusive, size - 1) - start + 1);
        const buf = Buffer.alloc(length);
        let read = 0;
        while (read < length) {
          const { bytesRead } = await fh.read(buf, read, length - read, start + read);
          if (bytesRead === 0) break;
          read += bytesRead;
        }
        return buf.subarray(0, read);
      } finally {
        await fh.close();
      }
    },

    async getStream(key, range) {
      const fh = await openExisting(key);
      return fh.createReadStream(range ? { start: range.start, end: range.end } : {});
    },

    async put(key, body, po) {
      const tmp = path.join(tmpDir, randomUUID());
      try {
        if (Buffer.isBuffer(body)) await fsp.writeFile(tmp, body, { flag: 'wx' });
        else await writeExactly(body, tmp, po.contentLength!);
        await commit(key, tmp, { contentType: po.contentType });
      } finally {
        await fsp.rm(tmp, { force: true });
      }
    },

    async delete(key) {
      const file = objectPath(key);
      await fsp.rm(file, { force: true });
      await fsp.rm(objectPath(key, META_SUFFIX), { force: true });
      await prune(path.dirname(file));
    },

    async deletePrefix(prefix) {
      const dir = path.join(root, ...prefix.slice(0, -1).split('/'));
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true, recursive: true });
      } catch (err) {
        if (isMissing(err)) return 0;
        throw err;
      }
      const count = entries.filter((e) => e.isFile() && e.name.endsWith(DATA_SUFFIX)).length;
      await fsp.rm(dir, { recursive: true, force: true });
      await prune(path.dirname(dir));
      return count;
    },

    async prepare() {},

    async close() {},
  });
}

/**
 * Copies exactly `expected` bytes of `src` to a new file. The source is unpiped, not destroyed, on
 * failure: an HTTP handler can still answer (413/400) on the request's connection.
 */
async function writeExactly(src: Readable, file: string, expected: number): Promise<void> {
  const counter = exactLength(expected);
  const stopWatching = finished(src, { writable: false }, (err) => {
    if (err) counter.destroy(err);
  });
  src.pipe(counter);
  try {
    await pipeline(counter, fs.createWriteStream(file, { flags: 'wx' }));
  } finally {
    src.unpipe(counter);
    stopWatching();
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function notFoundOr(err: unknown, key: string): unknown {
  return isMissing(err) ? new StorageError('NOT_FOUND', `No object ${key}`) : err;
}

function removeStaleTemps(tmpDir: string): void {
  const cutoff = Date.now() - STALE_TMP_MS;
  for (const name of fs.readdirSync(tmpDir)) {
    const file = path.join(tmpDir, name);
    try {
      if (fs.statSync(file).mtimeMs < cutoff) fs.rmSync(file, { force: true, recursive: true });
    } catch {
      // Gone already (another process cleaned it).
    }
  }
}

import { type Readable, Transform } from 'node:stream';
import {
  type ByteRange,
  type DownloadLinkOptions,
  type ObjectStorage,
  StorageError,
  type UploadLinkOptions,
} from './storage.port.ts';

/**
 * Rules both adapters share: which keys are valid, which link options are, how long a link lives,
 * the Content-Disposition value, Range parsing, exact-length enforcement of streams, and
 * `checkedStorage`, which checks every call's arguments before a backend sees them.
 */

/** Largest object accepted (S3's limit for one PUT). The asset flow applies the spec's 500 MB. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 3;
/** Download links are stable for this long: their expiry is rounded up to a multiple of it. */
export const LINK_ROUNDING_SECONDS = 300;
/** S3 presigned links live at most 7 days; rounding included. */
const MAX_LINK_SECONDS = 7 * 24 * 3600 - LINK_ROUNDING_SECONDS;
const MAX_KEY_LENGTH = 1024;

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/**
 * A key is 1..1024 characters of `/`-separated segments; each segment is 1..255 characters of
 * `A-Z a-z 0-9 . _ -` and does not start with `.` (so no `.`/`..`, no hidden files). No leading,
 * trailing or doubled `/`, no backslash, no percent-encoding: a key maps to a path under the
 * storage root and to a URL path unchanged, and can never leave the root.
 */
export function isValidKey(key: unknown): key is string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  return key.split('/').every((s) => SEGMENT.test(s));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new StorageError('INVALID_KEY', `Invalid object key: ${JSON.stringify(key)}`);
}

/** A prefix for deletePrefix: valid key segments followed by `/`. */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !prefix.endsWith('/') || !isValidKey(prefix.slice(0, -1))) {
    throw new StorageError('INVALID_KEY', `Invalid key prefix (segments ending in "/"): ${JSON.stringify(prefix)}`);
  }
}

const TOKEN = '[A-Za-z0-9!#$&^_.+-]+';
const CONTENT_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\x00-\\x1f]*"))*$`);

export function isValidContentType(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 255 && CONTENT_TYPE.test(v);
}

function invalid(message: string): StorageError {
  return new StorageError('INVALID_ARGUMENT', message);
}

function assertLifetime(seconds: number): void {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_LINK_SECONDS) {
    throw invalid(`expiresInSeconds must be a whole number in 1..${MAX_LINK_SECONDS}`);
  }
}

function assertUploadLinkOptions(o: UploadLinkOptions): void {
  assertContentLength(o.contentLength);
  if (!isValidContentType(o.contentType)) throw invalid(`Invalid content type: ${JSON.stringify(o.contentType)}`);
  assertLifetime(o.expiresInSeconds);
}

function assertDownloadLinkOptions(o: DownloadLinkOptions): void {
  assertLifetime(o.expiresInSeconds);
  if (o.contentType !== undefined && !isValidContentType(o.contentType)) {
    throw invalid(`Invalid content type: ${JSON.stringify(o.contentType)}`);
  }
  if (o.disposition !== undefined && o.disposition !== 'inline' && o.disposition !== 'attachment') {
    throw invalid('disposition must be inline or attachment');
  }
}

/** readRange is for sniffing and small reads; larger reads stream with getStream. */
const MAX_READ_RANGE_BYTES = 64 * 1024 * 1024;

function assertReadRange(start: number, endInclusive: number): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(endInclusive) || start < 0 || endInclusive < start) {
    throw invalid(`Invalid byte range ${start}..${endInclusive}`);
  }
  if (endInclusive - start + 1 > MAX_READ_RANGE_BYTES) {
    throw invalid(`readRange reads at most ${MAX_READ_RANGE_BYTES} bytes; stream larger reads with getStream`);
  }
}

function assertContentLength(n: unknown): asserts n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_OBJECT_BYTES) {
    throw invalid(`contentLength must be a whole number of bytes in 0..${MAX_OBJECT_BYTES}`);
  }
}

/** Checks put()'s arguments; returns the number of bytes to store. */
function assertPutArguments(body: Buffer | Readable, o: { contentType: string; contentLength?: number }): number {
  if (!isValidContentType(o.contentType)) throw invalid(`Invalid content type: ${JSON.stringify(o.contentType)}`);
  if (Buffer.isBuffer(body)) {
    if (o.contentLength !== undefined && o.contentLength !== body.length) {
      throw invalid(`contentLength ${o.contentLength} differs from the buffer's ${body.length} bytes`);
    }
    return body.length;
  }
  if (o.contentLength === undefined) throw invalid('contentLength is required to put a stream');
  assertContentLength(o.contentLength);
  return o.contentLength;
}

/** Upload links live exactly `ttl` seconds from now (whole seconds, as S3's X-Amz-Date). */
export function uploadLinkTimes(now: Date, ttlSeconds: number): { signedAt: Date; expiresAt: Date } {
  const signedAt = Math.floor(now.getTime() / 1000);
  return { signedAt: new Date(signedAt * 1000), expiresAt: new Date((signedAt + ttlSeconds) * 1000) };
}

/**
 * Download links are signed at the start of the current LINK_ROUNDING_SECONDS window and live
 * `ttl + LINK_ROUNDING_SECONDS` from there: at least `ttl` from now, and the same URL for every call
 * within the window, so browsers and polling clients can cache what they fetched.
 */
export function downloadLinkTimes(now: Date, ttlSeconds: number): { signedAt: Date; expiresAt: Date } {
  const window = Math.floor(now.getTime() / 1000 / LINK_ROUNDING_SECONDS) * LINK_ROUNDING_SECONDS;
  return {
    signedAt: new Date(window * 1000),
    expiresAt: new Date((window + ttlSeconds + LINK_ROUNDING_SECONDS) * 1000),
  };
}

/** Checks a createUploadLink call (key, then options); returns when its link is signed and expires. */
export function checkUploadLink(key: string, o: UploadLinkOptions, now: Date): { signedAt: Date; expiresAt: Date } {
  assertValidKey(key);
  assertUploadLinkOptions(o);
  return uploadLinkTimes(now, o.expiresInSeconds);
}

/**
 * Checks a createDownloadLink call (key, then options); returns when its link is signed and
 * expires, and the response headers the link overrides: `contentType` when one was asked for,
 * `disposition` when a file name or a disposition was.
 */
export function checkDownloadLink(
  key: string,
  o: DownloadLinkOptions,
  now: Date,
): { signedAt: Date; expiresAt: Date; contentType?: string; disposition?: string } {
  assertValidKey(key);
  assertDownloadLinkOptions(o);
  const wantsDisposition = o.fileName !== undefined || o.disposition !== undefined;
  return {
    ...downloadLinkTimes(now, o.expiresInSeconds),
    ...(o.contentType !== undefined ? { contentType: o.contentType } : {}),
    ...(wantsDisposition ? { disposition: contentDisposition(o.disposition ?? 'inline', o.fileName) } : {}),
  };
}

/**
 * `inline; filename="<ascii>"; filename*=UTF-8''<utf-8>` (RFC 6266). Control characters and path
 * separators are dropped or replaced, so a client-supplied name can never inject a header.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', fileName?: string): string {
  const clean = (fileName ?? '')
    .replace(/\p{Cc}/gu, '')
    .replace(/\p{Cs}/gu, '_') // lone surrogates (possible in JSON) cannot be percent-encoded
    .replace(/[/\\]/g, '_')
    .trim()
    .slice(0, 200);
  if (!clean) return disposition;
  const ascii = clean.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * One `Range: bytes=...` against an object of `size` bytes (RFC 9110 §14). Returns the inclusive
 * range to serve, 'unsatisfiable' (416), or undefined to serve the whole object (no header, a
 * malformed one, or several ranges, which a server may ignore).
 */
export function parseRangeHeader(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return undefined;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return undefined;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== '' && Number(b) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * Passes exactly `expected` bytes through: fails with TOO_LARGE as soon as one more arrives (so the
 * writer stops reading), and with TOO_SMALL when the source ends early.
 */
export function exactLength(expected: number): Transform & { readonly received: number } {
  let received = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      received += chunk.length;
      if (received > expected) {
        cb(new StorageError('TOO_LARGE', `Upload is larger than the ${expected} bytes it was signed for`));
        return;
      }
      cb(null, chunk);
    },
    flush(cb) {
      if (received < expected) {
        cb(new StorageError('TOO_SMALL', `Upload ended after ${received} of ${expected} bytes`));
        return;
      }
      cb();
    },
  });
  return Object.defineProperty(t, 'received', { get: () => received }) as Transform & { readonly received: number };
}

/**
 * A backend behind the argument checks of every call that names an object or a prefix (keys,
 * ranges, put's type and length), in the order the port documents, so a backend receives only
 * valid arguments; its other members (a local store's `verifyLink`) pass through. The link calls
 * are checked by the backends themselves (checkUploadLink, checkDownloadLink): the checks return
 * the link's times, which only the backend signs.
 */
export function checkedStorage<S extends ObjectStorage>(backend: S): S {
  const checked: ObjectStorage = {
    ...backend,
    async head(key) {
      assertValidKey(key);
      return backend.head(key);
    },
    async readRange(key, start, endInclusive) {
      assertValidKey(key);
      assertReadRange(start, endInclusive);
      return backend.readRange(key, start, endInclusive);
    },
    async getStream(key, range) {
      assertValidKey(key);
      return backend.getStream(key, range);
    },
    async put(key, body, o) {
      assertValidKey(key);
      const contentLength = assertPutArguments(body, o);
      return backend.put(key, body, { ...o, contentLength });
    },
    async delete(key) {
      assertValidKey(key);
      return backend.delete(key);
    },
    async deletePrefix(prefix) {
      assertValidPrefix(prefix);
      return backend.deletePrefix(prefix);
    },
  };
  return checked as S;
}

import type { Readable } from 'node:stream';
import { CodedError } from '../coded-error.ts';

/**
 * Object storage: where asset bytes live. Two adapters keep this contract (storage.contract.test.ts):
 * `local` (files under `$ATELIER_DATA_DIR/blobs`, links served by the API itself) and `s3` (any
 * S3-compatible store, presigned links). Both are wrapped in `checkedStorage` (storage.rules.ts): every
 * key, prefix, range and put's type and length is checked before the backend sees it; an invalid key
 * throws StorageError('INVALID_KEY') before anything is touched.
 */
export interface ObjectStorage {
  readonly kind: 'local' | 's3';

  /**
   * A short-lived link a client sends the bytes to, with no API key: `method` to `url` with
   * `headers` (exactly as given) and a body of exactly `contentLength` bytes. Maps onto the spec's
   * `uploadUrl`, `uploadMethod`, `uploadHeaders` and `expires`. A second upload to the same link
   * replaces the object. The link does not prove that the upload happened nor its size on every
   * store: confirm with `head` (size) and `readRange` (sniffing).
   */
  createUploadLink(key: string, o: UploadLinkOptions): Promise<UploadLink>;

  /**
   * A short-lived GET link (Range supported). `fileName` becomes the Content-Disposition file name,
   * `contentType` overrides the stored type. Links are stable for a few minutes (their expiry is
   * rounded up, see docs/decisions/storage-media-fetch.md), so polling clients and browsers can cache them.
   */
  createDownloadLink(key: string, o: DownloadLinkOptions): Promise<string>;

  /** Size and stored content type, or undefined when there is no such object. */
  head(key: string): Promise<ObjectInfo | undefined>;

  /**
   * Bytes `start..endInclusive`, clamped to the object's end (empty past it); for sniffing magic
   * bytes. Throws StorageError('NOT_FOUND') when there is no such object.
   */
  readRange(key: string, start: number, endInclusive: number): Promise<Buffer>;

  /** The object's bytes (or one range of them) as a stream. Throws StorageError('NOT_FOUND'). */
  getStream(key: string, range?: ByteRange): Promise<Readable>;

  /**
   * Stores an object, replacing any previous one atomically. For a stream `contentLength` is
   * required and enforced: more bytes → StorageError('TOO_LARGE'), fewer → ('TOO_SMALL'), and
   * nothing is stored.
   */
  put(key: string, body: Buffer | Readable, o: { contentType: string; contentLength?: number }): Promise<void>;

  /** Removes an object; no error when it does not exist. */
  delete(key: string): Promise<void>;

  /**
   * Removes every object whose key starts with `prefix`, which must be a key "folder" ending in
   * `/` (e.g. `orgs/<orgId>/assets/<assetId>/`). Returns how many objects were removed.
   */
  deletePrefix(prefix: string): Promise<number>;

  /**
   * Makes sure the store is there before a server or worker starts: the bucket exists (created when
   * `createBucket`), else StorageError('NOT_FOUND') whose message names the bucket and how to
   * create it. Nothing to do for a local store.
   */
  prepare(o: { createBucket: boolean }): Promise<void>;

  close(): Promise<void>;
}

export interface UploadLinkOptions {
  /** Exact size of the upload in bytes. */
  contentLength: number;
  /** The Content-Type the client must send (part of the signature). */
  contentType: string;
  expiresInSeconds: number;
}

export interface UploadLink {
  url: string;
  method: 'PUT';
  /** Headers the client must send as they are (Content-Type). */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface DownloadLinkOptions {
  /** Minimum lifetime; the link may live up to LINK_ROUNDING_SECONDS longer. */
  expiresInSeconds: number;
  fileName?: string;
  contentType?: string;
  /** Content-Disposition type; `inline` unless told. */
  disposition?: 'inline' | 'attachment';
}

export interface ObjectInfo {
  size: number;
  contentType?: string;
}

/** Inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

export type StorageErrorCode =
  | 'INVALID_KEY'
  | 'NOT_FOUND'
  | 'TOO_LARGE'
  | 'TOO_SMALL'
  | 'INVALID_ARGUMENT'
  | 'UNAVAILABLE';

/** The one error type adapters throw for conditions callers handle; anything else is unexpected. */
export class StorageError extends CodedError<StorageErrorCode> {}

export const isStorageError = (err: unknown, code?: StorageErrorCode): err is StorageError =>
  err instanceof StorageError && (code === undefined || err.code === code);

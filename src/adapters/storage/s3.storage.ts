import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Clock } from '../../clock.ts';
import { type ByteRange, type ObjectStorage, StorageError } from './storage.port.ts';
import { checkDownloadLink, checkedStorage, checkUploadLink, exactLength } from './storage.rules.ts';

export interface S3StorageOptions {
  /** Unset for AWS itself; the URL of any other S3-compatible store. */
  endpoint?: string | undefined;
  bucket: string;
  region: string;
  /** Both or neither; neither uses the SDK's default credential chain (env, profile, instance role). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle: boolean;
  clock: Clock;
}

/**
 * Any S3-compatible store through presigned links. Upload links sign Content-Length and
 * Content-Type (X-Amz-SignedHeaders), so a store that verifies SigV4 refuses any other size or type
 * with 403; the confirm step still checks `head().size`, since not every store verifies (s3rver
 * does not, see docs/decisions/storage-media-fetch.md).
 */
export function createS3Storage(o: S3StorageOptions): ObjectStorage {
  const client = new S3Client({
    region: o.region,
    forcePathStyle: o.forcePathStyle,
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.accessKeyId && o.secretAccessKey
      ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } }
      : {}),
    // The SDK's default CRC32 checksums would land in presigned PUT links (computed over an empty
    // body) and are not understood by many S3-compatible stores; send them only where required.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = o.bucket;

  /** The object (or a range of it); undefined for a range that starts past its end (S3's 416). */
  async function getObject(key: string, range?: ByteRange) {
    try {
      return await client.send(
        new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
    } catch (err) {
      if (isStatus(err, 404)) throw new StorageError('NOT_FOUND', `No object ${key}`);
      if (range && isStatus(err, 416)) return undefined;
      throw err;
    }
  }

  return checkedStorage({
    kind: 's3',

    async createUploadLink(key, lo) {
      const { signedAt, expiresAt } = checkUploadLink(key, lo, o.clock());
      const cmd = new PutObjectCommand({
        Bucket,
        Key: key,
        ContentLength: lo.contentLength,
        ContentType: lo.contentType,
      });
      const url = await getSignedUrl(client, cmd, {
        expiresIn: lo.expiresInSeconds,
        signingDate: signedAt,
        signableHeaders: new Set(['content-length', 'content-type']),
      });
      return { url, method: 'PUT', headers: { 'Content-Type': lo.contentType }, expiresAt };
    },

    async createDownloadLink(key, lo) {
      const { signedAt, expiresAt, contentType, disposition } = checkDownloadLink(key, lo, o.clock());
      const cmd = new GetObjectCommand({
        Bucket,
        Key: key,
        ...(contentType !== undefined ? { ResponseContentType: contentType } : {}),
        ...(disposition !== undefined ? { ResponseContentDisposition: disposition } : {}),
      });
      return getSignedUrl(client, cmd, {
        expiresIn: (expiresAt.getTime() - signedAt.getTime()) / 1000,
        signingDate: signedAt,
      });
    },

    async head(key) {
      try {
        const h = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: h.ContentLength ?? 0, ...(h.ContentType ? { contentType: h.ContentType } : {}) };
      } catch (err) {
        if (isStatus(err, 404)) return undefined;
        throw err;
      }
    },

    async readRange(key, start, endInclusive) {
      const res = await getObject(key, { start, end: endInclusive });
      return res ? Buffer.from((await res.Body?.transformToByteArray()) ?? []) : Buffer.alloc(0);
    },

    async getStream(key, range) {
      const res = await getObject(key, range);
      return res ? (res.Body as Readable) : Readable.from([]);
    },

    async put(key, body, po) {
      const ContentLength = po.contentLength!;
      const input = { Bucket, Key: key, ContentLength, ContentType: po.contentType };
      if (Buffer.isBuffer(body)) {
        await client.send(new PutObjectCommand({ ...input, Body: body }));
        return;
      }
      // A stream goes through the same exact-length check as the local adapter; when it fails the
      // request is aborted (nothing is stored) and the StorageError is what the caller gets.
      const counter = exactLength(ContentLength);
      const abort = new AbortController();
      let failure: unknown;
      counter.on('error', (err) => {
        failure = err;
        abort.abort(err);
      });
      body.once('error', (err) => counter.destroy(err));
      body.pipe(counter);
      try {
        await client.send(new PutObjectCommand({ ...input, Body: counter }), { abortSignal: abort.signal });
      } catch (err) {
        throw failure ?? err;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async deletePrefix(prefix) {
      let deleted = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
        );
        const keys = (page.Contents ?? []).flatMap((c) => (c.Key ? [{ Key: c.Key }] : []));
        if (keys.length > 0) {
          const res = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }));
          const failed = res.Errors ?? [];
          if (failed.length > 0) {
            throw new Error(`S3 refused to delete ${failed.length} objects under ${prefix}: ${failed[0]?.Message}`);
          }
          deleted += keys.length;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return deleted;
    },

    async prepare({ createBucket }) {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
        return;
      } catch (err) {
        if (!isStatus(err, 404)) {
          throw new StorageError(
            'UNAVAILABLE',
            `The S3 bucket "${Bucket}" could not be checked at ${o.endpoint ?? 'AWS'}: ${(err as Error).message}`,
          );
        }
      }
      if (!createBucket) {
        throw new StorageError(
          'NOT_FOUND',
          `The S3 bucket "${Bucket}" does not exist at ${o.endpoint ?? `AWS (${o.region})`}. Create it ` +
            `(aws s3 mb s3://${Bucket}${o.endpoint ? ` --endpoint-url ${o.endpoint}` : ''}), or set ` +
            'S3_CREATE_BUCKET=true to let Atelier create it at start.',
        );
      }
      await client.send(new CreateBucketCommand({ Bucket }));
    },

    async close() {
      client.destroy();
    },
  });
}

function isStatus(err: unknown, status: number): boolean {
  return err instanceof S3ServiceException && err.$metadata.httpStatusCode === status;
}

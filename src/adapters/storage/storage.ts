import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../../clock.ts';
import { loadOrCreateSigningSecret } from './link-signing.ts';
import { createLocalStorage } from './local.storage.ts';
import { createS3Storage } from './s3.storage.ts';
import type { ObjectStorage } from './storage.port.ts';

/** The object-storage settings (S3_*, ATELIER_SIGNING_SECRET, ATELIER_*_LINK_TTL_SECONDS), parsed by src/config.ts. */
export interface StorageSettings {
  s3: S3Settings | undefined;
  /** ATELIER_SIGNING_SECRET (local links); unset: generated once into `<dataDir>/signing.key`. */
  signingSecret: string | undefined;
  /** Lifetime of upload links (initiate-upload's `expires`). */
  uploadLinkTtlSeconds: number;
  /** Minimum lifetime of download links (asset `url`, `thumbnailUrl`). */
  downloadLinkTtlSeconds: number;
}

export interface S3Settings {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
  /** Create the bucket at start when it is missing (S3_CREATE_BUCKET), else refuse to start naming it. */
  createBucket: boolean;
}

/** The configured object storage: S3 when S3_BUCKET is set, otherwise `<dataDir>/blobs`. */
export function openObjectStorage(
  config: { storage: StorageSettings; dataDir: string; publicUrl: string },
  clock: Clock,
): ObjectStorage {
  const { s3, signingSecret } = config.storage;
  if (s3) return createS3Storage({ ...s3, clock });
  return createLocalStorage({
    root: path.join(config.dataDir, 'blobs'),
    publicUrl: config.publicUrl,
    signingSecret: signingSecret ?? loadOrCreateSigningSecret(config.dataDir),
    clock,
  });
}

/**
 * Copies an object into a new local file (ffprobe and sharp want a path) and returns its size. The
 * caller owns the file and removes it.
 */
export async function downloadToFile(
  storage: Pick<ObjectStorage, 'getStream'>,
  key: string,
  file: string,
): Promise<number> {
  await pipeline(await storage.getStream(key), fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  return (await fs.promises.stat(file)).size;
}

/**
 * An object's bytes in memory, for objects known to be small enough (pictures for generation);
 * more than `maxBytes` stops the read and throws, naming `label`.
 */
export async function readToBuffer(
  storage: Pick<ObjectStorage, 'getStream'>,
  key: string,
  maxBytes: number,
  label = key,
): Promise<Buffer> {
  const stream = await storage.getStream(key);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(`${label} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

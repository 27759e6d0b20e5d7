import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** A running s3rver (an S3-compatible server in Node) with one bucket, for scaled-mode tests. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The settings that point Atelier at it (S3_*), for loadConfig / createTestApp({ env }). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 with a random port, objects in a fresh temp folder, and the bucket
 * created. s3rver's built-in account is S3RVER/S3RVER. Note: it checks a presigned link's expiry but
 * not its SigV4 signature (docs/decisions/storage-media-fetch.md, "Object storage").
 */
export async function startS3rver(bucket = 'atelier-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const creds = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    region: 'us-east-1',
    ...creds,
    env: {
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: creds.accessKeyId,
      S3_SECRET_ACCESS_KEY: creds.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

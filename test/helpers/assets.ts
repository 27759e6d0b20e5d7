import net from 'node:net';
import sharp from 'sharp';
import { expect } from 'vitest';
export { texturedJpeg } from './images.ts';
import type { TestApp } from './app.ts';

/** What initiate-upload returns for one file. */
export interface UploadSlot {
  uploadId: string;
  assetId: string;
  expires: string;
  uploadUrl: string;
  uploadMethod: string;
  uploadHeaders: Record<string, string>;
}

export interface FileToUpload {
  name: string;
  type: string;
  bytes: Buffer;
  isLogo?: boolean;
}

/** A flat-colour PNG (sharp). */
export const flatPng = (width: number, height: number, background = '#3060c0') =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

/** Polls `check` every `everyMs` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const TERMINAL = ['complete', 'failed', 'canceled'];

/** The asset calls of the spec against one test app, through app.inject. */
export function assetClient(t: TestApp) {
  const post = (key: string, url: string, payload?: unknown) =>
    t.request({ method: 'POST', url, key, ...(payload === undefined ? {} : { payload: payload as object }) });
  const client = {
    async createBrand(key: string, name = 'Acme'): Promise<string> {
      const res = await post(key, '/v1/brands', {
        name,
        industry: 'Retail',
        description: 'A brand made by the asset tests.',
        mission: '',
        values: [],
        tone: [],
        voice: [],
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    },
    initiate: (key: string, body: unknown) => post(key, '/v1/assets/initiate-upload', body),
    /** initiate-upload for files (201 expected); returns the slots. */
    async slots(key: string, brandId: string, files: FileToUpload[], categoryId?: string): Promise<UploadSlot[]> {
      const res = await client.initiate(key, {
        brandId,
        ...(categoryId ? { categoryId } : {}),
        files: files.map((f) => ({
          fileName: f.name,
          fileType: f.type,
          fileSize: f.bytes.length,
          ...(f.isLogo !== undefined ? { isLogo: f.isLogo } : {}),
        })),
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().uploads;
    },
    /** Sends bytes to an upload link through app.inject, with no API key. */
    put(slot: Pick<UploadSlot, 'uploadUrl' | 'uploadHeaders'>, bytes: Buffer, headers: Record<string, string> = {}) {
      const u = new URL(slot.uploadUrl);
      return t.app.inject({
        method: 'PUT',
        url: u.pathname + u.search,
        headers: { ...slot.uploadHeaders, ...headers },
        payload: bytes,
      });
    },
    confirm: (key: string, uploadId: string, categoryId?: string) =>
      post(key, '/v1/assets/confirm-upload', { uploadId, ...(categoryId ? { categoryId } : {}) }),
    cancel: (key: string, uploadId: string) => post(key, `/v1/assets/cancel-upload/${uploadId}`),
    get: (key: string, assetId: string) => t.request({ method: 'GET', url: `/v1/assets/${assetId}`, key }),
    list: (key: string, brandId: string, query = '') =>
      t.request({ method: 'GET', url: `/v1/brands/${brandId}/assets${query}`, key }),
    /** initiate → PUT → confirm (200 expected) for each file; returns the slots. */
    async upload(key: string, brandId: string, files: FileToUpload[], categoryId?: string): Promise<UploadSlot[]> {
      const slots = await client.slots(key, brandId, files, categoryId);
      for (const [i, slot] of slots.entries()) {
        const put = await client.put(slot, files[i]!.bytes);
        expect(put.statusCode, put.body).toBe(200);
        const res = await client.confirm(key, slot.uploadId);
        expect(res.statusCode, res.body).toBe(200);
      }
      return slots;
    },
    /** GET until the asset is in a terminal status; returns the Asset. */
    settled: (key: string, assetId: string, timeoutMs = 30_000) =>
      eventually(
        async () => {
          const res = await client.get(key, assetId);
          expect(res.statusCode, res.body).toBe(200);
          const a = res.json();
          return TERMINAL.includes(a.status) ? a : undefined;
        },
        `asset ${assetId} to finish processing`,
        timeoutMs,
      ),
    /** Reads a signed link of the local store (url, thumbnailUrl) through app.inject. */
    download(link: string) {
      const u = new URL(link);
      return t.app.inject({ method: 'GET', url: u.pathname + u.search });
    },
  };
  return client;
}

/** Removes every Redis key under a BullMQ prefix (tests use one prefix each). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length) await r.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

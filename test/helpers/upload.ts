import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { assetClient, type FileToUpload } from './assets.ts';

export type { FileToUpload };

/**
 * Assets that reached `complete` through the real flow: initiate-upload, PUT the bytes to the
 * upload link without a key, confirm-upload, then poll GET /v1/assets/{id} until processing ends.
 * The workers must be running (`await t.deps.startWorkers()` once per app). Returns the asset ids
 * in the order of `files`; fails the test when one does not end `complete`.
 */
export async function uploadCompleteAssets(
  t: TestApp,
  key: string,
  brandId: string,
  files: FileToUpload[],
  timeoutMs = 60_000,
): Promise<string[]> {
  const client = assetClient(t);
  const slots = await client.upload(key, brandId, files);
  const ids: string[] = [];
  for (const slot of slots) {
    const asset = await client.settled(key, slot.assetId, timeoutMs);
    expect(asset.status, `${slot.assetId}: ${JSON.stringify(asset)}`).toBe('complete');
    ids.push(slot.assetId);
  }
  return ids;
}

/** An asset left `uploading` (initiated, never sent): for "not ready" cases. */
export async function uploadingAsset(t: TestApp, key: string, brandId: string, file: FileToUpload): Promise<string> {
  const [slot] = await assetClient(t).slots(key, brandId, [file]);
  return slot!.assetId;
}

/** A brand of the key's organization (the assets helper's body). */
export const createBrand = (t: TestApp, key: string, name?: string) => assetClient(t).createBrand(key, name);

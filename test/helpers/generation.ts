import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { eventually } from './assets.ts';
import { uploadCompleteAssets } from './upload.ts';

/** A product cut-out from the shared fixtures (transparent PNG), e.g. `solidus_mug_set.png`. */
export function productFixture(name = 'solidus_mug_set.png'): Buffer {
  const file = fileURLToPath(new URL(`../../../shared/fixtures/product-images/${name}`, import.meta.url));
  return fs.readFileSync(file);
}

/** A product photographed on a plain light background (no alpha), made here. */
export async function productOnWhite(width = 640, height = 480): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#f4f4f2"/>
    <rect x="${width * 0.3}" y="${height * 0.2}" width="${width * 0.4}" height="${height * 0.6}" rx="24" fill="#c0392b"/>
    <circle cx="${width / 2}" cy="${height / 2}" r="${height * 0.12}" fill="#ffffff"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer();
}

const TERMINAL = ['completed', 'failed'];

/** GET `url` until its `status` is terminal; returns the body. */
export function settledGeneration(t: TestApp, key: string, url: string, timeoutMs = 90_000) {
  return eventually(
    async () => {
      const res = await t.request({ method: 'GET', url, key });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      return TERMINAL.includes(body.status) ? body : undefined;
    },
    `${url} to finish`,
    timeoutMs,
    100,
  );
}

/** Downloads a signed link of the local store through app.inject; returns the bytes. */
export async function download(t: TestApp, link: string): Promise<Buffer> {
  const u = new URL(link);
  const res = await t.app.inject({ method: 'GET', url: u.pathname + u.search });
  expect(res.statusCode, res.body).toBe(200);
  return res.rawPayload;
}

/** The red cap's photo uploaded to the brand and processed (the media queue's workers must run); its asset id. */
export async function uploadCap(t: TestApp, key: string, brandId: string): Promise<string> {
  const [id] = await uploadCompleteAssets(t, key, brandId, [
    { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
  ]);
  return id!;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = Record<string, any>;

/** POST a scene forge of the products (answered 202); the forge as created. */
export async function createForge(
  t: TestApp,
  key: string,
  brandId: string,
  productAssetIds: string[],
  blendingPrompt = 'The cap on a wooden table',
): Promise<Json> {
  const res = await t.request({
    method: 'POST',
    url: `/v1/brands/${brandId}/scene-forges`,
    key,
    payload: { blendingPrompt, promptIsEnhanced: false, productAssetIds },
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json();
}

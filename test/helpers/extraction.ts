import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** The brand the URL extraction tests extract for. */
const EXTRACTION_BRAND = {
  name: 'Acme Home',
  industry: 'Homeware',
  description: 'Stoneware for everyday tables.',
  mission: 'Make good mugs.',
  values: ['Craft'],
  tone: ['Friendly'],
  voice: ['warm'],
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A new organization (enterprise plan unless told otherwise) with its key and one brand. */
export async function orgWithBrand(
  t: TestApp,
  opts: { plan?: string } = {},
): Promise<{ key: string; brandId: string }> {
  const { apiKey } = await t.bootstrap(opts);
  const brand = await t.request({ method: 'POST', url: '/v1/brands', key: apiKey, payload: EXTRACTION_BRAND });
  expect(brand.statusCode, brand.body).toBe(201);
  return { key: apiKey, brandId: brand.json().id as string };
}

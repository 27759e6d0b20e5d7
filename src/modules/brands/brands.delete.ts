import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { BrandPart } from './brand-parts.ts';
import { assetsUnderBrand } from '../assets/assets.repo.ts';
import { brandDnaUnderBrand } from '../brand-dna/brand-dna.repo.ts';
import { enhancementsUnderBrand } from '../enhancements/enhancements.repo.ts';
import { environmentsUnderBrand } from '../environments/environments.repo.ts';
import { extractionsUnderBrand } from '../extraction/extraction.repo.ts';
import { scenesUnderBrand } from '../scenes/scenes.repo.ts';
import { videosUnderBrand } from '../videos/videos.repo.ts';

/** Everything that hangs under a brand, in the order its work is checked. */
const PARTS: readonly BrandPart[] = [
  assetsUnderBrand,
  extractionsUnderBrand,
  brandDnaUnderBrand,
  scenesUnderBrand,
  environmentsUnderBrand,
  enhancementsUnderBrand,
  videosUnderBrand,
];

/**
 * Deletes a brand with everything under it (console only, docs/decisions/access.md "Console: sessions
 * and keys"): its assets (generated ones included) and their stored objects, URL extractions,
 * Brand DNA versions, scene forges, environments, enhancements and videos. Refused with 409
 * `BRAND_BUSY` while any of that work is still queued or running. Usage already counted stays.
 */
export async function deleteBrand(
  db: Database,
  storage: Pick<ObjectStorage, 'deletePrefix' | 'delete'>,
  orgId: string,
  id: string,
): Promise<void> {
  const k = db.kysely;
  const brandId = id.toLowerCase();
  const brand = await k
    .selectFrom('brands')
    .select('id')
    .where('id', '=', brandId)
    .where('organization_id', '=', orgId)
    .executeTakeFirst();
  if (!brand) throw notFound(`Brand ${brandId} not found`, 'BRAND_NOT_FOUND');
  for (const part of PARTS) {
    const table = await part.busy(k, brandId);
    if (table) {
      throw conflict(
        `Brand ${brandId} still has work in progress (${table.replaceAll('_', ' ')}); delete it once that work has finished`,
        'BRAND_BUSY',
        { resource: table },
      );
    }
  }
  const stored = [];
  for (const part of PARTS) if (part.stored) stored.push(await part.stored(k, orgId, brandId));
  await k.transaction().execute(async (trx) => {
    // Assets and extractions by their modules (tags, uploads and candidates cascade with them), then
    // the brand: every generation and Brand DNA table goes with it (foreign keys ON DELETE CASCADE).
    for (const part of PARTS) await part.delete?.(trx, orgId, brandId);
    await trx.deleteFrom('brands').where('id', '=', brandId).where('organization_id', '=', orgId).execute();
  });
  // Stored objects after the commit: a failure leaves an unreferenced object, never a dangling row.
  await Promise.allSettled(
    stored.flatMap((s) => [
      ...(s.prefixes ?? []).map((prefix) => storage.deletePrefix(prefix)),
      ...(s.keys ?? []).map((key) => storage.delete(key)),
    ]),
  );
}

import type { Kysely } from 'kysely';
import type { DB } from '../../adapters/db/schema.ts';
import { busyIn, RUNNING } from '../brands/brand-parts.ts';

/**
 * The accepted (completed) scene enhancement of this brand whose optimized prompt is exactly
 * `text`, the newest first (a scene forge's blending prompt names where it came from).
 */
export async function acceptedSceneEnhancement(k: Kysely<DB>, orgId: string, brandId: string, text: string) {
  return k
    .selectFrom('prompt_enhancements')
    .select(['id', 'original_prompt', 'theme'])
    .where('organization_id', '=', orgId)
    .where('brand_id', '=', brandId)
    .where('kind', '=', 'scene')
    .where('status', '=', 'completed')
    .where('optimized_prompt', '=', text)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/**
 * The prompt enhancements under a brand, for deleting the brand (brands.delete.ts): pending or
 * processing is busy; the rows go with the brand (ON DELETE CASCADE).
 */
export const enhancementsUnderBrand = {
  busy: busyIn({ prompt_enhancements: RUNNING }),
};

import type { AssetsService } from '../assets/assets.service.ts';
import type { GenerationAssetRef } from './generation.schemas.ts';

/** The lifecycle columns every generation row has. */
export interface LifecycleRow {
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  failed_at: string | null;
}

/** A new row's lifecycle: `pending`, created and updated `at`, nothing terminal yet. */
export const pendingLifecycle = (at: string) => ({
  status: 'pending',
  error_code: null,
  error_message: null,
  created_at: at,
  updated_at: at,
  completed_at: null,
  failed_at: null,
});

/**
 * The lifecycle members of a generation resource: timestamps always, the terminal ones and the
 * error only once set (absent members are omitted, never null).
 */
export function lifecycleMembers(row: LifecycleRow) {
  return {
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.error_code ? { errorCode: row.error_code } : {}),
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
    ...(row.failed_at ? { failedAt: row.failed_at } : {}),
  };
}

export type AssetLinks = Awaited<ReturnType<AssetsService['refs']>>;

/** A referenced asset with its fresh signed links when it still exists. */
export function assetRef(refs: AssetLinks, assetId: string, fallbackType: string): GenerationAssetRef {
  const r = refs.get(assetId);
  return {
    assetId,
    assetType: r?.assetType ?? fallbackType,
    ...(r?.url ? { url: r.url } : {}),
    ...(r?.thumbnailUrl ? { thumbnailUrl: r.thumbnailUrl } : {}),
  };
}

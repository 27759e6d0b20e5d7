import type { Database } from '../../adapters/db/database.ts';

/** What another module needs to know about an asset it refers to (a brand's logo, a DNA source...). */
export interface AssetRefInfo {
  assetId: string;
  assetType: string;
  status: string;
  brandId: string;
}

/** Read-only lookup of assets by id, always scoped to one organization. */
export interface AssetRefs {
  find(orgId: string, assetId: string): Promise<AssetRefInfo | undefined>;
}

export function createAssetRefs(db: Database): AssetRefs {
  return {
    async find(orgId, assetId) {
      const row = await db.kysely
        .selectFrom('assets')
        .select(['id', 'type', 'status', 'brand_id'])
        .where('organization_id', '=', orgId)
        .where('id', '=', assetId.toLowerCase())
        .executeTakeFirst();
      return row && { assetId: row.id, assetType: row.type, status: row.status, brandId: row.brand_id };
    },
  };
}

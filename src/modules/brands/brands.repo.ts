import { type Expression, type Kysely, sql } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { noCache, type ReadCache } from '../../adapters/db/read-cache.ts';
import { compileOnce } from '../../adapters/db/compile-once.ts';
import { affected } from '../../adapters/db/columns.ts';
import { organizationNames } from '../access/access.repo.ts';
import type { BrandSort } from './brands.schemas.ts';
import type { BrandsTable } from './brands.tables.ts';

/** A brand row with the (live) name of its organization. */
export type BrandRecord = Omit<BrandsTable, 'brand_dna_status' | 'version'> & {
  brand_dna_status: string;
  version: number;
  organization_name: string;
};

export type NewBrandRow = Omit<BrandsTable, 'brand_dna_status' | 'version'>;
export type BrandPatch = Partial<
  Pick<
    BrandsTable,
    | 'name'
    | 'name_key'
    | 'industry'
    | 'industry_key'
    | 'description'
    | 'mission'
    | 'values'
    | 'tone'
    | 'voice'
    | 'logo_asset_id'
    | 'logo_asset_type'
  >
> & { updated_at: string };

export interface BrandFilter {
  /** Undefined lists every organization (platform admins). */
  orgId?: string;
  industryKey?: string;
}

const SORT_COLUMN: Record<BrandSort, 'b.name_key' | 'b.created_at'> = {
  name: 'b.name_key',
  '-name': 'b.name_key',
  createdAt: 'b.created_at',
  '-createdAt': 'b.created_at',
};

/** Orders text by code point on both databases (SQLite's BINARY; PostgreSQL's "C" collation). */
export function byCodePoint(dialect: Database['dialect'], column: string): Expression<string> {
  return dialect === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : sql.ref<string>(column);
}

/** True when the brand exists in the organization (the modules that work under a brand check it). */
export async function brandInOrg(k: Kysely<DB>, orgId: string, brandId: string): Promise<boolean> {
  const r = await k
    .selectFrom('brands')
    .select('id')
    .where('id', '=', brandId)
    .where('organization_id', '=', orgId)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * Serializes the writes under one brand (Brand DNA versions): on PostgreSQL a row lock on the brand
 * (`FOR UPDATE`, held until `trx` ends); SQLite runs one write transaction at a time anyway. False
 * when the brand is gone.
 */
export async function lockBrand(trx: Kysely<DB>, dialect: Database['dialect'], brandId: string): Promise<boolean> {
  let q = trx.selectFrom('brands').select('id').where('id', '=', brandId);
  if (dialect === 'postgres') q = q.forUpdate();
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Sets the brand's mirrored Brand DNA status (in the caller's transaction) when it differs; the
 * row version moves with it, so its ETag and If-Match follow.
 */
export async function mirrorBrandDnaStatus(trx: Kysely<DB>, brandId: string, status: string): Promise<void> {
  await trx
    .updateTable('brands')
    .set((eb) => ({ brand_dna_status: status, version: eb('version', '+', 1) }))
    .where('id', '=', brandId)
    .where('brand_dna_status', '<>', status)
    .execute();
}

/** Drops the organization's brands' logo when it is this asset (in the caller's transaction). */
export async function clearLogo(trx: Kysely<DB>, orgId: string, assetId: string, now: string): Promise<void> {
  await trx
    .updateTable('brands')
    .set((eb) => ({ logo_asset_id: null, logo_asset_type: null, updated_at: now, version: eb('version', '+', 1) }))
    .where('organization_id', '=', orgId)
    .where('logo_asset_id', '=', assetId)
    .execute();
}

export function createBrandsRepo(db: Database, cache: ReadCache = noCache) {
  const k = db.kysely;

  const filtered = (f: BrandFilter) => {
    let q = k.selectFrom('brands as b');
    if (f.orgId !== undefined) q = q.where('b.organization_id', '=', f.orgId);
    if (f.industryKey !== undefined) q = q.where('b.industry_key', '=', f.industryKey);
    return q;
  };
  const records = (f: BrandFilter) =>
    filtered(f)
      .innerJoin(organizationNames(k).as('o'), 'o.id', 'b.organization_id')
      .selectAll('b')
      .select('o.name as organization_name');

  const findOne = compileOnce(db, (p) => records({ orgId: p(0) }).where('b.id', '=', p(1)));

  return {
    /** The brand's own fields, unscoped (the Brand DNA job merges them as a source of their own). */
    async facts(brandId: string) {
      return k
        .selectFrom('brands')
        .select(['name', 'industry', 'description', 'mission', 'values', 'tone', 'voice', 'logo_asset_id'])
        .where('id', '=', brandId)
        .executeTakeFirst();
    },

    async insert(row: NewBrandRow): Promise<void> {
      await k.insertInto('brands').values(row).execute();
    },

    /** Polled by id: served from the read cache until the next write (see read-cache.ts). */
    async find(orgId: string, id: string): Promise<BrandRecord | undefined> {
      return cache.get(`brand:${orgId}:${id}`, () => findOne.run([orgId, id]) as Promise<BrandRecord | undefined>);
    },

    async count(f: BrandFilter): Promise<number> {
      const r = await filtered(f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** One page, ordered by the sort key then id (same direction), so equal keys never reorder. */
    async list(f: BrandFilter, sort: BrandSort, offset: number, limit: number): Promise<BrandRecord[]> {
      const dir = sort.startsWith('-') ? 'desc' : 'asc';
      return records(f)
        .orderBy(byCodePoint(db.dialect, SORT_COLUMN[sort]), dir)
        .orderBy(byCodePoint(db.dialect, 'b.id'), dir)
        .offset(offset)
        .limit(limit)
        .execute();
    },

    /** Compare-and-set on the row version; 0 when the brand changed (or vanished) since `version` was read. */
    async update(orgId: string, id: string, version: number, patch: BrandPatch): Promise<number> {
      const result = await k
        .updateTable('brands')
        .set((eb) => ({ ...patch, version: eb('version', '+', 1) }))
        .where('organization_id', '=', orgId)
        .where('id', '=', id)
        .where('version', '=', version)
        .executeTakeFirst();
      return affected(result);
    },
  };
}

export type BrandsRepo = ReturnType<typeof createBrandsRepo>;

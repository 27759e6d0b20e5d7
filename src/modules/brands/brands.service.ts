import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import { fieldError, forbidden, notFound, preconditionFailed } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { Principal } from '../access/access.service.ts';
import type { AssetRefs } from '../assets/asset-refs.ts';
import type { Tone } from '../../engines/text/text-engine.ts';
import type { BrandPatch, BrandRecord, BrandsRepo } from './brands.repo.ts';
import {
  type Brand,
  type CreateBrandInput,
  foldKey,
  LOGO_ASSET_TYPES,
  type ListBrandsQuery,
  type UpdateBrandInput,
} from './brands.schemas.ts';
import { etagOf, ifMatchSatisfied } from '../../http/etag.ts';
import { type PageInfo, pageInfo, pageOffset } from '../../http/pagination.ts';

/** The Brand representation, members in the spec's order; `logoAsset` omitted when there is none. */
function toBrand(r: BrandRecord): Brand {
  return {
    id: r.id,
    name: r.name,
    industry: r.industry,
    description: r.description,
    mission: r.mission,
    values: fromJson<string[]>(r.values, []),
    tone: fromJson<Tone[]>(r.tone, []),
    voice: fromJson<string[]>(r.voice, []),
    ...(r.logo_asset_id ? { logoAsset: { assetId: r.logo_asset_id, assetType: r.logo_asset_type ?? 'image' } } : {}),
    organizationId: r.organization_id,
    organizationName: r.organization_name,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    brandDnaStatus: r.brand_dna_status,
  };
}

export interface TaggedBrand {
  brand: Brand;
  etag: string;
}

/**
 * A row's representation and ETag, made once per row read: a row from the read cache is the same
 * object on every request until a write (rows are read-only), so a polled brand is converted and
 * hashed once, not per request. Treat both as read-only.
 */
const taggedByRow = new WeakMap<BrandRecord, TaggedBrand>();
const tagged = (r: BrandRecord): TaggedBrand => {
  let t = taggedByRow.get(r);
  if (!t) {
    const brand = toBrand(r);
    t = { brand, etag: etagOf(brand) };
    taggedByRow.set(r, t);
  }
  return t;
};

const NOT_BLANK = new Set(['name', 'industry', 'description']);

/** Refuses text the schema lets through but a brand cannot hold (blank names, NUL, broken UTF-16). */
function checkText(input: CreateBrandInput | UpdateBrandInput): void {
  for (const [field, value] of Object.entries(input)) {
    const texts: [string, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [`body.${field}.${i}`, item])
      : [[`body.${field}`, value]];
    for (const [path, text] of texts) {
      const problem = typeof text === 'string' ? textProblem(text, NOT_BLANK.has(field)) : undefined;
      if (problem) throw fieldError(path, problem);
    }
  }
}

export interface BrandsServiceDeps {
  repo: BrandsRepo;
  clock: Clock;
  assetRefs: AssetRefs;
}

export function createBrandsService({ repo, clock, assetRefs }: BrandsServiceDeps) {
  /** A logo must be an asset of the caller's organization whose type is `logo` or `image` (else 422). */
  async function resolveLogo(orgId: string, assetId: string) {
    const asset = await assetRefs.find(orgId, assetId.toLowerCase());
    if (!asset) throw fieldError('body.logoAssetId', 'does not name an asset of your organization', 422);
    if (!LOGO_ASSET_TYPES.includes(asset.assetType)) {
      throw fieldError(
        'body.logoAssetId',
        `must name an asset of type ${LOGO_ASSET_TYPES.join(' or ')} (this one is ${asset.assetType})`,
        422,
      );
    }
    return { logo_asset_id: asset.assetId, logo_asset_type: asset.assetType };
  }

  async function mustFind(orgId: string, id: string): Promise<BrandRecord> {
    const r = await repo.find(orgId, id.toLowerCase());
    if (!r) throw notFound(`Brand ${id} not found`, 'BRAND_NOT_FOUND');
    return r;
  }

  return {
    async create(principal: Principal, input: CreateBrandInput): Promise<TaggedBrand> {
      checkText(input);
      const orgId = principal.org.id;
      const logo = input.logoAssetId
        ? await resolveLogo(orgId, input.logoAssetId)
        : { logo_asset_id: null, logo_asset_type: null };
      const now = clock().toISOString();
      const id = randomUUID();
      await repo.insert({
        id,
        organization_id: orgId,
        name: input.name,
        name_key: foldKey(input.name),
        industry: input.industry,
        industry_key: foldKey(input.industry),
        description: input.description,
        mission: input.mission,
        values: toJson(input.values),
        tone: toJson(input.tone),
        voice: toJson(input.voice),
        ...logo,
        created_at: now,
        updated_at: now,
      });
      return tagged(await mustFind(orgId, id));
    },

    async get(principal: Principal, id: string): Promise<TaggedBrand> {
      return tagged(await mustFind(principal.org.id, id));
    },

    async list(principal: Principal, q: ListBrandsQuery): Promise<{ data: Brand[]; pagination: PageInfo }> {
      if (q.all_organizations && !principal.platformAdmin) {
        throw forbidden('all_organizations is reserved to platform admins');
      }
      if (q.industry !== undefined) {
        const problem = textProblem(q.industry);
        if (problem) throw fieldError('query.industry', problem);
      }
      const filter = {
        ...(q.all_organizations ? {} : { orgId: principal.org.id }),
        ...(q.industry !== undefined ? { industryKey: foldKey(q.industry) } : {}),
      };
      const [total, rows] = await Promise.all([
        repo.count(filter),
        repo.list(filter, q.sort, pageOffset(q.page, q.limit), q.limit),
      ]);
      return { data: rows.map(toBrand), pagination: pageInfo(total, q.page, q.limit) };
    },

    /**
     * Applies `input` when `ifMatch` matches the brand's current ETag (else 412). The write is a
     * compare-and-set on the row version, so a concurrent update between read and write is a 412 too.
     */
    async update(principal: Principal, id: string, ifMatch: string, input: UpdateBrandInput): Promise<TaggedBrand> {
      checkText(input);
      const orgId = principal.org.id;
      const current = await mustFind(orgId, id);
      if (!ifMatchSatisfied(ifMatch, tagged(current).etag)) {
        throw preconditionFailed('If-Match does not match the current ETag of this brand');
      }
      const patch: BrandPatch = { updated_at: clock().toISOString() };
      if (input.name != null) {
        patch.name = input.name;
        patch.name_key = foldKey(input.name);
      }
      if (input.industry != null) {
        patch.industry = input.industry;
        patch.industry_key = foldKey(input.industry);
      }
      if (input.description != null) patch.description = input.description;
      if (input.mission !== undefined) patch.mission = input.mission ?? '';
      if (input.values !== undefined) patch.values = toJson(input.values ?? []);
      if (input.tone !== undefined) patch.tone = toJson(input.tone ?? []);
      if (input.voice !== undefined) patch.voice = toJson(input.voice ?? []);
      if (input.logoAssetId === null) Object.assign(patch, { logo_asset_id: null, logo_asset_type: null });
      else if (input.logoAssetId !== undefined) Object.assign(patch, await resolveLogo(orgId, input.logoAssetId));
      if ((await repo.update(orgId, current.id, current.version, patch)) === 0) {
        throw preconditionFailed('The brand changed while this update was being applied; fetch it again');
      }
      return tagged(await mustFind(orgId, current.id));
    },
  };
}

export type BrandsService = ReturnType<typeof createBrandsService>;

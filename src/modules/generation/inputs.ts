import { fromJson } from '../../adapters/db/columns.ts';
import type { Database } from '../../adapters/db/database.ts';
import { COLOR_NAMES } from '../../adapters/media/colors.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { readToBuffer } from '../../adapters/storage/storage.ts';
import { forbidden, notFound, unprocessable } from '../../http/errors.ts';
import type { Principal } from '../access/access.service.ts';
import { createAssetsRepo } from '../assets/assets.repo.ts';
import type { BrandDnaService } from '../brand-dna/brand-dna.service.ts';
import { createBrandsRepo } from '../brands/brands.repo.ts';
import type { PlanCatalog } from '../usage/plans.ts';

/**
 * What a generation reads of the brand, its assets and its active Brand DNA, resolved and checked
 * at create time and stored with the resource (so a job that runs later, or twice, sees the same
 * inputs even if the DNA is activated or edited meanwhile).
 */
export interface AssetInput {
  assetId: string;
  assetType: string;
  /** Storage key of the original bytes. */
  key: string;
  fileName: string;
  description?: string;
  tags: string[];
  /** Colour words among the asset's tags (dominant colours found at processing). */
  colors: string[];
}

export interface DnaInput {
  versionId: string;
  palette: { hex: string; name?: string; role: string }[];
  /** Tones, strongest first. */
  tone: string[];
  descriptors: string[];
  imageryStyle: string[];
  wordsToAvoid: string[];
}

export interface GenerationInputs {
  brand: { id: string; name: string; industry: string; logo?: AssetInput };
  products: AssetInput[];
  environment?: AssetInput;
  /** Present when the generation uses the brand's active Brand DNA. */
  dna?: DnaInput;
}

/** The inputs a run stored at its create (its `context` column), for its job. */
export function storedInputs(context: string | null): GenerationInputs {
  const inputs = fromJson<GenerationInputs | null>(context, null);
  if (!inputs) throw new Error('the run has no stored inputs (its context column is empty)');
  return inputs;
}

/** Formats the engines can read as pictures. */
const RASTER = new Set(['JPEG', 'PNG', 'GIF', 'TIFF', 'WEBP']);
const COLOR_WORDS: ReadonlySet<string> = new Set(COLOR_NAMES);

export interface InputsDeps {
  db: Database;
  plans: PlanCatalog;
  brandDna: Pick<BrandDnaService, 'getActiveDna'>;
}

export interface InputsRequest {
  productAssetIds?: string[] | undefined;
  environmentAssetId?: string | null | undefined;
  useBrandDna?: boolean | null | undefined;
}

/**
 * Whether a generation uses Brand DNA: omitted or null means true on plans with `brand_dna` and
 * false on plans without it; an explicit true on such a plan is 403 (spec, Plan gating).
 */
export function resolveUseBrandDna(p: Principal, plans: PlanCatalog, requested: boolean | null | undefined): boolean {
  const hasFeature = plans.entitlementsFor(p.org).features.brand_dna === true;
  if (requested === true && !hasFeature) {
    throw forbidden(
      `Your plan (${p.org.planSlug}) does not include brand_dna; send useBrandDna false or omit it`,
      'FORBIDDEN',
      {
        feature: 'brand_dna',
        plan: p.org.planSlug,
      },
    );
  }
  return requested ?? hasFeature;
}

/** The columns of an asset row an AssetInput is made of. */
export interface AssetInputColumns {
  id: string;
  type: string;
  storage_key: string;
  file_name: string;
  description: string | null;
  tags: string;
  auto_tags: string;
}

/** What a generation keeps of an input asset: where its bytes are, and its words and colours. */
export function assetInputOf(row: AssetInputColumns): AssetInput {
  const tags = [...fromJson<string[]>(row.tags, []), ...fromJson<string[]>(row.auto_tags, [])];
  return {
    assetId: row.id,
    assetType: row.type,
    key: row.storage_key,
    fileName: row.file_name,
    ...(row.description ? { description: row.description } : {}),
    tags: [...new Set(tags)],
    colors: [...new Set(tags.filter((t) => COLOR_WORDS.has(t)))],
  };
}

export function createInputsResolver(deps: InputsDeps) {
  // The brands' and assets' own reads (their modules own the tables).
  const brands = createBrandsRepo(deps.db);
  const assetRows = createAssetsRepo(deps.db);

  async function brandOf(orgId: string, brandId: string) {
    const brand = await brands.find(orgId, brandId.toLowerCase());
    if (!brand) throw notFound(`Brand ${brandId} not found`, 'BRAND_NOT_FOUND');
    return { id: brand.id, name: brand.name, industry: brand.industry, logo_asset_id: brand.logo_asset_id };
  }

  /**
   * The referenced assets, in the order given (repeats count once): each must be an asset of the
   * organization (404 ASSET_NOT_FOUND) that is `complete` (422 ASSET_NOT_READY) and a picture
   * (422 ASSET_NOT_IMAGE). `field` names the request member in errors.
   */
  async function assets(orgId: string, ids: string[], field: string): Promise<AssetInput[]> {
    const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
    if (wanted.length === 0) return [];
    const rows = await assetRows.getAssets(orgId, wanted);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return wanted.map((id) => {
      const row = byId.get(id);
      if (!row) throw notFound(`Asset ${id} (${field}) not found`, 'ASSET_NOT_FOUND');
      if (row.status !== 'complete') {
        throw unprocessable(
          `Asset ${id} (${field}) is ${row.status}; only complete assets can be used`,
          { field, assetId: id, status: row.status },
          'ASSET_NOT_READY',
        );
      }
      if (!RASTER.has(row.detected_format ?? '')) {
        throw unprocessable(
          `Asset ${id} (${field}) is not a picture (${row.detected_format ?? row.type}); use a JPEG, PNG, GIF or TIFF image`,
          { field, assetId: id, detectedFormat: row.detected_format },
          'ASSET_NOT_IMAGE',
        );
      }
      return assetInputOf(row);
    });
  }

  async function dnaOf(orgId: string, brandId: string): Promise<DnaInput | undefined> {
    const active = await deps.brandDna.getActiveDna(brandId, orgId);
    if (!active) return undefined;
    const { dna } = active;
    return {
      versionId: active.versionId,
      palette: dna.visual.palette.map((c) => ({
        hex: c.hex.toLowerCase(),
        role: c.role,
        ...(c.name ? { name: c.name } : {}),
      })),
      tone: dna.voice.tone.map((t) => t.tone),
      descriptors: dna.voice.descriptors.map((d) => d.value),
      imageryStyle: dna.visual.imagery.style,
      wordsToAvoid: dna.voice.words_to_avoid.map((w) => w.value),
    };
  }

  return {
    brandOf,
    /** The brand's active Brand DNA, reduced to what engines read; undefined without one. */
    activeDna: dnaOf,
    /** Brand, products, environment and (when used) the active DNA, every rule checked. */
    async resolve(
      p: Principal,
      brandId: string,
      req: InputsRequest,
    ): Promise<{ inputs: GenerationInputs; useBrandDna: boolean }> {
      const useBrandDna = resolveUseBrandDna(p, deps.plans, req.useBrandDna);
      const brand = await brandOf(p.org.id, brandId);
      const products = await assets(p.org.id, req.productAssetIds ?? [], 'productAssetIds');
      const [environment] = req.environmentAssetId
        ? await assets(p.org.id, [req.environmentAssetId], 'environmentAssetId')
        : [];
      const dna = useBrandDna ? await dnaOf(p.org.id, brand.id) : undefined;
      // The brand's logo, when it is a usable picture (refinements may place it); never an error.
      const logo = brand.logo_asset_id
        ? await assets(p.org.id, [brand.logo_asset_id], 'logoAssetId').then(
            ([a]) => a,
            () => undefined,
          )
        : undefined;
      const brandInput = { id: brand.id, name: brand.name, industry: brand.industry, ...(logo ? { logo } : {}) };
      return {
        inputs: { brand: brandInput, products, ...(environment ? { environment } : {}), ...(dna ? { dna } : {}) },
        useBrandDna,
      };
    },
  };
}

export type InputsResolver = ReturnType<typeof createInputsResolver>;

/** The original bytes of an input asset (bounded: generation inputs are pictures, not videos). */
export async function readInput(
  storage: Pick<ObjectStorage, 'getStream'>,
  input: AssetInput,
  maxBytes = 64 * 1024 * 1024,
) {
  return readToBuffer(storage, input.key, maxBytes, `Asset ${input.assetId}`);
}

import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { badRequest, conflict, fieldError, forbidden, notFound, unprocessable } from '../../http/errors.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import { textProblem } from '../../http/schemas.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { extractJob, extractJobId } from './brand-dna.jobs.ts';
import { toDetail, toSummary } from './brand-dna.presenter.ts';
import { type BrandDnaRepo, nextUpdatedAt, type SourceRow, type VersionRow } from './brand-dna.repo.ts';
import type {
  BrandDna,
  CreateVersionBody,
  RerunBody,
  SourceType,
  UpdateVersionBody,
  VersionDetail,
  VersionSummary,
} from './brand-dna.schemas.ts';
import { sourceTypeOf } from './extractors.ts';
import { buildPreview } from './preview.ts';
import { versionFolder } from './brand-dna.keys.ts';
import { webUrlProblem } from './web-url.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

export { versionFolder };

export const POOL = 'brand_dna_extractions';

/** The active version's DNA, for generation (which uses only the active version). */
export interface ActiveDna {
  brandId: string;
  versionId: string;
  versionNumber: number;
  dna: BrandDna;
  updatedAt: string;
}

export interface LegacyView {
  brandId: string;
  status: string;
  version: number;
  brandDna: BrandDna | Record<string, never>;
  sourceAssetIds: string[];
}

export interface BrandDnaServiceDeps {
  repo: BrandDnaRepo;
  jobs: Pick<JobSystem, 'enqueue'>;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  storage: Pick<ObjectStorage, 'deletePrefix'>;
  clock: Clock;
  changes: ChangePublisher;
  log?: { warn(obj: object, msg?: string): void };
}

const versionNotFound = (id: string) => notFound(`Brand DNA version ${id} not found`, 'VERSION_NOT_FOUND');
const invalidStatus = (action: string, status: string, allowed: string) =>
  conflict(`Cannot ${action} a version that is ${status} (only ${allowed})`, 'INVALID_STATUS_FOR_ACTION', {
    status,
  });
const activeDeleteForbidden = () =>
  conflict('The active version cannot be deleted; activate another version first', 'ACTIVE_VERSION_DELETE_FORBIDDEN');

interface PlannedSource {
  type: SourceType;
  label: string;
  assetId?: string;
  url?: string;
}

/** Every string in a value, with its path (for the text rules on `dna`). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${path}.${i}`);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* strings(v, `${path}.${k}`);
  }
}

export function createBrandDnaService(deps: BrandDnaServiceDeps) {
  const { repo, clock } = deps;
  const touch = (prev?: string) => nextUpdatedAt(clock(), prev);

  async function mustBrand(orgId: string, brandId: string) {
    const b = await repo.brandExists(orgId, brandId.toLowerCase());
    if (!b) throw notFound(`Brand ${brandId} not found`, 'BRAND_NOT_FOUND');
    return b;
  }

  async function mustVersion(orgId: string, brandId: string, versionId: string): Promise<VersionRow> {
    await mustBrand(orgId, brandId);
    const v = await repo.findVersion(orgId, brandId.toLowerCase(), versionId.toLowerCase());
    if (!v) throw versionNotFound(versionId);
    return v;
  }

  /**
   * The sources a create or rerun asks for, checked: at least one (400 NO_SOURCES); web URLs
   * (`webUrlProblem`, 400); assets of the caller's organization (403 ASSET_NOT_OWNED) that are
   * `complete` (422 ASSET_NOT_READY) and of a kind Brand DNA reads (422 UNSUPPORTED_SOURCE).
   * Repeated ids and URLs count once.
   */
  async function planSources(orgId: string, body: { assetIds?: string[]; urls?: string[] }): Promise<PlannedSource[]> {
    const assetIds = [...new Set((body.assetIds ?? []).map((a) => a.toLowerCase()))];
    const urls: string[] = [];
    for (const [i, raw] of (body.urls ?? []).entries()) {
      const problem = webUrlProblem(raw);
      if (problem) throw fieldError(`body.urls.${i}`, problem);
      const u = new URL(raw);
      u.hash = '';
      if (!urls.includes(u.href)) urls.push(u.href);
    }
    if (assetIds.length === 0 && urls.length === 0) {
      throw badRequest('Give at least one source: assetIds or urls', undefined, 'NO_SOURCES');
    }
    const assets = new Map((await repo.assetsIn(orgId, assetIds)).map((a) => [a.id, a]));
    const missing = assetIds.filter((id) => !assets.has(id));
    if (missing.length) {
      throw forbidden(
        `${missing.length === 1 ? 'Asset' : 'Assets'} ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not an asset of your organization`,
        'ASSET_NOT_OWNED',
        { assetIds: missing },
      );
    }
    const planned: PlannedSource[] = [];
    for (const id of assetIds) {
      const a = assets.get(id)!;
      if (a.status !== 'complete') {
        throw unprocessable(
          `Asset ${id} is ${a.status}; only complete assets can be used`,
          { assetId: id, status: a.status },
          'ASSET_NOT_READY',
        );
      }
      const type = sourceTypeOf(a);
      if (!type) {
        throw unprocessable(
          `Asset ${id} (${a.type}) cannot be read for Brand DNA`,
          { assetId: id, assetType: a.type },
          'UNSUPPORTED_SOURCE',
        );
      }
      planned.push({ type, label: a.file_name.slice(0, 200), assetId: id });
    }
    for (const url of urls) planned.push({ type: 'url', label: url.slice(0, 200), url });
    return planned;
  }

  const sourceRows = (versionId: string, planned: PlannedSource[], at: string): SourceRow[] =>
    planned.map((p, position) => ({
      id: randomUUID(),
      version_id: versionId,
      position,
      type: p.type,
      label: p.label,
      asset_id: p.assetId ?? null,
      url: p.url ?? null,
      page_count: null,
      status: 'queued',
      progress_note: null,
      error_reason: null,
      findings_key: null,
      created_at: at,
      updated_at: at,
    }));

  async function enqueue(row: VersionRow) {
    await deps.jobs.enqueue(
      extractJob,
      { versionId: row.id, runId: row.run_id },
      { jobId: extractJobId(row.id, row.run_id) },
    );
  }

  async function release(reservationId: string | null) {
    if (reservationId) await deps.usage.release(reservationId);
  }

  async function cleanArtifacts(orgId: string, versionId: string) {
    try {
      await deps.storage.deletePrefix(versionFolder(orgId, versionId));
    } catch (err) {
      deps.log?.warn({ versionId, err: (err as Error).message }, 'brand DNA artifacts not cleaned');
    }
  }

  const summaryOf = async (row: VersionRow) =>
    toSummary(
      row,
      (await repo.sourcesOf(row.id)).map((s) => s.type),
    );

  function checkName(name: string | null | undefined) {
    const problem = typeof name === 'string' ? textProblem(name) : undefined;
    if (problem) throw fieldError('body.name', problem);
  }

  /** Rules of a `dna` edit beyond its schema: text, distinct tones, logos that name something of yours. */
  async function checkDna(orgId: string, dna: BrandDna) {
    for (const [path, s] of strings(dna, 'body.dna')) {
      const problem = textProblem(s);
      if (problem) throw fieldError(path, problem);
    }
    const tones = dna.voice.tone.map((t) => t.tone);
    const dup = tones.find((t, i) => tones.indexOf(t) !== i);
    if (dup) throw fieldError('body.dna.voice.tone', `lists ${dup} more than once`);
    for (const [i, l] of dna.visual.logos.entries()) {
      if (!l.asset_id && !l.url) throw fieldError(`body.dna.visual.logos.${i}`, 'needs asset_id or url');
      const problem = l.url === undefined ? undefined : webUrlProblem(l.url);
      if (problem) throw fieldError(`body.dna.visual.logos.${i}.url`, problem);
    }
    const logoAssets = [...new Set(dna.visual.logos.flatMap((l) => (l.asset_id ? [l.asset_id.toLowerCase()] : [])))];
    const known = new Set((await repo.assetsIn(orgId, logoAssets)).map((a) => a.id));
    const unknown = logoAssets.filter((a) => !known.has(a));
    if (unknown.length) {
      throw forbidden(`Asset ${unknown.join(', ')} is not an asset of your organization`, 'ASSET_NOT_OWNED', {
        assetIds: unknown,
      });
    }
  }

  return {
    async list(p: Principal, brandId: string): Promise<VersionSummary[]> {
      await mustBrand(p.org.id, brandId);
      const rows = await repo.listVersions(p.org.id, brandId.toLowerCase());
      const types = await repo.sourceTypes(rows.map((r) => r.id));
      return rows.map((r) =>
        toSummary(
          r,
          (types.get(r.id) ?? []).map((s) => s.type),
        ),
      );
    },

    async create(p: Principal, brandId: string, body: CreateVersionBody): Promise<VersionSummary> {
      const orgId = p.org.id;
      checkName(body.name);
      const brand = await mustBrand(orgId, brandId);
      const planned = await planSources(orgId, body);
      const versionId = randomUUID();
      const reservationId = await deps.usage.reserve(orgId, POOL, 1, { reference: versionId });
      const at = touch();
      let row: VersionRow;
      try {
        const sources = sourceRows(versionId, planned, at);
        row = await repo.insertVersion(
          {
            id: versionId,
            organization_id: orgId,
            brand_id: brand.id,
            name: body.name ?? null,
            status: 'pending',
            is_active: 0,
            run_id: randomUUID(),
            reservation_id: reservationId,
            dna: null,
            preview: toJson(
              buildPreview(
                null,
                planned.map((s) => s.type),
              ),
            ),
            confidence_score: 0,
            missing_fields: '[]',
            created_at: at,
            updated_at: at,
          },
          sources,
        );
        await enqueue(row);
      } catch (err) {
        // Nothing was queued: undo the version (if written) and give the unit back.
        await repo.deleteVersion(brand.id, versionId, () => undefined).catch(() => undefined);
        await release(reservationId);
        throw err;
      }
      return summaryOf(row);
    },

    async get(p: Principal, brandId: string, versionId: string): Promise<VersionDetail> {
      const row = await mustVersion(p.org.id, brandId, versionId);
      return toDetail(row, await repo.sourcesOf(row.id));
    },

    async getActive(p: Principal, brandId: string): Promise<VersionDetail> {
      await mustBrand(p.org.id, brandId);
      const row = await repo.findActive(brandId.toLowerCase(), p.org.id);
      if (!row) throw notFound('This brand has no active Brand DNA version', 'VERSION_NOT_FOUND');
      return toDetail(row, await repo.sourcesOf(row.id));
    },

    async update(p: Principal, brandId: string, versionId: string, body: UpdateVersionBody): Promise<VersionSummary> {
      if (body.name === undefined && body.dna === undefined) {
        throw badRequest('Send name or dna (or both) with updatedAt', {
          fields: [{ field: 'body', message: 'must have name or dna' }],
        });
      }
      checkName(body.name);
      if (body.dna) await checkDna(p.org.id, body.dna);
      const row = await mustVersion(p.org.id, brandId, versionId);
      const stale = () =>
        conflict('The version changed since the updatedAt you sent; read it again', 'STALE_UPDATE', {
          currentUpdatedAt: row.updated_at,
        });
      if (Date.parse(body.updatedAt) !== Date.parse(row.updated_at)) throw stale();
      if (body.dna && row.status !== 'ready') throw invalidStatus('edit the DNA of', row.status, 'ready');
      const patch: Partial<VersionRow> = { updated_at: touch(row.updated_at) };
      if (body.name !== undefined) patch.name = body.name;
      if (body.dna) {
        patch.dna = toJson(body.dna);
        const types = (await repo.sourcesOf(row.id)).map((s) => s.type);
        patch.preview = toJson(buildPreview(body.dna, types));
      }
      const changed = await repo.updateIfCurrent(row.id, row.updated_at, patch, body.dna ? ['ready'] : undefined);
      if (changed === 0) {
        const now = await repo.findVersion(p.org.id, row.brand_id, row.id);
        if (!now) throw versionNotFound(versionId);
        if (body.dna && now.status !== 'ready' && now.updated_at === row.updated_at) {
          throw invalidStatus('edit the DNA of', now.status, 'ready');
        }
        throw conflict('The version changed since the updatedAt you sent; read it again', 'STALE_UPDATE', {
          currentUpdatedAt: now.updated_at,
        });
      }
      return summaryOf({ ...row, ...patch });
    },

    async remove(p: Principal, brandId: string, versionId: string): Promise<void> {
      const row = await mustVersion(p.org.id, brandId, versionId);
      const r = await repo.deleteVersion(row.brand_id, row.id, (v) => (v.is_active === 1 ? 'active' : undefined));
      if ('gone' in r) throw versionNotFound(versionId);
      if ('refused' in r) throw activeDeleteForbidden();
      // A run still going gives its unit back; a finished one was committed or released already.
      if (r.deleted.status === 'pending' || r.deleted.status === 'extracting') {
        await release(r.deleted.reservation_id);
        // A run still going was canceled by the delete: wake its waiters (they read a 404).
        await publishChange(deps, 'brand_dna_version', r.deleted, 'canceled');
      }
      await cleanArtifacts(p.org.id, row.id);
    },

    async cancel(p: Principal, brandId: string, versionId: string): Promise<void> {
      const row = await mustVersion(p.org.id, brandId, versionId);
      const r = await repo.deleteVersion(row.brand_id, row.id, (v) =>
        v.status !== 'pending' && v.status !== 'extracting'
          ? `status:${v.status}`
          : v.is_active === 1
            ? 'active'
            : undefined,
      );
      if ('gone' in r) throw versionNotFound(versionId);
      if ('refused' in r) {
        if (r.refused === 'active') throw activeDeleteForbidden();
        throw invalidStatus('cancel', r.refused.slice('status:'.length), 'pending or extracting');
      }
      await release(r.deleted.reservation_id);
      await publishChange(deps, 'brand_dna_version', r.deleted, 'canceled');
      await cleanArtifacts(p.org.id, row.id);
    },

    async activate(p: Principal, brandId: string, versionId: string): Promise<VersionSummary> {
      const row = await mustVersion(p.org.id, brandId, versionId);
      const r = await repo.activate(row.brand_id, row.id, touch);
      if (r === 'gone') throw versionNotFound(versionId);
      if (r === 'not-ready') {
        const now = await repo.findVersion(p.org.id, row.brand_id, row.id);
        throw invalidStatus('activate', now?.status ?? row.status, 'ready');
      }
      const now = await repo.findVersion(p.org.id, row.brand_id, row.id);
      if (!now) throw versionNotFound(versionId);
      if (row.is_active !== 1) await publishChange(deps, 'brand_dna_version', now);
      return summaryOf(now);
    },

    async rerun(p: Principal, brandId: string, versionId: string, body: RerunBody): Promise<VersionSummary> {
      const orgId = p.org.id;
      const row = await mustVersion(orgId, brandId, versionId);
      if (row.status !== 'ready' && row.status !== 'failed')
        throw invalidStatus('rerun', row.status, 'ready or failed');
      const planned = await planSources(orgId, body);
      const reservationId = await deps.usage.reserve(orgId, POOL, 1, { reference: row.id });
      const at = touch();
      const r = await repo
        .rerun(
          row.brand_id,
          row.id,
          {
            run_id: randomUUID(),
            reservation_id: reservationId,
            preview: toJson(
              buildPreview(
                null,
                planned.map((s) => s.type),
              ),
            ),
            updated_at: at,
          },
          sourceRows(row.id, planned, at),
          touch,
        )
        .catch(async (err: unknown) => {
          await release(reservationId);
          throw err;
        });
      if (!('row' in r)) {
        await release(reservationId);
        if ('gone' in r) throw versionNotFound(versionId);
        throw invalidStatus('rerun', r.refused.status, 'ready or failed');
      }
      await publishChange(deps, 'brand_dna_version', r.row);
      // The previous run's findings are of no use any more.
      await cleanArtifacts(orgId, row.id);
      try {
        await enqueue(r.row);
      } catch (err) {
        const failed = await repo.transition(r.row.id, r.row.run_id, ['pending'], (v) => ({
          status: 'failed',
          updated_at: touch(v.updated_at),
        }));
        if (failed) {
          await release(reservationId);
          await publishChange(deps, 'brand_dna_version', failed);
        }
        throw err;
      }
      return summaryOf(r.row);
    },

    async legacy(p: Principal, brandId: string): Promise<LegacyView> {
      const brand = await mustBrand(p.org.id, brandId);
      const active = await repo.findActive(brand.id, p.org.id);
      if (!active) return { brandId: brand.id, status: 'none', version: 0, brandDna: {}, sourceAssetIds: [] };
      const sources = await repo.sourcesOf(active.id);
      const dna = active.status === 'ready' ? fromJson<BrandDna | null>(active.dna, null) : null;
      return {
        brandId: brand.id,
        status: active.status,
        version: Number(active.version_number),
        brandDna: dna ?? {},
        sourceAssetIds: sources.flatMap((s) => (s.asset_id ? [s.asset_id] : [])),
      };
    },

    /**
     * The active version's DNA when it is `ready` (undefined otherwise: no active version, or it
     * is being rerun). `orgId` scopes the read; job handlers that carry a checked brand id may omit it.
     */
    async getActiveDna(brandId: string, orgId?: string): Promise<ActiveDna | undefined> {
      const row = await repo.findActive(brandId.toLowerCase(), orgId);
      if (row?.status !== 'ready' || !row.dna) return undefined;
      return {
        brandId: row.brand_id,
        versionId: row.id,
        versionNumber: Number(row.version_number),
        dna: fromJson<BrandDna>(row.dna, null as never),
        updatedAt: row.updated_at,
      };
    },
  };
}

export type BrandDnaService = ReturnType<typeof createBrandDnaService>;

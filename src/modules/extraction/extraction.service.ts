import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Fetcher } from '../../adapters/fetch/fetcher.ts';
import type { FormatName } from '../../adapters/media/index.ts';
import { isStorageError, type ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { StorageSettings } from '../../adapters/storage/storage.ts';
import { fromBool, toBool } from '../../adapters/db/columns.ts';
import { AppError, conflict, fieldError, notFound } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { JobLogger, JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import { runExtractionJob } from './extraction.jobs.ts';
import { PageError, type PipelineCandidate, runPipeline } from './extraction.pipeline.ts';
import type { CandidateRow, ExtractionRepo, ExtractionRow } from './extraction.repo.ts';
import type { Candidate, CommitBody, CommittedAsset, Extraction, SubmitExtractionBody } from './extraction.schemas.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

/** The settings extraction reads: ATELIER_EXTRACTION_TIMEOUT_SECONDS and the download links' lifetime. */
export interface ExtractionSettings {
  storage: StorageSettings;
  extractionTimeoutSeconds: number;
}

export interface ExtractionServiceDeps {
  repo: ExtractionRepo;
  storage: ObjectStorage;
  fetcher: Fetcher;
  jobs: Pick<JobSystem, 'enqueue'>;
  clock: Clock;
  config: ExtractionSettings;
  plans: Pick<PlanCatalog, 'entitlementsFor'>;
  assets: Pick<AssetsService, 'importObject'>;
  changes: ChangePublisher;
}

/** How long extractions (and their staged copies) are kept after submit. */
const RETENTION_DAYS = 7;
/** Retry-After of the per-organization cap's 429: about half a typical run. */
const CAP_RETRY_AFTER_SECONDS = 30;
/** A commit claim older than this belongs to a request that died; another may take it over. */
const COMMIT_CLAIM_STALE_MS = 120_000;
/** How long a commit waits for a concurrent request that is promoting the same candidate. */
const COMMIT_WAIT_MS = 10_000;
const DAY_MS = 86_400_000;

/** Staged copies live under a folder per submit day, so whole days can expire without a listing. */
const stagingDay = (iso: string) => iso.slice(0, 10).replace(/-/g, '');
export const stagingPrefix = (row: Pick<ExtractionRow, 'id' | 'created_at'>) =>
  `staging/extractions/${stagingDay(row.created_at)}/${row.id}/`;

/** The run was deleted, timed out or taken over by another attempt: stop without writing. */
class RunSuperseded extends Error {}

export function describeSeconds(s: number): string {
  if (s % 60 === 0) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  return s === 1 ? '1 second' : `${s} seconds`;
}

export function createExtractionService(deps: ExtractionServiceDeps) {
  const { repo, storage, clock, config } = deps;
  const now = () => clock().toISOString();
  const timeoutMs = config.extractionTimeoutSeconds * 1000;
  const timeoutMessage = `The extraction did not finish within ${describeSeconds(config.extractionTimeoutSeconds)}.`;
  const staleCutoff = () => new Date(clock().getTime() - timeoutMs).toISOString();
  /** Announces the run as it is now (long-poll, webhooks); after the transition committed. */
  const changed = (id: string) => publishChange(deps, 'extraction', () => repo.getById(id));

  async function present(row: ExtractionRow, includeRejected: boolean): Promise<Extraction> {
    const out: Extraction = {
      extractionId: row.id,
      brandId: row.brand_id,
      url: row.url,
      media: row.media as Extraction['media'],
      status: row.status as Extraction['status'],
      truncated: row.truncated,
      createdAt: row.created_at,
    };
    if (row.purpose !== null) out.purpose = row.purpose;
    if (row.error_code) out.errorCode = row.error_code;
    if (row.error_message) out.errorMessage = row.error_message;
    if (row.completed_at) out.completedAt = row.completed_at;
    if (row.failed_at) out.failedAt = row.failed_at;
    if (row.status === 'completed') {
      const rows = await repo.candidates(row.id, includeRejected);
      out.candidates = await Promise.all(rows.map(presentCandidate));
    }
    return out;
  }

  async function presentCandidate(c: CandidateRow): Promise<Candidate> {
    const out: Candidate = {
      candidateId: c.id,
      mediaType: 'image',
      relevanceScore: c.relevance_score,
      relevanceReason: c.relevance_reason,
      rank: c.rank,
      kept: fromBool(c.kept),
      looksLikeLogo: fromBool(c.looks_like_logo),
    };
    if (c.width !== null) out.width = c.width;
    if (c.height !== null) out.height = c.height;
    if (c.duration_seconds !== null) out.durationSeconds = c.duration_seconds;
    if (c.file_type) out.fileType = c.file_type;
    if (c.committed_asset_id) out.committedAssetId = c.committed_asset_id;
    if (c.staged_key) {
      out.previewUrl = await storage.createDownloadLink(c.staged_key, {
        expiresInSeconds: config.storage.downloadLinkTtlSeconds,
        fileName: c.file_name,
        ...(c.file_type ? { contentType: c.file_type } : {}),
      });
    }
    if (c.rejection_code) out.rejectionCode = c.rejection_code;
    if (c.rejection_reason) out.rejectionReason = c.rejection_reason;
    return out;
  }

  /** UUIDs are matched case-insensitively: ids are stored, and answered, in lower case. */
  async function mustGet(p: Principal, id: string) {
    const row = await repo.get(p.org.id, id.toLowerCase());
    if (!row) throw notFound(`Extraction ${id} not found`, 'EXTRACTION_NOT_FOUND');
    return row;
  }

  async function removeStaged(prefix: string, log?: JobLogger) {
    try {
      await storage.deletePrefix(prefix);
    } catch (err) {
      log?.warn({ prefix, err: (err as Error).message }, 'could not remove staged extraction copies');
    }
  }

  function toRow(extractionId: string, c: PipelineCandidate, createdAt: string): CandidateRow {
    const r = c.ranked;
    return {
      id: c.candidateId,
      extraction_id: extractionId,
      rank: r.rank,
      kept: toBool(r.kept && !c.rejection),
      looks_like_logo: toBool(r.looksLikeLogo),
      media_type: 'image',
      width: c.staged?.width ?? r.width ?? null,
      height: c.staged?.height ?? r.height ?? null,
      duration_seconds: null,
      file_type: c.staged?.mime ?? null,
      detected_format: c.staged?.format ?? null,
      file_size: c.staged?.size ?? null,
      file_name: c.fileName,
      relevance_score: r.relevanceScore,
      relevance_reason: r.relevanceReason,
      rejection_code: c.rejection?.code ?? null,
      rejection_reason: c.rejection?.reason ?? null,
      source_url: c.sourceUrl ?? null,
      staged_key: c.staged?.key ?? null,
      committed_asset_id: null,
      committed_asset_type: null,
      commit_token: null,
      commit_started_at: null,
      created_at: createdAt,
    };
  }

  function commitFailed(c: CandidateRow, reason: string, message: string, retryable: boolean, done: CommittedAsset[]) {
    return new AppError(422, 'COMMIT_FAILED', message, { candidateId: c.id, reason, retryable, assets: done });
  }

  /** Promotes one candidate (rule a: an already committed one answers its asset). */
  async function commitOne(
    p: Principal,
    row: ExtractionRow,
    c: CandidateRow,
    isLogo: boolean,
    done: CommittedAsset[],
  ): Promise<CommittedAsset> {
    const committed = (x: CandidateRow) => ({
      assetId: x.committed_asset_id!,
      assetType: x.committed_asset_type ?? 'image',
      candidateId: x.id,
    });
    if (c.committed_asset_id) return committed(c);
    const token = randomUUID();
    const waitUntil = clock().getTime() + COMMIT_WAIT_MS;
    while (
      !(await repo.claimCandidate(
        c.id,
        token,
        now(),
        new Date(clock().getTime() - COMMIT_CLAIM_STALE_MS).toISOString(),
      ))
    ) {
      const fresh = await repo.getCandidate(c.id);
      if (!fresh) throw notFound(`Extraction ${row.id} not found`, 'EXTRACTION_NOT_FOUND');
      if (fresh.committed_asset_id) return committed(fresh);
      if (clock().getTime() > waitUntil) {
        throw commitFailed(
          c,
          'commit_in_progress',
          `Candidate ${c.id} is being committed by another request; retry`,
          true,
          done,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    let asset: Awaited<ReturnType<AssetsService['importObject']>>;
    try {
      asset = await deps.assets.importObject({
        orgId: p.org.id,
        brandId: row.brand_id,
        sourceKey: c.staged_key!,
        fileName: c.file_name,
        format: c.detected_format as FormatName,
        size: Number(c.file_size),
        ...(isLogo ? { type: 'logo' as const } : {}),
        origin: 'extraction',
      });
    } catch (err) {
      await repo.releaseCandidate(c.id, token);
      if (isStorageError(err, 'NOT_FOUND')) {
        throw commitFailed(
          c,
          'staged_copy_missing',
          `The stored copy of candidate ${c.id} is gone; run the extraction again`,
          false,
          done,
        );
      }
      throw commitFailed(c, 'storage_error', `Candidate ${c.id} could not be committed; retry`, true, done);
    }
    await repo.setCommitted(c.id, token, asset.id, asset.metadata.type);
    return { assetId: asset.id, assetType: asset.metadata.type, candidateId: c.id };
  }

  return {
    async submit(p: Principal, body: SubmitExtractionBody): Promise<Extraction> {
      let url: URL;
      try {
        url = new URL(body.url);
      } catch {
        throw fieldError('body.url', 'must be an absolute http or https URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw fieldError('body.url', 'must be an http or https URL');
      }
      if (url.username || url.password) throw fieldError('body.url', 'must not contain a user name or password');
      if (!url.hostname) throw fieldError('body.url', 'must name a host');
      const purposeProblem = body.purpose ? textProblem(body.purpose) : undefined;
      if (purposeProblem) throw fieldError('body.purpose', purposeProblem);
      const brandId = body.brandId.toLowerCase();
      if (!(await repo.brandInOrg(p.org.id, brandId))) {
        throw notFound(`Brand ${brandId} not found`, 'BRAND_NOT_FOUND');
      }
      const t = now();
      const row: ExtractionRow = {
        id: randomUUID(),
        organization_id: p.org.id,
        brand_id: brandId,
        url: body.url,
        purpose: body.purpose ?? null,
        media: body.media ?? 'both',
        status: 'pending',
        error_code: null,
        error_message: null,
        truncated: 0,
        run_id: null,
        page_url: null,
        created_at: t,
        updated_at: t,
        started_at: null,
        completed_at: null,
        failed_at: null,
      };
      const cap = deps.plans.entitlementsFor(p.org).extraction.maxConcurrentRuns;
      if (!(await repo.insertUnderCap(row, cap, staleCutoff()))) {
        throw new AppError(
          429,
          'RATE_LIMITED',
          `Your organization already has ${cap} URL extraction${cap === 1 ? '' : 's'} running, the most its plan allows at once; retry when one finishes`,
          { retryAfterSeconds: CAP_RETRY_AFTER_SECONDS, reason: 'concurrent_extractions', maxConcurrentRuns: cap },
          { 'retry-after': String(CAP_RETRY_AFTER_SECONDS) },
        );
      }
      try {
        await deps.jobs.enqueue(runExtractionJob, { extractionId: row.id }, { jobId: `extraction.run.${row.id}` });
      } catch (err) {
        await repo.deleteById(row.id);
        throw err;
      }
      return present(row, false);
    },

    async get(p: Principal, id: string, includeRejected: boolean): Promise<Extraction> {
      return present(await mustGet(p, id), includeRejected);
    },

    /** Removes the extraction and its candidates; staged copies best effort. Committed assets stay. */
    async remove(p: Principal, id: string): Promise<void> {
      const row = await mustGet(p, id);
      if (!(await repo.delete(p.org.id, row.id))) throw notFound(`Extraction ${id} not found`, 'EXTRACTION_NOT_FOUND');
      await removeStaged(stagingPrefix(row));
    },

    async commit(p: Principal, id: string, body: CommitBody): Promise<{ assets: CommittedAsset[] }> {
      const row = await mustGet(p, id);
      if (row.status !== 'completed') {
        throw conflict(
          `Extraction ${id} is ${row.status}; only a completed extraction can be committed`,
          'INVALID_STATUS_FOR_ACTION',
          {
            status: row.status,
          },
        );
      }
      const all = await repo.candidates(row.id, true);
      let targets: { c: CandidateRow; isLogo: boolean }[];
      if (!body.items) {
        targets = all.filter((c) => fromBool(c.kept)).map((c) => ({ c, isLogo: false }));
      } else {
        const byId = new Map(all.map((c) => [c.id, c]));
        const seen = new Set<string>();
        targets = body.items.map((item, i) => {
          const field = `body.items.${i}.candidateId`;
          const c = byId.get(item.candidateId.toLowerCase());
          if (!c) throw fieldError(field, 'is not a candidate of this extraction');
          if (seen.has(c.id)) throw fieldError(field, 'is listed more than once');
          seen.add(c.id);
          if (!c.staged_key && !c.committed_asset_id) {
            throw new AppError(
              422,
              'CANDIDATE_NOT_COMMITTABLE',
              `Candidate ${c.id} has no stored copy to commit (${c.rejection_reason ?? 'it could not be downloaded'})`,
              { candidateId: c.id, field, rejectionCode: c.rejection_code },
            );
          }
          return { c, isLogo: item.isLogo === true };
        });
        targets.sort((a, b) => a.c.rank - b.c.rank);
      }
      if (targets.some((t) => !t.c.committed_asset_id) && !(await repo.brandInOrg(p.org.id, row.brand_id))) {
        throw notFound(`Brand ${row.brand_id} not found`, 'BRAND_NOT_FOUND');
      }
      // Rule (b): one at a time in ranked order; the first failure answers, earlier ones stay.
      const assets: CommittedAsset[] = [];
      for (const t of targets) assets.push(await commitOne(p, row, t.c, t.isLogo, assets));
      return { assets };
    },

    /** The job handler: pending → processing → completed | failed. Idempotent; a rerun replaces the candidates. */
    async run(extractionId: string, ctx: { signal: AbortSignal; log: JobLogger }): Promise<void> {
      const row = await repo.getById(extractionId);
      if (!row || (row.status !== 'pending' && row.status !== 'processing')) return;
      const remaining = Date.parse(row.created_at) + timeoutMs - clock().getTime();
      if (remaining <= 0) {
        if (await repo.fail(row.id, 'EXTRACTION_TIMEOUT', timeoutMessage, now())) await changed(row.id);
        return;
      }
      const runId = randomUUID();
      const previousRun = row.run_id;
      if (!(await repo.startRun(row.id, runId, now()))) return;
      await publishChange(deps, 'extraction', row, 'processing');
      const prefix = `${stagingPrefix(row)}${runId}/`;
      const deadline = AbortSignal.timeout(remaining);
      const signal = AbortSignal.any([ctx.signal, deadline]);
      const checkpoint = async () => {
        if (!(await repo.ownsRun(row.id, runId))) throw new RunSuperseded();
      };
      try {
        const result =
          row.media === 'videos'
            ? { pageUrl: row.url, candidates: [], truncated: 0 }
            : await runPipeline(
                { url: row.url, purpose: row.purpose, stagingPrefix: prefix, signal, checkpoint },
                deps,
              );
        const t = now();
        const rows = result.candidates.map((c) => toRow(row.id, c, t));
        if (!(await repo.complete(row.id, runId, rows, { truncated: result.truncated, page_url: result.pageUrl }, t))) {
          throw new RunSuperseded();
        }
        await changed(row.id);
        if (previousRun) await removeStaged(`${stagingPrefix(row)}${previousRun}/`, ctx.log);
      } catch (err) {
        if (err instanceof PageError) {
          if (await repo.fail(row.id, err.code, err.message, now(), runId)) await changed(row.id);
        } else if (deadline.aborted && !ctx.signal.aborted) {
          if (await repo.fail(row.id, 'EXTRACTION_TIMEOUT', timeoutMessage, now(), runId)) await changed(row.id);
        } else if (!(err instanceof RunSuperseded)) {
          await removeStaged(prefix, ctx.log);
          throw err; // retried; onFailed marks the run failed after the last attempt
        }
        await removeStaged(prefix, ctx.log);
      }
    },

    /** onFailed of the run job: the last attempt failed unexpectedly. */
    async failRun(extractionId: string, timedOut: boolean): Promise<void> {
      const failed = timedOut
        ? await repo.fail(extractionId, 'EXTRACTION_TIMEOUT', timeoutMessage, now())
        : await repo.fail(
            extractionId,
            'EXTRACTION_FAILED',
            'The extraction failed unexpectedly; submit it again.',
            now(),
          );
      if (failed) await changed(extractionId);
    },

    /** Scheduled: runs still pending or processing past the timeout fail (a dead worker, a lost job). */
    async sweepStale(): Promise<number> {
      const failed = await repo.failStale(staleCutoff(), 'EXTRACTION_TIMEOUT', timeoutMessage, now());
      for (const r of failed) await publishChange(deps, 'extraction', r);
      return failed.length;
    },

    /**
     * Scheduled: extractions older than the retention go, with their staged copies; then whole
     * staging days past it are removed, which also catches copies a failed delete left behind.
     */
    async purgeExpired(log?: JobLogger, batch = 200): Promise<number> {
      const cutoffMs = clock().getTime() - RETENTION_DAYS * DAY_MS;
      const old = await repo.createdBefore(new Date(cutoffMs).toISOString(), batch);
      for (const r of old) {
        await repo.deleteById(r.id);
        await removeStaged(stagingPrefix(r), log);
      }
      for (let d = 1; d <= 3; d++) {
        await removeStaged(`staging/extractions/${stagingDay(new Date(cutoffMs - d * DAY_MS).toISOString())}/`, log);
      }
      return old.length;
    },
  };
}

export type ExtractionService = ReturnType<typeof createExtractionService>;

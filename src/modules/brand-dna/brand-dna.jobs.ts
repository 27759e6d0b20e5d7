import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Fetcher } from '../../adapters/fetch/fetcher.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { Clock } from '../../clock.ts';
import type { TextAnalyzer } from '../../engines/text/text-engine.ts';
import { defineJob, type JobDefinition, type JobLogger, type JobRef } from '../../jobs/types.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { AssetExtra } from '../assets/assets.presenter.ts';
import { type BrandDnaRepo, nextUpdatedAt, type SourceRow } from './brand-dna.repo.ts';
import { BrandDna, type SourceType } from './brand-dna.schemas.ts';
import { confidenceScore, missingFields } from './confidence.ts';
import {
  type AssetSource,
  type ExtractContext,
  extractAsset,
  extractUrl,
  SourceError,
  withStatedValues,
} from './extractors.ts';
import { mergeFindings, type SourceFindings } from './merge.ts';
import { buildPreview } from './preview.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

const ExtractPayload = Type.Object({
  versionId: Type.String({ format: 'uuid' }),
  runId: Type.String({ format: 'uuid' }),
});

/** One job per run of a version (create or rerun); its id is `brand-dna.extract.<versionId>.<runId>`. */
export const extractJobId = (versionId: string, runId: string) => `brand-dna.extract.${versionId}.${runId}`;
export const extractJob: JobRef<typeof ExtractPayload> = { name: 'brand-dna.extract', payload: ExtractPayload };

/** Sources of one version processed at once. */
export const SOURCE_CONCURRENCY = 3;
/** How often a running extraction checks that its version was not canceled or rerun. */
const WATCH_MS = 250;

const checkDna = Compile(BrandDna);

export interface BrandDnaJobDeps {
  repo: BrandDnaRepo;
  storage: Pick<ObjectStorage, 'put' | 'getStream' | 'deletePrefix'>;
  fetcher: Fetcher;
  analyzer: TextAnalyzer;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  clock: Clock;
  changes: ChangePublisher;
  /** Storage folder of a version's artifacts. */
  folder(orgId: string, versionId: string): string;
}

/** The run was canceled (version deleted) or superseded by a rerun. */
class RunStopped extends Error {
  constructor() {
    super('the Brand DNA run was canceled or replaced');
    this.name = 'RunStopped';
  }
}

async function readJson<T>(storage: Pick<ObjectStorage, 'getStream'>, key: string): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const c of await storage.getStream(key)) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

/** Runs `fn` over `items` with at most `limit` at once; rejects with the first error after all settle. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
  return out;
}

/**
 * The extraction workflow of one run: pending → extracting; each source (bounded concurrency)
 * queued → processing → completed (findings stored under the version's folder) or failed
 * (errorReason); then the findings are merged and the version becomes `ready` (usage committed),
 * or `failed` when no source yielded anything (usage released). A retry resumes: completed
 * sources are read back, not extracted again. A watcher stops the run as soon as the version is
 * canceled or rerun, and whatever the run wrote is removed.
 */
export function createExtractionRunner(deps: BrandDnaJobDeps) {
  const { repo } = deps;
  const touch = (prev: string) => nextUpdatedAt(deps.clock(), prev);
  const now = () => deps.clock().toISOString();

  async function processSource(
    s: SourceRow,
    versionId: string,
    orgId: string,
    runId: string,
    assets: Map<string, AssetSource>,
    ctxBase: Omit<ExtractContext, 'note'>,
  ): Promise<SourceFindings | undefined> {
    if (s.status === 'completed' && s.findings_key) return readJson<SourceFindings>(deps.storage, s.findings_key);
    if (s.status === 'failed') return undefined;
    const update = (patch: Partial<SourceRow>) =>
      repo.updateSource(versionId, runId, s.id, { ...patch, updated_at: now() }).then((ok) => {
        if (!ok) throw new RunStopped();
      });
    await update({ status: 'processing', progress_note: 'Starting', error_reason: null });
    const ctx: ExtractContext = { ...ctxBase, note: (text) => update({ progress_note: text }) };
    try {
      let findings: SourceFindings;
      if (s.type === 'url') {
        findings = (await extractUrl(s.id, s.url!, ctx)).findings;
      } else {
        const asset = s.asset_id ? assets.get(s.asset_id) : undefined;
        if (!asset) throw new SourceError('The asset no longer exists');
        findings = await extractAsset(s.id, s.type as SourceType, asset, ctx);
      }
      ctxBase.signal.throwIfAborted();
      const key = `${deps.folder(orgId, versionId)}${runId}/${s.id}.json`;
      await deps.storage.put(key, Buffer.from(JSON.stringify(findings)), { contentType: 'application/json' });
      await update({
        status: 'completed',
        progress_note: 'Done',
        findings_key: key,
        ...(findings.pageCount !== undefined ? { page_count: findings.pageCount } : {}),
      });
      return findings;
    } catch (err) {
      if (ctxBase.signal.aborted) throw ctxBase.signal.reason ?? err;
      if (!(err instanceof SourceError)) throw err;
      await update({ status: 'failed', progress_note: null, error_reason: err.message.slice(0, 500) });
      return undefined;
    }
  }

  return {
    async run(versionId: string, runId: string, jobSignal: AbortSignal, log: JobLogger): Promise<void> {
      const version = await repo.versionById(versionId);
      if (!version || version.run_id !== runId) return; // canceled or rerun before it started
      if (version.status !== 'pending' && version.status !== 'extracting') return; // finished by an earlier run
      const extracting = await repo.transition(versionId, runId, ['pending'], (row) => ({
        status: 'extracting',
        updated_at: touch(row.updated_at),
      }));
      if (extracting) await publishChange(deps, 'brand_dna_version', extracting);

      const stop = new AbortController();
      let checking = false;
      const watcher = setInterval(() => {
        if (checking || stop.signal.aborted) return;
        checking = true;
        repo
          .runIsCurrent(versionId, runId)
          .then((current) => {
            if (!current) stop.abort(new RunStopped());
          })
          .catch(() => undefined)
          .finally(() => {
            checking = false;
          });
      }, WATCH_MS);
      const signal = AbortSignal.any([jobSignal, stop.signal]);
      const orgId = version.organization_id;
      try {
        const sources = await repo.sourcesOf(versionId);
        const assetRows = await repo.assetsIn(
          orgId,
          sources.flatMap((s) => (s.asset_id ? [s.asset_id] : [])),
        );
        const assets = new Map(
          assetRows.map((a) => [
            a.id,
            {
              assetId: a.id,
              type: a.type,
              detectedFormat: a.detected_format,
              storageKey: a.storage_key,
              fileName: a.file_name,
              description: a.description,
              tags: fromJson<string[]>(a.tags, []),
              extra: fromJson<AssetExtra>(a.extra, {}),
            } satisfies AssetSource,
          ]),
        );
        const brand = await repo.brandFacts(version.brand_id);
        const brandName = brand?.name;
        const ctxBase = {
          fetcher: deps.fetcher,
          storage: deps.storage,
          analyzer: deps.analyzer,
          signal,
          ...(brandName ? { brandName } : {}),
        };
        const results = await mapLimit(sources, SOURCE_CONCURRENCY, (s) =>
          processSource(s, versionId, orgId, runId, assets, ctxBase),
        );
        signal.throwIfAborted();
        const found = results.filter((r): r is SourceFindings => r !== undefined);
        const types = sources.map((s) => s.type);
        if (found.length === 0) {
          const failed = await repo.transition(versionId, runId, ['pending', 'extracting'], (row) => ({
            status: 'failed',
            preview: toJson(buildPreview(null, types)),
            updated_at: touch(row.updated_at),
          }));
          if (!failed) throw new RunStopped();
          if (failed.reservation_id) await deps.usage.release(failed.reservation_id);
          await publishChange(deps, 'brand_dna_version', failed);
          return;
        }
        // The brand's own fields are a text source too (provenance `brand`, no entry in `sources`).
        const descriptionBlocks = [{ kind: 'description' as const, text: brand?.description ?? '' }];
        const described = brand?.description.trim()
          ? withStatedValues(
              await deps.analyzer.analyze(
                { ...(brandName ? { brandName } : {}), blocks: descriptionBlocks },
                { signal },
              ),
              descriptionBlocks,
            )
          : undefined;
        signal.throwIfAborted();
        const { dna, evidence } = mergeFindings(found, brand ? { brand: { ...brand, described } } : {});
        if (!checkDna.Check(dna)) {
          const first = [...checkDna.Errors(dna)][0];
          throw new Error(`merged Brand DNA does not match its schema: ${first?.instancePath} ${first?.message}`);
        }
        const ready = await repo.transition(versionId, runId, ['pending', 'extracting'], (row) => ({
          status: 'ready',
          dna: toJson(dna),
          preview: toJson(buildPreview(dna, types)),
          confidence_score: confidenceScore(dna, evidence, { total: sources.length, succeeded: found.length }),
          missing_fields: toJson(missingFields(dna)),
          updated_at: touch(row.updated_at),
        }));
        if (!ready) throw new RunStopped();
        if (ready.reservation_id) await deps.usage.commit(ready.reservation_id);
        await publishChange(deps, 'brand_dna_version', ready);
      } catch (err) {
        if (!stop.signal.aborted && !(err instanceof RunStopped)) throw err;
        // Canceled or superseded: stop quietly and remove what this run may have written after
        // the cancel cleaned up (a rerun's new run keeps its own folder).
        log.info({ versionId, runId }, 'brand DNA run stopped: the version was canceled or rerun');
        await deps.storage.deletePrefix(`${deps.folder(orgId, versionId)}${runId}/`).catch(() => undefined);
      } finally {
        clearInterval(watcher);
      }
    },

    /** After the last attempt: the run fails, its unfinished sources say why, its unit is released. */
    async fail(versionId: string, runId: string, reason: string): Promise<void> {
      const failed = await repo.transition(versionId, runId, ['pending', 'extracting'], (row) => ({
        status: 'failed',
        updated_at: touch(row.updated_at),
      }));
      if (!failed) return;
      for (const s of await repo.sourcesOf(versionId)) {
        if (s.status === 'queued' || s.status === 'processing') {
          await repo.updateSource(versionId, runId, s.id, {
            status: 'failed',
            progress_note: null,
            error_reason: reason,
            updated_at: now(),
          });
        }
      }
      if (failed.reservation_id) await deps.usage.release(failed.reservation_id);
      await publishChange(deps, 'brand_dna_version', failed);
    },
  };
}

export function brandDnaJobs(deps: BrandDnaJobDeps): JobDefinition[] {
  const runner = createExtractionRunner(deps);
  return [
    defineJob({
      ...extractJob,
      queue: 'brand-dna',
      attempts: 2,
      backoffMs: 5000,
      timeoutMs: 15 * 60_000,
      async handler({ versionId, runId }, ctx) {
        await runner.run(versionId, runId, ctx.signal, ctx.log);
      },
      async onFailed({ versionId, runId }, error, ctx) {
        ctx.log.error({ versionId, err: error.message }, 'brand DNA extraction failed after retries');
        await runner.fail(versionId, runId, 'The extraction stopped unexpectedly; run it again');
      },
    }),
  ];
}

/** The brand's assets: drag-and-drop upload with per-file progress, the grid, delete. */
import { useRef, useState } from 'preact/hooks';
import type { Asset } from '../../../sdk/src/index.ts';
import { api, deletes } from '../api.ts';
import { formatBytes } from '../format.ts';
import { pollUntil } from '../poll.ts';
import { ACCEPT, fileTypeOf, putWithProgress, type UploadItem, uploadProblem } from '../upload.ts';
import { Badge, ConfirmButton, Empty, ErrorBox, Loading, notify, ProgressBar, StatusBadge } from '../ui.tsx';
import type { BrandAssets } from './brand-assets.ts';

const DONE = new Set(['complete', 'failed', 'canceled']);

/** Uploads of a brand: each file's row (progress, processing, its error), and the uploader. */
export function useUploads(brandId: string, assets: BrandAssets) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const patch = (key: string, p: Partial<UploadItem>) =>
    setItems((list) => list.map((i) => (i.key === key ? { ...i, ...p } : i)));

  const upload = async (picked: File[], asLogo = false) => {
    if (picked.length === 0) return;
    // Files the API would refuse are refused here, each on its own row, without failing the others.
    const refused = picked.flatMap((f, n) => {
      const problem = uploadProblem(f);
      return problem
        ? [
            {
              key: `${Date.now()}-x${n}-${f.name}`,
              name: f.name,
              size: f.size,
              stage: 'failed' as const,
              progress: 0,
              error: new Error(problem),
            },
          ]
        : [];
    });
    const files = picked.filter((f) => !uploadProblem(f));
    if (refused.length) setItems((list) => [...refused, ...list]);
    if (files.length === 0) return;
    const batch = files.map((f, n) => ({
      key: `${Date.now()}-${n}-${f.name}`,
      name: f.name,
      size: f.size,
      stage: 'queued' as const,
      progress: 0,
    }));
    setItems((list) => [...batch, ...list]);
    let slots: Awaited<ReturnType<typeof api.assets.initiateUpload>>['uploads'];
    try {
      ({ uploads: slots } = await api.assets.initiateUpload({
        brandId,
        files: files.map((f) => ({ fileName: f.name, fileType: fileTypeOf(f), fileSize: f.size, isLogo: asLogo })),
      }));
    } catch (err) {
      for (const b of batch) patch(b.key, { stage: 'failed', error: err });
      return;
    }
    await Promise.all(
      files.map(async (file, n) => {
        const item = batch[n]!;
        const slot = slots[n];
        if (!slot) return patch(item.key, { stage: 'failed', error: 'No upload link for this file' });
        try {
          patch(item.key, { stage: 'uploading' });
          await putWithProgress(slot, file, { onProgress: (p) => patch(item.key, { progress: p }) });
          const confirmed = await api.assets.confirmUpload({ uploadId: slot.uploadId });
          patch(item.key, { stage: 'processing', asset: confirmed });
          assets.add(confirmed);
          const done = await pollUntil({
            read: (o) => api.assets.get(confirmed.id, o),
            done: (a) => DONE.has(a.status),
            signal: new AbortController().signal,
          });
          assets.add(done);
          patch(item.key, {
            stage: done.status === 'complete' ? 'complete' : 'failed',
            asset: done,
            ...(done.status !== 'complete'
              ? { error: new Error(done.errorMessage ?? 'The file could not be processed.') }
              : {}),
          });
        } catch (err) {
          patch(item.key, { stage: 'failed', error: err });
        }
        assets.reload();
      }),
    );
    notify(files.length === 1 ? 'Upload finished' : `${files.length} uploads finished`);
  };

  return { items, upload };
}

export type Uploads = ReturnType<typeof useUploads>;

/** A sample product photo shipped with the console (samples/), as a File to upload. */
export async function sampleFile(name: string): Promise<File> {
  const res = await fetch(new URL(`samples/${name}`, location.href.split('#')[0]));
  if (!res.ok) throw new Error('The sample photo could not be loaded.');
  return new File([await res.blob()], name, { type: 'image/png' });
}

export function AssetsTab({ assets, uploads }: { assets: BrandAssets; uploads: Uploads }) {
  const { items } = uploads;
  const upload = (files: File[]) => uploads.upload(files, asLogo);
  const [asLogo, setAsLogo] = useState(false);
  const [over, setOver] = useState(false);
  const [filter, setFilter] = useState('');
  const input = useRef<HTMLInputElement>(null);

  const shown = assets.assets.filter((a) => !filter || a.metadata.type === filter);
  const types = [...new Set(assets.assets.map((a) => a.metadata.type))].sort();
  return (
    <div>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target; keyboard users take the "choose files" button */}
      <div
        class={`dropzone${over ? ' over' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void upload([...(e.dataTransfer?.files ?? [])]);
        }}
      >
        <p>
          <strong>Drop files here</strong> or{' '}
          <button type="button" class="linklike" onClick={() => input.current?.click()}>
            choose files
          </button>
        </p>
        <p class="hint">JPEG, PNG, GIF or TIFF images, MP4 or MOV videos, PDF or Word documents, fonts.</p>
        <label class="sr-only" for="asset-files">
          Files to upload
        </label>
        <input
          id="asset-files"
          ref={input}
          type="file"
          multiple
          accept={ACCEPT}
          class="sr-only"
          data-testid="asset-file-input"
          onChange={(e) => {
            const files = [...(e.currentTarget.files ?? [])];
            e.currentTarget.value = '';
            void upload(files);
          }}
        />
        <label class="check">
          <input type="checkbox" checked={asLogo} onChange={(e) => setAsLogo(e.currentTarget.checked)} /> Upload as logo
        </label>
      </div>
      {items.length > 0 ? (
        <ul class="uploads" aria-label="Uploads" data-testid="uploads">
          {items.map((i) => (
            <li key={i.key} class="upload" data-testid="upload-item" data-stage={i.stage}>
              <span class="upload-name">{i.name}</span>
              <span class="muted">{formatBytes(i.size)}</span>
              <ProgressBar
                label={`Upload of ${i.name}`}
                value={i.stage === 'processing' ? undefined : i.stage === 'complete' ? 1 : i.progress}
              />
              <span class="upload-stage">{i.stage === 'uploading' ? `${Math.round(i.progress * 100)}%` : i.stage}</span>
              {i.error ? (
                <div class="upload-error">
                  <ErrorBox error={i.error} testid="upload-error" />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}

      <div class="section-head">
        <h2>Assets</h2>
        {types.length > 1 ? (
          <label class="inline">
            Type{' '}
            <select value={filter} onChange={(e) => setFilter(e.currentTarget.value)} data-testid="asset-filter">
              <option value="">All</option>
              {types.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      {assets.loading && assets.assets.length === 0 ? <Loading /> : null}
      <ErrorBox error={assets.error} />
      {!assets.loading && assets.assets.length === 0 ? <Empty>No assets yet: upload some above.</Empty> : null}
      <ul class="grid" data-testid="assets-grid">
        {shown.map((a) => (
          <AssetCard
            key={a.id}
            asset={a}
            onDeleted={() => {
              assets.remove(a.id);
              assets.reload();
            }}
          />
        ))}
      </ul>
    </div>
  );
}

export function Thumb({ asset, alt }: { asset: Pick<Asset, 'thumbnailUrl' | 'url' | 'metadata'>; alt: string }) {
  const src = asset.thumbnailUrl ?? (asset.metadata.fileType.startsWith('image/') ? asset.url : undefined);
  if (src) return <img src={src} alt={alt} loading="lazy" class="thumb" />;
  return (
    <div class="thumb thumb-placeholder" aria-hidden="true">
      {asset.metadata.type}
    </div>
  );
}

function AssetCard({ asset, onDeleted }: { asset: Asset; onDeleted: () => void }) {
  const name = asset.metadata.fileName;
  return (
    <li class="card asset-card" data-testid="asset-card" data-asset-id={asset.id} data-status={asset.status}>
      {asset.metadata.type === 'video' && asset.url ? (
        // biome-ignore lint/a11y/useMediaCaption: uploaded videos come without caption tracks
        <video class="thumb" src={asset.url} controls preload="metadata" aria-label={name} />
      ) : (
        <Thumb asset={asset} alt={asset.metadata.description ?? name} />
      )}
      <div class="asset-meta">
        <span class="asset-name" title={name}>
          {name}
        </span>
        <span class="chips">
          <Badge>{asset.metadata.type}</Badge>
          <StatusBadge status={asset.status} />
        </span>
        {asset.assetQualityTags.length > 0 ? (
          <ul class="quality" aria-label="Quality" data-testid="quality-tags">
            {asset.assetQualityTags.map((q) => (
              <li key={q.reasonCode} title={q.recommendation}>
                <Badge tone={q.level === 'critical' ? 'bad' : q.level === 'warning' ? 'warn' : 'info'}>{q.level}</Badge>{' '}
                {q.reason}
              </li>
            ))}
          </ul>
        ) : null}
        {asset.errorMessage ? <p class="upload-error">{asset.errorMessage}</p> : null}
        <div class="card-actions">
          {asset.url ? (
            <a class="btn btn-ghost" href={asset.url} download={name} target="_blank" rel="noopener">
              Download
            </a>
          ) : null}
          <ConfirmButton
            variant="ghost"
            label="Delete"
            ariaLabel={`Delete ${name}`}
            title={`Delete ${name}?`}
            message={<p>The file is removed from the brand. Creative already generated from it stays.</p>}
            testid="asset-delete"
            onConfirm={async () => {
              await deletes.asset(asset.id);
              notify(`${name} deleted`);
              onDeleted();
            }}
          />
        </div>
      </div>
    </li>
  );
}

/** URL extraction: submit a page, follow the run, keep candidates (with a logo flag), commit. */
import { useState } from 'preact/hooks';
import type { Extraction } from '../../../sdk/src/index.ts';
import { api } from '../api.ts';
import { useAction, useFollow } from '../hooks.ts';
import { type ImportPick, mergePicks } from '../lists.ts';
import { Badge, Button, Empty, ErrorBox, FailureNote, Field, Loading, notify, StatusBadge } from '../ui.tsx';

const running = (x?: Extraction) => !!x && (x.status === 'pending' || x.status === 'processing');

export function ExtractTab({ brandId, onCommitted }: { brandId: string; onCommitted: () => void }) {
  const [url, setUrl] = useState('');
  const [purpose, setPurpose] = useState('');
  const [run, setRun] = useState<Extraction | undefined>(undefined);
  const [picks, setPicks] = useState<Record<string, ImportPick>>({});
  const start = useAction();
  const commit = useAction();

  useFollow(
    run?.extractionId,
    running(run),
    (o) => api.extractions.get(run!.extractionId, {}, o),
    (x) => !running(x),
    (x) => {
      setRun(x);
      // The API's `kept` holds until the person changes a pick (a pick made while the run was
      // still ranking no longer outlives the API's final word).
      if (x.candidates) setPicks((old) => mergePicks(old, x.candidates!));
    },
  );

  const chosen = Object.entries(picks).filter(([id, p]) => {
    const c = run?.candidates?.find((x) => x.candidateId === id);
    return p.keep && c && !c.committedAssetId;
  });

  return (
    <div>
      <form
        class="card form-card"
        data-testid="extract-form"
        onSubmit={async (e) => {
          e.preventDefault();
          const x = await start.run(() =>
            api.extractions.create({
              url: url.trim(),
              brandId,
              ...(purpose.trim() ? { purpose: purpose.trim() } : {}),
            }),
          );
          if (x) {
            setPicks({});
            setRun(x);
          }
        }}
      >
        <h2>Import images from a web page</h2>
        <div class="grid-2">
          <Field label="Page URL">
            {(id) => (
              <input
                id={id}
                type="url"
                required
                placeholder="https://example.com/products/cap"
                value={url}
                onInput={(e) => setUrl(e.currentTarget.value)}
                data-testid="extract-url"
              />
            )}
          </Field>
          <Field label="Looking for (optional)" hint="product, packshot, lifestyle, logo, hero…">
            {(id, hint) => (
              <input
                id={id}
                aria-describedby={hint}
                value={purpose}
                onInput={(e) => setPurpose(e.currentTarget.value)}
                data-testid="extract-purpose"
              />
            )}
          </Field>
        </div>
        <ErrorBox error={start.error} />
        <div class="actions">
          <Button type="submit" variant="primary" busy={start.busy || running(run)} data-testid="extract-submit">
            Find images
          </Button>
        </div>
      </form>

      {run ? (
        <section class="section" data-testid="extraction" data-status={run.status}>
          <div class="section-head">
            <h2>
              Candidates from <span class="url">{run.url}</span>
            </h2>
            <StatusBadge status={run.status} />
          </div>
          {running(run) ? <Loading label="Reading the page…" /> : null}
          {run.status === 'failed' ? (
            <FailureNote
              message={run.errorMessage}
              code={run.errorCode}
              fallback="The page could not be read."
              testid="extraction-error"
            />
          ) : null}
          {run.status === 'completed' && (run.candidates?.length ?? 0) === 0 ? (
            <Empty>No usable images were found on that page.</Empty>
          ) : null}
          <ul class="grid" data-testid="candidates">
            {(run.candidates ?? []).map((c) => {
              const p = picks[c.candidateId] ?? { keep: c.kept, logo: false };
              const set = (q: Partial<ImportPick>) =>
                setPicks((old) => ({ ...old, [c.candidateId]: { ...p, ...q, touched: true } }));
              const label = `Candidate ${c.rank}`;
              return (
                <li
                  key={c.candidateId}
                  class="card asset-card"
                  data-testid="candidate"
                  data-candidate-id={c.candidateId}
                  data-kept={String(c.kept)}
                >
                  {c.previewUrl ? (
                    <img src={c.previewUrl} alt={`${label}: ${c.relevanceReason}`} class="thumb" loading="lazy" />
                  ) : (
                    <div class="thumb thumb-placeholder" aria-hidden="true">
                      image
                    </div>
                  )}
                  <div class="asset-meta">
                    <span class="chips">
                      <Badge>#{c.rank}</Badge>
                      <Badge tone="info">{Math.round(c.relevanceScore * 100)}% match</Badge>
                      {c.width && c.height ? (
                        <span class="muted">
                          {c.width}×{c.height}
                        </span>
                      ) : null}
                      {c.looksLikeLogo ? <Badge tone="warn">looks like a logo</Badge> : null}
                    </span>
                    <p class="small">{c.relevanceReason}</p>
                    {c.committedAssetId ? (
                      <Badge tone="ok">added to assets</Badge>
                    ) : (
                      <div class="checks">
                        <label class="check">
                          <input
                            type="checkbox"
                            checked={p.keep}
                            onChange={(e) => set({ keep: e.currentTarget.checked })}
                            data-testid="candidate-keep"
                            aria-label={`Keep ${label}`}
                          />
                          Keep
                        </label>
                        <label class="check">
                          <input
                            type="checkbox"
                            checked={p.logo}
                            onChange={(e) =>
                              set({ logo: e.currentTarget.checked, ...(e.currentTarget.checked ? { keep: true } : {}) })
                            }
                            data-testid="candidate-logo"
                            aria-label={`${label} is a logo`}
                          />
                          Logo
                        </label>
                      </div>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
          {run.status === 'completed' && (run.candidates?.length ?? 0) > 0 ? (
            <div class="sticky-actions">
              <ErrorBox error={commit.error} />
              <Button
                variant="primary"
                busy={commit.busy}
                disabled={chosen.length === 0}
                data-testid="extract-commit"
                onClick={async () => {
                  const r = await commit.run(() =>
                    api.extractions.commit(run.extractionId, {
                      items: chosen.map(([candidateId, p]) => ({ candidateId, ...(p.logo ? { isLogo: true } : {}) })),
                    }),
                  );
                  if (!r) return;
                  notify(`${r.assets.length} asset${r.assets.length === 1 ? '' : 's'} added`);
                  onCommitted();
                  const fresh = await api.extractions.get(run.extractionId).catch(() => undefined);
                  if (fresh) setRun(fresh);
                }}
              >
                {chosen.length === 0 ? 'Tick Keep to add images' : `Add ${chosen.length} to assets`}
              </Button>
            </div>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

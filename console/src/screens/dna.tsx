/** Brand DNA: versions, create from assets/URLs, view (palette, fonts, tone, values), edit, activate, rerun, delete. */
import { useEffect, useState } from 'preact/hooks';
import type { Asset, BrandDna, BrandDnaVersion, BrandDnaVersionSummary } from '../../../sdk/src/index.ts';
import { api } from '../api.ts';
import { dnaFieldLabel, formatDate, percent, splitList, textOn } from '../format.ts';
import { useAction, useAsync, useFollow } from '../hooks.ts';
import { Badge, Button, ConfirmButton, Empty, ErrorBox, Field, Loading, notify, StatusBadge } from '../ui.tsx';
import { dnaSources } from '../lists.ts';
import { refreshUsage, useFeature } from '../usage.ts';
import type { BrandAssets } from './brand-assets.ts';
import { PlanLocked } from './plan-locked.tsx';

const busy = (s: string) => s === 'pending' || s === 'extracting';

export function DnaTab({ brandId, assets }: { brandId: string; assets: BrandAssets }) {
  const gate = useFeature('brand_dna');
  if (gate.allowed === undefined) return <Loading />;
  if (!gate.allowed) {
    return (
      <PlanLocked gate={gate}>
        <p>
          Brand DNA reads your pictures, logos, fonts and web pages and distills the brand’s palette, typography, tone
          and values, so every scene and video stays on brand.
        </p>
      </PlanLocked>
    );
  }
  return <DnaVersions brandId={brandId} assets={assets} />;
}

function DnaVersions({ brandId, assets }: { brandId: string; assets: BrandAssets }) {
  const versions = useAsync((signal) => api.brandDna.list(brandId, { signal }), [brandId]);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const list = versions.data ?? [];
  const current = selected ?? list.find((v) => v.isActive)?.versionId ?? list[0]?.versionId;
  return (
    <div>
      <CreateDna
        brandId={brandId}
        assets={assets.assets}
        onCreated={(v) => {
          versions.reload();
          setSelected(v.versionId);
        }}
      />
      <div class="dna-layout">
        <section class="section" aria-labelledby="dna-versions">
          <h2 id="dna-versions">Versions</h2>
          {versions.loading && !versions.data ? <Loading /> : null}
          <ErrorBox error={versions.error} />
          {versions.data && list.length === 0 ? (
            <Empty>No Brand DNA yet: extract one from assets or pages.</Empty>
          ) : null}
          <ul class="versions" data-testid="dna-versions">
            {list.map((v) => (
              <VersionItem
                key={v.versionId}
                v={v}
                current={v.versionId === current}
                onSelect={() => setSelected(v.versionId)}
              />
            ))}
          </ul>
        </section>
        {current ? (
          <VersionDetail
            key={current}
            brandId={brandId}
            versionId={current}
            assets={assets.assets}
            onChanged={versions.reload}
            onDeleted={() => {
              setSelected(undefined);
              versions.reload();
            }}
          />
        ) : null}
      </div>
    </div>
  );
}

function VersionItem({ v, current, onSelect }: { v: BrandDnaVersionSummary; current: boolean; onSelect: () => void }) {
  return (
    <li>
      <button
        type="button"
        class={`version${current ? ' selected' : ''}`}
        aria-pressed={current ? 'true' : 'false'}
        onClick={onSelect}
        data-testid="dna-version"
        data-version-id={v.versionId}
        data-status={v.status}
      >
        <span class="version-title">
          v{v.versionNumber}
          {v.name ? ` · ${v.name}` : ''} {v.isActive ? <Badge tone="ok">active</Badge> : null}{' '}
          <StatusBadge status={v.status} />
        </span>
        <span class="swatches small-swatches" aria-hidden="true">
          {v.preview.colorHexes.slice(0, 6).map((h) => (
            <span key={h} class="swatch-dot" style={{ background: h }} />
          ))}
        </span>
        <span class="muted small">
          {[v.preview.typographyShort, v.preview.toneShort].filter(Boolean).join(' · ') || formatDate(v.createdAt)}
        </span>
      </button>
    </li>
  );
}

function CreateDna(props: { brandId: string; assets: Asset[]; onCreated: (v: BrandDnaVersionSummary) => void }) {
  const [withGenerated, setWithGenerated] = useState(false);
  // The brand's own files only, unless asked: DNA learnt from its own output drifts.
  const usable = dnaSources(props.assets, withGenerated);
  const generated = dnaSources(props.assets, true).length - dnaSources(props.assets, false).length;
  const [name, setName] = useState('');
  const [ids, setIds] = useState<string[]>([]);
  const [urls, setUrls] = useState('');
  const { busy: creating, error, run } = useAction();
  return (
    <details class="card form-card">
      <summary data-testid="dna-new">Extract a new Brand DNA version</summary>
      <form
        data-testid="dna-form"
        onSubmit={async (e) => {
          e.preventDefault();
          const v = await run(() =>
            api.brandDna.create(props.brandId, {
              ...(name.trim() ? { name: name.trim() } : {}),
              assetIds: ids,
              urls: splitList(urls),
            }),
          );
          if (v) {
            void refreshUsage();
            notify('Brand DNA extraction started');
            setName('');
            setIds([]);
            setUrls('');
            props.onCreated(v);
          }
        }}
      >
        <Field label="Name (optional)">
          {(id) => (
            <input id={id} value={name} onInput={(e) => setName(e.currentTarget.value)} data-testid="dna-name" />
          )}
        </Field>
        <fieldset class="field">
          <legend>Assets to read</legend>
          {usable.length === 0 ? <p class="hint">No complete assets yet.</p> : null}
          <div class="checks columns">
            {usable.map((a) => (
              <label key={a.id} class="check">
                <input
                  type="checkbox"
                  checked={ids.includes(a.id)}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setIds((x) => (on ? [...x, a.id] : x.filter((y) => y !== a.id)));
                  }}
                  data-testid="dna-asset"
                  data-asset-id={a.id}
                />
                <span class="check-text">
                  {a.metadata.fileName} <span class="muted">({a.metadata.type})</span>
                </span>
              </label>
            ))}
          </div>
          {generated > 0 ? (
            <label class="check include-generated">
              <input
                type="checkbox"
                checked={withGenerated}
                onChange={(e) => setWithGenerated(e.currentTarget.checked)}
                data-testid="dna-include-generated"
              />
              Also offer generated pictures ({generated}): scenes and environments made here
            </label>
          ) : null}
        </fieldset>
        <Field label="Web pages" hint="One URL per line.">
          {(id, hint) => (
            <textarea
              id={id}
              rows={2}
              aria-describedby={hint}
              value={urls}
              onInput={(e) => setUrls(e.currentTarget.value)}
              data-testid="dna-urls"
            />
          )}
        </Field>
        <ErrorBox error={error} />
        <div class="actions">
          <Button
            type="submit"
            variant="primary"
            busy={creating}
            disabled={ids.length === 0 && !urls.trim()}
            data-testid="dna-create"
          >
            Extract Brand DNA
          </Button>
        </div>
      </form>
    </details>
  );
}

/** Loads the brand's font files so font names can be shown in their own typeface. */
function useBrandFonts(assets: Asset[]) {
  useEffect(() => {
    if (typeof FontFace === 'undefined') return;
    for (const a of assets) {
      const family = a.metadata.fontFamily;
      if (a.metadata.type !== 'font' || !family || !a.url || a.status !== 'complete') continue;
      const face = new FontFace(family, `url(${JSON.stringify(a.url)})`);
      face.load().then(
        (f) => document.fonts.add(f),
        () => {},
      );
    }
  }, [assets]);
}

function VersionDetail(props: {
  brandId: string;
  versionId: string;
  assets: Asset[];
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const state = useAsync((signal) => api.brandDna.get(props.brandId, props.versionId, { signal }), [props.versionId]);
  const [editing, setEditing] = useState(false);
  const act = useAction();
  const v = state.data;
  useBrandFonts(props.assets);
  useFollow(
    v ? `${v.versionId}@${v.status}` : undefined,
    !!v && busy(v.status),
    (o) => api.brandDna.get(props.brandId, props.versionId, o),
    (x) => !busy(x.status),
    (x) => {
      state.setData(() => x);
      if (!busy(x.status)) props.onChanged();
    },
  );
  if (!v) return <section class="section">{state.loading ? <Loading /> : <ErrorBox error={state.error} />}</section>;
  const dna = v.dna;
  return (
    <section
      class="section card dna-detail"
      aria-labelledby="dna-title"
      data-testid="dna-detail"
      data-status={v.status}
    >
      <div class="section-head">
        <h2 id="dna-title">
          Version {v.versionNumber}
          {v.name ? ` · ${v.name}` : ''}
        </h2>
        <span class="chips">
          {v.isActive ? <Badge tone="ok">active</Badge> : null}
          <StatusBadge status={v.status} />
          {v.status === 'ready' ? <Badge tone="info">confidence {percent(v.confidenceScore)}</Badge> : null}
        </span>
      </div>
      <div class="row">
        {!v.isActive && v.status === 'ready' ? (
          <Button
            variant="primary"
            busy={act.busy}
            data-testid="dna-activate"
            onClick={async () => {
              const r = await act.run(() => api.brandDna.activate(props.brandId, v.versionId));
              if (r) {
                notify(`Version ${v.versionNumber} is now active`);
                state.reload();
                props.onChanged();
              }
            }}
          >
            Activate
          </Button>
        ) : null}
        {v.status === 'ready' && dna ? (
          <Button
            onClick={() => setEditing(!editing)}
            aria-expanded={editing ? 'true' : 'false'}
            data-testid="dna-edit"
          >
            {editing ? 'Close editor' : 'Edit'}
          </Button>
        ) : null}
        {!busy(v.status) ? (
          <Button
            busy={act.busy}
            data-testid="dna-rerun"
            onClick={async () => {
              const assetIds = v.sources.flatMap((s) => (s.assetId ? [s.assetId] : []));
              const urls = v.sources.flatMap((s) => (s.url && !s.assetId ? [s.url] : []));
              const r = await act.run(() => api.brandDna.rerun(props.brandId, v.versionId, { assetIds, urls }));
              if (r) {
                notify('Extraction running again');
                state.reload();
                props.onChanged();
              }
            }}
          >
            Rerun
          </Button>
        ) : null}
        <ConfirmButton
          label="Delete"
          title={`Delete version ${v.versionNumber}?`}
          message={<p>This Brand DNA version is deleted. This cannot be undone.</p>}
          testid="dna-delete"
          onConfirm={async () => {
            await api.brandDna.delete(props.brandId, v.versionId);
            notify('Version deleted');
            props.onDeleted();
          }}
        />
      </div>
      <ErrorBox error={act.error} />
      {busy(v.status) ? (
        <div>
          <Loading label="Extracting…" />
          <ul class="small">
            {v.sources.map((s) => (
              <li key={s.id}>
                {s.label} <StatusBadge status={s.status} /> {s.progressNote ?? ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {v.status === 'failed' ? (
        <p class="alert alert-error">
          {v.sources
            .map((s) => s.errorReason)
            .filter(Boolean)
            .join('; ') || 'The extraction failed.'}
        </p>
      ) : null}
      {editing && dna ? (
        <DnaEditor
          brandId={props.brandId}
          version={v}
          dna={dna}
          onSaved={() => {
            state.reload();
            setEditing(false);
            props.onChanged();
          }}
        />
      ) : null}
      {dna ? <DnaView dna={dna} /> : null}
      {v.missingFields.length ? (
        <p class="hint" data-testid="dna-missing">
          Not found in the sources: {[...new Set(v.missingFields.map(dnaFieldLabel))].join(', ')}.
        </p>
      ) : null}
    </section>
  );
}

function DnaView({ dna }: { dna: BrandDna }) {
  const { identity, voice, visual } = dna;
  const fonts = [
    ['Headings', visual.typography.heading],
    ['Body', visual.typography.body],
  ] as const;
  return (
    <div class="dna-view">
      {identity.tagline?.value ? <p class="tagline">“{identity.tagline.value}”</p> : null}
      {identity.mission?.value ? <p>{identity.mission.value}</p> : null}
      <h3>Palette</h3>
      {visual.palette.length === 0 ? <p class="hint">No colours found.</p> : null}
      <ul class="swatches" data-testid="dna-palette">
        {visual.palette.map((c) => (
          <li key={c.hex + c.role} class="swatch" style={{ background: c.hex, color: textOn(c.hex) }}>
            <span class="swatch-hex">{c.hex}</span>
            <span class="swatch-role">
              {c.role}
              {c.name ? ` · ${c.name}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {visual.typography.heading || visual.typography.body ? <h3>Typography</h3> : null}
      <dl class="fonts" data-testid="dna-fonts">
        {fonts.map(([label, f]) =>
          f ? (
            <div key={label}>
              <dt>{label}</dt>
              <dd
                style={{ fontFamily: [JSON.stringify(f.family), ...f.fallbacks, 'sans-serif'].join(', ') }}
                class="font-sample"
              >
                {f.family}
                {f.weights.length ? <span class="muted small"> {f.weights.join(', ')}</span> : null}
              </dd>
            </div>
          ) : null,
        )}
      </dl>
      {voice.tone.length ? <h3>Tone</h3> : null}
      <ul class="tone-bars">
        {voice.tone.map((t) => (
          <li key={t.tone}>
            <span>{t.tone}</span>
            <span class="meter-bar" aria-hidden="true">
              <span style={{ width: percent(t.weight) }} />
            </span>
            <span class="muted small">{percent(t.weight)}</span>
          </li>
        ))}
      </ul>
      {voice.descriptors.length ? (
        <p>
          Voice: {voice.descriptors.map((d) => d.value).join(', ')}
          {voice.formality ? ` · ${voice.formality.level}` : ''}
        </p>
      ) : null}
      <h3>Values</h3>
      <div class="chips" data-testid="dna-values">
        {identity.values.length === 0 ? <span class="hint">None found.</span> : null}
        {identity.values.map((x) => (
          <Badge key={x.value}>{x.value}</Badge>
        ))}
      </div>
      {voice.words_to_use.length || voice.words_to_avoid.length ? (
        <div class="grid-2">
          <div>
            <h3>Words to use</h3>
            <p>{voice.words_to_use.map((w) => w.value).join(', ') || '—'}</p>
          </div>
          <div>
            <h3>Words to avoid</h3>
            <p>{voice.words_to_avoid.map((w) => w.value).join(', ') || '—'}</p>
          </div>
        </div>
      ) : null}
      {visual.imagery.style.length ? <p>Imagery: {visual.imagery.style.join(', ')}</p> : null}
    </div>
  );
}

const manual = (value: string) => ({ value, sources: ['manual'] });

function DnaEditor(props: { brandId: string; version: BrandDnaVersion; dna: BrandDna; onSaved: () => void }) {
  const d = props.dna;
  const [name, setName] = useState(props.version.name ?? '');
  const [tagline, setTagline] = useState(d.identity.tagline?.value ?? '');
  const [values, setValues] = useState(d.identity.values.map((v) => v.value).join(', '));
  const [palette, setPalette] = useState(d.visual.palette.map((c) => c.hex).join(', '));
  const [use, setUse] = useState(d.voice.words_to_use.map((v) => v.value).join(', '));
  const [avoid, setAvoid] = useState(d.voice.words_to_avoid.map((v) => v.value).join(', '));
  const { busy: saving, error, run } = useAction();
  const keep = <T extends { value: string }>(old: T[], text: string) =>
    splitList(text).map((v) => old.find((o) => o.value === v) ?? manual(v));
  return (
    <form
      class="dna-editor"
      data-testid="dna-editor"
      onSubmit={async (e) => {
        e.preventDefault();
        const hexes = splitList(palette).map((h) => (h.startsWith('#') ? h : `#${h}`).toLowerCase());
        const dna: BrandDna = {
          ...d,
          identity: {
            ...d.identity,
            tagline: tagline.trim()
              ? d.identity.tagline?.value === tagline.trim()
                ? d.identity.tagline
                : manual(tagline.trim())
              : null,
            values: keep(d.identity.values, values),
          },
          voice: {
            ...d.voice,
            words_to_use: keep(d.voice.words_to_use, use),
            words_to_avoid: keep(d.voice.words_to_avoid, avoid),
          },
          visual: {
            ...d.visual,
            palette: hexes.map(
              (hex, i) =>
                d.visual.palette.find((c) => c.hex.toLowerCase() === hex) ?? {
                  hex,
                  role: i === 0 ? 'primary' : 'accent',
                  share: 0,
                  sources: ['manual'],
                },
            ),
          },
        };
        const v = await run(() =>
          api.brandDna.update(props.brandId, props.version.versionId, {
            name: name.trim() || null,
            dna,
            updatedAt: props.version.updatedAt,
          }),
        );
        if (v) {
          notify('Brand DNA saved');
          props.onSaved();
        }
      }}
    >
      <div class="grid-2">
        <Field label="Version name">
          {(id) => (
            <input id={id} value={name} onInput={(e) => setName(e.currentTarget.value)} data-testid="dna-edit-name" />
          )}
        </Field>
        <Field label="Tagline">
          {(id) => (
            <input
              id={id}
              value={tagline}
              onInput={(e) => setTagline(e.currentTarget.value)}
              data-testid="dna-edit-tagline"
            />
          )}
        </Field>
      </div>
      <Field label="Values" hint="Separated by commas.">
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            value={values}
            onInput={(e) => setValues(e.currentTarget.value)}
            data-testid="dna-edit-values"
          />
        )}
      </Field>
      <Field label="Palette" hint="Hex colours separated by commas, primary first.">
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            value={palette}
            onInput={(e) => setPalette(e.currentTarget.value)}
            data-testid="dna-edit-palette"
          />
        )}
      </Field>
      <div class="grid-2">
        <Field label="Words to use">
          {(id) => <input id={id} value={use} onInput={(e) => setUse(e.currentTarget.value)} />}
        </Field>
        <Field label="Words to avoid">
          {(id) => <input id={id} value={avoid} onInput={(e) => setAvoid(e.currentTarget.value)} />}
        </Field>
      </div>
      <ErrorBox error={error} />
      <div class="actions">
        <Button type="submit" variant="primary" busy={saving} data-testid="dna-save">
          Save
        </Button>
      </div>
    </form>
  );
}

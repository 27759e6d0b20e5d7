/** Scene forges: the composer (products, environment, prompt with enhance/undo) and the gallery. */
import { useEffect, useState } from 'preact/hooks';
import type { SceneForge, Variation } from '../../../sdk/src/index.ts';
import { api } from '../api.ts';
import { formatDate } from '../format.ts';
import { useAction, useAsync, useFollow } from '../hooks.ts';
import { pollUntil } from '../poll.ts';
import { brandHref } from '../router.ts';
import { Badge, Button, ErrorBox, Field, notify, SelectField, StatusBadge } from '../ui.tsx';
import { cardTitle, withFresh } from '../lists.ts';
import { recentDurations, stageOf } from '../progress.ts';
import { refreshUsage, useFeature } from '../usage.ts';
import { Thumb } from './assets.tsx';
import { type BrandAssets, isPicture } from './brand-assets.ts';
import { PendingTile } from './run-progress.tsx';
import { Gallery, PromptEditor, RunHead, usePrompt } from './runs.tsx';

export const ASPECTS = ['1:1', '4:3', '3:4', '3:2', '2:3', '16:9', '9:16', '21:9'] as const;
export const PARTNERS = ['default', 'partner-1', 'partner-2', 'partner-3'] as const;
type Aspect = (typeof ASPECTS)[number];
type Partner = (typeof PARTNERS)[number];
const OBJECTIVES = [
  ['attention_potential', 'Attention'],
  ['conversion', 'Conversion'],
  ['brand_awareness', 'Awareness'],
] as const;

const busyForge = (f: SceneForge) =>
  f.status === 'pending' ||
  f.status === 'processing' ||
  f.refinedVariations.some((r) => r.status === 'pending' || r.status === 'processing') ||
  [...f.variations, ...f.refinedVariations.flatMap((r) => r.variations)].some(
    (v) => v.critiqueStatus === 'pending' || v.critiqueStatus === 'processing',
  );

/** The plan's Brand DNA gate (the default of useBrandDna). */
export function useDnaAllowed() {
  return useFeature('brand_dna').allowed;
}

export function GenerateTab({
  brandId,
  assets,
  onCreated,
}: {
  brandId: string;
  assets: BrandAssets;
  /** A scene was started (the brand page's guide is done then). */
  onCreated?: () => void;
}) {
  const forges = useAsync(
    (signal) => api.scenes.list(brandId, { partner: 'all', limit: 20, sortOrder: 'desc' }, { signal }),
    [brandId],
  );
  const [fresh, setFresh] = useState<SceneForge[]>([]);
  const listed = forges.data?.data ?? [];
  const all = withFresh(fresh, listed, (f) => f.sceneForgeId);
  const [done, setDone] = useState<SceneForge[]>([]);
  // The estimate for a running forge: how long this brand's recent forges took.
  const recent = recentDurations([...done, ...listed]);
  return (
    <div>
      <Composer
        brandId={brandId}
        assets={assets}
        onCreated={(f) => {
          setFresh((x) => [f, ...x]);
          onCreated?.();
        }}
      />
      <EnvironmentForm brandId={brandId} onDone={assets.reload} />
      <Gallery
        title="Gallery"
        list={forges}
        empty={all.length === 0}
        emptyText="No scenes yet: compose one above."
        testid="forges"
      >
        {all.map((f) => (
          <ForgeCard
            key={f.sceneForgeId}
            forge={f}
            brandId={brandId}
            recent={recent}
            onSettled={(settled) => {
              setDone((d) => [settled, ...d.filter((x) => x.sceneForgeId !== settled.sceneForgeId)]);
              assets.reload();
            }}
          />
        ))}
      </Gallery>
    </div>
  );
}

function Composer(props: { brandId: string; assets: BrandAssets; onCreated: (f: SceneForge) => void }) {
  const pictures = props.assets.assets.filter((a) => a.status === 'complete' && isPicture(a));
  const products = pictures.filter((a) => a.metadata.type !== 'environment');
  const environments = pictures.filter((a) => a.metadata.type === 'environment');
  const dnaAllowed = useDnaAllowed();
  const [productIds, setProductIds] = useState<string[]>([]);
  const [envId, setEnvId] = useState('');
  const prompt = usePrompt();
  const [aspect, setAspect] = useState<Aspect>('1:1');
  const [partner, setPartner] = useState<Partner>('default');
  const [useDna, setUseDna] = useState(true);
  const submit = useAction();
  useEffect(() => {
    if (dnaAllowed === false) setUseDna(false);
  }, [dnaAllowed]);

  const { isEnhanced, enhanced } = prompt;
  const toggle = (id: string, on: boolean) => setProductIds((ids) => (on ? [...ids, id] : ids.filter((x) => x !== id)));
  const common = {
    productAssetIds: productIds,
    environmentAssetId: envId || null,
    useBrandDna: useDna,
    partner,
    aspectRatio: aspect,
  };

  return (
    <form
      class="card form-card"
      data-testid="forge-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = await submit.run(() =>
          api.scenes.create(props.brandId, {
            ...common,
            blendingPrompt: prompt.text.trim(),
            promptIsEnhanced: isEnhanced,
            ...(isEnhanced && enhanced?.theme ? { theme: enhanced.theme } : {}),
          }),
        );
        if (f) {
          notify('Scene started: four variations are on their way');
          props.onCreated(f);
          void refreshUsage();
        }
      }}
    >
      <h2>Compose a scene</h2>
      <fieldset class="field">
        <legend>Products</legend>
        {products.length === 0 ? (
          <p class="hint">
            Upload product pictures in <a href={brandHref(props.brandId)}>Assets</a> first.
          </p>
        ) : (
          <ul class="picker" data-testid="product-picker">
            {products.map((a) => (
              <li key={a.id}>
                <label class="pick">
                  <input
                    type="checkbox"
                    checked={productIds.includes(a.id)}
                    onChange={(e) => toggle(a.id, e.currentTarget.checked)}
                    data-testid="product-option"
                    data-asset-id={a.id}
                  />
                  <Thumb asset={a} alt="" />
                  <span class="pick-name">{a.metadata.fileName}</span>
                </label>
              </li>
            ))}
          </ul>
        )}
      </fieldset>
      <div class="grid-3">
        <Field label="Environment">
          {(id) => (
            <select
              id={id}
              value={envId}
              onChange={(e) => setEnvId(e.currentTarget.value)}
              data-testid="forge-environment"
            >
              <option value="">None (described by the prompt)</option>
              {environments.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.metadata.fileName}
                </option>
              ))}
              {products.length > 0 ? (
                <optgroup label="Other pictures">
                  {products.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.metadata.fileName}
                    </option>
                  ))}
                </optgroup>
              ) : null}
            </select>
          )}
        </Field>
        <SelectField label="Aspect ratio" value={aspect} options={ASPECTS} onChange={setAspect} testid="forge-aspect" />
        <SelectField label="Partner" value={partner} options={PARTNERS} onChange={setPartner} testid="forge-partner" />
      </div>
      <PromptEditor
        prompt={prompt}
        testid="forge"
        rows={4}
        placeholder="A cap on a sunlit concrete ledge, long shadows, summer mood"
        canEnhance={!!prompt.text.trim()}
        onEnhance={() =>
          prompt.enhance(async (original) => {
            try {
              const started = await api.enhancements.create(props.brandId, { ...common, originalPrompt: original });
              const done = await pollUntil({
                read: (o) => api.enhancements.get(props.brandId, started.promptEnhancementId, o),
                done: (x) => x.status === 'completed' || x.status === 'failed',
                signal: new AbortController().signal,
              });
              return { ...done, text: done.optimizedPrompt };
            } finally {
              void refreshUsage();
            }
          })
        }
        useDna={useDna}
        dnaAllowed={dnaAllowed}
        onUseDna={setUseDna}
      />
      <ErrorBox error={submit.error} />
      <div class="actions">
        <Button type="submit" variant="primary" busy={submit.busy} data-testid="forge-submit">
          Generate 4 variations
        </Button>
      </div>
    </form>
  );
}

function EnvironmentForm({ brandId, onDone }: { brandId: string; onDone: () => void }) {
  const [prompt, setPrompt] = useState('');
  const [status, setStatus] = useState('');
  const { busy, error, run, setError } = useAction();
  return (
    <details class="card form-card">
      <summary>Generate an environment</summary>
      <form
        data-testid="environment-form"
        onSubmit={async (e) => {
          e.preventDefault();
          const done = await run(async () => {
            const started = await api.environments.create(brandId, { prompt: prompt.trim() });
            setStatus(started.status);
            return pollUntil({
              read: (o) => api.environments.get(started.environmentGenerationId, o),
              done: (x) => x.status === 'completed' || x.status === 'failed',
              onUpdate: (x) => setStatus(x.status),
              signal: new AbortController().signal,
            });
          });
          void refreshUsage();
          if (!done) return;
          if (done.status === 'failed')
            setError(new Error(done.errorMessage ?? 'The environment could not be generated.'));
          else {
            notify('Environment ready: pick it in the composer');
            onDone();
          }
        }}
      >
        <Field label="Environment prompt" hint="Surface, setting, light, mood.">
          {(id, hint) => (
            <input
              id={id}
              required
              aria-describedby={hint}
              value={prompt}
              onInput={(e) => setPrompt(e.currentTarget.value)}
              data-testid="environment-prompt"
            />
          )}
        </Field>
        <ErrorBox error={error} />
        <div class="actions">
          {status && busy ? <StatusBadge status={status} /> : null}
          <Button type="submit" busy={busy} data-testid="environment-submit">
            Generate environment
          </Button>
        </div>
      </form>
    </details>
  );
}

function ForgeCard({
  forge: initial,
  brandId,
  recent,
  onSettled,
}: {
  forge: SceneForge;
  brandId: string;
  /** Durations of recent finished forges (ms), for the estimate. */
  recent: number[];
  /** The variations are brand assets too: the asset list reads them when the forge settles. */
  onSettled: (f: SceneForge) => void;
}) {
  const [forge, setForge] = useState(initial);
  const [tick, setTick] = useState(0);
  useFollow(
    `${forge.sceneForgeId}#${tick}`,
    busyForge(forge),
    (o) => api.scenes.get(forge.sceneForgeId, o),
    (f) => !busyForge(f),
    (f) => {
      setForge(f);
      // Each variation that lands spends an image: the meters follow it.
      void refreshUsage();
      if (!busyForge(f)) onSettled(f);
    },
  );
  const stage = stageOf(forge, forge.variations);
  const update = (v: Variation) =>
    setForge((f) => ({
      ...f,
      variations: f.variations.map((x) => (x.generatedImageId === v.generatedImageId ? v : x)),
      refinedVariations: f.refinedVariations.map((r) => ({
        ...r,
        variations: r.variations.map((x) => (x.generatedImageId === v.generatedImageId ? v : x)),
      })),
    }));
  const refined = async () => {
    setForge(await api.scenes.get(forge.sceneForgeId));
    setTick((t) => t + 1);
  };
  /** The forge's four variations, or a refinement's. */
  const variationList = (variations: Variation[]) => (
    <ul class="variations">
      {variations.map((v) => (
        <VariationTile
          key={v.generatedImageId}
          v={v}
          forgeId={forge.sceneForgeId}
          brandId={brandId}
          onChange={update}
          onRefined={refined}
        />
      ))}
    </ul>
  );
  return (
    <li class="card forge" data-testid="forge" data-forge-id={forge.sceneForgeId} data-status={forge.status}>
      <RunHead
        title={cardTitle({ prompt: forge.blendingPrompt, original: forge.originalPrompt, theme: forge.theme })}
        titleTestid="forge-title"
        meta={
          <>
            {formatDate(forge.createdAt)} · {forge.aspectRatio} · {forge.partner}
            {forge.theme ? ` · ${forge.theme}` : ''}
          </>
        }
        status={forge.status}
        progress={
          stage.stage !== 'done' && stage.stage !== 'failed' ? { stage, createdAt: forge.createdAt, recent } : null
        }
        failure={
          forge.status === 'failed'
            ? { message: forge.errorMessage, code: forge.errorCode, fallback: 'This scene could not be generated.' }
            : null
        }
      />
      {variationList(forge.variations)}
      {forge.refinedVariations.map((r) => (
        <div key={r.refinementId} class="refinement" data-testid="refinement" data-status={r.status}>
          <h3 class="small">
            Refinement of {r.sourceVariation.label} toward {r.steerObjective.replace(/_/g, ' ')}{' '}
            <StatusBadge status={r.status} />
          </h3>
          {r.levers.length ? <p class="muted small">Changed: {r.levers.join(', ')}</p> : null}
          {variationList(r.variations)}
        </div>
      ))}
    </li>
  );
}

function VariationTile(props: {
  v: Variation;
  forgeId: string;
  brandId: string;
  onChange: (v: Variation) => void;
  onRefined: () => void;
}) {
  const { v } = props;
  const [objective, setObjective] = useState<(typeof OBJECTIVES)[number][0]>('attention_potential');
  const act = useAction();
  const refining = useAction();
  const react = async (liked: boolean) => {
    const body = liked ? { liked: !v.liked, disliked: false } : { disliked: !v.disliked, liked: false };
    const r = await act.run(() => api.scenes.react(props.forgeId, v.generatedImageId, body));
    if (r) props.onChange(r);
  };
  const recs = v.critique?.recommendations ?? [];
  return (
    <li class="variation" data-testid="variation" data-variation-id={v.generatedImageId} data-status={v.status}>
      <div class="variation-img">
        {v.asset?.url || v.asset?.thumbnailUrl ? (
          <img
            src={v.asset.thumbnailUrl ?? v.asset.url}
            alt={`Variation ${v.label}: ${v.blendingPrompt}`}
            loading="lazy"
          />
        ) : (
          <PendingTile status={v.status} />
        )}
        <span class="variation-label">{v.label}</span>
      </div>
      {v.status === 'failed' ? <p class="upload-error">{v.errorMessage ?? v.errorCode}</p> : null}
      {v.scores ? (
        <dl class="scores" data-testid="scores">
          {OBJECTIVES.map(([k, label]) => (
            <div key={k}>
              <dt>{label}</dt>
              <dd>
                {Math.round(v.scores![k])}
                {v.scoreDeltas ? (
                  <span class={v.scoreDeltas[k] >= 0 ? 'delta-up' : 'delta-down'}>
                    {' '}
                    {v.scoreDeltas[k] >= 0 ? '+' : ''}
                    {Math.round(v.scoreDeltas[k])}
                  </span>
                ) : null}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {v.status === 'completed' ? (
        <div class="row tight">
          <Button
            variant="ghost"
            aria-pressed={v.liked ? 'true' : 'false'}
            aria-label={`Like ${v.label}`}
            onClick={() => react(true)}
            data-testid="variation-like"
          >
            {v.liked ? '♥' : '♡'} Like
          </Button>
          <Button
            variant="ghost"
            aria-pressed={v.disliked ? 'true' : 'false'}
            aria-label={`Dislike ${v.label}`}
            onClick={() => react(false)}
            data-testid="variation-dislike"
          >
            Dislike
          </Button>
          {v.asset?.url ? (
            <a
              class="btn btn-ghost"
              href={v.asset.url}
              download={`scene-${v.label.replace('#', '')}.png`}
              data-testid="variation-download"
            >
              Download
            </a>
          ) : null}
          {v.asset ? (
            <a
              class="btn btn-ghost"
              href={brandHref(props.brandId, 'videos', { from: v.asset.assetId })}
              data-testid="variation-video"
            >
              Make video
            </a>
          ) : null}
        </div>
      ) : null}
      {recs.length > 0 ? (
        <details class="critique" data-testid="critique">
          <summary>Critique</summary>
          {recs.map((r) => (
            <div key={r.score_name} class="rec">
              <p>
                <strong>{r.score_name.replace(/_/g, ' ')}</strong> {Math.round(r.score)}{' '}
                <Badge>{r.general_assessment}</Badge>
              </p>
              <p class="small">{r.recommendation_details.display_summary || r.general_recommendation}</p>
              <ul class="small">
                {r.recommendation_details.practical_recommendations.map((p) => (
                  <li key={p.title}>
                    <strong>{p.display_title}</strong>: {p.display_text}{' '}
                    <span class="delta-up">+{Math.round(p.estimated_gain)}</span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </details>
      ) : null}
      {v.status === 'completed' ? (
        <form
          class="row tight"
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await refining.run(() =>
              api.scenes.refine(props.forgeId, { generatedImageId: v.generatedImageId, steerObjective: objective }),
            );
            if (r) {
              notify(`Refining ${v.label}`);
              props.onRefined();
            }
          }}
        >
          <label class="sr-only" for={`obj-${v.generatedImageId}`}>
            Refine {v.label} toward
          </label>
          <select
            id={`obj-${v.generatedImageId}`}
            value={objective}
            onChange={(e) => setObjective(e.currentTarget.value as typeof objective)}
            data-testid="refine-objective"
          >
            {OBJECTIVES.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
          <Button type="submit" busy={refining.busy} data-testid="variation-refine">
            Refine
          </Button>
        </form>
      ) : null}
      <ErrorBox error={act.error ?? refining.error} />
    </li>
  );
}

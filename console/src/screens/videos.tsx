/** Video generation from a picture (a scene variation or an asset), with playable results. */
import { useEffect, useState } from 'preact/hooks';
import type { GeneratedVideosGroup } from '../../../sdk/src/index.ts';
import { api } from '../api.ts';
import { formatDate } from '../format.ts';
import { useAction, useAsync, useFollow } from '../hooks.ts';
import { pollUntil } from '../poll.ts';
import { Button, ErrorBox, Field, notify, SelectField } from '../ui.tsx';
import { Thumb } from './assets.tsx';
import { type BrandAssets, isPicture } from './brand-assets.ts';
import { useDnaAllowed } from './generate.tsx';
import { cardTitle, withFresh } from '../lists.ts';
import { recentDurations, stageOf } from '../progress.ts';
import { PendingTile } from './run-progress.tsx';
import { Gallery, PromptEditor, RunHead, usePrompt } from './runs.tsx';
import { refreshUsage } from '../usage.ts';

const MODELS = [
  'video-model-7',
  'video-model-1',
  'video-model-2',
  'video-model-3',
  'video-model-4',
  'video-model-5',
  'video-model-6',
  'video-model-9',
  'optimized',
] as const;
type Model = (typeof MODELS)[number];
const DIMENSIONS = {
  '16:9': { width: 1280, height: 720 },
  '9:16': { width: 720, height: 1280 },
} as const;
type Aspect = keyof typeof DIMENSIONS;
const running = (g: GeneratedVideosGroup) => g.status === 'pending' || g.status === 'processing';

export function VideosTab(props: { brandId: string; assets: BrandAssets; from: string | undefined }) {
  const groups = useAsync(
    (signal) => api.videos.list(props.brandId, { partner: 'all', limit: 20, sortOrder: 'desc' }, { signal }),
    [props.brandId],
  );
  const [fresh, setFresh] = useState<GeneratedVideosGroup[]>([]);
  const listed = groups.data?.data ?? [];
  const all = withFresh(fresh, listed, (g) => g.generatedVideosGroupId);
  return (
    <div>
      <VideoForm {...props} onCreated={(g) => setFresh((x) => [g, ...x])} />
      <Gallery title="Videos" list={groups} empty={all.length === 0} emptyText="No videos yet." testid="video-groups">
        {all.map((g) => (
          <VideoGroup key={g.generatedVideosGroupId} group={g} recent={recentDurations(listed)} />
        ))}
      </Gallery>
    </div>
  );
}

function VideoForm(props: {
  brandId: string;
  assets: BrandAssets;
  from: string | undefined;
  onCreated: (g: GeneratedVideosGroup) => void;
}) {
  const pictures = props.assets.assets.filter((a) => a.status === 'complete' && isPicture(a));
  const [start, setStart] = useState(props.from ?? '');
  const prompt = usePrompt();
  const [model, setModel] = useState<Model>('video-model-7');
  const [duration, setDuration] = useState('');
  const [aspect, setAspect] = useState<Aspect>('16:9');
  const [useDna, setUseDna] = useState(false);
  const dnaAllowed = useDnaAllowed();
  const submit = useAction();
  useEffect(() => {
    if (props.from) setStart(props.from);
  }, [props.from]);
  const seconds = duration ? Number(duration) : undefined;
  const chosen = pictures.find((a) => a.id === start);
  // A scene variation is not among the brand's assets: read it, to show the frame the video starts from.
  const fromVariation = useAsync(
    (signal) =>
      props.from && !pictures.some((a) => a.id === props.from)
        ? api.assets.get(props.from, { signal })
        : Promise.resolve(undefined),
    [props.from, pictures.length],
  );
  const shown = chosen ?? (start && start === props.from ? fromVariation.data : undefined);
  return (
    <form
      class="card form-card"
      data-testid="video-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await submit.run(() =>
          api.videos.create(props.brandId, {
            startImageAssetId: start,
            userPrompts: [prompt.text.trim()],
            dimension: DIMENSIONS[aspect],
            model,
            ...(seconds ? { duration: seconds } : {}),
            promptIsEnhanced: prompt.isEnhanced,
            useBrandDna: useDna,
          }),
        );
        const group = (r as { data?: GeneratedVideosGroup[] } | undefined)?.data?.[0];
        if (group) {
          notify('Video started');
          props.onCreated(group);
          void refreshUsage();
        }
      }}
    >
      <h2>Make a video</h2>
      <div class="grid-2">
        <div>
          <Field label="Start frame" hint={props.from && !chosen ? 'From a scene variation' : undefined}>
            {(id, hint) => (
              <select
                id={id}
                required
                aria-describedby={hint}
                value={start}
                onChange={(e) => setStart(e.currentTarget.value)}
                data-testid="video-start"
              >
                <option value="">Choose a picture…</option>
                {props.from && !chosen ? <option value={props.from}>Selected scene variation</option> : null}
                {pictures.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.metadata.fileName}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {shown ? (
            <div class="start-frame" data-testid="video-start-frame">
              <Thumb
                asset={shown}
                alt={chosen ? `Start frame: ${chosen.metadata.fileName}` : 'Start frame: the scene variation'}
              />
            </div>
          ) : null}
        </div>
        <div>
          <div class="grid-2">
            <SelectField label="Model" value={model} options={MODELS} onChange={setModel} testid="video-model" />
            <Field label="Duration (s)" hint="Empty: the model's default.">
              {(id, hint) => (
                <input
                  id={id}
                  type="number"
                  min={1}
                  max={30}
                  aria-describedby={hint}
                  value={duration}
                  onInput={(e) => setDuration(e.currentTarget.value)}
                  data-testid="video-duration"
                />
              )}
            </Field>
          </div>
          <Field label="Dimension">
            {(id) => (
              <select
                id={id}
                value={aspect}
                onChange={(e) => setAspect(e.currentTarget.value as Aspect)}
                data-testid="video-dimension"
              >
                {(Object.keys(DIMENSIONS) as Aspect[]).map((k) => (
                  <option key={k} value={k}>
                    {k} ({DIMENSIONS[k].width}×{DIMENSIONS[k].height})
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      </div>
      <PromptEditor
        prompt={prompt}
        testid="video"
        rows={3}
        hint="The motion: camera move, action, mood."
        canEnhance={!!prompt.text.trim() && !!start}
        onEnhance={() =>
          prompt.enhance(async (original) => {
            const s = await api.videoEnhancements.create(props.brandId, {
              startFrameAssetId: start,
              originalPrompt: original,
              aspectRatio: aspect,
              model,
              ...(seconds ? { duration: seconds } : {}),
              useBrandDna: useDna,
            });
            const done = await pollUntil({
              read: (o) => api.videoEnhancements.get(props.brandId, s.promptEnhancementId, o),
              done: (x) => x.status === 'completed' || x.status === 'failed',
              signal: new AbortController().signal,
            });
            return { ...done, text: done.enhancedPrompt };
          })
        }
        useDna={useDna}
        dnaAllowed={dnaAllowed}
        onUseDna={setUseDna}
      />
      <ErrorBox error={submit.error} />
      <div class="actions">
        <Button type="submit" variant="primary" busy={submit.busy} data-testid="video-submit">
          Generate video
        </Button>
      </div>
    </form>
  );
}

function VideoGroup({ group: initial, recent }: { group: GeneratedVideosGroup; recent: number[] }) {
  const [g, setG] = useState(initial);
  useFollow(
    g.generatedVideosGroupId,
    running(g),
    (o) => api.videos.get(g.generatedVideosGroupId, o),
    (x) => !running(x),
    (x) => {
      setG(x);
      if (!running(x)) void refreshUsage();
    },
  );
  const stage = stageOf(g, g.variations, 'videos');
  return (
    <li class="card forge" data-testid="video-group" data-group-id={g.generatedVideosGroupId} data-status={g.status}>
      <RunHead
        title={cardTitle({ prompt: g.prompt })}
        titleTestid="video-title"
        meta={
          <>
            {formatDate(g.createdAt)} · {g.model} · {g.duration} s · {g.dimension.width}×{g.dimension.height}
          </>
        }
        status={g.status}
        progress={running(g) ? { stage, createdAt: g.createdAt, recent } : null}
        failure={
          g.error
            ? { message: g.error.message, code: g.error.code, fallback: 'This video could not be generated.' }
            : null
        }
      />
      <ul class="variations videos">
        {g.variations.map((v) => (
          <li key={v.generatedVideoId} class="variation" data-testid="video" data-status={v.status}>
            {v.status === 'completed' && v.asset?.url ? (
              // biome-ignore lint/a11y/useMediaCaption: generated videos have no speech to caption
              <video
                controls
                preload="metadata"
                src={v.asset.url}
                poster={g.sourceAsset?.thumbnailUrl ?? g.sourceAsset?.url}
                aria-label={`Video: ${v.prompt}`}
                data-testid="video-player"
              />
            ) : (
              <PendingTile status={v.status} />
            )}
            {v.previewUrl ? (
              <details>
                <summary>Preview</summary>
                <video
                  muted
                  loop
                  autoplay
                  playsInline
                  src={v.previewUrl}
                  aria-label="Low-resolution preview"
                  data-testid="video-preview"
                />
              </details>
            ) : null}
            {v.error ? <p class="upload-error">{v.error.message}</p> : null}
            <div class="row tight">
              {v.camera ? <span class="muted small">Camera: {v.camera}</span> : null}
              {v.asset?.url ? (
                <a class="btn btn-ghost" href={v.asset.url} download="video.mp4" data-testid="video-download">
                  Download
                </a>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </li>
  );
}

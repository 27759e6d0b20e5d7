/** The first-run guide: brand → product photo (a sample one click away) → first scene. */
import { useState } from 'preact/hooks';
import { isGenerated } from '../lists.ts';
import { brandHref } from '../router.ts';
import { ErrorBox } from '../ui.tsx';
import { sampleFile, type Uploads } from './assets.tsx';
import { type BrandAssets, isPicture } from './brand-assets.ts';

/** The sample product photos the console build ships (samples/, Solidus sample data). */
export const SAMPLES = [
  { file: 'mug-set.png', label: 'mug set' },
  { file: 'cap-red.png', label: 'red cap' },
  { file: 'notebook.png', label: 'notebook' },
] as const;

/** One click: the sample is fetched from the console and uploaded like any file. */
export function SamplePicker({ uploads }: { uploads: Uploads }) {
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  return (
    <div>
      <ul class="samples" data-testid="samples">
        {SAMPLES.map((s) => (
          <li key={s.file}>
            <button
              type="button"
              class="sample"
              data-testid="sample"
              data-sample={s.file}
              disabled={busy !== undefined}
              aria-busy={busy === s.file ? 'true' : undefined}
              onClick={async () => {
                setBusy(s.file);
                setError(undefined);
                try {
                  await uploads.upload([await sampleFile(s.file)]);
                } catch (err) {
                  setError(err);
                } finally {
                  setBusy(undefined);
                }
              }}
            >
              <img src={`samples/${s.file}`} alt="" class="thumb" />
              <span>{busy === s.file ? 'Adding…' : `Use the ${s.label}`}</span>
            </button>
          </li>
        ))}
      </ul>
      <ErrorBox error={error} />
    </div>
  );
}

function Step(props: { n: number; done: boolean; title: string; children?: preact.ComponentChildren }) {
  return (
    <li class={`step${props.done ? ' done' : ''}`} data-testid="guide-step" data-done={String(props.done)}>
      <span class="step-mark" aria-hidden="true">
        {props.done ? '✓' : props.n}
      </span>
      <div class="step-body">
        <h3 class="step-title">
          {props.title}
          {props.done ? <span class="sr-only"> (done)</span> : null}
        </h3>
        {props.done ? null : props.children}
      </div>
    </li>
  );
}

/** On a brand without a scene yet: where it stands on the way to its first scene. */
export function BrandGuide(props: { brandId: string; assets: BrandAssets; uploads: Uploads; scenes: number }) {
  if (props.scenes > 0) return null;
  const hasPhoto = props.assets.assets.some((a) => a.status === 'complete' && isPicture(a) && !isGenerated(a));
  return (
    <section class="card guide" aria-labelledby="guide-title" data-testid="guide">
      <h2 id="guide-title">Your first scene in three steps</h2>
      <ol class="steps">
        <Step n={1} done title="Create a brand" />
        <Step n={2} done={hasPhoto} title="Add a product photo">
          <p class="hint">
            The product on its own, best on a plain or transparent background: drop yours under Assets, or try a sample.
          </p>
          <SamplePicker uploads={props.uploads} />
        </Step>
        <Step n={3} done={false} title="Compose your first scene">
          <p class="hint">Pick the product, describe the setting, and get four variations to compare and refine.</p>
          {hasPhoto ? (
            <a class="btn btn-primary" href={brandHref(props.brandId, 'generate')} data-testid="guide-compose">
              Compose a scene
            </a>
          ) : null}
        </Step>
      </ol>
    </section>
  );
}

/** An organization without brands: what Atelier does and the first step. */
export function WelcomeGuide() {
  return (
    <section class="card guide" aria-labelledby="welcome-title" data-testid="guide">
      <h2 id="welcome-title">Welcome to Atelier</h2>
      <p>No brands yet. Three steps to your first on-brand product scene:</p>
      <ol class="steps">
        <Step n={1} done={false} title="Create a brand">
          <p class="hint">Its name, industry, values and tone of voice: every scene and video follows them.</p>
          <a class="btn btn-primary" href="#/brands/new" data-testid="guide-start">
            Create your first brand
          </a>
        </Step>
        <Step n={2} done={false} title="Add a product photo">
          <p class="hint">Your own, or one of the sample photos, one click away on the brand’s page.</p>
        </Step>
        <Step n={3} done={false} title="Compose your first scene">
          <p class="hint">Describe a setting; Atelier places the real product in it, four ways.</p>
        </Step>
      </ol>
    </section>
  );
}

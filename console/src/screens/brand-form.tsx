/** Create or edit a brand; an edit sends If-Match and shows a conflict when someone else changed it. */
import { useState } from 'preact/hooks';
import type { Brand } from '../../../sdk/src/index.ts';
import { api } from '../api.ts';
import { splitList } from '../format.ts';
import { navigate, useAction } from '../hooks.ts';
import { brandHref } from '../router.ts';
import { Button, ErrorBox, Field, notify } from '../ui.tsx';

/** A tone as the API takes it (the server's TONES, through the OpenAPI document and the SDK's types). */
type Tone = Brand['tone'][number];

/**
 * The tones the form offers, in its order: every tone of the contract and no other (the type
 * check fails here when the API's list changes), rather than a second list kept by hand.
 */
const OFFERED = {
  Professional: true,
  Casual: true,
  Friendly: true,
  Authoritative: true,
  Playful: true,
  Innovative: true,
  Traditional: true,
  Luxurious: true,
} satisfies Record<Tone, true>;
const TONES = Object.keys(OFFERED) as Tone[];

interface Draft {
  name: string;
  industry: string;
  description: string;
  mission: string;
  values: string;
  voice: string;
  tone: Tone[];
}
const fromBrand = (b?: Brand): Draft => ({
  name: b?.name ?? '',
  industry: b?.industry ?? '',
  description: b?.description ?? '',
  mission: b?.mission ?? '',
  values: b?.values.join(', ') ?? '',
  voice: b?.voice.join(', ') ?? '',
  tone: b?.tone ?? [],
});
const toBody = (d: Draft) => ({
  name: d.name.trim(),
  industry: d.industry.trim(),
  description: d.description.trim(),
  mission: d.mission.trim(),
  values: splitList(d.values),
  voice: splitList(d.voice),
  tone: d.tone,
});

/** Without `brand`: a new brand. With it: edits it (ETag from when the form opened). */
export function BrandForm(props: { brand?: Brand; etag?: string; onSaved?: (b: Brand) => void }) {
  const [draft, setDraft] = useState(() => fromBrand(props.brand));
  const [etag, setEtag] = useState(props.etag);
  const [conflict, setConflict] = useState(false);
  const { busy, error, run, setError } = useAction();
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const editing = !!props.brand;

  const save = async (ifMatch?: string) => {
    setConflict(false);
    const saved = await run(async () => {
      try {
        if (!props.brand) return await api.brands.create(toBody(draft));
        return await api.brands.update(props.brand.id, toBody(draft), ifMatch ? { ifMatch } : {});
      } catch (err) {
        if ((err as { status?: number }).status === 412) {
          setConflict(true);
          return undefined;
        }
        throw err;
      }
    });
    if (!saved) return;
    notify(editing ? 'Brand saved' : 'Brand created');
    setEtag(api.brands.etag(saved.id));
    if (props.onSaved) props.onSaved(saved);
    else navigate(brandHref(saved.id));
  };

  return (
    <section class={editing ? '' : 'page'}>
      {!editing ? <h1>New brand</h1> : null}
      <form
        class="card form-card"
        data-testid="brand-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save(etag);
        }}
      >
        <div class="grid-2">
          <Field label="Name">
            {(id) => (
              <input
                id={id}
                required
                value={draft.name}
                onInput={(e) => set('name', e.currentTarget.value)}
                data-testid="brand-name"
              />
            )}
          </Field>
          <Field label="Industry">
            {(id) => (
              <input
                id={id}
                required
                value={draft.industry}
                onInput={(e) => set('industry', e.currentTarget.value)}
                data-testid="brand-industry"
              />
            )}
          </Field>
        </div>
        <Field label="Description">
          {(id) => (
            <textarea
              id={id}
              required
              rows={3}
              value={draft.description}
              onInput={(e) => set('description', e.currentTarget.value)}
              data-testid="brand-description"
            />
          )}
        </Field>
        <Field label="Mission (optional)">
          {(id) => (
            <textarea
              id={id}
              rows={2}
              value={draft.mission}
              onInput={(e) => set('mission', e.currentTarget.value)}
              data-testid="brand-mission"
            />
          )}
        </Field>
        <div class="grid-2">
          <Field label="Values" hint="Separated by commas.">
            {(id, hint) => (
              <input
                id={id}
                aria-describedby={hint}
                value={draft.values}
                onInput={(e) => set('values', e.currentTarget.value)}
                data-testid="brand-values"
              />
            )}
          </Field>
          <Field label="Voice" hint="Adjectives, separated by commas.">
            {(id, hint) => (
              <input
                id={id}
                aria-describedby={hint}
                value={draft.voice}
                onInput={(e) => set('voice', e.currentTarget.value)}
                data-testid="brand-voice"
              />
            )}
          </Field>
        </div>
        <fieldset class="field">
          <legend>Tone</legend>
          <div class="checks">
            {TONES.map((t) => (
              <label key={t} class="check">
                <input
                  type="checkbox"
                  checked={draft.tone.includes(t)}
                  onChange={(e) =>
                    set('tone', e.currentTarget.checked ? [...draft.tone, t] : draft.tone.filter((x) => x !== t))
                  }
                />
                {t}
              </label>
            ))}
          </div>
        </fieldset>
        {conflict ? (
          <div class="alert alert-warn" role="alert" data-testid="brand-conflict">
            <p>
              <strong>Someone else changed this brand</strong> since you opened it. Reload to see their version (your
              changes here are lost), or overwrite it with yours.
            </p>
            <div class="actions">
              <Button
                data-testid="brand-conflict-reload"
                onClick={async () => {
                  const fresh = await run(() => api.brands.get(props.brand!.id));
                  if (fresh) {
                    setDraft(fromBrand(fresh));
                    setEtag(api.brands.etag(fresh.id));
                    setConflict(false);
                    setError(undefined);
                  }
                }}
              >
                Reload
              </Button>
              <Button variant="danger" data-testid="brand-conflict-overwrite" onClick={() => save('*')}>
                Overwrite
              </Button>
            </div>
          </div>
        ) : null}
        <ErrorBox error={error} />
        <div class="actions">
          <a class="btn btn-secondary" href={props.brand ? brandHref(props.brand.id) : '#/brands'}>
            Cancel
          </a>
          <Button type="submit" variant="primary" busy={busy} data-testid="brand-save">
            {editing ? 'Save changes' : 'Create brand'}
          </Button>
        </div>
      </form>
    </section>
  );
}

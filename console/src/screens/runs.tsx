/**
 * What the scenes and videos tabs share: the gallery of runs, a run card's head, and the prompt with
 * Enhance, Undo and Brand DNA.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type AsyncState, useAction } from '../hooks.ts';
import type { CardTitle } from '../lists.ts';
import type { Stage } from '../progress.ts';
import { Button, Empty, ErrorBox, FailureNote, Field, Loading, StatusBadge } from '../ui.tsx';
import { RunProgress } from './run-progress.tsx';

/** A tab's list of runs (scene forges, video groups) under its heading, with loading, error and empty states. */
export function Gallery(props: {
  title: string;
  list: Pick<AsyncState<unknown>, 'data' | 'error' | 'loading'>;
  /** Nothing to show once the list has loaded. */
  empty: boolean;
  emptyText: string;
  testid: string;
  children: ComponentChildren;
}) {
  const { list } = props;
  return (
    <section class="section">
      <h2>{props.title}</h2>
      {list.loading && !list.data ? <Loading /> : null}
      <ErrorBox error={list.error} />
      {list.data && props.empty ? <Empty>{props.emptyText}</Empty> : null}
      <ul class="forges" data-testid={props.testid}>
        {props.children}
      </ul>
    </section>
  );
}

/** The whole (enhanced) prompt of a generation, on demand. */
export function FullPrompt({ text }: { text: string }) {
  return (
    <details class="full-prompt" data-testid="full-prompt">
      <summary>Full prompt</summary>
      <p>{text}</p>
    </details>
  );
}

/** The top of a run's card: its title and facts, its status, the full prompt, its progress or failure. */
export function RunHead(props: {
  title: CardTitle;
  titleTestid: string;
  /** The facts line under the title (date, settings). */
  meta: ComponentChildren;
  status: string;
  /** While the run goes on: its stage and what the estimate reads. */
  progress: { stage: Stage; createdAt: string; recent: number[] } | null;
  /** Once the run failed: the server's sentence and code, and what to say without one. */
  failure: { message?: string | null; code?: string | null; fallback: string } | null;
}) {
  const { title, full } = props.title;
  return (
    <>
      <div class="forge-head">
        <div>
          <p class="forge-prompt" data-testid={props.titleTestid}>
            {title}
          </p>
          <p class="muted small">{props.meta}</p>
        </div>
        <StatusBadge status={props.status} />
      </div>
      {full ? <FullPrompt text={full} /> : null}
      {props.progress ? <RunProgress {...props.progress} /> : null}
      {props.failure ? <FailureNote {...props.failure} /> : null}
    </>
  );
}

/** A finished prompt enhancement, as the scenes and videos APIs answer it. */
export interface Enhancement {
  status: string;
  errorMessage?: string | null;
  /** The enhanced prompt (absent when it failed). */
  text?: string | null;
  theme?: string | null;
}

/** A prompt that can be enhanced (`enhance`) and taken back to what the person typed (`undo`). */
export function usePrompt() {
  const [text, setText] = useState('');
  const [enhanced, setEnhanced] = useState<{ original: string; text: string; theme?: string } | null>(null);
  const action = useAction();
  const isEnhanced = !!enhanced && text === enhanced.text;
  /** Enhances the prompt: `run` starts the enhancement of the typed prompt and resolves once it is finished. */
  const enhance = async (run: (original: string) => Promise<Enhancement>) => {
    const original = text.trim();
    const done = await action.run(() => run(original));
    if (!done) return;
    if (done.status === 'failed' || !done.text) {
      action.setError(new Error(done.errorMessage ?? 'The prompt could not be enhanced.'));
      return;
    }
    setEnhanced({ original, text: done.text, ...(done.theme ? { theme: done.theme } : {}) });
    setText(done.text);
  };
  const undo = () => {
    if (enhanced) setText(enhanced.original);
  };
  return { text, setText, enhanced, isEnhanced, enhance, undo, busy: action.busy, error: action.error };
}
export type PromptState = ReturnType<typeof usePrompt>;

/** The prompt field, then Enhance, Undo and the Brand DNA switch, then what went wrong enhancing. */
export function PromptEditor(props: {
  prompt: PromptState;
  /** The data-testid prefix: `forge` gives forge-prompt, forge-enhance, forge-undo, forge-use-dna. */
  testid: string;
  rows: number;
  placeholder?: string;
  /** The hint while the prompt is not the enhanced one. */
  hint?: string;
  canEnhance: boolean;
  onEnhance: () => void;
  useDna: boolean;
  dnaAllowed: boolean | undefined;
  onUseDna: (on: boolean) => void;
}) {
  const { prompt, testid } = props;
  const theme = prompt.enhanced?.theme;
  return (
    <>
      <Field label="Prompt" hint={prompt.isEnhanced ? `Enhanced${theme ? ` · theme “${theme}”` : ''}` : props.hint}>
        {(id, hint) => (
          <textarea
            id={id}
            rows={props.rows}
            required
            aria-describedby={hint}
            placeholder={props.placeholder}
            value={prompt.text}
            onInput={(e) => prompt.setText(e.currentTarget.value)}
            data-testid={`${testid}-prompt`}
          />
        )}
      </Field>
      <div class="row">
        <Button
          busy={prompt.busy}
          disabled={!props.canEnhance}
          data-testid={`${testid}-enhance`}
          onClick={props.onEnhance}
        >
          Enhance
        </Button>
        <Button disabled={!prompt.isEnhanced} data-testid={`${testid}-undo`} onClick={prompt.undo}>
          Undo
        </Button>
        <label class="check">
          <input
            type="checkbox"
            checked={props.useDna}
            disabled={props.dnaAllowed === false}
            onChange={(e) => props.onUseDna(e.currentTarget.checked)}
            data-testid={`${testid}-use-dna`}
          />
          Use Brand DNA{props.dnaAllowed === false ? ' (not in your plan)' : ''}
        </label>
      </div>
      <ErrorBox error={prompt.error} />
    </>
  );
}

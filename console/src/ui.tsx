/** Small shared components. */
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { describeError } from './errors.ts';

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> & {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  busy?: boolean;
  type?: 'button' | 'submit';
  disabled?: boolean;
};
export function Button({ variant = 'secondary', busy, type = 'button', class: cls, children, ...rest }: ButtonProps) {
  return (
    <button
      type={type}
      class={`btn btn-${variant}${cls ? ` ${cls}` : ''}`}
      aria-busy={busy ? 'true' : undefined}
      {...rest}
      disabled={rest.disabled || busy}
    >
      {busy ? <span class="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

/** A labelled control: `children` is called with the control's id. */
export function Field(props: {
  label: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ComponentChildren;
  class?: string;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div class={`field${props.class ? ` ${props.class}` : ''}`}>
      <label for={id}>{props.label}</label>
      {props.children(id, hintId)}
      {props.hint ? (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled choice among a few plain values (each option shows its value). */
export function SelectField<T extends string>(props: {
  label: string;
  value: T;
  options: readonly T[];
  onChange: (value: T) => void;
  testid: string;
}) {
  return (
    <Field label={props.label}>
      {(id) => (
        <select
          id={id}
          value={props.value}
          onChange={(e) => props.onChange(e.currentTarget.value as T)}
          data-testid={props.testid}
        >
          {props.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

/**
 * An error as a sentence on what happened and one on what to do; the API's code, status, request
 * id and message behind a "Details" toggle. A plan limit reads as a notice, not an alarm.
 */
export function ErrorBox({ error, testid = 'error' }: { error: unknown; testid?: string }) {
  if (!error) return null;
  const v = describeError(error);
  return (
    <div
      class={`alert ${v.kind === 'plan' ? 'alert-info' : 'alert-error'}`}
      role="alert"
      data-testid={testid}
      data-kind={v.kind}
    >
      <p class="alert-title">{v.title}</p>
      {v.hint ? <p>{v.hint}</p> : null}
      {v.technical?.length ? (
        <details class="error-details" data-testid={`${testid}-details`}>
          <summary>Details</summary>
          {v.technical.map((line) => (
            <code key={line}>{line}</code>
          ))}
        </details>
      ) : null}
    </div>
  );
}

/** A run that failed (a forge, a video, an import): the server's sentence, its code behind "Details". */
export function FailureNote(props: {
  message?: string | null;
  code?: string | null;
  fallback: string;
  testid?: string;
}) {
  return (
    <div class="alert alert-error" role="alert" data-testid={props.testid}>
      <p class="alert-title">{props.message || props.fallback}</p>
      {props.code ? (
        <details class="error-details">
          <summary>Details</summary>
          <code>{props.code}</code>
        </details>
      ) : null}
    </div>
  );
}

/** A page's heading and one-line lead, with its main action (if any) beside them. */
export function PageHead(props: { title: string; lead: string; children?: ComponentChildren }) {
  return (
    <div class="page-head">
      <div>
        <h1>{props.title}</h1>
        <p class="lead">{props.lead}</p>
      </div>
      {props.children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

export function Badge({ tone = 'neutral', children }: { tone?: string; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

const STATUS_TONE: Record<string, string> = {
  complete: 'ok',
  completed: 'ok',
  ready: 'ok',
  active: 'ok',
  failed: 'bad',
  canceled: 'bad',
  revoked: 'bad',
  expired: 'warn',
  pending: 'info',
  processing: 'info',
  extracting: 'info',
  uploading: 'info',
  uploaded: 'info',
};
export function StatusBadge({ status }: { status: string }) {
  return (
    <span class={`badge badge-${STATUS_TONE[status] ?? 'neutral'}`} data-status={status}>
      {status}
    </span>
  );
}

export function ProgressBar({ value, label }: { value: number | undefined; label: string }) {
  return (
    <progress class="progress" max={1} value={value} aria-label={label}>
      {value === undefined ? '' : `${Math.round(value * 100)}%`}
    </progress>
  );
}

/** A modal dialog (native <dialog>: focus trapped, Escape closes). */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren; testid?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class="modal"
      aria-labelledby={titleId}
      data-testid={props.testid}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** A button that asks before doing something destructive. */
export function ConfirmButton(props: {
  label: ComponentChildren;
  title: string;
  message: ComponentChildren;
  confirmLabel?: string;
  onConfirm: () => Promise<unknown> | unknown;
  testid?: string;
  variant?: 'danger' | 'secondary' | 'ghost';
  class?: string;
  ariaLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  return (
    <>
      <Button
        variant={props.variant ?? 'danger'}
        class={props.class}
        data-testid={props.testid}
        aria-label={props.ariaLabel}
        onClick={() => {
          setError(undefined);
          setOpen(true);
        }}
      >
        {props.label}
      </Button>
      {open ? (
        <Modal title={props.title} onClose={() => setOpen(false)} testid="confirm-dialog">
          <div class="modal-body">{props.message}</div>
          <ErrorBox error={error} />
          <div class="actions">
            <Button onClick={() => setOpen(false)} data-testid="confirm-cancel">
              Cancel
            </Button>
            <Button
              variant="danger"
              busy={busy}
              data-testid="confirm-ok"
              onClick={async () => {
                setBusy(true);
                try {
                  await props.onConfirm();
                  setOpen(false);
                } catch (err) {
                  setError(err);
                } finally {
                  setBusy(false);
                }
              }}
            >
              {props.confirmLabel ?? 'Delete'}
            </Button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

export function CopyButton({ text, testid = 'copy' }: { text: string; testid?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      data-testid={testid}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // insecure context or denied: select the text instead so Ctrl+C works
          const range = document.createRange();
          const el = document.querySelector('[data-copy-source]');
          if (el) {
            range.selectNodeContents(el);
            getSelection()?.removeAllRanges();
            getSelection()?.addRange(range);
          }
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}

/** A card form that adds something (an API key, an invite): its fields side by side, what went wrong, Cancel and submit. */
export function CreateForm(props: {
  title: string;
  testid: string;
  onSubmit: () => unknown;
  onCancel: () => void;
  error: unknown;
  busy: boolean;
  submitLabel: string;
  submitTestid: string;
  children: ComponentChildren;
}) {
  return (
    <form
      class="card form-card"
      data-testid={props.testid}
      onSubmit={(e) => {
        e.preventDefault();
        void props.onSubmit();
      }}
    >
      <h2>{props.title}</h2>
      <div class="grid-3">{props.children}</div>
      <ErrorBox error={props.error} />
      <div class="actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={props.busy} data-testid={props.submitTestid}>
          {props.submitLabel}
        </Button>
      </div>
    </form>
  );
}

/** A secret shown only once (an API key's token, an invite link): a warning, the secret with Copy, and Done. */
export function SecretCard(props: {
  /** The card's accessible name. */
  label: string;
  title: string;
  warning: ComponentChildren;
  secret: string;
  doneLabel: string;
  onDismiss: () => void;
  testids: { card: string; secret: string; copy: string; done: string };
}) {
  const { testids } = props;
  return (
    <section class="card token-card" aria-label={props.label} data-testid={testids.card}>
      <h2>{props.title}</h2>
      <p class="alert alert-warn">{props.warning}</p>
      <div class="token-row">
        <code class="token" data-copy-source data-testid={testids.secret}>
          {props.secret}
        </code>
        <CopyButton text={props.secret} testid={testids.copy} />
      </div>
      <div class="actions">
        <Button variant="primary" onClick={props.onDismiss} data-testid={testids.done}>
          {props.doneLabel}
        </Button>
      </div>
    </section>
  );
}

/** Tabs as links (hash routes), with aria-current on the selected one. */
export function TabLinks(props: { tabs: { href: string; label: string; current: boolean; id: string }[] }) {
  return (
    <nav class="tabs" aria-label="Brand sections">
      {props.tabs.map((t) => (
        <a
          key={t.id}
          href={t.href}
          class="tab"
          aria-current={t.current ? 'page' : undefined}
          data-testid={`tab-${t.id}`}
        >
          {t.label}
        </a>
      ))}
    </nav>
  );
}

/** A small announcer for results (screen readers hear it; people see it briefly). */
let announce: (msg: string) => void = () => {};
export const notify = (msg: string) => announce(msg);
export function Toaster() {
  const [msg, setMsg] = useState('');
  useEffect(() => {
    let t: ReturnType<typeof setTimeout> | undefined;
    announce = (m) => {
      setMsg(m);
      clearTimeout(t);
      t = setTimeout(() => setMsg(''), 4000);
    };
    return () => clearTimeout(t);
  }, []);
  return (
    <div class={`toast${msg ? ' toast-show' : ''}`} role="status" aria-live="polite" data-testid="toast">
      {msg}
    </div>
  );
}

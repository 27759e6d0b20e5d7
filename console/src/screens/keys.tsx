/** API keys: list, create (token shown once), regenerate, revoke. */
import { useState } from 'preact/hooks';
import { type ApiKey, keys } from '../api.ts';
import { endOfDayIso, formatDate, formatDay, keyState, relativeTime } from '../format.ts';
import { useAction, useAsync } from '../hooks.ts';
import {
  Badge,
  Button,
  ConfirmButton,
  CreateForm,
  Empty,
  ErrorBox,
  Field,
  Loading,
  notify,
  PageHead,
  SecretCard,
} from '../ui.tsx';

export function KeysScreen() {
  const list = useAsync(() => keys.list(), []);
  const [secret, setSecret] = useState<{ key: ApiKey; token: string; regenerated: boolean } | null>(null);
  const [creating, setCreating] = useState(false);
  const action = useAction();
  return (
    <section class="page">
      <PageHead title="API keys" lead="Keys let programs call the Atelier API as you. Treat them like passwords.">
        {!creating ? (
          <Button variant="primary" onClick={() => setCreating(true)} data-testid="key-new">
            New key
          </Button>
        ) : null}
      </PageHead>
      {secret ? <TokenOnce {...secret} onDismiss={() => setSecret(null)} /> : null}
      {creating ? (
        <CreateKey
          onCancel={() => setCreating(false)}
          onCreated={(r) => {
            setCreating(false);
            setSecret({ ...r, regenerated: false });
            list.reload();
          }}
        />
      ) : null}
      <ErrorBox error={action.error} />
      {list.loading && !list.data ? <Loading /> : null}
      <ErrorBox error={list.error} />
      {list.data && list.data.length === 0 ? <Empty>No keys yet. Create one to call the API.</Empty> : null}
      {list.data && list.data.length > 0 ? (
        <div class="table-wrap">
          <table class="table stack" data-testid="keys-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Env</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((k) => {
                const state = keyState(k);
                return (
                  <tr key={k.keyId} data-testid="key-row" data-key-id={k.keyId} data-state={state}>
                    <td data-label="Name">{k.name}</td>
                    <td data-label="Prefix">
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label="Env">{k.env}</td>
                    <td data-label="Created" title={formatDate(k.createdAt)}>
                      {formatDay(k.createdAt)}
                    </td>
                    <td data-label="Last used" title={formatDate(k.lastUsedAt)}>
                      {relativeTime(k.lastUsedAt)}
                    </td>
                    <td data-label="Expires" title={formatDate(k.expiresAt)}>
                      {k.expiresAt ? formatDay(k.expiresAt) : 'never'}
                    </td>
                    <td data-label="Status">
                      <Badge tone={state === 'active' ? 'ok' : state === 'expired' ? 'warn' : 'bad'}>
                        {state === 'revoked' ? `revoked ${relativeTime(k.revokedAt)}` : state}
                      </Badge>
                    </td>
                    <td class="row-actions">
                      {state !== 'revoked' ? (
                        <>
                          <ConfirmButton
                            variant="secondary"
                            label="Regenerate"
                            ariaLabel={`Regenerate ${k.name}`}
                            title="Regenerate this key?"
                            message={
                              <p>
                                A new secret replaces the old one for <strong>{k.name}</strong>: programs using the old
                                secret stop working at once.
                              </p>
                            }
                            confirmLabel="Regenerate"
                            testid="key-regenerate"
                            onConfirm={async () => {
                              const r = await keys.regenerate(k.keyId);
                              setSecret({ ...r, regenerated: true });
                              list.reload();
                            }}
                          />
                          <ConfirmButton
                            label="Revoke"
                            ariaLabel={`Revoke ${k.name}`}
                            title="Revoke this key?"
                            message={
                              <p>
                                <strong>{k.name}</strong> stops working at once. This cannot be undone.
                              </p>
                            }
                            confirmLabel="Revoke"
                            testid="key-revoke"
                            onConfirm={async () => {
                              await keys.revoke(k.keyId);
                              notify(`Key ${k.name} revoked`);
                              list.reload();
                            }}
                          />
                        </>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function CreateKey(props: { onCancel: () => void; onCreated: (r: { key: ApiKey; token: string }) => void }) {
  const [name, setName] = useState('');
  const [env, setEnv] = useState('');
  const [expiry, setExpiry] = useState('');
  const { busy, error, run } = useAction();
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return (
    <CreateForm
      title="New API key"
      testid="key-form"
      onSubmit={async () => {
        const expiresAt = endOfDayIso(expiry);
        const r = await run(() =>
          keys.create({ name: name.trim(), ...(env ? { env } : {}), ...(expiresAt ? { expiresAt } : {}) }),
        );
        if (r) props.onCreated(r);
      }}
      onCancel={props.onCancel}
      error={error}
      busy={busy}
      submitLabel="Create key"
      submitTestid="key-create"
    >
      <Field label="Name" hint="What uses it, e.g. “CI pipeline”.">
        {(id, hint) => (
          <input
            id={id}
            required
            maxLength={100}
            aria-describedby={hint}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            data-testid="key-name"
          />
        )}
      </Field>
      <Field label="Environment" hint="Must match the server's environment.">
        {(id, hint) => (
          <select
            id={id}
            aria-describedby={hint}
            value={env}
            onChange={(e) => setEnv(e.currentTarget.value)}
            data-testid="key-env"
          >
            <option value="">This server's</option>
            <option value="dev">dev</option>
            <option value="staging">staging</option>
            <option value="prod">prod</option>
          </select>
        )}
      </Field>
      <Field label="Expires (optional)" hint="Leave empty for a key that does not expire.">
        {(id, hint) => (
          <input
            id={id}
            type="date"
            min={tomorrow}
            aria-describedby={hint}
            value={expiry}
            onInput={(e) => setExpiry(e.currentTarget.value)}
            data-testid="key-expiry"
          />
        )}
      </Field>
    </CreateForm>
  );
}

function TokenOnce(props: { key: ApiKey; token: string; regenerated: boolean; onDismiss: () => void }) {
  return (
    <SecretCard
      label="New API key secret"
      title={props.regenerated ? `New secret for ${props.key.name}` : `Key ${props.key.name} created`}
      warning={
        <>
          Copy this key now and store it somewhere safe: it will <strong>not</strong> be shown again.
        </>
      }
      secret={props.token}
      doneLabel="I have stored it"
      onDismiss={props.onDismiss}
      testids={{ card: 'key-secret', secret: 'key-token', copy: 'key-copy', done: 'key-secret-done' }}
    />
  );
}

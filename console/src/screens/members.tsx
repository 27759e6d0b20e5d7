/** Members (admins and owners): who is in the organization, invite, change a role, new link, remove. */
import { useState } from 'preact/hooks';
import { type Member, type MemberInvite, members } from '../api.ts';
import { formatDay } from '../format.ts';
import { useAction, useAsync } from '../hooks.ts';
import { assignableRoles, canManage, ROLE_HELP, type Role } from '../members.ts';
import {
  Badge,
  Button,
  ConfirmButton,
  CreateForm,
  ErrorBox,
  Field,
  Loading,
  notify,
  PageHead,
  SecretCard,
} from '../ui.tsx';

export function MembersScreen({ myRole }: { myRole: string }) {
  const list = useAsync(() => members.list(), []);
  const [inviting, setInviting] = useState(false);
  const [link, setLink] = useState<{ name: string; invite: MemberInvite } | null>(null);
  const act = useAction();
  return (
    <section class="page" data-testid="members-page">
      <PageHead title="Members" lead="Who works in this organization, and what each may do.">
        {!inviting ? (
          <Button variant="primary" onClick={() => setInviting(true)} data-testid="member-new">
            Invite someone
          </Button>
        ) : null}
      </PageHead>
      {link ? <InviteLink {...link} onDismiss={() => setLink(null)} /> : null}
      {inviting ? (
        <InviteForm
          myRole={myRole}
          onCancel={() => setInviting(false)}
          onInvited={(name, invite) => {
            setInviting(false);
            setLink({ name, invite });
            list.reload();
          }}
        />
      ) : null}
      <ErrorBox error={act.error} />
      {list.loading && !list.data ? <Loading /> : null}
      <ErrorBox error={list.error} />
      {list.data ? (
        <div class="table-wrap">
          <table class="table stack" data-testid="members-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Since</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((m) => (
                <MemberRow
                  key={m.userId}
                  m={m}
                  myRole={myRole}
                  busy={act.busy}
                  onRole={async (role) => {
                    const r = await act.run(() => members.setRole(m.userId, role));
                    if (r) {
                      notify(`${m.name} is now ${role === 'admin' ? 'an admin' : `a ${role}`}`);
                      list.reload();
                    }
                  }}
                  onNewLink={async () => {
                    const invite = await act.run(() => members.newInvite(m.userId));
                    if (invite) setLink({ name: m.name, invite });
                  }}
                  onRemoved={list.reload}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function MemberRow(props: {
  m: Member;
  myRole: string;
  busy: boolean;
  onRole: (r: Role) => void;
  onNewLink: () => void;
  onRemoved: () => void;
}) {
  const { m } = props;
  const manage = canManage(props.myRole, m);
  const roles = assignableRoles(props.myRole);
  return (
    <tr data-testid="member-row" data-user-id={m.userId} data-role={m.role} data-status={m.status}>
      <td data-label="Name">
        <span>
          {m.name}
          {m.isYou ? <span class="muted"> (you)</span> : null}
        </span>
      </td>
      <td data-label="Email">{m.email ?? '—'}</td>
      <td data-label="Role">
        {manage ? (
          <select
            class="role-select"
            value={m.role}
            disabled={props.busy}
            aria-label={`Role of ${m.name}`}
            onChange={(e) => props.onRole(e.currentTarget.value as Role)}
            data-testid="member-role"
          >
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          m.role
        )}
      </td>
      <td data-label="Status">
        <Badge tone={m.status === 'active' ? 'ok' : 'info'}>{m.status === 'active' ? 'joined' : 'invited'}</Badge>
      </td>
      <td data-label="Since">{formatDay(m.createdAt)}</td>
      <td class="row-actions">
        {manage && m.status === 'invited' ? (
          <Button onClick={props.onNewLink} aria-label={`New link for ${m.name}`} data-testid="member-relink">
            New link
          </Button>
        ) : null}
        {manage ? (
          <ConfirmButton
            label="Remove"
            ariaLabel={`Remove ${m.name}`}
            title={`Remove ${m.name}?`}
            message={
              <p>
                <strong>{m.name}</strong> leaves the organization: their sessions and API keys stop working at once.
                What they made stays.
              </p>
            }
            confirmLabel="Remove"
            testid="member-remove"
            onConfirm={async () => {
              await members.remove(m.userId);
              notify(`${m.name} removed`);
              props.onRemoved();
            }}
          />
        ) : null}
      </td>
    </tr>
  );
}

function InviteForm(props: {
  myRole: string;
  onCancel: () => void;
  onInvited: (name: string, i: MemberInvite) => void;
}) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const { busy, error, run } = useAction();
  return (
    <CreateForm
      title="Invite someone"
      testid="member-form"
      onSubmit={async () => {
        const r = await run(() => members.invite({ name: name.trim(), email: email.trim(), role }));
        if (r) props.onInvited(r.member.name, r);
      }}
      onCancel={props.onCancel}
      error={error}
      busy={busy}
      submitLabel="Create invite link"
      submitTestid="member-invite"
    >
      <Field label="Name">
        {(id) => (
          <input
            id={id}
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            data-testid="member-name"
          />
        )}
      </Field>
      <Field label="Email" hint="They sign in with it.">
        {(id, hint) => (
          <input
            id={id}
            type="email"
            required
            aria-describedby={hint}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            data-testid="member-email"
          />
        )}
      </Field>
      <Field label="Role" hint={ROLE_HELP[role]}>
        {(id, hint) => (
          <select
            id={id}
            aria-describedby={hint}
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role)}
            data-testid="member-invite-role"
          >
            {assignableRoles(props.myRole).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        )}
      </Field>
    </CreateForm>
  );
}

function InviteLink(props: { name: string; invite: MemberInvite; onDismiss: () => void }) {
  return (
    <SecretCard
      label={`Invite link for ${props.name}`}
      title={`Invite link for ${props.name}`}
      warning={
        <>
          Send this link to {props.name}: it works once, until {formatDay(props.invite.inviteExpiresAt)}, and is not
          shown again.
        </>
      }
      secret={props.invite.inviteUrl}
      doneLabel="Done"
      onDismiss={props.onDismiss}
      testids={{ card: 'member-link', secret: 'member-link-url', copy: 'member-link-copy', done: 'member-link-done' }}
    />
  );
}

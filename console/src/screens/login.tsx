/** Sign in and invite acceptance. */
import { useState } from 'preact/hooks';
import { auth, type Session } from '../api.ts';
import { useAction } from '../hooks.ts';
import { Button, ErrorBox, Field } from '../ui.tsx';

function loginError(err: unknown): unknown {
  const e = err as { status?: number; code?: string; retryAfterMs?: number };
  if (e?.status === 401) return new Error('Wrong email or password.');
  if (e?.status === 429) {
    const s = e.retryAfterMs ? Math.ceil(e.retryAfterMs / 1000) : undefined;
    return new Error(
      `Too many attempts. Try again${s ? ` in ${s > 90 ? `${Math.ceil(s / 60)} minutes` : `${s} seconds`}` : ' later'}.`,
    );
  }
  return err;
}

export function LoginScreen({ onDone }: { onDone: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <form
      class="card auth-card"
      data-testid="login-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const s = await run(async () => {
          try {
            return await auth.login(email.trim(), password);
          } catch (err) {
            throw loginError(err);
          }
        });
        if (s) onDone(s);
      }}
    >
      <h1>Sign in</h1>
      <Field label="Email">
        {(id) => (
          <input
            id={id}
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            data-testid="login-email"
          />
        )}
      </Field>
      <Field label="Password">
        {(id) => (
          <input
            id={id}
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            data-testid="login-password"
          />
        )}
      </Field>
      <ErrorBox error={error} testid="login-error" />
      <Button type="submit" variant="primary" busy={busy} data-testid="login-submit" class="wide">
        Sign in
      </Button>
      <p class="hint">No account? Ask your operator for an invite link.</p>
    </form>
  );
}

export function InviteScreen({ token, onDone }: { token: string; onDone: (s: Session) => void }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const { busy, error, run, setError } = useAction();
  return (
    <form
      class="card auth-card"
      data-testid="invite-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (password !== again) {
          setError(new Error('The two passwords differ.'));
          return;
        }
        const s = await run(async () => {
          try {
            return await auth.acceptInvite(token, password);
          } catch (err) {
            const st = (err as { status?: number }).status;
            if (st === 404 || st === 410 || st === 401) throw new Error('This invite link is invalid or has expired.');
            throw loginError(err);
          }
        });
        if (s) onDone(s);
      }}
    >
      <h1>Welcome to Atelier</h1>
      <p>Choose a password to finish setting up your account.</p>
      <Field label="New password" hint="At least 12 characters.">
        {(id, hint) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            aria-describedby={hint}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            data-testid="invite-password"
          />
        )}
      </Field>
      <Field label="Repeat password">
        {(id) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            value={again}
            onInput={(e) => setAgain(e.currentTarget.value)}
            data-testid="invite-password-again"
          />
        )}
      </Field>
      <ErrorBox error={error} testid="invite-error" />
      <Button type="submit" variant="primary" busy={busy} data-testid="invite-submit" class="wide">
        Set password and sign in
      </Button>
    </form>
  );
}

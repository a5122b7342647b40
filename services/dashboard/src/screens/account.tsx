// The screens the collector's e-mails lead to, and the way there: asking for a password reset, choosing the new
// password, and accepting an invitation to an organization.
import { limits } from '@collector/domain/limits';
import { type FormEvent, type ReactNode, useState } from 'react';
import { client, messageOf } from '../api';
import { Link, navigate, paths, useTitle } from '../navigation';

/** The card the signed-out screens share with sign-in. */
function Card({ title, children }: { title: string; children: ReactNode }) {
  useTitle(title);
  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <p className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          collector
        </p>
        <h1 tabIndex={-1}>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** One form's sending, its failure and its success. */
function useSubmit(send: (form: FormData) => Promise<void>) {
  const [state, setState] = useState<{ busy: boolean; error?: string; done?: boolean }>({ busy: false });
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      await send(new FormData(event.currentTarget));
      setState({ busy: false, done: true });
    } catch (failure) {
      setState({ busy: false, error: messageOf(failure) });
    }
  };
  return { ...state, submit };
}

export function ForgotPasswordScreen() {
  const request = useSubmit(async (form) => {
    await client.auth.passwordReset.mutate({ email: String(form.get('email') ?? '') });
  });
  return (
    <Card title="Reset your password">
      {request.done ? (
        // The same answer whatever the e-mail: the collector never says which addresses have accounts.
        <p className="notice notice-info" role="status">
          If an account has that e-mail, a link to choose a new password is on its way. It works for one hour. Without
          e-mail on this collector, ask whoever runs it for a link.
        </p>
      ) : (
        <form className="form" onSubmit={request.submit}>
          <label className="field">
            <span>E-mail</span>
            <input name="email" type="email" autoComplete="username" required maxLength={limits.emailChars} />
          </label>
          {request.error && (
            <p className="notice notice-error" role="alert">
              {request.error}
            </p>
          )}
          <button type="submit" className="button button-primary" disabled={request.busy}>
            Send the link
          </button>
        </form>
      )}
      <p className="auth-switch">
        <Link href={paths.signin()}>Back to sign in</Link>
      </p>
    </Card>
  );
}

export function ResetPasswordScreen({ token }: { token: string }) {
  const reset = useSubmit(async (form) => {
    await client.auth.confirmPasswordReset.mutate({ token, password: String(form.get('password') ?? '') });
  });
  return (
    <Card title="Choose a new password">
      {reset.done ? (
        <p className="notice notice-info" role="status">
          Your password is changed, and every session of your account has ended.{' '}
          <Link href={paths.signin()}>Sign in</Link> with the new one.
        </p>
      ) : (
        <form className="form" onSubmit={reset.submit}>
          <label className="field">
            <span>New password</span>
            <input
              name="password"
              type="password"
              autoComplete="new-password"
              required
              minLength={limits.passwordMinChars}
              maxLength={limits.passwordMaxChars}
            />
          </label>
          {reset.error && (
            <p className="notice notice-error" role="alert">
              {reset.error}
            </p>
          )}
          <button type="submit" className="button button-primary" disabled={reset.busy}>
            Set the password
          </button>
        </form>
      )}
    </Card>
  );
}

/** Signed in: join the organization the link invites to. (Signed out, the sign-up form takes the link: auth.tsx.) */
export function InvitationScreen({ token }: { token: string }) {
  const [joined, setJoined] = useState<string>();
  const accept = useSubmit(async () => {
    const { org } = await client.invitations.accept.mutate({ token });
    setJoined(org.slug);
  });
  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>Invitation</h1>
      </div>
      <section className="panel">
        {joined ? (
          <p className="notice notice-info" role="status">
            You are now a member. <Link href={paths.team(joined)}>See the team</Link> or{' '}
            <Link href={paths.issues()}>its issues</Link>.
          </p>
        ) : (
          <form className="form" onSubmit={accept.submit}>
            <p>You are invited to join an organization on this collector, with the account you are signed in with.</p>
            {accept.error && (
              <p className="notice notice-error" role="alert">
                {accept.error}
              </p>
            )}
            <button type="submit" className="button button-primary" disabled={accept.busy}>
              Accept the invitation
            </button>{' '}
            <button type="button" className="button" onClick={() => navigate(paths.overview())}>
              Not now
            </button>
          </form>
        )}
      </section>
    </>
  );
}

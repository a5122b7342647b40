// Signing up and signing in: one form, two purposes.
import { limits } from '@collector/domain/limits';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { client, messageOf, session } from '../api';
import { Link, navigate, paths, useLocation, useTitle } from '../navigation';

/** `invitation`: the token of an invitation link, which the new account joins its organization with. */
export function AuthScreen({ mode, invitation }: { mode: 'signin' | 'signup'; invitation?: string }) {
  const signup = mode === 'signup';
  const title = invitation ? 'Join your team' : signup ? 'Create your account' : 'Sign in';
  useTitle(title);
  const notice = session.notice;
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const { search } = useLocation();
  // Back here once signed in, to accept the invitation with an existing account.
  const next = invitation ? `/invitations/${invitation}` : search.get('next');
  const keepNext = next ? `?${new URLSearchParams({ next })}` : '';
  // Focus on the heading, as on every other screen, not in the e-mail field: a screen reader then reads the title and
  // the notice (why the session ended) before the form, and the field is one Tab away.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, [mode]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const credentials = { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') };
    setBusy(true);
    setError(undefined);
    try {
      const { token } = signup
        ? await client.auth.register.mutate({ ...credentials, ...(invitation ? { invitation } : {}) })
        : await client.auth.login.mutate(credentials);
      session.start(token);
      // Registered through an invitation: already a member, so on to the team's issues.
      if (invitation && signup) navigate(paths.issues(), { replace: true });
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <p className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          collector
        </p>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {invitation && (
          <p className="notice notice-info" role="status">
            You are invited to an organization on this collector. Create your account with the invited e-mail, or{' '}
            <Link href={paths.signin() + keepNext}>sign in</Link> to accept with an account you have.
          </p>
        )}
        {notice && !error && (
          <p className="notice notice-info" role="status">
            {notice}
          </p>
        )}
        <form onSubmit={submit} className="form" aria-describedby={error ? 'auth-error' : undefined}>
          <label className="field">
            <span>E-mail</span>
            <input
              name="email"
              type="email"
              autoComplete={signup ? 'email' : 'username'}
              required
              maxLength={limits.emailChars}
            />
          </label>
          <label className="field">
            <span>Password</span>
            <input
              name="password"
              type="password"
              autoComplete={signup ? 'new-password' : 'current-password'}
              required
              minLength={limits.passwordMinChars}
              maxLength={limits.passwordMaxChars}
            />
            {signup && (
              <small className="hint">
                {limits.passwordMinChars} to {limits.passwordMaxChars} characters; a passphrase is easiest to remember.
              </small>
            )}
          </label>
          {error && (
            <p id="auth-error" className="notice notice-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Please wait…' : signup ? 'Create account' : 'Sign in'}
          </button>
        </form>
        <p className="auth-switch">
          {signup ? (
            <>
              Already have an account? <Link href={paths.signin() + keepNext}>Sign in</Link>
            </>
          ) : (
            <>
              New here? <Link href={paths.signup() + keepNext}>Create an account</Link>
              {' · '}
              <Link href={paths.forgot()}>Forgot your password?</Link>
            </>
          )}
        </p>
      </div>
    </main>
  );
}

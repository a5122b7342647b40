// What a screen shows while it waits, when it fails, and when there is nothing to show yet.
import type { ReactNode } from 'react';
import { Link, paths } from './navigation';
import type { Query } from './query';

/** `retrying`: the collector said it is busy (503) and the call is asked again shortly, which is no error yet. */
function Loading({ label = 'Loading…', retrying = false }: { label?: string; retrying?: boolean | undefined }) {
  return (
    <p className="loading" role="status">
      {retrying ? 'The collector is busy; retrying in a moment…' : label}
    </p>
  );
}

/** The API's own message, and a way to try again: never a blank page. */
export function ErrorState({
  title = 'Something went wrong',
  message,
  onRetry,
}: {
  title?: string;
  message: string;
  onRetry?: () => void;
}) {
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A query's failure, or its wait until the first answer: a reload keeps the data it had on screen instead. */
export function QueryStatus({ query, failure }: { query: Query<unknown>; failure: string }) {
  if (query.status === 'error') return <ErrorState title={failure} message={query.error} onRetry={query.reload} />;
  if (query.status === 'loading' && query.data === undefined) return <Loading retrying={query.retrying} />;
  return null;
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="notice notice-empty">
      <p className="notice-title">{title}</p>
      {children}
    </div>
  );
}

/** An appKey in the address that none of the user's apps has (mistyped, or the app of another account). */
export function NoSuchApp({ appKey }: { appKey: string }) {
  return (
    <EmptyState title="No such app">
      <p>
        None of your apps has the appKey <code>{appKey}</code>. <Link href={paths.apps()}>See your apps</Link>
      </p>
    </EmptyState>
  );
}

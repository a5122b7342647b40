// One app: its appKey, and how to send it events.
import { CopyButton } from '../copy-button';
import { Link, paths, useTitle } from '../navigation';
import { curlSnippet, sdkSnippet } from '../sdk-snippet';
import { EmptyState, ErrorState, Loading } from '../states';
import { Time } from '../time';
import { useWorkspace } from '../workspace';

export function AppScreen({ appKey }: { appKey: string }) {
  const { apps } = useWorkspace();
  const app = apps.data?.find((candidate) => candidate.appKey === appKey);
  useTitle(app?.name ?? 'App');
  const endpoint = window.location.origin;

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.apps()}>Apps</Link>
      </nav>
      <div className="page-head">
        <h1 tabIndex={-1}>{app?.name ?? 'App'}</h1>
        {app && (
          <div className="toolbar">
            <Link href={paths.overview(app.appKey)} className="button">
              Overview
            </Link>
            <Link href={paths.issues(app.appKey)} className="button">
              Issues
            </Link>
          </div>
        )}
      </div>
      {apps.status === 'error' && <ErrorState title="Could not load your apps" message={apps.error} onRetry={apps.reload} />}
      {apps.status === 'loading' && !apps.data && <Loading />}
      {apps.data && !app && (
        <EmptyState title="No such app">
          <p>
            None of your apps has the appKey <code>{appKey}</code>. <Link href={paths.apps()}>See your apps</Link>
          </p>
        </EmptyState>
      )}
      {app && (
        <>
          <section className="panel" aria-labelledby="key-title">
            <h2 id="key-title">appKey</h2>
            <p className="muted">
              The SDK sends events with this key. It is not a secret (it ships in your pages) and it can only add events. A {app.type} app,
              created <Time ms={app.createdAt} />.
            </p>
            <div className="key-row">
              <code className="app-key" data-app-key={app.appKey}>
                {app.appKey}
              </code>
              <CopyButton text={app.appKey} label="Copy appKey" />
            </div>
          </section>
          <section className="panel" aria-labelledby="snippet-title">
            <h2 id="snippet-title">Add the SDK</h2>
            <p>Put this at the top of every page, before your own scripts:</p>
            {/* Focusable so that a keyboard can scroll a long snippet. */}
            <pre className="snippet" tabIndex={0} aria-label="SDK snippet">
              {sdkSnippet({ appKey: app.appKey, endpoint })}
            </pre>
            <CopyButton text={sdkSnippet({ appKey: app.appKey, endpoint })} label="Copy snippet" />
            <details className="more">
              <summary>Send a test event from a shell</summary>
              <pre className="snippet" tabIndex={0} aria-label="curl command">
                {curlSnippet({ appKey: app.appKey, endpoint })}
              </pre>
              <CopyButton text={curlSnippet({ appKey: app.appKey, endpoint })} label="Copy command" />
            </details>
          </section>
        </>
      )}
    </>
  );
}

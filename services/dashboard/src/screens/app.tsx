// One app: its appKey and DSN, and how to send it events: our script tag for web apps, a Sentry SDK for the others.

import type { App } from '../api';
import { CodeBlock } from '../code-block';
import { CopyButton } from '../copy-button';
import { FeedbackPanel } from '../feedback-panel';
import { Link, paths, useTitle } from '../navigation';
import { curlSnippet, sdkSnippet, sentrySetup } from '../sdk-snippet';
import { NoSuchApp, QueryStatus } from '../states';
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
            <Link href={paths.alerts(app.appKey)} className="button">
              Alerts
            </Link>
            <Link href={paths.releases(app.appKey)} className="button">
              Releases
            </Link>
          </div>
        )}
      </div>
      <QueryStatus query={apps} failure="Could not load your apps" />
      {apps.data && !app && <NoSuchApp appKey={appKey} />}
      {app && (
        <>
          <section className="panel" aria-labelledby="key-title">
            <h2 id="key-title">appKey</h2>
            <p className="muted">
              The SDK sends events with this key. It is not a secret (it ships in your pages) and it can only add
              events. A {app.type} app, created <Time ms={app.createdAt} />.
            </p>
            <div className="key-row">
              <code className="app-key" data-app-key={app.appKey}>
                {app.appKey}
              </code>
              <CopyButton text={app.appKey} label="Copy appKey" />
            </div>
          </section>
          <section className="panel" aria-labelledby="dsn-title">
            <h2 id="dsn-title">DSN</h2>
            <p className="muted">
              Sentry SDKs send events to this address, unmodified. Like the appKey it ships in your app and can only add
              events.
            </p>
            <div className="key-row">
              <code className="app-key" data-dsn={app.dsn}>
                {app.dsn}
              </code>
              <CopyButton text={app.dsn} label="Copy DSN" />
            </div>
          </section>
          {app.type === 'web' ? <ScriptTagSetup app={app} endpoint={endpoint} /> : <SentrySetup app={app} />}
          <section className="panel" aria-labelledby="test-title">
            <h2 id="test-title">Try it</h2>
            <details className="more">
              <summary>Send a test event from a shell</summary>
              <CodeBlock kind="snippet" label="curl command">
                {curlSnippet({ appKey: app.appKey, endpoint })}
              </CodeBlock>
              <CopyButton text={curlSnippet({ appKey: app.appKey, endpoint })} label="Copy command" />
            </details>
          </section>
          <FeedbackPanel appKey={app.appKey} />
        </>
      )}
    </>
  );
}

/** Web apps: the collector's own browser SDK, one script tag served by the collector itself. */
function ScriptTagSetup({ app, endpoint }: { app: App; endpoint: string }) {
  const snippet = sdkSnippet({ appKey: app.appKey, endpoint });
  return (
    <section className="panel" aria-labelledby="snippet-title">
      <h2 id="snippet-title">Add the SDK</h2>
      <p>Put this at the top of every page, before your own scripts:</p>
      <CodeBlock kind="snippet" label="SDK snippet">
        {snippet}
      </CodeBlock>
      <CopyButton text={snippet} label="Copy snippet" />
      <p className="muted">Already using Sentry's browser SDK? Point it at the DSN above instead.</p>
    </section>
  );
}

/** Every other type: the platform's Sentry SDK with the app's DSN. */
function SentrySetup({ app }: { app: App }) {
  const setup = sentrySetup({ type: app.type, dsn: app.dsn });
  return (
    <section className="panel" aria-labelledby="snippet-title">
      <h2 id="snippet-title">Add the Sentry SDK</h2>
      {setup.install && (
        <p>
          Install: <code>{setup.install}</code>
        </p>
      )}
      <p>{setup.where}</p>
      <CodeBlock kind="snippet" label="SDK snippet">
        {setup.code}
      </CodeBlock>
      <CopyButton text={setup.code} label="Copy snippet" />
    </section>
  );
}

// The overview: the five totals for all apps or one, events over time, and the issues seen last.
import { useState } from 'react';
import { client, type Totals } from '../api';
import { AppFilter } from '../app-filter';
import { EventsChart } from '../chart';
import { Link, paths, useLocation, useTitle } from '../navigation';
import { countOf, formatNumber } from '../numbers';
import { OutcomesPanel } from '../outcomes-panel';
import { useQuery } from '../query';
import { EmptyState, ErrorState, Loading } from '../states';
import { Time } from '../time';
import { appName, useWorkspace } from '../workspace';

const totalsShown: { key: keyof Totals; label: string }[] = [
  { key: 'events', label: 'Events' },
  { key: 'errors', label: 'Errors' },
  { key: 'failedRequests', label: 'Failed requests' },
  { key: 'affectedUsers', label: 'Affected users' },
  { key: 'issues', label: 'Issues' },
];


export function OverviewScreen() {
  useTitle('Overview');
  const { search } = useLocation();
  const appKey = search.get('app') ?? undefined;
  const { apps } = useWorkspace();
  const [bucket, setBucket] = useState<'hour' | 'day'>('hour');
  const totals = useQuery(async () => (await client.overview.get.query({ appKey })).totals, [appKey]);
  const series = useQuery(() => client.overview.timeseries.query({ appKey, bucket }), [appKey, bucket]);
  const latest = useQuery(() => client.issues.list.query({ appKey, limit: 5 }), [appKey]);
  const [refreshes, setRefreshes] = useState(0);
  const refresh = () => {
    setRefreshes((count) => count + 1);
    apps.reload(); // apps made elsewhere (another tab, the API) join the filter
    totals.reload();
    series.reload();
    latest.reload();
  };
  const noApps = apps.status === 'ok' && apps.data.length === 0;
  // Where to find the SDK snippet: the chosen app, or the only one, or the list.
  const soleApp = apps.data?.length === 1 ? apps.data[0] : undefined;
  const setupPath = appKey ? paths.app(appKey) : soleApp ? paths.app(soleApp.appKey) : paths.apps();

  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>Overview</h1>
        <div className="toolbar">
          <AppFilter appKey={appKey} pathFor={paths.overview} />
          <button type="button" className="button" onClick={refresh}>
            Refresh
          </button>
        </div>
      </div>

      {noApps && (
        <EmptyState title="No apps yet">
          <p>An app gives you an appKey for the SDK. Create one to start collecting errors.</p>
          <p>
            <Link href={paths.apps()} className="button button-primary">
              Create an app
            </Link>
          </p>
        </EmptyState>
      )}

      <section aria-labelledby="totals-title">
        <h2 id="totals-title" className="visually-hidden">
          Totals, all time
        </h2>
        {totals.status === 'error' && <ErrorState title="Could not load the totals" message={totals.error} onRetry={totals.reload} />}
        {totals.status === 'loading' && !totals.data && <Loading />}
        {totals.data && (
          <dl className="totals" aria-busy={totals.status === 'loading'}>
            {totalsShown.map(({ key, label }) => (
              <div key={key} className={`total total-${key}`} data-total={key}>
                <dt>{label}</dt>
                <dd>{formatNumber(totals.data?.[key] ?? 0)}</dd>
              </div>
            ))}
          </dl>
        )}
        {!noApps && totals.data?.events === 0 && (
          <EmptyState title="No events yet: add the SDK">
            <p>
              {appKey ? `${appName(apps.data, appKey)} has` : 'Your apps have'} not sent anything yet. Put the SDK snippet in your pages and the first
              errors show up here.
            </p>
            <p>
              <Link href={setupPath}>Get the SDK snippet</Link>
            </p>
          </EmptyState>
        )}
      </section>

      <section className="panel" aria-labelledby="chart-title">
        <div className="panel-head">
          <h2 id="chart-title">Events over time</h2>
          <fieldset className="segmented">
            <legend className="visually-hidden">Period</legend>
            {(
              [
                ['hour', 'Last 24 hours'],
                ['day', 'Last 30 days'],
              ] as const
            ).map(([value, label]) => (
              <button key={value} type="button" aria-pressed={bucket === value} onClick={() => setBucket(value)}>
                {label}
              </button>
            ))}
          </fieldset>
        </div>
        {series.status === 'error' && <ErrorState title="Could not load the chart" message={series.error} onRetry={series.reload} />}
        {series.status === 'loading' && !series.data && <Loading />}
        {series.data && <EventsChart series={series.data} />}
      </section>

      <OutcomesPanel appKey={appKey} refreshKey={refreshes} />

      <section className="panel" aria-labelledby="latest-title">
        <div className="panel-head">
          <h2 id="latest-title">Latest issues</h2>
          <Link href={paths.issues(appKey)}>All issues</Link>
        </div>
        {latest.status === 'error' && <ErrorState title="Could not load the issues" message={latest.error} onRetry={latest.reload} />}
        {latest.status === 'loading' && !latest.data && <Loading />}
        {latest.data && latest.data.issues.length === 0 && <p className="muted">No issues yet.</p>}
        {latest.data && latest.data.issues.length > 0 && (
          <ul className="issue-list">
            {latest.data.issues.map((issue) => (
              <li key={issue.id}>
                <Link href={paths.issue(issue.id)} className="issue-link">
                  <span className="issue-type">{issue.errorType}</span>
                  <span className="issue-message">{issue.message || '(no message)'}</span>
                </Link>
                <span className="muted">
                  {countOf(issue.eventCount, 'event')} · last seen <Time ms={issue.lastSeenAt} />
                  {!appKey && ` · ${appName(apps.data, issue.appKey)}`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

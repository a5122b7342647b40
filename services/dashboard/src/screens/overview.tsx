// The overview: the five totals for all apps or one over one period, events over that period, and the unresolved
// issues seen last. The period and the app are in the URL.
import { limits } from '@collector/domain/limits';
import { useEffect, useState } from 'react';
import { client, type Totals } from '../api';
import { AppFilter } from '../app-filter';
import { EventsChart } from '../chart';
import { IssueName } from '../issue-title';
import { Link, navigate, paths, rememberSection, useLocation, useTitle } from '../navigation';
import { countOf, formatNumber } from '../numbers';
import { OutcomesPanel } from '../outcomes-panel';
import { useQuery } from '../query';
import { EmptyState, QueryStatus } from '../states';
import { Time } from '../time';
import { appName, useWorkspace } from '../workspace';

const totalsShown: { key: keyof Totals; label: string }[] = [
  { key: 'events', label: 'Events' },
  { key: 'errors', label: 'Errors' },
  { key: 'failedRequests', label: 'Failed requests' },
  { key: 'affectedUsers', label: 'Affected users' },
  { key: 'issues', label: 'Issues' },
];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const ranges = [
  { value: '24h', label: '24 hours', ms: DAY, bucket: 'hour', step: HOUR },
  { value: '7d', label: '7 days', ms: 7 * DAY, bucket: 'day', step: DAY },
  { value: '30d', label: '30 days', ms: 30 * DAY, bucket: 'day', step: DAY },
  { value: 'all', label: 'All time', ms: undefined, bucket: 'day', step: DAY },
] as const;
type Range = (typeof ranges)[number];

const windowStart = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const overviewHref = (appKey: string | undefined, range: Range, org?: string) => {
  const query = new URLSearchParams();
  if (appKey) query.set('app', appKey);
  else if (org) query.set('org', org);
  if (range.value !== '24h') query.set('range', range.value);
  const text = query.toString();
  return `/${text ? `?${text}` : ''}`;
};

export function OverviewScreen() {
  useTitle('Overview');
  const { search, href } = useLocation();
  useEffect(() => rememberSection('overview', href), [href]);
  const appKey = search.get('app') ?? undefined;
  // Totals over all apps cover one organization: the one chosen, else the caller's own.
  const org = appKey ? undefined : (search.get('org') ?? undefined);
  const range = ranges.find((each) => each.value === search.get('range')) ?? ranges[0];
  const { apps } = useWorkspace();
  // One "now" for the totals and the chart, so both cover exactly the same period; Refresh moves it.
  const [now, setNow] = useState(() => Date.now());
  // "All time" charts by day from before the first app was made (an event may be dated up to 30 days before it came).
  const chosenApps = apps.data?.filter((app) => (appKey ? app.appKey === appKey : !org || app.org === org)) ?? [];
  const allFrom =
    chosenApps.length > 0 ? Math.min(...chosenApps.map((app) => app.createdAt)) - limits.maxEventAgeMs : now - 30 * DAY;
  // The chart counts whole UTC hours or days, so the totals and the outcomes start where its first bucket does (a
  // little before "24 hours ago") and end where its last one does: every number on the page counts the same events,
  // and the page says from when.
  const from = range.ms === undefined ? undefined : Math.floor((now - range.ms) / range.step) * range.step;
  const to = Math.floor(now / range.step) * range.step + range.step;
  const span = from === undefined ? 'all time' : `since ${windowStart.format(from)}`;
  const chartFrom = from ?? Math.max(allFrom, now - 999 * DAY);
  const totals = useQuery(
    async () => (await client.overview.get.query({ appKey, org, ...(from !== undefined ? { from, to } : {}) })).totals,
    [appKey, org, from, to, now], // now: Refresh asks again, though the window may start and end where it did
  );
  const series = useQuery(
    () => client.overview.timeseries.query({ appKey, org, bucket: range.bucket, from: chartFrom, to }),
    [appKey, org, range.bucket, chartFrom, to, now],
  );
  // Whether anything ever came, for the hint to add the SDK (the period's totals may be zero for a quiet period).
  const ever = useQuery(
    async () => (from === undefined ? null : (await client.overview.get.query({ appKey, org })).totals.events),
    [appKey, org, from === undefined, now],
  );
  const latest = useQuery(
    () => client.issues.list.query({ appKey, org, limit: 5, status: 'unresolved' }),
    [appKey, org, now],
  );
  const [refreshes, setRefreshes] = useState(0);
  const refresh = () => {
    setRefreshes((count) => count + 1);
    apps.reload(); // apps made elsewhere (another tab, the API) join the filter
    setNow(Date.now());
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
          <AppFilter
            appKey={appKey}
            org={org}
            pathFor={(app) => overviewHref(app, range)}
            orgPath={(slug) => overviewHref(undefined, range, slug)}
          />
          <fieldset className="segmented">
            <legend className="visually-hidden">Period</legend>
            {ranges.map((each) => (
              <button
                key={each.value}
                type="button"
                aria-pressed={range === each}
                onClick={() => navigate(overviewHref(appKey, each, org))}
              >
                {each.label}
              </button>
            ))}
          </fieldset>
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
        <h2 id="totals-title" className="totals-title">
          Totals{from === undefined ? ', ' : ' '}
          {span}
        </h2>
        <QueryStatus query={totals} failure="Could not load the totals" />
        {!noApps && totals.data?.events === 0 && (ever.data ?? 0) > 0 && <p className="muted">Nothing {span}.</p>}
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
        {!noApps && totals.data?.events === 0 && (ever.data ?? 0) === 0 && ever.status === 'ok' && (
          <EmptyState title="No events yet: add the SDK">
            <p>
              {appKey ? `${appName(apps.data, appKey)} has` : 'Your apps have'} not sent anything yet. Put the SDK
              snippet in your pages and the first errors show up here.
            </p>
            <p>
              <Link href={setupPath}>Get the SDK snippet</Link>
            </p>
          </EmptyState>
        )}
      </section>

      <section className="panel" aria-labelledby="chart-title">
        <div className="panel-head">
          <h2 id="chart-title">
            Events{from === undefined ? ', ' : ' '}
            {span}
          </h2>
          <span className="muted">per {range.bucket}</span>
        </div>
        <QueryStatus query={series} failure="Could not load the chart" />
        {series.data && <EventsChart series={series.data} span={from === undefined ? undefined : span} />}
      </section>

      <OutcomesPanel appKey={appKey} org={org} from={from} span={span} refreshKey={refreshes} />

      <section className="panel" aria-labelledby="latest-title">
        <div className="panel-head">
          <h2 id="latest-title">Latest unresolved issues</h2>
          <Link href={paths.issues(appKey)}>All issues</Link>
        </div>
        <QueryStatus query={latest} failure="Could not load the issues" />
        {latest.data && latest.data.issues.length === 0 && <p className="muted">No issues yet.</p>}
        {latest.data && latest.data.issues.length > 0 && (
          <ul className="issue-list">
            {latest.data.issues.map((issue) => (
              <li key={issue.id}>
                <Link href={paths.issue(issue.id)} className="issue-link">
                  <IssueName issue={issue} />
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

// Issues, most recently seen first, a page at a time, for all apps or one.
import { useState } from 'react';
import { client } from '../api';
import { AppFilter } from '../app-filter';
import { Link, paths, useLocation, useTitle } from '../navigation';
import { formatNumber } from '../numbers';
import { useQuery } from '../query';
import { EmptyState, ErrorState, Loading } from '../states';
import { Time } from '../time';
import { appName, useWorkspace } from '../workspace';

export const ISSUES_PAGE_SIZE = 20;

export function IssuesScreen() {
  useTitle('Issues');
  const { search } = useLocation();
  const appKey = search.get('app') ?? undefined;
  // A new filter starts again from the first page.
  return <IssuesTable key={appKey ?? ''} appKey={appKey} />;
}

function IssuesTable({ appKey }: { appKey: string | undefined }) {
  const { apps } = useWorkspace();
  // The cursors of the pages visited so far: page n is fetched with cursors[n] (undefined for the first).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length - 1;
  const cursor = cursors[page];
  const issues = useQuery(() => client.issues.list.query({ appKey, limit: ISSUES_PAGE_SIZE, ...(cursor ? { cursor } : {}) }), [appKey, cursor]);
  const data = issues.data;
  const showApp = !appKey && (apps.data?.length ?? 0) > 1;

  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>Issues</h1>
        <div className="toolbar">
          <AppFilter appKey={appKey} pathFor={paths.issues} />
          <button
            type="button"
            className="button"
            onClick={() => {
              apps.reload();
              issues.reload();
            }}
          >
            Refresh
          </button>
        </div>
      </div>

      {issues.status === 'error' && <ErrorState title="Could not load the issues" message={issues.error} onRetry={issues.reload} />}
      {issues.status === 'loading' && !data && <Loading />}
      {data && data.issues.length === 0 && page === 0 && (
        <EmptyState title="No events yet: add the SDK">
          <p>Errors and failed requests your apps send are grouped into issues here.</p>
          <p>
            <Link href={appKey ? paths.app(appKey) : paths.apps()}>Get the SDK snippet</Link>
          </p>
        </EmptyState>
      )}
      {data && data.issues.length === 0 && page > 0 && <p className="muted">No more issues.</p>}
      {data && data.issues.length > 0 && (
        <div className="table-scroll" aria-busy={issues.status === 'loading'}>
          <table className="issues responsive">
            <caption className="visually-hidden">Issues, most recently seen first, page {page + 1}</caption>
            <thead>
              <tr>
                <th scope="col">Issue</th>
                {showApp && <th scope="col">App</th>}
                <th scope="col" className="number">
                  Events
                </th>
                <th scope="col" className="number">
                  Users
                </th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {data.issues.map((issue) => (
                <tr key={issue.id}>
                  <td className="issue-cell">
                    <Link href={paths.issue(issue.id)} className="issue-link">
                      <span className="issue-type">{issue.errorType}</span>
                      <span className="issue-message">{issue.message || '(no message)'}</span>
                    </Link>
                  </td>
                  {showApp && <td data-label="App">{appName(apps.data, issue.appKey)}</td>}
                  <td data-label="Events" className="number">
                    {formatNumber(issue.eventCount)}
                  </td>
                  <td data-label="Users" className="number">
                    {formatNumber(issue.userCount)}
                  </td>
                  <td data-label="First seen">
                    <Time ms={issue.firstSeenAt} />
                  </td>
                  <td data-label="Last seen">
                    <Time ms={issue.lastSeenAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && (page > 0 || data.nextCursor) && (
        <nav className="pager" aria-label="Pages">
          <button type="button" className="button" disabled={page === 0} onClick={() => setCursors((list) => list.slice(0, -1))}>
            Previous
          </button>
          <span className="muted">Page {page + 1}</span>
          <button
            type="button"
            className="button"
            disabled={!data.nextCursor || issues.status === 'loading'}
            onClick={() => data.nextCursor && setCursors((list) => [...list, data.nextCursor ?? undefined])}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}

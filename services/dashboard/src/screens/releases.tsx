// One app's releases: each version with its first and last event, events, new issues, deploys and artifacts, and
// "no source maps for this release" where events arrived in it but nothing was uploaded for it.
import { type AppRelease, client } from '../api';
import { Link, paths, useTitle } from '../navigation';
import { useQuery } from '../query';
import { NoSuchApp, QueryStatus } from '../states';
import { Table } from '../table';
import { Time } from '../time';
import { useWorkspace } from '../workspace';

function Deploys({ release }: { release: AppRelease }) {
  const { count, latest } = release.deploys;
  if (count === 0) return <span className="muted">none</span>;
  return (
    <ul className="plain-list">
      {latest.map((deploy) => (
        <li key={`${deploy.environment}-${deploy.dateFinished}`}>
          {deploy.environment}
          {deploy.name ? ` (${deploy.name})` : ''} <Time ms={deploy.dateFinished} />
        </li>
      ))}
      {count > latest.length && <li className="muted">and {count - latest.length} more</li>}
    </ul>
  );
}

export function ReleasesScreen({ appKey }: { appKey: string }) {
  const { apps } = useWorkspace();
  const app = apps.data?.find((candidate) => candidate.appKey === appKey);
  useTitle(app ? `Releases · ${app.name}` : 'Releases');
  const releases = useQuery(async () => (await client.releases.list.query({ appKey })).releases, [appKey]);
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.apps()}>Apps</Link> / <Link href={paths.app(appKey)}>{app?.name ?? appKey}</Link>
      </nav>
      <div className="page-head">
        <h1 tabIndex={-1}>Releases</h1>
        <div className="toolbar">
          <button type="button" className="button" onClick={() => releases.reload()}>
            Refresh
          </button>
        </div>
      </div>
      {apps.data && !app && <NoSuchApp appKey={appKey} />}
      <section className="panel" aria-labelledby="releases-title">
        <h2 id="releases-title">Newest first</h2>
        <QueryStatus query={releases} failure="Could not load the releases" />
        {releases.data && releases.data.length === 0 && (
          <p className="muted">
            No releases yet: create one with <code>sentry-cli releases new</code>, or send events with a{' '}
            <code>release</code>.
          </p>
        )}
        {releases.data && releases.data.length > 0 && (
          <Table
            className="releases responsive"
            columns={['Version', 'First event', 'Last event', 'Events', 'New issues', 'Deploys', 'Artifacts']}
          >
            {releases.data.map((release) => (
              <tr key={release.version} data-release={release.version}>
                <td>
                  <code title={release.version}>{release.shortVersion}</code>
                  {release.dateReleased !== null && (
                    <div className="muted">
                      released <Time ms={release.dateReleased} />
                    </div>
                  )}
                </td>
                <td data-label="First event">
                  {release.firstEvent === null ? <span className="muted">none</span> : <Time ms={release.firstEvent} />}
                </td>
                <td data-label="Last event">
                  {release.lastEvent === null ? <span className="muted">none</span> : <Time ms={release.lastEvent} />}
                </td>
                <td data-label="Events">{release.events}</td>
                <td data-label="New issues">{release.newIssues}</td>
                <td data-label="Deploys">
                  <Deploys release={release} />
                </td>
                <td data-label="Artifacts">
                  {release.noSourceMaps ? (
                    <strong className="no-source-maps">No source maps for this release</strong>
                  ) : (
                    release.artifacts
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}

// One issue: what it is, the stack and breadcrumbs of its latest event (or one picked from the list), and its recent events.
import { useState } from 'react';
import { client, type StoredEvent } from '../api';
import { Link, paths, useTitle } from '../navigation';
import { formatNumber } from '../numbers';
import { useQuery } from '../query';
import { EmptyState, ErrorState, Loading } from '../states';
import { exactTime, Time } from '../time';
import { appName, useWorkspace } from '../workspace';

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function IssueScreen({ id }: { id: string }) {
  const { apps } = useWorkspace();
  const detail = useQuery(() => client.issues.get.query({ id, limit: 20 }), [id]);
  const [picked, setPicked] = useState<string>();
  const issue = detail.data?.issue;
  useTitle(issue ? `${issue.errorType}: ${issue.message}` : 'Issue');
  const events = detail.data?.events ?? [];
  const event = events.find((candidate) => candidate.eventId === picked) ?? events[0];

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.issues(issue?.appKey)}>Issues</Link>
        {issue && (
          <>
            {' / '}
            <Link href={paths.app(issue.appKey)}>{appName(apps.data, issue.appKey)}</Link>
          </>
        )}
      </nav>
      <div className="page-head">
        <h1 tabIndex={-1} className="issue-title">
          {issue ? (
            <>
              <span className="issue-type">{issue.errorType}</span>
              <span>{issue.message || '(no message)'}</span>
            </>
          ) : (
            'Issue'
          )}
        </h1>
        <div className="toolbar">
          <button type="button" className="button" onClick={detail.reload}>
            Refresh
          </button>
        </div>
      </div>

      {detail.status === 'error' && <ErrorState title="Could not load this issue" message={detail.error} onRetry={detail.reload} />}
      {detail.status === 'loading' && !detail.data && <Loading />}
      {issue && (
        <dl className="facts">
          <div>
            <dt>Events</dt>
            <dd>{formatNumber(issue.eventCount)}</dd>
          </div>
          <div>
            <dt>Users</dt>
            <dd>{formatNumber(issue.userCount)}</dd>
          </div>
          <div>
            <dt>First seen</dt>
            <dd>
              <Time ms={issue.firstSeenAt} />
            </dd>
          </div>
          <div>
            <dt>Last seen</dt>
            <dd>
              <Time ms={issue.lastSeenAt} />
            </dd>
          </div>
          <div className="fact-wide">
            <dt>Fingerprint</dt>
            <dd>
              <code>{issue.fingerprint}</code>
            </dd>
          </div>
        </dl>
      )}
      {detail.data && !event && <EmptyState title="No events stored for this issue." />}
      {event && issue && <EventDetail event={event} latest={event === events[0]} issueMessage={issue.message} />}
      {events.length > 0 && (
        <section className="panel" aria-labelledby="events-title">
          <h2 id="events-title">Recent events</h2>
          <div className="table-scroll">
            <table className="events responsive">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Session</th>
                  <th scope="col">User</th>
                  <th scope="col">Platform</th>
                  <th scope="col">SDK</th>
                  <th scope="col">
                    <span className="visually-hidden">Details</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {events.map((candidate) => {
                  const shown = candidate === event;
                  return (
                    <tr key={candidate.eventId} className={shown ? 'selected' : undefined} aria-current={shown ? 'true' : undefined}>
                      <td data-label="Time">
                        <Time ms={candidate.timestamp} />
                      </td>
                      <td data-label="Session">{candidate.sessionId ? <code>{candidate.sessionId}</code> : '—'}</td>
                      <td data-label="User">{candidate.anonymousId ? <code>{candidate.anonymousId}</code> : '—'}</td>
                      <td data-label="Platform">{candidate.platform ?? '—'}</td>
                      <td data-label="SDK">{candidate.sdkVersion ?? '—'}</td>
                      <td>
                        {shown ? (
                          <span className="muted">Shown above</span>
                        ) : (
                          <button type="button" className="button button-small" onClick={() => setPicked(candidate.eventId)}>
                            Show<span className="visually-hidden"> the event of {exactTime(candidate.timestamp)}</span>
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}

function EventDetail({ event, latest, issueMessage }: { event: StoredEvent; latest: boolean; issueMessage: string }) {
  const context: [string, string | undefined][] = [
    ['Page', event.url],
    ['Release', event.release],
    ['Environment', event.environment],
    ['Browser', event.userAgent],
    ['Received', exactTime(event.receivedAt)],
    ['Event id', event.eventId],
  ];
  return (
    <>
      <section className="panel" aria-labelledby="stack-title">
        <div className="panel-head">
          <h2 id="stack-title">{event.request ? 'Request' : 'Stack trace'}</h2>
          <span className="muted">
            {latest ? 'latest event' : 'picked event'}, <Time ms={event.timestamp} />
          </span>
        </div>
        {/* Events of one issue may word their message differently (numbers, ids); show this one's when it does. */}
        {event.message && event.message !== issueMessage && <p className="event-message">{event.message}</p>}
        {event.request && (
          <p className="request-line">
            <code>
              {event.request.method.toUpperCase()} {event.request.url}
            </code>{' '}
            {event.request.status ? `answered ${event.request.status}` : 'got no answer (network error)'}
            {event.request.durationMs !== undefined && ` after ${formatNumber(event.request.durationMs)} ms`}
          </p>
        )}
        {event.frames && event.frames.length > 0 ? (
          <>
            <StackFrames frames={event.frames} />
            {event.stack && (
              <details className="more">
                <summary>Raw stack trace</summary>
                {/* Focusable so that a keyboard can scroll a long snippet. */}
                <pre className="stack" tabIndex={0} aria-label="Stack trace">
                  {event.stack}
                </pre>
              </details>
            )}
          </>
        ) : event.stack ? (
          // Focusable so that a keyboard can scroll a long trace.
          <pre className="stack" tabIndex={0} aria-label="Stack trace">
            {event.stack}
          </pre>
        ) : (
          !event.request && <p className="muted">This event has no stack trace.</p>
        )}
      </section>

      <section className="panel" aria-labelledby="crumbs-title">
        <h2 id="crumbs-title">Breadcrumbs</h2>
        {event.breadcrumbs && event.breadcrumbs.length > 0 ? (
          <ol className="breadcrumbs">
            {event.breadcrumbs.map((crumb, index) => (
              // Keyed by position: breadcrumbs have no id and never reorder.
              <li key={index} className={`crumb crumb-${crumb.level ?? 'info'}`}>
                <span className="crumb-time">{crumb.timestamp !== undefined ? clock.format(crumb.timestamp) : ''}</span>
                <span className="crumb-category">{crumb.category ?? '—'}</span>
                <span className="crumb-message">
                  {crumb.message}
                  {crumb.data && Object.keys(crumb.data).length > 0 && <code className="crumb-data">{JSON.stringify(crumb.data)}</code>}
                </span>
                {crumb.level && crumb.level !== 'info' && <span className="crumb-level">{crumb.level}</span>}
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">No breadcrumbs came with this event.</p>
        )}
      </section>

      <section className="panel" aria-labelledby="context-title">
        <h2 id="context-title">Context</h2>
        <dl className="context">
          {context
            .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
            .map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
        </dl>
      </section>
    </>
  );
}

type Frame = NonNullable<StoredEvent['frames']>[number];

/** The last part of a path or URL (what a person looks for first); the whole of it is shown beneath. */
function fileName(file: string): string {
  const path = file.split(/[?#]/, 1)[0] ?? file;
  return path.slice(path.lastIndexOf('/') + 1) || file;
}

/**
 * Structured frames, innermost first, whichever SDK sent them: the app's own code stands out, libraries and runtime
 * frames are quieter; the file name comes first and the full path wraps, so a phone shows both without scrolling.
 */
function StackFrames({ frames }: { frames: Frame[] }) {
  return (
    <ol className="frames" aria-label="Stack frames">
      {frames.map((frame, index) => (
        // Frames have no id and never reorder: their index is their key.
        <li key={index} className={frame.inApp ? 'frame in-app' : 'frame'}>
          <div className="frame-head">
            <code className="frame-function">{frame.function || '<anonymous>'}</code>
            {frame.inApp && <span className="frame-tag">your code</span>}
          </div>
          {frame.file && (
            <div className="frame-location">
              <code>
                <span className="frame-file">{fileName(frame.file)}</span>
                {frame.line !== undefined && `:${frame.line}`}
                {frame.column !== undefined && `:${frame.column}`}
              </code>
              {fileName(frame.file) !== frame.file && <span className="frame-path">{frame.file}</span>}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}

// One issue: its status (resolve, ignore, reopen), where it happens, 30 days of events, who it reaches (browsers,
// releases, environments), the stack and breadcrumbs of one event, and its events a page at a time.
import { describeUserAgent } from '@collector/domain/user-agent';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type Breakdown, client, type IssueStatus, messageOf, type StoredEvent } from '../api';
import { EventsChart } from '../chart';
import { CodeBlock } from '../code-block';
import { FeedbackPanel } from '../feedback-panel';
import { IssueBadges, issueKind, statusLabels } from '../issue-title';
import { IssueWork } from '../issue-work';
import { Link, navigate, paths, sectionHref, useLocation, useTitle } from '../navigation';
import { formatNumber } from '../numbers';
import { CursorPager } from '../pager';
import { useQuery } from '../query';
import { EmptyState, QueryStatus } from '../states';
import { StatusActions } from '../status-actions';
import { Table } from '../table';
import { exactTime, Time } from '../time';
import { appName, useWorkspace } from '../workspace';

const EVENTS_PAGE_SIZE = 20;
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The address of one event of an issue: the page of events it is on (its cursor) and the event itself. */
function issueHref(id: string, options: { cursor?: string | undefined; page?: number; event?: string | undefined }) {
  const query = new URLSearchParams();
  if (options.cursor && (options.page ?? 1) > 1) {
    query.set('page', String(options.page));
    query.set('cursor', options.cursor);
  }
  if (options.event) query.set('event', options.event);
  const text = query.toString();
  return paths.issue(id) + (text ? `?${text}` : '');
}

export function IssueScreen({ id }: { id: string }) {
  const { apps } = useWorkspace();
  const { search } = useLocation();
  const cursor = search.get('cursor') ?? undefined;
  const pageNumber = Math.max(1, Number(search.get('page')) || 1);
  const picked = search.get('event') ?? undefined;
  const detail = useQuery(
    () => client.issues.get.query({ id, limit: EVENTS_PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
    [id, cursor],
  );
  const [change, setChange] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const eventPanel = useRef<HTMLElement>(null);
  const issue = detail.data?.issue;
  useTitle(issue ? `${issueKind(issue.errorType)}: ${issue.message}` : 'Issue');
  const events = detail.data?.events ?? [];
  const event = events.find((candidate) => candidate.eventId === picked) ?? events[0];
  const firstOnPage = (pageNumber - 1) * EVENTS_PAGE_SIZE;

  // A link to one event scrolls to it once it is loaded.
  const scrolledTo = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (picked && event?.eventId === picked && scrolledTo.current !== picked) {
      scrolledTo.current = picked;
      eventPanel.current?.scrollIntoView({ block: 'start' });
    }
  }, [picked, event]);

  const setStatus = async (status: IssueStatus) => {
    setChange({ busy: true });
    try {
      await client.issues.update.mutate({ id, status });
      setChange({ busy: false });
      detail.reload();
    } catch (error) {
      setChange({ busy: false, error: messageOf(error) });
    }
  };

  const show = (eventId: string) => {
    navigate(issueHref(id, { cursor, page: pageNumber, event: eventId }), {
      replace: true,
      state: window.history.state,
    });
    scrolledTo.current = eventId;
    eventPanel.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    eventPanel.current?.focus({ preventScroll: true });
  };

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={sectionHref('issues', { screen: 'issue', app: null })}>Issues</Link>
        {issue && (
          <>
            {' / '}
            <Link href={paths.app(issue.appKey)}>{appName(apps.data, issue.appKey)}</Link>
          </>
        )}
      </nav>
      <div className="page-head">
        <div className="issue-heading">
          <h1 tabIndex={-1} className="issue-title">
            {issue ? (
              <>
                <span className="issue-type">{issueKind(issue.errorType)}</span>
                {issue.culprit && <span className="issue-culprit">{issue.culprit}</span>}
              </>
            ) : (
              'Issue'
            )}
          </h1>
          {issue && <ClampedMessage text={issue.message || '(no message)'} />}
        </div>
        <div className="toolbar">
          {issue && <IssueBadges issue={issue} />}
          {issue && <StatusActions current={issue.status} busy={change.busy} primary="resolved" onChange={setStatus} />}
          <button type="button" className="button" onClick={detail.reload}>
            Refresh
          </button>
        </div>
      </div>
      {change.error && (
        <p className="notice notice-error" role="alert">
          Could not change the status: {change.error}
        </p>
      )}

      <QueryStatus query={detail} failure="Could not load this issue" />
      {issue && (
        <dl className="facts">
          <Fact label="Status">
            {statusLabels[issue.status]}
            {issue.statusChangedAt !== null && (
              <>
                {' '}
                {/* Receipt time, as the contract's regressedAt: a late event (an SDK's offline queue) dated before
                    the resolve must not date the reopening before it. The event's own time is on the event. */}
                <span className="muted">
                  since <Time ms={issue.statusChangedAt} />
                  {issue.status === 'unresolved' &&
                    issue.regressedAt === issue.statusChangedAt &&
                    ', when a new event was received after it was resolved'}
                </span>
              </>
            )}
          </Fact>
          <Fact label="Events">{formatNumber(issue.eventCount)}</Fact>
          <Fact label="Users">{formatNumber(issue.userCount)}</Fact>
          <Fact label="First seen">
            <Time ms={issue.firstSeenAt} />
          </Fact>
          <Fact label="Last seen">
            <Time ms={issue.lastSeenAt} />
          </Fact>
          {issue.regressedAt !== null && (
            <Fact label="Regressed">
              <Time ms={issue.regressedAt} />
            </Fact>
          )}
          <Fact label="Level">{issue.level}</Fact>
          <Fact label="Last release">{issue.lastRelease ?? '—'}</Fact>
          <Fact label="Fingerprint" wide>
            <code>{issue.fingerprint}</code>
          </Fact>
        </dl>
      )}
      {issue && (
        <section className="panel" aria-labelledby="series-title">
          <h2 id="series-title">Events per day, last 30 days</h2>
          <EventsChart
            series={{
              bucket: 'day',
              buckets: issue.series.map((day) => ({
                start: day.start,
                events: day.events,
                errors: issue.errorType === 'request' ? 0 : day.events,
                failedRequests: issue.errorType === 'request' ? day.events : 0,
              })),
            }}
          />
        </section>
      )}
      {issue && <IssueWork issue={issue} onChange={detail.reload} />}
      {issue && <FeedbackPanel issueId={issue.id} />}
      {detail.data && detail.data.breakdown.events > 0 && <BreakdownPanel breakdown={detail.data.breakdown} />}
      {detail.data && !event && <EmptyState title="No events stored for this issue." />}
      {event && issue && (
        <section ref={eventPanel} tabIndex={-1} aria-label="The event shown" className="event-shown">
          <EventDetail event={event} latest={event === events[0] && pageNumber === 1} issueMessage={issue.message} />
        </section>
      )}
      {issue && events.length > 0 && (
        <section className="panel" aria-labelledby="events-title">
          <div className="panel-head">
            <h2 id="events-title">Events</h2>
            <span className="muted">
              {formatNumber(firstOnPage + 1)}–{formatNumber(firstOnPage + events.length)} of{' '}
              {formatNumber(issue.eventCount)} events
            </span>
          </div>
          <Table
            className="events responsive"
            columns={['Time', 'Browser', 'User', 'Release', { name: 'Details', hidden: true }]}
          >
            {events.map((candidate) => {
              const shown = candidate === event;
              const agent = candidate.userAgent ? describeUserAgent(candidate.userAgent) : undefined;
              return (
                <tr
                  key={candidate.eventId}
                  className={shown ? 'selected' : undefined}
                  aria-current={shown ? 'true' : undefined}
                >
                  <td data-label="Time">
                    <Link
                      href={issueHref(id, { cursor, page: pageNumber, event: candidate.eventId })}
                      title="A link to this event"
                    >
                      <Time ms={candidate.timestamp} />
                    </Link>
                  </td>
                  <td data-label="Browser">{agent ? `${agent.browser} · ${agent.os}` : '—'}</td>
                  <td data-label="User">{candidate.anonymousId ? <code>{candidate.anonymousId}</code> : '—'}</td>
                  <td data-label="Release">{candidate.release ?? '—'}</td>
                  <td>
                    {shown ? (
                      <span className="muted">Shown above</span>
                    ) : (
                      <button type="button" className="button button-small" onClick={() => show(candidate.eventId)}>
                        Show<span className="visually-hidden"> the event of {exactTime(candidate.timestamp)}</span>
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
          <CursorPager
            label="Pages of events"
            previousLabel="Newer"
            nextLabel="Older"
            page={pageNumber}
            cursor={cursor}
            nextCursor={detail.data?.nextCursor}
            loading={detail.status === 'loading'}
            hrefFor={(pageCursor, page) => issueHref(id, { cursor: pageCursor, page })}
          />
        </section>
      )}
    </>
  );
}

/** One line of a list of facts (`dl`): what it is, and its value. */
function Fact({ label, wide = false, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? 'fact-wide' : undefined}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A long message is clamped to a few lines, with a button to read all of it. */
function ClampedMessage({ text }: { text: string }) {
  const [expanded, setExpanded] = useState(false);
  const long = text.length > 240 || text.split('\n').length > 3;
  return (
    <div className="issue-message-block">
      <p className={`issue-full-message${long && !expanded ? ' clamped' : ''}`}>{text}</p>
      {long && (
        <button
          type="button"
          className="button button-small button-quiet"
          aria-expanded={expanded}
          onClick={() => setExpanded((value) => !value)}
        >
          {expanded ? 'Show less' : 'Show the whole message'}
        </button>
      )}
    </div>
  );
}

const breakdownParts: { key: keyof Omit<Breakdown, 'events'>; title: string; none: string }[] = [
  { key: 'browsers', title: 'Browsers', none: 'No user agent' },
  { key: 'os', title: 'Operating systems', none: 'No user agent' },
  { key: 'releases', title: 'Releases', none: 'No release' },
  { key: 'environments', title: 'Environments', none: 'No environment' },
];

function BreakdownPanel({ breakdown }: { breakdown: Breakdown }) {
  return (
    <section className="panel" aria-labelledby="breakdown-title">
      <div className="panel-head">
        <h2 id="breakdown-title">Where it happens</h2>
        <span className="muted">the latest {formatNumber(breakdown.events)} stored events</span>
      </div>
      <div className="breakdown">
        {breakdownParts.map((part) => (
          <div key={part.key}>
            <h3>{part.title}</h3>
            <ul className="bars">
              {breakdown[part.key].slice(0, 5).map((entry) => {
                const share = Math.round((entry.events / breakdown.events) * 100);
                return (
                  <li key={entry.value ?? ''}>
                    <span className="bar-label">{entry.value ?? part.none}</span>
                    <span className="bar-value">
                      {formatNumber(entry.events)} ({share}%)
                    </span>
                    <span className="bar" style={{ width: `${share}%` }} aria-hidden="true" />
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
}

function EventDetail({ event, latest, issueMessage }: { event: StoredEvent; latest: boolean; issueMessage: string }) {
  const agent = event.userAgent ? describeUserAgent(event.userAgent) : undefined;
  // An error's request is the one it happened in, shown with the event's data; a failed request's is the event.
  const failedRequest = event.type === 'request' ? event.request : undefined;
  const context: [string, string | undefined][] = [
    ['Page', event.url],
    ['Release', event.release],
    ['Environment', event.environment],
    ['Browser', agent?.browser],
    ['Operating system', agent?.os],
    ['User agent', event.userAgent],
    ['Received', exactTime(event.receivedAt)],
    ['Event id', event.eventId],
  ];
  return (
    <>
      <section className="panel" aria-labelledby="stack-title">
        <div className="panel-head">
          <h2 id="stack-title">{failedRequest ? 'Request' : 'Stack trace'}</h2>
          <span className="muted">
            {latest ? 'latest event' : 'picked event'}, <Time ms={event.timestamp} />
          </span>
        </div>
        {/* Events of one issue may word their message differently (numbers, ids); show this one's when it does. */}
        {event.message && event.message !== issueMessage && <ClampedMessage text={event.message} />}
        {failedRequest && (
          <p className="request-line">
            <code>
              {(failedRequest.method ?? 'GET').toUpperCase()} {failedRequest.url}
            </code>{' '}
            {failedRequest.status ? `answered ${failedRequest.status}` : 'got no answer (network error)'}
            {failedRequest.durationMs !== undefined && ` after ${formatNumber(failedRequest.durationMs)} ms`}
          </p>
        )}
        {event.frames && event.frames.length > 0 ? (
          <>
            <StackFrames frames={event.frames} />
            {event.stack && (
              <details className="more">
                <summary>Raw stack trace</summary>
                <CodeBlock kind="stack" label="Raw stack trace">
                  {event.stack}
                </CodeBlock>
              </details>
            )}
          </>
        ) : event.stack ? (
          <CodeBlock kind="stack" label="Raw stack trace">
            {event.stack}
          </CodeBlock>
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
                  {crumb.data && Object.keys(crumb.data).length > 0 && (
                    <code className="crumb-data">{JSON.stringify(crumb.data)}</code>
                  )}
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
              <Fact key={label} label={label}>
                {value}
              </Fact>
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

// One issue: its status (resolve, ignore, reopen), where it happens, 30 days of events, its tags, who it reaches
// (browsers, OS, runtimes, devices, releases, environments), one event's exception chain, breadcrumbs, user, contexts,
// request and extra data with newer and older events a step away, and its events a page at a time.
import { describeUserAgent } from '@collector/domain/user-agent';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type Breakdown, client, type IssueStatus, messageOf, type StoredEvent } from '../api';
import { EventsChart } from '../chart';
import { CodeBlock } from '../code-block';
import {
  EventDataPanels,
  ExceptionChain,
  hasMappedFrames,
  MinifiedToggle,
  RequestDetails,
  StackFrames,
  SymbolicationNote,
  TagsPanel,
} from '../event-data';
import { FeedbackPanel } from '../feedback-panel';
import { IssueBadges, issueKind, LevelBadge, statusLabels, UnhandledBadge } from '../issue-title';
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
/** `event=` this: the last event of the page, where stepping to a newer event from the next page's first lands. */
const LAST_ON_PAGE = 'last';
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
  const event =
    picked === LAST_ON_PAGE ? events.at(-1) : (events.find((candidate) => candidate.eventId === picked) ?? events[0]);
  const shownIndex = event ? events.indexOf(event) : -1;
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

  // Newer and older: the event beside this one on the page, or across to the page before or after, whose cursors the
  // history entry keeps as the pager's do (pager.tsx), so Back and the pager still agree.
  const pageCursors = (): (string | undefined)[] => {
    const state = window.history.state as { pageCursors?: (string | undefined)[] } | null;
    return Array.isArray(state?.pageCursors) ? state.pageCursors : [];
  };
  const newer = events[shownIndex - 1];
  const older = events[shownIndex + 1];
  const nextCursor = detail.data?.nextCursor;
  const stepNewer = () => {
    if (newer) return show(newer.eventId);
    const cursors = pageCursors();
    const before = cursors.length === pageNumber - 1 ? cursors.at(-1) : undefined;
    navigate(issueHref(id, { cursor: before, page: before ? pageNumber - 1 : 1, event: LAST_ON_PAGE }), {
      state: { pageCursors: before ? cursors.slice(0, -1) : [] },
    });
  };
  const stepOlder = () => {
    if (older) return show(older.eventId);
    if (!nextCursor) return;
    navigate(issueHref(id, { cursor: nextCursor, page: pageNumber + 1 }), {
      state: { pageCursors: [...pageCursors(), cursor] },
    });
  };
  const stepper = event && issue && (
    <nav className="event-steps" aria-label="Events of this issue">
      <button
        type="button"
        className="button button-small"
        disabled={shownIndex <= 0 && pageNumber === 1}
        onClick={stepNewer}
      >
        Newer event
      </button>
      <span className="muted">
        Event {formatNumber(firstOnPage + shownIndex + 1)} of {formatNumber(issue.eventCount)}
      </span>
      <button type="button" className="button button-small" disabled={!older && !nextCursor} onClick={stepOlder}>
        Older event
      </button>
    </nav>
  );

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
          {issue && <LevelBadge level={issue.level} />}
          {issue?.unhandled && <UnhandledBadge />}
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
          <Fact label="Level">
            <LevelBadge level={issue.level} />
          </Fact>
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
      {issue && <TagsPanel issueId={issue.id} appKey={issue.appKey} events={issue.eventCount} />}
      {issue && <IssueWork issue={issue} onChange={detail.reload} />}
      {issue && <FeedbackPanel issueId={issue.id} />}
      {detail.data && detail.data.breakdown.events > 0 && <BreakdownPanel breakdown={detail.data.breakdown} />}
      {detail.data && !event && <EmptyState title="No events stored for this issue." />}
      {event && issue && (
        <section ref={eventPanel} tabIndex={-1} aria-label="The event shown" className="event-shown">
          <EventDetail
            event={event}
            latest={event === events[0] && pageNumber === 1}
            issueMessage={issue.message}
            stepper={stepper}
          />
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

/** `client`: a part the client names (user agent or contexts), shown only when some event named it. */
const breakdownParts: { key: keyof Omit<Breakdown, 'events'>; title: string; none: string; client?: boolean }[] = [
  { key: 'browsers', title: 'Browsers', none: 'Not sent', client: true },
  { key: 'os', title: 'Operating systems', none: 'Not sent', client: true },
  { key: 'runtimes', title: 'Runtimes', none: 'Not sent', client: true },
  { key: 'devices', title: 'Devices', none: 'Not sent', client: true },
  { key: 'releases', title: 'Releases', none: 'No release' },
  { key: 'environments', title: 'Environments', none: 'No environment' },
];

function BreakdownPanel({ breakdown }: { breakdown: Breakdown }) {
  return (
    <section className="panel" aria-labelledby="breakdown-title">
      <div className="panel-head">
        <h2 id="breakdown-title">Where it happens</h2>
        <span className="muted">of its {formatNumber(breakdown.events)} events</span>
      </div>
      <div className="breakdown">
        {/* A server app's events name no browser: "Browsers: not sent 100%" would only hide its OS and runtime. */}
        {breakdownParts
          .filter((part) => !part.client || breakdown[part.key].some((entry) => entry.value !== null))
          .map((part) => (
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

function EventDetail({
  event,
  latest,
  issueMessage,
  stepper,
}: {
  event: StoredEvent;
  latest: boolean;
  issueMessage: string;
  stepper: ReactNode;
}) {
  const agent = event.userAgent ? describeUserAgent(event.userAgent) : undefined;
  // An error's request is the one it happened in, shown with the event's data; a failed request's is the event.
  const failedRequest = event.type === 'request' ? event.request : undefined;
  const errorRequest = event.type === 'request' ? undefined : event.request;
  const exceptions = event.exceptions ?? [];
  // Kept while stepping between events: one looking at minified frames likely wants the next event's too.
  const [minified, setMinified] = useState(false);
  const mapped = hasMappedFrames(event);
  const context: [string, string | undefined][] = [
    ['Page', event.url],
    ['Release', event.release],
    ['Environment', event.environment],
    ['Transaction', event.transaction],
    ['Server', event.serverName],
    ['Logger', event.logger],
    ['Browser', agent?.browser],
    ['Operating system', agent?.os],
    ['User agent', event.userAgent],
    ['Happened', exactTime(event.timestamp)],
    ['Received', exactTime(event.receivedAt)],
    ['Event id', event.eventId],
  ];
  return (
    <>
      {stepper}
      <section className="panel" aria-labelledby="stack-title">
        <div className="panel-head">
          <h2 id="stack-title">{failedRequest ? 'Request' : exceptions.length > 1 ? 'Exceptions' : 'Stack trace'}</h2>
          <span className="muted event-times">
            {latest ? 'latest event,' : 'picked event,'}
            {event.handled === false && (
              <>
                {' '}
                <UnhandledBadge />
              </>
            )}
            {event.handled === true && (
              <>
                {' '}
                <span className="badge">Handled</span>
              </>
            )}{' '}
            {/* The SDK's clock and ours: apart, they show a late or queued event (or a client clock that is off). */}
            <span>
              happened <Time ms={event.timestamp} />,
            </span>{' '}
            <span>
              received <Time ms={event.receivedAt} />
            </span>
          </span>
        </div>
        {event.cut && event.cut.length > 0 && (
          <p className="notice notice-info cut-note">Some data was cut for size: {event.cut.join(', ')}.</p>
        )}
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
        {failedRequest && <RequestDetails request={failedRequest} />}
        {exceptions.length > 0 || (event.frames && event.frames.length > 0) ? (
          <>
            <SymbolicationNote symbolication={event.symbolication} />
            {mapped && (
              <div className="frames-toolbar">
                <span className="muted">
                  {minified
                    ? 'Frames as the SDK sent them, minified.'
                    : 'Frames mapped to the original source by source maps.'}
                </span>
                <MinifiedToggle pressed={minified} onChange={setMinified} />
              </div>
            )}
            {exceptions.length > 0 ? (
              <ExceptionChain exceptions={exceptions} minified={mapped && minified} />
            ) : (
              <StackFrames frames={event.frames ?? []} minified={mapped && minified} />
            )}
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

      {errorRequest && (
        <section className="panel" aria-labelledby="request-title">
          <h2 id="request-title">Request</h2>
          <p className="request-line">
            <code>
              {(errorRequest.method ?? 'GET').toUpperCase()} {errorRequest.url}
            </code>
            {errorRequest.status !== undefined && ` answered ${errorRequest.status}`}
          </p>
          <RequestDetails request={errorRequest} />
        </section>
      )}

      <EventDataPanels event={event} />

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

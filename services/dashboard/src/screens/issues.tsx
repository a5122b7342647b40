// Issues to work through: status tabs, search, filters and sort, a page at a time, with resolve, ignore and reopen
// for a selection. Everything the list shows is in its URL, so a reload, a shared link and the back button keep it.
import { eventFieldChars } from '@collector/domain/limits';
import { parseSearch } from '@collector/domain/search';
import { issueSorts, issueStatuses } from '@collector/domain/triage';
import { type FormEvent, useEffect, useState } from 'react';
import { type CollectorInputs, client, type Issue, type IssueFacets, messageOf } from '../api';
import { AppFilter } from '../app-filter';
import { IssueBadges, IssueName, LevelBadge, statusLabels } from '../issue-title';
import { Link, navigate, paths, rememberSection, useLocation, useTitle } from '../navigation';
import { countOf, formatNumber } from '../numbers';
import { CursorPager } from '../pager';
import { useQuery } from '../query';
import { SearchBox } from '../search-box';
import { Sparkline } from '../sparkline';
import { EmptyState, QueryStatus } from '../states';
import { StatusActions } from '../status-actions';
import { Table } from '../table';
import { Time } from '../time';
import { appName, useWorkspace } from '../workspace';

const ISSUES_PAGE_SIZE = 20;

type Status = Issue['status'];
type ListInput = CollectorInputs['issues']['list'];
type Sort = NonNullable<ListInput['sort']>;

const tabs: { value: Status | 'all'; label: string }[] = [
  ...issueStatuses.map((value) => ({ value, label: statusLabels[value] })),
  { value: 'all', label: 'All' },
];

const sortLabels: Record<Sort, string> = {
  lastSeen: 'Last seen',
  firstSeen: 'First seen',
  events: 'Most events',
  users: 'Most users',
};
const sorts = issueSorts.map((value) => ({ value, label: sortLabels[value] }));

/** The list's state as its URL says it; absent parameters are the defaults (unresolved, last seen, first page). */
interface ListState {
  app?: string;
  status: Status | 'all';
  q?: string;
  type?: 'error' | 'request';
  /** Issues assigned to the caller, or to nobody. */
  assignee?: 'me' | 'none';
  release?: string;
  environment?: string;
  sort: Sort;
  cursor?: string;
  page: number;
}

function readState(search: URLSearchParams): ListState {
  const status = search.get('status');
  const sort = search.get('sort');
  const type = search.get('type');
  const assignee = search.get('assignee');
  const page = Number(search.get('page'));
  const text = (name: string) => search.get(name)?.trim() || undefined;
  return {
    app: text('app'),
    status: tabs.some((tab) => tab.value === status) ? (status as ListState['status']) : 'unresolved',
    q: text('q'),
    type: type === 'error' || type === 'request' ? type : undefined,
    assignee: assignee === 'me' || assignee === 'none' ? assignee : undefined,
    release: text('release'),
    environment: text('environment'),
    sort: sorts.some((each) => each.value === sort) ? (sort as Sort) : 'lastSeen',
    cursor: text('cursor'),
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

function hrefOf(state: ListState): string {
  const query = new URLSearchParams();
  if (state.app) query.set('app', state.app);
  if (state.status !== 'unresolved') query.set('status', state.status);
  if (state.q) query.set('q', state.q);
  if (state.type) query.set('type', state.type);
  if (state.assignee) query.set('assignee', state.assignee);
  if (state.release) query.set('release', state.release);
  if (state.environment) query.set('environment', state.environment);
  if (state.sort !== 'lastSeen') query.set('sort', state.sort);
  if (state.cursor && state.page > 1) {
    query.set('page', String(state.page));
    query.set('cursor', state.cursor);
  }
  const text = query.toString();
  return `/issues${text ? `?${text}` : ''}`;
}

/** A change of filter or sort starts again from the first page. */
const withFilter = (state: ListState, change: Partial<ListState>): ListState => ({
  ...state,
  ...change,
  cursor: undefined,
  page: 1,
});

export function IssuesScreen() {
  useTitle('Issues');
  const { search, href } = useLocation();
  const state = readState(search);
  useEffect(() => rememberSection('issues', href), [href]);
  return <IssuesList state={state} key={hrefOf({ ...state, cursor: undefined, page: 1 })} />;
}

function IssuesList({ state }: { state: ListState }) {
  const { apps } = useWorkspace();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<{ kind: 'done' | 'error'; text: string }>();
  const [busy, setBusy] = useState(false);
  // A search the API would refuse (the same parser reads it there) is not asked for: the search box shows its message.
  const parsedSearch = state.q ? parseSearch(state.q) : undefined;
  const searchFault = parsedSearch !== undefined && !parsedSearch.ok;
  const issues = useQuery(
    () =>
      searchFault
        ? Promise.resolve(undefined)
        : client.issues.list.query({
            appKey: state.app,
            limit: ISSUES_PAGE_SIZE,
            ...(state.status !== 'all' ? { status: state.status } : {}),
            ...(state.q ? { q: state.q } : {}),
            ...(state.type ? { type: state.type } : {}),
            ...(state.assignee ? { assignee: state.assignee } : {}),
            ...(state.release ? { release: state.release } : {}),
            ...(state.environment ? { environment: state.environment } : {}),
            sort: state.sort,
            ...(state.cursor ? { cursor: state.cursor } : {}),
          }),
    [hrefOf(state)],
  );
  // Suggestions for the release and environment filters, which match exactly, and for the search box's keys and
  // values: the values the app's issues have.
  const facets = useQuery(() => client.issues.facets.query({ appKey: state.app }), [state.app]);
  const data = issues.data;
  const showApp = !state.app && (apps.data?.length ?? 0) > 1;
  const go = (next: ListState) => navigate(hrefOf(next));
  const filtered = Boolean(state.q || state.type || state.assignee || state.release || state.environment);
  const pageIds = data?.issues.map((issue) => issue.id) ?? [];
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.has(id));

  const setStatus = async (status: Status, ids: string[]) => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const { updated } = await client.issues.updateMany.mutate({ ids, status });
      const verb = { resolved: 'resolved', ignored: 'ignored', unresolved: 'reopened' }[status];
      setOutcome({ kind: 'done', text: `${countOf(updated, 'issue')} ${verb}.` });
      setSelected(new Set());
      issues.reload();
    } catch (error) {
      setOutcome({ kind: 'error', text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>Issues</h1>
        <div className="toolbar">
          <AppFilter appKey={state.app} pathFor={(app) => hrefOf(withFilter(state, { app }))} />
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

      <nav className="tabs" aria-label="Status">
        {tabs.map((tab) => (
          <Link
            key={tab.value}
            href={hrefOf(withFilter(state, { status: tab.value }))}
            aria-current={state.status === tab.value ? 'page' : undefined}
          >
            {tab.label}
          </Link>
        ))}
      </nav>

      <Filters state={state} facets={facets.data} onChange={(change) => go(withFilter(state, change))} />

      <div className="list-head">
        <p className="muted" role="status">
          {data ? `${countOf(data.total, 'issue')} ${data.total === 1 ? 'matches' : 'match'}` : '\u00a0'}
          {data &&
            data.total > 0 &&
            ` · page ${formatNumber(state.page)} of ${formatNumber(Math.max(1, Math.ceil(data.total / ISSUES_PAGE_SIZE)))}`}
        </p>
        {selected.size > 0 && (
          <fieldset className="toolbar">
            <legend className="visually-hidden">With the selected issues</legend>
            <span>{countOf(selected.size, 'issue')} selected</span>
            <StatusActions current={state.status} busy={busy} onChange={(status) => setStatus(status, [...selected])} />
          </fieldset>
        )}
      </div>
      {outcome && (
        <p
          className={`notice ${outcome.kind === 'done' ? 'notice-info' : 'notice-error'}`}
          role={outcome.kind === 'done' ? 'status' : 'alert'}
        >
          {outcome.text}
        </p>
      )}

      <QueryStatus query={issues} failure="Could not load the issues" />
      {data && data.issues.length === 0 && state.page === 1 && !filtered && state.status === 'unresolved' && (
        <EmptyState title="No unresolved issues">
          <p>Errors and failed requests your apps send are grouped into issues here.</p>
          <p>
            <Link href={state.app ? paths.app(state.app) : paths.apps()}>Get the SDK snippet</Link>
          </p>
        </EmptyState>
      )}
      {data && data.issues.length === 0 && (state.page > 1 || filtered || state.status !== 'unresolved') && (
        <p className="muted">No issues here.</p>
      )}
      {data && data.issues.length > 0 && (
        <Table
          className="issues responsive"
          caption={`Issues, page ${state.page}`}
          busy={issues.status === 'loading'}
          columns={[
            {
              name: 'Select',
              className: 'select',
              // A phone shows the rows as cards and the headings not at all, save this box, with its words.
              heading: (
                <label className="select-all">
                  <input
                    type="checkbox"
                    aria-label="Select every issue on this page"
                    checked={allSelected}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(pageIds))}
                  />
                  <span className="select-all-words">All on this page</span>
                </label>
              ),
            },
            'Issue',
            ...(showApp ? ['App'] : []),
            { name: 'Events', className: 'number' },
            { name: 'Users', className: 'number' },
            { name: 'Last 14 days', className: 'trend' },
            'First seen',
            'Last seen',
          ]}
        >
          {data.issues.map((issue) => (
            <tr key={issue.id} className={selected.has(issue.id) ? 'selected' : undefined}>
              <td className="select">
                <input
                  type="checkbox"
                  aria-label={`Select ${issue.message || issue.errorType}`}
                  checked={selected.has(issue.id)}
                  onChange={() =>
                    setSelected((current) => {
                      const next = new Set(current);
                      if (!next.delete(issue.id)) next.add(issue.id);
                      return next;
                    })
                  }
                />
              </td>
              <td className="issue-cell">
                <Link href={paths.issue(issue.id)} className="issue-link">
                  <IssueName issue={issue} />
                </Link>
                <LevelBadge level={issue.level} /> <IssueBadges issue={issue} />
              </td>
              {showApp && <td data-label="App">{appName(apps.data, issue.appKey)}</td>}
              <td data-label="Events" className="number">
                {formatNumber(issue.eventCount)}
              </td>
              <td data-label="Users" className="number">
                {formatNumber(issue.userCount)}
              </td>
              <td data-label="Last 14 days" className="trend">
                <Sparkline series={issue.series} />
              </td>
              <td data-label="First seen">
                <Time ms={issue.firstSeenAt} />
              </td>
              <td data-label="Last seen">
                <Time ms={issue.lastSeenAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      {data && (
        <CursorPager
          label="Pages"
          previousLabel="Previous"
          nextLabel="Next"
          page={state.page}
          cursor={state.cursor}
          nextCursor={data.nextCursor}
          loading={issues.status === 'loading'}
          hrefFor={(cursor, page) => hrefOf({ ...state, cursor, page })}
          onNext={() => window.scrollTo(0, 0)}
        >
          <span className="muted">Page {formatNumber(state.page)}</span>
        </CursorPager>
      )}
    </>
  );
}

/** The text filters on one field of an event, each as long as that field may be. */
const eventFieldFilters = [
  { name: 'release', label: 'Release' },
  { name: 'environment', label: 'Environment' },
] as const;

/**
 * Search, type, release, environment and sort; text filters apply on Enter or Apply, the others at once, as do a
 * search term picked from the suggestions and a chip removed.
 */
function Filters({
  state,
  facets,
  onChange,
}: {
  state: ListState;
  facets: IssueFacets | undefined;
  onChange: (change: Partial<ListState>) => void;
}) {
  const suggestions = { release: facets?.releases ?? [], environment: facets?.environments ?? [] };
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    onChange({ q: text('q'), release: text('release'), environment: text('environment') });
  };
  return (
    <search aria-label="Filter issues">
      <form className="filters" onSubmit={apply}>
        <SearchBox name="q" value={state.q} facets={facets} />
        {eventFieldFilters.map(({ name, label }) => (
          <label key={name} className="field">
            <span>{label}</span>
            <input
              name={name}
              defaultValue={state[name] ?? ''}
              maxLength={eventFieldChars[name]}
              placeholder="Any"
              list={`${name}-suggestions`}
              autoComplete="off"
            />
            <datalist id={`${name}-suggestions`}>
              {suggestions[name].map((value) => (
                <option key={value} value={value} />
              ))}
            </datalist>
          </label>
        ))}
        <label className="field">
          <span>Type</span>
          <select
            value={state.type ?? ''}
            onChange={(event) => onChange({ type: (event.target.value || undefined) as ListState['type'] })}
          >
            <option value="">Errors and failed requests</option>
            <option value="error">Errors</option>
            <option value="request">Failed requests</option>
          </select>
        </label>
        <label className="field">
          <span>Assigned to</span>
          <select
            value={state.assignee ?? ''}
            onChange={(event) => onChange({ assignee: (event.target.value || undefined) as ListState['assignee'] })}
          >
            <option value="">Anyone or nobody</option>
            <option value="me">Me</option>
            <option value="none">Nobody</option>
          </select>
        </label>
        <label className="field">
          <span>Sort by</span>
          <select value={state.sort} onChange={(event) => onChange({ sort: event.target.value as Sort })}>
            {sorts.map((sort) => (
              <option key={sort.value} value={sort.value}>
                {sort.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="button">
          Apply
        </button>
      </form>
    </search>
  );
}

// Sentry's event data on the issue page (issue #23): the issue's tags with their commonest values, and one event's
// exception chain, user, contexts, extra data and request. Apart from screens/issue.tsx, which only places them.
import { parseSearch } from '@collector/domain/search';
import type { ReactNode } from 'react';
import { client, type StoredEvent } from './api';
import { Link } from './navigation';
import { formatNumber } from './numbers';
import { useQuery } from './query';
import { QueryStatus } from './states';

type Exception = NonNullable<StoredEvent['exceptions']>[number];
type Frame = Exception['frames'][number];

/** Terms that filter by the tag of their key: a tag's, or the built-in filters the derived tags of these keys match. */
const tagTerms = new Set(['tag', 'level', 'handled', 'release', 'environment']);

/**
 * The issue list's search for one tag value, in Sentry's syntax: `key:value`, the value quoted when it holds spaces,
 * quotes, stars or backslashes (`key:"a b"`), and `tags[key]:` for a key that plain `key:` reads otherwise (`is:`,
 * `has:`) or whose built-in filter refuses the value. Checked with the list's own parser; undefined when none reads.
 */
function tagSearch(key: string, value: string): string | undefined {
  const quoted = /[\s"*\\]/.test(value) || value.startsWith('[') ? `"${value.replace(/[\\"*]/g, '\\$&')}"` : value;
  for (const form of [`${key}:${quoted}`, `tags[${key}]:${quoted}`]) {
    const parsed = parseSearch(form);
    const term = parsed.ok && parsed.terms.length === 1 ? parsed.terms[0] : undefined;
    if (term && tagTerms.has(term.key)) return form;
  }
  return undefined;
}

/** The issue list of one app, filtered by a search. */
const searchHref = (appKey: string, q: string) => `/issues?${new URLSearchParams({ app: appKey, q })}`;

/** Each tag key with its commonest values as bars (share of the issue's events), each a link to the issues with it. */
export function TagsPanel({ issueId, appKey, events }: { issueId: string; appKey: string; events: number }) {
  const tags = useQuery(() => client.issues.tags.query({ id: issueId }), [issueId, events]);
  const list = tags.data?.tags ?? [];
  return (
    <section className="panel" aria-labelledby="tags-title">
      <div className="panel-head">
        <h2 id="tags-title">Tags</h2>
        <span className="muted">
          share of the issue’s {formatNumber(events)} events; a value lists the issues with it
        </span>
      </div>
      <QueryStatus query={tags} failure="Could not load the tags" />
      {tags.data && list.length === 0 && <p className="muted">No tags counted for this issue.</p>}
      {list.length > 0 && (
        <div className="breakdown tags">
          {list.map((tag) => (
            <div key={tag.key}>
              <h3>
                <code>{tag.key}</code>
              </h3>
              <ul className="bars">
                {tag.values.map((entry) => {
                  const share = events > 0 ? Math.min(100, Math.round((entry.events / events) * 100)) : 0;
                  const q = tagSearch(tag.key, entry.value);
                  return (
                    <li key={entry.value}>
                      <span className="bar-label">
                        {q ? (
                          <Link href={searchHref(appKey, q)} title={`Issues with ${q}`}>
                            {entry.value}
                          </Link>
                        ) : (
                          entry.value
                        )}
                      </span>
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
      )}
    </section>
  );
}

/** A value as a cell shows it: text as it is, anything nested as compact JSON. */
function valueText(value: unknown): ReactNode {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return <span className="muted">null</span>;
  if (typeof value === 'object') return <code className="json">{JSON.stringify(value)}</code>;
  return String(value);
}

/** Keys and values as a two-column table: the key a row heading, so a screen reader names each value. */
function KeyValues({ label, entries }: { label: string; entries: [string, unknown][] }) {
  return (
    <table className="key-values">
      <caption className="visually-hidden">{label}</caption>
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td>{valueText(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const contextTitles: Record<string, string> = {
  os: 'Operating system',
  runtime: 'Runtime',
  browser: 'Browser',
  device: 'Device',
  app: 'App',
  culture: 'Culture',
  trace: 'Trace',
};

/** The Sentry contexts, known ones first in Sentry's order, then custom ones by name. */
function contextOrder(a: string, b: string): number {
  const known = Object.keys(contextTitles);
  const rank = (key: string) => (known.includes(key) ? known.indexOf(key) : known.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** The user, contexts and extra data an event came with, each a table; nothing when it sent none of them. */
export function EventDataPanels({ event }: { event: StoredEvent }) {
  const user = Object.entries(event.user ?? {}).filter(([, value]) => value !== undefined && value !== '');
  const userLabels: Record<string, string> = {
    id: 'ID',
    email: 'E-mail',
    username: 'Username',
    ip_address: 'IP address',
  };
  const contexts = Object.entries(event.contexts ?? {}).sort(([a], [b]) => contextOrder(a, b));
  const extra = Object.entries(event.extra ?? {});
  return (
    <>
      {user.length > 0 && (
        <section className="panel" aria-labelledby="user-title">
          <h2 id="user-title">User</h2>
          <KeyValues label="The user" entries={user.map(([key, value]) => [userLabels[key] ?? key, value])} />
        </section>
      )}
      {contexts.length > 0 && (
        <section className="panel" aria-labelledby="contexts-title">
          <h2 id="contexts-title">Contexts</h2>
          <div className="context-groups">
            {contexts.map(([name, values]) => {
              const title = contextTitles[name] ?? name;
              // Sentry repeats a known context's name as its type: said once, by the heading.
              const entries = Object.entries(values).filter(([key, value]) => !(key === 'type' && value === name));
              return (
                <div key={name}>
                  <h3>{title}</h3>
                  <KeyValues label={`${title} context`} entries={entries} />
                </div>
              );
            })}
          </div>
        </section>
      )}
      {extra.length > 0 && (
        <section className="panel" aria-labelledby="extra-title">
          <h2 id="extra-title">Additional data</h2>
          <KeyValues label="Additional data (extra)" entries={extra} />
        </section>
      )}
    </>
  );
}

/** An HTTP request's query, headers and body: of the request an error happened in, or of the failed request. */
export function RequestDetails({ request }: { request: NonNullable<StoredEvent['request']> }) {
  const headers = Object.entries(request.headers ?? {});
  const data = request.data;
  return (
    <div className="request-details">
      {request.query && (
        <>
          <h3>Query</h3>
          <KeyValues label="Query parameters" entries={[...new URLSearchParams(request.query)]} />
        </>
      )}
      {headers.length > 0 && (
        <>
          <h3>Headers</h3>
          <KeyValues label="Request headers" entries={headers} />
        </>
      )}
      {data !== undefined && data !== null && (
        <>
          <h3>Body</h3>
          {typeof data === 'object' && !Array.isArray(data) ? (
            <KeyValues label="Request body" entries={Object.entries(data)} />
          ) : (
            <pre className="request-body">{typeof data === 'string' ? data : JSON.stringify(data)}</pre>
          )}
        </>
      )}
    </div>
  );
}

/** The last part of a path or URL (what a person looks for first); the whole of it is shown beneath. */
function fileName(file: string): string {
  const path = file.split(/[?#]/, 1)[0] ?? file;
  return path.slice(path.lastIndexOf('/') + 1) || file;
}

/**
 * The exception chain as Sentry shows it by default: the exception raised (the last of Sentry's cause-first list)
 * first, then each cause beneath it, every one with its frames innermost first.
 */
export function ExceptionChain({ exceptions, minified = false }: { exceptions: Exception[]; minified?: boolean }) {
  const shown = [...exceptions].reverse();
  return (
    <div className="exceptions">
      {shown.map((exception, index) => {
        const name = exception.type ?? 'Error';
        const mechanism = exception.mechanism;
        return (
          // The chain never reorders: position is identity.
          <div key={index} className="exception">
            {index > 0 && <p className="exception-cause">Caused by</p>}
            <h3 className="exception-head">
              <span className="exception-type">{name}</span>
              {exception.value && <span className="exception-value">{exception.value}</span>}
            </h3>
            {(mechanism || exception.module) && (
              <p className="exception-meta muted">
                {exception.module && (
                  <>
                    module <code>{exception.module}</code>{' '}
                  </>
                )}
                {mechanism?.type && (
                  <>
                    mechanism <code>{mechanism.type}</code>{' '}
                  </>
                )}
                {mechanism?.handled === false && <span className="badge badge-unhandled">Unhandled</span>}
                {mechanism?.handled === true && <span className="badge">Handled</span>}
              </p>
            )}
            {exception.frames.length > 0 ? (
              <StackFrames frames={exception.frames} label={`Frames of ${name}`} minified={minified} />
            ) : (
              <p className="muted">No stack trace came with this exception.</p>
            )}
          </div>
        );
      })}
    </div>
  );
}

/**
 * Structured frames, innermost first, whichever SDK sent them: the app's own code stands out; runs of library and
 * runtime frames fold into one line to open when the stack has frames of the app's own (else nothing would show).
 * `minified`: the frames a source map mapped are shown as the SDK sent them (their `raw` form).
 */
export function StackFrames({
  frames,
  label = 'Stack frames',
  minified = false,
}: {
  frames: Frame[];
  label?: string;
  minified?: boolean;
}) {
  const anyInApp = frames.some((frame) => frame.inApp);
  // Runs of frames: each in-app frame alone, consecutive library frames together.
  const runs: { inApp: boolean; frames: { frame: Frame; index: number }[] }[] = [];
  frames.forEach((frame, index) => {
    const inApp = Boolean(frame.inApp) || !anyInApp;
    const last = runs.at(-1);
    if (last && !inApp && !last.inApp) last.frames.push({ frame, index });
    else runs.push({ inApp, frames: [{ frame, index }] });
  });
  return (
    <ol className="frames" aria-label={label}>
      {runs.map((run) =>
        run.inApp ? (
          run.frames.map(({ frame, index }) => <FrameItem key={index} frame={frame} minified={minified} />)
        ) : (
          <li key={run.frames[0]?.index} className="frame-group">
            <LibraryFrames frames={run.frames.map((each) => each.frame)} minified={minified} />
          </li>
        ),
      )}
    </ol>
  );
}

function LibraryFrames({ frames, minified }: { frames: Frame[]; minified: boolean }) {
  return (
    <details>
      <summary>{frames.length === 1 ? '1 library frame' : `${formatNumber(frames.length)} library frames`}</summary>
      <ol className="frames frames-nested">
        {frames.map((frame, index) => (
          // Frames have no id and never reorder: their index is their key.
          <FrameItem key={index} frame={frame} minified={minified} />
        ))}
      </ol>
    </details>
  );
}

function FrameItem({ frame: given, minified }: { frame: Frame; minified: boolean }) {
  // The raw form names the minified place only: the source context, read from the map, belongs to the original.
  const frame: Frame = minified && given.raw ? { ...given.raw, inApp: given.inApp, module: given.module } : given;
  const file = frame.file ?? frame.absPath;
  // The whole path or URL beneath the name, when it says more: a bundle's URL, a mapped source's webpack:// path.
  const path = frame.absPath ?? file;
  return (
    <li className={frame.inApp ? 'frame in-app' : 'frame'}>
      <div className="frame-head">
        <code className="frame-function">{frame.function || '<anonymous>'}</code>
        {frame.inApp && <span className="frame-tag">your code</span>}
        {frame.module && <span className="frame-module">{frame.module}</span>}
        {!minified && given.raw && <span className="frame-tag frame-mapped">source map</span>}
      </div>
      {file && (
        <div className="frame-location">
          <code>
            <span className="frame-file">{fileName(file)}</span>
            {frame.line !== undefined && `:${frame.line}`}
            {frame.column !== undefined && `:${frame.column}`}
          </code>
          {path && path !== fileName(file) && <span className="frame-path">{path}</span>}
        </div>
      )}
      {frame.contextLine !== undefined && <SourceLines frame={frame} />}
    </li>
  );
}

/** The lines around a frame's line, as the SDK read them, the frame's own line marked; wrapped, never scrolled. */
function SourceLines({ frame }: { frame: Frame }) {
  const before = frame.preContext ?? [];
  const after = frame.postContext ?? [];
  const first = frame.line !== undefined ? frame.line - before.length : undefined;
  const lines = [...before, frame.contextLine ?? '', ...after];
  return (
    <pre className="source-lines">
      {lines.map((text, index) => {
        const current = index === before.length;
        const number = first !== undefined ? first + index : undefined;
        // The newline ends the line for copying; inside the marked line's block, or it would draw an empty line.
        const line = (
          <>
            {number !== undefined && <span className="line-number">{number}</span>}
            {text || ' '}
            {'\n'}
          </>
        );
        return (
          // Lines of one frame never reorder: position is identity.
          <span key={index} className={current ? 'source-line current' : 'source-line'}>
            {current ? <mark>{line}</mark> : line}
          </span>
        );
      })}
    </pre>
  );
}

type Symbolication = NonNullable<StoredEvent['symbolication']>;

/** Whether a source map mapped any frame of the event: only then has it a minified form to show. */
export function hasMappedFrames(event: Pick<StoredEvent, 'frames' | 'exceptions' | 'threads'>): boolean {
  const stacks = [event.frames ?? [], ...(event.exceptions ?? []).map((each) => each.frames)];
  for (const thread of event.threads ?? []) stacks.push(thread.frames);
  return stacks.some((frames) => frames.some((frame) => frame.raw !== undefined));
}

/** Shows the frames a source map mapped as the browser sent them (minified), and back. */
export function MinifiedToggle({ pressed, onChange }: { pressed: boolean; onChange: (pressed: boolean) => void }) {
  return (
    <button
      type="button"
      className="button button-small minified-toggle"
      aria-pressed={pressed}
      onClick={() => onChange(!pressed)}
    >
      Minified
    </button>
  );
}

/**
 * What symbolication did, in a sentence, when it left frames as they were sent: no map known, or it gave up. Mapped
 * events say nothing (their frames show it); a partly mapped one says why some frames still look minified.
 */
export function SymbolicationNote({ symbolication }: { symbolication: Symbolication | undefined }) {
  if (!symbolication || symbolication.state === 'mapped') return null;
  const detail = symbolication.detail ? ` ${symbolication.detail}` : '';
  const text = {
    partial: 'Some frames have no source map for this release or debug ID: they are shown as sent.',
    missing: 'No source map found for this release or debug ID: the frames are shown as sent.',
    timeout: 'Source maps were not applied: symbolication ran out of time, so the frames are shown as sent.',
    error: 'Source maps could not be applied, so the frames are shown as sent.',
  }[symbolication.state];
  return (
    <p className="notice notice-info symbolication-note">
      {text}
      {detail}
    </p>
  );
}

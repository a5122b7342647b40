// How an issue is named everywhere: its kind ("Failed request" for failed requests), its message, and its culprit,
// which tells apart issues with one message.
import type { Issue } from './api';

const levelLabels = { fatal: 'Fatal', error: 'Error', warning: 'Warning', info: 'Info', debug: 'Debug' } as const;

/** Failed requests without an error type of their own are stored with the event type as errorType. */
export const issueKind = (errorType: string) => (errorType === 'request' ? 'Failed request' : errorType);

export const statusLabels = { unresolved: 'Unresolved', resolved: 'Resolved', ignored: 'Ignored' } as const;

export function IssueName({ issue }: { issue: Pick<Issue, 'errorType' | 'message' | 'culprit'> }) {
  return (
    <>
      <span className="issue-type">{issueKind(issue.errorType)}</span>
      <span className="issue-message">{issue.message || '(no message)'}</span>
      {issue.culprit && <span className="issue-culprit">{issue.culprit}</span>}
    </>
  );
}

/** Resolved or ignored, or reopened by a new event: said beside the name. */
export function IssueBadges({ issue }: { issue: Pick<Issue, 'status' | 'regressedAt'> }) {
  if (issue.status !== 'unresolved')
    return <span className={`badge badge-${issue.status}`}>{statusLabels[issue.status]}</span>;
  if (issue.regressedAt !== null) return <span className="badge badge-regressed">Regressed</span>;
  return null;
}

/** The level of the issue's latest event: its word, with the colour Sentry gives it as a mark beside the word. */
export function LevelBadge({ level }: { level: Issue['level'] }) {
  return (
    <span className={`level level-${level}`}>
      <span className="visually-hidden">Level: </span>
      {levelLabels[level]}
    </span>
  );
}

/** Said when an event was not caught by the app (Sentry's mechanism.handled false): of an issue, of any event. */
export function UnhandledBadge() {
  return <span className="badge badge-unhandled">Unhandled</span>;
}

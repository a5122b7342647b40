// The buttons that move an issue, or a selection of issues, to another status: one for each status it is not in.
import type { IssueStatus } from './api';

const actions: { status: IssueStatus; label: string }[] = [
  { status: 'resolved', label: 'Resolve' },
  { status: 'ignored', label: 'Ignore' },
  { status: 'unresolved', label: 'Reopen' },
];

export function StatusActions({
  current,
  busy,
  primary,
  onChange,
}: {
  /** 'all': the list's All tab, where a selection may hold every status, so every action is offered. */
  current: IssueStatus | 'all';
  busy: boolean;
  /** The action that stands out as the likely next step. */
  primary?: IssueStatus;
  onChange: (status: IssueStatus) => void;
}) {
  return (
    <>
      {actions
        .filter(({ status }) => status !== current)
        .map(({ status, label }) => (
          <button
            key={status}
            type="button"
            className={status === primary ? 'button button-primary' : 'button'}
            disabled={busy}
            onClick={() => onChange(status)}
          >
            {label}
          </button>
        ))}
    </>
  );
}

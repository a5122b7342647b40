// Working an issue as a team: who it is assigned to (a member of its app's organization), comments, and its
// activity, newest first (who changed its status, who took it, what was said; its first event and last regression).
import { type FormEvent, useState } from 'react';
import { type ActivityEntry, client, type Issue, messageOf } from './api';
import { useQuery } from './query';
import { QueryStatus } from './states';
import { Time } from './time';
import { useWorkspace } from './workspace';

function describe(entry: ActivityEntry): string {
  const data = entry.data as { from?: string; to?: string; text?: string; assignee?: { email: string } | null };
  switch (entry.type) {
    case 'first_seen':
      return 'First seen';
    case 'regression':
      return 'Regressed: an event arrived after it was resolved';
    case 'status':
      return `Changed the status from ${data.from} to ${data.to}`;
    case 'assignee':
      return data.assignee ? `Assigned it to ${data.assignee.email}` : 'Unassigned it';
    case 'comment':
      return data.text ?? '';
  }
}

export function IssueWork({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { apps, user } = useWorkspace();
  const org = apps.data?.find((app) => app.appKey === issue.appKey)?.org;
  const members = useQuery(async () => (org ? (await client.orgs.members.query({ slug: org })).members : []), [org]);
  // Read again when the issue changes elsewhere on the page (its status buttons).
  const activity = useQuery(
    async () => (await client.issues.activity.query({ id: issue.id })).activity,
    [issue.id, issue.status, issue.statusChangedAt],
  );
  const [change, setChange] = useState<{ busy: boolean; error?: string }>({ busy: false });

  const run = async (action: () => Promise<unknown>) => {
    setChange({ busy: true });
    try {
      await action();
      setChange({ busy: false });
      activity.reload();
      onChange();
    } catch (failure) {
      setChange({ busy: false, error: messageOf(failure) });
    }
  };
  const assign = (assignee: string) =>
    run(() => client.issues.update.mutate({ id: issue.id, assignee: assignee === '' ? null : assignee }));
  const comment = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const text = String(new FormData(form).get('text') ?? '');
    void run(async () => {
      await client.issues.comment.mutate({ id: issue.id, text });
      form.reset();
    });
  };

  return (
    <section className="panel" aria-labelledby="work-title">
      <h2 id="work-title">Assignee and activity</h2>
      <div className="form form-row">
        <label className="field">
          <span>Assigned to</span>
          <select
            value={issue.assignee?.id ?? ''}
            disabled={change.busy || !members.data}
            onChange={(event) => assign(event.target.value)}
          >
            <option value="">Nobody</option>
            {members.data?.map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.userId === user?.id ? `Me (${member.email})` : member.email}
              </option>
            ))}
          </select>
        </label>
        {user && issue.assignee?.id !== user.id && (
          <button type="button" className="button" disabled={change.busy} onClick={() => assign(user.id)}>
            Take it
          </button>
        )}
      </div>
      {change.error && (
        <p className="notice notice-error" role="alert">
          {change.error}
        </p>
      )}
      <form className="form" onSubmit={comment}>
        <label className="field">
          <span>Comment</span>
          <textarea name="text" required maxLength={10_000} rows={3} />
        </label>
        <button type="submit" className="button button-primary" disabled={change.busy}>
          Comment
        </button>
      </form>
      <QueryStatus query={activity} failure="Could not load the activity" />
      {activity.data && (
        <ol className="activity">
          {activity.data.map((entry, index) => (
            <li key={`${entry.type}-${entry.at}-${index}`} className={`activity-${entry.type}`}>
              <span className="activity-who">{entry.actor?.email ?? (entry.type === 'comment' ? 'a token' : '')}</span>{' '}
              <span className="activity-what">{describe(entry)}</span>{' '}
              <span className="muted">
                <Time ms={entry.at} />
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

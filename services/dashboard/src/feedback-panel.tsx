// What users said (Sentry user feedback): a panel on the issue page (that issue's feedback) and on the app's page
// (all of the app's). Its own component, so each screen only places it; newest first, more pages on demand.
import { useEffect, useState } from 'react';
import { client, type Feedback, messageOf } from './api';
import { Link, paths } from './navigation';
import { useQuery } from './query';
import { QueryStatus } from './states';
import { Time } from './time';

const PAGE_SIZE = 20;

type Source = { issueId: string } | { appKey: string };

const pageOf = (source: Source, cursor: string | undefined) =>
  'issueId' in source
    ? client.issues.feedback.query({ id: source.issueId, limit: PAGE_SIZE, cursor })
    : client.feedback.list.query({ appKey: source.appKey, limit: PAGE_SIZE, cursor });

/** An issue's panel shows only once there is feedback; an app's says when there is none. */
export function FeedbackPanel(props: Source) {
  const source: Source = 'issueId' in props ? { issueId: props.issueId } : { appKey: props.appKey };
  const key = 'issueId' in source ? source.issueId : source.appKey;
  const first = useQuery(() => pageOf(source, undefined), [key]);
  // Pages after the first, read when asked for; dropped when the first is read again.
  const [more, setMore] = useState<{ feedback: Feedback[]; nextCursor: string | null; error?: string }>();
  useEffect(() => setMore(undefined), [first.data]);
  const feedback = [...(first.data?.feedback ?? []), ...(more?.feedback ?? [])];
  const nextCursor = more ? more.nextCursor : first.data?.nextCursor;
  const onIssue = 'issueId' in source;
  if (onIssue && first.status !== 'error' && feedback.length === 0) return null;

  const readMore = async () => {
    if (!nextCursor) return;
    try {
      const page = await pageOf(source, nextCursor);
      setMore({ feedback: [...(more?.feedback ?? []), ...page.feedback], nextCursor: page.nextCursor });
    } catch (error) {
      setMore({ feedback: more?.feedback ?? [], nextCursor, error: messageOf(error) });
    }
  };

  return (
    <section className="panel" aria-labelledby="feedback-title">
      <h2 id="feedback-title">User feedback</h2>
      <QueryStatus query={first} failure="Could not load the feedback" />
      {first.data && feedback.length === 0 && (
        <p className="muted">
          No feedback yet. Sentry SDKs send it with <code>Sentry.captureFeedback()</code> or the feedback widget.
        </p>
      )}
      {feedback.length > 0 && (
        <ul className="feedback-list">
          {feedback.map((each) => (
            <li key={each.id} className="feedback">
              <p className="feedback-message">{each.message}</p>
              <p className="feedback-meta muted">
                {each.name ?? 'Anonymous'}
                {each.email && <> · {each.email}</>} · <Time ms={each.receivedAt} />
                {!onIssue && each.issueId && (
                  <>
                    {' · '}
                    <Link href={paths.issue(each.issueId)}>
                      See the issue<span className="visually-hidden"> of this feedback</span>
                    </Link>
                  </>
                )}
              </p>
            </li>
          ))}
        </ul>
      )}
      {more?.error && (
        <p className="notice notice-error" role="alert">
          Could not load more feedback: {more.error}
        </p>
      )}
      {nextCursor && (
        <button type="button" className="button" onClick={readMore}>
          More feedback
        </button>
      )}
    </section>
  );
}

// What an alert says: the webhook's JSON body and the e-mail's subject, text and HTML, from one claimed delivery.
import { type ClaimedDelivery, toIssue } from '@collector/db';
import type { DeliveryTrigger, Issue } from '@collector/domain';

export interface AlertMessage {
  /** The webhook body: `{ id, trigger, app: { appKey, name }, issue, url }`. */
  json: string;
  subject: string;
  text: string;
  html: string;
}

/** What "send a test" sends in place of an issue. */
function sampleIssue(appKey: string, now: number): Issue {
  return {
    id: `${appKey}:Test:sample`,
    appKey,
    fingerprint: 'Test:sample',
    message: 'This is a test alert from collector: the rule works.',
    errorType: 'Test',
    eventCount: 1,
    userCount: 0,
    firstSeenAt: now,
    lastSeenAt: now,
  } as Issue;
}

const headlines: Record<DeliveryTrigger, string> = {
  new_issue: 'New issue',
  regression: 'Regression',
  spike: 'Spike',
  test: 'Test alert',
};

export function alertMessage(claimed: ClaimedDelivery, publicUrl: string, now: number): AlertMessage {
  const { delivery, alert, app } = claimed;
  const trigger = delivery.trigger as DeliveryTrigger;
  const issue = claimed.issue ? toIssue(claimed.issue) : sampleIssue(app.appKey, now);
  // A test's sample issue exists nowhere: its link leads to the app's issue list, a page that does.
  const base = publicUrl.replace(/\/+$/, '');
  const url = claimed.issue
    ? `${base}/issues/${encodeURIComponent(issue.id)}`
    : `${base}/issues?${new URLSearchParams({ app: app.appKey })}`;
  const json = JSON.stringify({ id: delivery.id, trigger, app, issue, url });

  let why = '';
  if (trigger === 'spike' && alert.spike_events !== null && alert.spike_minutes !== null) {
    why = `At least ${alert.spike_events} events within ${alert.spike_minutes} minutes.`;
  } else if (trigger === 'regression') why = 'It was resolved, and it happened again.';
  else if (trigger === 'new_issue') why = 'It happened for the first time.';
  const title = `${issue.errorType}: ${issue.message}`.slice(0, 200);
  const counts = `${issue.eventCount} ${issue.eventCount === 1 ? 'event' : 'events'}, ${issue.userCount} ${issue.userCount === 1 ? 'user' : 'users'}`;
  const seen = `First seen ${new Date(issue.firstSeenAt).toISOString()}, last seen ${new Date(issue.lastSeenAt).toISOString()}.`;
  const subject = `[${app.name}] ${headlines[trigger]}: ${title}`.replace(/[\r\n]+/g, ' ').slice(0, 250);
  const text = [`${headlines[trigger]} in ${app.name}`, '', title, why, '', `${counts}. ${seen}`, '', url, ''].join(
    '\n',
  );
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif">
<p style="color:#666">${escapeHtml(headlines[trigger])} in <strong>${escapeHtml(app.name)}</strong></p>
<h2 style="margin:0 0 8px">${escapeHtml(issue.errorType)}: ${escapeHtml(issue.message)}</h2>
<p>${escapeHtml(why)}</p>
<p>${escapeHtml(counts)}. ${escapeHtml(seen)}</p>
<p><a href="${escapeHtml(url)}">${claimed.issue ? 'Open the issue' : 'Open the app’s issues'}</a></p>
</body></html>`;
  return { json, subject, text, html };
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

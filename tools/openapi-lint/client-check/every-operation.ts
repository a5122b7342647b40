// Calls every operation of the REST API through a client generated from the OpenAPI document by @hey-api/openapi-ts,
// as a new user of the API would write it. `pnpm lint:openapi` generates the client into ../generated/client and
// type-checks this file against it (tsconfig.json beside it); it is never run. It breaks when the document says
// less than the service does: numbers for `limit`, `from` and `to`, the error body's component (`ErrorResponse`;
// one named `Error` would shadow the global in generated code), the `database` field of /readyz.
import {
  alertsCreate,
  alertsDelete,
  alertsDeliveries,
  alertsList,
  alertsTest,
  appsCreate,
  appsList,
  authConfirmPasswordReset,
  authLogin,
  authLogout,
  authMe,
  authPasswordReset,
  authRegister,
  browserSdk,
  type ErrorResponse,
  eventsIngest,
  healthz,
  invitationsAccept,
  issuesActivity,
  issuesComment,
  issuesGet,
  issuesList,
  issuesUpdate,
  issuesUpdateMany,
  openapi,
  orgsAudit,
  orgsCreate,
  orgsInvite,
  orgsList,
  orgsMembers,
  orgsRemoveMember,
  orgsRevokeInvitation,
  orgsUpdateMember,
  outcomesGet,
  overviewGet,
  overviewTimeseries,
  readyz,
  sentryEnvelope,
  sentryStore,
  tokensCreate,
  tokensDelete,
  tokensList,
} from '../generated/client';
import { client } from '../generated/client/client.gen';

/** The contract's error code of a failed call, or the reason there was none. */
function codeOf(error: ErrorResponse | undefined): string {
  return error?.error.code ?? 'no error body';
}

export async function callEveryOperation(baseUrl: string): Promise<string[]> {
  client.setConfig({ baseUrl });
  const lines: string[] = [];

  const health = await healthz();
  const ready = await readyz();
  const database: string | undefined = ready.data?.database;
  lines.push(`healthz ${health.response.status}, readyz ${ready.response.status} (${database ?? 'database unknown'})`);
  const document = await openapi();
  lines.push(`openapi ${document.response.status}`);

  const registered = await authRegister({
    body: { email: 'every-operation@example.com', password: 'a long enough passphrase' },
  });
  if (!registered.data) throw new Error(`register: ${codeOf(registered.error)}`);
  const signedIn = await authLogin({
    body: { email: 'every-operation@example.com', password: 'a long enough passphrase' },
  });
  if (!signedIn.data) throw new Error(`login: ${codeOf(signedIn.error)}`);
  const token: string = signedIn.data.token;
  const auth = { headers: { authorization: `Bearer ${token}` } };

  const me = await authMe(auth);
  lines.push(`me ${me.data?.user.email ?? codeOf(me.error)}`);

  const created = await appsCreate({ ...auth, body: { name: 'Shop', type: 'web' } });
  if (!created.data) throw new Error(`create app: ${codeOf(created.error)}`);
  const appKey: string = created.data.app.appKey;
  const apps = await appsList(auth);
  lines.push(`apps ${apps.data?.apps.length ?? codeOf(apps.error)}`);

  const now = Date.now();
  const ingested = await eventsIngest({
    body: {
      appKey,
      events: [
        {
          eventId: 'evt_every_operation',
          type: 'error',
          timestamp: now,
          errorType: 'TypeError',
          message: 'x is undefined',
        },
      ],
    },
  });
  lines.push(`ingest accepted ${ingested.data?.accepted ?? codeOf(ingested.error)}`);

  // What a Sentry SDK does with the app's DSN: an envelope with the key in the query, an event to /store/ with it in
  // X-Sentry-Auth.
  const dsn = new URL(created.data.app.dsn);
  const projectId = Number(dsn.pathname.split('/').at(-1));
  const envelope = await sentryEnvelope({
    path: { projectId },
    query: { sentry_key: dsn.username },
    body: '{}\n{"type":"event"}\n{"message":"hello"}\n',
  });
  lines.push(`sentry envelope ${envelope.data?.id ?? codeOf(envelope.error)}`);
  const stored = await sentryStore({
    path: { projectId },
    headers: { 'X-Sentry-Auth': `Sentry sentry_key=${dsn.username}, sentry_version=7` },
    body: { message: 'hello' },
  });
  lines.push(`sentry store ${stored.data?.id ?? codeOf(stored.error)}`);
  const sdk = await browserSdk();
  lines.push(`browser sdk ${sdk.response.status}`);

  const hourAgo = now - 3_600_000;
  const overview = await overviewGet({ ...auth, query: { appKey, from: hourAgo, to: now } });
  lines.push(`overview events ${overview.data?.totals.events ?? codeOf(overview.error)}`);
  const series = await overviewTimeseries({ ...auth, query: { appKey, bucket: 'hour', from: hourAgo, to: now } });
  lines.push(`timeseries buckets ${series.data?.buckets.length ?? codeOf(series.error)}`);
  const outcomes = await outcomesGet({ ...auth, query: { appKey, from: hourAgo, to: now } });
  const accepted = outcomes.data?.outcomes.find((outcome) => outcome.reason === 'accepted');
  lines.push(`outcomes accepted ${accepted?.events ?? codeOf(outcomes.error)}`);

  const issues = await issuesList({ ...auth, query: { appKey, limit: 20 } });
  const first = issues.data?.issues[0];
  lines.push(`issues ${issues.data?.issues.length ?? codeOf(issues.error)}, next ${issues.data?.nextCursor ?? 'none'}`);
  if (first) {
    const issue = await issuesGet({ ...auth, path: { id: first.id }, query: { limit: 5 } });
    lines.push(`issue ${issue.data?.issue.eventCount ?? codeOf(issue.error)} events`);
  }

  const alert = await alertsCreate({
    ...auth,
    path: { appKey },
    body: {
      trigger: 'spike',
      spike: { events: 100, minutes: 60 },
      channel: { type: 'webhook', url: 'https://hooks.example.com/collector' },
    },
  });
  const alertId: string | undefined = alert.data?.alert.id;
  lines.push(`alert ${alertId ?? codeOf(alert.error)} (secret ${alert.data?.alert.secret ? 'set' : 'missing'})`);
  const alerts = await alertsList({ ...auth, path: { appKey } });
  lines.push(`alerts ${alerts.data?.alerts.length ?? codeOf(alerts.error)}`);
  if (alertId) {
    const tested = await alertsTest({ ...auth, path: { appKey, id: alertId } });
    lines.push(`alert test ${tested.data?.delivery.status ?? codeOf(tested.error)}`);
    const deleted = await alertsDelete({ ...auth, path: { appKey, id: alertId } });
    lines.push(`alert deleted ${deleted.response.status}`);
  }
  const deliveries = await alertsDeliveries({ ...auth, path: { appKey }, query: { limit: 10 } });
  lines.push(`deliveries ${deliveries.data?.deliveries.length ?? codeOf(deliveries.error)}`);

  // Organizations, members, invitations, tokens and issue work.
  const org = await orgsCreate({ ...auth, body: { name: 'Every operation' } });
  const slug: string = org.data?.org.slug ?? 'none';
  const orgs = await orgsList(auth);
  lines.push(`orgs ${orgs.data?.orgs.length ?? codeOf(orgs.error)}`);
  const invitation = await orgsInvite({
    ...auth,
    path: { slug },
    body: { email: 'someone@example.com', role: 'member' },
  });
  const invitationUrl: string | undefined = invitation.data?.invitation.url;
  const joined = await invitationsAccept({ ...auth, body: { token: invitationUrl?.split('/').pop() ?? 'none' } });
  lines.push(`invitation accepted by another e-mail: ${codeOf(joined.error)}`);
  if (invitation.data) await orgsRevokeInvitation({ ...auth, path: { slug, id: invitation.data.invitation.id } });
  const members = await orgsMembers({ ...auth, path: { slug } });
  const userId: string | undefined = members.data?.members[0]?.userId;
  if (userId) {
    const lastOwner = await orgsUpdateMember({ ...auth, path: { slug, userId }, body: { role: 'admin' } });
    lines.push(`demote the last owner: ${codeOf(lastOwner.error)}`);
    const leave = await orgsRemoveMember({ ...auth, path: { slug, userId } });
    lines.push(`the last owner leaves: ${codeOf(leave.error)}`);
  }
  const audit = await orgsAudit({ ...auth, path: { slug }, query: { limit: 10 } });
  lines.push(`audit ${audit.data?.entries.length ?? codeOf(audit.error)}`);
  const apiToken = await tokensCreate({ ...auth, body: { name: 'ci', scopes: ['read', 'releases'], org: slug } });
  const tokens = await tokensList(auth);
  lines.push(`tokens ${tokens.data?.tokens.length ?? codeOf(tokens.error)}`);
  if (apiToken.data) await tokensDelete({ ...auth, path: { id: apiToken.data.token.id } });
  if (first) {
    const assigned = await issuesUpdate({ ...auth, path: { id: first.id }, body: { assignee: userId ?? null } });
    lines.push(`assignee ${assigned.data?.issue.assignee?.email ?? codeOf(assigned.error)}`);
    await issuesUpdateMany({ ...auth, body: { ids: [first.id], status: 'resolved' } });
    const comment = await issuesComment({ ...auth, path: { id: first.id }, body: { text: 'seen' } });
    lines.push(`comment ${comment.data?.comment.id ?? codeOf(comment.error)}`);
    const activity = await issuesActivity({ ...auth, path: { id: first.id }, query: { limit: 10 } });
    lines.push(`activity ${activity.data?.activity.length ?? codeOf(activity.error)}`);
  }
  const reset = await authPasswordReset({ body: { email: 'every-operation@example.com' } });
  lines.push(`password reset ${reset.response.status}`);
  const confirmed = await authConfirmPasswordReset({ body: { token: 'unknown', password: 'another long passphrase' } });
  lines.push(`password reset with an unknown token: ${codeOf(confirmed.error)}`);

  const loggedOut = await authLogout(auth);
  lines.push(`logout ${loggedOut.response.status}`);
  return lines;
}

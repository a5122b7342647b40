// Routers only compose procedures.
import { decideAnswerChecks } from './answer-checks';
import { createAlertRoute } from './routers/alerts/create';
import { deleteAlertRoute } from './routers/alerts/delete';
import { listDeliveriesRoute } from './routers/alerts/deliveries';
import { listAlertsRoute } from './routers/alerts/list';
import { testAlertRoute } from './routers/alerts/test';
import { createAppRoute } from './routers/apps/create';
import { listAppsRoute } from './routers/apps/list';
import { loginRoute } from './routers/auth/login';
import { logoutRoute } from './routers/auth/logout';
import { meRoute } from './routers/auth/me';
import { passwordResetRoute } from './routers/auth/password-reset';
import { confirmPasswordResetRoute } from './routers/auth/password-reset-confirm';
import { registerRoute } from './routers/auth/register';
import { ingestRoute } from './routers/events/ingest';
import { issueFeedbackRoute } from './routers/feedback/issue';
import { listFeedbackRoute } from './routers/feedback/list';
import { acceptInvitationRoute } from './routers/invitations/accept';
import { issueActivityRoute } from './routers/issues/activity';
import { commentRoute } from './routers/issues/comment';
import { issueFacetsRoute } from './routers/issues/facets';
import { getIssueRoute } from './routers/issues/get';
import { listIssuesRoute } from './routers/issues/list';
import { issueTagsRoute } from './routers/issues/tags';
import { updateIssueRoute } from './routers/issues/update';
import { updateIssuesRoute } from './routers/issues/update-many';
import { auditRoute } from './routers/orgs/audit';
import { createOrgRoute } from './routers/orgs/create';
import { inviteRoute } from './routers/orgs/invite';
import { listOrgsRoute } from './routers/orgs/list';
import { listMembersRoute } from './routers/orgs/members';
import { removeMemberRoute } from './routers/orgs/remove-member';
import { revokeInvitationRoute } from './routers/orgs/revoke-invitation';
import { updateMemberRoute } from './routers/orgs/update-member';
import { outcomesRoute } from './routers/outcomes/get';
import { overviewRoute } from './routers/overview/get';
import { timeseriesRoute } from './routers/overview/timeseries';
import { listReleasesRoute } from './routers/releases/list';
import { createTokenRoute } from './routers/tokens/create';
import { deleteTokenRoute } from './routers/tokens/delete';
import { listTokensRoute } from './routers/tokens/list';
import { router } from './trpc';

export const appRouter = router({
  events: router({ ingest: ingestRoute }),
  auth: router({
    register: registerRoute,
    login: loginRoute,
    logout: logoutRoute,
    me: meRoute,
    // Literal paths (confirm) before shorter ones.
    confirmPasswordReset: confirmPasswordResetRoute,
    passwordReset: passwordResetRoute,
  }),
  orgs: router({
    list: listOrgsRoute,
    create: createOrgRoute,
    members: listMembersRoute,
    updateMember: updateMemberRoute,
    removeMember: removeMemberRoute,
    invite: inviteRoute,
    revokeInvitation: revokeInvitationRoute,
    audit: auditRoute,
  }),
  invitations: router({ accept: acceptInvitationRoute }),
  tokens: router({ list: listTokensRoute, create: createTokenRoute, delete: deleteTokenRoute }),
  apps: router({ list: listAppsRoute, create: createAppRoute }),
  releases: router({ list: listReleasesRoute }),
  overview: router({ get: overviewRoute, timeseries: timeseriesRoute }),
  issues: router({
    list: listIssuesRoute,
    // A literal path (/api/issues/facets) before {id}.
    facets: issueFacetsRoute,
    get: getIssueRoute,
    update: updateIssueRoute,
    updateMany: updateIssuesRoute,
    comment: commentRoute,
    activity: issueActivityRoute,
    tags: issueTagsRoute,
    feedback: issueFeedbackRoute,
  }),
  feedback: router({ list: listFeedbackRoute }),
  // Literal paths (deliveries) before {id} paths.
  alerts: router({
    deliveries: listDeliveriesRoute,
    list: listAlertsRoute,
    create: createAlertRoute,
    delete: deleteAlertRoute,
    test: testAlertRoute,
  }),
  outcomes: router({ get: outcomesRoute }),
});

/** How many procedures have their answers checked as the context says (answer-checks.ts): all with an output schema. */
export const answerCheckedProcedures = decideAnswerChecks(appRouter._def.procedures);

export type AppRouter = typeof appRouter;

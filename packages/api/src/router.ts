// Routers only compose procedures.
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
import { registerRoute } from './routers/auth/register';
import { ingestRoute } from './routers/events/ingest';
import { getIssueRoute } from './routers/issues/get';
import { listIssuesRoute } from './routers/issues/list';
import { updateIssueRoute } from './routers/issues/update';
import { updateIssuesRoute } from './routers/issues/update-many';
import { outcomesRoute } from './routers/outcomes/get';
import { overviewRoute } from './routers/overview/get';
import { timeseriesRoute } from './routers/overview/timeseries';
import { router } from './trpc';

export const appRouter = router({
  events: router({ ingest: ingestRoute }),
  auth: router({ register: registerRoute, login: loginRoute, logout: logoutRoute, me: meRoute }),
  apps: router({ list: listAppsRoute, create: createAppRoute }),
  overview: router({ get: overviewRoute, timeseries: timeseriesRoute }),
  issues: router({
    list: listIssuesRoute,
    get: getIssueRoute,
    update: updateIssueRoute,
    updateMany: updateIssuesRoute,
  }),
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

export type AppRouter = typeof appRouter;

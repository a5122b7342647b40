export {
  type AlertChannels,
  type Context,
  type ContextDeps,
  createContextFactory,
  createContextInner,
  noAlertDelivery,
} from './context';
export { contractError, errorHeaders, errorStatus, toAppError } from './errors';
export { type BudgetLogger, IngestBudget } from './ingestion/budget';
export {
  type CheckedApp,
  type Delivery,
  Ingestion,
  type IngestionResult,
  type IngestKey,
  type SentryItem,
} from './ingestion/ingestion';
export { KnownApps } from './known-apps';
export { createOpenApiDocument } from './openapi';
export { createRateLimiters, defaultRateLimits, type RateLimitConfig, type RateLimiters } from './rate-limiter';
export { pathParameters, queryValue, type RestRoute, restRoutes, routesForPath } from './rest';
export { type AppRouter, appRouter } from './router';
export { createCallerFactory } from './trpc';

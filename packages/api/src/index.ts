export {
  type AlertChannels,
  type Context,
  type ContextDeps,
  createContextFactory,
  createContextInner,
  noAlertDelivery,
} from './context';
export { contractError, errorHeaders, errorStatus, toAppError } from './errors';
export { type IngestionResult, ingestEvents } from './ingestion';
export { KnownApps } from './known-apps';
export { createOpenApiDocument } from './openapi';
export { createRateLimiters, defaultRateLimits, type RateLimitConfig, type RateLimiters } from './rate-limiter';
export { pathParameters, queryValue, type RestRoute, restRoutes, routesForPath } from './rest';
export { type AppRouter, appRouter } from './router';
export { appKeyForDsn, ingestSentryEvents, type SentryIngestion } from './sentry-ingestion';
export { createCallerFactory } from './trpc';

export { type Principal, principalKey } from './auth/authorize';
export { createPasswordResetLink } from './auth/password-reset';
export { authenticate } from './auth/principal';
export {
  type AccountOptions,
  type AlertChannels,
  type AnswerChecks,
  type Context,
  type ContextDeps,
  createContextFactory,
  createContextInner,
  noAlertDelivery,
  type RegistrationMode,
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
export { sentryArtifactPaths } from './openapi-sentry-artifacts';
export {
  createRateLimiters,
  defaultRateLimits,
  type RateLimitConfig,
  type RateLimiters,
  throttle,
} from './rate-limiter';
export { pathParameters, queryValue, type RestRoute, restRoutes, routesForPath } from './rest';
export { type AppRouter, appRouter } from './router';
export { sentryAuthInfo, sentryOrganization, sentryProjects } from './sentry-api';
export {
  assembliesDone,
  sentryAssembleBundle,
  sentryChunkUploadOptions,
  sentryUploadChunks,
  uploadLimits,
} from './sentry-artifacts';
export {
  type SentryReleaseRequest,
  StatusAnswer,
  sentryCreateDeploy,
  sentryCreateRelease,
  sentryDeleteRelease,
  sentryGetRelease,
  sentryListDeploys,
  sentryListReleases,
  sentryListRepos,
  sentryUpdateRelease,
} from './sentry-releases';
export {
  defaultSymbolicationOptions,
  type SymbolicationOptions,
  Symbolicator,
} from './symbolication/symbolicator';
export { createCallerFactory } from './trpc';

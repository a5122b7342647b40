export { createContextFactory, createContextInner, type Context, type ContextDeps } from './context';
export { KnownApps } from './known-apps';
export { contractError, errorHeaders, errorStatus, toAppError } from './errors';
export { createOpenApiDocument } from './openapi';
export { createRateLimiters, defaultRateLimits, type RateLimitConfig, type RateLimiters } from './rate-limiter';
export { pathParameters, queryValue, restRoutes, routesForPath, type RestRoute } from './rest';
export { appRouter, type AppRouter } from './router';
export { createCallerFactory } from './trpc';

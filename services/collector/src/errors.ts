// Writing JSON answers (the API's and the contract's error body), and the last Express error handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorHeaders, errorStatus, toAppError } from '@collector/api';
import type { AppError } from '@collector/domain';
import type { NextFunction } from 'express';

/**
 * An API answer as JSON. Written directly rather than through res.json, which also hashes every answer for an ETag:
 * API answers are never cached, and ingestion answers one per request (a Sentry SDK sends one event a request). Encoded
 * once, into a buffer outside the JavaScript heap: measuring the text (Buffer.byteLength) and then writing it encoded
 * it twice, and the copies of a list's 54 KB were a sixth of its garbage.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

export function sendError(res: ServerResponse, error: AppError): void {
  for (const [name, value] of Object.entries(errorHeaders(error))) res.setHeader(name, value);
  sendJson(res, errorStatus[error.code].status, { error: error.toBody() });
}

export function errorHandler<Req extends IncomingMessage>(onError: (error: AppError, req: Req) => void) {
  return (error: unknown, req: Req, res: ServerResponse, _next?: NextFunction) => {
    const appError = toAppError(error);
    if (appError.code === 'INTERNAL' || appError.code === 'UNAVAILABLE') onError(appError, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, appError);
  };
}

// Every request carries an id: the caller's X-Request-Id when it is a sane token (a proxy's or an SDK's), else a new
// UUID. It is sent back as X-Request-Id, is on the tRPC context, and binds every log line about the request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from './logger';

declare module 'node:http' {
  interface IncomingMessage {
    /** Set by assignRequestId before any route runs. */
    requestId?: string;
  }
}

// Printable, short, no spaces or quotes: safe in a header and a log line.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

export function setRequestId(req: IncomingMessage, res: ServerResponse): void {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
}

export const assignRequestId: RequestHandler = (req, res, next) => {
  setRequestId(req, res);
  next();
};

/** The logger for lines about one request. A child is made only when a line is written, so the hot path pays nothing. */
export const requestLogger = (logger: Logger, req: { requestId?: string | undefined }): Logger =>
  logger.child({ requestId: req.requestId });

// Writing the contract's error body, and the last Express error handler.
import { errorHeaders, errorStatus, toAppError } from '@collector/api';
import type { AppError } from '@collector/domain';
import type { NextFunction, Request, Response } from 'express';

export function sendError(res: Response, error: AppError): void {
  res.status(errorStatus[error.code].status).set(errorHeaders(error)).json({ error: error.toBody() });
}

export function errorHandler(onError: (error: AppError, req: Request) => void) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError = toAppError(error);
    if (appError.code === 'INTERNAL' || appError.code === 'UNAVAILABLE') onError(appError, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, appError);
  };
}

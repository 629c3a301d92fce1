import type { NextFunction, Request, Response } from 'express';
import { ForeignKeyConstraintError, UniqueConstraintError, ValidationError as SequelizeValidationError } from 'sequelize';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';

/** What body-parser, zlib, the router and `send` attach to the errors they throw (http-errors). */
interface HttpLibraryError extends Error {
  type?: string;
  status?: number;
  code?: string;
  expose?: boolean;
}

const unreadableBody = (reason: string) =>
  new AppError('validation_error', 'The request body could not be read.', { details: [{ path: '', message: reason }] });

/**
 * Turns anything thrown into an AppError for the envelope, or null for a failure of ours
 * (answered `500 internal_error`). Client errors raised by the libraries before a handler runs
 * keep their 4xx: the body's content is `422 validation_error` (as malformed JSON is in
 * docs/api.md#order-of-checks), an encoding or charset we do not decode `415 unsupported_media_type`, and a request
 * line no route can read (a bad `%` escape) `400 bad_request`. See docs/decisions/wire-rules.md.
 */
export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof UniqueConstraintError) {
    return new AppError('conflict', 'A record with the same unique value already exists.');
  }
  if (error instanceof ForeignKeyConstraintError) {
    return new AppError('validation_error', 'A referenced record does not exist.', { details: [] });
  }
  if (error instanceof SequelizeValidationError) {
    return new AppError('validation_error', 'The record is not valid.', {
      details: error.errors.map((item) => ({ path: item.path ?? '', message: item.message })),
    });
  }
  const libraryError = error as HttpLibraryError | null;
  switch (libraryError?.type) {
    case 'entity.parse.failed':
      return new AppError('validation_error', 'The request body is not valid JSON.', { details: [{ path: '', message: 'Malformed JSON.' }] });
    case 'entity.too.large':
      return new AppError('validation_error', 'The request body is larger than 2 MB.', { details: [{ path: '', message: 'Body over 2 MB.' }] });
    case 'encoding.unsupported':
      return new AppError('unsupported_media_type', "The request body's Content-Encoding is not supported; send it plain, gzip or deflate.");
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', "The request body's charset is not supported; send UTF-8.");
    case 'request.aborted':
    case 'request.size.invalid':
      return unreadableBody(libraryError.message);
    default:
      break;
  }
  // zlib: a body declared gzip or deflate that does not inflate.
  if (libraryError?.code?.startsWith('Z_')) return unreadableBody(`The body does not match its Content-Encoding (${libraryError.message}).`);
  if (error instanceof URIError && libraryError?.status === 400) {
    return new AppError('bad_request', 'The URL holds a malformed percent-escape (such as "%ZZ").');
  }
  const status = libraryError?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && libraryError?.expose !== false) {
    return status === 404 ? new AppError('not_found', 'No such route.') : new AppError('bad_request', 'The request could not be read.');
  }
  return null;
}

export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const known = toAppError(error);
    if (res.headersSent) {
      logger.error({ err: error, request_id: req.requestId }, 'error after response started');
      res.end();
      return;
    }
    if (known) {
      res.status(known.status).json({ success: false, error: known.code, message: known.message, ...known.extra });
      return;
    }
    logger.error({ err: error, request_id: req.requestId, route: req.routePattern }, 'unhandled error');
    res.status(500).json({
      success: false,
      error: 'internal_error',
      message: `Something went wrong on our side. Quote request id ${req.requestId} when reporting it.`,
    });
  };
}

export function notFoundHandler(_req: Request, res: Response): void {
  res.status(404).json({ success: false, error: 'not_found', message: 'No such route. The API reference is at /v1/docs.' });
}

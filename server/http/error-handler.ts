import type { NextFunction, Request, Response } from 'express';
import { ForeignKeyConstraintError, UniqueConstraintError, ValidationError as SequelizeValidationError } from 'sequelize';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Turns anything thrown into the envelope; unknown failures are logged with the request id and answered `500 internal_error`. */
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
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return new AppError('validation_error', 'The request body is not valid JSON.', { details: [{ path: '', message: 'Malformed JSON.' }] });
    case 'entity.too.large':
      return new AppError('validation_error', 'The request body is larger than 2 MB.', { details: [{ path: '', message: 'Body over 2 MB.' }] });
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('validation_error', 'The request body could not be read.', { details: [{ path: '', message: parserError.message }] });
    default:
      return null;
  }
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

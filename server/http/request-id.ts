import type { NextFunction, Request, Response } from 'express';
import { randomToken } from '../ids.js';

const ACCEPTED = /^[A-Za-z0-9._-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id, otherwise makes one; set before anything can fail. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  req.requestId = incoming && ACCEPTED.test(incoming) ? incoming : `req_${randomToken(20)}`;
  res.setHeader('X-Request-Id', req.requestId);
  next();
}

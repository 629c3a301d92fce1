import type { Logger } from '../logger.js';
import type { KeyAuth } from './auth.js';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      /** The declared route pattern (`/v1/students/{id}`), for logs. */
      routePattern?: string;
      auth?: KeyAuth;
      log?: Logger;
    }
  }
}

export {};

import type { Logger } from '../logger.js';
import type { KeyAuth } from './auth.js';
import type { InstitutionAccess } from '../portal/policies.js';
import type { PortalAuth } from '../portal/session.js';
import type { PortalCaller } from './portal-caller.js';
import type { LearnerAuth } from './session-auth.js';
import type { UploadedFile } from './upload.js';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      /** The declared route pattern (`/v1/students/{id}`), for logs. */
      routePattern?: string;
      /** An API key's caller (integration routes). */
      auth?: KeyAuth;
      /** A portal member calling an institution operation (`/portal/api/institutions/{institution}/…`). */
      portalCaller?: PortalCaller;
      /** The signed-in portal account calling a portal-only operation (`/portal/api/…`). */
      portalSession?: PortalAuth;
      /** With a member operation: the institution in `{id}` and the caller's role there. */
      portalAccess?: InstitutionAccess;
      /** A learner session's caller (`/app/*`). */
      learner?: LearnerAuth;
      /** Who the rate limiter counts for: set by authentication. */
      rateLimitSubject?: { id: string; limit: number };
      uploadedFile?: UploadedFile;
      log?: Logger;
    }
  }
}

export {};

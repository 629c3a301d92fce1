import type { Tenant } from '../../db/tenant.js';
import type { InstitutionRow } from '../../models/institution.js';
import type { LearnerSessionRow } from '../../models/learner.js';
import type { PersonRow } from '../../models/person.js';

export const SESSION_PREFIX = 'cb_sess_';
export const SESSION_PATTERN = /^cb_sess_[A-Za-z0-9]{32}$/;
/** Requests per minute for one learner session. */
export const SESSION_RATE_LIMIT = 600;

/** A learner acting through a session from the launch exchange: what learner commands act as. */
export interface LearnerAuth {
  kind: 'session';
  session: LearnerSessionRow;
  person: PersonRow;
  institution: InstitutionRow;
  tenant: Tenant;
  /** The caller's address, for audit entries of what a session changes (an LMS instructor's grades). */
  ip?: string | null;
}

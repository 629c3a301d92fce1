import type { NextFunction, Request, Response } from 'express';
import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import { hashToken } from '../crypto/tokens.js';
import { SESSION_PATTERN, SESSION_RATE_LIMIT } from '../commands/learner/auth.js';
import { touchSeat } from '../commands/learner/devices.js';

export { SESSION_PATTERN, SESSION_PREFIX, SESSION_RATE_LIMIT, type LearnerAuth } from '../commands/learner/auth.js';

/** What a grading session may call: who it is, and its exam's submissions. */
const GRADING_SESSION_ROUTES = /^\/v1\/app\/(me|grading(\/.*)?)$/;

const signInAgain = () => new AppError('unauthorized', 'The learner session is not valid; open the app from your school again.');

/**
 * Learner sessions act only on /app/*: a valid session whose person is active, with an active
 * license (and, when the session took a device seat, that seat still active), in an approved
 * institution. Nothing is cached, so suspending a student, revoking a license or a seat ends the
 * session on its next request. The seat's `last_seen_at` follows the session's use, to the minute.
 */
export function authenticateSession(db: Database) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new AppError('unauthorized', 'Send the session token as "Authorization: Bearer <token>".');
    if (!SESSION_PATTERN.test(match[1])) throw signInAgain();

    const session = await db.models.LearnerSession.findOne({
      where: { token_hash: hashToken(match[1]), revoked_at: null, expires_at: { [Op.gt]: new Date() } },
    });
    if (!session) throw signInAgain();
    // An LMS instructor's grading session (docs/lms.md#grading-from-the-lms) reaches its exam's submissions and nothing else.
    if (session.grading_exam_id && !GRADING_SESSION_ROUTES.test(req.routePattern ?? '')) {
      throw new AppError('forbidden', "This session was opened by an instructor's launch in the LMS: it may only grade that exam (/app/grading).");
    }
    const [person, institution, license, seat] = await Promise.all([
      db.models.Person.findOne({ where: { id: session.user_id, institution_id: session.institution_id } }),
      db.models.Institution.findByPk(session.institution_id),
      db.models.License.findOne({
        where: { user_id: session.user_id, institution_id: session.institution_id, status: 'active', expires_at: { [Op.gt]: new Date() } },
      }),
      session.seat_id ? db.models.DeviceSeat.findOne({ where: { id: session.seat_id, institution_id: session.institution_id } }) : null,
    ]);
    if (!person || person.status !== 'active') throw signInAgain();
    // A revoked or expired license, or a revoked device seat, ends the session at once.
    if (!license || (session.seat_id && seat?.status !== 'active')) throw signInAgain();
    if (!institution || institution.status === 'suspended') throw signInAgain();
    if (institution.status !== 'approved') {
      throw new AppError('institution_not_approved', 'This institution has not been approved by the appliance operator yet.');
    }
    if (seat) {
      // Bookkeeping: a failed write must not fail the student's request; the next one tries again.
      await touchSeat(db, seat).catch((err: unknown) => req.log?.warn({ err, request_id: req.requestId }, 'could not record seat use'));
    }
    req.learner = { kind: 'session', session, person, institution, tenant: new Tenant(db, institution.id), ip: req.ip ?? null };
    req.rateLimitSubject = { id: `session:${session.id}`, limit: SESSION_RATE_LIMIT };
    next();
  };
}

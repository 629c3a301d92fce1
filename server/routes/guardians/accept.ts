import express, { type Response, type Router } from 'express';
import { acceptGuardianInvite } from '../../commands/people/guardians.js';
import type { AppContext } from '../../context.js';
import { textPage } from '../../html.js';

function send(res: Response, status: number, html: string): void {
  // The page is the answer to a one-time link: never cached, never indexed.
  res.status(status).set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' }).type('html').send(html);
}

const INVALID = textPage('This link is invalid or has expired', [
  'The confirmation link has already been used, was replaced by a newer one, or is more than 7 days old.',
  'Please ask the school to resend the invitation.',
]);

/**
 * `GET /guardian/accept?token=…`: where a guardian's invitation link lands (outside /v1, no key).
 * Opening it verifies the link; the token works once.
 */
export function guardianAcceptRouter(ctx: AppContext): Router {
  const router = express.Router();
  // A HEAD (link checkers, previews) must not use up the token; it sees only that the page exists.
  router.head('/guardian/accept', (_req, res) => {
    res.status(200).set('Cache-Control', 'no-store').type('html').end();
  });
  router.get('/guardian/accept', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    try {
      const accepted = await acceptGuardianInvite(ctx.db, token);
      if (!accepted) {
        send(res, 400, INVALID);
        return;
      }
      send(
        res,
        200,
        textPage('Thank you, you are confirmed', [
          `You are now confirmed as a guardian of ${accepted.student_first_name} at ${accepted.institution_name}.`,
          `You will receive a weekly report about ${accepted.student_first_name} by email.`,
          'You can close this page.',
        ]),
      );
    } catch (err) {
      ctx.logger.error({ err, request_id: req.requestId }, 'guardian acceptance failed');
      send(res, 500, textPage('Something went wrong', ['Please try the link again in a few minutes.', `Reference: ${req.requestId}`]));
    }
  });
  return router;
}

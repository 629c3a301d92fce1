import { acceptGuardianInvite } from '../../commands/people/guardians.js';
import { textPage } from '../../html.js';
import { defineRoute, RawResponse, type AnyRoute } from '../../http/route.js';
import { z } from '../../validation/zod.js';

/** The page answering a one-time link: never cached, never indexed. */
const page = (status: number, html: string) =>
  new RawResponse((res) => {
    res.status(status).set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' }).type('html').send(html);
  });

const INVALID = textPage('This link is invalid or has expired', [
  'The confirmation link has already been used, was replaced by a newer one, or is more than 7 days old.',
  'Please ask the school to resend the invitation.',
]);

/** A mail client or link checker may add its own parameters to the link. */
const acceptQuery = z.looseObject({ token: z.string().optional() });
const htmlAnswer = z.string().openapi({ type: 'string', description: 'An HTML page.' });

/**
 * `GET /guardian/accept?token=…`: where a guardian's invitation link lands (outside /v1, no key).
 * Opening it verifies the link; the token works once. A HEAD (link checkers, previews) must not
 * use it up: it sees only that the page exists.
 */
export const guardianAcceptRoutes: AnyRoute[] = [
  defineRoute({
    caller: 'anyone',
    method: 'head',
    path: '/guardian/accept',
    operationId: 'guardianAcceptHead',
    summary: 'Whether the confirmation page exists (uses nothing up)',
    tag: 'Guardians',
    query: acceptQuery,
    produces: 'text/html',
    response: htmlAnswer,
    handler: async () =>
      new RawResponse((res) => {
        res.status(200).set('Cache-Control', 'no-store').type('html').end();
      }),
  }),
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/guardian/accept',
    operationId: 'guardianAccept',
    summary: "A guardian confirms the school's invitation by opening the link it mailed",
    tag: 'Guardians',
    query: acceptQuery,
    produces: 'text/html',
    response: htmlAnswer,
    // A link's token that is not even a string (a repeated parameter) is the same bad link.
    refusalPage: () => page(400, INVALID),
    handler: async ({ ctx, query, requestId }) => {
      try {
        const accepted = await acceptGuardianInvite(ctx.db, query.token ?? '');
        if (!accepted) return page(400, INVALID);
        return page(
          200,
          textPage('Thank you, you are confirmed', [
            `You are now confirmed as a guardian of ${accepted.student_first_name} at ${accepted.institution_name}.`,
            `You will receive a weekly report about ${accepted.student_first_name} by email.`,
            'You can close this page.',
          ]),
        );
      } catch (err) {
        ctx.logger.error({ err, request_id: requestId }, 'guardian acceptance failed');
        return page(500, textPage('Something went wrong', ['Please try the link again in a few minutes.', `Reference: ${requestId}`]));
      }
    },
  }),
];

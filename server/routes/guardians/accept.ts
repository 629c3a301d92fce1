import { acceptGuardianInvite, previewGuardianInvite } from '../../commands/people/guardians.js';
import { escapeHtml, htmlPage, textPage } from '../../html.js';
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

/** The Confirm form posts to the page's own address, so the token comes in the query as in the link (or in the body). */
const acceptBody = z.looseObject({ token: z.string().optional() });

/**
 * `/guardian/accept?token=…`: where a guardian's invitation link lands (outside /v1, no key).
 * Opening it (GET) only shows what would be confirmed, with a Confirm button: a mail scanner or
 * link preview that fetches the link confirms nothing. The button posts to the same address (POST),
 * which confirms, once. The page never repeats the token. A HEAD sees only that the page exists.
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
    operationId: 'guardianAcceptPage',
    summary: "The page a guardian's invitation link opens: what would be confirmed, and a Confirm button",
    tag: 'Guardians',
    query: acceptQuery,
    produces: 'text/html',
    response: htmlAnswer,
    // A link's token that is not even a string (a repeated parameter) is the same bad link.
    refusalPage: () => page(400, INVALID),
    handler: async ({ ctx, query }) => {
      const invitation = await previewGuardianInvite(ctx.db, query.token ?? '');
      if (!invitation) return page(400, INVALID);
      const student = escapeHtml(invitation.student_first_name);
      return page(
        200,
        htmlPage(
          'Confirm you are a guardian',
          `
<h1>Confirm you are ${student}'s guardian</h1>
<p>${escapeHtml(invitation.institution_name)} has listed you as a guardian of ${student}. Once you confirm, you will receive a weekly report about ${student} by email.</p>
<form method="post">
<button type="submit">Confirm</button>
</form>
<p style="color:#52606d;font-size:.9rem">If this is not you, close this page: nothing is confirmed unless you press Confirm.</p>
`,
        ),
      );
    },
  }),
  defineRoute({
    caller: 'anyone',
    method: 'post',
    path: '/guardian/accept',
    operationId: 'guardianAccept',
    summary: "A guardian confirms the school's invitation (the Confirm button of the link's page)",
    tag: 'Guardians',
    form: true,
    query: acceptQuery,
    body: acceptBody,
    produces: 'text/html',
    response: htmlAnswer,
    refusalPage: () => page(400, INVALID),
    handler: async ({ ctx, query, body, requestId }) => {
      try {
        const accepted = await acceptGuardianInvite(ctx.db, body.token ?? query.token ?? '');
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

import { inviteInstitutionAdmin, listInstitutionAdmins } from '../../commands/accounts/institution-admins.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { getSmtpSettings } from '../../mail/smtp-settings.js';
import { presentInstitutionSummary } from '../../presenters/institution.js';
import { z } from '../../validation/zod.js';
import { invitationSchema, memberSchema, presentInvitation, presentMember, presentSentInvitation, sentInvitationSchema } from '../developers/schema.js';
import { institutionSchema } from './schema.js';

/**
 * The operator gives an institution its admin: an institution made by the operator (or by
 * `demo seed`) has none, and nobody could open it. As `institution invite-admin` in the CLI.
 */

export const institutionAdminsSchema = z.object({
  institution: institutionSchema,
  admins: z.array(memberSchema),
  invitations: z.array(invitationSchema),
});

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const inviteBody = z.strictObject({
  email: z
    .email()
    .max(320)
    .transform((email) => email.toLowerCase()),
});

export const institutionAdminRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/operator/institutions/{id}/admins',
    operationId: 'listInstitutionAdmins',
    tag: 'Operator',
    summary: "An institution's admins and its open admin invitations",
    caller: 'operator',
    params: institutionParams,
    response: institutionAdminsSchema,
    errors: ['not_found'],
    handler: async ({ ctx, params }) => {
      const found = await listInstitutionAdmins(ctx.db, params.id);
      return {
        institution: presentInstitutionSummary(found.institution),
        admins: found.admins.map(presentMember),
        invitations: found.invitations.map((row) => presentInvitation(row)),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/operator/institutions/{id}/admins/invitations',
    operationId: 'inviteInstitutionAdmin',
    tag: 'Operator',
    auditInstitution: ({ params }) => params.id,
    summary: "Invite an institution's admin (as `institution invite-admin`); the link, valid 7 days, is in this answer",
    caller: 'operator',
    params: institutionParams,
    body: inviteBody,
    response: sentInvitationSchema,
    errors: ['not_found', 'already_added', 'conflict'],
    handler: async ({ ctx, auth, params, body }) => {
      const sent = await inviteInstitutionAdmin(ctx.db, {
        institutionId: params.id,
        email: body.email,
        invitedBy: auth.account.id,
        portalUrl: await ctx.publicUrl(),
      });
      // The operator hands the link over as they see fit, whether or not a mail server is set up.
      return presentSentInvitation(sent, { mailServer: (await getSmtpSettings(ctx.db)) !== null, showLink: true });
    },
  }),
];

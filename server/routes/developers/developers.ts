import { newPasswordSchema } from '../../commands/accounts/passwords.js';
import { listDevelopers, reactivateDeveloper, removeDeveloper, suspendDeveloper } from '../../commands/accounts/developers.js';
import { acceptInvitation, findUsableInvitation, inviteMember, resendInvitation, WrongInvitationPasswordError } from '../../commands/accounts/invitations.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { getSmtpSettings } from '../../mail/smtp-settings.js';
import { waitInWords, type LoginThrottle } from '../../portal/login-throttle.js';
import { startSession } from '../../portal/session.js';
import { z } from '../../validation/zod.js';
import {
  acceptedInvitationSchema,
  memberChangeSchema,
  memberRole,
  memberSchema,
  presentInvitation,
  presentMember,
  presentSentInvitation,
  sentInvitationSchema,
  teamSchema,
} from './schema.js';

export { acceptedInvitationSchema, invitationSchema, memberChangeSchema, memberSchema, sentInvitationSchema, teamSchema } from './schema.js';

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const invitationParams = z.strictObject({ id: z.string().min(1).max(40), invitationId: z.string().min(1).max(40) });
const memberParams = z.strictObject({ id: z.string().min(1).max(40), accountId: z.string().min(1).max(40) });

const inviteBody = z.strictObject({
  email: z
    .email()
    .max(320)
    .transform((email) => email.toLowerCase()),
  /** Chosen at invitation; an admin may invite admins as well as developers. */
  role: memberRole.default('developer'),
});
const acceptBody = z.strictObject({
  token: z.string().min(1).max(100),
  /** A new account's password; for an existing account, its current password (which is kept). */
  password: newPasswordSchema,
});
const suspendBody = z.strictObject({ revoke_keys: z.boolean().default(true) });

/**
 * The link goes back to the admin who invited or resent, in that answer only, when no mail server
 * is set up: the mail waits in the outbox, and the admin hands the link over another way. With a
 * mail server the link is only in the mail (docs/api.md#portal-roles).
 */
async function linkRule(ctx: AppContext) {
  const mailServer = (await getSmtpSettings(ctx.db)) !== null;
  return { mailServer, showLink: !mailServer };
}

/** Only admins manage developers (docs/api.md#portal-roles). */
export const ADMIN = ['admin'] as const;

/** Developer management and invitation acceptance, under /portal/api. */
export function developerRoutes(throttle: LoginThrottle): AnyPortalRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/institutions/{id}/developers',
      operationId: 'listDevelopers',
      tag: 'Developers',
      summary: "The institution's portal members and its open invitations",
      caller: 'member',
      roles: ADMIN,
      params: institutionParams,
      response: teamSchema,
      handler: async ({ access }) => {
        const team = await listDevelopers(access.tenant);
        return { members: team.members.map(presentMember), invitations: team.invitations.map((row) => presentInvitation(row)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/institutions/{id}/developers/invitations',
      operationId: 'inviteDeveloper',
      tag: 'Developers',
      summary: 'Invite an admin or a developer by email; the link is valid for 7 days (in this answer too when no mail server is set up)',
      caller: 'member',
      roles: ADMIN,
      params: institutionParams,
      body: inviteBody,
      response: sentInvitationSchema,
      errors: ['already_added', 'conflict'],
      handler: async ({ access, auth, body, ctx }) => {
        const sent = await inviteMember(access.tenant, { email: body.email, role: body.role, invitedBy: auth.account.id, portalUrl: await ctx.publicUrl() });
        return presentSentInvitation(sent, await linkRule(ctx));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/institutions/{id}/developers/invitations/{invitationId}/resend',
      operationId: 'resendInvitation',
      tag: 'Developers',
      summary: 'Mail a new link; the previous one stops working and the 7 days start again',
      caller: 'member',
      roles: ADMIN,
      params: invitationParams,
      response: sentInvitationSchema,
      errors: ['not_found', 'conflict'],
      handler: async ({ access, params, ctx }) =>
        presentSentInvitation(await resendInvitation(access.tenant, params.invitationId, await ctx.publicUrl()), await linkRule(ctx)),
    }),
    defineRoute({
      method: 'post',
      path: '/institutions/{id}/developers/{accountId}/suspend',
      operationId: 'suspendDeveloper',
      tag: 'Developers',
      summary: 'Suspend a member (never the last active admin); by default the keys they created here are revoked',
      caller: 'member',
      roles: ADMIN,
      params: memberParams,
      body: suspendBody,
      response: memberChangeSchema,
      handler: async ({ access, auth, params, body }) => {
        const change = await suspendDeveloper(access.tenant, params.accountId, { actorId: auth.account.id, revokeKeys: body.revoke_keys });
        return { member: presentMember(change.member), revoked_key_ids: change.revokedKeyIds };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/institutions/{id}/developers/{accountId}/reactivate',
      operationId: 'reactivateDeveloper',
      tag: 'Developers',
      summary: 'Lift a suspension (revoked keys stay revoked)',
      caller: 'member',
      roles: ADMIN,
      params: memberParams,
      response: memberSchema,
      handler: async ({ access, auth, params }) => presentMember(await reactivateDeveloper(access.tenant, params.accountId, { actorId: auth.account.id })),
    }),
    defineRoute({
      method: 'delete',
      path: '/institutions/{id}/developers/{accountId}',
      operationId: 'removeDeveloper',
      tag: 'Developers',
      summary: 'Remove a member, or leave (never the last active admin); the keys they created here are revoked',
      caller: 'member',
      roles: ADMIN,
      params: memberParams,
      response: memberChangeSchema,
      handler: async ({ access, auth, params }) => {
        const change = await removeDeveloper(access.tenant, params.accountId, { actorId: auth.account.id });
        return { member: presentMember(change.member), revoked_key_ids: change.revokedKeyIds };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/invitations/accept',
      operationId: 'acceptInvitation',
      tag: 'Developers',
      summary: 'Accept an invitation (new account, or an existing one with its password) and sign in',
      caller: 'anyone',
      body: acceptBody,
      response: acceptedInvitationSchema,
      handler: async ({ ctx, req, res, body }) => {
        const invitation = await findUsableInvitation(ctx.db, body.token);
        // A wrong password here is a password guess like a failed login, and is throttled the same way.
        const address = req.ip ?? 'unknown';
        const wait = throttle.retryAfterSeconds(invitation.email, address);
        if (wait > 0) {
          res.setHeader('Retry-After', String(wait));
          throw new AppError('rate_limited', `Too many failed sign-ins; try again ${waitInWords(wait)}.`);
        }
        let accepted;
        try {
          accepted = await acceptInvitation(ctx.db, body);
        } catch (error) {
          if (error instanceof WrongInvitationPasswordError) throttle.recordFailure(invitation.email, address);
          throw error;
        }
        const auth = await startSession(ctx.db, req, res, accepted.account);
        return {
          account: { id: accepted.account.id, email: accepted.account.email, is_operator: accepted.account.is_operator },
          institution_id: accepted.membership.institution_id,
          role: accepted.membership.role,
          created_account: accepted.createdAccount,
          csrf_token: auth.csrfToken,
        };
      },
    }),
  ];
}

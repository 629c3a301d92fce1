import {
  acceptInvitation,
  findUsableInvitation,
  inviteDeveloper,
  listDevelopers,
  reactivateDeveloper,
  removeDeveloper,
  resendInvitation,
  suspendDeveloper,
  WrongInvitationPasswordError,
  type TeamMember,
} from '../../commands/developers.js';
import { AppError } from '../../errors.js';
import { z } from '../../validation/zod.js';
import type { InvitationRow } from '../../models/invitation.js';
import { iso } from '../../presenters/common.js';
import type { LoginThrottle } from '../../portal/login-throttle.js';
import { definePortalRoute, type AnyPortalRoute } from '../../http/route.js';
import { startSession } from '../../portal/session.js';

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export const memberSchema = z.object({
  account_id: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'developer']),
  status: z.enum(['active', 'suspended']),
  /** Null for members who did not join through an invitation (setup, the CLI). */
  invited_at: z.string().nullable(),
  accepted_at: z.string().nullable(),
  joined_at: z.string(),
});

export const invitationSchema = z.object({
  invitation_id: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'developer']),
  /** `expired` is computed: the link is past `expires_at` and can only be resent. */
  status: z.enum(['pending', 'expired']),
  invited_at: z.string(),
  sent_at: z.string(),
  expires_at: z.string(),
});

export const memberChangeSchema = z.object({ member: memberSchema, revoked_key_ids: z.array(z.string()) });

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const invitationParams = z.strictObject({ id: z.string().min(1).max(40), invitationId: z.string().min(1).max(40) });
const memberParams = z.strictObject({ id: z.string().min(1).max(40), accountId: z.string().min(1).max(40) });

const inviteBody = z.strictObject({
  email: z
    .email()
    .max(320)
    .transform((email) => email.toLowerCase()),
});
const acceptBody = z.strictObject({
  token: z.string().min(1).max(100),
  /** A new account's password; for an existing account, its current password (which is kept). */
  password: z.string().min(10, 'Use at least 10 characters.').max(200),
});
const suspendBody = z.strictObject({ revoke_keys: z.boolean().default(true) });

// ---------------------------------------------------------------------------------------------
// Presenters
// ---------------------------------------------------------------------------------------------

function presentMember({ membership, account, invitation }: TeamMember): z.input<typeof memberSchema> {
  return {
    account_id: account.id,
    email: account.email,
    role: membership.role,
    status: membership.status,
    invited_at: iso(invitation?.created_at ?? null),
    accepted_at: iso(invitation?.accepted_at ?? null),
    joined_at: membership.created_at.toISOString(),
  };
}

/** Never the token hash: it is all a copy of this answer would need to find the row again. */
function presentInvitation(row: InvitationRow, now = Date.now()): z.input<typeof invitationSchema> {
  return {
    invitation_id: row.id,
    email: row.email,
    role: row.role,
    status: row.expires_at.getTime() <= now ? 'expired' : 'pending',
    invited_at: row.created_at.toISOString(),
    sent_at: row.sent_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/** Only admins manage developers (docs/api.md#portal-roles). */
const ADMIN = ['admin'] as const;

export const teamSchema = z.object({ members: z.array(memberSchema), invitations: z.array(invitationSchema) });

export const acceptedInvitationSchema = z.object({
  account: z.object({ id: z.string(), email: z.string(), is_operator: z.boolean() }),
  institution_id: z.string(),
  role: z.enum(['admin', 'developer']),
  created_account: z.boolean(),
  csrf_token: z.string(),
});

/** Developer management and invitation acceptance, under /portal/api. */
export function developerRoutes(throttle: LoginThrottle): AnyPortalRoute[] {
  return [
    definePortalRoute({
      method: 'get',
      path: '/institutions/{id}/developers',
      operationId: 'listDevelopers',
      tag: 'Developers',
      summary: "The institution's portal members and its open invitations",
      access: 'member',
      roles: ADMIN,
      params: institutionParams,
      response: teamSchema,
      handler: async ({ access }) => {
        const team = await listDevelopers(access.tenant);
        return { members: team.members.map(presentMember), invitations: team.invitations.map((row) => presentInvitation(row)) };
      },
    }),
    definePortalRoute({
      method: 'post',
      path: '/institutions/{id}/developers/invitations',
      operationId: 'inviteDeveloper',
      tag: 'Developers',
      summary: 'Invite a developer by email; the link is valid for 7 days',
      access: 'member',
      roles: ADMIN,
      params: institutionParams,
      body: inviteBody,
      response: invitationSchema,
      handler: async ({ access, auth, body, ctx }) =>
        presentInvitation(await inviteDeveloper(access.tenant, { email: body.email, invitedBy: auth.account.id, portalUrl: await ctx.publicUrl() })),
    }),
    definePortalRoute({
      method: 'post',
      path: '/institutions/{id}/developers/invitations/{invitationId}/resend',
      operationId: 'resendInvitation',
      tag: 'Developers',
      summary: 'Mail a new link; the previous one stops working and the 7 days start again',
      access: 'member',
      roles: ADMIN,
      params: invitationParams,
      response: invitationSchema,
      handler: async ({ access, params, ctx }) => presentInvitation(await resendInvitation(access.tenant, params.invitationId, await ctx.publicUrl())),
    }),
    definePortalRoute({
      method: 'post',
      path: '/institutions/{id}/developers/{accountId}/suspend',
      operationId: 'suspendDeveloper',
      tag: 'Developers',
      summary: 'Suspend a developer; by default the keys they created here are revoked',
      access: 'member',
      roles: ADMIN,
      params: memberParams,
      body: suspendBody,
      response: memberChangeSchema,
      handler: async ({ access, auth, params, body }) => {
        const change = await suspendDeveloper(access.tenant, params.accountId, { actorId: auth.account.id, revokeKeys: body.revoke_keys });
        return { member: presentMember(change.member), revoked_key_ids: change.revokedKeyIds };
      },
    }),
    definePortalRoute({
      method: 'post',
      path: '/institutions/{id}/developers/{accountId}/reactivate',
      operationId: 'reactivateDeveloper',
      tag: 'Developers',
      summary: 'Lift a suspension (revoked keys stay revoked)',
      access: 'member',
      roles: ADMIN,
      params: memberParams,
      response: memberSchema,
      handler: async ({ access, auth, params }) => presentMember(await reactivateDeveloper(access.tenant, params.accountId, { actorId: auth.account.id })),
    }),
    definePortalRoute({
      method: 'delete',
      path: '/institutions/{id}/developers/{accountId}',
      operationId: 'removeDeveloper',
      tag: 'Developers',
      summary: 'Remove a developer; the keys they created here are revoked',
      access: 'member',
      roles: ADMIN,
      params: memberParams,
      response: memberChangeSchema,
      handler: async ({ access, auth, params }) => {
        const change = await removeDeveloper(access.tenant, params.accountId, { actorId: auth.account.id });
        return { member: presentMember(change.member), revoked_key_ids: change.revokedKeyIds };
      },
    }),
    definePortalRoute({
      method: 'post',
      path: '/invitations/accept',
      operationId: 'acceptInvitation',
      tag: 'Developers',
      summary: 'Accept an invitation (new account, or an existing one with its password) and sign in',
      access: 'none',
      body: acceptBody,
      response: acceptedInvitationSchema,
      handler: async ({ ctx, req, res, body }) => {
        const invitation = await findUsableInvitation(ctx.db, body.token);
        // A wrong password here is a password guess like a failed login, and is throttled the same way.
        const address = req.ip ?? 'unknown';
        const wait = throttle.retryAfterSeconds(invitation.email, address);
        if (wait > 0) {
          res.setHeader('Retry-After', String(wait));
          throw new AppError('rate_limited', 'Too many failed sign-ins; try again later.');
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

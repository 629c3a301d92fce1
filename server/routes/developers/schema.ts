import type { TeamMember } from '../../commands/accounts/developers.js';
import type { SentInvitation } from '../../commands/accounts/invitations.js';
import type { InvitationRow } from '../../models/invitation.js';
import { MAIL_STATUSES } from '../../models/mail.js';
import { iso } from '../../presenters/common.js';
import { z } from '../../validation/zod.js';

/** The team's schemas and presenters: members and invitations, shared by the Team page's and the operator's operations. */

export const memberRole = z.enum(['admin', 'developer']);

export const memberSchema = z.object({
  account_id: z.string(),
  email: z.string(),
  role: memberRole,
  status: z.enum(['active', 'suspended']),
  /** Null for members who did not join through an invitation (setup, the CLI). */
  invited_at: z.string().nullable(),
  accepted_at: z.string().nullable(),
  joined_at: z.string(),
});

export const invitationSchema = z.object({
  invitation_id: z.string(),
  email: z.string(),
  role: memberRole,
  /** `expired` is computed: the link is past `expires_at` and can only be resent. */
  status: z.enum(['pending', 'expired']),
  invited_at: z.string(),
  sent_at: z.string(),
  expires_at: z.string(),
});

/**
 * The answer to inviting or resending: the invitation, what became of its mail, and the link
 * itself only where docs/api.md#portal-roles says so (no mail server, or the operator). Lists
 * never carry a link: the table keeps only its hash.
 */
export const sentInvitationSchema = invitationSchema.extend({
  /** The invitation mail as the outbox has it now: `queued` until the mailer has sent it. */
  mail: z.object({ mail_id: z.string(), status: z.enum(MAIL_STATUSES) }),
  /** false: no mail server is set up, so the mail waits in the outbox until one is. */
  mail_server: z.boolean(),
  /** The acceptance link, to hand over another way; null when it is only in the mail. */
  invite_url: z.string().nullable(),
});

export const memberChangeSchema = z.object({ member: memberSchema, revoked_key_ids: z.array(z.string()) });

export const teamSchema = z.object({ members: z.array(memberSchema), invitations: z.array(invitationSchema) });

export const acceptedInvitationSchema = z.object({
  account: z.object({ id: z.string(), email: z.string(), is_operator: z.boolean() }),
  institution_id: z.string(),
  role: memberRole,
  created_account: z.boolean(),
  csrf_token: z.string(),
});

export function presentMember({ membership, account, invitation }: TeamMember): z.input<typeof memberSchema> {
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
export function presentInvitation(row: InvitationRow, now = Date.now()): z.input<typeof invitationSchema> {
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

/** `showLink`: whether this caller may see the link in this answer (the rule is the route's). */
export function presentSentInvitation(sent: SentInvitation, options: { mailServer: boolean; showLink: boolean }): z.input<typeof sentInvitationSchema> {
  return {
    ...presentInvitation(sent.invitation),
    mail: { mail_id: sent.mail.id, status: sent.mail.status },
    mail_server: options.mailServer,
    invite_url: options.showLink ? sent.link : null,
  };
}

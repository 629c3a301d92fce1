import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { hashToken } from '../../crypto/tokens.js';
import { newId, randomToken } from '../../ids.js';
import { queueMail } from '../../mail/outbox.js';
import type { InvitationRow } from '../../models/invitation.js';
import type { MailOutboxRow } from '../../models/mail.js';
import type { MembershipRole, MembershipRow } from '../../models/membership.js';
import type { PortalAccountRow } from '../../models/portal-account.js';
import { parseInput } from '../../validation/parse.js';
import { normalizeEmail } from '../../validation/people.js';
import { z } from '../../validation/zod.js';
import { DAY_MS } from '../people/licenses.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** Invitations (admins and developers alike) are valid for 7 days (docs/api.md#portal-roles). */
export const INVITE_TTL_MS = 7 * DAY_MS;
const TOKEN_LENGTH = 40;
const TOKEN_PATTERN = /^[A-Za-z0-9]{40}$/;

/** The portal is a single-page app with hash routes. */
export const invitationAcceptUrl = (portalUrl: string, token: string) => `${portalUrl}/#/accept-invite?token=${token}`;

/** One answer for unknown, used, replaced and expired links, so a link's history cannot be probed. */
const invalidInvitation = () => new AppError('unauthorized', 'This invitation link is not valid: it was used, replaced by a newer one, or has expired.');

/** An existing account accepting with a password that is not its own; the route counts it as a failed sign-in. */
export class WrongInvitationPasswordError extends AppError {
  constructor(readonly email: string) {
    super('unauthorized', 'An account with this email already exists; enter its current password to accept.');
  }
}

/**
 * A link just made: the invitation, the link itself (held in memory only: the table keeps its
 * hash) and the mail queued with it. Who may see `link` is the caller's rule (docs/api.md#portal-roles).
 */
export interface SentInvitation {
  invitation: InvitationRow;
  link: string;
  mail: MailOutboxRow;
}

const WHAT_ROLE_DOES: Record<MembershipRole, string> = {
  admin: 'as an admin, who manages its people, settings, team, API keys and webhooks',
  developer: 'as a developer, who creates API keys and follows webhooks and deliveries',
};

/** A fresh link: new token (the previous link stops working), expiry 7 days from now, mail queued. */
async function sendInvitation(tx: TenantTx, invitation: InvitationRow, portalUrl: string): Promise<SentInvitation> {
  const token = randomToken(TOKEN_LENGTH);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
  await invitation.update({ token_hash: hashToken(token), expires_at: expiresAt, sent_at: now }, { transaction: tx.tx });
  const institution = await tx.institution();
  const link = invitationAcceptUrl(portalUrl, token);
  const mail = await queueMail(tx, {
    to: invitation.email,
    linkBase: portalUrl,
    subject: `You are invited to ${institution.name} on CampusBridge`,
    text: [
      'Hello,',
      '',
      `${institution.name} invites you to its CampusBridge portal ${WHAT_ROLE_DOES[invitation.role]}.`,
      'Open this link within 7 days to accept:',
      '',
      link,
      '',
      'If you did not expect this message, you can ignore it; nothing happens unless you open the link.',
    ].join('\n'),
    kind: invitation.role === 'admin' ? 'admin_invite' : 'developer_invite',
    expiresAt,
    // Dropped unsent if the invitation is accepted or its link replaced while the mail waits.
    about: { kind: 'invitation', id: invitation.id },
  });
  return { invitation, link, mail };
}

export interface InviteInput {
  email: string;
  role: MembershipRole;
  /** The inviting account; null when made outside the portal (the CLI). */
  invitedBy: string | null;
  /** Base of the acceptance link (`ctx.publicUrl()`, or the CLI's `public_url` setting). */
  portalUrl: string;
}

/**
 * Invites someone by email to the institution with `role`. A member of the institution already is
 * `409 already_added` (or `409 conflict` when suspended: reactivate instead). An open invitation
 * for the same email is sent again with the new role (new link, new expiry) rather than duplicated.
 */
export async function inviteMember(tenant: Tenant, input: InviteInput): Promise<SentInvitation> {
  // The routes' schemas check this too; the CLI reaches here with what was typed.
  const email = parseInput(z.email('An email address, such as head@school.example.').max(320), normalizeEmail(input.email));
  return tenant.inTransaction(async (tx) => {
    const account = await tx.appliance.portalAccounts.findOne({ where: { email } });
    const membership = account ? await tx.memberships.findOne({ where: { account_id: account.id } }) : null;
    if (membership?.status === 'active') throw new AppError('already_added', `${email} is already a member (${membership.role}) of this institution.`);
    if (membership) throw new AppError('conflict', `${email} is a suspended member of this institution; reactivate them instead.`);
    const open = await tx.invitations.findOne({ where: { email, status: 'pending' } });
    if (open && open.role !== input.role) await open.update({ role: input.role }, { transaction: tx.tx });
    const invitation =
      open ??
      (await tx.invitations.create({
        id: newId('inv'),
        email,
        role: input.role,
        status: 'pending',
        token_hash: null,
        expires_at: new Date(),
        invited_by: input.invitedBy,
        sent_at: new Date(),
        accepted_at: null,
        accepted_by: null,
      }));
    return sendInvitation(tx, invitation, input.portalUrl);
  });
}

/** A new link for an open invitation (expired ones too); the old link stops working at once. */
export async function resendInvitation(tenant: Tenant, invitationId: string, portalUrl: string): Promise<SentInvitation> {
  return tenant.inTransaction(async (tx) => {
    const invitation = await tx.invitations.findById(invitationId);
    if (!invitation) throw notFound('invitation');
    if (invitation.status !== 'pending') throw new AppError('conflict', 'This invitation was already accepted.');
    return sendInvitation(tx, invitation, portalUrl);
  });
}

/**
 * The open, unexpired invitation a token names, or 401. The token names its institution, so this
 * (like accepting) starts without a tenant.
 */
export async function findUsableInvitation(db: Database, token: string, now = new Date()): Promise<InvitationRow> {
  if (!TOKEN_PATTERN.test(token)) throw invalidInvitation();
  const invitation = await db.models.Invitation.findOne({ where: { token_hash: hashToken(token) } });
  if (!invitation || invitation.status !== 'pending' || invitation.expires_at.getTime() <= now.getTime()) throw invalidInvitation();
  return invitation;
}

export interface AcceptedInvitation {
  account: PortalAccountRow;
  membership: MembershipRow;
  /** True when the invitation made the account; false when an existing account joined. */
  createdAccount: boolean;
}

/**
 * Accepts an invitation: the account with the invited email (made now with `password`, or an
 * existing one, which must give its current password and keeps it) becomes an active member.
 * Accepting never lifts a suspension and never changes an existing member's role. The link is
 * single-use: its hash is cleared.
 */
export async function acceptInvitation(db: Database, input: { token: string; password: string }, now = new Date()): Promise<AcceptedInvitation> {
  const found = await findUsableInvitation(db, input.token, now);
  const existing = await db.models.PortalAccount.findOne({ where: { email: found.email } });
  // scrypt runs before the transaction, so the write lock is not held for it.
  if (existing && !(existing.password_hash && (await verifyPassword(input.password, existing.password_hash)))) {
    throw new WrongInvitationPasswordError(found.email);
  }
  if (existing && existing.status !== 'active') throw new AppError('unauthorized', 'This account is suspended.');
  const newHash = existing ? null : await hashPassword(input.password);

  return new Tenant(db, found.institution_id).inTransaction(async (tx) => {
    const transaction = tx.tx;
    // Checked again inside the transaction: a resend or another accept may have happened meanwhile.
    const invitation = await tx.invitations.findOne({ where: { id: found.id, token_hash: hashToken(input.token), status: 'pending' } });
    if (!invitation) throw invalidInvitation();
    const account =
      existing ??
      (await db.models.PortalAccount.create(
        { id: newId('acc'), email: invitation.email, password_hash: newHash, is_operator: false, status: 'active' },
        { transaction },
      ));
    let membership = await tx.memberships.findOne({ where: { account_id: account.id } });
    if (membership?.status === 'suspended') throw new AppError('conflict', 'Your membership of this institution is suspended; ask its admin.');
    membership ??= await tx.memberships.create({ id: newId('mem'), account_id: account.id, role: invitation.role, status: 'active' });
    await invitation.update({ status: 'accepted', token_hash: null, accepted_at: now, accepted_by: account.id }, { transaction });
    return { account, membership, createdAccount: !existing };
  });
}

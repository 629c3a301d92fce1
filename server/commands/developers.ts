import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { Tenant, type TenantTx } from '../db/tenant.js';
import { AppError, notFound } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import { queueMail } from '../mail/outbox.js';
import type { InvitationRow } from '../models/invitation.js';
import type { MembershipRow } from '../models/membership.js';
import type { PortalAccountRow } from '../models/portal-account.js';
import { revokeApiKey } from './api-keys.js';
import { DAY_MS } from './licenses.js';
import { hashPassword, verifyPassword } from './passwords.js';

import { hashToken } from '../crypto/tokens.js';
import { normalizeEmail } from '../validation/people.js';

/** Developer invitations are valid for 7 days (docs/api.md#portal-roles). */
export const DEVELOPER_INVITE_TTL_MS = 7 * DAY_MS;
const TOKEN_LENGTH = 40;
const TOKEN_PATTERN = /^[A-Za-z0-9]{40}$/;

/** The portal is a single-page app with hash routes. */
export const developerAcceptUrl = (portalUrl: string, token: string) => `${portalUrl}/#/accept-invite?token=${token}`;

/** One answer for unknown, used, replaced and expired links, so a link's history cannot be probed. */
const invalidInvitation = () => new AppError('unauthorized', 'This invitation link is not valid: it was used, replaced by a newer one, or has expired.');

/** An existing account accepting with a password that is not its own; the route counts it as a failed sign-in. */
export class WrongInvitationPasswordError extends AppError {
  constructor(readonly email: string) {
    super('unauthorized', 'An account with this email already exists; enter its current password to accept.');
  }
}

/** Memberships and invitations are institution data, so they are reached only through scoped repositories. */
function teamOf(tenant: Tenant) {
  return { memberships: tenant.memberships, invitations: tenant.invitations };
}

export interface TeamMember {
  membership: MembershipRow;
  account: PortalAccountRow;
  /** The invitation the member joined through; null for members made otherwise (setup, the CLI). */
  invitation: InvitationRow | null;
}

export interface Team {
  members: TeamMember[];
  /** Invitations not yet accepted, expired ones included (they can be resent). */
  invitations: InvitationRow[];
}

async function membersOf(tenant: Tenant, memberships: MembershipRow[]): Promise<TeamMember[]> {
  if (memberships.length === 0) return [];
  const accountIds = memberships.map((row) => row.account_id);
  const [accounts, accepted] = await Promise.all([
    tenant.appliance.portalAccounts.findAll({ where: { id: { [Op.in]: accountIds } } }),
    teamOf(tenant).invitations.findAll({ where: { status: 'accepted', accepted_by: { [Op.in]: accountIds } }, order: [['accepted_at', 'ASC']] }),
  ]);
  const accountById = new Map(accounts.map((row) => [row.id, row]));
  const invitationByAccount = new Map(accepted.map((row) => [row.accepted_by, row])); // the latest wins
  return memberships.flatMap((membership) => {
    const account = accountById.get(membership.account_id);
    return account ? [{ membership, account, invitation: invitationByAccount.get(account.id) ?? null }] : [];
  });
}

/** The institution's portal members (admins and developers, active and suspended) and its open invitations. */
export async function listDevelopers(tenant: Tenant): Promise<Team> {
  const team = teamOf(tenant);
  const [memberships, invitations] = await Promise.all([
    team.memberships.findAll({
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    }),
    team.invitations.findAll({
      where: { status: 'pending' },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    }),
  ]);
  return { members: await membersOf(tenant, memberships), invitations };
}

/** A fresh link: new token (the previous link stops working), expiry 7 days from now, mail queued. */
async function sendInvitation(tx: TenantTx, invitation: InvitationRow, portalUrl: string): Promise<void> {
  const token = randomToken(TOKEN_LENGTH);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + DEVELOPER_INVITE_TTL_MS);
  await invitation.update({ token_hash: hashToken(token), expires_at: expiresAt, sent_at: now }, { transaction: tx.tx });
  const institution = await tx.institution();
  await queueMail(tx, {
    to: invitation.email,
    subject: `You are invited to ${institution.name} on CampusBridge`,
    text: [
      'Hello,',
      '',
      `${institution.name} invites you to its CampusBridge developer portal, where you can create API keys`,
      'and follow webhooks and deliveries. Open this link within 7 days to accept:',
      '',
      developerAcceptUrl(portalUrl, token),
      '',
      'If you did not expect this message, you can ignore it; nothing happens unless you open the link.',
    ].join('\n'),
    kind: 'developer_invite',
    expiresAt,
  });
}

export interface InviteInput {
  email: string;
  invitedBy: string;
  /** Base of the acceptance link (`ctx.portalUrl`). */
  portalUrl: string;
}

/**
 * Invites a developer by email. A member of the institution already is `409 already_added` (or
 * `409 conflict` when suspended: reactivate instead). An open invitation for the same email is
 * sent again (new link, new expiry) rather than duplicated.
 */
export async function inviteDeveloper(tenant: Tenant, input: InviteInput): Promise<InvitationRow> {
  const email = normalizeEmail(input.email);
  return tenant.inTransaction(async (tx) => {
    const team = teamOf(tx);
    const account = await tx.appliance.portalAccounts.findOne({ where: { email } });
    const membership = account ? await team.memberships.findOne({ where: { account_id: account.id } }) : null;
    if (membership?.status === 'active') throw new AppError('already_added', `${email} is already a member of this institution.`);
    if (membership) throw new AppError('conflict', `${email} is a suspended member of this institution; reactivate them instead.`);
    const open = await team.invitations.findOne({ where: { email, status: 'pending' } });
    const invitation =
      open ??
      (await team.invitations.create({
        id: newId('inv'),
        email,
        role: 'developer',
        status: 'pending',
        token_hash: null,
        expires_at: new Date(),
        invited_by: input.invitedBy,
        sent_at: new Date(),
        accepted_at: null,
        accepted_by: null,
      }));
    await sendInvitation(tx, invitation, input.portalUrl);
    return invitation;
  });
}

/** A new link for an open invitation (expired ones too); the old link stops working at once. */
export async function resendInvitation(tenant: Tenant, invitationId: string, portalUrl: string): Promise<InvitationRow> {
  return tenant.inTransaction(async (tx) => {
    const invitation = await teamOf(tx).invitations.findById(invitationId);
    if (!invitation) throw notFound('invitation');
    if (invitation.status !== 'pending') throw new AppError('conflict', 'This invitation was already accepted.');
    await sendInvitation(tx, invitation, portalUrl);
    return invitation;
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

  return db.sequelize.transaction(async (transaction) => {
    const tx = new Tenant(db, found.institution_id, transaction) as TenantTx;
    const team = teamOf(tx);
    // Checked again inside the transaction: a resend or another accept may have happened meanwhile.
    const invitation = await team.invitations.findOne({ where: { id: found.id, token_hash: hashToken(input.token), status: 'pending' } });
    if (!invitation) throw invalidInvitation();
    const account =
      existing ??
      (await db.models.PortalAccount.create(
        { id: newId('acc'), email: invitation.email, password_hash: newHash, is_operator: false, status: 'active' },
        { transaction },
      ));
    let membership = await team.memberships.findOne({ where: { account_id: account.id } });
    if (membership?.status === 'suspended') throw new AppError('conflict', 'Your membership of this institution is suspended; ask its admin.');
    membership ??= await team.memberships.create({ id: newId('mem'), account_id: account.id, role: invitation.role, status: 'active' });
    await invitation.update({ status: 'accepted', token_hash: null, accepted_at: now, accepted_by: account.id }, { transaction });
    return { account, membership, createdAccount: !existing };
  });
}

export interface MemberChange {
  member: TeamMember;
  /** Keys the member had created in this institution that this change revoked. */
  revokedKeyIds: string[];
}

/** A developer membership of this institution, for changes made by `actorId` (never on themself). */
async function developerToChange(tx: TenantTx, accountId: string, actorId: string): Promise<TeamMember> {
  if (accountId === actorId) throw new AppError('conflict', 'You cannot suspend or remove yourself.');
  const membership = await teamOf(tx).memberships.findOne({ where: { account_id: accountId } });
  const [member] = membership ? await membersOf(tx, [membership]) : [];
  if (!member) throw notFound('developer');
  if (member.membership.role !== 'developer') throw new AppError('conflict', 'Only developers are managed here; admins are not.');
  return member;
}

/** Revokes, through the same command as the portal's revoke button, every active key the account created here. */
async function revokeKeysCreatedBy(tx: TenantTx, accountId: string): Promise<string[]> {
  const keys = await tx.apiKeys.findAll({ attributes: ['id'], where: { created_by: accountId, status: 'active' }, order: [['created_at', 'ASC']] });
  for (const key of keys) await revokeApiKey(tx, key.id);
  return keys.map((key) => key.id);
}

/**
 * Suspends a developer: their requests for this institution are refused from the next one on, and
 * unless `revokeKeys` is false every active key they created here is revoked (docs/api.md#portal-roles).
 */
export async function suspendDeveloper(tenant: Tenant, accountId: string, options: { actorId: string; revokeKeys: boolean }): Promise<MemberChange> {
  return tenant.inTransaction(async (tx) => {
    const member = await developerToChange(tx, accountId, options.actorId);
    if (member.membership.status !== 'suspended') await member.membership.update({ status: 'suspended' }, { transaction: tx.tx });
    const revokedKeyIds = options.revokeKeys ? await revokeKeysCreatedBy(tx, accountId) : [];
    return { member, revokedKeyIds };
  });
}

/** Lifts a suspension. Keys revoked by the suspension stay revoked: the developer makes new ones. */
export async function reactivateDeveloper(tenant: Tenant, accountId: string, options: { actorId: string }): Promise<TeamMember> {
  return tenant.inTransaction(async (tx) => {
    const member = await developerToChange(tx, accountId, options.actorId);
    if (member.membership.status !== 'active') await member.membership.update({ status: 'active' }, { transaction: tx.tx });
    return member;
  });
}

/**
 * Removes a developer from the institution, always revoking the keys they created here (a key
 * must not outlive everyone who may answer for it). The account itself stays: it may belong to
 * other institutions, and can be invited again.
 */
export async function removeDeveloper(tenant: Tenant, accountId: string, options: { actorId: string }): Promise<MemberChange> {
  return tenant.inTransaction(async (tx) => {
    const member = await developerToChange(tx, accountId, options.actorId);
    const revokedKeyIds = await revokeKeysCreatedBy(tx, accountId);
    await teamOf(tx).memberships.destroy({ id: member.membership.id });
    return { member, revokedKeyIds };
  });
}

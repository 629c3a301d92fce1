import { Op } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import type { InvitationRow } from '../../models/invitation.js';
import type { MembershipRow } from '../../models/membership.js';
import type { PortalAccountRow } from '../../models/portal-account.js';
import { revokeApiKey } from '../institutions/api-keys.js';
import { INVITE_TTL_MS } from './invitations.js';

/** Developer invitations are valid for 7 days, as every invitation (docs/api.md#portal-roles). */
export const DEVELOPER_INVITE_TTL_MS = INVITE_TTL_MS;

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

export interface MemberChange {
  member: TeamMember;
  /** Keys the member had created in this institution that this change revoked. */
  revokedKeyIds: string[];
}

type MemberAction = 'suspend' | 'reactivate' | 'remove';

/**
 * A membership of this institution, for a change made by `actorId`. Nobody suspends or
 * reactivates themself; removing yourself is leaving. The last active admin can be neither
 * suspended nor removed, or nobody could open the institution's team again.
 */
async function memberToChange(tx: TenantTx, accountId: string, actorId: string, action: MemberAction): Promise<TeamMember> {
  if (accountId === actorId && action !== 'remove') throw new AppError('conflict', `You cannot ${action} yourself.`);
  const membership = await teamOf(tx).memberships.findOne({ where: { account_id: accountId } });
  const [member] = membership ? await membersOf(tx, [membership]) : [];
  if (!member) throw notFound('member');
  if (action !== 'reactivate' && member.membership.role === 'admin' && member.membership.status === 'active') {
    const activeAdmins = await teamOf(tx).memberships.count({ where: { role: 'admin', status: 'active' } });
    if (activeAdmins <= 1) {
      const institution = await tx.institution();
      throw new AppError(
        'conflict',
        `${member.account.email} is the last active admin of ${institution.name}; invite another admin first, or the institution could not be managed.`,
      );
    }
  }
  return member;
}

/** Revokes, through the same command as the portal's revoke button, every active key the account created here. */
async function revokeKeysCreatedBy(tx: TenantTx, accountId: string): Promise<string[]> {
  const keys = await tx.apiKeys.findAll({ attributes: ['id'], where: { created_by: accountId, status: 'active' }, order: [['created_at', 'ASC']] });
  for (const key of keys) await revokeApiKey(tx, key.id);
  return keys.map((key) => key.id);
}

/**
 * Suspends a member (admin or developer): their requests for this institution are refused from the next one on, and
 * unless `revokeKeys` is false every active key they created here is revoked (docs/api.md#portal-roles).
 */
export async function suspendDeveloper(tenant: Tenant, accountId: string, options: { actorId: string; revokeKeys: boolean }): Promise<MemberChange> {
  return tenant.inTransaction(async (tx) => {
    const member = await memberToChange(tx, accountId, options.actorId, 'suspend');
    if (member.membership.status !== 'suspended') await member.membership.update({ status: 'suspended' }, { transaction: tx.tx });
    const revokedKeyIds = options.revokeKeys ? await revokeKeysCreatedBy(tx, accountId) : [];
    return { member, revokedKeyIds };
  });
}

/** Lifts a suspension. Keys revoked by the suspension stay revoked: the developer makes new ones. */
export async function reactivateDeveloper(tenant: Tenant, accountId: string, options: { actorId: string }): Promise<TeamMember> {
  return tenant.inTransaction(async (tx) => {
    const member = await memberToChange(tx, accountId, options.actorId, 'reactivate');
    if (member.membership.status !== 'active') await member.membership.update({ status: 'active' }, { transaction: tx.tx });
    return member;
  });
}

/**
 * Removes a member from the institution (or lets one leave), always revoking the keys they created here (a key
 * must not outlive everyone who may answer for it). The account itself stays: it may belong to
 * other institutions, and can be invited again.
 */
export async function removeDeveloper(tenant: Tenant, accountId: string, options: { actorId: string }): Promise<MemberChange> {
  return tenant.inTransaction(async (tx) => {
    const member = await memberToChange(tx, accountId, options.actorId, 'remove');
    const revokedKeyIds = await revokeKeysCreatedBy(tx, accountId);
    await teamOf(tx).memberships.destroy({ id: member.membership.id });
    return { member, revokedKeyIds };
  });
}

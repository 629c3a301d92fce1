import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import { AppError, notFound } from '../errors.js';
import type { InstitutionRow } from '../models/institution.js';
import type { MembershipRole, MembershipRow } from '../models/membership.js';
import type { PortalAuth } from './session.js';

/** `operator` runs the appliance (approves institutions); `admin` and `developer` are per institution. */
export type PortalRole = 'operator' | MembershipRole;

export interface PortalMembership {
  institution: InstitutionRow;
  role: MembershipRole;
}

export interface InstitutionAccess extends PortalMembership {
  /** The institution's data, scoped: handlers reach it only through this. */
  tenant: Tenant;
}

/** The account's active memberships, each with its institution. */
export async function membershipsOf(db: Database, accountId: string): Promise<PortalMembership[]> {
  const rows = (await db.models.Membership.findAll({
    where: { account_id: accountId, status: 'active' },
    include: [{ association: 'institution' }],
    order: [['created_at', 'ASC']],
  })) as Array<MembershipRow & { institution?: InstitutionRow }>;
  return rows.flatMap((row) => (row.institution ? [{ institution: row.institution, role: row.role }] : []));
}

export function requireOperator(auth: PortalAuth): void {
  if (!auth.account.is_operator) throw new AppError('forbidden', 'Only the appliance operator can do this.');
}

/**
 * The caller's access to one institution. An institution the caller is not an active member of
 * answers 404, so ids cannot be probed; a member whose role is not allowed gets 403.
 */
export async function requireMember(db: Database, auth: PortalAuth, institutionId: string, roles: readonly MembershipRole[]): Promise<InstitutionAccess> {
  const membership = (await db.models.Membership.findOne({
    where: { account_id: auth.account.id, institution_id: institutionId, status: 'active' },
    include: [{ association: 'institution' }],
  })) as (MembershipRow & { institution?: InstitutionRow }) | null;
  const institution = membership?.institution;
  if (!membership || !institution) throw notFound('institution');
  if (!roles.includes(membership.role)) {
    throw new AppError('forbidden', `This needs the ${roles.join(' or ')} role in this institution.`);
  }
  if (institution.status === 'suspended') throw new AppError('forbidden', 'This institution is suspended by the appliance operator.');
  return { institution, role: membership.role, tenant: new Tenant(db, institution.id) };
}

/**
 * `requireMember`, where `institutionId` may also name an institution's sandbox: the caller must
 * be a member of its live institution (whose status counts), and then acts on the sandbox alone.
 */
export async function requireMemberOrSandbox(
  db: Database,
  auth: PortalAuth,
  institutionId: string,
  roles: readonly MembershipRole[],
): Promise<InstitutionAccess> {
  const sandbox = await db.models.Institution.findByPk(institutionId);
  if (!sandbox?.sandbox_of) return requireMember(db, auth, institutionId, roles);
  const live = await requireMember(db, auth, sandbox.sandbox_of, roles);
  // Approval is the live institution's: a sandbox of a pending one is not open either.
  if (live.institution.status !== 'approved') {
    throw new AppError('institution_not_approved', 'This institution has not been approved by the appliance operator yet.');
  }
  return { institution: sandbox, role: live.role, tenant: new Tenant(db, sandbox.id) };
}

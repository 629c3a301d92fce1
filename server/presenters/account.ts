import type { InstitutionRow } from '../models/institution.js';
import type { MembershipRole } from '../models/membership.js';
import type { PortalAccountRow } from '../models/portal-account.js';

/** A portal account: never its password hash. */
export function presentAccount(row: PortalAccountRow) {
  return { id: row.id, email: row.email, is_operator: row.is_operator, status: row.status, created_at: row.created_at.toISOString() };
}

/** An account's active membership: the institution and the account's role there. */
interface SessionMembership {
  institution: InstitutionRow;
  role: MembershipRole;
}

/**
 * The signed-in account as the portal shows it: never the password hash, never the session token.
 * `sandboxes` maps a live institution's id to its sandbox's.
 */
export function presentSession(
  auth: { account: PortalAccountRow; csrfToken: string },
  memberships: readonly SessionMembership[],
  sandboxes: ReadonlyMap<string, string>,
) {
  return {
    account: { id: auth.account.id, email: auth.account.email, is_operator: auth.account.is_operator },
    memberships: memberships.map(({ institution, role }) => ({
      institution: { id: institution.id, name: institution.name, status: institution.status },
      role,
      sandbox_id: sandboxes.get(institution.id) ?? null,
    })),
    csrf_token: auth.csrfToken,
  };
}

import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { listDevelopers, type TeamMember } from './developers.js';
import { findInstitution } from '../institutions/institutions.js';
import { inviteMember, type SentInvitation } from './invitations.js';
import type { InvitationRow } from '../../models/invitation.js';
import type { InstitutionRow } from '../../models/institution.js';

/**
 * The operator gives an institution its admin (CLI `institution invite-admin`, the operator's
 * Institutions page): an invitation with the `admin` role, made like an admin's own invitation.
 * The link creates the account, or an existing account joins with its own password. The
 * operator is always given the link (it is theirs to hand over); the mail is queued as well.
 */
export async function inviteInstitutionAdmin(
  db: Database,
  input: { institutionId: string; email: string; invitedBy: string | null; portalUrl: string },
): Promise<SentInvitation & { institution: InstitutionRow }> {
  const institution = await findInstitution(db, input.institutionId);
  const sent = await inviteMember(new Tenant(db, institution.id), {
    email: input.email,
    role: 'admin',
    invitedBy: input.invitedBy,
    portalUrl: input.portalUrl,
  });
  return { ...sent, institution };
}

export interface InstitutionAdmins {
  institution: InstitutionRow;
  admins: TeamMember[];
  /** Open admin invitations, expired ones included (they can be sent again by inviting again). */
  invitations: InvitationRow[];
}

/** Who administers an institution: its admins (active and suspended) and open admin invitations. */
export async function listInstitutionAdmins(db: Database, institutionId: string): Promise<InstitutionAdmins> {
  const institution = await findInstitution(db, institutionId);
  const team = await listDevelopers(new Tenant(db, institution.id));
  return {
    institution,
    admins: team.members.filter((member) => member.membership.role === 'admin'),
    invitations: team.invitations.filter((invitation) => invitation.role === 'admin'),
  };
}

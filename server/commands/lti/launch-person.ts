import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { PersonRow } from '../../models/person.js';
import { normalizeEmail, personalEmail } from '../../validation/people.js';
import { createPerson, updatePerson } from '../people/people.js';
import { CLAIM, isLearner, isTeacher, launchRoles, nameFromClaims, placeholderName } from './claims.js';

/** The role a launch's roles give: context roles first (claims.ts); null when they name neither a learner nor a teacher. */
export function launchRole(claims: Record<string, unknown>): 'student' | 'faculty' | null {
  const roles = claims[CLAIM.roles];
  if (isTeacher(roles)) return 'faculty';
  return isLearner(roles) ? 'student' : null;
}

/** Refuses a valid launch whose roles the appliance has no page for (docs/lms.md#roles): in words, before anyone is matched or made. */
export function assertSupportedRole(claims: Record<string, unknown>): void {
  if (launchRole(claims)) return;
  const roles = launchRoles(claims[CLAIM.roles]);
  throw new AppError(
    'role_not_supported',
    `This LMS user's roles (${roles.length > 0 ? roles.join(', ') : 'none'}) name neither a learner nor an instructor of the course, and CampusBridge opens exams only for those. Ask the LMS administrator to give the user the Learner or Instructor role in the course.`,
  );
}

/**
 * Provisioning at launch (docs/lms.md#provisioning-at-launch), when the platform has it on: an
 * unknown Instructor becomes a faculty member, an unknown Learner a student, made by the same
 * command as `POST /v1/students` (license, `student.created` event), from whatever the id_token
 * carries: its name (else a placeholder) and its email as the personal email. Null (so
 * user_not_found) when provisioning is off.
 */
async function provision(tx: TenantTx, platform: LtiPlatformRow, claims: Record<string, unknown>): Promise<PersonRow | null> {
  const role = launchRole(claims);
  if (!platform.provision_users || !role) return null;
  const email = personalEmail.safeParse(claims.email);
  return createPerson(tx, role, {
    full_name: nameFromClaims(claims) ?? placeholderName(platform, String(claims.sub)),
    personal_email: email.success ? email.data : null,
    license_days: 365,
  });
}

/**
 * The person of the launch: by the subject stored for this platform, else by login email, else
 * provisioned when the platform allows it (the subject is then stored). Someone provisioned under
 * a placeholder name gets the name a later launch carries.
 */
export async function matchPerson(tenant: Tenant, platform: LtiPlatformRow, claims: Record<string, unknown>): Promise<PersonRow> {
  return tenant.inTransaction(async (tx) => {
    const subject = String(claims.sub);
    const known = await tx.ltiSubjects.findOne({ where: { platform_id: platform.id, subject } });
    if (known) {
      const person = await tx.people.findById(known.person_id);
      const name = nameFromClaims(claims);
      if (person && name && person.full_name === placeholderName(platform, subject)) return updatePerson(tx, person.role, person.id, { full_name: name });
      if (person) return person;
    }
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : null;
    const person = (email ? await tx.people.findOne({ where: { login_email: email } }) : null) ?? (await provision(tx, platform, claims));
    if (!person) {
      throw new AppError(
        'user_not_found',
        'No student or faculty member of this institution matches this LMS user (by an earlier launch or by login email). Ask the school to add the person first (or to turn on provisioning at launch for this platform).',
      );
    }
    if (known) await tx.ltiSubjects.update({ person_id: person.id }, { id: known.id });
    else await tx.ltiSubjects.create({ id: newId('ltu'), platform_id: platform.id, subject, person_id: person.id, created_at: new Date() });
    return person;
  });
}

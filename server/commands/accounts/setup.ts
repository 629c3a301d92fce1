import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { parseInput } from '../../validation/parse.js';
import { z } from '../../validation/zod.js';
import { newId } from '../../ids.js';
import type { InstitutionRow } from '../../models/institution.js';
import type { PortalAccountRow } from '../../models/portal-account.js';
import { insertInstitution, institutionNameSchema } from '../institutions/institutions.js';
import { hashPassword, newPasswordSchema } from './passwords.js';

export const setupInput = z.strictObject({
  institution: institutionNameSchema,
  admin_email: z
    .email()
    .max(320)
    .transform((email) => email.toLowerCase()),
  admin_password: newPasswordSchema,
});

export interface SetupResult {
  institution: InstitutionRow;
  admin: PortalAccountRow;
}

export async function isSetUp(db: Database): Promise<boolean> {
  return (await db.models.PortalAccount.count({ where: { is_operator: true } })) > 0;
}

/**
 * First run: the operator account, one approved institution and its admin. The same person is
 * operator and admin of that institution, as on a one-school appliance.
 */
export async function runSetup(db: Database, input: z.input<typeof setupInput>): Promise<SetupResult> {
  const { institution: name, admin_email, admin_password } = parseInput(setupInput, input);
  const passwordHash = await hashPassword(admin_password);
  return db.sequelize.transaction(async (transaction) => {
    if (await db.models.PortalAccount.count({ where: { is_operator: true }, transaction })) {
      throw new AppError('conflict', 'This appliance is already set up.');
    }
    const institution = await insertInstitution(db, { name, status: 'approved' }, transaction);
    const admin = await db.models.PortalAccount.create(
      { id: newId('acc'), email: admin_email, password_hash: passwordHash, is_operator: true, status: 'active' },
      { transaction },
    );
    await db.models.Membership.create(
      { id: newId('mem'), institution_id: institution.id, account_id: admin.id, role: 'admin', status: 'active' },
      { transaction },
    );
    return { institution, admin };
  });
}

import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { IntegrationConfig } from '../../models/institution.js';

/** GET /institution counts, each from its own table. */
/** What GET /institution counts. */
export interface InstitutionCounts {
  students: number;
  faculty: number;
  groups: number;
  exams: number;
  active_licenses: number;
}

export async function countInstitution(tenant: Tenant): Promise<InstitutionCounts> {
  const [students, faculty, groups, exams, activeLicenses] = await Promise.all([
    tenant.people.count({ where: { role: 'student' } }),
    tenant.people.count({ where: { role: 'faculty' } }),
    tenant.groups.count(),
    tenant.exams.count(),
    tenant.licenses.count({ where: { status: 'active', expires_at: { [Op.gt]: new Date() } } }),
  ]);
  return { students, faculty, groups, exams, active_licenses: activeLicenses };
}

/** PUT /institution/config: the whole config is replaced, never merged. */
export async function replaceIntegrationConfig(tenant: Tenant, config: IntegrationConfig) {
  return tenant.inTransaction(async (tx) => {
    const institution = await tx.institution();
    await institution.update({ config }, { transaction: tx.tx });
    return institution;
  });
}

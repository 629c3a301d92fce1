import type { Tenant } from '../db/tenant.js';
import type { IntegrationConfig } from '../models/institution.js';
import type { InstitutionCounts } from '../presenters/institution.js';

/**
 * Each area that holds people, groups, exams or licenses contributes its count here; an area
 * this build does not have yet contributes nothing, and its count is zero because no such rows exist.
 */
export const institutionCounters: Array<(tenant: Tenant) => Promise<Partial<InstitutionCounts>>> = [];

export async function countInstitution(tenant: Tenant): Promise<InstitutionCounts> {
  const counts: InstitutionCounts = { students: 0, faculty: 0, groups: 0, exams: 0, active_licenses: 0 };
  for (const part of await Promise.all(institutionCounters.map((counter) => counter(tenant)))) Object.assign(counts, part);
  return counts;
}

/** PUT /institution/config: the whole config is replaced, never merged. */
export async function replaceIntegrationConfig(tenant: Tenant, config: IntegrationConfig) {
  return tenant.inTransaction(async (tx) => {
    const institution = await tx.institution();
    await institution.update({ config }, { transaction: tx.tx });
    return institution;
  });
}

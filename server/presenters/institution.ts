import type { InstitutionRow } from '../models/institution.js';
import type { InstitutionCounts } from '../commands/institutions/profile.js';

export function presentInstitutionSummary(row: InstitutionRow) {
  return { id: row.id, name: row.name, status: row.status, created_at: row.created_at.toISOString() };
}

export function presentInstitution(row: InstitutionRow, counts: InstitutionCounts) {
  return { ...presentInstitutionSummary(row), counts };
}

export function presentIntegrationConfig(row: InstitutionRow) {
  const { default_ai_policy, default_proctoring, allowed_toolchains, toolchain_mirror, lms } = row.config;
  return { default_ai_policy, default_proctoring, allowed_toolchains, toolchain_mirror, lms };
}

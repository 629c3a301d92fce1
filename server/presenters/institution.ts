import type { InstitutionRow } from '../models/institution.js';

export function presentInstitutionSummary(row: InstitutionRow) {
  return { id: row.id, name: row.name, status: row.status, created_at: row.created_at.toISOString() };
}

export interface InstitutionCounts {
  students: number;
  faculty: number;
  groups: number;
  exams: number;
  active_licenses: number;
}

export function presentInstitution(row: InstitutionRow, counts: InstitutionCounts) {
  return { ...presentInstitutionSummary(row), counts };
}

export function presentIntegrationConfig(row: InstitutionRow) {
  const { default_ai_policy, default_proctoring, allowed_toolchains, toolchain_mirror, lms } = row.config;
  return { default_ai_policy, default_proctoring, allowed_toolchains, toolchain_mirror, lms };
}

import { iso } from './common.js';
import type { GuardianLinkRow, GuardianReportRow } from '../models/guardian.js';

/** A guardian link as the API shows one: never the invitation token's hash or expiry bookkeeping. */
export function presentGuardianLink(row: GuardianLinkRow) {
  return {
    id: row.id,
    student_id: row.student_id,
    guardian_email: row.guardian_email,
    guardian_type: row.guardian_type,
    guardian_name: row.guardian_name,
    guardian_phone: row.guardian_phone,
    is_primary: row.is_primary,
    verified: row.verified,
    invited_at: row.invited_at.toISOString(),
    verified_at: iso(row.verified_at),
  };
}

export function presentGuardianReport(row: GuardianReportRow) {
  return {
    id: row.id,
    student_id: row.student_id,
    week_start: row.week_start,
    summary: row.summary,
    created_at: row.created_at.toISOString(),
  };
}

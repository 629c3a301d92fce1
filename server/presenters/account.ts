import type { PortalAccountRow } from '../models/portal-account.js';

/** A portal account: never its password hash. */
export function presentAccount(row: PortalAccountRow) {
  return { id: row.id, email: row.email, is_operator: row.is_operator, status: row.status, created_at: row.created_at.toISOString() };
}

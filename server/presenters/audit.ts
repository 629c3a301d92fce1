import type { Page } from '../db/paging.js';
import type { PortalAuditEntryRow } from '../models/portal-audit.js';

/** An audit entry with its target ids parsed; a target that is not JSON shows as no ids. */
export function presentAuditEntry(row: PortalAuditEntryRow) {
  let target: Record<string, string> = {};
  try {
    target = JSON.parse(row.target) as Record<string, string>;
  } catch {
    // A row written by hand; show it without ids rather than fail the page.
  }
  return {
    id: row.id,
    institution_id: row.institution_id,
    occurred_at: row.created_at.toISOString(),
    actor_email: row.actor_email,
    action: row.action,
    description: row.description,
    target,
    ip: row.ip,
    request_id: row.request_id,
  };
}

/** A page of audit entries, each presented. */
export function presentAuditPage(page: Page<PortalAuditEntryRow>) {
  return { ...page, items: page.items.map(presentAuditEntry) };
}

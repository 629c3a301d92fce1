import type { WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { Page, PageRequest } from '../../db/paging.js';
import { sortedOrder, type OrderItem } from '../../db/sort.js';
import type { Tenant } from '../../db/tenant.js';
import type { PortalAuditEntryRow } from '../../models/portal-audit.js';
import type { ListSort } from '../../validation/sort.js';
import { newId } from '../../ids.js';

/** Which page of an audit log, in which order. */
export interface AuditLogRequest extends PageRequest {
  sort?: ListSort<'occurred_at'> | undefined;
}

/** Newest first, unless `sort=occurred_at` asks for the oldest. */
const NEWEST: OrderItem[] = [
  ['created_at', 'DESC'],
  ['id', 'DESC'],
];
const auditOrder = (sort: ListSort<'occurred_at'> | undefined) => sortedOrder(sort, { occurred_at: 'created_at' }, NEWEST);

/** A page of the changes made in the portal for the tenant's institution. */
export function listInstitutionAuditLog(tenant: Tenant, request: AuditLogRequest) {
  return tenant.auditLog.page({ order: auditOrder(request.sort) }, request);
}

/** A page of the changes made in the portal across the appliance, or for one institution. */
export async function listApplianceAuditLog(
  db: Database,
  request: AuditLogRequest & { institution_id?: string | undefined },
): Promise<Page<PortalAuditEntryRow>> {
  const where: WhereOptions<PortalAuditEntryRow> = request.institution_id ? { institution_id: request.institution_id } : {};
  const { rows, count } = await db.models.PortalAuditEntry.findAndCountAll({
    where,
    order: auditOrder(request.sort),
    limit: request.limit,
    offset: (request.page - 1) * request.limit,
  });
  return { items: rows, page: request.page, limit: request.limit, total: count, totalPages: Math.ceil(count / request.limit) };
}

/** Who the log names for a change made at the appliance's command line: whoever can run it owns the computer. */
export const COMMAND_LINE_ACTOR = 'command line (operator)';

export interface CommandLineAction {
  institutionId: string | null;
  /** The command as typed, without its secrets: `key create`. */
  command: string;
  description: string;
  /** The ids it touched, as a portal entry's target. */
  target: Record<string, string>;
}

/**
 * Writes what an operator did with the CLI (`cli key create`) to the same log the portal's changes
 * go to, so a key made at the command line is as visible to the school as one made in the portal.
 * Like a portal entry it follows the change; a failure to write it is said on stderr, not thrown,
 * as the change is already made.
 */
export async function recordCommandLineAction(db: Database, action: CommandLineAction, warn: (text: string) => void): Promise<void> {
  try {
    await db.models.PortalAuditEntry.create({
      id: newId('aud'),
      institution_id: action.institutionId,
      account_id: null,
      actor_email: COMMAND_LINE_ACTOR,
      action: `cli ${action.command}`,
      description: action.description.slice(0, 300),
      target: JSON.stringify(action.target),
      ip: null,
      request_id: newId('cli').slice(0, 100),
    });
  } catch (error) {
    warn(`The change was made, but its audit log entry could not be written: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

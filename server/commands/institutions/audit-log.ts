import type { WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { Page, PageRequest } from '../../db/paging.js';
import { sortedOrder, type OrderItem } from '../../db/sort.js';
import type { Tenant } from '../../db/tenant.js';
import type { PortalAuditEntryRow } from '../../models/portal-audit.js';
import type { ListSort } from '../../validation/sort.js';

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

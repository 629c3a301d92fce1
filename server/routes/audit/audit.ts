import type { WhereOptions } from 'sequelize';
import type { PortalAuditEntryRow } from '../../models/portal-audit.js';
import { sortedOrder, type OrderItem } from '../../db/sort.js';
import { pageOf, pageQuery } from '../../validation/schemas.js';
import { sortQuery, type ListSort } from '../../validation/sort.js';
import { z } from '../../validation/zod.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';

export const auditEntrySchema = z.object({
  id: z.string(),
  institution_id: z.string().nullable(),
  occurred_at: z.string(),
  actor_email: z.string(),
  action: z.string(),
  description: z.string(),
  target: z.record(z.string(), z.string()),
  ip: z.string().nullable(),
  request_id: z.string(),
});

export function presentAuditEntry(row: PortalAuditEntryRow): z.input<typeof auditEntrySchema> {
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

const institutionAuditQuery = z.strictObject({ id: z.string().min(1).max(40) });
const auditSort = sortQuery(['occurred_at'], 'newest first (`-occurred_at`)');
const auditQuery = z.strictObject({ sort: auditSort, ...pageQuery });
const operatorAuditQuery = z.strictObject({ institution_id: z.string().min(1).max(40).optional(), sort: auditSort, ...pageQuery });

/** Newest first, unless `sort=occurred_at` asks for the oldest. */
const NEWEST: OrderItem[] = [
  ['created_at', 'DESC'],
  ['id', 'DESC'],
];
const auditOrder = (sort: ListSort<'occurred_at'> | undefined) => sortedOrder(sort, { occurred_at: 'created_at' }, NEWEST);

export const auditRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/audit-log',
    operationId: 'listInstitutionAuditLog',
    tag: 'Audit',
    summary: 'Changes made in the portal for this institution, newest first',
    caller: 'member',
    roles: ['admin'],
    params: institutionAuditQuery,
    query: auditQuery,
    response: pageOf(auditEntrySchema),
    handler: async ({ access, query }) => {
      const page = await access.tenant.auditLog.page({ order: auditOrder(query.sort) }, query);
      return { ...page, items: page.items.map(presentAuditEntry) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/operator/audit-log',
    operationId: 'listApplianceAuditLog',
    tag: 'Audit',
    summary: 'Changes made in the portal across the appliance, newest first',
    caller: 'operator',
    query: operatorAuditQuery,
    response: pageOf(auditEntrySchema),
    handler: async ({ ctx, query }) => {
      const where: WhereOptions<PortalAuditEntryRow> = query.institution_id ? { institution_id: query.institution_id } : {};
      const { rows, count } = await ctx.db.models.PortalAuditEntry.findAndCountAll({
        where,
        order: auditOrder(query.sort),
        limit: query.limit,
        offset: (query.page - 1) * query.limit,
      });
      return { items: rows.map(presentAuditEntry), page: query.page, limit: query.limit, total: count, totalPages: Math.ceil(count / query.limit) };
    },
  }),
];

import { listApplianceAuditLog, listInstitutionAuditLog } from '../../commands/institutions/audit-log.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentAuditPage } from '../../presenters/audit.js';
import { auditPage, auditQuery, institutionAuditParams, operatorAuditQuery } from './schema.js';

export const auditRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/audit-log',
    operationId: 'listInstitutionAuditLog',
    tag: 'Audit',
    summary: 'Changes made in the portal for this institution, newest first',
    caller: 'member',
    roles: ['admin'],
    params: institutionAuditParams,
    query: auditQuery,
    response: auditPage,
    handler: async ({ access, query }) => presentAuditPage(await listInstitutionAuditLog(access.tenant, query)),
  }),
  defineRoute({
    method: 'get',
    path: '/operator/audit-log',
    operationId: 'listApplianceAuditLog',
    tag: 'Audit',
    summary: 'Changes made in the portal across the appliance, newest first',
    caller: 'operator',
    query: operatorAuditQuery,
    response: auditPage,
    handler: async ({ ctx, query }) => presentAuditPage(await listApplianceAuditLog(ctx.db, query)),
  }),
];

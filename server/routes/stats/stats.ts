import { endpointStats } from '../../commands/stats/deliveries.js';
import { licenseExpiry } from '../../commands/stats/licenses.js';
import { overviewStats, type OverviewPart } from '../../commands/stats/overview.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import type { MembershipRole } from '../../models/membership.js';
import { grants, roleScopes, type Scope } from '../../policies/scopes.js';
import { daysQuery, endpointStatsParams, EXPIRY_MONTHS, institutionParams, licenseExpirySchema, overviewSchema, endpointStatsSchema } from './schema.js';

const ROLES: readonly MembershipRole[] = ['admin', 'developer'];

/** The roles whose scopes read `scope`: an operation about one area is theirs, as its /v1 reads are. */
const rolesReading = (scope: Scope) => ROLES.filter((role) => grants(roleScopes(role), scope));

const PART_SCOPE: Record<OverviewPart, Scope> = {
  students: 'students:read',
  faculty: 'faculty:read',
  groups: 'groups:read',
  licenses: 'licenses:read',
  deliveries: 'webhooks:read',
};

/**
 * The numbers behind the portal's charts (docs/decisions/portal-charts.md): counted in the
 * database, per UTC day or month, portal-only (integrators have the lists themselves). Each
 * answers only what the caller's role may read, by the same scopes as the /v1 reads.
 */
export const statsRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/stats/overview',
    operationId: 'statsOverview',
    tag: 'Institution data',
    summary: 'Counts of people, groups and active licenses, and deliveries and new students per day',
    caller: 'member',
    sandbox: true,
    roles: ROLES,
    params: institutionParams,
    query: daysQuery,
    response: overviewSchema,
    handler: async ({ access, query }) => {
      const parts = (Object.keys(PART_SCOPE) as OverviewPart[]).filter((part) => grants(roleScopes(access.role), PART_SCOPE[part]));
      return overviewStats(access.tenant, new Set(parts), query.days);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/stats/webhook-endpoints/{endpointId}',
    operationId: 'statsWebhookEndpoint',
    tag: 'Institution data',
    summary: "A webhook endpoint's deliveries per day: outcomes, success rate and response times",
    caller: 'member',
    sandbox: true,
    roles: rolesReading('webhooks:read'),
    params: endpointStatsParams,
    query: daysQuery,
    response: endpointStatsSchema,
    errors: ['not_found'],
    handler: async ({ access, params, query }) => endpointStats(access.tenant, params.endpointId, query.days),
  }),
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/stats/licenses',
    operationId: 'statsLicenseExpiry',
    tag: 'Institution data',
    summary: `Active licenses by type and expiry month, this month and the ${EXPIRY_MONTHS - 1} after it`,
    caller: 'member',
    sandbox: true,
    roles: rolesReading('licenses:read'),
    params: institutionParams,
    response: licenseExpirySchema,
    handler: async ({ access }) => licenseExpiry(access.tenant, EXPIRY_MONTHS),
  }),
];

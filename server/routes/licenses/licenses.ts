import { extendLicense, findLicense, listLicenses, listSeats, revokeLicense, revokeSeat, summarizeLicenses } from '../../commands/licenses.js';
import { defineRoute } from '../../http/route.js';
import { presentLicense, presentSeat } from '../../presenters/license.js';
import {
  extendLicenseBody,
  licensePage,
  licenseParams,
  licenseSchema,
  licenseSummary,
  listLicensesQuery,
  revokeLicenseBody,
  seatList,
  seatParams,
  seatSchema,
} from './schema.js';

export const licensesRoutes = [
  defineRoute({
    method: 'get',
    path: '/licenses',
    operationId: 'listLicenses',
    summary: 'List licenses',
    description: '`status` filters on the effective status: `expired` includes active licenses whose expiry has passed, `active` excludes them.',
    tag: 'Licenses',
    scope: 'licenses:read',
    query: listLicensesQuery,
    response: licensePage,
    handler: async ({ tenant, query }) => {
      const page = await listLicenses(tenant, query, query);
      const now = new Date();
      return { ...page, items: page.items.map((row) => presentLicense(row, now)) };
    },
  }),
  // Before /licenses/{id}, so "summary" is not taken for an id.
  defineRoute({
    method: 'get',
    path: '/licenses/summary',
    operationId: 'summarizeLicenses',
    summary: 'Count licenses by type and status',
    tag: 'Licenses',
    scope: 'licenses:read',
    response: licenseSummary,
    handler: async ({ tenant }) => summarizeLicenses(tenant),
  }),
  defineRoute({
    method: 'get',
    path: '/licenses/{id}',
    operationId: 'getLicense',
    summary: 'Read a license',
    tag: 'Licenses',
    scope: 'licenses:read',
    params: licenseParams,
    response: licenseSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentLicense(await findLicense(tenant, params.id)),
  }),
  defineRoute({
    method: 'post',
    path: '/licenses/{id}/revoke',
    operationId: 'revokeLicense',
    summary: 'Revoke a license',
    description: 'Final: the license and its active device seats are revoked. Revoking a revoked license is `409 conflict`.',
    tag: 'Licenses',
    scope: 'licenses:write',
    params: licenseParams,
    body: revokeLicenseBody,
    response: licenseSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, body }) => presentLicense(await revokeLicense(tenant, params.id, body.reason)),
  }),
  defineRoute({
    method: 'post',
    path: '/licenses/{id}/extend',
    operationId: 'extendLicense',
    summary: 'Extend a license',
    description:
      'With `expires_at` the expiry becomes that; `days` are then added to it, or to the current expiry, or to now when the license has already expired. ' +
      'The result must be in the future. An expired license extended so is active again; a revoked one is `409 conflict`.',
    tag: 'Licenses',
    scope: 'licenses:write',
    params: licenseParams,
    body: extendLicenseBody,
    response: licenseSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ tenant, params, body }) => presentLicense(await extendLicense(tenant, params.id, body)),
  }),
  defineRoute({
    method: 'get',
    path: '/licenses/{id}/devices',
    operationId: 'listLicenseDevices',
    summary: 'List the device seats of a license',
    description: 'Newest first, revoked seats included. At most 3 are active at once, across apps.',
    tag: 'Licenses',
    scope: 'licenses:read',
    params: licenseParams,
    response: seatList,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => ({ items: (await listSeats(tenant, params.id)).map(presentSeat) }),
  }),
  defineRoute({
    method: 'post',
    path: '/licenses/{id}/devices/{seatId}/revoke',
    operationId: 'revokeLicenseDevice',
    summary: 'Revoke a device seat',
    description: 'Frees the seat; it stays listed as `revoked`. Revoking a revoked seat answers 200 and changes nothing.',
    tag: 'Licenses',
    scope: 'licenses:write',
    params: seatParams,
    response: seatSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentSeat(await revokeSeat(tenant, params.id, params.seatId)),
  }),
];

import { extendLicense, findLicense, listLicenses, listSeats, revokeLicense, revokeSeat, summarizeLicenses } from '../../commands/licenses.js';
import { z } from '../../http/zod.js';
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
} from '../../routes/licenses/schema.js';
import { dataRoute, institutionId } from './route.js';

const institutionParams = z.strictObject({ id: institutionId });
const licensePathParams = z.strictObject({ id: institutionId, licenseId: licenseParams.shape.id });
const seatPathParams = licensePathParams.extend({ seatId: seatParams.shape.seatId });

/**
 * Licenses in the portal. A license is granted with the person it belongs to (POST students or
 * faculty, `license_days`); afterwards it is read, extended and revoked, as in /v1.
 */
export const licenseRoutes = [
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/licenses',
    summary: 'List licenses by effective status (the filters of GET /v1/licenses)',
    params: institutionParams,
    query: listLicensesQuery,
    response: licensePage,
    handler: async ({ access, query }) => {
      const page = await listLicenses(access.tenant, query, query);
      const now = new Date();
      return { ...page, items: page.items.map((row) => presentLicense(row, now)) };
    },
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/licenses/summary',
    summary: 'Count licenses by type and effective status',
    params: institutionParams,
    response: licenseSummary,
    handler: async ({ access }) => summarizeLicenses(access.tenant),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/licenses/{licenseId}',
    summary: 'Read a license',
    params: licensePathParams,
    response: licenseSchema,
    handler: async ({ access, params }) => presentLicense(await findLicense(access.tenant, params.licenseId)),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/licenses/{licenseId}/revoke',
    summary: 'Revoke a license and its active seats (final; a revoked one is 409 conflict)',
    params: licensePathParams,
    body: revokeLicenseBody,
    response: licenseSchema,
    handler: async ({ access, params, body }) => presentLicense(await revokeLicense(access.tenant, params.licenseId, body.reason)),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/licenses/{licenseId}/extend',
    summary: 'Extend a license by `days` and/or to `expires_at`',
    params: licensePathParams,
    body: extendLicenseBody,
    response: licenseSchema,
    handler: async ({ access, params, body }) => presentLicense(await extendLicense(access.tenant, params.licenseId, body)),
  }),
  dataRoute({
    method: 'get',
    path: '/institutions/{id}/licenses/{licenseId}/devices',
    summary: 'The device seats of a license, newest first',
    params: licensePathParams,
    response: seatList,
    handler: async ({ access, params }) => ({ items: (await listSeats(access.tenant, params.licenseId)).map(presentSeat) }),
  }),
  dataRoute({
    method: 'post',
    path: '/institutions/{id}/licenses/{licenseId}/devices/{seatId}/revoke',
    summary: 'Free a device seat',
    params: seatPathParams,
    response: seatSchema,
    handler: async ({ access, params }) => presentSeat(await revokeSeat(access.tenant, params.licenseId, params.seatId)),
  }),
];

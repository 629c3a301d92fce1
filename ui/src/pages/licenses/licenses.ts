import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { licenseSchema, licenseSummary, seatSchema } from '../../../../server/routes/licenses/schema';
import type { licenseExpirySchema } from '../../../../server/routes/stats/schema';
import { call, portal } from '../../api/portal';
import { areaKey } from '../shared/areas';

/** Licenses' wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type License = z.input<typeof licenseSchema>;
export type LicenseSummary = z.input<typeof licenseSummary>;
export type Seat = z.input<typeof seatSchema>;
export type LicenseExpiry = z.input<typeof licenseExpirySchema>;

/** Counts by type and status (GET /licenses/summary): the cards and the chart above the list. */
export function useLicenseSummary(institutionId: string) {
  return useQuery({
    queryKey: [...areaKey(institutionId, 'licenses'), 'summary'],
    queryFn: () => call(portal.GET('/institutions/{institution}/licenses/summary', { params: { path: { institution: institutionId } } })),
  });
}

/** Active licenses by expiry month; under the licenses' key, so extending or revoking one refreshes it. */
export function useLicenseExpiry(institutionId: string) {
  return useQuery({
    queryKey: [...areaKey(institutionId, 'licenses'), 'expiry'],
    queryFn: () => call(portal.GET('/institutions/{id}/stats/licenses', { params: { path: { id: institutionId } } })),
  });
}

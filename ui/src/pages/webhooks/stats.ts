import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { endpointStatsSchema } from '../../../../server/routes/stats/schema';
import { call, portal } from '../../api/portal';
import { webhooksKey } from './webhooks';

/** An endpoint's numbers per day: a type-only import of the server's schema. */
export type EndpointStats = z.input<typeof endpointStatsSchema>;

/** The days the endpoint's charts show, today the last. */
export const STATS_DAYS = 7;

export function useEndpointStats(institutionId: string, endpointId: string) {
  return useQuery({
    queryKey: [...webhooksKey(institutionId), 'stats', endpointId],
    queryFn: () =>
      call(
        portal.GET('/institutions/{id}/stats/webhook-endpoints/{endpointId}', {
          params: { path: { id: institutionId, endpointId }, query: { days: STATS_DAYS } },
        }),
      ),
  });
}

import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { overviewSchema } from '../../../../server/routes/stats/schema';
import { call, portal } from '../../api/portal';

/** The overview's numbers: a type-only import of the server's schema (z.input: the JSON the handler returns). */
export type Overview = z.input<typeof overviewSchema>;

export function useOverview(institutionId: string) {
  return useQuery({
    queryKey: ['institution', institutionId, 'stats', 'overview'],
    queryFn: () => call(portal.GET('/institutions/{id}/stats/overview', { params: { path: { id: institutionId } } })),
  });
}

import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { overviewSchema } from '../../../../server/routes/stats/schema';
import { api } from '../../api/client';

/** The overview's numbers: a type-only import of the server's schema (z.input: the JSON the handler returns). */
export type Overview = z.input<typeof overviewSchema>;

export function useOverview(institutionId: string) {
  return useQuery({
    queryKey: ['institution', institutionId, 'stats', 'overview'],
    queryFn: () => api.get<Overview>(`/institutions/${institutionId}/stats/overview`),
  });
}

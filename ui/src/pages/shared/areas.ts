import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Page } from '../../api/client';

/**
 * The institution's data areas as /portal/api/institutions/{id}/… answers them (the /v1 objects):
 * query keys, paths and paged lists shared by the students, faculty, groups, licenses, exams and
 * submissions pages. Each area's wire types are in its own folder, derived from the server's schemas.
 */
export type Area = 'students' | 'faculty' | 'groups' | 'licenses' | 'exams' | 'submissions';

/** Query keys: every read of an area starts with `['institution', id, area]`, so one invalidation refreshes them all. */
export const areaKey = (institutionId: string, area: Area) => ['institution', institutionId, area] as const;

export const dataPath = (institutionId: string, path: string) => `/institutions/${institutionId}${path}`;

/** Largest page the API gives: enough for pickers (owners, exams) in a school-sized institution. */
export const PICKER_LIMIT = 200;
export const PAGE_SIZE = 25;

/** One page of an area's list with the given filters; the previous page stays shown while the next loads. */
export function usePagedList<T>(institutionId: string, area: Area, filters: Record<string, string>, page: number, limit = PAGE_SIZE) {
  return useQuery({
    queryKey: [...areaKey(institutionId, area), 'list', filters, page, limit],
    queryFn: () => api.get<Page<T>>(dataPath(institutionId, `/${area}`), { ...filters, page, limit }),
    placeholderData: keepPreviousData,
  });
}

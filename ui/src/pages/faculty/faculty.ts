import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { z } from 'zod';
import type { facultySchema } from '../../../../server/routes/faculty/schema';
import { call, portal } from '../../api/portal';
import { areaKey, PICKER_LIMIT } from '../shared/areas';

/** A faculty member as the API answers (type-only import of the server's schema). */
export type Faculty = z.input<typeof facultySchema>;

/** The faculty list for owner pickers and for naming owners in tables. */
export function useFacultyOptions(institutionId: string) {
  return useQuery({
    queryKey: [...areaKey(institutionId, 'faculty'), 'options'],
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/faculty', { params: { path: { institution: institutionId }, query: { limit: PICKER_LIMIT } } })),
    staleTime: 30_000,
  });
}

/** Teachers' names by id, for the owner of a group or an exam. */
export function useTeacherNames(institutionId: string) {
  const faculty = useFacultyOptions(institutionId);
  return useMemo(() => new Map((faculty.data?.items ?? []).map((teacher) => [teacher.id, teacher.full_name])), [faculty.data]);
}

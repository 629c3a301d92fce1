import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call, portal, type Page } from '../../api/portal';

/**
 * The institution's data areas as /portal/api/institutions/{id}/… answers them (the /v1 objects):
 * query keys, paths and paged lists shared by the students, faculty, groups, licenses, exams and
 * submissions pages. Each area's wire types are in its own folder, derived from the server's schemas.
 */
export type Area = 'students' | 'faculty' | 'groups' | 'licenses' | 'exams' | 'submissions';

/** Query keys: every read of an area starts with `['institution', id, area]`, so one invalidation refreshes them all. */
export const areaKey = (institutionId: string, area: Area) => ['institution', institutionId, area] as const;

/** Largest page the API gives: enough for pickers (owners, exams) in a school-sized institution. */
export const PICKER_LIMIT = 200;
export const PAGE_SIZE = 25;

/**
 * The list operation of each area. A page's filters come from its URL as strings; the server
 * checks them as it checks any caller's (a bad one is a 422 shown on the page), so they are passed
 * through as the operation's query.
 */
const listAreas = {
  students: (institution: string, query: object) =>
    call(portal.GET('/institutions/{institution}/students', { params: { path: { institution }, query: query as never } })),
  faculty: (institution: string, query: object) =>
    call(portal.GET('/institutions/{institution}/faculty', { params: { path: { institution }, query: query as never } })),
  groups: (institution: string, query: object) =>
    call(portal.GET('/institutions/{institution}/groups', { params: { path: { institution }, query: query as never } })),
  licenses: (institution: string, query: object) =>
    call(portal.GET('/institutions/{institution}/licenses', { params: { path: { institution }, query: query as never } })),
  exams: (institution: string, query: object) =>
    call(portal.GET('/institutions/{institution}/exams', { params: { path: { institution }, query: query as never } })),
  submissions: (institution: string, query: object) =>
    call(portal.GET('/institutions/{institution}/submissions', { params: { path: { institution }, query: query as never } })),
} satisfies Record<Area, unknown>;

/** One item of an area's list, as the portal's document describes it. */
export type AreaItem<A extends Area> = Awaited<ReturnType<(typeof listAreas)[A]>>['items'][number];

/** One page of an area's list with the given filters; the previous page stays shown while the next loads. */
export function usePagedList<A extends Area>(institutionId: string, area: A, filters: Record<string, string>, page: number, limit = PAGE_SIZE) {
  return useQuery({
    queryKey: [...areaKey(institutionId, area), 'list', filters, page, limit],
    queryFn: (): Promise<Page<AreaItem<A>>> => listAreas[area](institutionId, { ...filters, page, limit }) as Promise<Page<AreaItem<A>>>,
    placeholderData: keepPreviousData,
  });
}

import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { scopesResponse } from '../../../../server/routes/meta/schema';
import { call, portal } from '../../api/portal';
import { useInstitution } from '../../session';

/** A scope as GET /v1/scopes lists it, `admin_only` included (type-only import of the server's schema). */
export type ScopeInfo = z.input<typeof scopesResponse>['items'][number];

export interface ScopeArea {
  area: string;
  scopes: ScopeInfo[];
}

/** GET /scopes, the /v1 operation itself, served to the portal under the current institution. */
export function useScopes() {
  const institution = useInstitution();
  return useQuery({
    queryKey: ['scopes'],
    queryFn: async () => (await call(portal.GET('/institutions/{institution}/scopes', { params: { path: { institution: institution.id } } }))).items,
    staleTime: Infinity,
  });
}

/** `students:read`, `students:write` → one `students` area, in the server's order. */
export function groupByArea(scopes: readonly ScopeInfo[]): ScopeArea[] {
  const areas = new Map<string, ScopeInfo[]>();
  for (const scope of scopes) {
    const area = scope.scope.split(':')[0] ?? scope.scope;
    areas.set(area, [...(areas.get(area) ?? []), scope]);
  }
  return [...areas].map(([area, list]) => ({ area, scopes: list }));
}

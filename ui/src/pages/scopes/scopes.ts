import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { scopesResponse } from '../../../../server/routes/meta/schema';
import { api } from '../../api/client';

/** A scope as GET /v1/scopes lists it (type-only import of the server's schema), plus the portal's `admin_only`. */
export type ScopeInfo = z.input<typeof scopesResponse>['items'][number] & {
  /** Only an institution's admins may put it on a key. */
  admin_only: boolean;
};

export interface ScopeArea {
  area: string;
  scopes: ScopeInfo[];
}

export function useScopes() {
  return useQuery({ queryKey: ['scopes'], queryFn: () => api.get<ScopeInfo[]>('/scopes'), staleTime: Infinity });
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

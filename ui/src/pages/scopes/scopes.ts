import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';

export interface ScopeInfo {
  scope: string;
  description: string;
  /** Only an institution's admins may put it on a key. */
  admin_only: boolean;
}

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

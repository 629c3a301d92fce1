import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { useParams } from 'react-router';
import type { z } from 'zod';
import type { sessionSchema } from '../../server/routes/account/schema';
import { call, portal, setCsrfToken } from './api/portal';

/** As GET /portal/api/session, POST /login and POST /setup (type-only import of the server's schema). */
export type PortalSession = z.input<typeof sessionSchema>;
export type MembershipRole = PortalSession['memberships'][number]['role'];
export type InstitutionStatus = PortalSession['memberships'][number]['institution']['status'];

export interface CurrentInstitution {
  /** The id the page's requests use: the sandbox's in the sandbox view (docs/decisions/sandbox.md). */
  id: string;
  name: string;
  status: InstitutionStatus;
  role: MembershipRole;
  /** `sandbox` when the address names the institution's sandbox. */
  environment: 'live' | 'sandbox';
  /** The live institution's id (keys, team and audit log are its own), and its sandbox's once made. */
  liveId: string;
  sandboxId: string | null;
}

type Membership = PortalSession['memberships'][number];

/** The institution an address id names, live or its sandbox, as the caller's membership sees it. */
function currentOf(memberships: readonly Membership[] | undefined, institutionId: string | undefined): CurrentInstitution | null {
  for (const membership of memberships ?? []) {
    const { institution, role, sandbox_id: sandboxId } = membership;
    const common = { name: institution.name, status: institution.status, role, liveId: institution.id, sandboxId };
    if (institution.id === institutionId) return { ...common, id: institution.id, environment: 'live' };
    if (sandboxId !== null && sandboxId === institutionId) return { ...common, id: sandboxId, environment: 'sandbox' };
  }
  return null;
}

export const sessionQueryKey = ['session'] as const;

/** Reads the session; a 401 means nobody is signed in (answered as null, not as an error). */
export async function fetchSession(): Promise<PortalSession | null> {
  try {
    const session = await call(portal.GET('/session'));
    setCsrfToken(session.csrf_token);
    return session;
  } catch (error) {
    if ((error as { status?: number }).status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

export function useSessionQuery() {
  return useQuery({ queryKey: sessionQueryKey, queryFn: fetchSession, staleTime: 60_000, retry: false });
}

const SessionContext = createContext<PortalSession | null>(null);

export function SessionProvider({ session, children }: { session: PortalSession; children: ReactNode }) {
  setCsrfToken(session.csrf_token);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The signed-in account; only used below the sign-in gate. */
export function useSession(): PortalSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** The institution named in the URL (`/i/:institutionId/…`) and the caller's role in it. */
export function useInstitution(): CurrentInstitution {
  const session = useSession();
  const { institutionId } = useParams();
  const current = currentOf(session.memberships, institutionId);
  if (!current) throw new Error(`not a member of ${institutionId ?? 'this institution'}`);
  return current;
}

/** Same as useInstitution, but null outside an institution's pages. */
export function useOptionalInstitution(): CurrentInstitution | null {
  const session = useContext(SessionContext);
  const { institutionId } = useParams();
  return currentOf(session?.memberships, institutionId);
}

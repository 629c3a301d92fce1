import { Alert, Button, Center, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, Navigate } from 'react-router';
import { useInstitution, useSession, type MembershipRole } from '../session';

/** `/`: the first institution's overview, or the operator's pages for an operator with none. */
export function HomeRedirect() {
  const session = useSession();
  const first = session.memberships[0];
  if (first) return <Navigate to={`/i/${first.institution.id}`} replace />;
  if (session.account.is_operator) return <Navigate to="/operator" replace />;
  return (
    <Center py="xl">
      <Alert title="No institution yet" maw={520}>
        This account is not a member of any institution. Ask the institution's admin for a new invitation.
      </Alert>
    </Center>
  );
}

/** A page the role may not use says so instead of failing call by call (the server refuses anyway). */
export function RoleGate({ roles, children }: { roles: readonly MembershipRole[]; children: ReactNode }) {
  const institution = useInstitution();
  if (roles.includes(institution.role)) return children;
  return (
    <Alert color="yellow" title="Not available to your role" role="alert">
      This page is for the institution's {roles.join(' or ')}s. You are signed in as a {institution.role} of {institution.name}.
    </Alert>
  );
}

export function NotFound() {
  return (
    <Center py="xl">
      <Stack align="center" gap="xs">
        <Title order={3}>Page not found</Title>
        <Text c="dimmed">There is nothing at this address.</Text>
        <Button component={Link} to="/" variant="light">
          Go to the overview
        </Button>
      </Stack>
    </Center>
  );
}

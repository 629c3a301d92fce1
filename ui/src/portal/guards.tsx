import { Alert, Button, Center, Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, Navigate, Outlet, useParams } from 'react-router';
import { useInstitution, useOptionalInstitution, useSession, type MembershipRole } from '../session';

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

/** A page the role may not use says why, inside the navigation (the server refuses anyway). */
export function RoleGate({ roles, label, children }: { roles: readonly MembershipRole[]; label: string; children: ReactNode }) {
  const institution = useInstitution();
  if (roles.includes(institution.role)) return children;
  const who = roles.map((role) => `${role}s`).join(' and ');
  return (
    <Alert color="yellow" title="Not available to your role" role="alert">
      Only {who} of {institution.name} can open {label}; you are {institution.role === 'admin' ? 'an' : 'a'} {institution.role}. Ask one of its admins if you
      need it.
    </Alert>
  );
}

/**
 * The pages of an institution the account is not an active member of (an old link, a removed
 * member, the operator opening an institution they do not administer) say so, with the
 * navigation kept around them, instead of failing.
 */
export function MemberGate() {
  const session = useSession();
  const institution = useOptionalInstitution();
  const { institutionId } = useParams();
  if (institution) return <Outlet />;
  return (
    <Alert color="yellow" title="You are not a member of this institution" role="alert" maw={640}>
      <Stack gap="xs">
        <Text size="sm">
          This account ({session.account.email}) is not an active member of the institution <code>{institutionId}</code>, so its pages are closed to you. Its
          admins can invite you from its Team page.
        </Text>
        {session.account.is_operator ? (
          <Text size="sm">
            As the appliance operator you can give it an admin from <Link to="/operator/institutions">Institutions</Link> (Admins).
          </Text>
        ) : null}
        <Group>
          <Button component={Link} to="/" variant="light" size="xs">
            Go to your institution
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

export function NotFound() {
  return (
    <Center py="xl">
      <Stack align="center" gap="xs">
        <Title order={2}>Page not found</Title>
        <Text c="dimmed">There is nothing at this address.</Text>
        <Button component={Link} to="/" variant="light">
          Go to the overview
        </Button>
      </Stack>
    </Center>
  );
}

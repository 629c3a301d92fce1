import { Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Outlet } from 'react-router';
import { call, portal } from '../api/portal';
import { QueryError } from '../components';
import { SetupWizard } from '../pages/auth/SetupWizard';
import { SignInPage } from '../pages/auth/SignInPage';
import { SessionProvider, useSessionQuery } from '../session';

export const setupQueryKey = ['setup'] as const;

/** First run → the setup wizard; nobody signed in → sign-in; otherwise the portal. */
export function SignedInGate() {
  const setup = useQuery({ queryKey: setupQueryKey, queryFn: () => call(portal.GET('/setup')), staleTime: Infinity });
  const session = useSessionQuery();

  if (setup.error) return <QueryError error={setup.error} />;
  if (setup.data?.needed) return <SetupWizard />;
  if (session.error) return <QueryError error={session.error} />;
  if (setup.isPending || session.isPending) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!session.data) return <SignInPage />;
  return (
    <SessionProvider session={session.data}>
      <Outlet />
    </SessionProvider>
  );
}

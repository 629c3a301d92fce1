import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/charts/styles.css';
import { MantineProvider, createTheme } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { createHashRouter, Navigate, RouterProvider, useRouteError } from 'react-router';
import { ApiError, onSessionEnded } from '../api/client';
import { QueryError } from '../components';
import { AccountPage } from '../pages/account/AccountPage';
import { AcceptInvitePage } from '../pages/auth/AcceptInvitePage';
import { ForgotPasswordPage } from '../pages/auth/ForgotPasswordPage';
import { ResetPasswordPage } from '../pages/auth/ResetPasswordPage';
import { OverviewPage } from '../pages/overview/OverviewPage';
import { institutionPages, operatorPages } from '../routes';
import { sessionQueryKey } from '../session';
import { HomeRedirect, MemberGate, NotFound, RoleGate } from './guards';
import { PortalLayout } from './PortalLayout';
import { SignedInGate } from './SignedInGate';

const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
});

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused read (403, 404) will not change by asking again.
      retry: (failures, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});

function RouteError() {
  return <QueryError error={useRouteError()} />;
}

const router = createHashRouter([
  { path: '/accept-invite', element: <AcceptInvitePage /> },
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  {
    element: <SignedInGate />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <HomeRedirect /> },
      {
        path: 'i/:institutionId',
        element: <PortalLayout />,
        children: [
          {
            element: <MemberGate />,
            children: [
              { index: true, element: <OverviewPage /> },
              ...institutionPages.map((page) => ({
                path: page.path,
                element: (
                  <RoleGate roles={page.roles} label={page.label}>
                    {page.element}
                  </RoleGate>
                ),
              })),
              { path: '*', element: <NotFound /> },
            ],
          },
        ],
      },
      { path: 'account', element: <PortalLayout />, children: [{ index: true, element: <AccountPage /> }] },
      {
        path: 'operator',
        element: <PortalLayout operator />,
        children: [
          { index: true, element: operatorPages[0] ? <Navigate to={operatorPages[0].path} replace /> : <NotFound /> },
          ...operatorPages.map((page) => ({ path: page.path, element: page.element })),
          { path: '*', element: <NotFound /> },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

/** The admin portal: served at `/`, hash-routed so the same files work in Electron and a browser. */
export function PortalApp() {
  useEffect(() => {
    // Any 401 (session expired, signed out elsewhere) sends the page back to sign-in.
    onSessionEnded(() => queryClient.setQueryData(sessionQueryKey, null));
    return () => onSessionEnded(null);
  }, []);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Notifications position="bottom-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}

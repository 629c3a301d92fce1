import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/charts/styles.css';
import {
  MantineProvider,
  createTheme,
  defaultVariantColorsResolver,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { createHashRouter, Navigate, RouterProvider, useRouteError } from 'react-router';
import { ApiError, onSessionEnded } from '../api/portal';
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
import { LiveOnlyGate } from './SandboxControls';
import { SignedInGate } from './SignedInGate';

/**
 * Text on light and subtle badges and buttons in a darker tone than Mantine's: shade 6 (even
 * shade 9) on the pale tint of shade 1 is 3 to 4.3:1. These are each hue's shade 9 darkened until
 * it reaches 5:1 on its tint, above WCAG AA's 4.5:1 (docs/decisions/accessibility-checks.md).
 */
const DARK_TEXT: Record<string, string> = {
  teal: '#066548',
  yellow: '#a15300',
  blue: '#135088',
  red: '#a02121',
  gray: '#212529',
  orange: '#ad390c',
  indigo: '#364fc7',
  green: '#226e31',
  cyan: '#085b6a',
  grape: '#862e9c',
  violet: '#5f3dc4',
  pink: '#a61e4d',
  lime: '#406709',
};
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== 'light' && input.variant !== 'subtle') return colors;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor) return colors;
  return { ...colors, color: DARK_TEXT[parsed.color] ?? `var(--mantine-color-${parsed.color}-9)` };
};

// Shade 8 of indigo and gray 7 for dimmed text: Mantine's defaults (shade 6, gray 6) fall short
// of WCAG AA's 4.5:1 on white for links, primary buttons and hints (docs/decisions/accessibility-checks.md).
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 8 },
  variantColorResolver,
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  // A toast's text under its title is gray 6 by default (3.3:1 on white): gray 7, as dimmed text.
  components: { Notification: { styles: { description: { color: 'var(--mantine-color-gray-7)' } } } },
});

const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: {},
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
                    {page.liveOnly ? <LiveOnlyGate>{page.element}</LiveOnlyGate> : page.element}
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
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Notifications position="bottom-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}

import { Alert, AppShell, Badge, Burger, Button, Group, Loader, NavLink, ScrollArea, Select, Text, Title } from '@mantine/core';
import { Suspense } from 'react';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { Link as RouterLink, Outlet, useLocation, useNavigate } from 'react-router';
import { call, portal } from '../api/portal';
import { notifyError } from '../components';
import { institutionPages, operatorPages, SECTIONS } from '../routes';
import { sessionQueryKey, useOptionalInstitution, useSession } from '../session';
import { LinkWarningBanner } from './LinkWarningBanner';
import { EnvironmentSwitch, SANDBOX_COLOR, SandboxBanner } from './SandboxControls';

/** The navigation target the current address belongs to: the longest one it starts with. */
function activeTarget(pathname: string, targets: readonly string[]): string | undefined {
  return targets.filter((to) => pathname === to || pathname.startsWith(`${to}/`)).sort((a, b) => b.length - a.length)[0];
}

function NavItem({ to, label, active }: { to: string; label: string; active: boolean }) {
  return <NavLink component={RouterLink} to={to} label={label} active={active} aria-current={active ? 'page' : undefined} py={6} />;
}

/** Header (institution switcher, account, sign out), navigation by role, and the page. */
export function PortalLayout({ operator = false }: { operator?: boolean }) {
  const session = useSession();
  const institution = useOptionalInstitution();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [opened, { toggle, close }] = useDisclosure();

  const signOut = async () => {
    try {
      await call(portal.POST('/logout'));
    } catch (error) {
      notifyError(error);
    }
    // Set, not cleared: clear() would detach the sign-in gate from the session query it watches.
    queryClient.setQueryData(sessionQueryKey, null);
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionQueryKey[0] && query.queryKey[0] !== 'setup' });
    navigate('/');
  };

  const base = institution ? `/i/${institution.id}` : '/operator';
  const sandboxView = institution?.environment === 'sandbox';
  /** Where a page's link goes: a live-only page links to live from the sandbox view. */
  const pageBase = (page: { liveOnly?: true }) => (institution && page.liveOnly ? `/i/${institution.liveId}` : base);
  const places = [
    ...session.memberships.map(({ institution: { id, name }, role }) => ({ value: `/i/${id}`, label: `${name} (${role})` })),
    // In the sandbox view the switcher shows the institution; choosing it again goes to live.
    ...(sandboxView && institution ? [{ value: base, label: `${institution.name} (sandbox)` }] : []),
    ...(session.account.is_operator ? [{ value: '/operator', label: 'Appliance operator' }] : []),
  ];
  const visiblePages = institution ? institutionPages.filter((page) => !page.hidden && page.roles.includes(institution.role)) : [];
  const visibleOperatorPages = operatorPages.filter((page) => !page.hidden);
  const { pathname } = useLocation();
  const active = operator
    ? activeTarget(
        pathname,
        visibleOperatorPages.map((page) => `/operator/${page.path}`),
      )
    : pathname === base
      ? base
      : activeTarget(
          pathname,
          visiblePages.map((page) => `${pageBase(page)}/${page.path}`),
        );

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="lg">
      <AppShell.Header
        style={
          sandboxView ? { borderBottom: `4px solid var(--mantine-color-${SANDBOX_COLOR}-6)`, background: `var(--mantine-color-${SANDBOX_COLOR}-0)` } : undefined
        }
      >
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={4} visibleFrom="xs">
              CampusBridge
            </Title>
            {places.length > 1 ? (
              <Select
                aria-label="Institution"
                data={places}
                value={base}
                onChange={(value) => value && navigate(value)}
                allowDeselect={false}
                w={{ base: 170, sm: 260 }}
                size="sm"
              />
            ) : institution ? (
              <Text fw={500}>{institution.name}</Text>
            ) : null}
            {institution ? <EnvironmentSwitch /> : null}
            {institution && institution.status !== 'approved' ? (
              <Badge color={institution.status === 'suspended' ? 'red' : 'yellow'}>{institution.status}</Badge>
            ) : null}
          </Group>
          {/* On a phone these two live at the foot of the folded navigation instead. */}
          <Group gap="sm" wrap="nowrap" visibleFrom="sm">
            <Text size="sm" c="dimmed" visibleFrom="md">
              {session.account.email}
            </Text>
            <Button component={RouterLink} to="/account" variant="subtle" size="xs">
              Your account
            </Button>
            <Button variant="default" size="xs" onClick={signOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Portal navigation">
        <AppShell.Section grow component={ScrollArea} onClick={close}>
          {operator ? (
            visibleOperatorPages.map((page) => (
              <NavItem key={page.path} to={`/operator/${page.path}`} label={page.label} active={active === `/operator/${page.path}`} />
            ))
          ) : institution ? (
            <>
              <NavItem to={base} label="Overview" active={active === base} />
              {SECTIONS.map((section) => {
                const pages = visiblePages.filter((page) => page.section === section);
                if (pages.length === 0) return null;
                return (
                  <div key={section}>
                    <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="sm" pb={2}>
                      {section}
                    </Text>
                    {pages.map((page) => (
                      <NavItem
                        key={page.path}
                        to={`${pageBase(page)}/${page.path}`}
                        label={sandboxView && page.liveOnly ? `${page.label} (live)` : page.label}
                        active={active === `${pageBase(page)}/${page.path}`}
                      />
                    ))}
                  </div>
                );
              })}
            </>
          ) : null}
        </AppShell.Section>
        <AppShell.Section>
          {session.account.is_operator && !operator ? <NavLink component={RouterLink} to="/operator" label="Appliance operator" py={6} /> : null}
          <NavLink href="/v1/docs" target="_blank" rel="noreferrer" label="API reference" py={6} />
          <NavLink component={RouterLink} to="/account" label="Your account" py={6} hiddenFrom="sm" />
          <NavLink component="button" label="Sign out" py={6} hiddenFrom="sm" onClick={signOut} />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <LinkWarningBanner />
        {institution ? <SandboxBanner /> : null}
        {operator && !session.account.is_operator ? (
          <Alert color="yellow" title="Not available to your account" role="alert">
            These pages are for the appliance operator, who approves institutions and runs this computer's settings.
          </Alert>
        ) : (
          // A page's code arrives when it is first opened (ui/src/routes.tsx).
          <Suspense fallback={<Loader aria-label="Loading the page" m="xl" />}>
            <Outlet />
          </Suspense>
        )}
      </AppShell.Main>
    </AppShell>
  );
}

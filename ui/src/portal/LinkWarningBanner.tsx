import { Alert, Anchor } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink } from 'react-router';
import { call, portal } from '../api/portal';
import { useSession } from '../session';

/**
 * Shown on every page while the links CampusBridge makes (invitations, launch links, mail) point
 * where they will not open: at this computer although the appliance serves the network, or at an
 * address it does not answer on (server/settings/addresses.ts, linkWarning).
 */
export function LinkWarningBanner() {
  const session = useSession();
  const status = useQuery({ queryKey: ['appliance'], queryFn: () => call(portal.GET('/appliance')), staleTime: 60_000 });
  const warning = status.data?.link_warning;
  if (!warning) return null;
  return (
    <Alert color="orange" title="Links will not open where they should" mb="md" role="status">
      {warning}{' '}
      {session.account.is_operator ? (
        <Anchor component={RouterLink} to="/operator/settings">
          Open Settings
        </Anchor>
      ) : (
        'Ask the appliance operator to set it.'
      )}
    </Alert>
  );
}

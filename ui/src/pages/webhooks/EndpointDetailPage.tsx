import { Button, SimpleGrid, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { Fact, Facts, formatDate, PageHeader, StatusBadge, TagBadges } from '../../components';
import { useInstitution } from '../../session';
import { BackLink, DetailState } from '../shared/common';
import { EndpointCharts } from './EndpointCharts';
import { ReplaySinceCard } from './ReplaySinceCard';
import { SendExampleCard } from './SendExampleCard';
import { DISABLED_REASONS, endpointsKey, MAX_CONSECUTIVE_FAILURES } from './webhooks';

/** One webhook endpoint: what it receives and its last week's deliveries in pictures. Changes stay on the endpoints list. */
export function EndpointDetailPage() {
  const institution = useInstitution();
  const { endpointId = '' } = useParams();
  const endpoint = useQuery({
    queryKey: [...endpointsKey(institution.id), endpointId],
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/webhooks/endpoints/{id}', { params: { path: { institution: institution.id, id: endpointId } } })),
  });
  return (
    <DetailState isPending={endpoint.isPending} error={endpoint.error}>
      {() => {
        const row = endpoint.data!;
        return (
          <>
            <PageHeader
              title="Webhook endpoint"
              description={row.description || undefined}
              actions={
                <>
                  <BackLink to="../.." label="All endpoints" />
                  <Button variant="default" component={Link} to={`/i/${institution.id}/webhooks/signature-check?endpoint_id=${encodeURIComponent(row.id)}`}>
                    Check a signature
                  </Button>
                  <Button component={Link} to={`/i/${institution.id}/webhooks/deliveries?endpoint_id=${encodeURIComponent(row.id)}`}>
                    Deliveries
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="URL">
                <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                  {row.url}
                </Text>
              </Fact>
              <Fact label="Status">
                {row.disabled_reason ? (
                  <Tooltip label={DISABLED_REASONS[row.disabled_reason] ?? row.disabled_reason}>
                    <span>
                      <StatusBadge status={row.status} />
                    </span>
                  </Tooltip>
                ) : (
                  <StatusBadge status={row.status} />
                )}
              </Fact>
              <Fact label="Events">
                <TagBadges tags={row.events} />
              </Fact>
              <Fact label="Failures in a row">
                <Text size="sm" title={`${MAX_CONSECUTIVE_FAILURES} disable the endpoint`}>
                  {row.consecutive_failures}
                </Text>
              </Fact>
              <Fact label="Created">{formatDate(row.created_at)}</Fact>
              <Fact label="Endpoint id">
                <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                  {row.id}
                </Text>
              </Fact>
            </Facts>
            <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg" mb="lg">
              <ReplaySinceCard institutionId={institution.id} endpoint={row} />
              <SendExampleCard institutionId={institution.id} endpoint={row} />
            </SimpleGrid>
            <EndpointCharts institutionId={institution.id} endpointId={row.id} />
          </>
        );
      }}
    </DetailState>
  );
}

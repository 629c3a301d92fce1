import { Badge, Button, Group, Select, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, FilterBar, formatDate, formatRelative, PageHeader, pagesOf, StatusBadge, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { patternGroups } from './EventPatternPicker';
import { deliveriesKey, DELIVERY_STATUS_WORDS, DELIVERY_STATUSES, useEndpoints, useEventTypes, type Delivery, type WebhookEndpoint } from './webhooks';

const PAGE_SIZE = 25;
/** The log refreshes itself while open, so a delivery shows up (and settles) without a reload. */
const REFRESH_MS = 5_000;

const FILTERS = ['endpoint_id', 'status', 'event_type'] as const;

/** On hover: the whole URL (the cell may cut it), the description, and the id. */
const endpointTitle = (id: string, endpoint: WebhookEndpoint | undefined) =>
  endpoint ? [endpoint.url, endpoint.description, id].filter(Boolean).join('\n') : id;

export function DeliveriesPage() {
  const institution = useInstitution();
  // Filters live in the URL: a link from an endpoint's menu opens its log, and Back restores the view.
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);

  const endpoints = useEndpoints(institution.id);
  const eventTypes = useEventTypes(institution.id);
  const deliveries = useQuery({
    queryKey: [...deliveriesKey(institution.id), 'list', filters, sort, page],
    queryFn: () =>
      call(
        portal.GET('/institutions/{institution}/webhooks/deliveries', {
          // The URL's filter strings go as they are; the server checks the status and sort.
          params: { path: { institution: institution.id }, query: { ...filters, sort, page, limit: PAGE_SIZE } as never },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
  });

  // The endpoint list (at most MAX_ENDPOINTS) names every row's endpoint: no names request needed.
  const endpointOf = useMemo(() => new Map((endpoints.data ?? []).map((endpoint) => [endpoint.id, endpoint])), [endpoints.data]);
  const eventOptions = useMemo(
    () => (eventTypes.data ? patternGroups(eventTypes.data).map(({ group, options }) => ({ group, items: options.map((option) => option.value) })) : []),
    [eventTypes.data],
  );

  const columns = useMemo<ColumnDef<Delivery>[]>(
    () => [
      {
        header: 'Event',
        id: 'event',
        cell: ({ row }) => (
          <Stack gap={0}>
            <Group gap={6}>
              <Text size="sm" ff="monospace" fw={500} title={row.original.event_id}>
                {row.original.event_type}
              </Text>
              {row.original.replay_of ? (
                <Badge size="xs" variant="light" color="grape">
                  replay
                </Badge>
              ) : null}
            </Group>
            <Text size="xs" c="dimmed" ff="monospace">
              {row.original.id}
            </Text>
          </Stack>
        ),
      },
      {
        header: 'Endpoint',
        id: 'endpoint',
        cell: ({ row }) => (
          <Text size="sm" ff="monospace" maw={280} truncate="end" title={endpointTitle(row.original.endpoint_id, endpointOf.get(row.original.endpoint_id))}>
            {endpointOf.get(row.original.endpoint_id)?.url ?? row.original.endpoint_id}
          </Text>
        ),
      },
      {
        header: 'Status',
        id: 'status',
        cell: ({ row }) => <StatusBadge status={row.original.status} label={DELIVERY_STATUS_WORDS[row.original.status]} />,
      },
      { header: 'Attempts', accessorKey: 'attempt_count' },
      {
        header: 'Response',
        id: 'response',
        cell: ({ row }) =>
          row.original.response_status === null ? (
            '—'
          ) : (
            <Text size="sm">
              {row.original.response_status}
              {row.original.response_time_ms !== null ? (
                <Text span size="xs" c="dimmed">
                  {' '}
                  · {row.original.response_time_ms} ms
                </Text>
              ) : null}
            </Text>
          ),
      },
      {
        header: 'Next attempt',
        id: 'next',
        cell: ({ row }) =>
          row.original.status === 'failed' ? <span title={formatDate(row.original.next_attempt_at)}>{formatRelative(row.original.next_attempt_at)}</span> : '—',
      },
      {
        header: 'Created',
        id: 'created',
        meta: { sort: 'created_at' },
        cell: ({ row }) => <span title={formatDate(row.original.created_at)}>{formatRelative(row.original.created_at)}</span>,
      },
    ],
    [endpointOf],
  );

  return (
    <>
      <PageHeader
        title="Deliveries"
        description="Every event sent to your webhook endpoints, newest first, kept for 30 days. Open one to see its payload, each attempt and the receiver's answers, or to replay it."
        actions={
          <Button variant="default" component={Link} to=".." relative="path">
            Endpoints
          </Button>
        }
      />
      <FilterBar filtered={filtered} onClear={clear} label="Filter deliveries">
        <Select
          label="Endpoint"
          placeholder="All endpoints"
          data={(endpoints.data ?? []).map((endpoint) => ({ value: endpoint.id, label: endpoint.url }))}
          value={filters.endpoint_id || null}
          onChange={(value) => setFilters({ endpoint_id: value })}
          clearable
          searchable
          w={320}
        />
        <Select
          label="Status"
          placeholder="Any status"
          data={DELIVERY_STATUSES.map((status) => ({ value: status, label: DELIVERY_STATUS_WORDS[status] }))}
          value={filters.status || null}
          onChange={(value) => setFilters({ status: value })}
          clearable
          w={160}
        />
        <Select
          label="Event type"
          placeholder="Any event"
          data={eventOptions}
          value={filters.event_type || null}
          onChange={(value) => setFilters({ event_type: value })}
          clearable
          searchable
          nothingFoundMessage="No event type matches"
          w={260}
        />
      </FilterBar>
      <DataTable
        label="Deliveries"
        columns={columns}
        data={deliveries.data?.items}
        // Rows wait for the endpoint list too: a row that first shows an endpoint's id and then its URL
        // changes the columns' widths under the pointer, and a click meant for one row or header lands on another.
        isLoading={deliveries.isPending || endpoints.isPending}
        error={deliveries.error}
        getRowId={(row) => row.id}
        rowLink={(row) => row.id}
        pagination={pagesOf(deliveries.data, setPage)}
        sort={{ value: sort, onChange: setSort, usual: '-created_at' }}
        empty={
          filtered
            ? { title: 'No deliveries match these filters', description: 'Clear a filter to see more.' }
            : { title: 'No deliveries yet', description: 'When an event matches one of your endpoints, its delivery appears here within seconds.' }
        }
      />
    </>
  );
}

import { Button, Center, Group, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import { DataTable, formatDate, formatRelative, PageHeader, StatusBadge } from '../../components';
import { useInstitution } from '../../session';
import { MAIL_STATUSES, outboxKey, type MailStatus, type OutboxMail, type OutboxPage } from './settings';

const PAGE_SIZE = 50;
/** Mail moves from queued to sent within seconds of a change; the open page follows it. */
const REFRESH_MS = 10_000;

/** `guardian_invite` → `Guardian invite`. */
const kindLabel = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1).replaceAll('_', ' ');

export function MailOutboxPage() {
  const institution = useInstitution();
  const [status, setStatus] = useState<MailStatus | 'all'>('all');
  const outbox = useInfiniteQuery({
    queryKey: [...outboxKey(institution.id), status],
    queryFn: ({ pageParam }) =>
      api.get<OutboxPage>(`/institutions/${institution.id}/outbox`, { status: status === 'all' ? undefined : status, cursor: pageParam, limit: PAGE_SIZE }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: REFRESH_MS,
  });
  const rows = useMemo(() => outbox.data?.pages.flatMap((page) => page.items), [outbox.data]);

  const columns = useMemo<ColumnDef<OutboxMail>[]>(
    () => [
      {
        header: 'To',
        id: 'to',
        cell: ({ row }) => (
          <Text size="sm" ff="monospace">
            {row.original.to}
          </Text>
        ),
      },
      {
        header: 'Subject',
        id: 'subject',
        cell: ({ row }) => (
          <Stack gap={0}>
            <Text size="sm" maw={420} truncate="end" title={row.original.subject}>
              {row.original.subject}
            </Text>
            <Text size="xs" c="dimmed">
              {kindLabel(row.original.kind)}
            </Text>
          </Stack>
        ),
      },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Attempts', accessorKey: 'attempts' },
      {
        header: 'Last error',
        id: 'error',
        cell: ({ row }) =>
          row.original.last_error ? (
            <Tooltip label={row.original.last_error} multiline w={360}>
              <Text size="xs" c="orange.8" maw={240} truncate="end" tabIndex={0}>
                {row.original.last_error}
              </Text>
            </Tooltip>
          ) : (
            '—'
          ),
      },
      {
        header: 'Queued',
        id: 'created',
        cell: ({ row }) => <span title={formatDate(row.original.created_at)}>{formatRelative(row.original.created_at)}</span>,
      },
      {
        header: 'Sent',
        id: 'sent',
        cell: ({ row }) => (row.original.sent_at ? <span title={formatDate(row.original.sent_at)}>{formatRelative(row.original.sent_at)}</span> : '—'),
      },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Mail outbox"
        description="Mail this institution sends: guardian invitations and reports, exam notices, developer invitations. Addresses are shown masked and message bodies are never shown, because invitations carry sign-in links. Without a mail server, mail waits here as queued; a failing server is retried every minute, up to 5 attempts."
      />
      <Group mb="md">
        <SegmentedControl
          aria-label="Filter by status"
          value={status}
          onChange={(value) => setStatus(value as MailStatus | 'all')}
          data={[{ value: 'all', label: 'All' }, ...MAIL_STATUSES.map((value) => ({ value, label: kindLabel(value) }))]}
        />
      </Group>
      <DataTable
        label="Mail outbox"
        columns={columns}
        data={rows}
        isLoading={outbox.isPending}
        error={outbox.error}
        getRowId={(row) => row.id}
        empty={
          status === 'all'
            ? { title: 'No mail yet', description: 'Inviting a guardian or a developer, or assigning an exam, queues mail here.' }
            : { title: `No ${status} mail`, description: 'Choose All to see every message.' }
        }
      />
      {outbox.hasNextPage ? (
        <Center mt="md">
          <Button variant="default" onClick={() => outbox.fetchNextPage()} loading={outbox.isFetchingNextPage}>
            Load older mail
          </Button>
        </Center>
      ) : null}
    </>
  );
}

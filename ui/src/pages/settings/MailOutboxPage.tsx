import { Alert, Anchor, Badge, Button, Center, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, formatDate, formatRelative, PageHeader } from '../../components';
import { useInstitution, useSession } from '../../session';
import { describeMail, STATUS_COLOR, STATUS_LABEL } from './mail-status';
import { MAIL_STATUSES, outboxKey, type MailStatus, type OutboxMail } from './settings';

const PAGE_SIZE = 50;
/** Mail moves from queued to sent within seconds of a change; the open page follows it. */
const REFRESH_MS = 10_000;

/** `guardian_invite` → `Guardian invite`. */
const kindLabel = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1).replaceAll('_', ' ');

/** Said once above the list while no mail server is set: every waiting message waits for it. */
function NoMailServer({ operator }: { operator: boolean }) {
  return (
    <Alert role="status" color="yellow" title="No mail server is set up" mb="md">
      Nothing leaves the appliance yet: mail waits here as “Waiting” until{' '}
      {operator ? (
        <Anchor component={Link} to="/operator/mail-server">
          you set up a mail server
        </Anchor>
      ) : (
        'the appliance’s operator sets up a mail server'
      )}
      . Mail that goes stale while it waits (an expired or replaced invitation, a closed exam) is dropped then, not sent.
    </Alert>
  );
}

export function MailOutboxPage() {
  const institution = useInstitution();
  const session = useSession();
  const [status, setStatus] = useState<MailStatus | 'all'>('all');
  const outbox = useInfiniteQuery({
    queryKey: [...outboxKey(institution.id), status],
    queryFn: ({ pageParam }) =>
      call(
        portal.GET('/institutions/{id}/outbox', {
          params: { path: { id: institution.id }, query: { status: status === 'all' ? undefined : status, cursor: pageParam, limit: PAGE_SIZE } },
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: REFRESH_MS,
  });
  const rows = useMemo(() => outbox.data?.pages.flatMap((page) => page.items), [outbox.data]);
  // The newest page says whether a server is set now; before the first answer, assume it is (no banner flash).
  const configured = outbox.data?.pages[0]?.mail_server_configured ?? true;

  const columns = useMemo<ColumnDef<OutboxMail>[]>(
    () => [
      {
        header: 'To',
        id: 'to',
        accessorFn: (row) => row.to,
        cell: ({ row }) => (
          <Text size="sm" ff="monospace">
            {row.original.to}
          </Text>
        ),
      },
      {
        header: 'Subject',
        id: 'subject',
        accessorFn: (row) => row.subject,
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
      {
        header: 'Status',
        id: 'status',
        accessorFn: (row) => row.status,
        cell: ({ row }) => (
          <Stack gap={4} align="flex-start">
            <Badge color={STATUS_COLOR[row.original.status]} variant="light" radius="sm">
              {STATUS_LABEL[row.original.status]}
            </Badge>
            <Text size="xs" c={row.original.status === 'failed' ? 'red.8' : 'dimmed'} maw={420} lineClamp={3} title={row.original.last_error ?? undefined}>
              {describeMail(row.original, configured, formatDate)}
            </Text>
          </Stack>
        ),
      },
      {
        header: 'Queued',
        id: 'created',
        accessorFn: (row) => row.created_at,
        cell: ({ row }) => <span title={formatDate(row.original.created_at)}>{formatRelative(row.original.created_at)}</span>,
      },
    ],
    [configured],
  );

  return (
    <>
      <PageHeader
        title="Mail outbox"
        description="Mail this institution sends: guardian invitations and reports, exam notices, admin and developer invitations. Addresses are shown masked and message bodies are never shown, because invitations carry sign-in links. Without a mail server, mail waits here; a failing server is retried every minute, up to 5 attempts. Mail that is no longer true when its turn comes (an expired or replaced invitation, a closed exam) is dropped, not sent."
      />
      {configured ? null : <NoMailServer operator={session.account.is_operator} />}
      <Group mb="md">
        <SegmentedControl
          aria-label="Filter by status"
          value={status}
          onChange={(value) => setStatus(value as MailStatus | 'all')}
          data={[{ value: 'all', label: 'All' }, ...MAIL_STATUSES.map((value) => ({ value, label: STATUS_LABEL[value] }))]}
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
            : { title: `No mail in “${STATUS_LABEL[status]}”`, description: 'Choose All to see every message.' }
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

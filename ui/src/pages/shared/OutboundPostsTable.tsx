import { Badge, Button, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useQuery, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { formatDateSeconds, QueryError, useApiMutation } from '../../components';

/** What the appliance's durable outbound queues share (server/commands/lms/outbound-posts.ts): AGS scores to the LMS, results to the SIS. */
export interface OutboundPost {
  id: string;
  status: 'pending' | 'delivering' | 'succeeded' | 'dead' | 'superseded';
  created_at: string;
  next_attempt_at: string | null;
  attempts: Array<{ at: string; response_status: number | null; error: string | null }>;
}

const STATUS_COLORS: Record<OutboundPost['status'], string> = { pending: 'blue', delivering: 'blue', succeeded: 'green', dead: 'red', superseded: 'gray' };
const STATUS_WORDS: Record<OutboundPost['status'], string> = {
  pending: 'Waiting',
  delivering: 'Sending',
  succeeded: 'Sent',
  dead: 'Gave up',
  superseded: 'Replaced',
};

export interface PostColumn<P> {
  header: string;
  cell: (post: P) => ReactNode;
}

interface Props<P extends OutboundPost> {
  queryKey: QueryKey;
  /** Reads the queue's posts: the list operation of the page's own queue, with its path filled in. */
  list: () => Promise<{ items: P[] }>;
  /** Sends a post that gave up again, by its id: the queue's retry operation. */
  retry: (id: string) => Promise<unknown>;
  /** Names the table for assistive technology, and the empty state ("No grade has been sent to the SIS yet."). */
  label: string;
  empty: string;
  /** The columns between "Graded" and "Status": who and what was sent. */
  columns: Array<PostColumn<P>>;
  /** What an attempt's line says before its answer (the SIS's step it ended on). */
  attemptStep?: (attempt: P['attempts'][number]) => string;
  refetchInterval?: number;
}

/** Grades sent (or to send) to another system, each attempt with the answer, and Retry for one that gave up. */
export function OutboundPostsTable<P extends OutboundPost>({ queryKey, list, retry: resend, label, empty, columns, attemptStep, refetchInterval }: Props<P>) {
  const posts = useQuery({ queryKey, queryFn: () => list(), refetchInterval });
  const retry = useApiMutation({
    mutationFn: (id: string) => resend(id),
    invalidate: [queryKey],
    success: 'The grade will be sent again.',
  });
  if (posts.error) return <QueryError error={posts.error} />;
  if (!posts.data) return <Skeleton height={120} aria-busy="true" aria-label="Loading" />;
  if (posts.data.items.length === 0) return <Text c="dimmed">{empty}</Text>;
  return (
    <Table striped aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={190}>Graded</Table.Th>
          {columns.map((column) => (
            <Table.Th key={column.header}>{column.header}</Table.Th>
          ))}
          <Table.Th w={110}>Status</Table.Th>
          <Table.Th>Attempts</Table.Th>
          <Table.Th w={90} />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {posts.data.items.map((post) => (
          <Table.Tr key={post.id}>
            <Table.Td>{formatDateSeconds(post.created_at)}</Table.Td>
            {columns.map((column) => (
              <Table.Td key={column.header} style={{ overflowWrap: 'anywhere' }}>
                {column.cell(post)}
              </Table.Td>
            ))}
            <Table.Td>
              <Badge color={STATUS_COLORS[post.status]} variant="light">
                {STATUS_WORDS[post.status]}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Stack gap={2}>
                {post.attempts.map((attempt) => (
                  <Text size="xs" key={attempt.at} c={attempt.error ? 'red' : undefined}>
                    {formatDateSeconds(attempt.at)}: {attemptStep ? `${attemptStep(attempt)} ` : ''}
                    {attempt.response_status ?? 'no answer'}
                    {attempt.error ? ` (${attempt.error})` : ''}
                  </Text>
                ))}
                {post.status === 'pending' && post.next_attempt_at ? (
                  <Text size="xs" c="dimmed">
                    Next try {formatDateSeconds(post.next_attempt_at)}
                  </Text>
                ) : null}
              </Stack>
            </Table.Td>
            <Table.Td>
              {post.status === 'dead' ? (
                <Button size="compact-sm" variant="default" loading={retry.isPending && retry.variables === post.id} onClick={() => retry.mutate(post.id)}>
                  Retry
                </Button>
              ) : null}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

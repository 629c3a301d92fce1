import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  active: 'teal',
  approved: 'teal',
  succeeded: 'teal',
  sent: 'teal',
  accepted: 'teal',
  published: 'teal',
  graded: 'teal',
  enabled: 'teal',
  pending: 'yellow',
  queued: 'yellow',
  delivering: 'blue',
  submitted: 'blue',
  draft: 'gray',
  paused: 'gray',
  revoked: 'gray',
  expired: 'gray',
  removed: 'gray',
  inactive: 'gray',
  failed: 'orange',
  suspended: 'red',
  disabled: 'red',
  dead: 'red',
  rejected: 'red',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" radius="sm">
      {status.replaceAll('_', ' ')}
    </Badge>
  );
}

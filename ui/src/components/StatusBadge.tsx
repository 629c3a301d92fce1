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

/**
 * A status as a coloured word. Never cut short: the badge keeps the width of its word, so a
 * crowded table gives the column that room instead of showing "ACT…" (Mantine's label would
 * otherwise shrink with the cell and add an ellipsis).
 */
export function StatusBadge({ status, label }: { status: string; /** Words for the status where the API's own need explaining. */ label?: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" radius="sm" miw="max-content">
      {label ?? status.replaceAll('_', ' ')}
    </Badge>
  );
}

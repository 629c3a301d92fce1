import { Group, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled part of a page: a heading over its table, list or text. */
export function Section({
  title,
  actions,
  children,
}: {
  title: string;
  /** Buttons beside the title (an "Invite" for the section's list). */ actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Stack gap="xs">
      {actions ? (
        <Group justify="space-between" wrap="wrap">
          <Title order={4}>{title}</Title>
          {actions}
        </Group>
      ) : (
        <Title order={4}>{title}</Title>
      )}
      {children}
    </Stack>
  );
}

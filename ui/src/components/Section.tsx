import { Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled part of a page: a heading over its table, list or text. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="xs">
      <Title order={4}>{title}</Title>
      {children}
    </Stack>
  );
}

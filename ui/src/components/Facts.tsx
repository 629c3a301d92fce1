import { SimpleGrid, Stack, Text, type MantineSpacing } from '@mantine/core';
import type { ReactNode } from 'react';

/** A labelled value on a detail page; a dash when there is none. Long unbroken values (e-mails, ids) wrap inside their cell. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2} miw={0} style={{ overflowWrap: 'anywhere' }}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <div>{children ?? '—'}</div>
    </Stack>
  );
}

/** The grid of facts at the top of a detail page, four across on a laptop. */
export function Facts({ children, mb = 'xl' }: { children: ReactNode; mb?: MantineSpacing }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="lg" verticalSpacing="md" mb={mb}>
      {children}
    </SimpleGrid>
  );
}

import { Stack, Text } from '@mantine/core';

/**
 * A list's first column: the row's name over a dimmed detail (a login email, an id, a
 * description). With a width the detail stays on one line and the tooltip holds all of it.
 */
export function NameCell({ name, detail, mono, maw }: { name: string; detail?: string | null; mono?: boolean; maw?: number }) {
  return (
    <Stack gap={0}>
      <Text size="sm" fw={500}>
        {name}
      </Text>
      {detail ? (
        <Text size="xs" c="dimmed" ff={mono ? 'monospace' : undefined} maw={maw} truncate={maw ? 'end' : undefined} title={maw ? detail : undefined}>
          {detail}
        </Text>
      ) : null}
    </Stack>
  );
}

import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/** A labelled value on one line, with a button that copies it. */
export function CopyValue({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code style={{ overflowWrap: 'anywhere', flex: 1 }}>{value}</Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

/** A labelled block of text (a key, a JSON configuration), with a button that copies it. */
export function CopyBlock({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      {/* It scrolls: focusable, so a keyboard can scroll it too. */}
      <Code block tabIndex={0} aria-label={label} style={{ maxHeight: 220, overflow: 'auto' }}>
        {value}
      </Code>
    </Stack>
  );
}

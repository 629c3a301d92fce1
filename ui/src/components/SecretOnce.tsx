import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A secret the appliance shows once (an API key, a signing secret): copy it now or make a new one. */
export function SecretOnce({ label, value, note }: { label: string; value: string; note?: ReactNode }) {
  return (
    <Alert color="yellow" title={label} role="status">
      <Stack gap="xs">
        <Text size="sm">{note ?? 'Copy it now: it is shown only this once and cannot be read again.'}</Text>
        <Group gap="sm" wrap="nowrap" align="center">
          <Code data-testid="secret-value" style={{ wordBreak: 'break-all', flex: 1 }}>
            {value}
          </Code>
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" variant={copied ? 'light' : 'filled'} color={copied ? 'teal' : 'blue'} onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}

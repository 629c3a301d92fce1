import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The centred card of the signed-out pages: setup, sign-in, invitation. */
export function AuthFrame({ title, subtitle, children, width = 420 }: { title: string; subtitle?: ReactNode; children: ReactNode; width?: number }) {
  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={width} component="main">
        <Stack gap="lg">
          <Stack gap={4}>
            <Text fw={700} c="indigo">
              CampusBridge
            </Text>
            <Title order={2}>{title}</Title>
            {subtitle ? (
              <Text c="dimmed" size="sm">
                {subtitle}
              </Text>
            ) : null}
          </Stack>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}

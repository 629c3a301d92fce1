import { Card, SimpleGrid, Skeleton, Text } from '@mantine/core';

/** A row of counts, each a big number over its label; two across on a phone. */
export function StatCards({ items, isLoading = false }: { items: Array<{ label: string; value: number }>; isLoading?: boolean }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }}>
      {items.map(({ label, value }) => (
        <Card key={label} withBorder padding="sm" radius="md">
          {isLoading ? (
            <Skeleton height={28} width="50%" mb={4} />
          ) : (
            <Text size="xl" fw={700}>
              {value.toLocaleString()}
            </Text>
          )}
          <Text size="sm" c="dimmed">
            {label}
          </Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}

import { Box, Card, Center, Skeleton, Table, Text } from '@mantine/core';
import { useId, type ReactNode } from 'react';
import { QueryError } from '../QueryError';

/** Height of every chart's drawing area, so cards in a row line up. */
export const CHART_HEIGHT = 220;

/**
 * What every chart is given: the card's height, and no keyboard layer of its own (the drawing is
 * hidden from assistive technology, which reads the caption and the table instead).
 */
export const CHART_PROPS = { h: CHART_HEIGHT, accessibilityLayer: false } as const;

/** Drawn at once: no animation to wait for (or to catch half-way in a screenshot). */
export const STILL = { isAnimationActive: false } as const;

/** A chart's numbers as a table: its text alternative, one row per bar or point. */
export interface ChartTable {
  columns: string[];
  rows: Array<Array<string | number>>;
}

interface ChartCardProps {
  title: string;
  /** One sentence with the chart's main numbers, shown under it and read by screen readers. */
  summary: string;
  table: ChartTable;
  /** Said instead of the chart when it has nothing to draw; null draws it. */
  empty: string | null;
  isLoading?: boolean;
  error?: unknown;
  /** The chart: a @mantine/charts component with `CHART_PROPS`. */
  children: ReactNode;
}

/**
 * A chart as a figure: its title, the drawing, a sentence saying what it shows, and the same
 * numbers as a table behind "Show as table". The drawing is hidden from assistive technology,
 * which reads the sentence and the table instead; with nothing to draw, the empty state says so.
 */
export function ChartCard({ title, summary, table, empty, isLoading = false, error, children }: ChartCardProps) {
  const titleId = useId();
  return (
    <Card withBorder padding="md" radius="md" component="figure" m={0} aria-labelledby={titleId} miw={0}>
      <Text id={titleId} fw={600} mb="sm">
        {title}
      </Text>
      {error ? (
        <QueryError error={error} />
      ) : isLoading ? (
        <Skeleton height={CHART_HEIGHT} aria-busy="true" aria-label="Loading" />
      ) : empty !== null ? (
        <Center
          component="figcaption"
          h={CHART_HEIGHT / 2}
          data-testid="chart-empty"
          style={{ border: '1px dashed var(--mantine-color-gray-4)', borderRadius: 'var(--mantine-radius-md)' }}
        >
          <Text size="sm" c="dimmed" ta="center" px="md">
            {empty}
          </Text>
        </Center>
      ) : (
        <>
          <Box data-testid="chart" aria-hidden="true">
            {children}
          </Box>
          <Box component="figcaption" mt="xs">
            <Text size="sm" c="dimmed">
              {summary}
            </Text>
            <ChartDataTable title={title} table={table} />
          </Box>
        </>
      )}
    </Card>
  );
}

function ChartDataTable({ title, table }: { title: string; table: ChartTable }) {
  return (
    <Box component="details" mt={4} fz="sm">
      <Box component="summary" style={{ cursor: 'pointer' }} c="dimmed">
        Show as table
      </Box>
      <Box style={{ overflowX: 'auto' }}>
        <Table fz="sm" verticalSpacing={2} mt={4} aria-label={title} style={{ whiteSpace: 'nowrap' }}>
          <Table.Thead>
            <Table.Tr>
              {table.columns.map((column) => (
                <Table.Th key={column}>{column}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {table.rows.map((row) => (
              <Table.Tr key={String(row[0])}>
                {row.map((cell, i) => (
                  <Table.Td key={table.columns[i]}>{cell}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Box>
    </Box>
  );
}

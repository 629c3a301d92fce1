import { AreaChart, BarChart } from '@mantine/charts';
import { SimpleGrid, Skeleton, Stack } from '@mantine/core';
import { QueryError } from '../../components';
import { CHART_PROPS, ChartCard, formatDay, plural, StatCards, STILL, sumOf } from '../../components/charts';
import { useOverview, type Overview } from './overview';

type Counts = Overview['counts'];

const COUNT_LABELS: Array<[keyof Counts, string]> = [
  ['students', 'Students'],
  ['faculty', 'Faculty'],
  ['groups', 'Groups'],
  ['active_licenses', 'Active licenses'],
];

/** The institution at a glance: what the role may read of its counts, and its last seven days. */
export function OverviewCharts({ institutionId }: { institutionId: string }) {
  const { data: overview, error } = useOverview(institutionId);
  if (error) return <QueryError error={error} />;
  if (!overview) return <Skeleton height={72} aria-busy="true" aria-label="Loading" />;
  const counts = COUNT_LABELS.flatMap(([key, label]) => {
    const value = overview.counts[key];
    return value === null ? [] : [{ label, value }];
  });
  return (
    <Stack>
      {counts.length > 0 ? <StatCards items={counts} /> : null}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {overview.deliveries ? <DeliveriesChart days={overview.deliveries} /> : null}
        {overview.new_students ? <NewStudentsChart days={overview.new_students} /> : null}
      </SimpleGrid>
    </Stack>
  );
}

function DeliveriesChart({ days }: { days: NonNullable<Overview['deliveries']> }) {
  const succeeded = sumOf(days, (day) => day.succeeded);
  const failed = sumOf(days, (day) => day.failed);
  const data = days.map((day) => ({ ...day, label: formatDay(day.day) }));
  return (
    <ChartCard
      title={`Webhook deliveries, last ${days.length} days`}
      summary={`${plural(succeeded, 'delivery', 'deliveries')} succeeded and ${failed.toLocaleString()} failed in the last ${days.length} days (UTC), counted on the day each was made.`}
      table={{ columns: ['Day', 'Succeeded', 'Failed'], rows: data.map((day) => [day.label, day.succeeded, day.failed]) }}
      empty={succeeded + failed === 0 ? `No webhook deliveries finished in the last ${days.length} days.` : null}
    >
      <BarChart
        {...CHART_PROPS}
        data={data}
        dataKey="label"
        type="stacked"
        withLegend
        series={[
          { name: 'succeeded', label: 'Succeeded', color: 'teal.6' },
          { name: 'failed', label: 'Failed', color: 'red.6' },
        ]}
        barProps={STILL}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

function NewStudentsChart({ days }: { days: NonNullable<Overview['new_students']> }) {
  const total = sumOf(days, (day) => day.count);
  const today = days.at(-1)?.count ?? 0;
  const data = days.map((day) => ({ ...day, label: formatDay(day.day) }));
  return (
    <ChartCard
      title={`Students added, last ${days.length} days`}
      summary={`${plural(total, 'student')} added in the last ${days.length} days (UTC), ${today.toLocaleString()} of them today.`}
      table={{ columns: ['Day', 'Students added'], rows: data.map((day) => [day.label, day.count]) }}
      empty={total === 0 ? `No students were added in the last ${days.length} days.` : null}
    >
      <AreaChart
        {...CHART_PROPS}
        data={data}
        dataKey="label"
        series={[{ name: 'count', label: 'Students added', color: 'indigo.6' }]}
        curveType="linear"
        areaProps={STILL}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

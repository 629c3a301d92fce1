import { AreaChart, LineChart } from '@mantine/charts';
import { SimpleGrid } from '@mantine/core';
import { CHART_PROPS, ChartCard, formatDay, plural, STILL } from '../../components/charts';
import { STATS_DAYS, useEndpointStats, type EndpointStats } from './stats';

type Day = EndpointStats['days'][number];

const dash = (value: number | null, unit = '') => (value === null ? '—' : `${value.toLocaleString()}${unit}`);

/** An endpoint's last seven days: how many deliveries succeeded, and how fast the receiver answered. */
export function EndpointCharts({ institutionId, endpointId }: { institutionId: string; endpointId: string }) {
  const stats = useEndpointStats(institutionId, endpointId);
  const days = (stats.data?.days ?? []).map((day) => ({ ...day, label: formatDay(day.day) }));
  const totals = stats.data?.totals;
  const state = { isLoading: stats.isPending, error: stats.error };
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <SuccessRateChart days={days} totals={totals} {...state} />
      <ResponseTimeChart days={days} totals={totals} {...state} />
    </SimpleGrid>
  );
}

interface ChartProps {
  days: Array<Day & { label: string }>;
  totals: EndpointStats['totals'] | undefined;
  isLoading: boolean;
  error: unknown;
}

function SuccessRateChart({ days, totals, isLoading, error }: ChartProps) {
  const finished = (totals?.succeeded ?? 0) + (totals?.failed ?? 0);
  return (
    <ChartCard
      title={`Success rate, last ${STATS_DAYS} days`}
      summary={`${dash(totals?.success_rate ?? null, '%')} of ${plural(finished, 'finished delivery', 'finished deliveries')} succeeded (${(totals?.failed ?? 0).toLocaleString()} failed), by the UTC day each was made.`}
      table={{
        columns: ['Day', 'Succeeded', 'Failed', 'Success rate'],
        rows: days.map((day) => [day.label, day.succeeded, day.failed, dash(day.success_rate, '%')]),
      }}
      empty={finished === 0 ? `No deliveries to this endpoint finished in the last ${STATS_DAYS} days.` : null}
      isLoading={isLoading}
      error={error}
    >
      <AreaChart
        {...CHART_PROPS}
        data={days}
        dataKey="label"
        unit="%"
        series={[{ name: 'success_rate', label: 'Success rate', color: 'teal.6' }]}
        curveType="linear"
        yAxisProps={{ domain: [0, 100] }}
        areaProps={STILL}
      />
    </ChartCard>
  );
}

function ResponseTimeChart({ days, totals, isLoading, error }: ChartProps) {
  return (
    <ChartCard
      title={`Response times, last ${STATS_DAYS} days`}
      summary={`The receiver answered in ${dash(totals?.average_response_ms ?? null, ' ms')} on average; the slowest answer took ${dash(totals?.max_response_ms ?? null, ' ms')}.`}
      table={{
        columns: ['Day', 'Average', 'Slowest'],
        rows: days.map((day) => [day.label, dash(day.average_response_ms, ' ms'), dash(day.max_response_ms, ' ms')]),
      }}
      empty={totals && totals.average_response_ms === null ? `No timed answers from this endpoint in the last ${STATS_DAYS} days.` : null}
      isLoading={isLoading}
      error={error}
    >
      <LineChart
        {...CHART_PROPS}
        data={days}
        dataKey="label"
        valueFormatter={(ms) => `${ms.toLocaleString()} ms`}
        yAxisProps={{ width: 80 }}
        withLegend
        series={[
          { name: 'average_response_ms', label: 'Average', color: 'indigo.6' },
          { name: 'max_response_ms', label: 'Slowest', color: 'orange.6' },
        ]}
        curveType="linear"
        lineProps={STILL}
      />
    </ChartCard>
  );
}

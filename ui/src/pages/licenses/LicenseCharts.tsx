import { BarChart } from '@mantine/charts';
import { SimpleGrid } from '@mantine/core';
import { CHART_PROPS, ChartCard, formatMonth, plural, STILL, sumOf } from '../../components/charts';
import { useLicenseExpiry, useLicenseSummary, type LicenseExpiry, type LicenseSummary } from './licenses';

const TYPES = [
  { type: 'student', label: 'Student' },
  { type: 'faculty', label: 'Faculty' },
] as const;

const STATUS_SERIES = [
  { name: 'active', label: 'Active', color: 'teal.6' },
  { name: 'expired', label: 'Expired', color: 'gray.5' },
  { name: 'revoked', label: 'Revoked', color: 'red.6' },
];

const TYPE_SERIES = [
  { name: 'student', label: 'Student', color: 'indigo.6' },
  { name: 'faculty', label: 'Faculty', color: 'grape.5' },
];

/** Licenses in pictures, above the list: how they are used by type, and when the active ones run out. */
export function LicenseCharts({ institutionId }: { institutionId: string }) {
  const summary = useLicenseSummary(institutionId);
  const expiry = useLicenseExpiry(institutionId);
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} mb="lg">
      <UsageByType summary={summary.data} isLoading={summary.isPending} error={summary.error} />
      <ExpiryByMonth expiry={expiry.data} isLoading={expiry.isPending} error={expiry.error} />
    </SimpleGrid>
  );
}

function UsageByType({ summary, isLoading, error }: { summary: LicenseSummary | undefined; isLoading: boolean; error: unknown }) {
  const rows = TYPES.map(({ type, label }) => ({ label, ...(summary?.by_type[type] ?? { active: 0, expired: 0, revoked: 0 }) }));
  const [students, faculty] = rows;
  return (
    <ChartCard
      title="Licenses by type"
      summary={`${plural(students!.active, 'student license')} and ${plural(faculty!.active, 'faculty license')} are active; ${sumOf(rows, (row) => row.expired).toLocaleString()} expired and ${sumOf(rows, (row) => row.revoked).toLocaleString()} revoked.`}
      table={{ columns: ['Type', 'Active', 'Expired', 'Revoked'], rows: rows.map((row) => [row.label, row.active, row.expired, row.revoked]) }}
      empty={summary?.total === 0 ? 'No licenses yet: every student and teacher receives one when added.' : null}
      isLoading={isLoading}
      error={error}
    >
      <BarChart
        {...CHART_PROPS}
        data={rows}
        dataKey="label"
        type="stacked"
        withLegend
        series={STATUS_SERIES}
        barProps={STILL}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

function ExpiryByMonth({ expiry, isLoading, error }: { expiry: LicenseExpiry | undefined; isLoading: boolean; error: unknown }) {
  const months = (expiry?.months ?? []).map((month) => ({ ...month, label: formatMonth(month.month) }));
  const within = sumOf(months, (month) => month.student + month.faculty);
  const later = (expiry?.later.student ?? 0) + (expiry?.later.faculty ?? 0);
  const busiest = months.reduce<(typeof months)[number] | null>(
    (top, month) => (!top || month.student + month.faculty > top.student + top.faculty ? month : top),
    null,
  );
  return (
    <ChartCard
      title="Active licenses by expiry month"
      summary={`${within.toLocaleString()} of ${plural(within + later, 'active license')} expire in the next ${months.length} months (UTC)${busiest ? `, the most in ${busiest.label} (${(busiest.student + busiest.faculty).toLocaleString()})` : ''}; ${later.toLocaleString()} later.`}
      table={{ columns: ['Month', 'Student', 'Faculty'], rows: months.map((month) => [month.label, month.student, month.faculty]) }}
      empty={
        within > 0 ? null : later > 0 ? `None of the ${plural(later, 'active license')} expires in the next ${months.length} months.` : 'No active licenses.'
      }
      isLoading={isLoading}
      error={error}
    >
      <BarChart
        {...CHART_PROPS}
        data={months}
        dataKey="label"
        type="stacked"
        withLegend
        series={TYPE_SERIES}
        barProps={STILL}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

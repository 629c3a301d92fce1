import { BarChart, DonutChart } from '@mantine/charts';
import { SimpleGrid } from '@mantine/core';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { call, portal } from '../../api/portal';
import { CHART_HEIGHT, CHART_PROPS, ChartCard, plural, STILL } from '../../components/charts';
import { areaKey } from '../shared/areas';
import type { ExamAnalytics, ScoreList, ScoreRow } from './exams';

/** A score as a bucket bound: at most one decimal (buckets of an exam out of 25 are 2.5 wide). */
const bound = (value: number) => String(Math.round(value * 10) / 10);

/** A statistic of the scores, to two decimals at most. */
const score = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : value.toLocaleString(undefined, { maximumFractionDigits: 2 });

/** Each student's standing on the exam, from their latest submission that is not voided. */
const STANDINGS: Array<{ status: ScoreRow['status']; name: string; color: string }> = [
  { status: 'graded', name: 'Graded', color: 'teal.6' },
  { status: 'submitted', name: 'Waiting for grading', color: 'indigo.5' },
  { status: 'resubmission_requested', name: 'Resubmission requested', color: 'orange.5' },
  { status: null, name: 'Not submitted', color: 'gray.4' },
];

/** An exam in pictures: how the graded scores spread, and where each student stands. */
export function ExamCharts({ institutionId, examId, scores }: { institutionId: string; examId: string; scores: UseQueryResult<ScoreList> }) {
  const analytics = useQuery({
    queryKey: [...areaKey(institutionId, 'submissions'), 'analytics', examId],
    queryFn: () => call(portal.GET('/institutions/{institution}/exams/{id}/analytics', { params: { path: { institution: institutionId, id: examId } } })),
  });
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} mb="xl">
      <ScoreHistogram analytics={analytics.data} isLoading={analytics.isPending} error={analytics.error} />
      <AttemptStatus rows={scores.data?.items} isLoading={scores.isPending} error={scores.error} />
    </SimpleGrid>
  );
}

function ScoreHistogram({ analytics, isLoading, error }: { analytics: ExamAnalytics | undefined; isLoading: boolean; error: unknown }) {
  const buckets = (analytics?.histogram ?? []).map((bucket) => ({ label: `${bound(bucket.from)}–${bound(bucket.to)}`, count: bucket.count }));
  const count = analytics?.count ?? 0;
  return (
    <ChartCard
      title="Score histogram"
      summary={`${plural(count, 'graded submission')}: mean ${score(analytics?.mean)}, median ${score(analytics?.median)}, lowest ${score(analytics?.min)}, highest ${score(analytics?.max)}.`}
      table={{ columns: ['Score', 'Submissions'], rows: buckets.map((bucket) => [bucket.label, bucket.count]) }}
      empty={count === 0 ? 'No graded submissions yet: the histogram appears once some are graded.' : null}
      isLoading={isLoading}
      error={error}
    >
      <BarChart
        {...CHART_PROPS}
        data={buckets}
        dataKey="label"
        series={[{ name: 'count', label: 'Submissions', color: 'indigo.6' }]}
        barProps={STILL}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

function AttemptStatus({ rows, isLoading, error }: { rows: ScoreRow[] | undefined; isLoading: boolean; error: unknown }) {
  const cells = STANDINGS.map(({ status, name, color }) => ({ name, color, value: (rows ?? []).filter((row) => row.status === status).length }));
  const total = rows?.length ?? 0;
  return (
    <ChartCard
      title="Attempt status"
      summary={`Of ${plural(total, 'student')}: ${cells.map((cell) => `${cell.value.toLocaleString()} ${cell.name.toLowerCase()}`).join(', ')}.`}
      table={{ columns: ['Status', 'Students'], rows: cells.map((cell) => [cell.name, cell.value]) }}
      empty={total === 0 ? 'No students yet: students of the assigned groups, and anyone who submitted, are counted here.' : null}
      isLoading={isLoading}
      error={error}
    >
      <DonutChart
        {...CHART_PROPS}
        size={CHART_HEIGHT - 60}
        data={cells.filter((cell) => cell.value > 0)}
        chartLabel={plural(total, 'student')}
        withLegend
        // Hidden from assistive technology like every drawing, so its slices must not take focus either.
        pieProps={{ ...STILL, rootTabIndex: -1 }}
        mx="auto"
      />
    </ChartCard>
  );
}

import { Badge, Button, Code, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import type { z } from 'zod';
import { call, portal } from '../../api/portal';
import { DataTable, formatDate, NameCell, PageHeader, useApiMutation } from '../../components';
import type { operatorJobSchema } from '../../../../server/routes/operator/jobs';

/** Types of server/routes/operator/jobs.ts's schemas (type-only). */
type Job = z.input<typeof operatorJobSchema>;

const jobsKey = ['operator', 'jobs'] as const;

function LastRun({ job }: { job: Job }) {
  const run = job.last_run;
  if (job.running || (run && run.finished_at === null)) return <Badge variant="light">Running</Badge>;
  if (!run) return <Text c="dimmed">Not run yet</Text>;
  const badge = (
    <Badge color={run.outcome === 'ok' ? 'green' : 'red'} variant="light">
      {run.outcome === 'ok' ? 'OK' : 'Failed'}
    </Badge>
  );
  return (
    <Text size="sm" component="div">
      {run.detail ? <Tooltip label={run.detail}>{badge}</Tooltip> : badge} {formatDate(run.finished_at)}
    </Text>
  );
}

/** The appliance's periodic jobs: when each last ran and how it went, when it runs next, and running one now. */
export function JobsPage() {
  const jobs = useQuery({ queryKey: jobsKey, queryFn: () => call(portal.GET('/operator/jobs')), refetchInterval: 30_000 });
  const runNow = useApiMutation({
    mutationFn: (name: string) => call(portal.POST('/operator/jobs/{name}/run', { params: { path: { name } } })),
    invalidate: [jobsKey],
    success: (answer) => (answer.outcome === 'ok' ? `${answer.name} ran.` : `${answer.name} failed; its detail is in the list.`),
  });

  const columns = useMemo<ColumnDef<Job>[]>(
    () => [
      {
        header: 'Job',
        id: 'name',
        accessorFn: (row) => row.name,
        cell: ({ row }) => <NameCell name={row.original.name} detail={row.original.schedule} mono />,
      },
      { header: 'Last run', id: 'last_run', cell: ({ row }) => <LastRun job={row.original} /> },
      { header: 'Next run', id: 'next_run_at', accessorFn: (row) => row.next_run_at ?? '', cell: ({ row }) => formatDate(row.original.next_run_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => (
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => runNow.mutate(row.original.name)}
            loading={runNow.isPending && runNow.variables === row.original.name}
            aria-label={`Run now: ${row.original.name}`}
          >
            Run now
          </Button>
        ),
      },
    ],
    [runNow],
  );

  return (
    <>
      <PageHeader
        title="Jobs"
        description={
          <>
            The appliance&apos;s periodic work: pruning old data, weekly guardian reports, sending mail, webhook retries. Schedules are in UTC (
            <Code>minute hour day month weekday</Code>). A daily or hourly job that missed its time because this computer was off or asleep runs within a minute
            of the next start or wake.
          </>
        }
      />
      <DataTable
        label="Jobs"
        columns={columns}
        data={jobs.data?.items}
        isLoading={jobs.isPending}
        error={jobs.error}
        getRowId={(row) => row.name}
        empty={{ title: 'No jobs' }}
      />
    </>
  );
}

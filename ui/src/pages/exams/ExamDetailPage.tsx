import { Button, Card, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Link, useNavigate, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, Fact, Facts, formatDate, PageHeader, Section, StatusBadge } from '../../components';
import { useInstitution } from '../../session';
import { useTeacherNames } from '../faculty/faculty';
import { PersonLink } from '../people/people';
import { areaKey } from '../shared/areas';
import { BackLink, DetailState, Mono } from '../shared/common';
import { useExamGradeStandings } from '../submissions/GradeStanding';
import { ExamCharts } from './ExamCharts';
import { CodingExamFiles, ExamInstructions } from './ExamCoding';
import type { ExamDetail, ScoreRow } from './exams';

type ExamGroup = ExamDetail['groups'][number];

const yesNo = (value: boolean | undefined) => (value === undefined ? '—' : value ? 'yes' : 'no');

export function ExamDetailPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const { examId = '' } = useParams();
  const path = { institution: institution.id, id: examId };
  const teacherName = useTeacherNames(institution.id);
  const standings = useExamGradeStandings(examId);

  const exam = useQuery({
    queryKey: [...areaKey(institution.id, 'exams'), 'one', examId],
    queryFn: () => call(portal.GET('/institutions/{institution}/exams/{id}', { params: { path } })),
    // The archives' signed links last 15 minutes: read them fresh before they run out.
    refetchInterval: (query) => (query.state.data?.files.length ? 10 * 60_000 : false),
  });
  const scores = useQuery({
    queryKey: [...areaKey(institution.id, 'submissions'), 'scores', examId],
    queryFn: () => call(portal.GET('/institutions/{institution}/exams/{id}/scores', { params: { path } })),
  });

  const groupColumns: ColumnDef<ExamGroup>[] = [
    { header: 'Group', accessorKey: 'name' },
    { header: 'Students', accessorKey: 'student_count' },
  ];
  const scoreColumns: ColumnDef<ScoreRow>[] = [
    {
      header: 'Student',
      id: 'student',
      cell: ({ row }) => <PersonLink institutionId={institution.id} id={row.original.student_id} label={row.original.full_name} />,
    },
    {
      header: 'Status',
      id: 'status',
      cell: ({ row }) =>
        row.original.status ? (
          <StatusBadge status={row.original.status} />
        ) : (
          <Text size="sm" c="dimmed">
            not submitted
          </Text>
        ),
    },
    {
      header: 'Score',
      id: 'score',
      cell: ({ row }) => (row.original.score === null ? '—' : `${row.original.score}${row.original.max_score !== null ? ` / ${row.original.max_score}` : ''}`),
    },
    {
      header: 'In the LMS and the SIS',
      id: 'standing',
      cell: ({ row }) => {
        const standing = row.original.submission_id ? standings.get(row.original.submission_id) : undefined;
        return standing && standing.destinations.length > 0 ? <Text size="sm">{standing.summary}</Text> : '—';
      },
    },
  ];

  return (
    <DetailState isPending={exam.isPending} error={exam.error}>
      {() => {
        const row = exam.data!;
        const toolchain = typeof row.code_spec?.toolchain === 'string' ? row.code_spec.toolchain : null;
        return (
          <>
            <PageHeader
              title={row.title}
              actions={
                <>
                  <BackLink to=".." label="All exams" />
                  <Button component={Link} to={`/i/${institution.id}/submissions?exam_id=${encodeURIComponent(row.id)}`}>
                    Submissions
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="Status">
                <StatusBadge status={row.status} />
              </Fact>
              <Fact label="Type">
                {row.exam_type} · {row.app === 'code' ? 'coding app' : 'learning app'}
              </Fact>
              <Fact label="Owner">
                <PersonLink institutionId={institution.id} id={row.faculty_id} label={teacherName.get(row.faculty_id)} />
              </Fact>
              <Fact label="Exam id">
                <Mono>{row.id}</Mono>
              </Fact>
              <Fact label="Due">{formatDate(row.due_date)}</Fact>
              <Fact label="Time limit">{row.time_limit_minutes === null ? 'untimed' : `${row.time_limit_minutes} minutes`}</Fact>
              <Fact label="Max score">{row.max_score ?? 'no limit'}</Fact>
              <Fact label="Published">{row.published_at ? formatDate(row.published_at) : null}</Fact>
              <Fact label="Proctoring">
                camera {yesNo(row.proctoring.camera)} · screen {yesNo(row.proctoring.screen)}
              </Fact>
              <Fact label="AI assistant">
                {row.ai_policy.allowed === undefined
                  ? null
                  : row.ai_policy.allowed
                    ? `allowed${row.ai_policy.max_interactions !== undefined ? `, up to ${row.ai_policy.max_interactions} interactions` : ''}`
                    : 'not allowed'}
              </Fact>
              {toolchain ? <Fact label="Toolchain">{toolchain}</Fact> : null}
              {row.closed_at ? <Fact label="Closed">{formatDate(row.closed_at)}</Fact> : null}
            </Facts>
            <SimpleGrid cols={{ base: 2, md: 4 }} mb="xl">
              {(
                [
                  ['Assigned students', row.stats.assigned_students],
                  ['Attempts', row.stats.attempts],
                  ['Submissions', row.stats.submissions],
                  ['Graded', row.stats.graded],
                ] as const
              ).map(([label, value]) => (
                <Card key={label} withBorder padding="sm" radius="md">
                  <Text size="xl" fw={700}>
                    {value}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {label}
                  </Text>
                </Card>
              ))}
            </SimpleGrid>
            <ExamCharts institutionId={institution.id} examId={row.id} scores={scores} />
            <Stack gap="xl">
              <ExamInstructions markdown={row.description} />
              <CodingExamFiles institutionId={institution.id} exam={row} />
              <Section title="Groups">
                <DataTable
                  label="Assigned groups"
                  columns={groupColumns}
                  data={row.groups}
                  isLoading={false}
                  getRowId={(group) => group.id}
                  onRowClick={(group) => navigate(`/i/${institution.id}/groups/${group.id}`)}
                  empty={{ title: 'Not assigned to any group yet' }}
                />
              </Section>
              <Section title="Scores">
                <DataTable
                  label="Scores"
                  columns={scoreColumns}
                  data={scores.data?.items}
                  isLoading={scores.isPending}
                  error={scores.error}
                  getRowId={(score) => score.student_id}
                  onRowClick={(score) => (score.submission_id ? navigate(`/i/${institution.id}/submissions/${score.submission_id}`) : undefined)}
                  empty={{ title: 'No students yet', description: 'Students of the assigned groups, and anyone who submitted, are listed here.' }}
                />
              </Section>
            </Stack>
          </>
        );
      }}
    </DetailState>
  );
}

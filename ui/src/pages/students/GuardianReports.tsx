import { Badge, Button, Group, List, Modal, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import type { z } from 'zod';
import type { reportSchema } from '../../../../server/routes/guardians/schema';
import { call, portal } from '../../api/portal';
import { DataTable, Fact, Facts, formatDate, QueryError, Section } from '../../components';
import { areaKey } from '../shared/areas';

/** A weekly guardian report as GET /guardians/reports returns it: what the verified guardians were mailed. */
export type GuardianReport = z.input<typeof reportSchema>;
type Summary = GuardianReport['summary'];

const words = (value: string) => value.replaceAll('_', ' ');
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const percent = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);
const scoreOf = (item: Summary['submissions'][number]) => (item.score === null ? '—' : `${item.score}${item.max_score === null ? '' : ` / ${item.max_score}`}`);

function SubmissionsTable({ items, label }: { items: Summary['submissions']; label: string }) {
  if (items.length === 0) return <Text size="sm">No submissions in that week.</Text>;
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Exam</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Score</Table.Th>
            <Table.Th>Handed in</Table.Th>
            <Table.Th>Feedback</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr key={`${item.exam_id}-${item.submitted_at}`}>
              <Table.Td>{item.exam_title}</Table.Td>
              <Table.Td>{words(item.status)}</Table.Td>
              <Table.Td>{scoreOf(item)}</Table.Td>
              <Table.Td>{formatDate(item.submitted_at)}</Table.Td>
              <Table.Td>{item.has_feedback ? 'yes' : 'no'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The report's contents, section by section, as the mail has them: each section names its days, so
 * a report made late, or read weeks later, says which week it is about (server/mail/guardian-report.ts).
 */
function ReportDetail({ report }: { report: GuardianReport }) {
  const { summary } = report;
  const span = `${summary.week.start} to ${summary.week.end}`;
  const alpha = summary.alpha;
  const usesAlpha = alpha !== null && (alpha.activities > 0 || alpha.points_total > 0 || alpha.curricula.length > 0);
  return (
    <Stack gap="lg">
      <Facts mb={0}>
        <Fact label="Week">{`${summary.week.start} to ${summary.week.end}`}</Fact>
        <Fact label="Made">{formatDate(report.created_at)}</Fact>
        <Fact label="Account">{summary.student.status}</Fact>
        <Fact label="License">{summary.license.status === 'none' ? 'none' : `${summary.license.status}, until ${formatDate(summary.license.expires_at)}`}</Fact>
      </Facts>
      <Stack gap="xs">
        <Title order={5}>Submissions, {span}</Title>
        <SubmissionsTable items={summary.submissions} label={`Submissions, ${span}`} />
      </Stack>
      <Stack gap="xs">
        <Title order={5}>
          {summary.upcoming_window ? `Due ${summary.upcoming_window.start} to ${summary.upcoming_window.end}` : 'Due in the 7 days after it was made'}
        </Title>
        {summary.upcoming_exams.length === 0 ? (
          <Text size="sm">Nothing due on those days.</Text>
        ) : (
          <List size="sm">
            {summary.upcoming_exams.map((item) => (
              <List.Item key={item.exam_id}>
                {item.exam_title}: due {formatDate(item.due_date)}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
      {usesAlpha ? (
        <Stack gap="xs">
          <Title order={5}>Alpha Learning, {span}</Title>
          <List size="sm">
            <List.Item>{`Practice: ${count(alpha.minutes, 'minute', 'minutes')} in ${count(alpha.activities, 'activity', 'activities')}`}</List.Item>
            <List.Item>
              Points: {alpha.points_earned} earned in that week, {alpha.points_total} in total
            </List.Item>
            {alpha.curricula.map((item) => (
              <List.Item key={item.curriculum_id}>
                {`${item.name}: ${item.concepts_mastered} of ${count(item.concepts_total, 'concept', 'concepts')} mastered, average mastery ${percent(item.average_mastery)}`}
              </List.Item>
            ))}
          </List>
        </Stack>
      ) : null}
      <Stack gap="xs">
        <Title order={5}>Groups and activity</Title>
        <Group gap="xs">
          {summary.groups.length === 0 ? (
            <Text size="sm">No groups.</Text>
          ) : (
            summary.groups.map((name) => (
              <Badge key={name} variant="light">
                {name}
              </Badge>
            ))
          )}
        </Group>
        <Text size="sm">
          Activity recorded {span}: {summary.activity.events}
        </Text>
      </Stack>
    </Stack>
  );
}

/**
 * The mail the student's confirmed guardians would receive if the report were made now: its
 * subject, who gets it, and the HTML part as a mail program shows it (a sandboxed frame, no scripts).
 */
function ReportPreview({ institutionId, studentId }: { institutionId: string; studentId: string }) {
  const preview = useQuery({
    queryKey: [...areaKey(institutionId, 'students'), 'guardian-report-preview', studentId],
    queryFn: () =>
      call(
        portal.GET('/institutions/{institution}/students/{id}/guardian-report-preview', {
          params: { path: { institution: institutionId, id: studentId } },
        }),
      ),
  });
  if (preview.error) return <QueryError error={preview.error} />;
  if (!preview.data) return <Skeleton height={360} aria-busy="true" aria-label="Loading" />;
  const { subject, recipients, html } = preview.data;
  return (
    <Stack gap="sm">
      <div>
        <Text size="xs" fw={700} c="dimmed" tt="uppercase">
          Subject
        </Text>
        <Text size="sm">{subject}</Text>
      </div>
      <div>
        <Text size="xs" fw={700} c="dimmed" tt="uppercase">
          To
        </Text>
        <Text size="sm">{recipients.length > 0 ? recipients.join(', ') : 'nobody yet: no guardian has confirmed'}</Text>
      </div>
      <iframe
        title="The report as the guardian's mail shows it"
        sandbox=""
        srcDoc={html}
        style={{ width: '100%', height: 420, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4 }}
      />
      <Text size="xs" c="dimmed">
        The week under way, as it stands now: next Monday&apos;s report says this, with what happens until Sunday, to each guardian who has confirmed. Nothing
        is sent from here.
      </Text>
    </Stack>
  );
}

/** The student's weekly guardian reports, newest first, each opening to what its guardians read. */
export function GuardianReports({ institutionId, studentId }: { institutionId: string; studentId: string }) {
  const [open, setOpen] = useState<GuardianReport | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const reports = useQuery({
    queryKey: [...areaKey(institutionId, 'students'), 'guardian-reports', studentId],
    queryFn: () =>
      call(
        portal.GET('/institutions/{institution}/guardians/reports', {
          params: { path: { institution: institutionId }, query: { student_id: studentId, limit: 200 } },
        }),
      ),
  });
  const columns: ColumnDef<GuardianReport>[] = [
    { header: 'Week', id: 'week', cell: ({ row }) => `${row.original.summary.week.start} to ${row.original.summary.week.end}` },
    { header: 'Submissions', id: 'submissions', cell: ({ row }) => row.original.summary.submissions.length },
    { header: 'Due next', id: 'upcoming', cell: ({ row }) => row.original.summary.upcoming_exams.length },
    { header: 'Alpha minutes', id: 'alpha', cell: ({ row }) => row.original.summary.alpha?.minutes ?? '—' },
    { header: 'Made', id: 'created', cell: ({ row }) => formatDate(row.original.created_at) },
  ];
  return (
    <Section
      title="Guardian reports"
      actions={
        <Button size="xs" variant="light" onClick={() => setPreviewing(true)}>
          Preview the mail
        </Button>
      }
    >
      <DataTable
        label="Guardian reports"
        columns={columns}
        data={reports.data ? [...reports.data.items].reverse() : undefined}
        isLoading={reports.isPending}
        error={reports.error}
        getRowId={(item) => item.id}
        onRowClick={(item) => setOpen(item)}
        empty={{ title: 'No reports yet', description: 'A report is made each Monday for a student with a verified guardian, about the week before.' }}
      />
      <Modal
        opened={open !== null}
        onClose={() => setOpen(null)}
        title={open ? `Weekly report, ${open.summary.week.start} to ${open.summary.week.end}` : ''}
        size="xl"
      >
        {open ? <ReportDetail report={open} /> : null}
      </Modal>
      <Modal opened={previewing} onClose={() => setPreviewing(false)} title="What a guardian receives" size="xl">
        {previewing ? <ReportPreview institutionId={institutionId} studentId={studentId} /> : null}
      </Modal>
    </Section>
  );
}

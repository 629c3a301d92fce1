import { Anchor, Button, Card, Code, Group, List, NumberInput, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, Fact, Facts, formatDate, FormModal, formatSize, PageHeader, Section, StatusBadge, useApiMutation } from '../../components';
import { useInstitution, useSession } from '../../session';
import { PersonLink } from '../people/people';
import { areaKey } from '../shared/areas';
import { BackLink, DetailState, Mono } from '../shared/common';
import { useNames } from '../shared/names';
import { Answers } from './Answers';
import { GradeStanding } from './GradeStanding';
import { RESUBMISSION_SCORE, type FileLink, type ProctoringFeed, type SubmissionDetail } from './submissions';

function Files({ files, empty }: { files: FileLink[]; empty: string }) {
  if (files.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    );
  }
  return (
    <List size="sm" spacing={4}>
      {files.map((file) => (
        <List.Item key={file.ref}>
          {/* Signed links, valid 15 minutes: reopen the page for fresh ones. */}
          <Anchor href={file.url} download={file.name}>
            {file.name}
          </Anchor>{' '}
          <Text span size="xs" c="dimmed">
            {formatSize(file.size)}
          </Text>
        </List.Item>
      ))}
    </List>
  );
}

/** The forms' labels by API field: shown on the inputs, and in a refusal's words. */
const GRADE_LABELS = { score: 'Score', feedback: 'Feedback', graded_by: 'Graded by' } as const;
const VOID_LABELS = { reason: 'Reason' } as const;

function GradeForm({ submission, maxScore }: { submission: SubmissionDetail; maxScore: number | null | undefined }) {
  const institution = useInstitution();
  const session = useSession();
  const [score, setScore] = useState<number | string>(submission.score ?? '');
  const [feedback, setFeedback] = useState(submission.feedback ?? '');
  const [gradedBy, setGradedBy] = useState(submission.graded_by ?? session.account.email);
  const [asking, ask] = useDisclosure(false);
  const grade = useApiMutation({
    mutationFn: (value: number) =>
      call(
        portal.POST('/institutions/{institution}/submissions/{id}/grade', {
          params: { path: { institution: institution.id, id: submission.id } },
          body: {
            score: value,
            ...(feedback.trim() ? { feedback: feedback.trim() } : {}),
            ...(gradedBy.trim() ? { graded_by: gradedBy.trim() } : {}),
          },
        }),
      ),
    invalidate: [areaKey(institution.id, 'submissions')],
    success: (row) => (row.status === 'graded' ? `Graded: ${row.score}.` : 'Resubmission requested.'),
    onSuccess: ask.close,
    labels: GRADE_LABELS,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typeof score === 'number') grade.mutate(score);
  };
  return (
    <Card withBorder padding="md" radius="md">
      <form onSubmit={submit} aria-label="Grade submission">
        <Stack>
          <Title order={4}>{submission.status === 'graded' ? 'Change the grade' : 'Grade'}</Title>
          <NumberInput
            label={GRADE_LABELS.score}
            error={grade.fieldErrors.score}
            description={maxScore === null || maxScore === undefined ? 'Any score from 0.' : `From 0 to ${maxScore}.`}
            min={0}
            max={maxScore ?? undefined}
            clampBehavior="strict"
            decimalScale={2}
            required
            value={score}
            onChange={setScore}
            w={200}
          />
          <Textarea
            label={GRADE_LABELS.feedback}
            error={grade.fieldErrors.feedback}
            description="Shown to the student; replaces any earlier feedback."
            maxLength={10_000}
            autosize
            minRows={3}
            value={feedback}
            onChange={(event) => setFeedback(event.currentTarget.value)}
          />
          <TextInput
            label={GRADE_LABELS.graded_by}
            maxLength={200}
            value={gradedBy}
            onChange={(event) => setGradedBy(event.currentTarget.value)}
            error={grade.fieldErrors.graded_by}
            maw={360}
          />
          <Group justify="space-between">
            <Button variant="default" onClick={ask.open}>
              Request resubmission
            </Button>
            <Button type="submit" loading={grade.isPending && !asking} disabled={typeof score !== 'number'}>
              Save grade
            </Button>
          </Group>
        </Stack>
      </form>
      <ConfirmModal
        opened={asking}
        title="Ask for a resubmission?"
        confirmLabel="Request resubmission"
        color="blue"
        loading={grade.isPending}
        onConfirm={() => grade.mutate(RESUBMISSION_SCORE)}
        onClose={ask.close}
      >
        <Text size="sm">The score is cleared and the student may submit again. The feedback above is sent with the request.</Text>
      </ConfirmModal>
    </Card>
  );
}

function VoidModal({ submission, opened, onClose }: { submission: SubmissionDetail; opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [reason, setReason] = useState('');
  const voidIt = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/submissions/{id}/void', {
          params: { path: { institution: institution.id, id: submission.id } },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ),
    invalidate: [areaKey(institution.id, 'submissions'), areaKey(institution.id, 'exams')],
    success: 'Submission voided.',
    onSuccess: onClose,
    labels: VOID_LABELS,
  });
  return (
    <FormModal
      opened={opened}
      title="Void this submission?"
      formLabel="Void submission"
      submitLabel="Void submission"
      loading={voidIt.isPending}
      onSubmit={() => voidIt.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        A voided submission no longer counts: it leaves the scores and analytics, and cannot be graded. Its score and feedback are kept. This cannot be undone.
      </Text>
      <Textarea
        label={VOID_LABELS.reason}
        description="Optional: kept for your records; never shown to the student or sent to integrations."
        error={voidIt.fieldErrors.reason}
        maxLength={500}
        autosize
        minRows={2}
        value={reason}
        onChange={(event) => setReason(event.currentTarget.value)}
        data-autofocus
      />
    </FormModal>
  );
}

export function SubmissionDetailPage() {
  const institution = useInstitution();
  const { submissionId = '' } = useParams();
  const [voiding, voider] = useDisclosure(false);
  const path = { institution: institution.id, id: submissionId };

  const submission = useQuery({
    queryKey: [...areaKey(institution.id, 'submissions'), 'one', submissionId],
    queryFn: () => call(portal.GET('/institutions/{institution}/submissions/{id}', { params: { path } })),
  });
  const examId = submission.data?.exam_id;
  const exam = useQuery({
    queryKey: [...areaKey(institution.id, 'exams'), 'one', examId],
    queryFn: () => call(portal.GET('/institutions/{institution}/exams/{id}', { params: { path: { institution: institution.id, id: examId! } } })),
    enabled: Boolean(examId),
  });
  const studentName = useNames(institution.id, [submission.data?.student_id]).get(submission.data?.student_id ?? '')?.name;
  const feed = useQuery({
    queryKey: [...areaKey(institution.id, 'submissions'), 'events', submissionId],
    queryFn: () => call(portal.GET('/institutions/{institution}/submissions/{id}/events', { params: { path } })),
  });

  const eventColumns: ColumnDef<ProctoringFeed['items'][number]>[] = [
    { header: 'Time', id: 'at', cell: ({ row }) => formatDate(row.original.at) },
    { header: 'Event', id: 'type', cell: ({ row }) => <Mono>{row.original.type}</Mono> },
    {
      header: 'Detail',
      id: 'detail',
      cell: ({ row }) => (row.original.detail === null ? '—' : <Code>{JSON.stringify(row.original.detail)}</Code>),
    },
  ];

  return (
    <DetailState isPending={submission.isPending} error={submission.error}>
      {() => {
        const row = submission.data!;
        const voided = row.status === 'voided';
        const counts = Object.entries(row.proctoring.counts);
        return (
          <>
            <PageHeader
              title={exam.data ? exam.data.title : 'Submission'}
              description={<Mono>{row.id}</Mono>}
              actions={
                <>
                  <BackLink to=".." label="All submissions" />
                  <Button variant="light" color="red" onClick={voider.open} disabled={voided}>
                    Void
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="Status">
                <StatusBadge status={row.status} />
              </Fact>
              <Fact label="Student">
                <PersonLink institutionId={institution.id} id={row.student_id} label={studentName} />
              </Fact>
              <Fact label="Exam">
                <Anchor component={Link} to={`/i/${institution.id}/exams/${row.exam_id}`} size="sm" title={row.exam_id}>
                  {exam.data?.title ?? row.exam_id}
                </Anchor>
              </Fact>
              <Fact label="Submitted">{formatDate(row.submitted_at)}</Fact>
              <Fact label="Score">{row.score === null ? null : `${row.score}${exam.data?.max_score != null ? ` / ${exam.data.max_score}` : ''}`}</Fact>
              <Fact label="Graded">{row.graded_at ? `${formatDate(row.graded_at)}${row.graded_by ? ` by ${row.graded_by}` : ''}` : null}</Fact>
              <Fact label="AI assistant">{row.ai_usage ? `${row.ai_usage.interactions} interactions · ${row.ai_usage.cost_cents}¢` : 'none reported'}</Fact>
              {voided ? <Fact label="Voided">{formatDate(row.voided_at)}</Fact> : null}
            </Facts>
            <Stack gap="xl">
              {voided ? null : <GradeForm key={row.updated_at} submission={row} maxScore={exam.data?.max_score} />}
              {row.status === 'graded' ? <GradeStanding submissionId={row.id} /> : null}
              {voided && row.feedback ? (
                <Stack gap={4}>
                  <Title order={4}>Feedback</Title>
                  <Text size="sm">{row.feedback}</Text>
                </Stack>
              ) : null}
              <Section title="Answers">
                <Answers answers={row.answers} attachments={row.attachments} />
              </Section>
              <Section title="Files">
                <Files files={row.attachments} empty="No files were attached." />
              </Section>
              <Section title="Proctoring">
                <Text size="sm">
                  {row.proctoring.total === 0
                    ? 'No proctoring events.'
                    : `${row.proctoring.total} events from ${formatDate(row.proctoring.first_at)} to ${formatDate(row.proctoring.last_at)}: ${counts.map(([type, count]) => `${type.replaceAll('_', ' ')} ${count}`).join(', ')}.`}
                </Text>
                <Text size="sm" fw={500}>
                  Recordings
                </Text>
                <Files files={row.recordings ?? []} empty="No recordings." />
                {feed.data && feed.data.items.length > 0 ? (
                  <DataTable
                    label="Proctoring events"
                    columns={eventColumns}
                    data={feed.data.items}
                    isLoading={false}
                    error={feed.error}
                    getRowId={(event) => event.id}
                    empty={{ title: 'No events' }}
                  />
                ) : null}
              </Section>
            </Stack>
            {voiding ? <VoidModal submission={row} opened onClose={voider.close} /> : null}
          </>
        );
      }}
    </DetailState>
  );
}

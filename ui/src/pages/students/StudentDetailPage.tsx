import { Anchor, Button, Checkbox, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, Fact, Facts, formatDate, FormModal, PageHeader, Section, StatusBadge, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { HolderLicenses } from '../people/people';
import { areaKey } from '../shared/areas';
import { BackLink, DetailState, Mono } from '../shared/common';
import { GuardianReports } from './GuardianReports';
import { StudentGroups } from './StudentGroups';
import { StudentGuardians } from './StudentGuardians';
import type { Student, StudentExam } from './students';

/** The edit form's labels by API field: shown on the inputs, and in a refusal's words. */
const EDIT_LABELS = { full_name: 'Full name', student_id: 'Student ID', personal_email: 'New personal email' } as const;

function EditStudentModal({ student, opened, onClose }: { student: Student; opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [fullName, setFullName] = useState(student.full_name);
  const [studentId, setStudentId] = useState(student.student_id ?? '');
  const [personalEmail, setPersonalEmail] = useState('');
  const [removeEmail, setRemoveEmail] = useState(false);
  const update = useApiMutation({
    mutationFn: () =>
      call(
        portal.PATCH('/institutions/{institution}/students/{id}', {
          params: { path: { institution: institution.id, id: student.id } },
          body: {
            full_name: fullName.trim(),
            student_id: studentId.trim() || null,
            // Never shown, so only sent when changed: blank keeps it.
            ...(removeEmail ? { personal_email: null } : personalEmail.trim() ? { personal_email: personalEmail.trim() } : {}),
          },
        }),
      ),
    invalidate: [areaKey(institution.id, 'students')],
    success: 'Student updated.',
    onSuccess: onClose,
    labels: EDIT_LABELS,
  });
  return (
    <FormModal
      opened={opened}
      title="Edit student"
      submitLabel="Save"
      loading={update.isPending}
      disabled={!fullName.trim()}
      onSubmit={() => update.mutate()}
      onClose={onClose}
    >
      <TextInput
        label={EDIT_LABELS.full_name}
        required
        maxLength={200}
        value={fullName}
        onChange={(event) => setFullName(event.currentTarget.value)}
        error={update.fieldErrors.full_name}
        data-autofocus
      />
      <TextInput
        label={EDIT_LABELS.student_id}
        error={update.fieldErrors.student_id}
        description="Empty removes it."
        maxLength={100}
        value={studentId}
        onChange={(event) => setStudentId(event.currentTarget.value)}
      />
      <TextInput
        label={EDIT_LABELS.personal_email}
        error={update.fieldErrors.personal_email}
        description="The current one is sealed and never shown; leave empty to keep it."
        type="email"
        maxLength={320}
        disabled={removeEmail}
        value={personalEmail}
        onChange={(event) => setPersonalEmail(event.currentTarget.value)}
      />
      <Checkbox label="Remove the personal email" checked={removeEmail} onChange={(event) => setRemoveEmail(event.currentTarget.checked)} />
      <Text size="xs" c="dimmed">
        The login email stays as it is, even when the name changes.
      </Text>
    </FormModal>
  );
}

export function StudentDetailPage() {
  const institution = useInstitution();
  const { studentId = '' } = useParams();
  const [editing, edit] = useDisclosure(false);
  const [confirming, confirm] = useDisclosure(false);
  const path = { institution: institution.id, id: studentId };

  const student = useQuery({
    queryKey: [...areaKey(institution.id, 'students'), 'one', studentId],
    queryFn: () => call(portal.GET('/institutions/{institution}/students/{id}', { params: { path } })),
  });
  const exams = useQuery({
    queryKey: [...areaKey(institution.id, 'students'), 'exams', studentId],
    queryFn: () => call(portal.GET('/institutions/{institution}/students/{id}/exams', { params: { path, query: { limit: 200 } } })),
  });

  const suspended = student.data?.status === 'suspended';
  const setStatus = useApiMutation({
    mutationFn: () =>
      suspended
        ? call(portal.POST('/institutions/{institution}/students/{id}/reactivate', { params: { path } }))
        : call(portal.POST('/institutions/{institution}/students/{id}/suspend', { params: { path } })),
    invalidate: [areaKey(institution.id, 'students')],
    success: (row) => (row.status === 'suspended' ? `${row.full_name} is suspended.` : `${row.full_name} is active again.`),
    onSuccess: confirm.close,
  });

  const examColumns: ColumnDef<StudentExam>[] = [
    { header: 'Exam', id: 'title', cell: ({ row }) => row.original.exam.title },
    { header: 'Exam status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.exam.status} /> },
    { header: 'Due', id: 'due', cell: ({ row }) => formatDate(row.original.exam.due_date) },
    {
      header: 'Submission',
      id: 'submission',
      cell: ({ row }) =>
        row.original.submission ? (
          <Anchor component={Link} to={`/i/${institution.id}/submissions/${row.original.submission.id}`} size="sm" onClick={(event) => event.stopPropagation()}>
            {row.original.submission.status.replaceAll('_', ' ')}
            {row.original.submission.score !== null ? ` · ${row.original.submission.score}` : ''}
          </Anchor>
        ) : (
          <Text size="sm" c="dimmed">
            none yet
          </Text>
        ),
    },
  ];

  return (
    <DetailState isPending={student.isPending} error={student.error}>
      {() => {
        const row = student.data!;
        return (
          <>
            <PageHeader
              title={row.full_name}
              description={<Mono>{row.login_email}</Mono>}
              actions={
                <>
                  <BackLink to=".." label="All students" />
                  <Button variant="default" component={Link} to={`/i/${institution.id}/submissions?student_id=${encodeURIComponent(row.id)}`}>
                    Submissions
                  </Button>
                  <Button variant="default" onClick={edit.open}>
                    Edit
                  </Button>
                  <Button color={suspended ? 'teal' : 'red'} variant="light" onClick={confirm.open}>
                    {suspended ? 'Reactivate' : 'Suspend'}
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="Status">
                <StatusBadge status={row.status} />
              </Fact>
              <Fact label="Student ID">{row.student_id}</Fact>
              <Fact label="Internal id">
                <Mono>{row.id}</Mono>
              </Fact>
              <Fact label="Added">{formatDate(row.created_at)}</Fact>
            </Facts>

            <Stack gap="xl">
              <HolderLicenses
                institutionId={institution.id}
                holderId={studentId}
                empty={{ title: 'No license', description: 'Every student gets one when added; this one has none left on record.' }}
              />
              <Section title="Exams">
                <DataTable
                  label="Assigned exams"
                  columns={examColumns}
                  data={exams.data?.items}
                  isLoading={exams.isPending}
                  error={exams.error}
                  getRowId={(item) => item.exam.id}
                  rowLink={(item) => `/i/${institution.id}/exams/${item.exam.id}`}
                  empty={{ title: 'No exams assigned', description: 'Published exams of the groups this student is in appear here.' }}
                />
              </Section>
              <StudentGroups institutionId={institution.id} studentId={row.id} studentName={row.full_name} />
              <StudentGuardians institutionId={institution.id} studentId={row.id} />
              <GuardianReports institutionId={institution.id} studentId={row.id} />
            </Stack>

            {editing ? <EditStudentModal student={row} opened onClose={edit.close} /> : null}
            <ConfirmModal
              opened={confirming}
              title={suspended ? 'Reactivate this student?' : 'Suspend this student?'}
              confirmLabel={suspended ? 'Reactivate' : 'Suspend'}
              color={suspended ? 'teal' : 'red'}
              loading={setStatus.isPending}
              onConfirm={() => setStatus.mutate()}
              onClose={confirm.close}
            >
              <Text size="sm">
                {suspended
                  ? `${row.full_name} can sign in to the apps again.`
                  : `${row.full_name} can no longer sign in to the apps. Their data, groups and license stay; you can reactivate them at any time.`}
              </Text>
            </ConfirmModal>
          </>
        );
      }}
    </DetailState>
  );
}

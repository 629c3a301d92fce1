import { Button, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, Fact, Facts, formatDate, FormModal, PageHeader, Section, StatusBadge, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import type { Exam } from '../exams/exams';
import type { Group } from '../groups/groups';
import { HolderLicenses, type PersonStatus } from '../people/people';
import { areaKey } from '../shared/areas';
import { BackLink, DetailState, Mono } from '../shared/common';
import type { Faculty } from './faculty';

/** The edit form's labels by API field: shown on the inputs, and in a refusal's words. */
const EDIT_LABELS = { full_name: 'Full name', faculty_id: 'Faculty ID', status: 'Status' } as const;

function EditFacultyModal({ teacher, onClose }: { teacher: Faculty; onClose(): void }) {
  const institution = useInstitution();
  const [fullName, setFullName] = useState(teacher.full_name);
  const [facultyId, setFacultyId] = useState(teacher.faculty_id ?? '');
  const [status, setStatus] = useState<PersonStatus>(teacher.status);
  const update = useApiMutation({
    mutationFn: () =>
      call(
        portal.PATCH('/institutions/{institution}/faculty/{id}', {
          params: { path: { institution: institution.id, id: teacher.id } },
          body: { full_name: fullName.trim(), faculty_id: facultyId.trim() || null, status },
        }),
      ),
    invalidate: [areaKey(institution.id, 'faculty')],
    success: 'Faculty member updated.',
    onSuccess: onClose,
    labels: EDIT_LABELS,
  });
  return (
    <FormModal
      opened
      title="Edit faculty member"
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
        label={EDIT_LABELS.faculty_id}
        error={update.fieldErrors.faculty_id}
        description="Empty removes it."
        maxLength={100}
        value={facultyId}
        onChange={(event) => setFacultyId(event.currentTarget.value)}
      />
      <Select
        label={EDIT_LABELS.status}
        error={update.fieldErrors.status}
        description="A suspended teacher cannot sign in, nor be named as the owner of a new group or exam."
        data={['active', 'suspended']}
        value={status}
        onChange={(value) => setStatus((value as PersonStatus | null) ?? teacher.status)}
        allowDeselect={false}
      />
    </FormModal>
  );
}

export function FacultyDetailPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const { facultyId = '' } = useParams();
  const [editing, edit] = useDisclosure(false);
  const path = { institution: institution.id, id: facultyId };

  const teacher = useQuery({
    queryKey: [...areaKey(institution.id, 'faculty'), 'one', facultyId],
    queryFn: () => call(portal.GET('/institutions/{institution}/faculty/{id}', { params: { path } })),
  });
  const exams = useQuery({
    queryKey: [...areaKey(institution.id, 'exams'), 'of', facultyId],
    queryFn: () => call(portal.GET('/institutions/{institution}/faculty/{id}/exams', { params: { path, query: { limit: 200 } } })),
  });
  const groups = useQuery({
    queryKey: [...areaKey(institution.id, 'groups'), 'of', facultyId],
    queryFn: () =>
      call(
        portal.GET('/institutions/{institution}/groups', { params: { path: { institution: institution.id }, query: { faculty_id: facultyId, limit: 200 } } }),
      ),
  });

  const groupColumns: ColumnDef<Group>[] = [
    { header: 'Group', accessorKey: 'name' },
    { header: 'Students', accessorKey: 'student_count' },
  ];
  const examColumns: ColumnDef<Exam>[] = [
    { header: 'Exam', accessorKey: 'title' },
    { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
    { header: 'Due', id: 'due', cell: ({ row }) => formatDate(row.original.due_date) },
  ];

  return (
    <DetailState isPending={teacher.isPending} error={teacher.error}>
      {() => {
        const row = teacher.data!;
        return (
          <>
            <PageHeader
              title={row.full_name}
              description={<Mono>{row.login_email}</Mono>}
              actions={
                <>
                  <BackLink to=".." label="All faculty" />
                  <Button variant="default" onClick={edit.open}>
                    Edit
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="Status">
                <StatusBadge status={row.status} />
              </Fact>
              <Fact label="Faculty ID">{row.faculty_id}</Fact>
              <Fact label="Internal id">
                <Mono>{row.id}</Mono>
              </Fact>
              <Fact label="Added">{formatDate(row.created_at)}</Fact>
            </Facts>
            <Stack gap="xl">
              <Section title="Groups">
                <DataTable
                  label="Groups owned"
                  columns={groupColumns}
                  data={groups.data?.items}
                  isLoading={groups.isPending}
                  error={groups.error}
                  getRowId={(item) => item.id}
                  onRowClick={(item) => navigate(`/i/${institution.id}/groups/${item.id}`)}
                  empty={{ title: 'Owns no group' }}
                />
              </Section>
              <Section title="Exams">
                <DataTable
                  label="Exams owned"
                  columns={examColumns}
                  data={exams.data?.items}
                  isLoading={exams.isPending}
                  error={exams.error}
                  getRowId={(item) => item.id}
                  onRowClick={(item) => navigate(`/i/${institution.id}/exams/${item.id}`)}
                  empty={{ title: 'Owns no exam', description: 'Exams are created by your LMS through the API.' }}
                />
              </Section>
              <HolderLicenses institutionId={institution.id} holderId={facultyId} empty={{ title: 'No license' }} />
            </Stack>
            {editing ? <EditFacultyModal teacher={row} onClose={edit.close} /> : null}
            <Text size="xs" c="dimmed" mt="xl">
              Faculty are suspended or reactivated by editing their status.
            </Text>
          </>
        );
      }}
    </DetailState>
  );
}

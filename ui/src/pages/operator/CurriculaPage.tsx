import { Button, Checkbox, Select, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, FormModal, NameCell, PageHeader, StatusBadge, useApiMutation } from '../../components';
import { operatorKey, type OperatorCurriculum } from './operator';

const curriculaKey = operatorKey('curricula');
/** The Select's value for "no institution" (ids start with inst_, so it cannot collide). */
const SHARED = 'shared';

/** The form's labels by API field: shown on the inputs, and in a refusal's words. */
const CURRICULUM_LABELS = { name: 'Name', description: 'Description', concepts: 'Concepts', institution_id: 'Available to', publish: 'Publish now' } as const;

function CreateModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institutions = useQuery({
    queryKey: operatorKey('institutions'),
    queryFn: () => call(portal.GET('/operator/institutions')),
    enabled: opened,
  });
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [concepts, setConcepts] = useState<string[]>([]);
  const [owner, setOwner] = useState<string>(SHARED);
  const [publish, setPublish] = useState(false);
  const create = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/operator/curricula', {
          body: {
            name: name.trim(),
            description,
            concepts,
            institution_id: owner === SHARED ? null : owner,
            publish,
          },
        }),
      ),
    invalidate: [curriculaKey],
    success: (created) => `${created.name} created as ${created.status === 'published' ? 'published' : 'a draft'}.`,
    labels: CURRICULUM_LABELS,
    onSuccess: () => {
      setName('');
      setDescription('');
      setConcepts([]);
      setOwner(SHARED);
      setPublish(false);
      onClose();
    },
  });
  const options = [{ value: SHARED, label: 'Shared by every institution' }, ...(institutions.data ?? []).map((row) => ({ value: row.id, label: row.name }))];
  return (
    <FormModal
      opened={opened}
      title="New curriculum"
      size="lg"
      submitLabel="Create curriculum"
      loading={create.isPending}
      disabled={concepts.length === 0}
      onSubmit={() => create.mutate()}
      onClose={onClose}
    >
      <TextInput
        label={CURRICULUM_LABELS.name}
        required
        maxLength={200}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={create.fieldErrors.name}
        data-autofocus
      />
      <Textarea
        label={CURRICULUM_LABELS.description}
        error={create.fieldErrors.description}
        maxLength={2000}
        autosize
        minRows={2}
        maxRows={6}
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
      />
      <TagsInput
        label={CURRICULUM_LABELS.concepts}
        error={create.fieldErrors.concepts}
        description="In teaching order. Press Enter after each one; names must differ."
        required
        value={concepts}
        onChange={setConcepts}
        maxTags={200}
        allowDuplicates={false}
        clearable
      />
      <Select
        label={CURRICULUM_LABELS.institution_id}
        error={create.fieldErrors.institution_id}
        data={options}
        value={owner}
        onChange={(value) => setOwner(value ?? SHARED)}
        allowDeselect={false}
        searchable
      />
      <Checkbox
        label={CURRICULUM_LABELS.publish}
        error={create.fieldErrors.publish}
        description="Only published curricula are listed by the API and can be enrolled in. A draft can be published later."
        checked={publish}
        onChange={(event) => setPublish(event.currentTarget.checked)}
      />
    </FormModal>
  );
}

function PublishModal({ curriculum, onClose }: { curriculum: OperatorCurriculum | null; onClose(): void }) {
  const publish = useApiMutation({
    mutationFn: (id: string) => call(portal.POST('/operator/curricula/{curriculumId}/publish', { params: { path: { curriculumId: id } } })),
    invalidate: [curriculaKey],
    success: (published) => `${published.name} is published.`,
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={curriculum !== null}
      title="Publish this curriculum?"
      confirmLabel="Publish"
      loading={publish.isPending}
      onConfirm={() => curriculum && publish.mutate(curriculum.id)}
      onClose={onClose}
    >
      <Text size="sm">
        <b>{curriculum?.name}</b> becomes visible through the API to {curriculum?.institution ? curriculum.institution.name : 'every institution'}, and students
        can be enrolled in it. A published curriculum cannot go back to draft.
      </Text>
    </ConfirmModal>
  );
}

export function CurriculaPage() {
  const [creating, { open: openCreate, close: closeCreate }] = useDisclosure(false);
  const [publishing, setPublishing] = useState<OperatorCurriculum | null>(null);
  const curricula = useQuery({ queryKey: curriculaKey, queryFn: () => call(portal.GET('/operator/curricula')) });

  const columns = useMemo<ColumnDef<OperatorCurriculum>[]>(
    () => [
      {
        header: 'Curriculum',
        id: 'name',
        accessorFn: (row) => row.name,
        cell: ({ row }) => <NameCell name={row.original.name} detail={row.original.description} maw={360} />,
      },
      {
        header: 'Available to',
        id: 'owner',
        accessorFn: (row) => row.institution?.name ?? '',
        cell: ({ row }) => row.original.institution?.name ?? 'Every institution',
      },
      {
        header: 'Concepts',
        id: 'concepts',
        cell: ({ row }) => {
          const names = row.original.concepts.map((concept) => concept.name);
          return (
            <Text size="sm" maw={280} truncate="end" title={names.join(', ')}>
              {names.length}: {names.join(', ')}
            </Text>
          );
        },
      },
      { header: 'Status', id: 'status', accessorFn: (row) => row.status, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Created', id: 'created', accessorFn: (row) => row.created_at, cell: ({ row }) => formatDate(row.original.created_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) =>
          row.original.status === 'draft' ? (
            <Button size="compact-xs" variant="light" onClick={() => setPublishing(row.original)} aria-label={`Publish ${row.original.name}`}>
              Publish
            </Button>
          ) : null,
      },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Curricula"
        description="Alpha Learning curricula: shared ones are offered to every institution, others to one institution only. Institutions see published curricula only."
        actions={<Button onClick={openCreate}>New curriculum</Button>}
      />
      <DataTable
        label="Curricula"
        columns={columns}
        data={curricula.data}
        isLoading={curricula.isPending}
        error={curricula.error}
        getRowId={(row) => row.id}
        empty={{
          title: 'No curricula yet',
          description: 'Create one with its concepts; publish it when it is ready.',
          action: <Button onClick={openCreate}>New curriculum</Button>,
        }}
      />
      <CreateModal opened={creating} onClose={closeCreate} />
      <PublishModal curriculum={publishing} onClose={() => setPublishing(null)} />
    </>
  );
}

import { Anchor, Text, Typography } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { call, portal } from '../../api/portal';
import { DataTable, formatDate, formatSize, Markdown, Section } from '../../components';
import { areaKey } from '../shared/areas';
import { Mono } from '../shared/common';
import type { ExamDetail } from './exams';

type Archive = ExamDetail['files'][number];

const KIND_LABELS: Record<Archive['kind'], string> = {
  starter: 'Starter files',
  sample_tests: 'Sample tests',
  hidden_tests: 'Hidden tests (encrypted)',
};

/** The exam's instructions as its students read them: Markdown, raw HTML shown as text. */
export function ExamInstructions({ markdown }: { markdown: string }) {
  if (!markdown.trim()) return null;
  return (
    <Section title="Instructions">
      <Typography>
        {/* Under the section's h4: the teacher's # becomes an h5. */}
        <Markdown markdown={markdown} headingOffset={4} />
      </Typography>
    </Section>
  );
}

/**
 * A coding exam's archives (what its students download during an attempt) and whether the
 * hidden-tests key is held: what an admin checks before the exam opens.
 */
export function CodingExamFiles({ institutionId, exam }: { institutionId: string; exam: ExamDetail }) {
  const secret = useQuery({
    queryKey: [...areaKey(institutionId, 'exams'), 'code-secret', exam.id],
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/exams/{id}/code-secret/status', { params: { path: { institution: institutionId, id: exam.id } } })),
    enabled: exam.app === 'code',
  });
  if (exam.app !== 'code') return null;

  const columns: ColumnDef<Archive>[] = [
    { header: 'Archive', id: 'kind', cell: ({ row }) => KIND_LABELS[row.original.kind] },
    {
      header: 'File',
      id: 'name',
      cell: ({ row }) => (
        // A signed link that lasts 15 minutes; the exam page reads the exam again every 10.
        <Anchor href={row.original.url} download={row.original.name}>
          {row.original.name}
        </Anchor>
      ),
    },
    { header: 'Size', id: 'size', cell: ({ row }) => formatSize(row.original.size) },
    {
      header: 'SHA-256',
      id: 'sha256',
      cell: ({ row }) => (
        <Text span size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
          {row.original.sha256}
        </Text>
      ),
    },
  ];

  return (
    <Section title="Coding exam files">
      <DataTable
        label="Coding exam files"
        columns={columns}
        data={exam.files}
        isLoading={false}
        getRowId={(file) => file.ref}
        empty={{
          title: 'No archives named yet',
          description: 'Your LMS uploads them with POST /v1/exams/{id}/files and names them in the exam’s code_spec.',
        }}
      />
      <Text size="sm" data-testid="hidden-key-status">
        {secret.data === undefined ? (
          'Hidden-tests key: …'
        ) : secret.data.stored ? (
          <>
            Hidden-tests key: stored {formatDate(secret.data.stored_at)}; received by {secret.data.released_count}{' '}
            {secret.data.released_count === 1 ? 'attempt' : 'attempts'} so far.
          </>
        ) : (
          <>
            Hidden-tests key: <strong>not stored</strong>. Students cannot open the hidden tests until your LMS stores it (
            <Mono>PUT /v1/exams/{'{id}'}/code-secret</Mono>).
          </>
        )}
      </Text>
    </Section>
  );
}

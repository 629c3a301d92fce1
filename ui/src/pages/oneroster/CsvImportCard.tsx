import { Button, Card, FileInput, Group, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal } from '../../components';
import { useInstitution } from '../../session';
import { ImportError } from './ImportError';
import { onerosterKey, type SyncResult } from './oneroster';
import { SyncResultAlert } from './SyncResultAlert';

interface ImportRequest {
  file: File;
  dryRun?: boolean;
  confirm?: boolean;
}

/** A OneRoster CSV zip the SIS exported, dry-run or imported through the same plan and guard as a sync. */
export function CsvImportCard() {
  const institution = useInstitution();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  /** The last answer, with the file it was about: a held-back import is applied by posting that file again. */
  const [last, setLast] = useState<{ result: SyncResult; file: File } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const upload = useMutation<SyncResult, Error, ImportRequest>({
    mutationFn: ({ file: zip, dryRun = false, confirm = false }) => {
      const form = new FormData();
      form.append('file', zip, zip.name);
      return call(
        portal.POST('/institutions/{id}/oneroster/import', {
          params: { path: { id: institution.id }, query: { dry_run: dryRun ? 'true' : 'false', confirm: confirm ? 'true' : 'false' } },
          body: form as never,
        }),
      );
    },
    onSuccess: async (result, request) => {
      // A run was recorded (and the roster perhaps changed): the runs list and the connection are read again.
      if (!request.dryRun) await queryClient.invalidateQueries({ queryKey: onerosterKey(institution.id) });
      setLast({ result, file: request.file });
      setConfirming(false);
    },
    onError: () => {
      setLast(null);
      setConfirming(false);
    },
  });
  const choose = (chosen: File | null) => {
    setFile(chosen);
    setLast(null);
    upload.reset();
  };
  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Export a OneRoster 1.1 or 1.2 CSV zip from the SIS, bulk or delta. A bulk file is the whole roster: people it no longer lists are suspended. A delta
          file only applies the changes it lists. The same guard as a sync holds back an import that would suspend too many people, until you confirm it.
        </Text>
        {/* No placeholder: Mantine draws it as text of too little contrast (axe, every-page.test.ts). */}
        <FileInput
          label="OneRoster CSV zip"
          description="The zip the SIS exported; choose it, then run a dry run or import it."
          accept=".zip,application/zip"
          clearable
          value={file}
          onChange={choose}
          maw={480}
        />
        <Group>
          <Button
            variant="default"
            disabled={!file}
            loading={upload.isPending && upload.variables?.dryRun === true}
            onClick={() => file && upload.mutate({ file, dryRun: true })}
          >
            Dry run
          </Button>
          <Button disabled={!file} loading={upload.isPending && !upload.variables?.dryRun} onClick={() => file && upload.mutate({ file })}>
            Import
          </Button>
        </Group>
        {upload.error ? <ImportError error={upload.error} /> : null}
        {last ? <SyncResultAlert result={last.result} applyLabel="Apply anyway" onApply={() => setConfirming(true)} /> : null}
      </Stack>
      <ConfirmModal
        opened={confirming}
        title="Apply the held-back import?"
        confirmLabel="Apply the import"
        color="orange"
        loading={upload.isPending}
        onConfirm={() => last && upload.mutate({ file: last.file, confirm: true })}
        onClose={() => setConfirming(false)}
      >
        <Text size="sm">{last?.result.reason}</Text>
        <Text size="sm">The suspended people lose access at once; a later import or sync reactivates anyone the SIS lists as active again.</Text>
      </ConfirmModal>
    </Card>
  );
}

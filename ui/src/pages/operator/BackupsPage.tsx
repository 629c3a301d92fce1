import { Alert, Anchor, Badge, Button, Code, Group, PasswordInput, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { z } from 'zod';
import { call, portal, portalHref } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, FormModal, formatSize, NameCell, PageHeader, useApiMutation } from '../../components';
import type { backupSchema } from '../../../../server/routes/operator/backups';

/** Types of server/routes/operator/backups.ts's schemas (type-only). */
type Backup = z.input<typeof backupSchema>;

const backupsKey = ['operator', 'backups'] as const;
const MIN_PASSPHRASE = 12;
/** The recovery kit form's label by API field: shown on the input, and in every problem's words. */
const KIT_LABELS = { passphrase: 'Passphrase' } as const;

const REASONS: Record<Backup['reason'], string> = {
  manual: 'Backed up now',
  daily: 'Daily',
  'before-migration': 'Before an upgrade',
  'before-restore': 'Before a restore',
  other: 'Put in the folder',
};

const downloadUrl = (name: string) => portalHref('/operator/backups/{name}/download', { path: { name } });

/** Saves text as a file through the browser (the portal window in the desktop app too). */
function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function RestoreModal({ backup, restartAvailable, onClose }: { backup: Backup | null; restartAvailable: boolean; onClose(): void }) {
  // The last one chosen stays named while the dialog fades out.
  const [shown, setShown] = useState(backup);
  if (backup && backup !== shown) setShown(backup);
  const restore = useApiMutation({
    mutationFn: (name: string) => call(portal.POST('/operator/backups/{name}/restore', { params: { path: { name } }, body: { restart: restartAvailable } })),
    invalidate: [backupsKey],
    success: (answer) =>
      answer.restarting
        ? 'CampusBridge is restarting with the backup. This page comes back in a few seconds.'
        : 'The backup is checked and ready. Quit CampusBridge and start it again to restore it.',
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={backup !== null}
      title="Restore this backup?"
      confirmLabel={restartAvailable ? 'Restore and restart' : 'Restore at next start'}
      color="red"
      loading={restore.isPending}
      onConfirm={() => backup && restore.mutate(backup.name)}
      onClose={onClose}
    >
      <Text size="sm">
        Everything changed since <b>{formatDate(shown?.created_at)}</b> is replaced by the backup <Code>{shown?.name}</Code>, the uploaded files too. The
        current database and files are kept first, as a &quot;Before a restore&quot; backup, so this can be undone the same way.
      </Text>
      <Text size="sm">
        {restartAvailable
          ? 'CampusBridge restarts at once: requests in progress finish, then the API and this portal are away for a few seconds.'
          : 'It takes effect when CampusBridge next starts: quit it (tray icon → Quit CampusBridge) or restart the service, then start it again.'}
      </Text>
    </ConfirmModal>
  );
}

function RecoveryKitModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [passphrase, setPassphrase] = useState('');
  const [repeat, setRepeat] = useState('');
  const close = () => {
    setPassphrase('');
    setRepeat('');
    onClose();
  };
  const download = useApiMutation({
    mutationFn: () => call(portal.POST('/operator/recovery-kit', { body: { passphrase } })),
    success: (kit) => `Recovery kit saved as ${kit.file_name}. Keep it, and its passphrase, away from the backups.`,
    onSuccess: (kit) => {
      saveFile(kit.file_name, kit.content);
      close();
    },
    labels: KIT_LABELS,
  });
  const mismatch = repeat.length > 0 && repeat !== passphrase;
  return (
    <FormModal
      opened={opened}
      title="Download the recovery kit"
      submitLabel="Download"
      loading={download.isPending}
      disabled={passphrase.length < MIN_PASSPHRASE || repeat !== passphrase}
      onSubmit={() => download.mutate(undefined)}
      onClose={close}
    >
      <Text size="sm">
        The recovery kit holds the master key that encrypts personal emails, webhook secrets and the mail server password, sealed with a passphrase you choose.
        With a backup, it moves CampusBridge to another computer. Without it, a backup&apos;s encrypted fields cannot be read anywhere else.
      </Text>
      <PasswordInput
        label={KIT_LABELS.passphrase}
        description={`At least ${MIN_PASSPHRASE} characters. Nobody can recover it: write it down and keep it apart from the kit.`}
        error={download.fieldErrors.passphrase}
        required
        minLength={MIN_PASSPHRASE}
        maxLength={1024}
        value={passphrase}
        onChange={(event) => setPassphrase(event.currentTarget.value)}
        data-autofocus
      />
      <PasswordInput
        label={`${KIT_LABELS.passphrase} again`}
        required
        value={repeat}
        error={mismatch ? `${KIT_LABELS.passphrase} again: the two passphrases differ` : undefined}
        onChange={(event) => setRepeat(event.currentTarget.value)}
      />
    </FormModal>
  );
}

export function BackupsPage() {
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [kitOpen, { open: openKit, close: closeKit }] = useDisclosure(false);
  const backups = useQuery({ queryKey: backupsKey, queryFn: () => call(portal.GET('/operator/backups')) });
  const backUp = useApiMutation({
    mutationFn: () => call(portal.POST('/operator/backups')),
    invalidate: [backupsKey],
    success: (made) => `Backed up as ${made.name}.`,
  });
  const cancel = useApiMutation({
    mutationFn: () => call(portal.DELETE('/operator/pending-restore')),
    invalidate: [backupsKey],
    success: 'The restore is cancelled.',
  });
  const restart = useApiMutation({
    mutationFn: () => call(portal.POST('/operator/restart')),
    invalidate: [backupsKey],
    success: 'CampusBridge is restarting. This page comes back in a few seconds.',
  });
  const data = backups.data;

  const columns = useMemo<ColumnDef<Backup>[]>(
    () => [
      {
        header: 'Backup',
        id: 'name',
        accessorFn: (row) => row.created_at,
        cell: ({ row }) => <NameCell name={formatDate(row.original.created_at)} detail={row.original.name} mono />,
      },
      { header: 'Reason', id: 'reason', accessorFn: (row) => row.reason, cell: ({ row }) => <Badge variant="light">{REASONS[row.original.reason]}</Badge> },
      { header: 'Size', id: 'size', accessorFn: (row) => row.size_bytes, cell: ({ row }) => formatSize(row.original.size_bytes) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => (
          <Group gap="xs" justify="flex-end" wrap="nowrap">
            <Anchor href={downloadUrl(row.original.name)} download={row.original.name} size="sm" aria-label={`Download ${row.original.name}`}>
              Download
            </Anchor>
            <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRestoring(row.original)} aria-label={`Restore ${row.original.name}`}>
              Restore
            </Button>
          </Group>
        ),
      },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Backups"
        description={
          <>
            Each backup is one file holding the database and every uploaded file (exam archives, submitted files, recordings), each checked when restored: one
            every night (the last 7 are kept), the ones you make, and a copy of the database alone before every upgrade. They are in{' '}
            <Code>{data?.folder ?? 'the backups folder'}</Code>; a backup from another computer put in that folder appears here. Backups do not hold the master
            key: download the recovery kit once and keep it safe.
          </>
        }
        actions={
          <Group>
            <Button variant="default" onClick={openKit}>
              Download recovery kit
            </Button>
            <Button onClick={() => backUp.mutate(undefined)} loading={backUp.isPending}>
              Back up now
            </Button>
          </Group>
        }
      />
      {data?.pending_restore ? (
        <Alert color="orange" title="A restore is waiting" mb="md">
          <Text size="sm">
            <Code>{data.pending_restore.source}</Code> (chosen {formatDate(data.pending_restore.staged_at)}) replaces the database when CampusBridge next
            starts.
          </Text>
          <Group mt="sm">
            {data.restart_available ? (
              <Button size="xs" color="orange" onClick={() => restart.mutate(undefined)} loading={restart.isPending}>
                Restart now
              </Button>
            ) : (
              <Text size="sm">Quit CampusBridge (tray icon → Quit CampusBridge) or restart the service, then start it again.</Text>
            )}
            <Button size="xs" variant="default" onClick={() => cancel.mutate(undefined)} loading={cancel.isPending}>
              Cancel the restore
            </Button>
          </Group>
        </Alert>
      ) : null}
      <DataTable
        label="Backups"
        columns={columns}
        data={data?.items}
        isLoading={backups.isPending}
        error={backups.error}
        getRowId={(row) => row.name}
        empty={{
          title: 'No backups yet',
          description: 'The first daily backup is made tonight.',
          action: (
            <Button onClick={() => backUp.mutate(undefined)} loading={backUp.isPending}>
              Back up now
            </Button>
          ),
        }}
      />
      <RestoreModal backup={restoring} restartAvailable={data?.restart_available ?? false} onClose={() => setRestoring(null)} />
      <RecoveryKitModal opened={kitOpen} onClose={closeKit} />
    </>
  );
}

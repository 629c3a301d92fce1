import { Button, PasswordInput, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { z } from 'zod';
import type { accountLineSchema } from '../../../../server/routes/operator/accounts';
import { call, portal } from '../../api/portal';
import { DataTable, FormModal, MIN_PASSWORD, PageHeader, StatusBadge, useApiMutation } from '../../components';
import { useSession } from '../../session';
import { NamedId, useOperatorNames } from '../shared/names';

/** A line of GET /portal/api/operator/accounts (type-only import of the server's schema). */
type AccountLine = z.input<typeof accountLineSchema>;

const accountsKey = ['operator', 'accounts'] as const;
/** The form's label by API field: shown on the input, and in a refusal's words. */
const PASSWORD_LABELS = { password: 'New password' } as const;

function SetPasswordModal({ line, onClose }: { line: AccountLine | null; onClose(): void }) {
  const [password, setPassword] = useState('');
  const set = useApiMutation({
    mutationFn: () =>
      call(portal.POST('/operator/accounts/{accountId}/password', { params: { path: { accountId: line?.account_id ?? '' } }, body: { password } })),
    success: () => `New password set for ${line?.email}; their sessions were signed out. Tell them the password another way.`,
    onSuccess: () => {
      setPassword('');
      onClose();
    },
    labels: PASSWORD_LABELS,
  });
  return (
    <FormModal
      opened={line !== null}
      title={`New password for ${line?.email ?? ''}`}
      submitLabel="Set password"
      loading={set.isPending}
      disabled={password.length < MIN_PASSWORD}
      onSubmit={() => set.mutate()}
      onClose={onClose}
    >
      <Text size="sm">For someone locked out. Every session of the account ends; they sign in with this password and can change it on their account page.</Text>
      <PasswordInput
        label={PASSWORD_LABELS.password}
        description={`At least ${MIN_PASSWORD} characters.`}
        error={set.fieldErrors.password}
        autoComplete="new-password"
        required
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
        data-autofocus
      />
    </FormModal>
  );
}

/** Every portal account with its roles (as `account list`), and the operator's password reset. */
export function AccountsPage() {
  const session = useSession();
  const [target, setTarget] = useState<AccountLine | null>(null);
  const accounts = useQuery({ queryKey: accountsKey, queryFn: () => call(portal.GET('/operator/accounts')) });
  const names = useOperatorNames((accounts.data?.items ?? []).map((line) => line.institution_id));
  const columns = useMemo<ColumnDef<AccountLine>[]>(
    () => [
      { header: 'Email', accessorKey: 'email' },
      { header: 'Role', accessorKey: 'role' },
      {
        header: 'Institution',
        id: 'institution',
        accessorFn: (row) => (row.institution_id ? (names.get(row.institution_id)?.name ?? row.institution_id) : ''),
        cell: ({ row }) => {
          const id = row.original.institution_id;
          return id ? <NamedId id={id} name={names.get(id)?.name} /> : 'the whole appliance';
        },
      },
      { header: 'Status', id: 'status', accessorFn: (row) => row.status, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) =>
          row.original.account_id === session.account.id ? null : (
            <Button size="compact-xs" variant="subtle" onClick={() => setTarget(row.original)} aria-label={`Set password for ${row.original.email}`}>
              Set password
            </Button>
          ),
      },
    ],
    [session.account.id, names],
  );
  return (
    <>
      <PageHeader
        title="Accounts"
        description="Everyone who can sign in to this portal, one line per role. Set a new password for someone locked out; change your own on your account page."
      />
      <DataTable
        label="Accounts"
        columns={columns}
        data={accounts.data?.items}
        isLoading={accounts.isPending}
        error={accounts.error}
        getRowId={(row) => `${row.account_id}:${row.role}:${row.institution_id ?? ''}`}
        empty={{ title: 'No accounts' }}
      />
      <SetPasswordModal line={target} onClose={() => setTarget(null)} />
    </>
  );
}

import { Button, Group, NumberInput, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { MAX_ALLOWANCE_CENTS as SERVER_MAX_ALLOWANCE_CENTS } from '../../../../server/commands/wallet/merits';
import { call, portal } from '../../api/portal';
import { DataTable, FormModal, PageHeader, StatusBadge, useApiMutation } from '../../components';
import { formatCents, operatorKey, type OperatorAllowance } from './operator';

const allowancesKey = operatorKey('allowances');
/** The server's ceiling; its constant is in a command module (database code), so the value is repeated and its type pins it. */
const MAX_ALLOWANCE_CENTS: typeof SERVER_MAX_ALLOWANCE_CENTS = 1_000_000_000_000;

/** The form's label by API field: shown on the input, and in every problem's words. */
const LABELS = { total_cents: 'Total allowance (cents)' } as const;

function SetAllowanceModal({ allowance, onClose }: { allowance: OperatorAllowance | null; onClose(): void }) {
  const [total, setTotal] = useState<number | string>(allowance?.total_cents ?? 0);
  const save = useApiMutation({
    mutationFn: (totalCents: number) =>
      call(portal.PUT('/operator/allowances/{id}', { params: { path: { id: allowance?.institution.id ?? '' } }, body: { total_cents: totalCents } })),
    invalidate: [allowancesKey],
    success: (saved) =>
      `${saved.institution.name} may now credit ${formatCents(saved.total_cents)} cents in total (${formatCents(saved.remaining_cents)} remaining).`,
    onSuccess: onClose,
    labels: LABELS,
  });
  const used = allowance?.used_cents ?? 0;
  const tooLow = typeof total === 'number' && total < used;
  return (
    <FormModal
      opened={allowance !== null}
      title={`Merit allowance of ${allowance?.institution.name ?? ''}`}
      formLabel="Set merit allowance"
      submitLabel="Save allowance"
      loading={save.isPending}
      disabled={total === '' || tooLow}
      onSubmit={() => save.mutate(Number(total))}
      onClose={onClose}
    >
      <Text size="sm" c="dimmed">
        What the institution may credit to student wallets in total, through POST /v1/merits/credits. It has credited {formatCents(used)} cents so far, and the
        total cannot be set below that.
      </Text>
      <NumberInput
        label={LABELS.total_cents}
        required
        min={used}
        max={MAX_ALLOWANCE_CENTS}
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=","
        value={total}
        onChange={setTotal}
        error={tooLow ? `${LABELS.total_cents}: at least ${formatCents(used)}, as that much is already credited` : save.fieldErrors.total_cents}
        data-autofocus
      />
    </FormModal>
  );
}

export function AllowancesPage() {
  const [editing, setEditing] = useState<OperatorAllowance | null>(null);
  const allowances = useQuery({ queryKey: allowancesKey, queryFn: () => call(portal.GET('/operator/allowances')) });

  const columns = useMemo<ColumnDef<OperatorAllowance>[]>(
    () => [
      {
        header: 'Institution',
        id: 'institution',
        accessorFn: (row) => row.institution.name,
        cell: ({ row }) => (
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" fw={500}>
              {row.original.institution.name}
            </Text>
            {row.original.institution.status !== 'approved' ? <StatusBadge status={row.original.institution.status} /> : null}
          </Group>
        ),
      },
      { header: 'Total (cents)', id: 'total', accessorFn: (row) => row.total_cents, cell: ({ row }) => formatCents(row.original.total_cents) },
      { header: 'Credited (cents)', id: 'used', accessorFn: (row) => row.used_cents, cell: ({ row }) => formatCents(row.original.used_cents) },
      {
        header: 'Remaining (cents)',
        id: 'remaining',
        accessorFn: (row) => row.remaining_cents,
        cell: ({ row }) => (
          <Text size="sm" fw={600} c={row.original.remaining_cents === 0 ? 'dimmed' : undefined}>
            {formatCents(row.original.remaining_cents)}
          </Text>
        ),
      },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => (
          <Button size="compact-xs" variant="subtle" onClick={() => setEditing(row.original)} aria-label={`Set allowance for ${row.original.institution.name}`}>
            Set allowance
          </Button>
        ),
      },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Merit allowances"
        description="How much each institution may credit to its students' merit wallets for AI usage. Each credit draws from the allowance; redeemed coupons do not."
      />
      <DataTable
        label="Merit allowances"
        columns={columns}
        data={allowances.data}
        isLoading={allowances.isPending}
        error={allowances.error}
        getRowId={(row) => row.institution.id}
        empty={{ title: 'No institutions yet', description: 'Create an institution first; its allowance starts at 0.' }}
      />
      <SetAllowanceModal key={editing?.institution.id ?? 'none'} allowance={editing} onClose={() => setEditing(null)} />
    </>
  );
}

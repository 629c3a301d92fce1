import { Button, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, NameCell, PageHeader, pagesOf, StatusBadge, useApiMutation } from '../../components';
import { BATCH_STATUSES, formatCents, operatorKey, type BatchStatus, type OperatorBatch } from './operator';

const PAGE_SIZE = 25;
const batchesKey = operatorKey('coupon-batches');

type Decision = { batch: OperatorBatch; action: 'approve' | 'reject' };

function DecisionModal({ decision, onClose }: { decision: Decision | null; onClose(): void }) {
  const decide = useApiMutation({
    mutationFn: ({ batch, action }: Decision) =>
      action === 'approve'
        ? call(portal.POST('/operator/coupon-batches/{batchId}/approve', { params: { path: { batchId: batch.id } } }))
        : call(portal.POST('/operator/coupon-batches/{batchId}/reject', { params: { path: { batchId: batch.id } } })),
    invalidate: [batchesKey],
    success: (batch) =>
      batch.status === 'approved' ? `${batch.name} approved: ${batch.total_coupons} codes generated for ${batch.institution.name}.` : `${batch.name} rejected.`,
    onSuccess: onClose,
  });
  const batch = decision?.batch;
  const approving = decision?.action === 'approve';
  return (
    <ConfirmModal
      opened={decision !== null}
      title={approving ? 'Approve this coupon batch?' : 'Reject this coupon batch?'}
      confirmLabel={approving ? 'Approve' : 'Reject'}
      color={approving ? undefined : 'red'}
      loading={decide.isPending}
      onConfirm={() => decision && decide.mutate(decision)}
      onClose={onClose}
    >
      {batch ? (
        <Text size="sm">
          <b>{batch.name}</b> from <b>{batch.institution.name}</b>: {batch.total_coupons.toLocaleString()} coupons worth {formatCents(batch.value_cents)} cents
          each, redeemable until {formatDate(batch.expiry_date)}.
        </Text>
      ) : null}
      <Text size="sm" c="dimmed">
        {approving
          ? 'The codes are generated now and the institution can read them through the API. A redeemed coupon credits the student’s wallet without drawing on the merit allowance.'
          : 'A rejected batch never gets codes. The institution can request a new one.'}
      </Text>
    </ConfirmModal>
  );
}

export function CouponBatchesPage() {
  const [status, setStatus] = useState<BatchStatus | 'all'>('pending');
  const [page, setPage] = useState(1);
  const [decision, setDecision] = useState<Decision | null>(null);
  const batches = useQuery({
    queryKey: [...batchesKey, status, page],
    queryFn: () =>
      call(portal.GET('/operator/coupon-batches', { params: { query: { status: status === 'all' ? undefined : status, page, limit: PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });

  const columns = useMemo<ColumnDef<OperatorBatch>[]>(
    () => [
      { header: 'Batch', id: 'name', cell: ({ row }) => <NameCell name={row.original.name} detail={row.original.description || row.original.id} maw={320} /> },
      { header: 'Institution', id: 'institution', cell: ({ row }) => row.original.institution.name },
      { header: 'Coupons', id: 'coupons', cell: ({ row }) => row.original.total_coupons.toLocaleString() },
      { header: 'Value each (cents)', id: 'value', cell: ({ row }) => formatCents(row.original.value_cents) },
      { header: 'Expires', id: 'expires', cell: ({ row }) => formatDate(row.original.expiry_date) },
      { header: 'Requested', id: 'requested', cell: ({ row }) => formatDate(row.original.created_at) },
      {
        header: 'Status',
        id: 'status',
        cell: ({ row }) => (
          <Stack gap={0}>
            <StatusBadge status={row.original.status} />
            {row.original.status === 'approved' ? (
              <Text size="xs" c="dimmed">
                {row.original.redeemed_count} redeemed
              </Text>
            ) : null}
          </Stack>
        ),
      },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) =>
          row.original.status === 'pending' ? (
            <Group gap={4} wrap="nowrap">
              <Button
                size="compact-xs"
                variant="light"
                onClick={() => setDecision({ batch: row.original, action: 'approve' })}
                aria-label={`Approve ${row.original.name}`}
              >
                Approve
              </Button>
              <Button
                size="compact-xs"
                variant="subtle"
                color="red"
                onClick={() => setDecision({ batch: row.original, action: 'reject' })}
                aria-label={`Reject ${row.original.name}`}
              >
                Reject
              </Button>
            </Group>
          ) : null,
      },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Coupon batches"
        description="Batches institutions request through the API. Approving one generates its codes; rejecting one means it never gets any. Pending batches are listed first."
      />
      <Group mb="md">
        <SegmentedControl
          aria-label="Filter by status"
          value={status}
          onChange={(value) => {
            setStatus(value as BatchStatus | 'all');
            setPage(1);
          }}
          data={[...BATCH_STATUSES.map((value) => ({ value, label: value.charAt(0).toUpperCase() + value.slice(1) })), { value: 'all', label: 'All' }]}
        />
      </Group>
      <DataTable
        label="Coupon batches"
        columns={columns}
        data={batches.data?.items}
        isLoading={batches.isPending}
        error={batches.error}
        getRowId={(row) => row.id}
        pagination={pagesOf(batches.data, setPage)}
        empty={
          status === 'pending'
            ? { title: 'Nothing waits for a decision', description: 'Batches requested with POST /v1/coupons/batches appear here.' }
            : { title: 'No coupon batches', description: 'Batches requested with POST /v1/coupons/batches appear here.' }
        }
      />
      <DecisionModal decision={decision} onClose={() => setDecision(null)} />
    </>
  );
}
